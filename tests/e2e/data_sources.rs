//! Where answers come from (docs/vendors.md "Packs"): the generated part of
//! `docs/data-sources.md` is what `mediaops::sources::markdown` makes of the
//! packs, and `mediaops sources --json` shows the chains the environment's
//! settings build (`MEDIAOPS_VENDORS__PACKS`, `…__BASE_URLS__<PACK>`).
//! After a change to a pack, rewrite the generated part and review its diff:
//!
//! ```sh
//! MEDIAOPS_UPDATE_GOLDEN=1 cargo test -p mediaops --test e2e data_sources::
//! ```
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// A core's registry on a scratch data directory, without vendors.
async fn registry_core() -> (core_service::Core, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let settings = core_service::CoreSettings { data_dir: dir.path().to_path_buf(), ..Default::default() };
    (core_service::Core::open(&settings).await.unwrap(), dir)
}

#[tokio::test]
async fn the_generated_part_of_data_sources_md_is_current() {
    let (core, _dir) = registry_core().await;
    let generated = mediaops::sources::markdown(core.registry()).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/data-sources.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (start, end) = mediaops::sources::MARKERS;
    let (before, rest) = text.split_once(start).unwrap_or_else(|| panic!("{} has no {start}", path.display()));
    let (current, after) = rest.split_once(end).unwrap_or_else(|| panic!("{} has no {end}", path.display()));
    let wanted = format!("\n{generated}");
    if std::env::var("MEDIAOPS_UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::write(&path, format!("{before}{start}{wanted}{end}{after}")).unwrap();
        return;
    }
    assert!(
        current == wanted,
        "docs/data-sources.md is not what the packs give; rerun with MEDIAOPS_UPDATE_GOLDEN=1 and review the diff"
    );
    // Every data API has its line, and so has every other operation a pack
    // maps (the skills answered through a source chain).
    let packs: Vec<_> = mediaops_connectors::vendors::packs::PACKS
        .iter()
        .map(|p| mediaops_connectors::vendors::packs::parse(p).unwrap())
        .collect();
    let listed = core
        .registry()
        .operations()
        .filter(|op| {
            op.meta.kind() == mediaops::proto::mediaops::options::v1::MetadataKind::DataApi
                || packs.iter().any(|pack| pack.operations.contains_key(op.key()))
        })
        .count();
    assert_eq!(generated.lines().count(), listed + 2, "{generated}");
}

#[test]
fn mediaops_sources_shows_the_chains_the_environment_enables() {
    // No ./mediaops.toml in the scratch directory: the environment alone.
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mediaops"))
        .args(["sources", "--json"])
        .current_dir(dir.path())
        .env("MEDIAOPS_DATA_DIR", dir.path())
        .env("MEDIAOPS_VENDORS__PACKS", r#"["tikhub","justoneapi"]"#)
        .env("MEDIAOPS_VENDORS__BASE_URLS__TIKHUB", "http://127.0.0.1:9")
        .env_remove("TIKHUB_API_KEY")
        .env_remove("JUSTONEAPI_TOKEN")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "no key is needed to list the sources: {stderr}");
    let lines: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    let line = |key: &str| lines.iter().find(|l| l["operationKey"] == key).unwrap_or_else(|| panic!("{key}"));
    use mediaops_connectors::vendors::packs::{pack, parse};
    let (tikhub, justoneapi) = (parse(pack("tikhub").unwrap()).unwrap(), parse(pack("justoneapi").unwrap()).unwrap());
    let mut routed = 0;
    for key in tikhub.operations.keys() {
        let line = line(key);
        let packs: Vec<&str> = line["packs"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        let expected: Vec<&str> =
            ["tikhub"].into_iter().chain(justoneapi.operations.contains_key(key).then_some("justoneapi")).collect();
        assert_eq!(packs, expected, "{line}");
        let chain: Vec<&str> = line["chain"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        let vendors: Vec<&str> = chain.iter().copied().filter(|w| w.starts_with("upstream:")).collect();
        match line["kind"].as_str().unwrap() {
            "sync" => assert_eq!(chain, ["upstream:tikhub"], "{line}"),
            "search" | "realtime" => {
                assert_eq!(vendors[0], "upstream:tikhub", "{line}");
                assert_eq!(chain.last(), Some(&"store"), "a search falls back to the store: {line}");
                routed += 1;
            }
            "lookup" | "board" => {
                assert!(vendors.first() == Some(&"upstream:tikhub"), "{line}");
                routed += 1;
            }
            other => panic!("{other}"),
        }
        if vendors.len() == 2 {
            assert_eq!(vendors[1], "upstream:justoneapi", "two packs are failover, in packs order: {line}");
        }
    }
    assert!(routed > 0);
    // An operation no pack maps keeps the store alone.
    let unmapped =
        lines.iter().find(|l| l["packs"].as_array().unwrap().is_empty() && l["chain"] == serde_json::json!(["store"]));
    assert!(unmapped.is_some());

    let output = Command::new(env!("CARGO_BIN_EXE_mediaops"))
        .args(["sources"])
        .current_dir(dir.path())
        .env("MEDIAOPS_DATA_DIR", dir.path())
        .env("MEDIAOPS_VENDORS__PACKS", r#"["tikhb"]"#)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("tikhub, justoneapi"),
        "an unknown pack names the known: {stderr}"
    );
}
