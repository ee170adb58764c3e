//! Coverage, measured (docs/data-sources.md "Coverage"): everything under
//! `../shared/data` imported into a fresh store with `mediaops import auto`
//! (0 rows rejected, the files it skips each with a reason), then every
//! operation of the data-API catalog and every generic skill called over
//! REST with inputs taken from the imported data, under three clocks:
//!
//! - the real clock (a fresh machine today);
//! - `MEDIAOPS_NOW=2024-06-22`, the day after the hot-list archive;
//! - per platform, the day after its newest imported snapshot (the data's
//!   own "today", so the rankings' default windows fall on it).
//!
//! The test prints one line per operation (answer under each clock: rows,
//! `0` = an empty success, or the HTTP status and error code) and the
//! totals; it fails on a 5xx, on a rejected row, and when a `store prune
//! --dry-run` after the import would remove anything. Row counts are
//! printed, not asserted: they grow as vendor mappings gain `store` filters.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use common::Service;
use core_service::store::model::{WorkOrder, WorkQuery};
use serde_json::{Value, json};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data");

/// A platform's sample inputs, found in the imported data: a keyword of the
/// data, the most liked work matching it, its author and the author's name.
#[derive(Debug, Clone, Default)]
struct Sample {
    keyword: String,
    work: String,
    work_url: String,
    account: String,
    account_name: String,
    /// The day after the platform's newest snapshot (`YYYY-MM-DD`).
    data_today: Option<String>,
}

/// Keywords that occur in each platform's imported data (crawls/README.md
/// and vendor-replies/README.md: the searches the crawls were made for).
const KEYWORDS: &[(&str, &str)] = &[
    ("lifestyle", "哪吒"),
    ("shortvideo", "外卖"),
    ("articles", "马斯克"),
    ("videosite", "领克"),
    ("microblog", "领克"),
    ("clipapp", "王者荣耀"),
    ("channels", "陈皮"),
    ("intlshort", "cat"),
];

fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_mediaops"))
        .args(args)
        .env("MEDIAOPS_DATA_DIR", dir)
        .env_remove("MEDIAOPS_DATABASE_URL")
        .env_remove("MEDIAOPS_NOW")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("mediaops runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (output.status.code(), text(&output.stdout), text(&output.stderr))
}

async fn samples(dir: &Path) -> BTreeMap<String, Sample> {
    let store = core_service::store::open(None, dir).await.unwrap();
    let mut out = BTreeMap::new();
    for (platform, keyword) in KEYWORDS {
        let mut sample = Sample { keyword: (*keyword).into(), ..Sample::default() };
        let query = WorkQuery {
            platform: (*platform).into(),
            text: Some((*keyword).into()),
            order: WorkOrder::Likes,
            page: 1,
            page_size: 1,
            ..WorkQuery::default()
        };
        if let Some(work) = store.find_works(&query).await.unwrap().items.into_iter().next() {
            sample.work = work.work.platform_id.clone();
            sample.work_url = work.work.url.clone().unwrap_or_default();
            sample.account = work.work.author_id.clone().unwrap_or_default();
            if let Some(account) = store.get_account(platform, &sample.account).await.unwrap() {
                sample.account_name = account.account.nickname.clone();
            }
            sample.data_today = work
                .latest
                .as_ref()
                .map(|s| (s.captured_at + chrono::Duration::hours(8) + chrono::Duration::days(1)).format("%Y-%m-%d").to_string());
        }
        out.insert((*platform).to_owned(), sample);
    }
    out
}

/// An operation of a catalog: key, path, request schema.
struct Operation {
    key: String,
    path: String,
    schema: Value,
}

async fn operations(service: &Service) -> Vec<Operation> {
    let mut out = Vec::new();
    let (status, apis) = service.get("/api/apis").await;
    assert_eq!(status, 200, "{apis}");
    for e in apis["data"]["items"].as_array().unwrap() {
        out.push(Operation {
            key: e["operationKey"].as_str().unwrap().to_owned(),
            path: e["path"].as_str().unwrap().to_owned(),
            schema: e["requestSchema"].clone(),
        });
    }
    let (status, skills) = service.get("/api/skills").await;
    assert_eq!(status, 200, "{skills}");
    for e in skills["data"]["items"].as_array().unwrap() {
        if e["execution"]["mode"] != "generic" {
            continue;
        }
        out.push(Operation {
            key: format!("skills.{}", e["slug"].as_str().unwrap()),
            path: e["execution"]["target"]["path"].as_str().unwrap().to_owned(),
            schema: e["inputSchema"].clone(),
        });
    }
    out
}

