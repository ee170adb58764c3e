//! The TOML file is strict (issue 23 item 9): a key no setting reads is
//! refused, naming the closest known key, instead of being ignored
//! (`interval_sec` for `interval_secs`, `[hotlist]` for `[hotlists]`).
//! "Known" means known to the core or the gateway, since both read the same
//! file. Only the file is checked: `MEDIAOPS_*` variables that are not
//! settings (a test's `MEDIAOPS_TEST_DATABASE_URL`) stay allowed.
//!
//! Top-level keys are compared with the keys of both settings' defaults
//! (the flattened listener keys included); keys inside a section are the
//! ones [`serde_ignored`] reports while the core's settings are read.

use std::path::Path;

use core_service::CoreSettings;
use figment::Figment;
use figment::providers::{Format, Toml};
use mediaops_listener::ConfigFile;
use rest_gateway::GatewaySettings;
use serde_json::{Map, Value};

/// Checks the configuration file `config_file` (or the one the environment
/// names, or `./mediaops.toml`) for unknown keys.
///
/// # Errors
/// A missing file named by `--config`/`MEDIAOPS_CONFIG`, a file that is not
/// TOML, or keys no setting reads (each named, with the closest known key).
pub fn check(config_file: Option<&Path>) -> anyhow::Result<()> {
    let file = ConfigFile::resolve(config_file);
    file.check_exists().map_err(anyhow::Error::msg)?;
    // The same file the settings read (the default one is searched for
    // upwards from the working directory, as figment does).
    let toml = if file.required { Toml::file_exact(&file.path) } else { Toml::file(&file.path) };
    let table: Value = Figment::from(toml).extract()?;
    let unknown = unknown_keys(&table)?;
    anyhow::ensure!(unknown.is_empty(), "{}: {}", file.path.display(), unknown.join("; "));
    Ok(())
}

/// One message per key of `table` that no setting reads.
fn unknown_keys(table: &Value) -> anyhow::Result<Vec<String>> {
    let core = serde_json::to_value(CoreSettings::default())?;
    let gateway = serde_json::to_value(GatewaySettings::default())?;
    let (Some(file), Some(core_keys), Some(gateway_keys)) = (table.as_object(), core.as_object(), gateway.as_object())
    else {
        return Ok(Vec::new());
    };
    let mut unknown = Vec::new();
    for key in file.keys() {
        if !core_keys.contains_key(key) && !gateway_keys.contains_key(key) {
            let known = core_keys.keys().chain(gateway_keys.keys());
            unknown.push(message(key, closest(key, known)));
        }
    }
    // Inside sections: read the file over the core's defaults and note what
    // the core's settings ignore. A value of the wrong type is left to
    // `CoreSettings::load`, which names it.
    let mut merged = core.clone();
    merge(&mut merged, table);
    let mut ignored = Vec::new();
    let _: Result<CoreSettings, _> = serde_ignored::deserialize(merged, |path| ignored.push(path.to_string()));
    for path in ignored {
        let (parent, key) = path.rsplit_once('.').unwrap_or(("", &path));
        let siblings = lookup(&core, parent).and_then(Value::as_object).map(Map::keys);
        unknown.push(message(&path, siblings.and_then(|keys| closest(key, keys))));
    }
    Ok(unknown)
}

fn message(path: &str, closest: Option<&String>) -> String {
    match closest {
        Some(known) => format!("unknown key `{path}` (did you mean `{known}`?)"),
        None => format!("unknown key `{path}`"),
    }
}

/// The known key most like `key`, when it is alike enough to be a typo.
fn closest<'a>(key: &str, known: impl Iterator<Item = &'a String>) -> Option<&'a String> {
    known
        .map(|k| (strsim::jaro_winkler(key, k), k))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// The value at a dotted `path` (`hotlists.weibo`) of `value`.
fn lookup<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    if path.is_empty() {
        return Some(value);
    }
    path.split('.').try_fold(value, |v, key| v.get(key))
}

/// `over`'s keys written into `base`, tables merged key by key.
fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(key) {
                    Some(slot) if slot.is_object() && value.is_object() => merge(slot, value),
                    _ => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (base, over) => *base = over.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown(toml: &str) -> Vec<String> {
        let table: Value = Figment::from(Toml::string(toml)).extract().unwrap();
        unknown_keys(&table).unwrap()
    }

    #[test]
    fn keys_of_either_server_and_of_every_section_are_known() {
        let known = "rest_addr = \"127.0.0.1:1\"\ngrpc_addr = \"127.0.0.1:2\"\nmax_connections = 10\n\
                     [hotlists]\ninterval_secs = 60\n[hotlists.weibo]\nenabled = true\n[outbound]\nretries = 1\n";
        assert_eq!(unknown(known), Vec::<String>::new());
    }

    #[test]
    fn unknown_keys_name_the_closest_known_one() {
        let found = unknown("rest_adr = \"x\"\n[hotlist]\nenabled = true\n[hotlists]\ninterval_sec = 5\n");
        assert!(found.contains(&"unknown key `rest_adr` (did you mean `rest_addr`?)".to_owned()), "{found:?}");
        assert!(found.contains(&"unknown key `hotlist` (did you mean `hotlists`?)".to_owned()), "{found:?}");
        assert!(
            found.contains(&"unknown key `hotlists.interval_sec` (did you mean `interval_secs`?)".to_owned()),
            "{found:?}"
        );
        assert_eq!(
            unknown("[hotlists.weibo]\nbase_ur = \"x\"\n"),
            ["unknown key `hotlists.weibo.base_ur` (did you mean `base_url`?)"]
        );
    }
}
