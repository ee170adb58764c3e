//! Hot-list parse throughput per source, in items per second, on the real
//! archive (`shared/data/hotlists/`). Run:
//! `cargo bench -p core-service --bench hotlists`.
//!
//! - live parser: `hotlists::parse::parse` on a reply in the endpoint's
//!   documented shape. Zhihu and Baidu use the archived files as they are
//!   (raw replies); for the other five, each archive file's records are
//!   re-wrapped into that source's reply shape (Weibo `data.realtime[]`,
//!   Douyin `data.word_list[]`, Bilibili `data.list[]`, Kuaishou an HTML
//!   page with `__APOLLO_STATE__`, Toutiao `data[]`), so the titles are real.
//! - archive reader: the `import hotlists` path up to the entries
//!   (`archive::read_snapshots` + `parse::finish`), without the store.
//!
//! Each figure repeats its whole file set for at least one second.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::Utc;
use mediaops_connectors::hotlists::Source;
use mediaops_connectors::hotlists::archive::{archive_files, date_of, read_snapshots, source_of};
use mediaops_connectors::hotlists::parse::{finish, parse};
use serde_json::{Value, json};

fn hotlists() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/hotlists")
}

/// Repeats `pass` (which returns the items it produced) for at least a
/// second; returns (items per pass, items per second, µs per pass).
fn measure(mut pass: impl FnMut() -> usize) -> (usize, f64, f64) {
    let items = pass();
    let (mut passes, mut total) = (0u64, 0usize);
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(1) || passes < 3 {
        total += pass();
        passes += 1;
    }
    let elapsed = start.elapsed().as_secs_f64();
    (items, total as f64 / elapsed, elapsed / passes as f64 * 1e6)
}

/// The records of one archive file as JSON values.
fn records(body: &str) -> Vec<Value> {
    match serde_json::from_str(body) {
        Ok(Value::Array(items)) => items,
        _ => Vec::new(),
    }
}

fn text<'a>(record: &'a Value, key: &str) -> &'a str {
    record.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn last_segment(url: &str) -> &str {
    url.rsplit('/').next().unwrap_or_default()
}

/// One archive file's records in `source`'s live reply shape.
fn live_reply(source: Source, body: &str) -> String {
    let records = records(body);
    let heat = |i: usize| 10_000_000 - i as i64 * 1_000;
    match source {
        Source::Weibo => {
            let realtime: Vec<Value> = records
                .iter()
                .enumerate()
                .map(|(i, r)| json!({"word": text(r, "title"), "num": r["hot"], "label_name": "热", "realpos": i + 1, "category": r["category"]}))
                .collect();
            json!({"ok": 1, "data": {"realtime": realtime}}).to_string()
        }
        Source::Douyin => {
            let words: Vec<Value> = records
                .iter()
                .enumerate()
                .map(|(i, r)| json!({"word": text(r, "title"), "hot_value": heat(i), "sentence_id": last_segment(text(r, "url")), "position": i + 1}))
                .collect();
            json!({"status_code": 0, "data": {"word_list": words}}).to_string()
        }
        Source::Bilibili => {
            let list: Vec<Value> = records
                .iter()
                .enumerate()
                .map(|(i, r)| json!({"bvid": last_segment(text(r, "url")), "title": text(r, "title"), "stat": {"view": heat(i), "like": 1000}, "owner": {"name": "up"}}))
                .collect();
            json!({"code": 0, "data": {"list": list}}).to_string()
        }
        Source::Kuaishou => {
            let mut client = serde_json::Map::new();
            let mut refs = Vec::new();
            for (i, r) in records.iter().enumerate() {
                let id = format!("VisionHotRankItem:{i}");
                refs.push(json!({"type": "id", "generated": false, "id": id, "typename": "VisionHotRankItem"}));
                let value = json!({"id": i.to_string(), "name": text(r, "title"), "hotValue": format!("{}.{}万", 900 - i % 900, i % 10),
                    "photoIds": {"type": "json", "json": [last_segment(text(r, "url"))]}});
                client.insert(id, value);
            }
            client.insert(r#"$ROOT_QUERY.visionHotRank({"page":"home"})"#.into(), json!({"items": refs}));
            format!(
                "<html><script>window.__APOLLO_STATE__={};(function(){{}}());</script></html>",
                json!({"defaultClient": client})
            )
        }
        Source::Toutiao => {
            let data: Vec<Value> = records
                .iter()
                .enumerate()
                .map(|(i, r)| json!({"Title": text(r, "Title"), "HotValue": heat(i).to_string(), "ClusterIdStr": (7_110_000_000_000_000_000u64 + i as u64).to_string()}))
                .collect();
            json!({"status": "success", "data": data}).to_string()
        }
        Source::Zhihu | Source::Baidu => body.to_owned(),
    }
}

fn main() {
    let files = archive_files(&hotlists()).expect("the shared hot-list archive");
    let loaded: Vec<(Source, PathBuf, String)> = files
        .into_iter()
        .filter_map(|path| Some((source_of(&path)?, std::fs::read_to_string(&path).ok()?, path)))
        .map(|(source, body, path)| (source, path, body))
        .collect();
    println!(
        "{:<10} {:>8} {:>7} {:>14} {:>12}   {:>7} {:>14}",
        "source", "files", "items", "live items/s", "µs/file", "items", "archive items/s"
    );
    for source in Source::ALL {
        let mine: Vec<&(Source, PathBuf, String)> = loaded.iter().filter(|(s, _, _)| *s == source).collect();
        let replies: Vec<String> = mine.iter().map(|(_, _, body)| live_reply(source, body)).collect();
        let at = Utc::now();
        let (live_items, live_rate, live_us) =
            measure(|| replies.iter().map(|reply| parse(source, reply, at).map_or(0, |p| p.entries.len())).sum());
        let (archive_items, archive_rate, _) = measure(|| {
            mine.iter()
                .map(|(_, path, body)| {
                    let Some(date) = date_of(path) else { return 0 };
                    read_snapshots(source, path, body, date).map_or(0, |snapshots| {
                        snapshots
                            .into_iter()
                            .map(|s| {
                                finish(source, s.captured_at, s.items.into_iter().map(|(_, i)| i).collect()).0.len()
                            })
                            .sum()
                    })
                })
                .sum()
        });
        println!(
            "{:<10} {:>8} {:>7} {:>14.0} {:>12.1}   {:>7} {:>14.0}",
            source.name(),
            mine.len(),
            live_items,
            live_rate,
            live_us / mine.len().max(1) as f64,
            archive_items,
            archive_rate
        );
    }
}
