//! `mediacrawler` import of fixture files in MediaCrawler's real layout
//! (`tests/fixtures/mediacrawler/<platform>/<json|jsonl|csv>/…`, written as
//! its `tools/async_file_writer.py` writes them, columns as its
//! `store/<platform>/__init__.py` names them) into both stores: every
//! value lands where docs/store.md says, counts such as `1.2万` are parsed,
//! the two corrupt rows are reported and the rest imported, and a second
//! import changes nothing.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use mediaops_store::ContentStore;
use mediaops_store::import::{Format, ImportReport, bilibili_popular, collect_files, mediacrawler};
use mediaops_store::model::{AccountIds, Counts};
use mediaops_store::sqlite::SqliteStore;

const FORMAT: Format = Format::Mediacrawler(mediacrawler::Hint { platform: None, kind: None });

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mediacrawler")
}

async fn import_all(store: &dyn ContentStore) -> ImportReport {
    let files = collect_files(&[fixtures()], FORMAT.extensions()).unwrap();
    let mut report = ImportReport::default();
    let mut progress = 0;
    for file in &files {
        report.merge(FORMAT.import_file(store, file, &mut || progress += 1).await);
    }
    assert_eq!(progress, report.read, "progress is reported once per row");
    report
}

fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap()
}

/// 2 + 2 + 2 + 1 + 1 works (one kuaishou row is corrupt), one snapshot
/// each; authors of every content row (8 distinct), creators' snapshots
/// (xhs, douyin, bilibili, weibo); 3 + 1 + 1 + 2 comments.
const EXPECTED: Counts =
    Counts { accounts: 8, account_snapshots: 4, works: 8, work_snapshots: 8, comments: 7, hot_list_entries: 0 };

