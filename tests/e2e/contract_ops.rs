//! what operators expect from a server and a CLI, checked on the
//! real `mediaops` binary: the Authorization scheme in any case, logs on
//! stderr (JSON on request), strict configuration, imports that write
//! nothing, a closed stdout, help and completions, replayed idempotent
//! answers, and the README's "Try it" block.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::process::{Process, Spawn};

/// Starts `mediaops serve` on `dir` with extra `env`.
fn serve(dir: &Path, env: Vec<(&str, String)>) -> Process {
    Process::spawn(dir, Spawn { args: vec![], env })
}

/// Runs `mediaops <args>` on `dir` with `env`; returns (exit code, stdout, stderr).
fn run(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> (Option<i32>, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mediaops"));
    command.args(args).env("MEDIAOPS_DATA_DIR", dir).env_remove("MEDIAOPS_REDIS_URL").stdin(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("mediaops runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn the_bearer_scheme_is_case_insensitive_on_both_ports() {
    let dir = tempfile::tempdir().unwrap();
    let process = serve(dir.path(), vec![]);
    let http = reqwest::Client::new();
    for value in [format!("bearer {}", common::KEY), format!("BEARER   {}", common::KEY)] {
        let response =
            http.get(format!("{}/api/account/balance", process.rest())).header("authorization", &value).send().await;
        assert_eq!(response.unwrap().status(), 200, "{value:?}");
    }
    let channel = tonic::transport::Endpoint::from_shared(process.grpc().to_owned()).unwrap().connect().await.unwrap();
    let mut client = mediaops::proto::mediaops::account::v1::account_service_client::AccountServiceClient::new(channel);
    let mut request = tonic::Request::new(Default::default());
    request.metadata_mut().insert("authorization", format!("bearer  {}", common::KEY).parse().unwrap());
    let balance = client.get_balance(request).await.expect("lower-case scheme accepted").into_inner();
    assert_eq!(balance.points, common::BOOTSTRAP_POINTS);
}

#[test]
fn an_import_that_writes_nothing_fails_saying_what_it_expected() {
    let dir = tempfile::tempdir().unwrap();
    let input = tempfile::tempdir().unwrap();
    std::fs::write(input.path().join("notes.txt"), "not an import file\n").unwrap();
    let folder = input.path().to_str().unwrap();
    let (code, _, err) = run(dir.path(), &[("RUST_LOG", "warn")], &["import", "jsonl", folder]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("no .jsonl files found in"), "{err}");

    let day = input.path().join("2024-05-01");
    std::fs::create_dir(&day).unwrap();
    std::fs::write(day.join("list.json"), "{\"not\": \"a feed\"}").unwrap();
    let (code, out, err) = run(dir.path(), &[("RUST_LOG", "warn")], &["import", "bilibili-popular", folder]);
    assert_eq!(code, Some(1), "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("the report is still printed");
    assert_eq!(report["written"], 0);
    assert!(err.contains("nothing written") && err.contains("list.json"), "{err}");
}

#[test]
fn a_closed_stdout_ends_a_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["collectors", "list"][..], &["operations"], &["keys", "list"], &["completions", "bash"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mediaops"))
            .args(args)
            .env("MEDIAOPS_DATA_DIR", dir.path())
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // `| head` that read nothing
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{args:?}: {stderr}");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(output.status.signal(), Some(libc_sigpipe()), "{args:?}: {:?} {stderr}", output.status);
    }
}

/// SIGPIPE's number on Linux and the BSDs.
fn libc_sigpipe() -> i32 {
    13
}

/// The subcommands `help` lists under "Commands:" (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_argument_of_every_command_has_a_help_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = vec![Vec::<String>::new()];
    let mut checked = 0;
    while let Some(path) = paths.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let (code, help, err) = run(dir.path(), &[], &args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        // Entries of "Arguments:" and "Options:": the name, two spaces, the help.
        // The help is on the entry's line, or (long help) on the next,
        // indented further.
        let lines: Vec<&str> = help.lines().collect();
        let mut section = "";
        for (i, line) in lines.iter().enumerate() {
            if !line.starts_with(' ') {
                section = line;
                continue;
            }
            let entry = line.trim_start();
            let indent = line.len() - entry.len();
            let starts_entry = entry.starts_with('-') || entry.starts_with('<') || entry.starts_with('[');
            if (section == "Arguments:" || section == "Options:") && starts_entry && indent <= 6 {
                let next = lines.get(i + 1).copied().unwrap_or("");
                let next_is_help = next.len() - next.trim_start().len() > indent && !next.trim().is_empty();
                assert!(
                    entry.contains("  ") || next_is_help,
                    "mediaops {}: {entry:?} has no help line\n{help}",
                    path.join(" ")
                );
                checked += 1;
            }
        }
        for sub in subcommands(&help) {
            let mut deeper = path.clone();
            deeper.push(sub);
            paths.push(deeper);
        }
    }
    assert!(checked > 30, "{checked} entries checked");
}

#[test]
fn completions_are_printed_for_each_shell() {
    let dir = tempfile::tempdir().unwrap();
    for (shell, marker) in [("bash", "_mediaops()"), ("zsh", "#compdef mediaops"), ("fish", "complete -c mediaops")] {
        let (code, out, err) = run(dir.path(), &[], &["completions", shell]);
        assert_eq!(code, Some(0), "{shell}: {err}");
        assert!(out.contains(marker) && out.contains("collectors") && out.contains("account"), "{shell}: {out}");
    }
    let (code, _, err) = run(dir.path(), &[], &["completions", "tcsh"]);
    assert_eq!(code, Some(2), "{err}");
}

#[tokio::test]
async fn a_replayed_idempotent_answer_says_so_in_a_header() {
    let dir = tempfile::tempdir().unwrap();
    let process = serve(dir.path(), vec![]);
    let http = reqwest::Client::new();
    let mut replayed = Vec::new();
    let mut bodies = Vec::new();
    for _ in 0..2 {
        let response = http
            .post(format!("{}/api/apis/tool/check-banned-words/call", process.rest()))
            .bearer_auth(common::KEY)
            .header("idempotency-key", "order-42")
            .json(&serde_json::json!({"platform": "公众号", "content": "全网最低价"}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        replayed.push(response.headers().get("idempotent-replayed").map(|v| v.to_str().unwrap().to_owned()));
        bodies.push(response.json::<serde_json::Value>().await.unwrap()["data"].clone());
    }
    assert_eq!(replayed, [None, Some("true".to_owned())]);
    assert_eq!(bodies[0], bodies[1]);
}

/// Parses every line as a JSON object, naming the first that is not.
fn json_lines(lines: &[String]) -> Vec<serde_json::Value> {
    lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON log line ({e}): {l}")))
        .collect()
}

#[tokio::test]
async fn json_logs_carry_each_call_and_never_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let process = serve(dir.path(), vec![("MEDIAOPS_LOG_FORMAT", "json".into())]);
    let http = reqwest::Client::new();
    let call = |operation: &str, body: serde_json::Value, request_id: &'static str| {
        http.post(format!("{}/api/apis/{operation}/call", process.rest()))
            .bearer_auth(common::KEY)
            .header("x-request-id", request_id)
            .json(&body)
            .send()
    };
    let ok = call(
        "tool/check-banned-words",
        serde_json::json!({"platform": "公众号", "content": "全网最低价"}),
        "req-json-ok",
    );
    assert_eq!(ok.await.unwrap().status(), 200);
    // Declared under maintenance: refused by the core's pipeline.
    let down = call("lifestyle/comments", serde_json::json!({"noteId": "n1"}), "req-json-bad");
    assert_eq!(down.await.unwrap().status(), 503);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let find = |request_id: &str| {
        json_lines(&process.log()).into_iter().find(|l| {
            l["request_id"] == request_id
                && l["target"].as_str().is_some_and(|t| t.starts_with("mediaops_platform::dispatch"))
        })
    };
    while (find("req-json-ok").is_none() || find("req-json-bad").is_none()) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let ok = find("req-json-ok").unwrap_or_else(|| panic!("no ok line: {:#?}", process.log()));
    assert_eq!((ok["level"].as_str(), ok["message"].as_str()), (Some("INFO"), Some("ok")), "{ok}");
    assert_eq!(ok["operation"], "tool.check-banned-words");
    assert_eq!((ok["code"].as_str(), ok["status"].as_u64()), (Some("ok"), Some(200)), "{ok}");
    assert!(ok["points"].as_i64().unwrap() > 0 && ok["elapsed_ms"].as_f64().is_some(), "{ok}");
    assert!(ok["account"].is_string() && ok["timestamp"].is_string(), "{ok}");
    let bad = find("req-json-bad").unwrap_or_else(|| panic!("no failed line: {:#?}", process.log()));
    assert_eq!(
        (bad["message"].as_str(), bad["code"].as_str(), bad["status"].as_u64()),
        (Some("failed"), Some("maintenance"), Some(503)),
        "{bad}"
    );
    assert_eq!((bad["account"].clone(), bad["points"].as_i64()), (ok["account"].clone(), Some(0)), "{bad}");
    assert!(!process.log().iter().any(|l| l.contains(common::KEY)), "the key is never logged");
}

#[test]
fn collectors_run_once_prints_pure_json_and_logs_json_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("MEDIAOPS_LOG_FORMAT", "json"),
        ("RUST_LOG", "info"),
        ("MEDIAOPS_HOTLISTS__WEIBO__BASE_URL", "http://127.0.0.1:9/nothing"),
        ("MEDIAOPS_HOTLISTS__RETRIES", "0"),
    ];
    let (code, out, err) = run(dir.path(), &env, &["collectors", "run-once", "--source", "weibo"]);
    assert_eq!(code, Some(1), "the collector failed: {out}{err}");
    let report: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {out}"));
    assert_eq!(report["collectors"][0]["source"], "weibo", "{report}");
    let log = json_lines(&err.lines().map(str::to_owned).collect::<Vec<_>>());
    assert!(log.iter().any(|l| l["level"] == "WARN" || l["level"] == "ERROR"), "{err}");
}

