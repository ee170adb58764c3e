//! The vendor packs (docs/vendors.md "Packs"; `connectors/packs/`) against
//! a local fake vendor that answers with the real recorded replies of
//! `../shared/data/vendor-replies/` and, for routes without a recording,
//! the fixtures of `tests/fixtures/vendors/` (each says where its field
//! names come from). Every mapped operation is called over REST: rows in the
//! spec's shape, the price charged once, write-back rows in the store.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

#[path = "../common/mod.rs"]
mod common;

mod faults;
mod justoneapi;
mod tikhub_articles_video;
mod tikhub_lifestyle_shortvideo;

use common::Service;
use common::vendor_replay::VendorReplay;
use core_service::vendors::chain::VendorSettings;

/// The key every pack test gives the vendors (the fake vendor checks none).
const VENDOR_KEY: &str = "pack-test-key";

/// Sets the packs' key variables (the same value in every test, so the
/// tests of this binary may run in any order and at once).
fn set_vendor_keys() {
    for var in ["TIKHUB_API_KEY", "JUST_ONE_API_TOKEN", "JUSTONEAPI_TOKEN"] {
        // SAFETY: every test of this binary sets the same values before it
        // starts a service, and no test reads them concurrently otherwise.
        unsafe { std::env::set_var(var, VENDOR_KEY) };
    }
}

/// A service on a fresh data directory whose every operation mapped by the
/// pack `pack` is answered by that pack's vendor at `replay` only
/// (`upstream:<pack>`), and the folder holding the pack's copy.
async fn pack_service(pack: &str, replay: &VendorReplay) -> (Service, tempfile::TempDir) {
    set_vendor_keys();
    let pack = mediaops_connectors::vendors::packs::pack(pack).unwrap();
    let file = mediaops_connectors::vendors::packs::parse(pack).unwrap();
    let text: String = pack
        .text
        .lines()
        .map(|line| {
            if line.starts_with("base_url") { format!("base_url = \"{}\"", replay.base) } else { line.to_owned() }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let files = tempfile::tempdir().unwrap();
    let path = files.path().join(format!("{}.toml", pack.name));
    std::fs::write(&path, text).unwrap();
    let vendors = VendorSettings {
        files: vec![path],
        sources: file.operations.keys().map(|key| (key.clone(), format!("upstream:{}", pack.name))).collect(),
    };
    let service = Service::start_with(tempfile::tempdir().unwrap(), |core| core.vendors = vendors).await;
    (service, files)
}
