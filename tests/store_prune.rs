//! `mediaops store prune [--dry-run]` (docs/store.md "Retention") on the
//! real binary: the archived Bilibili feed imported, then pruned with a
//! clock that puts its first day beyond the retention.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `mediaops <args>` on the data dir `dir`; returns (exit code,
/// stdout, stderr).
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_mediaops"))
        .args(args)
        .env("MEDIAOPS_DATA_DIR", dir)
        .env_remove("MEDIAOPS_DATABASE_URL")
        .env("MEDIAOPS_NOW", "2024-01-01")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("mediaops runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn prune_counts_then_removes_the_days_beyond_the_retention() {
    let dir = tempfile::tempdir().unwrap();
    let feed = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/works/bilibili");
    let (code, out, err) = run(dir.path(), &["import", "bilibili-popular", feed]);
    assert_eq!(code, Some(0), "{out}{err}");
    let counts = json(&out)["countsAfter"].clone();

    // 2024-01-01 − 65 days = 2023-10-28: both archived days are older, so
    // only the snapshots of a work's or uploader's earlier day go.
    let (code, out, err) = run(dir.path(), &["store", "prune", "--dry-run", "--days", "65"]);
    assert_eq!(code, Some(0), "{err}");
    let dry = json(&out);
    assert_eq!(
        (dry["store"].as_str(), dry["keepFrom"].as_str(), dry["dryRun"].as_bool()),
        (Some("sqlite"), Some("2023-10-28"), Some(true))
    );
    let removed = dry["workSnapshots"].as_u64().unwrap();
    assert!(removed > 0 && removed < counts["workSnapshots"].as_u64().unwrap(), "{dry}");

    let (code, out, err) = run(dir.path(), &["store", "prune", "--days", "65"]);
    assert_eq!(code, Some(0), "{err}");
    let done = json(&out);
    for field in ["workSnapshots", "accountSnapshots", "workDays", "accountDays"] {
        assert_eq!(done[field], dry[field], "{field}: the dry run counted what the prune removed");
    }
    let (_, out, _) = run(dir.path(), &["store", "prune", "--dry-run", "--days", "65"]);
    assert_eq!(json(&out)["workSnapshots"], 0, "nothing left to prune");
    let (code, out, _) = run(dir.path(), &["store", "prune", "--days", "0"]);
    assert_eq!(code, Some(0));
    assert!(json(&out)["message"].as_str().unwrap().contains("keeps everything"));
}
