//! Coverage, measured (docs/data-sources.md "Coverage"): everything under
//! `../shared/data` imported into a fresh store with `mediaops import auto`
//! (0 rows rejected, the files it skips each with a reason), then every
//! operation of the data-API catalog and every generic skill called over
//! REST with inputs taken from the imported data, under three clocks:
//!
//! - the real clock (a fresh machine today);
//! - `MEDIAOPS_NOW=2024-06-22`, the day after the hot-list archive;
//! - per platform, two days after its newest imported snapshot day (the
//!   data's own "today", past the daily rankings' two-day lag, so their
//!   default windows fall on it).
//!
//! The test prints one line per operation (answer under each clock: rows,
//! `0` = an empty success, or the HTTP status and error code) and the
//! totals; it fails on a 5xx, on a rejected row, and when a `store prune
//! --dry-run` after the import would remove anything. Row counts are
//! printed, not asserted: they grow as vendor mappings gain `store` filters.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use common::Service;
use mediaops_store::model::{WorkOrder, WorkQuery};
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
    /// The author's numeric uid when the platform has one (Douyin keys
    /// accounts by sec_uid), else its key.
    account_uid: String,
    /// A work of the platform with stored comments (from the comment files).
    commented_work: String,
    /// The platform's newest imported snapshot day (`YYYY-MM-DD`).
    data_day: Option<String>,
}

/// Each platform's newest imported snapshot day (crawls/README.md): the
/// Douyin reply of 2020-06-18, the Kuaishou CSV's newest video 2022-01-11,
/// the newest WeChat article 2022-05-30, the MediaCrawler exports of
/// 2025-05-20, the Xiaohongshu creator snapshots of 2025-11-17. The data
/// clock of a platform is two days later (the daily rankings' lag).
const DATA_DAY: &[(&str, &str)] = &[
    ("shortvideo", "2020-06-18"),
    ("clipapp", "2022-01-11"),
    ("articles", "2022-05-30"),
    ("videosite", "2025-05-20"),
    ("microblog", "2025-05-20"),
    ("lifestyle", "2025-11-17"),
];

