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

/// The mapping files the settings enable (docs/vendors.md "Packs"): each
/// pack of `packs`, then each file of `files`, with these rules:
/// - a file whose `name` is an enabled pack's overrides that pack instead
///   of standing alone: each of its `[operations."<key>"]` replaces the
///   pack's mapping of that operation whole (and leaves `unmapped`), each
///   of its `[routes.<name>]` the pack's route of that name, and each other
///   top-level key it gives (`base_url`, `auth`, `timeout_secs`,
///   `retries`, `rate_limit_per_second`, `reply`, `breaker`, `currency`)
///   replaces the pack's; the keys it leaves out keep the pack's;
/// - `base_urls.<pack>` replaces the pack's base URL last (tests, proxies,
///   regional hosts).
///
/// # Errors
/// An unknown pack (the message names the known ones), a pack named twice,
/// a `base_urls` entry naming no enabled pack, a file that does not parse
/// or has unknown keys.
pub fn resolve(settings: &super::settings::VendorSettings) -> anyhow::Result<Vec<super::mapping::VendorFile>> {
    use figment::providers::{Format, Toml};
    let mut tables: Vec<(String, serde_json::Value)> = Vec::new();
    for name in &settings.packs {
        let pack = pack(name).ok_or_else(|| {
            let known: Vec<&str> = PACKS.iter().map(|p| p.name).collect();
            anyhow::anyhow!("vendors.packs: there is no pack {name:?}; the packs are {}", known.join(", "))
        })?;
        anyhow::ensure!(!tables.iter().any(|(n, _)| n == name), "vendors.packs names {name} twice");
        let table: serde_json::Value = figment::Figment::from(Toml::string(pack.text))
            .extract()
            .map_err(|e| anyhow::anyhow!("vendor pack {name}: {e}"))?;
        tables.push((name.clone(), table));
    }
    let packs = tables.len();
    for path in &settings.files {
        let table: serde_json::Value = figment::Figment::from(Toml::file_exact(path))
            .extract()
            .map_err(|e| anyhow::anyhow!("vendor mapping {}: {e}", path.display()))?;
        let name = table.get("name").and_then(serde_json::Value::as_str).unwrap_or_default().to_owned();
        match tables[..packs].iter_mut().find(|(n, _)| *n == name) {
            Some((_, pack)) => override_pack(pack, table),
            None => tables.push((format!("file {}", path.display()), table)),
        }
    }
    for (name, url) in &settings.base_urls {
        let (_, table) = tables[..packs].iter_mut().find(|(n, _)| n == name).ok_or_else(|| {
            anyhow::anyhow!("vendors.base_urls.{name}: {name} is not an enabled pack (vendors.packs)")
        })?;
        table["base_url"] = serde_json::Value::String(url.clone());
    }
    tables
        .into_iter()
        .map(|(what, table)| serde_json::from_value(table).map_err(|e| anyhow::anyhow!("vendor mapping {what}: {e}")))
        .collect()
}

/// Applies an override file to a pack's table ([`resolve`]).
fn override_pack(pack: &mut serde_json::Value, file: serde_json::Value) {
    let serde_json::Value::Object(file) = file else { return };
    for (key, value) in file {
        match (key.as_str(), value) {
            ("operations", serde_json::Value::Object(operations)) => {
                for (operation, mapping) in operations {
                    if let Some(unmapped) = pack.get_mut("unmapped").and_then(|u| u.as_object_mut()) {
                        unmapped.remove(&operation);
                    }
                    pack["operations"][operation] = mapping;
                }
            }
            ("routes", serde_json::Value::Object(routes)) => {
                for (route, mapping) in routes {
                    pack["routes"][route] = mapping;
                }
            }
            ("unmapped", serde_json::Value::Object(reasons)) => {
                for (operation, reason) in reasons {
                    pack["unmapped"][operation] = reason;
                }
            }
            (_, value) => pack[key] = value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vendors::settings::VendorSettings;

    #[test]
    fn every_pack_parses() {
        for pack in PACKS {
            let file = parse(pack).unwrap();
            assert_eq!(file.name, pack.name);
        }
    }

    #[test]
    fn a_file_of_the_packs_name_overrides_it_per_operation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fix.toml");
        std::fs::write(
            &path,
            "name = \"tikhub\"\ntimeout_secs = 3\n[operations.\"videosite.search-work\"]\npath = \"/fixed\"\n\
             response = '{items: []}'\n",
        )
        .unwrap();
        let settings = VendorSettings {
            packs: vec!["tikhub".into()],
            files: vec![path],
            base_urls: [("tikhub".to_owned(), "http://127.0.0.1:9000".to_owned())].into(),
            ..VendorSettings::default()
        };
        let files = resolve(&settings).unwrap();
        assert_eq!(files.len(), 1, "the override file does not stand alone");
        let (file, pack) = (&files[0], parse(pack("tikhub").unwrap()).unwrap());
        assert_eq!((file.base_url.as_str(), file.timeout_secs), ("http://127.0.0.1:9000", Some(3)));
        let fixed = &file.operations["videosite.search-work"];
        assert_eq!((fixed.path.as_str(), fixed.cache_ttl_secs), ("/fixed", 0), "replaced whole, not merged");
        let mut keys: Vec<&String> = pack.operations.keys().collect();
        let fixed_key = "videosite.search-work".to_owned();
        if !keys.contains(&&fixed_key) {
            keys.push(&fixed_key);
            keys.sort();
        }
        assert_eq!(file.operations.keys().collect::<Vec<_>>(), keys, "the other mappings stay");
        assert_eq!(file.retries, pack.retries, "keys the file leaves out keep the pack's");
    }

    #[test]
    fn unknown_packs_and_base_urls_are_refused_by_name() {
        let unknown = VendorSettings { packs: vec!["tikhb".into()], ..VendorSettings::default() };
        let error = resolve(&unknown).unwrap_err().to_string();
        assert!(error.contains("\"tikhb\"") && error.contains("tikhub, justoneapi"), "{error}");
        let stray = VendorSettings {
            base_urls: [("tikhub".to_owned(), "http://x".to_owned())].into(),
            ..VendorSettings::default()
        };
        assert!(resolve(&stray).unwrap_err().to_string().contains("not an enabled pack"));
    }
}