#[test]
fn the_config_file_must_exist_and_hold_only_known_keys() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.toml");
    let (code, _, err) = run(dir.path(), &[], &["--config", missing.to_str().unwrap(), "collectors", "list"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("missing.toml does not exist"), "{err}");

    let file = dir.path().join("mediaops.toml");
    std::fs::write(
        &file,
        "rest_addr = \"127.0.0.1:0\"\ninterval_sec = 5\n[hotlist]\nenabled = true\n[hotlists]\ninterval_sec = 60\n",
    )
    .unwrap();
    let config = file.to_str().unwrap();
    let (code, _, err) = run(dir.path(), &[], &["--config", config, "collectors", "list"]);
    assert_eq!(code, Some(1), "{err}");
    for expected in [
        "unknown key `hotlist` (did you mean `hotlists`?)",
        "unknown key `hotlists.interval_sec` (did you mean `interval_secs`?)",
        "unknown key `interval_sec`",
    ] {
        assert!(err.contains(expected), "{expected}: {err}");
    }
    let (code, _, err) = run(dir.path(), &[("MEDIAOPS_CONFIG", config)], &["collectors", "list"]);
    assert_eq!(code, Some(1), "MEDIAOPS_CONFIG is checked the same way: {err}");

    // Keys of both servers and their sections pass; unrelated MEDIAOPS_*
    // variables are not the file's business.
    std::fs::write(&file, "rest_addr = \"127.0.0.1:0\"\ngrpc_addr = \"127.0.0.1:0\"\nmax_connections = 100\n[hotlists]\ninterval_secs = 60\n[hotlists.weibo]\nenabled = true\n").unwrap();
    let env = [("MEDIAOPS_FUZZ_SEED", "7"), ("MEDIAOPS_TEST_DATABASE_URL", "postgres://nowhere/x")];
    let (code, out, err) = run(dir.path(), &env, &["--config", config, "collectors", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("\"collectors\""), "{out}");
}

/// The ```sh blocks of the README's "## Try it" section (its `###`
/// subsections included, up to the next `## ` heading), in order, as one
/// script.
fn try_it_script(readme: &str) -> String {
    let start = readme.find("\n## Try it\n").expect("README has a \"## Try it\" section") + 1;
    let (mut in_sh, mut in_other, mut script) = (false, false, String::new());
    for line in readme[start..].lines().skip(1) {
        match line {
            _ if in_sh && line == "```" => in_sh = false,
            _ if in_other && line.starts_with("```") => in_other = false,
            _ if in_sh => {
                script.push_str(line);
                script.push('\n');
            }
            _ if in_other => {}
            "```sh" => in_sh = true,
            _ if line.starts_with("```") => in_other = true,
            _ if line.starts_with("## ") => break,
            _ => {}
        }
    }
    script
}

/// What the script runs before the README's lines: `cargo run --release
/// [-- ARGS]` is the binary under test (the server already runs, on a Redis
/// ledger so the admin commands work beside it), `curl` prints the URL it
/// calls on fd 3 and ends every answer with a newline and tolerates HTTP
/// errors (the test checks the answers), and `grpcurl`, not available
/// offline, is skipped saying so.
const SHIMS: &str = r#"set -eu
exec 3>&1
grpcurl() { echo "skipped (grpcurl is not available offline): grpcurl $*" >&2; }
curl() {
  for arg in "$@"; do case "$arg" in *127.0.0.1*) echo ">>> $arg" >&3;; esac; done
  command curl --fail-with-body "$@" || [ $? -eq 22 ]
  echo
}
cargo() {
  [ "$1 $2" = "run --release" ] || { echo "unexpected: cargo $*" >&2; return 1; }
  shift 2
  [ $# -eq 0 ] && return 0
  shift
  "$MEDIAOPS_BIN" "$@" | tee -a "$CLI_OUT"
}
"#;

#[tokio::test]
async fn the_readme_try_it_section_runs_in_order_against_a_started_server() {
    let missing: Vec<&str> = ["bash", "curl", "jq"]
        .into_iter()
        .filter(|tool| {
            !Command::new("sh").args(["-c", &format!("command -v {tool}")]).status().is_ok_and(|s| s.success())
        })
        .collect();
    let shared = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/works/bilibili"));
    if !missing.is_empty() || !shared.is_dir() {
        eprintln!(
            "SKIPPED: the README's \"Try it\" section needs {missing:?} (.ci/run installs them) and {}",
            shared.display()
        );
        return;
    }
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let block = try_it_script(&readme);
    assert!(block.contains("KEY=mk_…") && block.contains("TEAM_KEY=mk_…") && block.contains("grpcurl"), "{block}");
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    image::RgbImage::new(2, 2).save(work.path().join("photo.png")).unwrap();
    let ledger = [
        ("MEDIAOPS_REDIS_URL", common::process::redis_url()),
        ("MEDIAOPS_REDIS_PREFIX", common::process::redis_prefix("readme")),
    ];
    let process = serve(dir.path(), ledger.to_vec());
    let rest = process.rest().trim_start_matches("http://");
    let grpc = process.grpc().trim_start_matches("http://");
    // The bootstrap key is the one the server started with
    // (MEDIAOPS_BOOTSTRAP_KEY), the team key the one `keys create` printed.
    let body = block
        .replace("TEAM_KEY=mk_…", "TEAM_KEY=$(jq -rs 'map(select(.key)) | last | .key' \"$CLI_OUT\")")
        .replace("KEY=mk_…", &format!("KEY={}", common::KEY))
        .replace("localhost:8080", rest)
        .replace("localhost:50051", grpc)
        .replace("../shared", concat!(env!("CARGO_MANIFEST_DIR"), "/../shared"));
    let script = format!("{SHIMS}{body}");
    let output = Command::new("bash")
        .args(["-c", &script])
        .current_dir(work.path())
        .env("MEDIAOPS_BIN", env!("CARGO_BIN_EXE_mediaops"))
        .env("CLI_OUT", work.path().join("cli.out"))
        .env("MEDIAOPS_DATA_DIR", dir.path())
        .envs(ledger.iter().map(|(k, v)| (k, v)))
        .env("MEDIAOPS_ADMIN_TOKEN", common::ADMIN_TOKEN)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "the section failed:\n{script}\n--- stdout\n{out}\n--- stderr\n{err}");
    assert!(err.contains("skipped (grpcurl is not available offline)"), "{err}");

    // Each answer, with the path that gave it.
    let mut answers: Vec<(String, serde_json::Value)> = Vec::new();
    let mut path = String::new();
    for line in out.lines() {
        if let Some(url) = line.strip_prefix(">>> ") {
            path = url.split_once(rest).or_else(|| url.split_once(grpc)).map(|(_, p)| p.to_owned()).unwrap_or_default();
        } else if let Ok(answer) = serde_json::from_str::<serde_json::Value>(line) {
            answers.push((path.clone(), answer));
        }
    }
    let context = format!("--- stdout\n{out}\n--- stderr\n{err}");
    // Failures are the ones the README announces: the 400 of a typo, and
    // the WeChat calls of an account this server has not configured.
    for (path, answer) in &answers {
        if answer["success"] == false {
            let expected =
                path.contains("search-user") || path.contains("/api/articles/media") || path.contains("publish");
            assert!(expected, "{path}: {answer}\n{context}");
        }
    }
    let find = |want: &dyn Fn(&str, &serde_json::Value) -> bool| answers.iter().any(|(p, a)| want(p, a));
    assert!(
        find(&|_, a| a["data"]["charter"]["positioning"]["oneLiner"] == "帮小团队做内容增长"),
        "charter: {context}"
    );
    assert!(
        find(&|p, a| p.contains("search-user")
            && a["error"]["message"].as_str().is_some_and(|m| m.contains("`keyword`"))),
        "the 400 names the closest field: {context}"
    );
    let team = serde_json::json!({"accountId": "team-a", "points": 150});
    assert!(find(&|_, a| a["success"] == true && a["data"] == team), "balance as the README shows it: {context}");
    assert!(out.lines().any(|l| l == "149"), "the check cost 1 point: {context}");
    assert_eq!(out.to_ascii_lowercase().matches("idempotent-replayed: true").count(), 1, "{context}");
    assert!(find(&|p, a| p.contains("query-work") && a["success"] == true), "the imported work: {context}");
    // `import auto ../shared/data` rejects nothing, and the prune after it
    // finds nothing to remove (docs/store.md "Retention").
    let cli = std::fs::read_to_string(work.path().join("cli.out")).unwrap();
    let printed: Vec<serde_json::Value> =
        serde_json::Deserializer::from_str(&cli).into_iter().collect::<Result<_, _>>().unwrap();
    let import = printed.iter().find(|v| v.get("formats").is_some()).expect("the import's report");
    assert_eq!(import["rejected"], 0, "{import}");
    assert!(import["written"].as_u64().unwrap() > 40_000, "{import}");
    let prune = printed.iter().find(|v| v.get("keepFrom").is_some()).expect("the dry run's report");
    for field in ["workSnapshots", "accountSnapshots", "workDays", "accountDays"] {
        assert_eq!(prune[field], 0, "{field}: {prune}");
    }
    for platform in ["lifestyle", "shortvideo", "articles", "videosite", "microblog", "clipapp"] {
        assert!(
            find(&|p, a| p.contains(&format!("/{platform}/"))
                && a["data"]["items"].as_array().is_some_and(|i| !i.is_empty())),
            "{platform} answers from the imported data: {context}"
        );
    }
    assert!(find(&|p, a| p.contains("render") && a["success"] == true), "render: {context}");

    // `$KEY` is the bootstrap key throughout (set once), so grpcurl's
    // GetCharter, skipped above, reads the charter the section stored.
    assert_eq!(block.lines().filter(|l| l.trim_start().starts_with("KEY=")).count(), 1, "{block}");
    let line = block.lines().find(|l| l.contains("CharterService/GetCharter")).expect("a gRPC charter read");
    assert!(line.contains("Bearer $KEY\"") && line.contains(r#"{"id": "brand"}"#), "{line}");
    let channel = tonic::transport::Endpoint::from_shared(process.grpc().to_owned()).unwrap().connect().await.unwrap();
    let mut charters =
        mediaops::proto::mediaops::charter::v1::charter_service_client::CharterServiceClient::new(channel);
    let request = mediaops::proto::mediaops::charter::v1::GetCharterRequest { id: "brand".into() };
    charters.get_charter(common::with_token(request, common::KEY)).await.expect("GetCharter finds the stored charter");
}
