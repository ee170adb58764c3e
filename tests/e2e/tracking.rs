//! Tracking lists (docs/tracking.md) and the boards that fill from their
//! history: a tracking list of three Douyin accounts (one named by its
//! profile link) and two keywords runs against a fake TikHub
//! (`tests/e2e/common/vendor_replay.rs`) once a day while `MEDIAOPS_NOW` steps
//! over 8 days (2024-06-03 … 2024-06-10). The accounts' counters come from
//! `tests/fixtures/tracking/shortvideo-growth.json`, whose values change day
//! by day (it says so); the keyword searches are the real recorded reply of
//! `../shared/data/vendor-replies/tikhub` with counters changed by the
//! fixture's rule. Afterwards the store holds one snapshot a day of every
//! tracked account and work, the daily and weekly `douyin-rise-fans-rank`
//! and the daily and weekly boards of `shortvideo-content-surge` answer
//! exactly the rows the collected counters give, each run charged the sum
//! of its calls' prices; a restart on the same day runs nothing twice; a
//! missed firing is caught up once; an account short of points is paused
//! (`paused_insufficient_points`, shown by GET). It prints the run's
//! figures.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use common::vendor_replay::{VendorReplay, fixtures, recorded};
use common::{KEY, Service, failure, success};
use mediaops_store::ContentStore;
use mediaops_store::model::SeriesQuery;
use mediaops_store::sqlite::SqliteStore;
use serde_json::{Value, json};

/// The account with too few points for more than two runs.
const POOR_KEY: &str = "mk_test_tracking_poor_0001";
const PROFILE_ROUTE: &str = "api/v1/douyin/web/handler_user_profile";
const WORKS_ROUTE: &str = "api/v1/douyin/web/fetch_user_post_videos";
const SEARCH_ROUTE: &str = "api/v1/douyin/search/fetch_general_search_v1";
const KEYWORDS: [&str; 2] = ["猫咪", "养猫"];

fn growth() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tracking/shortvideo-growth.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The `n`th JSON file (file-name order) of `dir`.
fn json_file(dir: std::path::PathBuf, n: usize) -> Value {
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    serde_json::from_str(&std::fs::read_to_string(&files[n]).unwrap()).unwrap()
}

fn int(value: &Value) -> i64 {
    value.as_i64().unwrap()
}

/// One work the store should hold: its title and likes per day.
#[derive(Debug, Clone)]
struct Expected {
    id: String,
    title: String,
    likes: Vec<i64>,
}

/// The recorded search reply's works (`aweme_info`), in order.
fn recorded_search() -> (Value, Vec<Value>) {
    let reply = json_file(recorded("tikhub").join(SEARCH_ROUTE), 0);
    let works = reply["data"]["data"].as_array().unwrap().iter().filter_map(|c| c.get("aweme_info").cloned()).collect();
    (reply, works)
}

/// Every work a run collects and its likes per day (fixture's accounts, then
/// the recorded search's works with the fixture's rule).
fn expected_works(growth: &Value) -> Vec<Expected> {
    let mut out = Vec::new();
    for account in growth["accounts"].as_array().unwrap() {
        for item in account["items"].as_array().unwrap() {
            out.push(Expected {
                id: item["awemeId"].as_str().unwrap().to_owned(),
                title: item["desc"].as_str().unwrap().to_owned(),
                likes: item["likes"].as_array().unwrap().iter().map(int).collect(),
            });
        }
    }
    let step = int(&growth["search"]["likesPerDayStep"]);
    for (p, work) in recorded_search().1.iter().enumerate() {
        let base = int(&work["statistics"]["digg_count"]);
        out.push(Expected {
            id: work["aweme_id"].as_str().unwrap().to_owned(),
            title: work["desc"].as_str().unwrap().to_owned(),
            likes: (0..8).map(|d| base + d * step * (p as i64 + 1)).collect(),
        });
    }
    out
}