/// `day` plus `days` days.
fn shift(day: &str, days: i64) -> String {
    (chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").unwrap() + chrono::Duration::days(days)).to_string()
}

/// The first row's value of `column` in a CSV of the shared data.
fn first_csv_value(path: &str, column: &str, pattern: &str) -> String {
    let text = std::fs::read_to_string(format!("{DATA}/{path}")).unwrap_or_default();
    let mut lines = text.trim_start_matches('\u{feff}').lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let at = header.iter().position(|h| *h == column).unwrap_or(0);
    let value = lines.next().unwrap_or_default().split(',').nth(at).unwrap_or_default();
    value.split(pattern).nth(1).map_or(value, |v| v.split('&').next().unwrap_or(v)).to_owned()
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
    ("trend", "高考"),
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
    let store = mediaops_store::open(None, dir).await.unwrap();
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
                sample.account_uid = account.account.ids.uid.clone().unwrap_or_else(|| sample.account.clone());
            }
        }
        sample.data_day = DATA_DAY.iter().find(|(p, _)| p == platform).map(|(_, d)| (*d).to_owned());
        sample.commented_work = match *platform {
            "articles" => first_csv_value("crawls/wechat-mp-csv/公众号连岳留言数据.csv", "文章链接", "sn="),
            "shortvideo" => {
                let reply =
                    std::fs::read_to_string(format!("{DATA}/crawls/douyin-web/douyin_comment_dataset__content.json"));
                let reply: Value = serde_json::from_str(&reply.unwrap_or_default()).unwrap_or_default();
                reply["comments"][0]["aweme_id"].as_str().unwrap_or_default().to_owned()
            }
            _ => sample.work.clone(),
        };
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
/// names), dates from the platform's data (its newest day; a required
/// window is the week ending on it), the platform `articles` where a name
/// is asked for,
/// other required select fields as their first example; the rest left to
/// the defaults.
fn request(op: &Operation, sample: &Sample, today: &str) -> Value {
    let mut body = serde_json::Map::new();
    let required: Vec<&str> =
        op.schema["required"].as_array().map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    // The platform's newest data day, else the clock's yesterday.
    let newest = sample.data_day.clone().unwrap_or_else(|| shift(today, -1));
    let day = |back: i64| shift(&newest, -back);
    let Some(properties) = op.schema["properties"].as_object() else { return Value::Object(body) };
    // Searches of accounts look for the name (its letters and digits);
    // feeds list their topic without a keyword; comment listings read a
    // work that has comments; similar accounts take a uid.
    let name: String = sample.account_name.chars().filter(|c| c.is_alphanumeric()).collect();
    let keyword = if op.key.contains("search-user") && !name.is_empty() { &name } else { &sample.keyword };
    let work = if op.key.contains("comments") { &sample.commented_work } else { &sample.work };
    let account = if op.key.contains("similar") { &sample.account_uid } else { &sample.account };
    for (name, schema) in properties {
        if op.key.contains("feed") && !required.contains(&name.as_str()) {
            continue;
        }
        let lower = name.to_ascii_lowercase();
        let is_array = schema["type"] == "array";
        let text = |v: &str| if is_array { json!([v]) } else { json!(v) };
        let pattern = schema["pattern"].as_str().or_else(|| schema["items"]["pattern"].as_str()).unwrap_or_default();
        let date = |back: i64| if pattern.contains("\\d{2}:") { format!("{} 00:00:00", day(back)) } else { day(back) };
        let value = if ["keyword", "keywords", "query", "q", "word", "topic", "text"].contains(&lower.as_str()) {
            Some(text(keyword))
        } else if lower == "platform" && schema["type"] == "string" {
            Some(text("articles"))
        } else if ["date", "rankdate"].contains(&lower.as_str()) {
            Some(text(&date(0)))
        } else if lower.starts_with("start") && required.contains(&name.as_str()) {
            Some(text(&date(6)))
        } else if lower.starts_with("end") && required.contains(&name.as_str()) {
            Some(text(&date(0)))
        } else if lower.contains("name") || lower == "nickname" {
            Some(text(&sample.account_name))
        } else if lower.contains("url") || lower.contains("link") || lower.contains("share") {
            Some(text(&sample.work_url))
        } else if [
            "note", "work", "aweme", "bv", "video", "photo", "object", "item", "article", "uuid", "content", "post",
        ]
        .iter()
        .any(|w| lower.contains(w))
            && (lower.ends_with("id") || lower.ends_with("uuid"))
        {
            Some(text(work))
        } else if lower == "account"
            || (["account", "user", "uid", "mid", "sec", "red", "kwai", "unique", "author", "creator"]
                .iter()
                .any(|w| lower.contains(w))
                && (lower.ends_with("id") || lower.ends_with("ids") || lower == "uid" || lower == "mid"))
        {
            Some(text(account))
        } else if !required.contains(&name.as_str()) {
            None
        } else if pattern.contains("\\d{4}") || lower.contains("date") || lower.contains("time") {
            Some(text(&date(0)))
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

/// One call's outcome: rows, or `<status> <code>`; and what the answer
/// says about itself (its error message or first warning).
async fn call(service: &Service, op: &Operation, body: &Value) -> (Result<usize, String>, String) {
    let (status, answer) = service.post(&op.path, body.clone()).await;
    assert!(status < 500 || status == 503, "{} {body}: {status} {answer}", op.key);
    let note = answer["error"]["message"].as_str().or(answer["warnings"][0].as_str()).unwrap_or_default();
    let note: String = note.chars().take(140).collect();
    if status == 200 && answer["success"] == true {
        (Ok(rows(&answer["data"])), note)
    } else {
        (Err(format!("{status} {}", answer["error"]["code"].as_str().unwrap_or("?"))), format!("{body}: {note}"))
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
    let markdown =
        report["skipped"].as_array().unwrap().iter().filter(|s| s["file"].as_str().unwrap().ends_with(".md"));
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
    let mut notes: BTreeMap<String, String> = BTreeMap::new();
    let mut dir = dir;
    let mut clocks: Vec<(String, Option<String>)> =
        vec![("real".into(), None), ("2024-06-22".into(), Some("2024-06-22".into()))];
    let data_days: std::collections::BTreeSet<String> =
        samples.values().filter_map(|s| s.data_day.as_deref().map(|d| shift(d, 2))).collect();
    clocks.extend(data_days.into_iter().map(|d| (format!("data {d}"), Some(d))));
    for (index, (label, now)) in clocks.iter().enumerate() {
        let service = start(dir, now.clone()).await;
        let ops = operations(&service).await;
        let day = now.clone().unwrap_or_else(|| today.clone());
        for op in &ops {
            let platform = platform_of(&op.key);
            let sample = &samples[platform];
            // A data clock is for the platforms whose newest day it follows.
            if index >= 2 && sample.data_day.as_deref().map(|d| shift(d, 2)) != *now {
                table.entry(op.key.clone()).or_default().push(Err("-".into()));
                continue;
            }
            let (outcome, note) = call(&service, op, &request(op, sample, &day)).await;
            if !matches!(outcome, Ok(n) if n > 0) && !note.is_empty() {
                notes.entry(op.key.clone()).or_insert(format!("{label}: {note}"));
            }
            table.entry(op.key.clone()).or_default().push(outcome);
        }
        println!("clock {label}: {} operations called", ops.len());
        let Service { running, data_dir, .. } = service;
        running.shutdown().await.unwrap();
        dir = data_dir;
    }

    let mut real_or_archive = 0;
    let mut any = 0;
    println!("operation | real | 2024-06-22 | data clock | note");
    for (key, outcomes) in &table {
        let show = |o: &Result<usize, String>| match o {
            Ok(n) => n.to_string(),
            Err(e) => e.clone(),
        };
        let data_clock =
            outcomes[2..].iter().find(|o| !matches!(o, Err(e) if e == "-")).map(show).unwrap_or("-".into());
        let note = notes.get(key).map(String::as_str).unwrap_or_default();
        println!("{key} | {} | {} | {data_clock} | {note}", show(&outcomes[0]), show(&outcomes[1]));
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

/// The report of `mediaops import <args>` into `dir` (exit status checked).
fn import(dir: &Path, args: &[&str], status: i32) -> Value {
    let mut all = vec!["import"];
    all.extend_from_slice(args);
    let (code, out, err) = run(dir, &all);
    assert_eq!(code, Some(status), "{out}\n{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"))
}

/// Recorded vendor replies go through the pack's `store` filters: Just One
/// API's note lists (matched by their folder's name) are written, their
/// snapshots dated at the reply's `recordTime`; every TikHub reply is either
/// written or listed with the reason no mapping writes it back.
#[tokio::test]
async fn vendor_replies_are_written_through_the_packs_store_filters() {
    let replies = format!("{DATA}/vendor-replies");
    if !Path::new(&replies).is_dir() {
        eprintln!("SKIPPED: {replies} is not there");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let joa = import(dir.path(), &["vendor-replies", "--pack", "justoneapi", &format!("{replies}/justoneapi")], 0);
    assert_eq!((joa["files"].as_u64(), joa["rejected"].as_u64()), (Some(2), Some(0)), "{joa}");
    assert_eq!(joa["skipped"], json!([]));
    let store = mediaops_store::open(None, dir.path()).await.unwrap();
    let first = format!(
        "{replies}/justoneapi/xiaohongshu-user-note-list-v4/user_note_list_v4_599534e26a6a694603f84a90_20251209_171314.json"
    );
    let reply: Value = serde_json::from_str(&std::fs::read_to_string(first).unwrap()).unwrap();
    let note = &reply["data"]["notes"][0];
    let id = note["note_id"].as_str().or(note["id"].as_str()).unwrap();
    let work = store.get_work("lifestyle", id).await.unwrap().expect("the note is stored");
    let latest = work.latest.expect("with its counters");
    assert_eq!(latest.captured_at.to_rfc3339(), "2025-12-09T09:13:13.298279721+00:00", "recordTime, Shanghai");

    let (code, out, err) =
        run(dir.path(), &["import", "vendor-replies", "--pack", "tikhub", &format!("{replies}/tikhub")]);
    let tikhub: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    let files = tikhub["files"].as_u64().unwrap() as usize;
    let skipped = tikhub["skipped"].as_array().unwrap();
    assert_eq!(files + skipped.len(), 13, "every recorded TikHub reply is imported or listed: {tikhub}");
    assert_eq!(code, Some(if tikhub["written"].as_u64() > Some(0) { 0 } else { 1 }), "{err}");
    for s in skipped {
        let reason = s["reason"].as_str().unwrap();
        assert!(reason.contains("no mapping of pack tikhub") || reason.contains("without a `store` filter"), "{s}");
    }
    println!("tikhub: {files} replies written ({} rows), {} listed", tikhub["written"], skipped.len());

    // A pack that does not exist, and a pack given to another format.
    let (code, _, err) = run(dir.path(), &["import", "vendor-replies", "--pack", "nope", &replies]);
    assert_eq!(code, Some(1));
    assert!(err.contains("no vendor pack is called \"nope\" (one of tikhub, justoneapi)"), "{err}");
    let (code, _, err) = run(dir.path(), &["import", "jsonl", "--pack", "tikhub", &replies]);
    assert_eq!(code, Some(1));
    assert!(err.contains("--pack is required by the vendor-replies format and only by it"), "{err}");
}

/// A recipe named on the command line reads the real files: the WeChat
/// article list's account comes from the file name, each article is keyed by
/// its link's `sn`, and its counters are dated at the end of the file's
/// newest article day; a Markdown file is no known format.
#[tokio::test]
async fn recipes_read_the_real_crawls() {
    let csv = format!("{DATA}/crawls/wechat-mp-csv/公众号差评历史文章列表.csv");
    if !Path::new(&csv).is_file() {
        eprintln!("SKIPPED: {csv} is not there");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let report = import(dir.path(), &["wechat-articles", &csv], 0);
    assert_eq!((report["read"].as_u64(), report["rejected"].as_u64()), (Some(598), Some(0)), "{report}");
    let store = mediaops_store::open(None, dir.path()).await.unwrap();
    // The file's first row: 2022-04-16, 53059 reads, 67 在看, 249 likes, 28 comments.
    let work = store.get_work("articles", "4c643952862f3be49d23d4866a4930dd").await.unwrap().unwrap();
    let latest = work.latest.unwrap();
    assert_eq!(
        (latest.views, latest.watch, latest.likes, latest.comments),
        (Some(53059), Some(67), Some(249), Some(28))
    );
    assert_eq!(latest.captured_at.to_rfc3339(), "2022-04-16T15:59:59+00:00", "the newest 文章日期, 23:59:59 Shanghai");
    let author = work.work.author_id.unwrap();
    assert_eq!(store.get_account("articles", &author).await.unwrap().unwrap().account.nickname, "差评");

    let markdown = format!("{DATA}/markdown");
    let (code, _, err) = run(dir.path(), &["import", "auto", &markdown]);
    assert_eq!(code, Some(1));
    assert!(err.contains("no file of a known format found"), "{err}");
}