async fn check(store: &dyn ContentStore) {
    let first = import_all(store).await;
    assert_eq!((first.files, first.read, first.written), (13, 21, 19), "{:#?}", first.rejected);
    let rejected: Vec<(String, u64, &str)> = first
        .rejected
        .iter()
        .map(|r| (Path::new(&r.file).file_name().unwrap().to_string_lossy().into_owned(), r.row, r.reason.as_str()))
        .collect();
    assert_eq!(rejected.len(), 2, "{rejected:?}");
    assert_eq!((rejected[0].0.as_str(), rejected[0].1), ("search_contents_2024-06-01.jsonl", 2));
    assert!(rejected[0].2.starts_with("not JSON"), "{}", rejected[0].2);
    assert_eq!((rejected[1].0.as_str(), rejected[1].1), ("search_contents_2024-06-01.csv", 3), "CSV line 3");
    assert_eq!(rejected[1].2, r#"liked_count: "lots" is not a count"#);
    assert_eq!(store.counts().await.unwrap(), EXPECTED);

    let june_1 = utc(2024, 6, 1, 0, 0, 0);
    check_xhs(store, june_1).await;
    check_douyin(store).await;
    check_kuaishou(store).await;
    check_bilibili(store).await;
    check_weibo(store).await;

    let second = import_all(store).await;
    assert_eq!((second.read, second.written, second.rejected.len()), (21, 19, 2));
    assert_eq!(store.counts().await.unwrap(), EXPECTED, "re-import updates, never duplicates");
}

async fn check_xhs(store: &dyn ContentStore, june_1: DateTime<Utc>) {
    let note = store.get_work("lifestyle", "6650a1b2000000001e0123ab").await.unwrap().unwrap();
    let w = &note.work;
    assert_eq!(w.title, "上海周末探店｜藏在弄堂里的咖啡馆");
    assert_eq!(w.description.as_deref(), Some("周末去了武康路附近的小店，手冲很稳。#上海咖啡[话题]#"));
    assert_eq!(w.ids.note_id.as_deref(), Some("6650a1b2000000001e0123ab"));
    assert_eq!(w.author_id.as_deref(), Some("5ff0e6a1000000000101d2c3"));
    assert_eq!(w.published_at, Some(utc(2024, 5, 30, 4, 0, 0)), "time is epoch milliseconds");
    assert_eq!(w.work_type.as_deref(), Some("note"));
    assert_eq!(w.cover.as_deref(), Some("http://sns-webpic-qc.xhscdn.com/202405/n1_1.jpg"), "first of image_list");
    assert_eq!(w.tags, ["上海咖啡", "探店"]);
    assert!(
        w.url
            .as_deref()
            .unwrap()
            .starts_with("https://www.xiaohongshu.com/explore/6650a1b2000000001e0123ab?xsec_token=")
    );
    let latest = note.latest.as_ref().unwrap();
    assert_eq!(latest.captured_at, june_1, "captured at last_modify_ts");
    assert_eq!(
        (latest.likes, latest.collects, latest.comments, latest.shares),
        (Some(12_000), Some(3456), Some(892), Some(120))
    );
    let author = note.author.as_ref().unwrap();
    assert_eq!((author.nickname.as_str(), author.fans), ("阿离的日常", Some(34_000)), "linked to the creator row");

    let video = store.get_work("lifestyle", "6650a1b2000000001e0123ac").await.unwrap().unwrap();
    assert_eq!(video.work.work_type.as_deref(), Some("video"));
    assert_eq!(video.work.video_url.as_deref(), Some("http://sns-video-bd.xhscdn.com/stream/110/258/n2.mp4"));
    let latest = video.latest.unwrap();
    assert_eq!(
        (latest.likes, latest.collects, latest.shares),
        (Some(100_000), Some(23_000), Some(9999)),
        "10万+, 2.3万"
    );

    let creator = store.get_account("lifestyle", "5ff0e6a1000000000101d2c3").await.unwrap().unwrap();
    let a = &creator.account;
    assert_eq!((a.fans, a.following, a.likes), (Some(34_000), Some(156), Some(125_000)));
    assert_eq!(a.signature.as_deref(), Some("记录上海生活 | 咖啡探店"));
    assert_eq!(a.region.as_deref(), Some("上海"));
    assert_eq!(creator.latest.unwrap().fans, Some(34_000));

    let comments = store.list_comments("lifestyle", "6650a1b2000000001e0123ab", 1, 20).await.unwrap();
    assert_eq!(comments.total, 3);
    let top = &comments.items[0];
    assert_eq!((top.text.as_str(), top.likes), ("拍得真好,\n求机位", Some(11_000)), "quoted CSV field, 1.1万");
    let reply = comments.items.iter().find(|c| c.platform_id == "665100aa000000000301a002").unwrap();
    assert_eq!(reply.parent_id.as_deref(), Some("665100aa000000000301a001"));
    assert_eq!(reply.author_id.as_deref(), Some("5ff0e6a1000000000101d2c3"));
    assert_eq!(reply.published_at, Some(utc(2024, 5, 30, 7, 20, 0)));
    let root = comments.items.iter().find(|c| c.platform_id == "665100aa000000000301a001").unwrap();
    assert_eq!((root.parent_id.as_deref(), root.author_name.as_deref()), (None, Some("小王")), "parent 0 = none");
}

async fn check_douyin(store: &dyn ContentStore) {
    let got = store.get_work("shortvideo", "7375123456789012345").await.unwrap().unwrap();
    assert_eq!(got.work.title, "夏天的第一杯柠檬茶 #夏日饮品");
    assert_eq!(got.work.description, None, "desc equal to the title is not repeated");
    assert_eq!(got.work.author_id.as_deref(), Some("MS4wLjABAAAAlemonTeaDiary01"), "accounts keyed by sec_uid");
    assert_eq!(got.work.published_at, Some(utc(2024, 5, 30, 5, 0, 0)), "create_time is epoch seconds");
    assert_eq!(got.work.ids.video_id.as_deref(), Some("7375123456789012345"));
    assert_eq!(got.latest.unwrap().likes, Some(15_234));
    assert_eq!(got.author.unwrap().fans, Some(345_678));

    for id in ["MS4wLjABAAAAlemonTeaDiary01", "98765432101", "lemon_tea_diary"] {
        let account = store.get_account("shortvideo", id).await.unwrap().unwrap();
        let a = &account.account;
        assert_eq!(a.platform_id, "MS4wLjABAAAAlemonTeaDiary01", "found by {id}");
        assert_eq!((a.fans, a.likes, a.works, a.following), (Some(345_678), Some(2_345_678), Some(321), Some(12)));
        assert_eq!(a.signature.as_deref(), Some("每天一杯"));
    }

    let note = store.get_work("shortvideo", "7375123456789012399").await.unwrap().unwrap();
    assert_eq!(note.work.work_type.as_deref(), Some("note"), "aweme_type 68");
    let latest = note.latest.unwrap();
    assert_eq!((latest.likes, latest.comments, latest.shares), (None, Some(0), Some(7)), "\"None\" is unknown, not 0");
    assert!(store.get_work("shortvideo", "7375123456789012346").await.unwrap().is_none(), "the corrupt line");
}

async fn check_kuaishou(store: &dyn ContentStore) {
    let got = store.get_work("clipapp", "3xk2abcd5efgh6i").await.unwrap().unwrap();
    assert_eq!(got.work.ids.photo_id.as_deref(), Some("3xk2abcd5efgh6i"));
    assert_eq!(got.work.published_at, Some(utc(2024, 5, 30, 7, 0, 0)));
    assert_eq!(got.work.cover.as_deref(), Some("https://p2.a.yximgs.com/upic/3xk2abcd5efgh6i.jpg"));
    assert_eq!(got.work.video_url.as_deref(), Some("https://v2.kwaicdn.com/upic/3xk2abcd5efgh6i.mp4"));
    let latest = got.latest.unwrap();
    assert_eq!((latest.likes, latest.views), (Some(21_034), Some(215_000)));
    let other = store.get_work("clipapp", "3xk2abcd5efgh8k").await.unwrap().unwrap();
    assert_eq!(other.latest.unwrap().views, Some(12_000), "1.2w");
    assert!(store.get_work("clipapp", "3xk2abcd5efgh7j").await.unwrap().is_none(), "the corrupt row");
    let comments = store.list_comments("clipapp", "3xk2abcd5efgh6i", 1, 20).await.unwrap();
    assert_eq!(comments.total, 1);
    assert_eq!((comments.items[0].text.as_str(), comments.items[0].likes), ("看饿了", None));
}

async fn check_bilibili(store: &dyn ContentStore) {
    let got = store.get_work("videosite", "BV1cM41197ui").await.unwrap().unwrap();
    assert_eq!(got.work.ids.work_id.as_deref(), Some("535243818"), "aid kept beside the bvid");
    assert_eq!(got.work.published_at, Some(Utc.timestamp_opt(1698319490, 0).unwrap()));
    let latest = got.latest.unwrap();
    assert_eq!((latest.likes, latest.views, latest.collects), (Some(377_747), Some(2_022_003), Some(164_333)));
    assert_eq!((latest.comments, latest.shares), (Some(7177), Some(23_396)));
    let extra = latest.extra.unwrap();
    assert_eq!(
        (extra["coin"].as_i64(), extra["danmaku"].as_i64(), extra["dislike"].as_i64()),
        (Some(431_922), Some(12_345), Some(0))
    );
    assert_eq!(store.get_work("videosite", "535243818").await.unwrap().unwrap().work.platform_id, "BV1cM41197ui");
    let up = store.get_account("videosite", "927587").await.unwrap().unwrap();
    assert_eq!((up.account.fans, up.account.likes), (Some(11_482_842), Some(123_456_789)));
    assert_eq!(up.account.signature.as_deref(), Some("讲故事的人"));
    let comments = store.list_comments("videosite", "BV1cM41197ui", 1, 20).await.unwrap();
    assert_eq!(comments.total, 1);
    let c = &comments.items[0];
    assert_eq!((c.likes, c.author_id.as_deref(), c.parent_id.as_deref()), (Some(1024), Some("12345"), None));
    assert_eq!(c.published_at, Some(Utc.timestamp_opt(1698400000, 0).unwrap()));
}

async fn check_weibo(store: &dyn ContentStore) {
    let got = store.get_work("microblog", "5040123456789012").await.unwrap().unwrap();
    assert_eq!(got.work.title, "今天的晚霞太美了 #晚霞#");
    assert_eq!(
        got.work.published_at,
        Some(utc(2024, 5, 31, 12, 15, 0)),
        "create_date_time, not the 8-hours-late create_time"
    );
    let latest = got.latest.unwrap();
    assert_eq!((latest.likes, latest.comments, latest.shares), (Some(1523), Some(88), Some(12)));
    let account = store.get_account("microblog", "1234567890").await.unwrap().unwrap();
    assert_eq!((account.account.fans, account.account.following), (Some(123_000), Some(321)), "12.3万");
    assert_eq!(account.account.nickname, "看天的人");
    let comments = store.list_comments("microblog", "5040123456789012", 1, 20).await.unwrap();
    assert_eq!(comments.total, 2);
    let parents: Vec<Option<&str>> = comments.items.iter().map(|c| c.parent_id.as_deref()).collect();
    assert_eq!(parents, [None, Some("5040123456789100")], "rootid equal to the comment's own id is no parent");
}

fn current_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mediacrawler-2026")
}