/// Serves day `day`'s counters: each account's profile and works (the
/// TikHub fixtures' shapes), and both keywords' searches.
fn serve_day(replay: &VendorReplay, growth: &Value, day: usize) {
    let profile_template = json_file(fixtures("tikhub").join(PROFILE_ROUTE), 0);
    let works_template = json_file(fixtures("tikhub").join(WORKS_ROUTE), 0);
    let mut profiles = Vec::new();
    let mut work_lists = Vec::new();
    for account in growth["accounts"].as_array().unwrap() {
        let sec_uid = account["secUid"].clone();
        let mut profile = profile_template.clone();
        profile["params"] = json!({"sec_user_id": sec_uid});
        let user = &mut profile["data"]["user"];
        user["sec_uid"] = sec_uid.clone();
        user["uid"] = account["uid"].clone();
        user["unique_id"] = json!("");
        user["nickname"] = account["nickname"].clone();
        user["follower_count"] = account["fans"][day].clone();
        user["total_favorited"] = account["likes"][day].clone();
        user["aweme_count"] = account["works"][day].clone();
        profiles.push(profile);
        let mut list = works_template.clone();
        list["params"] = json!({"sec_user_id": sec_uid, "max_cursor": "0", "count": "20"});
        list["data"]["has_more"] = json!(0);
        let first = list["data"]["aweme_list"][0].clone();
        let items: Vec<Value> = account["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| {
                let likes = int(&item["likes"][day]);
                let mut work = first.clone();
                work["aweme_id"] = item["awemeId"].clone();
                work["desc"] = item["desc"].clone();
                work["create_time"] = item["createTime"].clone();
                work["aweme_type"] = json!(0);
                work["author"]["sec_uid"] = sec_uid.clone();
                work["author"]["uid"] = account["uid"].clone();
                work["author"]["unique_id"] = json!("");
                work["author"]["nickname"] = account["nickname"].clone();
                work["author"]["follower_count"] = account["fans"][day].clone();
                work["statistics"] = json!({"aweme_id": item["awemeId"], "digg_count": likes,
                    "comment_count": likes / 10, "share_count": likes / 20, "collect_count": likes / 5, "play_count": 0});
                work
            })
            .collect();
        list["data"]["aweme_list"] = Value::Array(items);
        work_lists.push(list);
    }
    replay.set_replies(PROFILE_ROUTE, profiles);
    replay.set_replies(WORKS_ROUTE, work_lists);
    let (template, _) = recorded_search();
    let step = int(&growth["search"]["likesPerDayStep"]);
    let searches = KEYWORDS
        .iter()
        .map(|keyword| {
            let mut reply = template.clone();
            reply["params"]["keyword"] = json!(keyword);
            let mut p = 0;
            let cards: Vec<Value> = reply["data"]["data"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|card| {
                    let mut card = card.clone();
                    let info = card.get_mut("aweme_info")?;
                    let likes = info["statistics"]["digg_count"].as_i64().unwrap() + day as i64 * step * (p + 1);
                    p += 1;
                    info["statistics"]["digg_count"] = json!(likes);
                    let text = info["desc"].as_str().unwrap_or_default();
                    (*keyword == "猫咪" || text.contains(keyword)).then_some(card)
                })
                .collect();
            reply["data"]["data"] = Value::Array(cards);
            reply
        })
        .collect();
    replay.set_replies(SEARCH_ROUTE, searches);
}

/// Day `day` at `time` (Asia/Shanghai), RFC 3339.
fn at(day: &str, time: &str) -> String {
    format!("{day}T{time}+08:00")
}

async fn start(dir: tempfile::TempDir, replay: &VendorReplay, now: &str, scheduler: bool) -> Service {
    common::vendor_replay::set_vendor_keys();
    let (now, base) = (now.to_owned(), replay.base.clone());
    Service::start_with(dir, move |core| {
        core.now = Some(now);
        core.vendors.packs = vec!["tikhub".into()];
        core.vendors.base_urls = [("tikhub".to_owned(), base)].into();
        core.tracking.tick_secs = 0.1;
        core.tracking.scheduler = scheduler;
    })
    .await
}

async fn call(service: &Service, key: &str, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
    service.call_with_key(method, path, body, Some(key)).await
}

async fn get_list(service: &Service, key: &str, id: &str) -> Value {
    let (status, body) = call(service, key, reqwest::Method::GET, &format!("/api/tracking/{id}"), None).await;
    success(status, &body)
}

