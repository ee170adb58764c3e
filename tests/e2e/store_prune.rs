//! `mediaops store prune [--dry-run]` (docs/store.md "Retention") on the
//! real binary: the archived Bilibili feed imported, then pruned with a
//! clock that puts its first day beyond the retention and its second inside
//! (the first day's snapshots of the videos seen again go; the videos seen
//! only on the first day keep theirs), and with one that puts both beyond
//! (a series that stopped before the window is kept whole: nothing goes).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `mediaops <args>` on the data dir `dir`; returns (exit code,
/// stdout, stderr).
fn run(dir: &Path, now: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_mediaops"))
        .args(args)
        .env("MEDIAOPS_DATA_DIR", dir)
        .env_remove("MEDIAOPS_DATABASE_URL")
        .env("MEDIAOPS_NOW", now)
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
    let (code, out, err) = run(dir.path(), "2024-01-01", &["import", "bilibili-popular", feed]);
    assert_eq!(code, Some(0), "{out}{err}");
    let counts = json(&out)["countsAfter"].clone();

    // 2024-01-01 − 65 days = 2023-10-28: both archived days are older, so
    // every series stopped before the window and is kept whole.
    let (code, out, err) = run(dir.path(), "2024-01-01", &["store", "prune", "--dry-run", "--days", "65"]);
    assert_eq!(code, Some(0), "{err}");
    let dry = json(&out);
    assert_eq!(dry["keepFrom"], "2023-10-28");
    for field in ["workSnapshots", "accountSnapshots", "workDays", "accountDays"] {
        assert_eq!(dry[field], 0, "{field}: history that stopped before the window is kept: {dry}");
    }

    // 2023-12-31 − 65 days = 2023-10-27: the second day is inside, so only
    // the first day's snapshots of the videos and uploaders seen on both go.
    let (code, out, err) = run(dir.path(), "2023-12-31", &["store", "prune", "--dry-run", "--days", "65"]);
    assert_eq!(code, Some(0), "{err}");
    let dry = json(&out);
    assert_eq!(
        (dry["store"].as_str(), dry["keepFrom"].as_str(), dry["dryRun"].as_bool()),
        (Some("sqlite"), Some("2023-10-27"), Some(true))
    );
    let removed = dry["workSnapshots"].as_u64().unwrap();
    // 293 videos are on both days (shared/data README).
    assert_eq!(removed, 293, "{dry}");
    assert!(removed < counts["workSnapshots"].as_u64().unwrap(), "{dry}");

    let (code, out, err) = run(dir.path(), "2023-12-31", &["store", "prune", "--days", "65"]);
    assert_eq!(code, Some(0), "{err}");
    let done = json(&out);
    for field in ["workSnapshots", "accountSnapshots", "workDays", "accountDays"] {
        assert_eq!(done[field], dry[field], "{field}: the dry run counted what the prune removed");
    }
    let (_, out, _) = run(dir.path(), "2023-12-31", &["store", "prune", "--dry-run", "--days", "65"]);
    assert_eq!(json(&out)["workSnapshots"], 0, "nothing left to prune");
    let (code, out, _) = run(dir.path(), "2023-12-31", &["store", "prune", "--days", "0"]);
    assert_eq!(code, Some(0));
    assert!(json(&out)["message"].as_str().unwrap().contains("keeps everything"));
}
