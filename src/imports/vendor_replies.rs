//! `mediaops import vendor-replies --pack <name> <dir>` (docs/data-sources.md
//! "Recorded vendor replies"): recorded replies of a data vendor written to
//! the store through its pack's write-back filters (docs/vendors.md
//! "Write-back"), as the core does after a found answer.
//!
//! For each reply file:
//! - **Which reply**: a TikHub envelope (`{code, router, params, time_stamp,
//!   data, …}`), the same inside a recording wrapper
//!   (`{request_params, response_raw, extracted_info}`: `response_raw` is the
//!   reply), or a Just One API reply (`{code, data, message, recordTime}`).
//! - **Which operations**: those of the pack whose mapping `path` equals the
//!   reply's `router`. A reply without `router` (Just One API's) is matched by
//!   the name of its folder: the folder's words equal the path's, leaving out
//!   `api` and `get` (`xiaohongshu-user-note-list-v4` ↔
//!   `/api/xiaohongshu/get-user-note-list/v4`).
//! - **When**: snapshots without `capturedAt` take the reply's own time:
//!   TikHub's `time_stamp` (epoch seconds), Just One API's `recordTime` (read
//!   as Asia/Shanghai wall time, the vendor's zone), else the file's
//!   modification time.
//! - Each record the filters give is a row: refused records are rejected
//!   with the schema's reason. A reply whose route no mapping with a `store`
//!   filter covers is not imported and is listed with the reason (not fatal).

use std::path::Path;
use std::sync::LazyLock;

use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use mediaops_connectors::vendors::filter::JqFilter;
use mediaops_connectors::vendors::packs;
use mediaops_store::ContentStore;
use mediaops_store::clock::shanghai_to_utc;
use mediaops_store::import::{ImportReport, RowWriter, jsonl};
use mediaops_store::model::Record;
use serde_json::Value;

/// One pack's routes, with the write-back filters of the operations that
/// map them.
#[derive(Debug)]
pub struct VendorPack {
    /// The pack's name (`tikhub`, `justoneapi`).
    pub name: &'static str,
    /// (mapping path, operation key, compiled `store` filter if any).
    routes: Vec<(String, String, Option<JqFilter>)>,
}

/// The operations whose write-back covers a reply: (operation key, its
/// `store` filter).
pub type Covering<'a> = Vec<(&'a str, &'a JqFilter)>;

/// A recorded reply: the vendor's reply itself, its route and its time.
#[derive(Debug)]
pub struct Reply {
    /// The reply (unwrapped from a recording wrapper).
    pub body: Value,
    /// The reply's `router`, if it names one.
    pub router: Option<String>,
    /// When the vendor answered, if the reply says.
    pub at: Option<DateTime<Utc>>,
    /// The pack whose envelope this is.
    pub pack: &'static str,
}

/// `doc` as a recorded reply of a pack's vendor, if it is one.
pub fn reply(doc: &Value) -> Option<Reply> {
    let body = doc.get("response_raw").filter(|r| r.is_object()).unwrap_or(doc);
    let object = body.as_object()?;
    if !object.contains_key("code") || !object.contains_key("data") {
        return None;
    }
    if let Some(router) = object.get("router").and_then(Value::as_str).filter(|r| r.starts_with('/')) {
        let at = object.get("time_stamp").and_then(Value::as_i64).and_then(|s| Utc.timestamp_opt(s, 0).single());
        return Some(Reply { body: body.clone(), router: Some(router.to_owned()), at, pack: "tikhub" });
    }
    let record_time = object.get("recordTime").and_then(Value::as_str)?;
    let at = NaiveDateTime::parse_from_str(record_time, "%Y-%m-%dT%H:%M:%S%.f")
        .ok()
        .map(|t| shanghai_to_utc(t.date(), t.time()));
    Some(Reply { body: body.clone(), router: None, at, pack: "justoneapi" })
}

/// The words of a route or folder name, `api` and `get` left out.
fn route_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .filter(|w| w != "api" && w != "get")
        .collect()
}

impl VendorPack {
    fn load(pack: &'static packs::Pack) -> Result<VendorPack, String> {
        let file = packs::parse(pack).map_err(|e| format!("{e:#}"))?;
        let mut routes = Vec::new();
        for (key, mapping) in file.operations {
            let filter = match &mapping.store {
                Some(code) => {
                    Some(JqFilter::compile(code).map_err(|e| format!("pack {}: {key}: store: {e}", pack.name))?)
                }
                None => None,
            };
            routes.push((mapping.path, key, filter));
        }
        Ok(VendorPack { name: pack.name, routes })
    }

