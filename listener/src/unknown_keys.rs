//! The TOML file is strict: a key no setting reads is
//! refused, naming the closest known key, instead of being ignored
//! (`interval_sec` for `interval_secs`, `[hotlist]` for `[hotlists]`).
//! "Known" means known to the core or the gateway, since both read the same
//! file: each server's settings check the file against their own keys and
//! the other server's top-level keys ([`CORE_KEYS`], [`GATEWAY_KEYS`]).
//! Only the file is checked: `MEDIAOPS_*` variables that are not settings
//! (a test's `MEDIAOPS_TEST_DATABASE_URL`) stay allowed.
//!
//! Top-level keys are compared with the keys of the settings' defaults (the
//! flattened listener keys included); keys inside a section are the ones
//! [`serde_ignored`] reports while the settings are read from the file.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The core's top-level keys besides the listener's (`CoreSettings`; a
/// test in core-service keeps this in step).
pub const CORE_KEYS: &[&str] = &[
    "grpc_addr",
    "data_dir",
    "bootstrap_key",
    "bootstrap_points",
    "redis_url",
    "redis_prefix",
    "admin_token",
    "reservation_ttl_secs",
    "operation_timeout_secs",
    "database_url",
    "store_acquire_timeout_secs",
    "sqlite_mmap_mib",
    "readiness_interval_secs",
    "snapshot_retention_days",
    "now",
    "hotlists",
    "outbound",
    "vendors",
    "images",
    "web_search",
    "wechat",
    "sync",
    "rate_limit",
    "watchlists",
    "tracking",
    "boards_interval_secs",
];

/// The gateway's top-level keys besides the listener's (`GatewaySettings`;
/// a test in rest-gateway keeps this in step).
pub const GATEWAY_KEYS: &[&str] = &[
    "rest_addr",
    "core_addr",
    "core_connections",
    "core_refresh_secs",
    "core_transport",
    "max_body_bytes",
    "cors_origins",
    "request_timeout_secs",
];

/// One message per key of `table` (the file's contents) that neither `T`
/// nor the other server (its top-level keys `others`) reads.
pub fn unknown_keys<T: Serialize + DeserializeOwned + Default>(table: &Value, others: &[&str]) -> Vec<String> {
    let Ok(defaults) = serde_json::to_value(T::default()) else { return Vec::new() };
    let (Some(file), Some(own)) = (table.as_object(), defaults.as_object()) else { return Vec::new() };
    let mut unknown = Vec::new();
    for key in file.keys() {
        if !own.contains_key(key) && !others.contains(&key.as_str()) {
            let known = own.keys().map(String::as_str).chain(others.iter().copied());
            unknown.push(message(key, closest(key, known)));
        }
    }
    // Inside sections: read the file over the defaults and note what the
    // settings ignore. A value of the wrong type is left to the settings'
    // own extraction, which names it.
    let mut merged = defaults.clone();
    merge(&mut merged, table);
    let mut ignored = Vec::new();
    let _: Result<T, _> = serde_ignored::deserialize(merged, |path| ignored.push(path.to_string()));
    for path in ignored {
        let Some((parent, key)) = path.rsplit_once('.') else { continue }; // top level: above
        let siblings = lookup(&defaults, parent).and_then(Value::as_object).map(Map::keys);
        unknown.push(message(&path, siblings.and_then(|keys| closest(key, keys.map(String::as_str)))));
    }
    unknown
}

/// [`unknown_keys`] as one error naming the file `path`, if any.
pub fn refuse<T: Serialize + DeserializeOwned + Default>(
    path: &std::path::Path,
    table: &Value,
    others: &[&str],
) -> Result<(), String> {
    let unknown = unknown_keys::<T>(table, others);
    if unknown.is_empty() { Ok(()) } else { Err(format!("{}: {}", path.display(), unknown.join("; "))) }
}

fn message(path: &str, closest: Option<&str>) -> String {
    match closest {
        Some(known) => format!("unknown key `{path}` (did you mean `{known}`?)"),
        None => format!("unknown key `{path}`"),
    }
}

/// The known key most like `key`, when it is alike enough to be a typo.
fn closest<'a>(key: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    known
        .map(|k| (strsim::jaro_winkler(key, k), k))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// The value at a dotted `path` (`hotlists.weibo`) of `value`.
fn lookup<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
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

    #[derive(Default, Serialize, serde::Deserialize)]
    struct Section {
        interval_secs: u64,
    }

    #[derive(Default, Serialize, serde::Deserialize)]
    struct Settings {
        rest_addr: String,
        hotlists: Section,
        #[serde(flatten)]
        listener: crate::ListenerSettings,
    }

    fn unknown(table: Value) -> Vec<String> {
        unknown_keys::<Settings>(&table, CORE_KEYS)
    }

    #[test]
    fn own_keys_the_other_servers_and_the_listeners_are_known() {
        let table = serde_json::json!({"rest_addr": "x", "grpc_addr": "y", "max_connections": 3, "hotlists": {"interval_secs": 1}});
        assert_eq!(unknown(table), Vec::<String>::new());
    }

    #[test]
    fn unknown_keys_name_the_closest_known_one() {
        let found =
            unknown(serde_json::json!({"rest_adr": "x", "hotlist": {}, "hotlists": {"interval_sec": 5}, "zzz": 1}));
        assert_eq!(
            found,
            [
                "unknown key `rest_adr` (did you mean `rest_addr`?)",
                "unknown key `hotlist` (did you mean `hotlists`?)",
                "unknown key `zzz`",
                "unknown key `hotlists.interval_sec` (did you mean `interval_secs`?)",
            ]
        );
    }
}
