//! What the code says a deployment may use, taken from the code itself so
//! the kit's checks cannot drift from it: the environment variables the
//! settings read (their default serialization), the ports and the grace
//! period they default to, the CLI's subcommands (`mediaops --help` of the
//! built binary) and the workspace's packages (`cargo metadata`).

use core_service::CoreSettings;
use rest_gateway::GatewaySettings;
use serde_json::Value;

/// Variables that are not settings yet are read by every binary:
/// `MEDIAOPS_CONFIG` names the settings file
/// (`listener/src/config_file.rs`), `MEDIAOPS_LOG_FORMAT` picks the log
/// format (`proto/src/logging.rs`), `MEDIAOPS_LOG_BUFFER_KIB` the log
/// buffer of a worker thread (`proto/src/log_buffer.rs`),
/// `MEDIAOPS_WORKER_THREADS` the runtime's workers (`proto/src/runtime.rs`).
pub fn non_setting_variables() -> [&'static str; 4] {
    [
        "MEDIAOPS_CONFIG",
        mediaops::proto::logging::FORMAT_VARIABLE,
        mediaops::proto::log_buffer::BUFFER_BYTES_VARIABLE,
        mediaops::proto::runtime::WORKER_THREADS_VARIABLE,
    ]
}

/// What a `mediaops` container runs, by its subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `serve` (the default): core and gateway in one process.
    Serve,
    /// `core`: gRPC only.
    Core,
    /// `gateway`: REST only, in front of cores.
    Gateway,
}

impl Role {
    /// The role of `args` (a container's command or args); `None` for a
    /// subcommand that serves nothing.
    pub fn of(args: &[String]) -> Option<Role> {
        match args.first().map(String::as_str) {
            None | Some("serve") => Some(Role::Serve),
            Some("core") => Some(Role::Core),
            Some("gateway") => Some(Role::Gateway),
            Some(_) => None,
        }
    }

    /// Whether the settings this role reads know the variable `name`: a
    /// non-setting variable, or a key of the role's settings (`__` nests a
    /// key for the core, whose variables are split on it; the gateway's
    /// are not). A table that is empty by default (free-form, such as
    /// `hotlists.douyin.headers`) accepts any key below it.
    pub fn knows(self, name: &str) -> bool {
        if non_setting_variables().contains(&name) {
            return true;
        }
        let Some(key) = name.strip_prefix("MEDIAOPS_") else { return false };
        let key = key.to_ascii_lowercase();
        let core = || known_path(&defaults_of::<CoreSettings>(), key.split("__"));
        let gateway = || known_path(&defaults_of::<GatewaySettings>(), std::iter::once(key.as_str()));
        match self {
            Role::Core => core(),
            Role::Gateway => gateway(),
            Role::Serve => core() || gateway(),
        }
    }
}

/// `T::default()` as JSON: the keys the settings read.
fn defaults_of<T: serde::Serialize + Default>() -> Value {
    serde_json::to_value(T::default()).expect("settings serialize")
}

fn known_path<'a>(defaults: &Value, path: impl Iterator<Item = &'a str>) -> bool {
    let mut at = defaults;
    for segment in path {
        match at {
            Value::Object(table) if table.is_empty() => return true,
            Value::Object(table) => match table.get(segment) {
                Some(value) => at = value,
                None => return false,
            },
            _ => return false,
        }
    }
    true
}

/// The port of a listen address (`0.0.0.0:50051`).
pub fn port_of(addr: &str) -> u16 {
    addr.rsplit_once(':').and_then(|(_, port)| port.parse().ok()).unwrap_or_else(|| panic!("no port in {addr:?}"))
}

/// The settings a file gives both roles, through the real loaders (the
/// unknown-key check included).
pub struct Loaded {
    pub core: CoreSettings,
    pub gateway: GatewaySettings,
}

impl Loaded {
    /// Loads `path` as `--config` would.
    pub fn from_file(path: &std::path::Path) -> Result<Loaded, String> {
        let core = CoreSettings::load(Some(path)).map_err(|e| format!("core: {e:#}"))?;
        let gateway = GatewaySettings::load(Some(path)).map_err(|e| format!("gateway: {e:#}"))?;
        Ok(Loaded { core, gateway })
    }

    /// The gRPC port of a core.
    pub fn grpc_port(&self) -> u16 {
        port_of(&self.core.grpc_addr)
    }

    /// The REST port of a gateway.
    pub fn rest_port(&self) -> u16 {
        port_of(&self.gateway.rest_addr)
    }

    /// How long `role` may take to stop after SIGTERM, in seconds: the
    /// notice period plus the grace period, with a
    /// `MEDIAOPS_SHUTDOWN_NOTICE_SECS` / `MEDIAOPS_SHUTDOWN_GRACE_SECS` from
    /// the container's `env` winning over the file, as it does at run time.
    pub fn shutdown_grace_secs(&self, role: Role, env: &[(String, String)]) -> u64 {
        let from_env = |variable: &str| {
            env.iter().find(|(name, _)| name == variable).map(|(_, value)| {
                value.parse::<u64>().unwrap_or_else(|_| panic!("{variable}={value:?} is not a number"))
            })
        };
        let of = |listener: &mediaops_listener::ListenerSettings| {
            from_env("MEDIAOPS_SHUTDOWN_NOTICE_SECS").unwrap_or(listener.shutdown_notice_secs)
                + from_env("MEDIAOPS_SHUTDOWN_GRACE_SECS").unwrap_or(listener.shutdown_grace_secs)
        };
        match role {
            Role::Core => of(&self.core.listener),
            Role::Gateway => of(&self.gateway.listener),
            // One process: the gateway stops first (with its notice), then
            // the core (without one).
            Role::Serve => of(&self.gateway.listener) + self.core.listener.shutdown_grace_secs,
        }
    }
}

/// The subcommands `mediaops --help` lists.
pub fn subcommands() -> Vec<String> {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mediaops")).arg("--help").output().unwrap();
    assert!(output.status.success(), "mediaops --help failed");
    let help = String::from_utf8(output.stdout).unwrap();
    let commands = help.split("Commands:").nth(1).expect("--help lists commands");
    let names: Vec<String> = commands
        .lines()
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(names.len() > 3, "parsed no subcommands from {help}");
    names
}

/// One package of the workspace, from `cargo metadata`.
pub struct Package {
    /// Its binaries' names.
    pub bins: Vec<String>,
    /// Its `rust-version`, `(major, minor)`.
    pub rust_version: (u32, u32),
}

/// The workspace package `name`.
pub fn package(name: &str) -> Package {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(output.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: Value = serde_json::from_slice(&output.stdout).unwrap();
    let package = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not a workspace package"));
    let bins = package["targets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "bin"))
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    let rust_version = version(package["rust_version"].as_str().expect("the package has a rust-version"));
    Package { bins, rust_version }
}

/// `(major, minor)` of `1.88` or `1.88.0`.
pub fn version(text: &str) -> (u32, u32) {
    let mut parts = text.split('.').map(|p| p.parse::<u32>().unwrap_or_else(|_| panic!("bad version {text:?}")));
    (parts.next().unwrap(), parts.next().unwrap_or(0))
}
