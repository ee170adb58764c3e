//! The `mediaops` binary as a user runs it: first start prints a bootstrap
//! key that works, a restart keeps it, and the README's operation table is
//! what `mediaops operations` prints.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

struct Started {
    child: Child,
    lines: Vec<String>,
    rest: String,
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `mediaops` on free ports in `data_dir` and reads its start-up lines.
fn start(data_dir: &std::path::Path) -> Started {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mediaops"))
        .env("MEDIAOPS_DATA_DIR", data_dir)
        .env("MEDIAOPS_REST_ADDR", "127.0.0.1:0")
        .env("MEDIAOPS_GRPC_ADDR", "127.0.0.1:0")
        .env_remove("MEDIAOPS_BOOTSTRAP_KEY")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    let mut rest = String::new();
    while rest.is_empty() {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "mediaops exited early: {lines:?}");
        if let Some(addr) = line.trim().strip_prefix("REST  listening on ") {
            rest = addr.split_whitespace().next().unwrap().to_owned();
        }
        lines.push(line.trim().to_owned());
    }
    Started { child, lines, rest }
}

async fn status_of_catalog_call(rest: &str, key: &str) -> u16 {
    reqwest::Client::new().get(format!("{rest}/api/skills")).bearer_auth(key).send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn first_start_prints_a_working_key_and_restart_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let first = start(dir.path());
    let key = first
        .lines
        .iter()
        .find_map(|l| l.split("store it now): ").nth(1))
        .unwrap_or_else(|| panic!("no key printed: {:?}", first.lines))
        .to_owned();
    assert!(key.starts_with("mk_"));
    assert_eq!(status_of_catalog_call(&first.rest, &key).await, 200);
    drop(first);

    let second = start(dir.path());
    assert!(second.lines.iter().any(|l| l.starts_with("API keys exist")), "{:?}", second.lines);
    assert!(!second.lines.iter().any(|l| l.contains("mk_")), "keys are never printed again");
    assert_eq!(status_of_catalog_call(&second.rest, &key).await, 200);
    assert_eq!(status_of_catalog_call(&second.rest, "mk_not_a_real_key_at_all").await, 401);
}

#[test]
fn readme_operation_table_is_what_the_binary_prints() {
    let output = Command::new(env!("CARGO_BIN_EXE_mediaops")).arg("operations").output().unwrap();
    assert!(output.status.success());
    let table = String::from_utf8(output.stdout).unwrap();
    let operations = mediaops::proto::options::operations(mediaops::proto::descriptor_pool()).len();
    assert!(operations >= 113, "every RPC with operation metadata");
    assert_eq!(table.lines().count(), 2 + operations, "header, rule, one row per operation");
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("<!-- operations:begin -->").expect("README has the operations markers")
        + "<!-- operations:begin -->\n".len();
    let end = readme.find("<!-- operations:end -->").unwrap();
    assert_eq!(&readme[start..end], table, "regenerate with: cargo run -q -- operations");
}

/// Runs `mediaops <args>` on `data_dir` and returns (success, stdout, stderr).
fn cli(data_dir: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_mediaops"))
        .args(args)
        .env("MEDIAOPS_DATA_DIR", data_dir)
        .env_remove("MEDIAOPS_REDIS_URL")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn admin_cli_creates_keys_and_grants_points() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, out, err) = cli(dir.path(), &["keys", "create", "--account", "team-a", "--points", "50"]);
    assert!(ok, "{err}");
    let created: serde_json::Value = serde_json::from_str(&out).unwrap();
    let key = created["key"].as_str().unwrap().to_owned();
    assert_eq!(created["balance"], 50);

    let (ok, out, _) = cli(dir.path(), &["points", "grant", "--account", "team-a", "25"]);
    assert!(ok);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap()["points"], 75);
    let (ok, out, _) = cli(dir.path(), &["keys", "list"]);
    assert!(ok && out.contains("team-a") && !out.contains(&key), "keys are listed by id only: {out}");
    let (ok, _, err) = cli(dir.path(), &["points", "grant", "--account", "team-a", "0"]);
    assert!(!ok && err.contains("more than 0"), "{err}");

    let server = start(dir.path());
    let response = reqwest::Client::new()
        .get(format!("{}/api/account/balance", server.rest))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["data"], serde_json::json!({"accountId": "team-a", "points": 75}));
    let (ok, _, err) = cli(dir.path(), &["keys", "list"]);
    assert!(
        !ok && err.contains("in use by another mediaops process"),
        "the running server owns the embedded ledger: {err}"
    );
}

#[test]
fn a_bad_worker_count_stops_the_start_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let run = |workers: &str| {
        Command::new(env!("CARGO_BIN_EXE_mediaops"))
            .args(["keys", "list"])
            .env("MEDIAOPS_DATA_DIR", dir.path())
            .env("MEDIAOPS_WORKER_THREADS", workers)
            .env("RUST_LOG", "warn")
            .output()
            .unwrap()
    };
    let refused = run("0");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("MEDIAOPS_WORKER_THREADS") && stderr.contains("\"0\""), "{stderr}");
    let one = run("1");
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
}