/// (platform, work id, creator_hash, masked nickname) of every current-format
/// content row.
const ANONYMOUS: [(&str, &str, &str, &str); 7] = [
    ("lifestyle", "6880c1d2000000001e04a001", "ch_7f3a9c2e5b1d4068", "露*达人"),
    ("lifestyle", "6880c1d2000000001e04a002", "ch_7f3a9c2e5b1d4068", "露*达人"),
    ("lifestyle", "6880c1d2000000001e04a003", "ch_02b6e8d41c9f7a35", "灯*小*"),
    ("shortvideo", "7522123456789012345", "ch_c4a8e2f6b0d13957", "山*日记"),
    ("clipapp", "3xq9wxyz1abcd2e", "ch_91f0b7d3e5a2c648", "河*老*"),
    ("videosite", "170001", "ch_e6d2a8c40f1b9357", "森*人"),
    ("microblog", "5180123456789012", "ch_3b7f1d9e5c0a2864", "星*看*人"),
];

/// MediaCrawler's current rows (no `user_id`, a `creator_hash` and a masked
/// `nickname`) land on anonymous accounts keyed by the hash, on every
/// platform; an older row with both keeps `user_id` as the key.
async fn check_current(store: &dyn ContentStore) {
    let files = collect_files(&[current_fixtures()], FORMAT.extensions()).unwrap();
    let mut report = ImportReport::default();
    for file in &files {
        report.merge(FORMAT.import_file(store, file, &mut || {}).await);
    }
    assert_eq!((report.files, report.read, report.written), (6, 8, 8), "{:#?}", report.rejected);
    let counts = store.counts().await.unwrap();
    assert_eq!((counts.accounts, counts.works, counts.comments), (6, 7, 1), "one account per distinct hash");
    for (platform, work, hash, nickname) in ANONYMOUS {
        let got = store.get_work(platform, work).await.unwrap().unwrap_or_else(|| panic!("{platform} {work}"));
        assert_eq!(got.work.author_id.as_deref(), Some(hash), "{platform} {work}");
        assert_eq!(got.author.unwrap().nickname, nickname, "{platform} {work}");
        let account = store.get_account(platform, hash).await.unwrap().unwrap().account;
        assert_eq!((account.platform_id.as_str(), account.nickname.as_str()), (hash, nickname));
        assert_eq!(account.ids, AccountIds::default(), "a creator_hash is no platform id form");
    }
    let comments = store.list_comments("lifestyle", "6880c1d2000000001e04a001", 1, 20).await.unwrap();
    let c = &comments.items[0];
    assert_eq!((c.author_id.as_deref(), c.author_name.as_deref()), (Some("ch_5d1e0f9a3c7b2846"), Some("小*")));

    let hinted = Format::Mediacrawler(mediacrawler::Hint {
        platform: Some(mediacrawler::Platform::Xhs),
        kind: Some(mediacrawler::Kind::Contents),
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.jsonl");
    let row = r#"{"note_id": "n-both", "title": "t", "user_id": "5ff0e6a1000000000101ffff", "creator_hash": "ch_0000", "nickname": "全名"}"#;
    std::fs::write(&path, format!("{row}\n")).unwrap();
    let report = hinted.import_file(store, &path, &mut || {}).await;
    assert_eq!(report.written, 1, "{:#?}", report.rejected);
    let both = store.get_work("lifestyle", "n-both").await.unwrap().unwrap();
    assert_eq!(both.work.author_id.as_deref(), Some("5ff0e6a1000000000101ffff"), "user_id wins over creator_hash");
    assert!(store.get_account("lifestyle", "ch_0000").await.unwrap().is_none());
}

#[tokio::test]
async fn current_exports_import_creator_hash_as_anonymous_accounts_into_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    check_current(&store).await;
}

#[tokio::test]
async fn current_exports_import_creator_hash_as_anonymous_accounts_into_postgres() {
    support::with_postgres("import_mc_current_test", async |store| check_current(store).await).await;
}

#[tokio::test]
async fn fixtures_import_into_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    check(&store).await;
}

