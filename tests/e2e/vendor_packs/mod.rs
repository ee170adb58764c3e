//! The vendor packs (docs/vendors.md "Packs"; `connectors/packs/`) against
//! a local fake vendor that answers with the real recorded replies of
//! `../shared/data/vendor-replies/` and, for routes without a recording,
//! the fixtures of `tests/fixtures/vendors/` (each says where its field
//! names come from). Every mapped operation is called over REST: rows in the
//! spec's shape, the price charged once, write-back rows in the store.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

mod faults;
mod justoneapi;
mod tikhub_articles_video;
mod tikhub_lifestyle_shortvideo;
mod tikhub_several_calls;

use common::Service;
use common::vendor_replay::VendorReplay;
use mediaops_connectors::vendors::settings::VendorSettings;

use common::vendor_replay::{VENDOR_KEY, set_vendor_keys};

/// A service on a fresh data directory with the pack `pack` enabled
/// (`[vendors] packs = [pack]`, its base URL set to `replay` by
/// `[vendors.base_urls]`) and every operation the pack maps answered by the
/// vendor alone (`[vendors.sources]` `upstream:<pack>`), so that each call of
/// a mapping test reaches the recorded reply even after an earlier call
/// wrote the same record back; and a folder for files the test may add. The
/// default chains are tested through [`pack_service_with`].
async fn pack_service(pack: &str, replay: &VendorReplay) -> (Service, tempfile::TempDir) {
    let file =
        mediaops_connectors::vendors::packs::parse(mediaops_connectors::vendors::packs::pack(pack).unwrap()).unwrap();
    pack_service_with(pack, replay, tempfile::tempdir().unwrap(), |vendors, _| {
        vendors.sources = alone(&file, pack);
    })
    .await
}

/// Every operation `file` maps answered by the vendor alone, except a
/// refresh (docs/vendors.md "Several calls"), whose answer is the store's:
/// `upstream:<pack>,store`.
fn alone(
    file: &mediaops_connectors::vendors::mapping::VendorFile,
    pack: &str,
) -> std::collections::BTreeMap<String, String> {
    file.operations
        .iter()
        .map(|(key, mapping)| {
            let store = if mapping.refresh { ",store" } else { "" };
            (key.clone(), format!("upstream:{pack}{store}"))
        })
        .collect()
}

/// A service with the pack `pack` enabled as an operator enables it (the
/// default chains of docs/vendors.md "Default chains"), its base URL set to
/// `replay`, on the data directory `data_dir` (e.g. with an imported store),
/// with the vendor settings changed by `adjust` first; `adjust` gets
/// the folder returned too (for override files: `[vendors] files`).
async fn pack_service_with(
    pack: &str,
    replay: &VendorReplay,
    data_dir: tempfile::TempDir,
    adjust: impl FnOnce(&mut VendorSettings, &std::path::Path),
) -> (Service, tempfile::TempDir) {
    set_vendor_keys();
    assert!(mediaops_connectors::vendors::packs::pack(pack).is_some(), "no pack {pack}");
    let files = tempfile::tempdir().unwrap();
    let mut vendors = VendorSettings {
        packs: vec![pack.to_owned()],
        base_urls: [(pack.to_owned(), replay.base.clone())].into(),
        ..VendorSettings::default()
    };
    adjust(&mut vendors, files.path());
    let service = Service::start_with(data_dir, |core| core.vendors = vendors).await;
    (service, files)
}