/// The platform an operation reads (its key's first word, or the skill's
/// platform word).
fn platform_of(key: &str) -> &'static str {
    for (platform, _) in KEYWORDS {
        if key.starts_with(&format!("{platform}.")) || key.contains(&format!(".{platform}-")) {
            return platform;
        }
    }
    if key.contains("articles") || key.contains("article") {
        return "articles";
    }
    if key.contains("lifestyle") {
        return "lifestyle";
    }
    if key.contains("channels") {
        return "channels";
    }
    "shortvideo"
}

/// A request for `op` from the platform's sample: every property the
/// schema names that the sample can fill (keywords, work and account ids,
/// names), dates as `today` − 1 where the schema requires one, select
/// fields as their first example; the rest left to the defaults.
fn request(op: &Operation, sample: &Sample, today: &str) -> Value {
    let mut body = serde_json::Map::new();
    let required: Vec<&str> =
        op.schema["required"].as_array().map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let yesterday = chrono::NaiveDate::parse_from_str(today, "%Y-%m-%d").unwrap() - chrono::Days::new(1);
    let Some(properties) = op.schema["properties"].as_object() else { return Value::Object(body) };
    for (name, schema) in properties {
        let lower = name.to_ascii_lowercase();
        let is_array = schema["type"] == "array";
        let text = |v: &str| if is_array { json!([v]) } else { json!(v) };
        let pattern = schema["pattern"].as_str().or_else(|| schema["items"]["pattern"].as_str()).unwrap_or_default();
        let value = if ["keyword", "keywords", "query", "q", "word", "topic", "text"].contains(&lower.as_str()) {
            Some(text(&sample.keyword))
        } else if lower.contains("name") || lower == "nickname" {
            Some(text(&sample.account_name))
        } else if lower.contains("url") || lower.contains("link") || lower.contains("share") {
            Some(text(&sample.work_url))
        } else if ["note", "work", "aweme", "bv", "video", "photo", "object", "item", "article", "uuid", "content", "post"]
            .iter()
            .any(|w| lower.contains(w))
            && (lower.ends_with("id") || lower.ends_with("uuid"))
        {
            Some(text(&sample.work))
        } else if lower == "account"
            || (["account", "user", "uid", "mid", "sec", "red", "kwai", "unique", "author", "creator"]
                .iter()
                .any(|w| lower.contains(w))
                && (lower.ends_with("id") || lower.ends_with("ids") || lower == "uid" || lower == "mid"))
        {
            Some(text(&sample.account))
        } else if !required.contains(&name.as_str()) {
            None
        } else if pattern.contains("\\d{2}:") {
            Some(text(&format!("{yesterday} 00:00:00")))
        } else if pattern.contains("\\d{4}") || lower.contains("date") || lower.contains("time") {
            Some(text(&yesterday.to_string()))
        } else if let Some(example) = schema["examples"].as_array().and_then(|e| e.first()) {
            Some(if is_array { json!([example]) } else { example.clone() })
        } else if schema["type"] == "string" {
            Some(text(&sample.keyword))
        } else {
            None
        };
        if let Some(value) = value {
            body.insert(name.clone(), value);
        }
    }
    Value::Object(body)
}

/// Rows in an answer: the elements of its non-empty lists; a lookup with
/// no list (`item`, `account`) and some known value counts as one.
fn rows(data: &Value) -> usize {
    fn lists(v: &Value, found: &mut bool) -> usize {
        match v {
            Value::Array(a) => {
                *found = true;
                a.len().max(a.iter().map(|x| lists(x, &mut false)).sum::<usize>().min(a.len()))
            }
            Value::Object(o) => o.values().map(|x| lists(x, found)).sum(),
            _ => 0,
        }
    }
    fn known(v: &Value) -> bool {
        match v {
            Value::Object(o) => o.values().any(known),
            Value::String(s) => !s.is_empty(),
            Value::Number(n) => n.as_f64() != Some(0.0),
            Value::Bool(b) => *b,
            _ => false,
        }
    }
    let mut found = false;
    let n = lists(data, &mut found);
    let item_list = data.as_object().is_some_and(|o| o.iter().any(|(k, v)| v.is_array() && k.ends_with("items")));
    if n > 0 || item_list || (found && !known(data)) { n } else { usize::from(known(data)) }
}

