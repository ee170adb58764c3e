//! The deploy kit (`deploy/`) against the code it deploys:
//! every file parses, every `MEDIAOPS_*` variable a manifest sets is one
//! its role's settings read, the settings file passes the real loader,
//! ports, probe paths and grace periods match the settings and the router,
//! and every binary and subcommand exists. The last test starts the kit's
//! shape for real (two cores on one PostgreSQL and Redis, a gateway) and
//! runs its probes.
//!
//! The facts come from the code ([`code`]: settings defaults, `--help`,
//! `cargo metadata`); the files are read as their tools read them ([`kit`]).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

mod code;
mod kit;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use code::{Loaded, Role};
use serde_json::Value;

/// The kustomization, its resources' documents and the settings file its
/// ConfigMap generator carries.
struct K8s {
    kustomization: Value,
    documents: Vec<Value>,
    /// `(ConfigMap name, key, file)` of the generated settings ConfigMap.
    config_map: (String, String, PathBuf),
}

impl K8s {
    fn read() -> K8s {
        let kustomization = kit::yaml(&kit::deploy("k8s/kustomization.yaml"));
        let documents = kit::strings(&kustomization["resources"])
            .iter()
            .flat_map(|resource| kit::yaml_documents(&kit::deploy("k8s").join(resource)))
            .collect();
        let generators = kustomization["configMapGenerator"].as_array().expect("a configMapGenerator");
        assert_eq!(generators.len(), 1, "one generated ConfigMap: the settings file");
        let files = kit::strings(&generators[0]["files"]);
        assert_eq!(files.len(), 1, "the ConfigMap carries the settings file only");
        let (key, file) = files[0].split_once('=').unwrap_or((files[0].as_str(), files[0].as_str()));
        let name = generators[0]["name"].as_str().unwrap().to_owned();
        K8s { kustomization, documents, config_map: (name, key.to_owned(), kit::deploy("k8s").join(file)) }
    }

    fn of_kind(&self, kind: &str) -> Vec<&Value> {
        self.documents.iter().filter(|d| d["kind"] == kind).collect()
    }

    /// The settings file, loaded by both roles' real loaders.
    fn settings(&self) -> Loaded {
        Loaded::from_file(&self.config_map.2).unwrap_or_else(|e| panic!("{}: {e}", self.config_map.2.display()))
    }

    /// The Deployment whose container runs `role`, and that container.
    fn deployment(&self, role: Role) -> (&Value, &Value) {
        self.of_kind("Deployment")
            .into_iter()
            .find_map(|d| {
                let container = &d["spec"]["template"]["spec"]["containers"][0];
                (Role::of(&kit::strings(&container["args"])) == Some(role)).then_some((d, container))
            })
            .unwrap_or_else(|| panic!("no Deployment runs {role:?}"))
    }

    /// The gateway's `(liveness path, readiness path)` as its Deployment
    /// probes them; [`the_kits_shape_starts_and_its_probes_answer`] shows
    /// they are the router's.
    fn gateway_probe_paths(&self) -> (String, String) {
        let (_, gateway) = self.deployment(Role::Gateway);
        let path = |probe: &str| {
            gateway[probe]["httpGet"]["path"].as_str().unwrap_or_else(|| panic!("the gateway's {probe} is httpGet"))
        };
        (path("livenessProbe").to_owned(), path("readinessProbe").to_owned())
    }
}

/// A container's `env`: `(name, literal value or None for a reference)`.
fn container_env(container: &Value) -> Vec<(String, Option<String>)> {
    container["env"]
        .as_array()
        .map(|env| {
            env.iter()
                .map(|e| (e["name"].as_str().unwrap().to_owned(), e["value"].as_str().map(str::to_owned)))
                .collect()
        })
        .unwrap_or_default()
}

fn literal_env(env: &[(String, Option<String>)]) -> Vec<(String, String)> {
    env.iter().filter_map(|(name, value)| value.clone().map(|v| (name.clone(), v))).collect()
}

/// The container port a probe's or Service's `port` names (a number or a
/// port name).
fn container_port(container: &Value, port: &Value) -> u16 {
    match port {
        Value::Number(n) => n.as_u64().unwrap() as u16,
        Value::String(name) => container["ports"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == *name)
            .and_then(|p| p["containerPort"].as_u64())
            .unwrap_or_else(|| panic!("no container port named {name}")) as u16,
        other => panic!("not a port: {other}"),
    }
}