async fn runs(service: &Service, key: &str, id: &str) -> Vec<Value> {
    let (status, body) = call(service, key, reqwest::Method::GET, &format!("/api/tracking/{id}/runs"), None).await;
    success(status, &body)["items"].as_array().cloned().unwrap_or_default()
}

async fn points(service: &Service, key: &str) -> i64 {
    let (status, body) = call(service, key, reqwest::Method::GET, "/api/account/balance", None).await;
    int(&success(status, &body)["points"])
}

fn instant(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().to_utc()
}

/// Waits until the list has run at `now` (its `lastRunAt`) or left `active`.
async fn ran(service: &Service, key: &str, id: &str, now: &str) -> Value {
    for _ in 0..600 {
        let list = get_list(service, key, id).await;
        if list["state"] != "active" || list["lastRunAt"].as_str().is_some_and(|t| instant(t) == instant(now)) {
            return list;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{id} did not run at {now}");
}

/// The Shanghai day of a capture.
fn shanghai_day(t: DateTime<Utc>) -> NaiveDate {
    (t + Duration::hours(8)).date_naive()
}

fn window(first: &str, last: &str) -> (DateTime<Utc>, DateTime<Utc>) {
    (instant(&at(first, "00:00:00")), instant(&at(last, "23:59:59")))
}

/// Account id → fans per Shanghai day, and work id → likes per day, in the store.
async fn stored_history(
    store: &SqliteStore,
    days: &[String],
) -> (BTreeMap<String, Vec<(NaiveDate, i64)>>, BTreeMap<String, Vec<(NaiveDate, i64)>>) {
    let (from, to) = window(&days[0], days.last().unwrap());
    let query =
        SeriesQuery { platform: "shortvideo".into(), captured_from: from, captured_to: to, ..SeriesQuery::default() };
    let accounts = store
        .account_series(&query)
        .await
        .unwrap()
        .into_iter()
        .map(|s| {
            let points = s.snapshots.iter().filter_map(|p| Some((shanghai_day(p.captured_at), p.fans?))).collect();
            (s.account.platform_id, points)
        })
        .collect();
    let works = store
        .work_series(&query)
        .await
        .unwrap()
        .into_iter()
        .map(|s| {
            let points = s.snapshots.iter().filter_map(|p| Some((shanghai_day(p.captured_at), p.likes?))).collect();
            (s.work.platform_id, points)
        })
        .collect();
    (accounts, works)
}

/// Waits until every tracked account and work has its snapshot of `day`
/// (write-back runs behind the answers).
async fn written(store: &SqliteStore, days: &[String], day: usize, accounts: &[String], works: &[Expected]) {
    let date = NaiveDate::parse_from_str(&days[day], "%Y-%m-%d").unwrap();
    for _ in 0..100 {
        let (a, w) = stored_history(store, &days[..=day]).await;
        let has = |series: Option<&Vec<(NaiveDate, i64)>>| series.is_some_and(|s| s.iter().any(|(d, _)| *d == date));
        if accounts.iter().all(|id| has(a.get(id))) && works.iter().all(|e| has(w.get(&e.id))) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the snapshots of {} were not written", days[day]);
}

/// A board's rows as the fixture's counters give them: works by
/// `likes[last] − likes[base]` (> 0), most first, ties by title (code
/// points), 50 at most.
fn expected_board(works: &[Expected], base: usize, last: usize) -> Vec<String> {
    let mut rows: Vec<(i64, &str)> =
        works.iter().map(|w| (w.likes[last] - w.likes[base], w.title.as_str())).filter(|(gain, _)| *gain > 0).collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    rows.into_iter().take(50).map(|(_, title)| title.to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tracking_list_fills_the_boards_from_its_own_history() {
    let growth = growth();
    let days: Vec<String> = growth["days"].as_array().unwrap().iter().map(|d| d.as_str().unwrap().to_owned()).collect();
    let accounts: Vec<String> =
        growth["accounts"].as_array().unwrap().iter().map(|a| a["secUid"].as_str().unwrap().to_owned()).collect();
    let works = expected_works(&growth);
    let replay = VendorReplay::start(&[recorded("tikhub"), fixtures("tikhub")], &[]).await;
    let dir = tempfile::tempdir().unwrap();
    common::add_key_with_points(dir.path(), POOR_KEY, "tracking-poor", 40).await;

    // Day 0, before the firing: configure (free), and the 400s.
    let mut service = start(dir, &replay, &at(&days[0], "08:00:00"), true).await;
    let list = json!({
        "name": "竞品与关键词",
        "platform": "shortvideo",
        "accounts": [accounts[0], format!("https://www.douyin.com/user/{}?from_tab_name=main", accounts[1]), accounts[2]],
        "keywords": KEYWORDS,
        "schedule": "0 9 * * *"
    });
    for (bad, field) in [
        (json!({"schedule": "0 9 * *"}), "schedule"),
        (json!({"schedule": "0 25 * * *"}), "schedule"),
        (json!({"platform": "weibo"}), "platform"),
        (json!({"accounts": [], "keywords": []}), "accounts"),
        (json!({"accounts": ["https://www.bilibili.com/user/1"]}), "accounts[0]"),
        (json!({"keywords": ["   "]}), "keywords[0]"),
        (json!({"name": ""}), "name"),
        (json!({"status": "sometimes"}), "status"),
    ] {
        let mut body = list.clone();
        for (k, v) in bad.as_object().unwrap() {
            body[k] = v.clone();
        }
        let (status, answer) = call(&service, KEY, reqwest::Method::PUT, "/api/tracking/daily", Some(body)).await;
        let error = failure(status, &answer, 400, "invalid_input");
        assert_eq!(error["field"], field, "{answer}");
    }
    let before = points(&service, KEY).await;
    let (status, saved) = call(&service, KEY, reqwest::Method::PUT, "/api/tracking/daily", Some(list.clone())).await;
    let saved = success(status, &saved);
    assert_eq!(saved["accounts"], json!(accounts), "profile links are stored as ids");
    assert_eq!(saved["callsPerRun"], 8, "{saved}");
    assert_eq!(
        saved["pointsPerRun"],
        3 * (4 + 4) + 2 * 6,
        "spec 4.4: query-account 4, query-work-list 4, search-work 6"
    );
    assert_eq!(saved["state"], "active");
    assert_eq!(instant(saved["nextRunAt"].as_str().unwrap()), instant(&at(&days[0], "09:00:00")));
    assert!(saved["lastRunAt"].is_null());
    let poor = json!({"name": "一个账号", "platform": "shortvideo", "accounts": [accounts[0]], "keywords": ["猫咪"], "schedule": "0 9 * * *"});
    let (status, body) = call(&service, POOR_KEY, reqwest::Method::PUT, "/api/tracking/poor", Some(poor)).await;
    assert_eq!(success(status, &body)["pointsPerRun"], 14);
    let (status, listed) = call(&service, KEY, reqwest::Method::GET, "/api/tracking", None).await;
    assert_eq!(success(status, &listed)["total"], 1, "each account sees its own lists");
    let (status, other) = call(&service, POOR_KEY, reqwest::Method::GET, "/api/tracking/daily", None).await;
    failure(status, &other, 404, "not_found");
    assert_eq!(points(&service, KEY).await, before, "configuring is free");
    assert!(runs(&service, KEY, "daily").await.is_empty(), "nothing ran before 09:00");

    // Eight days: each day the core starts at 09:30, after the 09:00 firing.
    let store = SqliteStore::open(&service.data_path().join("store.sqlite")).await.unwrap();
    let mut charged = 0;
    for day in 0..days.len() {
        let common::Service { running, data_dir, .. } = service;
        running.shutdown().await.unwrap();
        serve_day(&replay, &growth, day);
        let now = at(&days[day], "09:30:00");
        service = start(data_dir, &replay, &now, true).await;
        let list = ran(&service, KEY, "daily", &now).await;
        assert_eq!(list["state"], "active", "{list}");
        // The short account's list runs in the same tick: let it finish (or pause) first.
        ran(&service, POOR_KEY, "poor", &now).await;
        assert_eq!(
            instant(list["nextRunAt"].as_str().unwrap()),
            instant(&at(&days[day], "09:00:00")) + Duration::days(1)
        );
        written(&store, &days, day, &accounts, &works).await;
        let log = runs(&service, KEY, "daily").await;
        assert_eq!(log.len(), day + 1, "one run a day");
        let run = &log[0];
        assert_eq!(run["status"], "ok", "{run}");
        assert_eq!(instant(run["runAt"].as_str().unwrap()), instant(&at(&days[day], "09:00:00")));
        assert_eq!(run["calls"].as_array().unwrap().len(), 8);
        assert_eq!(run["points"], 36, "{run}");
        charged += int(&run["points"]);
        if day == 3 {
            // The same day again: the firing already ran, nothing runs twice.
            let common::Service { running, data_dir, .. } = service;
            running.shutdown().await.unwrap();
            service = start(data_dir, &replay, &at(&days[day], "11:00:00"), true).await;
            tokio::time::sleep(std::time::Duration::from_millis(800)).await;
            assert_eq!(runs(&service, KEY, "daily").await.len(), day + 1, "a restart on the same day ran nothing");
        }
    }
    let spent = before - points(&service, KEY).await;
    assert_eq!(spent, charged, "the account paid exactly what its runs' calls cost");
    assert_eq!(spent, 8 * 36);

    // The short account: 40 points pay two runs (14 each) and two calls of the third.
    let poor = get_list(&service, POOR_KEY, "poor").await;
    assert_eq!(poor["state"], "paused_insufficient_points", "{poor}");
    assert!(poor["nextRunAt"].is_null());
    assert!(
        poor["stateReason"].as_str().unwrap().contains("insufficient")
            || poor["stateReason"].as_str().unwrap().contains("balance"),
        "{poor}"
    );
    let poor_runs = runs(&service, POOR_KEY, "poor").await;
    assert_eq!(poor_runs.len(), 3, "it ran on three days, then stopped");
    assert_eq!(poor_runs[0]["status"], "insufficient_points");
    let statuses: Vec<&str> =
        poor_runs[0]["calls"].as_array().unwrap().iter().map(|c| c["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["ok", "ok", "insufficient_points"]);
    assert_eq!(poor_runs[0]["points"], 8);
    assert_eq!(points(&service, POOR_KEY).await, 40 - 14 - 14 - 8);

    // The store: one snapshot a day of every tracked account and work, with the fixture's counters.
    let (account_history, work_history) = stored_history(&store, &days).await;
    let mut snapshots = 0;
    for (a, account) in accounts.iter().zip(growth["accounts"].as_array().unwrap()) {
        let fans: Vec<i64> = account["fans"].as_array().unwrap().iter().map(int).collect();
        let series = &account_history[a];
        assert_eq!(series.iter().map(|(_, f)| *f).collect::<Vec<_>>(), fans, "{a}");
        assert_eq!(series.len(), 8);
        snapshots += series.len();
    }
    for work in &works {
        let series = &work_history[&work.id];
        assert_eq!(series.iter().map(|(_, l)| *l).collect::<Vec<_>>(), work.likes, "{}", work.title);
        let distinct: std::collections::BTreeSet<_> = series.iter().map(|(d, _)| *d).collect();
        assert_eq!(distinct.len(), 8, "{}", work.title);
        snapshots += series.len();
    }
    // The boards, on 2024-06-12 (the newest ranked day is 2024-06-10), with
    // the scheduler off so nothing more is collected.
    let common::Service { running, data_dir, .. } = service;
    running.shutdown().await.unwrap();
    let board_day = at("2024-06-12", "10:00:00");
    service = start(data_dir, &replay, &board_day, false).await;
    let nick = |i: usize| growth["accounts"][i]["nickname"].as_str().unwrap().to_owned();
    let fans = |i: usize, d: usize| int(&growth["accounts"][i]["fans"][d]);
    let rises = |last: usize, base: usize| {
        let mut rows: Vec<(i64, String)> = (0..3).map(|i| (fans(i, last) - fans(i, base), nick(i))).collect();
        rows.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        rows.into_iter()
            .enumerate()
            .map(|(r, (rise, name))| json!({"rank": r + 1, "accountName": name, "riseFans": rise}))
            .collect::<Vec<_>>()
    };
    let mut boards_filled = 0;
    for (period, date, expected) in [("day", "2024-06-10", rises(7, 6)), ("week", "2024-06-03", rises(6, 0))] {
        let (status, body) = service
            .post("/api/apis/shortvideo/douyin-rise-fans-rank/call", json!({"period": period, "rankDate": date}))
            .await;
        let items = success(status, &body)["items"].clone();
        assert_eq!(items, Value::Array(expected), "rise-fans {period} {date}");
        boards_filled += 1;
    }
    assert_eq!(rises(6, 0)[0]["riseFans"], 2000, "厨房小记 gained 2,000 followers in the week of 2024-06-03");
    let (status, body) =
        service.post("/api/apis/shortvideo/shortvideo-content-surge/call", json!({"startTime": "2024-06-04"})).await;
    let items = success(status, &body)["items"].as_array().unwrap().clone();
    let board = |name: &str| -> Vec<String> {
        items.iter().filter(|i| i["rank"] == name).map(|i| i["item"]["title"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(board("dailyRank"), expected_board(&works, 0, 1), "likes gained on 2024-06-04");
    assert_eq!(board("weeklyRank"), expected_board(&works, 0, 7), "likes gained over 2024-06-04..10");
    assert_eq!(board("dailyRank")[0], "三分钟早餐", "600 likes gained on 2024-06-04");
    boards_filled += 2;

    // The history operations (docs/history.md) answer the same 8 day points
    // for a tracked account and a tracked work.
    let (status, body) = service
        .post("/api/apis/history/account-history/call", json!({"platform": "shortvideo", "accountId": accounts[0]}))
        .await;
    let answer = success(status, &body);
    let fans: Vec<i64> = answer["points"].as_array().unwrap().iter().map(|p| int(&p["fans"])).collect();
    assert_eq!(fans, account_history[&accounts[0]].iter().map(|(_, f)| *f).collect::<Vec<_>>(), "{answer}");
    assert_eq!(fans.len(), 8);
    let (status, body) = service
        .post("/api/apis/history/work-history/call", json!({"platform": "shortvideo", "workId": works[0].id}))
        .await;
    let answer = success(status, &body);
    let likes: Vec<i64> = answer["points"].as_array().unwrap().iter().map(|p| int(&p["likes"])).collect();
    assert_eq!(likes, works[0].likes, "{answer}");

    // A missed firing (2024-06-11) is caught up once, as of the latest one.
    let listed = get_list(&service, KEY, "daily").await;
    assert_eq!(instant(listed["nextRunAt"].as_str().unwrap()), instant(&at("2024-06-11", "09:00:00")));
    let common::Service { running, data_dir, .. } = service;
    running.shutdown().await.unwrap();
    service = start(data_dir, &replay, &board_day, true).await;
    ran(&service, KEY, "daily", &board_day).await;
    let log = runs(&service, KEY, "daily").await;
    assert_eq!(log.len(), 9, "two missed firings, one run");
    assert_eq!(instant(log[0]["runAt"].as_str().unwrap()), instant(&at("2024-06-12", "09:00:00")));
    assert_eq!(log[0]["missed"], 1);

    // Deleting the list keeps what it collected.
    let (status, body) = call(&service, KEY, reqwest::Method::DELETE, "/api/tracking/daily", None).await;
    assert_eq!(success(status, &body)["deleted"], true);
    let (status, body) = call(&service, KEY, reqwest::Method::GET, "/api/tracking/daily/runs", None).await;
    failure(status, &body, 404, "not_found");
    let (after_delete, _) = stored_history(&store, &days).await;
    assert_eq!(after_delete.len(), account_history.len());

    println!(
        "tracking over 8 days: {} runs, {snapshots} snapshots of {} tracked accounts and {} works, {boards_filled} boards \
         answered from them, {charged} points charged to the tracking account ({} per run), 36 to the short account \
         before its pause",
        8,
        accounts.len(),
        works.len(),
        charged / 8
    );
    service.running.shutdown().await.unwrap();
}
