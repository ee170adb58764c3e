//! The `[vendors]` settings of the core (docs/vendors.md): packs, their
//! base URLs, mapping files and explicit source chains.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// `vendors` and `sources` of the core's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct VendorSettings {
    /// The built-in vendor packs to enable (`packs = ["tikhub"]`,
    /// `MEDIAOPS_VENDORS__PACKS='["tikhub"]'`; docs/vendors.md "Packs"):
    /// every operation a pack maps gets its default chain.
    pub packs: Vec<String>,
    /// Pack name → its base URL instead of the pack's
    /// (`MEDIAOPS_VENDORS__BASE_URLS__TIKHUB=http://127.0.0.1:9000`).
    pub base_urls: BTreeMap<String, String>,
    /// Vendor mapping files (`files = ["ops/vendors/x.toml"]`); a file named
    /// like an enabled pack overrides it ([`super::packs::resolve`]).
    pub files: Vec<PathBuf>,
    /// Operation key → chain, e.g. `"shortvideo.search-work" =
    /// "store,upstream:tikhub"`. Operations not listed keep their default
    /// chain: `store`, or their pack's ([`super::routes`]).
    pub sources: BTreeMap<String, String>,
}