/// The one `containerPort` of a container.
fn only_port(container: &Value) -> u16 {
    let ports = container["ports"].as_array().expect("the container declares its port");
    assert_eq!(ports.len(), 1, "one port per role");
    ports[0]["containerPort"].as_u64().unwrap() as u16
}

fn matches_labels(selector: &Value, labels: &Value) -> bool {
    let selector = selector.as_object().expect("a label selector");
    !selector.is_empty() && selector.iter().all(|(k, v)| labels.get(k) == Some(v))
}

/// The image's facts every runtime check needs.
struct Image {
    entrypoint: Vec<String>,
    env: Vec<(String, String)>,
}

fn image() -> Image {
    let dockerfile = kit::Dockerfile::read(&kit::deploy("Dockerfile"));
    Image { entrypoint: kit::exec_form(dockerfile.last("ENTRYPOINT")), env: dockerfile.image_env() }
}

impl Image {
    fn data_dir(&self) -> &str {
        self.env.iter().find(|(n, _)| n == "MEDIAOPS_DATA_DIR").map(|(_, v)| v.as_str()).expect("the image sets it")
    }
}

#[test]
fn the_dockerfile_builds_the_workspace_binary_with_a_rust_new_enough() {
    let dockerfile = kit::Dockerfile::read(&kit::deploy("Dockerfile"));
    let stages = dockerfile.stages();
    assert_eq!(stages.len(), 2, "a builder and a runtime stage: {stages:?}");

    // Builder: rust:X.Y[.Z]-<debian> satisfying the workspace rust-version.
    let (builder, _) = &stages[0];
    let tag = builder.strip_prefix("rust:").expect("the builder is the official Rust image");
    let (rust, builder_debian) = tag.split_once('-').expect("rust:<version>-<debian release>");
    assert!(rust.split('.').count() == 3, "the Rust version is pinned to a release: {builder}");
    let package = code::package("mediaops");
    assert!(
        code::version(rust) >= package.rust_version,
        "{builder} is older than the workspace rust-version {:?}",
        package.rust_version
    );

    // Runtime: the same Debian release's slim image (the binary links its glibc).
    let (runtime, _) = &stages[1];
    assert_eq!(runtime, &format!("debian:{builder_debian}-slim"), "builder and runtime share a Debian release");

    // The build, and the binary it installs, are the entrypoint's.
    let build = dockerfile.all("RUN").into_iter().find(|r| r.contains("cargo build")).expect("a cargo build step");
    let words: Vec<&str> = build.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "build").unwrap();
    for flag in ["--release", "--locked"] {
        assert!(words.contains(&flag), "cargo build {flag}: {build}");
    }
    let package_flag = words.iter().position(|w| *w == "-p").expect("cargo build -p <package>");
    assert!(package_flag > at && words[package_flag + 1] == "mediaops", "{build}");
    let entrypoint = image().entrypoint;
    let binary = Path::new(&entrypoint[0]).file_name().unwrap().to_str().unwrap().to_owned();
    assert!(package.bins.contains(&binary), "ENTRYPOINT {binary} is not a bin of mediaops: {:?}", package.bins);
    assert!(build.contains(&format!("target/release/{binary} ")), "the step installs target/release/{binary}");
    assert!(
        dockerfile.all("COPY").iter().any(|c| c.starts_with("--from=") && c.ends_with(&entrypoint[0])),
        "the runtime stage copies the binary to {}",
        entrypoint[0]
    );
    assert_eq!(entrypoint.len(), 1, "the subcommand comes from CMD or the container's args");
    let cmd = kit::exec_form(dockerfile.last("CMD"));
    assert!(code::subcommands().contains(&cmd[0]), "CMD {cmd:?} is not a subcommand");

    // A user that is not root.
    let user = dockerfile.last("USER");
    let uid = user.split(':').next().unwrap();
    assert!(uid != "root" && uid != "0", "USER {user}");

    // Ports and variables are the settings'.
    let defaults = Loaded { core: Default::default(), gateway: Default::default() };
    let exposed: BTreeSet<u16> =
        dockerfile.last("EXPOSE").split_whitespace().map(|p| p.trim_end_matches("/tcp").parse().unwrap()).collect();
    assert_eq!(exposed, BTreeSet::from([defaults.rest_port(), defaults.grpc_port()]));
    for (name, _) in dockerfile.image_env() {
        assert!(Role::Serve.knows(&name), "the image sets {name}, which no setting reads");
    }

    // HEALTHCHECK: the image's own binary probes the default role's REST
    // liveness path (the gateway's, as the Kubernetes manifests probe it).
    let healthcheck = dockerfile.last("HEALTHCHECK");
    let command = kit::exec_form(healthcheck.split_once("CMD").expect("HEALTHCHECK … CMD [..]").1.trim());
    let (liveness, _) = K8s::read().gateway_probe_paths();
    let url = format!("http://127.0.0.1:{}{liveness}", defaults.rest_port());
    assert_eq!(command, [entrypoint[0].clone(), "probe".into(), url]);
    assert!(code::subcommands().contains(&"probe".to_owned()));
}

