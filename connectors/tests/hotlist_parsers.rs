//! The live-reply parsers on the real archived replies (shared data README:
//! the Zhihu and Baidu files are raw replies of the endpoints HOTLISTS.md
//! names): every record of every file becomes an entry, none is skipped.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::path::{Path, PathBuf};

use chrono::Utc;
use mediaops_connectors::hotlists::Source;
use mediaops_connectors::hotlists::parse::{Parsed, parse};

fn hotlists() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/hotlists")
}

fn files(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if keep(&path) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn parse_file(source: Source, path: &Path) -> Parsed {
    let body = std::fs::read_to_string(path).unwrap();
    parse(source, &body, Utc::now()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_zhihu_record_parses() {
    let files = files(&hotlists().join("zhihu"), |p| p.extension().is_some_and(|e| e == "json"));
    assert_eq!(files.len(), 21);
    let mut total = 0;
    for file in &files {
        let parsed = parse_file(Source::Zhihu, file);
        assert!(parsed.skipped.is_empty(), "{}: {:?}", file.display(), parsed.skipped);
        assert_eq!(parsed.entries.len(), 50, "{}", file.display());
        let ranks: Vec<i64> = parsed.entries.iter().map(|e| e.rank).collect();
        assert_eq!(ranks, (1..=50).collect::<Vec<_>>());
        for entry in &parsed.entries {
            assert!(entry.hot_value.is_some_and(|h| h > 0), "{}: {entry:?}", file.display());
            assert!(entry.url.as_deref().is_some_and(|u| u.starts_with("https://www.zhihu.com/question/")));
        }
        assert!(parsed.reported_at.is_some(), "the crawl time is in data[].id");
        total += parsed.entries.len();
    }
    assert_eq!(total, 1_050, "shared data README: 21 files × 50");

    let day = parse_file(Source::Zhihu, &hotlists().join("zhihu/hot-question-2024-06-10.json"));
    let first = &day.entries[0];
    assert_eq!(first.title, "法国政坛迎来地震，马克龙决定提前进行法国议会选举，如何解读马克龙此举？将带来哪些影响？");
    assert_eq!(first.hot_value, Some(9_240_000), "924 万热度");
    assert_eq!(first.url.as_deref(), Some("https://www.zhihu.com/question/658537407"));
    let extra = first.extra.as_ref().unwrap();
    assert_eq!(extra["answerCount"], 215);
    assert!(extra["excerpt"].as_str().unwrap().starts_with("当地时间周日（6 月 9 日）"));
    assert_eq!(day.entries[1].hot_value, Some(5_030_000), "503 万热度");
    assert_eq!(day.reported_at.unwrap().to_rfc3339(), "2024-06-10T15:10:03+00:00");
}

#[test]
fn every_baidu_record_parses_with_the_pinned_one() {
    let files = files(&hotlists().join("baidu"), |p| p.file_name().is_some_and(|n| n == "hot-search.json"));
    assert_eq!(files.len(), 21);
    let (mut ranked, mut pinned) = (0, 0);
    for file in &files {
        let parsed = parse_file(Source::Baidu, file);
        assert!(parsed.skipped.is_empty(), "{}: {:?}", file.display(), parsed.skipped);
        assert_eq!(parsed.entries.len(), 51, "{}: 50 ranked + 1 pinned", file.display());
        for (i, entry) in parsed.entries.iter().enumerate() {
            assert_eq!(entry.rank, i as i64 + 1);
            assert!(entry.hot_value.is_some_and(|h| h > 0), "{}: {entry:?}", file.display());
            assert!(entry.url.as_deref().is_some_and(|u| u.starts_with("https://www.baidu.com/s?wd=")));
            let is_pinned = entry.extra.as_ref().and_then(|x| x.get("pinned")).is_some();
            assert_eq!(is_pinned, i == 50, "{}: only the last entry is the pinned one", file.display());
            if is_pinned { pinned += 1 } else { ranked += 1 }
        }
    }
    assert_eq!((ranked, pinned), (1_050, 21), "shared data README: 1,050 (+21 pinned)");

    let day = parse_file(Source::Baidu, &hotlists().join("baidu/2024-06-01/hot-search.json"));
    let first = &day.entries[0];
    assert_eq!((first.title.as_str(), first.hot_value), ("美防长演讲一开口就提中国防长", Some(4_904_139)));
    assert_eq!(first.extra.as_ref().unwrap()["index"], 0);
    let top = &day.entries[50];
    assert_eq!((top.title.as_str(), top.hot_value, top.rank), ("总书记心中最温柔的牵挂", Some(4_950_560), 51));
    assert_eq!(day.reported_at.unwrap().to_rfc3339(), "2024-06-01T15:13:00+00:00");
}

#[test]
fn a_baidu_page_with_the_reply_in_its_comment_parses_the_same() {
    let body = std::fs::read_to_string(hotlists().join("baidu/2024-06-05/hot-search.json")).unwrap();
    let page =
        format!("<!DOCTYPE html><html><head></head><body><!--s-data:{body}--><div id=\"sanRoot\"></div></body></html>");
    let at = Utc::now();
    let from_page = parse(Source::Baidu, &page, at).unwrap();
    let from_reply = parse(Source::Baidu, &body, at).unwrap();
    assert_eq!(from_page, from_reply);
}