#[tokio::test]
async fn fixtures_import_into_postgres() {
    support::with_postgres("import_mc_test", async |store| check(store).await).await;
}

#[tokio::test]
async fn bilibili_rows_land_on_the_popular_feeds_works() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let day = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/works/bilibili/2023-10-27/list.json");
    let feed = bilibili_popular::import_file(&store, &day, &mut || {}).await;
    assert!(feed.rejected.is_empty());
    let before = store.counts().await.unwrap();
    let file = fixtures().join("bili/json/search_contents_2024-06-01.json");
    let report = FORMAT.import_file(&store, &file, &mut || {}).await;
    assert_eq!((report.read, report.written), (1, 1));
    let after = store.counts().await.unwrap();
    assert_eq!((after.works, after.accounts), (before.works, before.accounts), "same bvid, same mid");
    assert_eq!(after.work_snapshots, before.work_snapshots + 1, "a newer snapshot");
}

#[tokio::test]
async fn unreadable_files_and_unknown_layouts_are_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let xhs = dir.path().join("xhs/json");
    std::fs::create_dir_all(&xhs).unwrap();
    let cases = [
        (xhs.join("search_contents_2024-06-01.json"), "{\"note_id\": ", "not JSON"),
        (xhs.join("search_contents_2024-06-02.json"), "42", "a JSON array of rows expected"),
        (xhs.join("search_2024-06-01.json"), "[]", "--kind"),
        (dir.path().join("search_contents_2024-06-01.json"), "[]", "--platform"),
    ];
    for (path, text, reason) in cases {
        std::fs::write(&path, text).unwrap();
        let report = FORMAT.import_file(&store, &path, &mut || {}).await;
        assert_eq!((report.files, report.read, report.rejected.len()), (1, 0, 1), "{path:?}");
        assert_eq!(report.rejected[0].row, 0);
        assert!(report.rejected[0].reason.contains(reason), "{}", report.rejected[0].reason);
    }

    let hinted = Format::Mediacrawler(mediacrawler::Hint {
        platform: Some(mediacrawler::Platform::Weibo),
        kind: Some(mediacrawler::Kind::Contents),
    });
    let path = dir.path().join("export.jsonl");
    std::fs::write(
        &path,
        "{\"note_id\": \"1\", \"content\": \"hi\", \"user_id\": \"9\", \"liked_count\": \"2万\"}\n[1]\n",
    )
    .unwrap();
    let report = hinted.import_file(&store, &path, &mut || {}).await;
    assert_eq!((report.read, report.written), (2, 1));
    assert_eq!((report.rejected[0].row, report.rejected[0].reason.as_str()), (2, "not an object: an array"));
    let latest = store.get_work("microblog", "1").await.unwrap().unwrap().latest.unwrap();
    assert_eq!(latest.likes, Some(20_000));
    let age = Utc::now() - latest.captured_at;
    assert!(age.num_seconds().abs() < 60, "no last_modify_ts, no date in the name: the file's mtime ({age})");
}