#[test]
fn the_build_context_holds_the_sources_and_not_target() {
    let patterns = kit::dockerignore();
    for out in ["target", "target/release/mediaops", "core-service/target", ".git"] {
        assert!(kit::ignored(&patterns, out), "{out} is sent to the Docker daemon");
    }
    // Everything `cargo build -p mediaops` reads: every member's manifest
    // and sources, the lock file, the root package, include_str! data.
    let mut needed = vec!["Cargo.toml".to_owned(), "Cargo.lock".to_owned(), "src/main.rs".to_owned()];
    let manifest = std::fs::read_to_string(kit::repo().join("Cargo.toml")).expect("the workspace manifest");
    let members = manifest.lines().find_map(|l| l.strip_prefix("members = [")).expect("members = [...]");
    let members: Vec<&str> = members.trim_end_matches(']').split(',').map(|m| m.trim().trim_matches('"')).collect();
    assert!(members.len() >= 8, "{members:?}");
    for member in members.into_iter().filter(|m| *m != ".") {
        needed.push(format!("{member}/Cargo.toml"));
        needed.push(format!("{member}/src/lib.rs"));
    }
    needed.extend(["proto/mediaops", "ops/themes", "ops/lexicon", "core-service/benches"].map(String::from));
    for path in &needed {
        assert!(kit::repo().join(path).exists(), "{path} does not exist");
        assert!(!kit::ignored(&patterns, path), ".dockerignore leaves out {path}, which the build needs");
    }
}

#[test]
fn the_settings_file_passes_the_real_loaders() {
    let k8s = K8s::read();
    let loaded = k8s.settings();
    // The kit's ports are the defaults the README, the docs and the
    // image's EXPOSE and HEALTHCHECK name.
    let defaults = Loaded { core: Default::default(), gateway: Default::default() };
    assert_eq!((loaded.grpc_port(), loaded.rest_port()), (defaults.grpc_port(), defaults.rest_port()));
}

#[test]
fn every_kustomization_entry_exists_and_every_manifest_is_listed() {
    let k8s = K8s::read();
    let dir = kit::deploy("k8s");
    let listed: BTreeSet<String> = kit::strings(&k8s.kustomization["resources"]).into_iter().collect();
    for resource in &listed {
        assert!(dir.join(resource).is_file(), "kustomization.yaml lists {resource}, which does not exist");
    }
    assert!(k8s.config_map.2.is_file(), "the ConfigMap's file {} does not exist", k8s.config_map.2.display());
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".yaml") && name != "kustomization.yaml" {
            assert!(listed.contains(&name), "{name} is not in kustomization.yaml's resources");
        }
    }
    // Images: every container's image is the one `images` rewrites.
    let images: Vec<&str> =
        k8s.kustomization["images"].as_array().unwrap().iter().map(|i| i["name"].as_str().unwrap()).collect();
    for deployment in k8s.of_kind("Deployment") {
        for container in deployment["spec"]["template"]["spec"]["containers"].as_array().unwrap() {
            assert!(images.contains(&container["image"].as_str().unwrap()), "{container}");
        }
    }
}