    /// The operations whose write-back covers `reply` (found at `path`), as
    /// (operation key, filter).
    ///
    /// # Errors
    /// Why none does: no mapping of the route, or mappings without a `store`
    /// filter (named).
    pub fn covering(&self, reply: &Reply, path: &Path) -> Result<Covering<'_>, String> {
        let folder = path.parent().and_then(|p| p.file_name()).and_then(|f| f.to_str()).unwrap_or_default();
        let route = reply.router.clone().unwrap_or_else(|| format!("(folder {folder})"));
        let mapped: Vec<&(String, String, Option<JqFilter>)> = self
            .routes
            .iter()
            .filter(|(p, _, _)| match &reply.router {
                Some(router) => p == router,
                None => !folder.is_empty() && route_words(p) == route_words(folder),
            })
            .collect();
        if mapped.is_empty() {
            return Err(format!("route {route}: no mapping of pack {} covers it", self.name));
        }
        let covering: Covering<'_> =
            mapped.iter().filter_map(|(_, key, f)| f.as_ref().map(|f| (key.as_str(), f))).collect();
        if covering.is_empty() {
            let keys: Vec<&str> = mapped.iter().map(|(_, key, _)| key.as_str()).collect();
            return Err(format!("route {route}: mapped by {} without a `store` filter", keys.join(", ")));
        }
        Ok(covering)
    }

    /// The reply at `path` and what covers it.
    ///
    /// # Errors
    /// Not a reply of this pack's vendor, or not covered ([`Self::covering`]).
    pub fn plan(&self, path: &Path) -> Result<(Reply, Covering<'_>), String> {
        let text = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
        let doc: Value = serde_json::from_slice(&text).map_err(|e| format!("not JSON: {e}"))?;
        let reply = reply(&doc).filter(|r| r.pack == self.name).ok_or_else(|| format!("not a {} reply", self.name))?;
        let covering = self.covering(&reply, path)?;
        Ok((reply, covering))
    }

    /// The records of a reply: every covering filter's output, snapshots
    /// stamped with the reply's time, each parsed by the JSONL schema.
    fn records(&self, path: &Path) -> Result<Vec<Result<Record, String>>, String> {
        let (reply, covering) = self.plan(path)?;
        let at = reply
            .at
            .or_else(|| std::fs::metadata(path).and_then(|m| m.modified()).ok().map(DateTime::<Utc>::from))
            .unwrap_or_else(Utc::now)
            .to_rfc3339();
        let mut out = Vec::new();
        for (key, filter) in covering {
            let values = match filter.run(&reply.body).map_err(|e| format!("{key}: store: {e}"))? {
                Value::Array(values) => values,
                Value::Null => Vec::new(),
                other => vec![other],
            };
            for mut value in values {
                if let Some(object) = value.as_object_mut()
                    && matches!(object.get("type").and_then(Value::as_str), Some("workSnapshot" | "accountSnapshot"))
                {
                    object.entry("capturedAt").or_insert_with(|| at.clone().into());
                }
                out.push(jsonl::parse_value(value).map_err(|e| format!("{key}: {e}")));
            }
        }
        Ok(out)
    }

    /// How many records `path` gives, for a progress bar (0 when it gives
    /// none or cannot be read).
    pub fn count_rows(&self, path: &Path) -> u64 {
        self.records(path).map_or(0, |r| r.len() as u64)
    }

    /// Imports one reply: each record a row (numbered from 1 in the filters'
    /// order). A file that is not a covered reply is refused whole (row 0).
    pub async fn import_file(&self, store: &dyn ContentStore, path: &Path, on_row: &mut dyn FnMut()) -> ImportReport {
        let mut writer = RowWriter::new(store, path, on_row);
        match self.records(path) {
            Ok(records) => {
                for (i, record) in records.into_iter().enumerate() {
                    writer.row(i as u64 + 1, record.map(|r| vec![r])).await;
                }
            }
            Err(reason) => writer.refuse_file(reason),
        }
        writer.finish().await
    }
}

static PACKS: LazyLock<Result<Vec<VendorPack>, String>> =
    LazyLock::new(|| packs::PACKS.iter().map(VendorPack::load).collect());

/// The pack called `name`, its write-back filters compiled.
///
/// # Errors
/// No such pack (the message lists them), or a pack that does not load.
pub fn pack(name: &str) -> Result<&'static VendorPack, String> {
    let packs = PACKS.as_ref().map_err(Clone::clone)?;
    packs.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = packs.iter().map(|p| p.name).collect();
        format!("no vendor pack is called {name:?} (one of {})", names.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_name_matches_a_path_by_its_words() {
        assert_eq!(route_words("xiaohongshu-user-note-list-v4"), route_words("/api/xiaohongshu/get-user-note-list/v4"));
        assert_ne!(route_words("xiaohongshu-search-note-v2"), route_words("/api/xiaohongshu/get-user-note-list/v4"));
    }

    #[test]
    fn envelopes_are_told_apart_and_dated_by_the_reply() {
        let tikhub = serde_json::json!({"code": 200, "router": "/api/v1/x", "time_stamp": 1770343530, "data": {}});
        let r = reply(&tikhub).unwrap();
        assert_eq!((r.pack, r.router.as_deref()), ("tikhub", Some("/api/v1/x")));
        assert_eq!(r.at.unwrap().to_rfc3339(), "2026-02-06T02:05:30+00:00");
        let wrapped = serde_json::json!({"request_params": {}, "response_raw": tikhub});
        assert_eq!(reply(&wrapped).unwrap().router.as_deref(), Some("/api/v1/x"));
        let joa =
            serde_json::json!({"code": 0, "data": {}, "message": null, "recordTime": "2025-12-09T17:13:13.298279721"});
        let r = reply(&joa).unwrap();
        assert_eq!(
            (r.pack, r.at.unwrap().to_rfc3339().as_str()),
            ("justoneapi", "2025-12-09T09:13:13.298279721+00:00")
        );
        assert!(reply(&serde_json::json!({"code": 0, "list": []})).is_none());
    }
}