/// One call's outcome: rows, or `<status> <code>`.
async fn call(service: &Service, op: &Operation, body: &Value) -> Result<usize, String> {
    let (status, answer) = service.post(&op.path, body.clone()).await;
    assert!(status < 500 || status == 503, "{} {body}: {status} {answer}", op.key);
    if status == 200 && answer["success"] == true {
        Ok(rows(&answer["data"]))
    } else {
        Err(format!("{status} {}", answer["error"]["code"].as_str().unwrap_or("?")))
    }
}

async fn start(dir: tempfile::TempDir, now: Option<String>) -> Service {
    Service::start_with(dir, move |core| {
        core.now = now;
        core.boards_interval_secs = 0;
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn every_operation_answers_from_the_imported_data() {
    if !Path::new(DATA).is_dir() {
        eprintln!("SKIPPED: {DATA} is not there");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = run(dir.path(), &["import", "auto", DATA]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["rejected"], 0, "every row is imported: {}", report["rejections"]);
    println!("import auto: {} files, {} rows read, {} written", report["files"], report["read"], report["written"]);
    for (format, figures) in report["formats"].as_object().unwrap() {
        println!("  {format}: {} files, {} rows written", figures["files"], figures["written"]);
    }
    for skipped in report["skipped"].as_array().unwrap() {
        println!("  skipped {}: {}", skipped["file"], skipped["reason"]);
    }
    let markdown = report["skipped"].as_array().unwrap().iter().filter(|s| s["file"].as_str().unwrap().ends_with(".md"));
    assert!(markdown.count() >= 14, "the Markdown folder is listed as not data: {}", report["skipped"]);

    // Imported history survives the retention: nothing to prune today.
    let (code, out, err) = run(dir.path(), &["store", "prune", "--dry-run"]);
    assert_eq!(code, Some(0), "{err}");
    let prune: Value = serde_json::from_str(&out).unwrap();
    for field in ["workSnapshots", "accountSnapshots", "workDays", "accountDays"] {
        assert_eq!(prune[field], 0, "{field}: {prune}");
    }

    let samples = samples(dir.path()).await;
    for (platform, sample) in &samples {
        println!("sample {platform}: {sample:?}");
    }
    let today = (chrono::Utc::now() + chrono::Duration::hours(8)).format("%Y-%m-%d").to_string();
    let mut table: BTreeMap<String, Vec<Result<usize, String>>> = BTreeMap::new();
    let mut dir = dir;
    let mut clocks: Vec<(String, Option<String>)> = vec![("real".into(), None), ("2024-06-22".into(), Some("2024-06-22".into()))];
    let data_days: std::collections::BTreeSet<String> = samples.values().filter_map(|s| s.data_today.clone()).collect();
    clocks.extend(data_days.into_iter().map(|d| (format!("data {d}"), Some(d))));
    for (index, (label, now)) in clocks.iter().enumerate() {
        let service = start(dir, now.clone()).await;
        let ops = operations(&service).await;
        let day = now.clone().unwrap_or_else(|| today.clone());
        for op in &ops {
            let platform = platform_of(&op.key);
            let sample = &samples[platform];
            // A data clock is for the platforms whose newest day it follows.
            if index >= 2 && sample.data_today.as_ref() != now.as_ref() {
                table.entry(op.key.clone()).or_default().push(Err("-".into()));
                continue;
            }
            let outcome = call(&service, op, &request(op, sample, &day)).await;
            table.entry(op.key.clone()).or_default().push(outcome);
        }
        println!("clock {label}: {} operations called", ops.len());
        let Service { running, data_dir, .. } = service;
        running.shutdown().await.unwrap();
        dir = data_dir;
    }

    let mut real_or_archive = 0;
    let mut any = 0;
    println!("operation | real | 2024-06-22 | data clock");
    for (key, outcomes) in &table {
        let show = |o: &Result<usize, String>| match o {
            Ok(n) => n.to_string(),
            Err(e) => e.clone(),
        };
        let data_clock = outcomes[2..].iter().find(|o| !matches!(o, Err(e) if e == "-")).map(show).unwrap_or("-".into());
        println!("{key} | {} | {} | {data_clock}", show(&outcomes[0]), show(&outcomes[1]));
        let answers = |o: &Result<usize, String>| matches!(o, Ok(n) if *n > 0);
        real_or_archive += usize::from(answers(&outcomes[0]) || answers(&outcomes[1]));
        any += usize::from(outcomes.iter().any(answers));
    }
    println!(
        "answering rows: {real_or_archive} of {} on the real clock or 2024-06-22; {any} with the data clocks too",
        table.len()
    );
    assert!(real_or_archive > 0);
}