#[test]
fn the_deployments_run_what_the_code_serves() {
    let k8s = K8s::read();
    let loaded = k8s.settings();
    let image = image();
    let subcommands = code::subcommands();
    let secret = k8s.of_kind("Secret");
    assert_eq!(secret.len(), 1, "one Secret");
    let secret_keys: BTreeSet<&String> = secret[0]["stringData"]
        .as_object()
        .into_iter()
        .chain(secret[0]["data"].as_object())
        .flat_map(|m| m.keys())
        .collect();
    let secret_name = secret[0]["metadata"]["name"].as_str().unwrap();

    for role in [Role::Core, Role::Gateway] {
        let (deployment, container) = k8s.deployment(role);
        let name = deployment["metadata"]["name"].as_str().unwrap();
        let pod = &deployment["spec"]["template"]["spec"];
        let args = kit::strings(&container["args"]);
        assert!(subcommands.contains(&args[0]), "{name} runs `{}`, not a subcommand", args[0]);
        assert_eq!(pod["containers"].as_array().unwrap().len(), 1, "{name}: one container");

        // Variables: each one this role's settings read; secrets by reference.
        let env = container_env(container);
        for (variable, _) in &env {
            assert!(role.knows(variable), "{name} sets {variable}, which {role:?} settings do not read");
        }
        for reference in container["env"].as_array().unwrap().iter().filter_map(|e| e["valueFrom"].get("secretKeyRef"))
        {
            assert_eq!(reference["name"], secret_name, "{name}: {reference}");
            let key = reference["key"].as_str().unwrap().to_owned();
            assert!(secret_keys.contains(&key), "{name} reads key {key}, which the Secret lacks");
        }

        // The settings file: mounted from the generated ConfigMap where
        // MEDIAOPS_CONFIG says.
        let (config_map, key, _) = &k8s.config_map;
        let volume = pod["volumes"].as_array().unwrap().iter().find(|v| v["configMap"]["name"] == *config_map);
        let volume = volume.unwrap_or_else(|| panic!("{name} does not mount ConfigMap {config_map}"));
        let mount = container["volumeMounts"].as_array().unwrap().iter().find(|m| m["name"] == volume["name"]).unwrap();
        let config_path = format!("{}/{key}", mount["mountPath"].as_str().unwrap());
        let config_variable = env.iter().find(|(n, _)| n == "MEDIAOPS_CONFIG").and_then(|(_, v)| v.clone());
        assert_eq!(config_variable.as_deref(), Some(config_path.as_str()), "{name}: MEDIAOPS_CONFIG");

        // Resources, for the scheduler and the CPU autoscaler.
        for kind in ["requests", "limits"] {
            for resource in ["cpu", "memory"] {
                assert!(container["resources"][kind][resource].is_string(), "{name}: resources.{kind}.{resource}");
            }
        }

        // Stopping: the pod is given more than the pause before SIGTERM
        // plus the grace the process takes.
        let pause = container["lifecycle"]["preStop"]["sleep"]["seconds"].as_u64().unwrap_or(0);
        let grace = loaded.shutdown_grace_secs(role, &literal_env(&env));
        let termination = pod["terminationGracePeriodSeconds"].as_u64().expect("terminationGracePeriodSeconds");
        assert!(termination > pause + grace, "{name}: {termination} s is not above {pause} s + {grace} s");

        // A PodDisruptionBudget that allows a drain, an HPA on CPU that
        // keeps at least two replicas.
        let labels = &pod_labels(deployment);
        assert!(matches_labels(&deployment["spec"]["selector"]["matchLabels"], labels), "{name}: selector");
        let pdb = k8s
            .of_kind("PodDisruptionBudget")
            .into_iter()
            .find(|p| matches_labels(&p["spec"]["selector"]["matchLabels"], labels));
        let pdb = pdb.unwrap_or_else(|| panic!("no PodDisruptionBudget for {name}"));
        let hpa =
            k8s.of_kind("HorizontalPodAutoscaler").into_iter().find(|h| h["spec"]["scaleTargetRef"]["name"] == name);
        let hpa = hpa.unwrap_or_else(|| panic!("no HorizontalPodAutoscaler for {name}"));
        assert_eq!(hpa["spec"]["scaleTargetRef"]["kind"], "Deployment");
        let min = hpa["spec"]["minReplicas"].as_u64().unwrap();
        assert!(min >= 2, "{name}: minReplicas {min}");
        assert!(
            hpa["spec"]["metrics"].as_array().unwrap().iter().any(|m| m["resource"]["name"] == "cpu"),
            "{name}: the HPA scales on CPU"
        );
        let drainable = pdb["spec"]["maxUnavailable"].as_u64().is_some_and(|n| n >= 1)
            || pdb["spec"]["minAvailable"].as_u64().is_some_and(|n| n < min);
        assert!(drainable, "{name}: the PodDisruptionBudget blocks every drain");

        match role {
            Role::Core => check_core(&k8s, &loaded, &image, container, deployment),
            Role::Gateway => check_gateway(&k8s, &loaded, container, deployment),
            Role::Serve => unreachable!(),
        }
    }
}

