//! Vendor packs (docs/vendors.md "Packs"): the mapping files of the data
//! vendors teams already pay, compiled into the binary. Each is a
//! [`super::mapping::VendorFile`] in TOML, kept in `connectors/packs/`.

/// A vendor pack: its name (`upstream:<name>` in chains) and its mapping
/// file's text.
#[derive(Debug, Clone, Copy)]
pub struct Pack {
    /// The vendor's name, as in the file's `name`.
    pub name: &'static str,
    /// The mapping file (TOML, docs/vendors.md "The mapping file").
    pub text: &'static str,
}

/// Every pack, by name.
pub const PACKS: &[Pack] = &[
    Pack { name: "tikhub", text: include_str!("../../packs/tikhub.toml") },
    Pack { name: "justoneapi", text: include_str!("../../packs/justoneapi.toml") },
];

/// The pack called `name`, if there is one.
pub fn pack(name: &str) -> Option<&'static Pack> {
    PACKS.iter().find(|p| p.name == name)
}

/// The pack's mapping file, parsed.
///
/// # Errors
/// The pack's TOML does not parse as a mapping file (a defect of the pack,
/// caught by the tests).
pub fn parse(pack: &Pack) -> anyhow::Result<super::mapping::VendorFile> {
    use figment::providers::{Format, Toml};
    figment::Figment::from(Toml::string(pack.text))
        .extract()
        .map_err(|e| anyhow::anyhow!("vendor pack {}: {e}", pack.name))
}