fn pod_labels(deployment: &Value) -> Value {
    deployment["spec"]["template"]["metadata"]["labels"].clone()
}

/// The Services selecting `deployment`'s pods.
fn services_of<'a>(k8s: &'a K8s, deployment: &Value) -> Vec<&'a Value> {
    let labels = pod_labels(deployment);
    k8s.of_kind("Service").into_iter().filter(|s| matches_labels(&s["spec"]["selector"], &labels)).collect()
}

fn check_core(k8s: &K8s, loaded: &Loaded, image: &Image, container: &Value, deployment: &Value) {
    let port = loaded.grpc_port();
    assert_eq!(only_port(container), port, "the core's containerPort is its grpc_addr's");
    // Readiness: grpc.health.v1 of "" (SERVING while Redis and PostgreSQL answer).
    let readiness = &container["readinessProbe"]["grpc"];
    assert_eq!(readiness["port"].as_u64(), Some(port.into()), "the core's readiness is a gRPC probe of its port");
    assert!(readiness["service"].as_str().unwrap_or("").is_empty(), "readiness asks for the overall status");
    // Liveness: never the health that follows Redis and PostgreSQL.
    let liveness = &container["livenessProbe"];
    assert!(liveness.get("grpc").is_none(), "a store outage must not restart the cores (docs/errors.md)");
    assert_eq!(container_port(container, &liveness["tcpSocket"]["port"]), port);
    // The data dir the image points at is writable scratch.
    let mounts = container["volumeMounts"].as_array().unwrap();
    assert!(mounts.iter().any(|m| m["mountPath"] == image.data_dir()), "the core mounts {}", image.data_dir());
    // Headless: the gateways' one name resolves to every ready core.
    let services = services_of(k8s, deployment);
    assert_eq!(services.len(), 1, "one Service for the cores");
    assert_eq!(services[0]["spec"]["clusterIP"], "None", "the cores' Service is headless");
    let service_port = &services[0]["spec"]["ports"][0];
    assert_eq!(service_port["port"].as_u64(), Some(port.into()));
    assert_eq!(container_port(container, &service_port["targetPort"]), port);
}

fn check_gateway(k8s: &K8s, loaded: &Loaded, container: &Value, deployment: &Value) {
    let port = loaded.rest_port();
    assert_eq!(only_port(container), port, "the gateway's containerPort is its rest_addr's");
    let (liveness, readiness) = k8s.gateway_probe_paths();
    assert_ne!(liveness, readiness, "liveness must not follow the core's health (docs/errors.md)");
    for probe in ["livenessProbe", "readinessProbe"] {
        assert_eq!(container_port(container, &container[probe]["httpGet"]["port"]), port, "{probe}");
    }
    // MEDIAOPS_CORE_ADDR: the cores' headless Service on their port.
    let env = container_env(container);
    let core_addr = env.iter().find(|(n, _)| n == "MEDIAOPS_CORE_ADDR").and_then(|(_, v)| v.clone()).unwrap();
    let (core, _) = k8s.deployment(Role::Core);
    let service = services_of(k8s, core)[0]["metadata"]["name"].as_str().unwrap();
    assert_eq!(core_addr, format!("http://{service}:{}", loaded.grpc_port()));
    let services = services_of(k8s, deployment);
    assert_eq!(services.len(), 1, "one Service for the gateways");
    assert_eq!(container_port(container, &services[0]["spec"]["ports"][0]["targetPort"]), port);
}

#[test]
fn the_secret_cannot_be_deployed_unedited() {
    let k8s = K8s::read();
    let secret = &k8s.of_kind("Secret")[0]["stringData"];
    for key in ["admin-token", "bootstrap-key"] {
        let value = secret[key].as_str().unwrap();
        assert!(
            !mediaops::proto::bearer::is_well_formed_key(value),
            "the committed {key} would be accepted: a known token in every cluster that applies it"
        );
    }
}

/// The compose file's services, merge keys applied.
fn compose() -> serde_json::Map<String, Value> {
    let compose = kit::yaml(&kit::deploy("compose.yaml"));
    let services = compose["services"].as_object().expect("services").clone();
    let volumes = compose["volumes"].as_object().cloned().unwrap_or_default();
    // Named volumes are declared; bind mounts exist.
    for (name, service) in &services {
        for volume in kit::strings(&service["volumes"]) {
            let source = volume.split(':').next().unwrap();
            if source.starts_with('.') {
                assert!(kit::deploy(source).exists(), "{name} mounts {source}, which does not exist");
            } else {
                assert!(volumes.contains_key(source), "{name} mounts volume {source}, which is not declared");
            }
        }
    }
    services
}

/// A compose service's `environment`, map or `NAME=value` list.
fn compose_env(service: &Value) -> Vec<(String, String)> {
    match &service["environment"] {
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned())).collect(),
        Value::Array(list) => list
            .iter()
            .map(|i| {
                let (k, v) = i.as_str().unwrap().split_once('=').unwrap();
                (k.to_owned(), v.to_owned())
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
fn compose_runs_cores_and_gateways_as_the_code_expects() {
    let services = compose();
    let loaded = K8s::read().settings();
    let image = image();
    let subcommands = code::subcommands();
    let mut roles: BTreeMap<&str, Role> = BTreeMap::new();
    for (name, service) in &services {
        let ours = service["build"]["dockerfile"] == "deploy/Dockerfile";
        if !ours {
            assert!(service["image"].is_string(), "{name}: an image or our Dockerfile");
            continue;
        }
        let command = kit::strings(&service["command"]);
        assert!(command.first().is_none_or(|c| subcommands.contains(c)), "{name} runs {command:?}");
        let role = Role::of(&command).unwrap_or_else(|| panic!("{name} serves nothing: {command:?}"));
        roles.insert(name, role);
        let env = compose_env(service);
        for (variable, _) in &env {
            assert!(role.knows(variable), "{name} sets {variable}, which {role:?} settings do not read");
        }
        // The settings file is the Kubernetes ConfigMap's, where MEDIAOPS_CONFIG says.
        let config = env.iter().find(|(n, _)| n == "MEDIAOPS_CONFIG").map(|(_, v)| v.clone()).unwrap();
        let mounted =
            kit::strings(&service["volumes"]).into_iter().any(|v| v.split(':').nth(1) == Some(config.as_str()));
        assert!(mounted, "{name}: nothing is mounted at MEDIAOPS_CONFIG {config}");
        assert!(
            kit::strings(&service["volumes"]).iter().any(|v| v.starts_with("./k8s/mediaops.toml:")),
            "{name} reads the same settings file as Kubernetes"
        );
        let grace = loaded.shutdown_grace_secs(role, &env);
        let stop = kit::compose_secs(service["stop_grace_period"].as_str().expect("stop_grace_period"));
        assert!(stop > grace, "{name}: stop_grace_period {stop} s is not above the {grace} s shutdown grace");
        // Health: the image's check probes REST; a core checks its gRPC health instead.
        if role == Role::Core {
            let test = kit::strings(&service["healthcheck"]["test"]);
            let probe = format!("grpc://127.0.0.1:{}", loaded.grpc_port());
            assert_eq!(test, ["CMD".to_owned(), image.entrypoint[0].clone(), "probe".into(), probe], "{name}");
            let data =
                kit::strings(&service["volumes"]).into_iter().any(|v| v.ends_with(&format!(":{}", image.data_dir())));
            assert!(data, "{name} keeps its data dir in a volume");
        } else {
            assert!(service["healthcheck"].is_null(), "{name} uses the image's HEALTHCHECK");
        }
    }
    let cores: Vec<&str> = roles.iter().filter(|(_, r)| **r == Role::Core).map(|(n, _)| *n).collect();
    let gateways: Vec<&str> = roles.iter().filter(|(_, r)| **r == Role::Gateway).map(|(n, _)| *n).collect();
    assert!(cores.len() >= 2 && gateways.len() >= 2, "several cores behind several gateways");

    // Every gateway lists every core, on the core's port.
    let expected: Vec<String> = cores.iter().map(|c| format!("http://{c}:{}", loaded.grpc_port())).collect();
    for gateway in &gateways {
        let env = compose_env(&services[*gateway]);
        let addr = env.iter().find(|(n, _)| n == "MEDIAOPS_CORE_ADDR").map(|(_, v)| v.as_str()).unwrap();
        assert_eq!(addr.split(',').collect::<Vec<_>>(), expected, "{gateway}: MEDIAOPS_CORE_ADDR");
    }

    // Start order: every dependency waits for health, and has a check.
    let has_health = |name: &str| {
        services[name]["healthcheck"]["test"].is_array() || roles.get(name).is_some_and(|r| *r != Role::Core)
    };
    for (name, service) in &services {
        for (dependency, condition) in service["depends_on"].as_object().into_iter().flatten() {
            assert_eq!(condition["condition"], "service_healthy", "{name} → {dependency}");
            assert!(has_health(dependency), "{name} waits for {dependency}, which has no health check");
        }
    }
    for gateway in &gateways {
        for core in &cores {
            assert!(services[*gateway]["depends_on"].get(*core).is_some(), "{gateway} starts after {core}");
        }
    }

    // ${VARIABLES} compose interpolates are documented in env.example.
    let text = std::fs::read_to_string(kit::deploy("compose.yaml")).unwrap();
    let example = std::fs::read_to_string(kit::deploy("env.example")).unwrap();
    for reference in text.split("${").skip(1) {
        let variable: String = reference.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        assert!(example.lines().any(|l| l.starts_with(&format!("{variable}="))), "{variable} is not in env.example");
    }
}

#[test]
fn haproxy_balances_the_compose_gateways_on_readiness_and_the_cores() {
    let services = compose();
    let loaded = K8s::read().settings();
    let (_, readiness) = K8s::read().gateway_probe_paths();
    let backends = kit::haproxy_backends(&kit::deploy("haproxy.cfg"));
    let by_role = |role: Role| -> Vec<(String, String, u16)> {
        services
            .iter()
            .filter(|(_, s)| s["build"]["dockerfile"] == "deploy/Dockerfile")
            .filter(|(_, s)| Role::of(&kit::strings(&s["command"])) == Some(role))
            .map(|(name, _)| {
                let port = if role == Role::Core { loaded.grpc_port() } else { loaded.rest_port() };
                (name.clone(), name.clone(), port)
            })
            .collect()
    };
    let gateways = backends.values().find(|b| b.servers.iter().any(|(n, _, _)| n.starts_with("gateway"))).unwrap();
    assert_eq!(gateways.servers, by_role(Role::Gateway), "every compose gateway, on its REST port");
    assert!(
        gateways.lines.iter().any(|l| l.starts_with("http-check send") && l.split_whitespace().any(|w| w == readiness)),
        "HAProxy routes on the gateways' readiness path {readiness}"
    );
    let cores = backends.values().find(|b| b.servers.iter().any(|(n, _, _)| n.starts_with("core"))).unwrap();
    assert_eq!(cores.servers, by_role(Role::Core), "every compose core, on its gRPC port");
    let lb = services.values().find(|s| kit::strings(&s["volumes"]).iter().any(|v| v.starts_with("./haproxy.cfg:")));
    assert!(lb.is_some(), "a compose service mounts haproxy.cfg");
}

/// `env` as [`common::process::Spawn`] takes it.
fn borrowed(env: &[(String, String)]) -> Vec<(&str, String)> {
    env.iter().map(|(n, v)| (n.as_str(), v.clone())).collect()
}

/// Runs `mediaops probe <url>`: its exit status and stderr.
fn probe(url: &str) -> (bool, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mediaops")).args(["probe", url]).output().unwrap();
    (output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// Polls `probe(url)` until it answers `healthy`, for up to 20 s (what a
/// container manager's retries do).
fn probe_until(url: &str, healthy: bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (ok, stderr) = probe(url);
        if ok == healthy {
            return;
        }
        assert!(Instant::now() < deadline, "probe {url} stayed {}: {stderr}", if ok { "healthy" } else { "unhealthy" });
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[tokio::test]
async fn the_kits_shape_starts_and_its_probes_answer() {
    use common::process::{Database, Process, Spawn, redis_prefix, redis_url};
    let k8s = K8s::read();
    let (liveness, readiness) = k8s.gateway_probe_paths();
    let database = Database::create("deploy_kit");
    let prefix = redis_prefix("deploy_kit");
    let config = k8s.config_map.2.to_string_lossy().into_owned();

    // Each role with its Deployment's variables: literal values as written
    // (the settings file at this checkout's path), the Secret's from this
    // machine's servers; ports and data dirs are the harness's.
    let env_of = |role: Role| -> Vec<(String, String)> {
        let (_, container) = k8s.deployment(role);
        let secret = |reference: &Value| match reference["valueFrom"]["secretKeyRef"]["key"].as_str() {
            Some("database-url") => Some(database.url.clone()),
            Some("redis-url") => Some(redis_url()),
            _ => None, // the harness's admin token and bootstrap key
        };
        container["env"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| {
                let name = e["name"].as_str().unwrap().to_owned();
                let value = match name.as_str() {
                    "MEDIAOPS_CONFIG" => Some(config.clone()),
                    _ => e["value"].as_str().map(str::to_owned).or_else(|| secret(e)),
                };
                value.map(|v| (name, v))
            })
            .chain([("MEDIAOPS_REDIS_PREFIX".to_owned(), prefix.clone())])
            .collect()
    };
    let core_env = env_of(Role::Core);

    // Two cores start together on one empty database: both migrate at open.
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut cores: Vec<Process> = std::thread::scope(|scope| {
        let started: Vec<_> = dirs
            .iter()
            .map(|dir| {
                let env = borrowed(&core_env);
                scope.spawn(move || Process::spawn(dir.path(), Spawn { args: vec!["core"], env }))
            })
            .collect();
        started.into_iter().map(|s| s.join().unwrap()).collect()
    });
    for core in &cores {
        let authority = core.grpc().trim_start_matches("http://");
        probe_until(&format!("grpc://{authority}"), true);
    }

    let mut gateway_env = env_of(Role::Gateway);
    for (name, value) in &mut gateway_env {
        if name == "MEDIAOPS_CORE_ADDR" {
            *value = format!("{},{}", cores[0].grpc(), cores[1].grpc());
        }
    }
    let gateway_dir = tempfile::tempdir().unwrap();
    let gateway = Process::spawn(gateway_dir.path(), Spawn { args: vec!["gateway"], env: borrowed(&gateway_env) });
    let http = reqwest::Client::new();
    let get = |path: String| {
        let request = http.get(format!("{}{path}", gateway.rest()));
        async move {
            let response = request.send().await.unwrap();
            (response.status().as_u16(), response.json::<Value>().await.unwrap())
        }
    };

    // The manifests' paths are the router's liveness and readiness.
    let (status, body) = get(liveness.clone()).await;
    assert_eq!((status, &body["status"]), (200, &Value::from("ok")), "{liveness}: {body}");
    let (status, body) = get(readiness.clone()).await;
    assert_eq!((status, &body["status"]), (200, &Value::from("ready")), "{readiness}: {body}");
    probe_until(&format!("{}{liveness}", gateway.rest()), true);
    probe_until(&format!("{}{readiness}", gateway.rest()), true);

    // Without its core the gateway stays alive and leaves the rotation.
    for core in &mut cores {
        core.signal("TERM");
        assert!(core.wait_exit(Duration::from_secs(30)).is_some_and(|s| s.success()), "a core stops cleanly");
    }
    let (status, body) = get(readiness.clone()).await;
    assert_eq!((status, &body["status"]), (503, &Value::from("not_ready")), "{readiness}: {body}");
    assert_eq!(get(liveness.clone()).await.0, 200);
    let (ok, stderr) = probe(&format!("{}{readiness}", gateway.rest()));
    assert!(!ok && stderr.contains("503"), "the probe fails naming the status: {stderr}");
    let (ok, stderr) = probe(&format!("grpc://{}", cores[0].grpc().trim_start_matches("http://")));
    assert!(!ok && stderr.contains("probe grpc://"), "{stderr}");
    let (ok, stderr) = probe("ftp://127.0.0.1/");
    assert!(!ok && stderr.contains("http://, https:// or grpc://"), "{stderr}");
}
