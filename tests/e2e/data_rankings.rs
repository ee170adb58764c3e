//! lifestyle and shortvideo rankings over REST (and one over gRPC), computed
//! from a hand-computable fixture: a few accounts and works with known
//! snapshot series, the clock fixed at Friday 2026-11-20 (Asia/Shanghai),
//! so the newest ranked day is Wednesday 11-18. Expected figures are worked
//! out in the comments (docs/rankings.md has the formulas).
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use chrono::{DateTime, TimeZone, Utc};
use common::{KEY, Service, failure, success};
use mediaops::proto::mediaops::shortvideo::v1::{
    ShortvideoTopAccountRequest, shortvideo_service_client::ShortvideoServiceClient,
};
use mediaops_store::ContentStore;
use mediaops_store::model::{Account, AccountSnapshot, Record, Work, WorkSnapshot};
use mediaops_store::sqlite::SqliteStore;
use serde_json::{Value, json};

/// `YYYY-MM-DD HH:mm` in Asia/Shanghai as UTC.
fn at(text: &str) -> DateTime<Utc> {
    let local = chrono::NaiveDateTime::parse_from_str(&format!("{text}:00"), "%Y-%m-%d %H:%M:%S").unwrap();
    Utc.from_utc_datetime(&(local - chrono::Duration::hours(8)))
}

/// An account and its `(time, fans, likes)` snapshots.
fn account(
    platform: &str,
    id: &str,
    name: &str,
    category: &str,
    fans: i64,
    series: &[(&str, i64, i64)],
) -> Vec<Record> {
    let mut records = vec![Record::Account(Account {
        platform: platform.into(),
        platform_id: id.into(),
        nickname: name.into(),
        category: Some(category.into()),
        fans: Some(fans),
        ..Account::default()
    })];
    for (time, fans, likes) in series {
        records.push(Record::AccountSnapshot {
            platform: platform.into(),
            platform_id: id.into(),
            snapshot: AccountSnapshot {
                captured_at: at(time),
                fans: Some(*fans),
                likes: Some(*likes),
                ..AccountSnapshot::default()
            },
        });
    }
    records
}

/// A work and its `(time, likes, collects)` snapshots.
fn work(
    platform: &str,
    id: &str,
    author: &str,
    title: &str,
    category: &str,
    published: &str,
    series: &[(&str, i64, i64)],
) -> Vec<Record> {
    let mut records = vec![Record::Work(Work {
        platform: platform.into(),
        platform_id: id.into(),
        title: title.into(),
        author_id: Some(author.into()),
        category: Some(category.into()),
        published_at: Some(at(published)),
        url: Some(format!("https://example.com/{id}")),
        cover: Some(format!("https://img.example.com/{id}.jpg")),
        ..Work::default()
    })];
    for (time, likes, collects) in series {
        records.push(Record::WorkSnapshot {
            platform: platform.into(),
            platform_id: id.into(),
            snapshot: WorkSnapshot {
                captured_at: at(time),
                likes: Some(*likes),
                collects: Some(*collects),
                ..WorkSnapshot::default()
            },
        });
    }
    records
}

async fn service() -> Service {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let l = "lifestyle";
    let s = "shortvideo";
    let records: Vec<Record> = [
        // lifestyle accounts: 甲 and 乙 tie at 5,000 on 11-18; 丙 has 90,000
        account(l, "ja", "甲", "美味佳肴", 5_000, &[("2026-11-17 22:00", 1_000, 0), ("2026-11-18 22:00", 5_000, 0)]),
        account(l, "yi", "乙", "美味佳肴", 5_000, &[("2026-11-18 22:00", 5_000, 0)]),
        account(l, "bing", "丙", "旅行度假", 90_000, &[("2026-11-18 22:00", 90_000, 0)]),
        // N1: day gain on 11-18 = 1500 − 1000 = 500; interactions 500 + 100 = 600;
        // 7 days (11-12..18, no earlier snapshot read) 1500 − 100 = 1400; week 11-09..15: 100 − 50 = 50
        work(
            l,
            "n1",
            "ja",
            "红烧肉家常做法",
            "美味佳肴",
            "2026-11-01 10:00",
            &[
                ("2026-11-08 22:00", 50, 0),
                ("2026-11-12 22:00", 100, 0),
                ("2026-11-17 22:00", 1_000, 0),
                ("2026-11-18 22:00", 1_500, 100),
            ],
        ),
        // N2: day gain 700 − 200 = 500 (ties N1; 糖 sorts before 红); 7 days 500
        work(
            l,
            "n2",
            "yi",
            "糖醋排骨家常做法",
            "美味佳肴",
            "2026-11-02 10:00",
            &[("2026-11-17 22:00", 200, 0), ("2026-11-18 22:00", 700, 0)],
        ),
        // N3: day gain 3000, author 丙 is not low-fan
        work(
            l,
            "n3",
            "bing",
            "旅行打包清单",
            "旅行度假",
            "2026-11-03 10:00",
            &[("2026-11-17 22:00", 5_000, 0), ("2026-11-18 22:00", 8_000, 0)],
        ),
        // shortvideo accounts: 阿美食 rises 8,999 with 999 likes → influence 6·4 + 4·3 = 36
        account(s, "s1", "阿美食", "美食", 9_999, &[("2026-11-17 22:00", 1_000, 0), ("2026-11-18 22:00", 9_999, 999)]),
        // 阿旅行 rises 100, no likes gained → 6·log10(50101) = 28.20
        account(
            s,
            "s2",
            "阿旅行",
            "旅行",
            50_100,
            &[("2026-11-17 22:00", 50_000, 10), ("2026-11-18 22:00", 50_100, 10)],
        ),
        // 小吃王: one snapshot (no rise) → 6·log10(19999) = 25.81
        account(s, "s3", "小吃王", "美食", 19_998, &[("2026-11-18 22:00", 19_998, 0)]),
        // V1: 11-17 100 → 11-18 500 (gain 400)
        work(
            s,
            "v1",
            "s1",
            "火锅测评",
            "美食",
            "2026-11-16 12:00",
            &[("2026-11-17 22:00", 100, 0), ("2026-11-18 22:00", 500, 0)],
        ),
        // V2: 11-15 10 → 11-16 1010 → 11-18 1110: day 11-16 +1000, 11-16..18 +1100; nothing on 11-17
        work(
            s,
            "v2",
            "s2",
            "成都旅行vlog",
            "旅行",
            "2026-11-15 12:00",
            &[("2026-11-15 22:00", 10, 0), ("2026-11-16 22:00", 1_010, 0), ("2026-11-18 22:00", 1_110, 0)],
        ),
        // V3: one snapshot, no gain anywhere; counts for 阿美食's diagnosis
        work(s, "v3", "s1", "烧烤摊测评", "美食", "2026-11-17 12:00", &[("2026-11-18 22:00", 500, 0)]),
    ]
    .into_iter()
    .flatten()
    .collect();
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
    Service::start_with(dir, |core| core.now = Some("2026-11-20".into())).await
}

async fn call(service: &Service, platform: &str, slug: &str, body: Value) -> (u16, Value) {
    service.post(&format!("/api/apis/{platform}/{slug}/call"), body).await
}

fn column(data: &Value, field: &str) -> Vec<Value> {
    data["items"].as_array().unwrap().iter().map(|i| i[field].clone()).collect()
}

fn warnings(body: &Value) -> Vec<String> {
    body["warnings"].as_array().map(|w| w.iter().map(|s| s.as_str().unwrap().to_owned()).collect()).unwrap_or_default()
}

/// An empty ranking: success, `items: []`, a warning containing `why`.
fn empty_because(status: u16, body: &Value, why: &str) {
    let data = success(status, body);
    assert_eq!(data["items"], json!([]), "{body}");
    assert!(warnings(body).iter().any(|w| w.contains(why)), "no warning with {why:?}: {body}");
}

#[tokio::test]
async fn lifestyle_rankings_follow_the_fixture_and_the_rules() {
    let service = service().await;
    let ls = |slug: &'static str, body: Value| {
        let service = &service;
        async move { call(service, "lifestyle", slug, body).await }
    };

    // top-account: fans at the end of 11-18; the tie 乙/甲 by name
    let (status, body) = ls("lifestyle-top-account", json!({"rankDate": "2026-11-18", "type": "美味佳肴"})).await;
    let data = success(status, &body);
    assert_eq!(
        data["items"],
        json!([{"rank": 1, "nickname": "乙", "fansCount": 5000}, {"rank": 2, "nickname": "甲", "fansCount": 5000}])
    );
    assert!(body.get("warnings").is_none(), "no warnings when there is nothing to say: {body}");
    let (status, body) = ls("lifestyle-top-account", json!({"type": "综合全部"})).await;
    assert_eq!(column(&success(status, &body), "nickname"), [json!("丙"), json!("乙"), json!("甲")]);
    // out of list: another ranking (all tracks) with a warning; 综合 is 3203
    let (status, body) = ls("lifestyle-top-account", json!({"type": "美食"})).await;
    assert_eq!(column(&success(status, &body), "nickname").len(), 3);
    assert!(warnings(&body)[0].contains("not a value of LIST_LIFESTYLE"), "{body}");
    let (status, body) = ls("lifestyle-top-account", json!({"type": "综合"})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!((error["field"].clone(), error["upstream"]["code"].clone()), (json!("type"), json!("3203")));
    // lag, boundaries, look-back
    let (status, body) = ls("lifestyle-top-account", json!({"rankDate": "2026-11-19"})).await;
    empty_because(status, &body, "two-day lag");
    let (status, body) = ls("lifestyle-top-account", json!({"period": "week", "rankDate": "2026-11-18"})).await;
    empty_because(
        status,
        &body,
        "rankDate 2026-11-18 is a Wednesday; week rankings need the Monday of a finished week",
    );
    let (status, body) = ls("lifestyle-top-account", json!({"rankDate": "2026-08-26"})).await;
    empty_because(status, &body, "85-day look-back");
    let (status, body) = ls("lifestyle-top-account", json!({"rankDate": "2026-11-31"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "rankDate");

    // hit-data: four boards over notes matching 做法 on 11-18
    let (status, body) = ls("lifestyle-hit-data", json!({"keyword": "做法"})).await;
    let data = success(status, &body);
    let boards: Vec<(String, String, i64)> = data["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["rank"].as_str().unwrap().into(),
                e["item"]["title"].as_str().unwrap().into(),
                e["item"]["useLikeCount"].as_i64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("低粉爆文", "红烧肉家常做法", 1500),
        ("点赞TOP500", "红烧肉家常做法", 1500),
        ("点赞TOP500", "糖醋排骨家常做法", 700),
        ("单日互动", "红烧肉家常做法", 600),
        ("单日互动", "糖醋排骨家常做法", 500),
        ("七日增长", "红烧肉家常做法", 1400),
        ("七日增长", "糖醋排骨家常做法", 500),
    ];
    let expected: Vec<(String, String, i64)> =
        expected.iter().map(|(b, t, v)| ((*b).into(), (*t).into(), *v)).collect();
    assert_eq!(boards, expected);
    assert_eq!(data["items"][0]["item"]["coverUrl"], "https://img.example.com/n1.jpg");
    let (status, body) = ls("lifestyle-hit-data", json!({"keyword": "做法", "startDate": "2026-11-02"})).await;
    assert_eq!(column(&success(status, &body), "rank").len(), 3, "{body}");

    // daily-top: likes gained on 11-18, tie by title
    let (status, body) = ls("lifestyle-daily-top", json!({"rankDate": "2026-11-18", "category": "美味佳肴"})).await;
    let data = success(status, &body);
    assert_eq!(
        data["items"],
        json!([
            {"title": "糖醋排骨家常做法", "coverUrl": "https://img.example.com/n2.jpg", "fans": 5000, "publicTime": "2026-11-02 10:00:00", "useLikeCount": 500},
            {"title": "红烧肉家常做法", "coverUrl": "https://img.example.com/n1.jpg", "fans": 5000, "publicTime": "2026-11-01 10:00:00", "useLikeCount": 500},
        ])
    );
    let (status, body) = ls("lifestyle-daily-top", json!({})).await;
    assert_eq!(column(&success(status, &body), "useLikeCount"), [json!(3000), json!(500), json!(500)]);
    let (status, body) = ls("lifestyle-daily-top", json!({"category": "美食"})).await;
    empty_because(status, &body, "not a value of LIST_LIFESTYLE");
    let (status, body) = ls("lifestyle-daily-top", json!({"category": "综合"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["upstream"]["code"], "3203");

    // low-fans-top: 丙 (90,000 fans) is left out
    let (status, body) = ls("lifestyle-low-fans-top", json!({"rankDate": "2026-11-18"})).await;
    assert_eq!(column(&success(status, &body), "title"), [json!("糖醋排骨家常做法"), json!("红烧肉家常做法")]);

    // weekly-top: the week of Monday 11-09 (N1 +50); a running week is empty
    let (status, body) = ls("lifestyle-weekly-top", json!({"rankDate": "2026-11-09"})).await;
    let data = success(status, &body);
    assert_eq!(
        data["items"],
        json!([{"title": "红烧肉家常做法", "coverUrl": "https://img.example.com/n1.jpg", "fans": 5000, "useLikeCount": 50}])
    );
    let (status, body) = ls("lifestyle-weekly-top", json!({"rankDate": "2026-11-16"})).await;
    empty_because(status, &body, "has not finished");

    // account-analyzer: known ids in order, unknown ones warned about
    let (status, body) = ls("lifestyle-account-analyzer", json!({"userIds": ["bing", "nobody", "ja"]})).await;
    let data = success(status, &body);
    assert_eq!(
        data["items"],
        json!([{"userId": "bing", "nickname": "丙", "fansCount": 90000}, {"userId": "ja", "nickname": "甲", "fansCount": 5000}])
    );
    assert!(warnings(&body)[0].contains("nobody"), "{body}");
}

#[tokio::test]
async fn shortvideo_rankings_follow_the_fixture_and_the_rules() {
    let service = service().await;
    let sv = |slug: &'static str, body: Value| {
        let service = &service;
        async move { call(service, "shortvideo", slug, body).await }
    };

    // rise-fans: followers gained on 11-18; alias path answers the same
    let (status, body) = sv("douyin-rise-fans-rank", json!({"rankDate": "2026-11-18", "category": "全部"})).await;
    let data = success(status, &body);
    assert_eq!(
        data["items"],
        json!([{"rank": 1, "accountName": "阿美食", "riseFans": 8999}, {"rank": 2, "accountName": "阿旅行", "riseFans": 100}])
    );
    let (status, alias) = sv("shortvideo-rise-fans-rank", json!({"rankDate": "2026-11-18", "category": "美食"})).await;
    assert_eq!(column(&success(status, &alias), "accountName"), [json!("阿美食")]);
    let (status, body) = sv("douyin-rise-fans-rank", json!({"category": "美食餐饮"})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!((error["field"].clone(), error["upstream"]["code"].clone()), (json!("category"), json!("3203")));
    let (status, body) = sv("douyin-rise-fans-rank", json!({"rankDate": "2026-11-12"})).await;
    empty_because(status, &body, "7-day look-back");
    let (status, body) = sv("douyin-rise-fans-rank", json!({"period": "month", "rankDate": "2026-11-01"})).await;
    empty_because(status, &body, "has not finished");

    // top-account: influenceScore = 6·log10(1+F) + 4·log10(1+ΔL)
    let (status, body) = sv("shortvideo-top-account", json!({"rankDate": "2026-11-18"})).await;
    let data = success(status, &body);
    assert_eq!(column(&data, "accountName"), [json!("阿美食"), json!("阿旅行"), json!("小吃王")]);
    assert_eq!(column(&data, "influenceScore"), [json!(36.0), json!(28.2), json!(25.81)]);
    let (status, body) = sv("shortvideo-top-account", json!({"category": "美食餐饮"})).await;
    empty_because(status, &body, "not a value of LIST_SHORTVIDEO");

    // content-surge from 11-16: daily (11-16) and weekly (11-16..18) boards
    let (status, body) = sv("shortvideo-content-surge", json!({"startTime": "2026-11-16"})).await;
    let data = success(status, &body);
    let entries: Vec<(Value, Value)> =
        data["items"].as_array().unwrap().iter().map(|e| (e["rank"].clone(), e["item"]["title"].clone())).collect();
    assert_eq!(
        entries,
        [
            (json!("dailyRank"), json!("成都旅行vlog")),
            (json!("weeklyRank"), json!("成都旅行vlog")),
            (json!("weeklyRank"), json!("火锅测评")),
        ]
    );
    assert_eq!(
        data["items"][0]["item"],
        json!({"title": "成都旅行vlog", "category": "旅行", "share_url": "https://example.com/v2"})
    );
    let (status, body) = sv("shortvideo-content-surge", json!({"startTime": "2026-11-16", "type": "美食"})).await;
    assert_eq!(column(&success(status, &body), "rank"), [json!("weeklyRank")]);
    // no startTime: two empty boards (spec 4.4 "Omitting `startTime` returns two empty boards")
    let (status, body) = sv("shortvideo-content-surge", json!({})).await;
    empty_because(status, &body, "startTime is missing");
    let (status, body) = sv("shortvideo-content-surge", json!({"startTime": "", "type": "美食"})).await;
    empty_because(status, &body, "startTime is missing");
    let (status, body) = sv("shortvideo-content-surge", json!({"startTime": "2026-08-01"})).await;
    empty_because(status, &body, "100-day coverage");
    let (status, body) = sv("shortvideo-content-surge", json!({"startTime": "2026-11-19"})).await;
    empty_because(status, &body, "two-day lag");
    let (status, body) = sv("shortvideo-content-surge", json!({"startTime": "2026-11-16", "type": "全部"})).await;
    empty_because(status, &body, "not a value of LIST_SHORTVIDEO");

    // likes-rank: default the newest day: V1 +400; V2 has no snapshot on 11-17 (the
    // baseline day), so its only snapshot of 11-18 is its own baseline: no gain
    let (status, body) = sv("shortvideo-likes-rank", json!({})).await;
    let data = success(status, &body);
    assert_eq!(
        data["items"],
        json!([{"title": "火锅测评", "accountName": "阿美食", "category": "美食", "workUrl": "https://example.com/v1"}])
    );
    let (status, body) =
        sv("shortvideo-likes-rank", json!({"startTime": "2026-11-16", "endTime": "2026-11-20 23:00:00"})).await;
    assert_eq!(column(&success(status, &body), "title"), [json!("成都旅行vlog"), json!("火锅测评")]);

    // diagnosis: g = 1 (8,999 on 1,000), a = 2/8, e = 1 (500 / 9,999 ≥ 5 %) → 40 + 7.5 + 30
    let (status, body) = sv("shortvideo-account-diagnosis", json!({"accountNames": ["阿美食", "nobody"]})).await;
    let data = success(status, &body);
    assert_eq!(data["items"], json!([{"accountName": "阿美食", "followerCount": 9999, "healthScore": 77.5}]));
    assert!(warnings(&body)[0].contains("nobody"));

    // similar: same track 美食 (0.6) + 0.4 × 9,999 / 19,998
    let (status, body) = sv("shortvideo-similar-account", json!({"accountId": "s1"})).await;
    let data = success(status, &body);
    assert_eq!(data["items"], json!([{"accountName": "小吃王", "followerCount": 19998, "similarity": 0.8}]));
    let (status, body) = sv("shortvideo-similar-account", json!({"accountName": "阿美食"})).await;
    assert_eq!(column(&success(status, &body), "accountName"), [json!("小吃王")]);
    assert!(warnings(&body)[0].contains("low coverage"));
    let (status, body) = sv("shortvideo-similar-account", json!({"accountId": "nobody"})).await;
    failure(status, &body, 404, "not_found");
    // both fields optional (spec 4.4): nothing given = an empty list with a warning, not a 400
    empty_because_status(sv("shortvideo-similar-account", json!({})).await, "no account given");
}

/// [`empty_because`] for a `(status, body)` pair.
fn empty_because_status((status, body): (u16, Value), why: &str) {
    empty_because(status, &body, why);
}

#[tokio::test]
async fn grpc_answers_carry_warnings_as_metadata() {
    let service = service().await;
    let mut client = ShortvideoServiceClient::connect(service.grpc.clone()).await.unwrap();
    let mut request = tonic::Request::new(ShortvideoTopAccountRequest {
        period: "week".into(),
        rank_date: "2026-11-18".into(),
        category: String::new(),
    });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let response = client.shortvideo_top_account(request).await.unwrap();
    let warnings: Vec<String> = response
        .metadata()
        .get_all_bin(mediaops::proto::warnings::METADATA)
        .iter()
        .map(|v| String::from_utf8(v.to_bytes().unwrap().to_vec()).unwrap())
        .collect();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("is a Wednesday"), "{warnings:?}");
    assert!(response.into_inner().items.is_empty());
}

/// An article and its `(time, reads, likes)` snapshots.
fn article(
    id: &str,
    author: &str,
    title: &str,
    category: &str,
    kind: &str,
    published: &str,
    series: &[(&str, i64, i64)],
) -> Vec<Record> {
    let mut records = vec![Record::Work(Work {
        platform: "articles".into(),
        platform_id: id.into(),
        title: title.into(),
        author_id: Some(author.into()),
        category: Some(category.into()),
        work_type: Some(kind.into()),
        published_at: Some(at(published)),
        cover: Some(format!("https://img.example.com/{id}.jpg")),
        ..Work::default()
    })];
    for (time, reads, likes) in series {
        records.push(Record::WorkSnapshot {
            platform: "articles".into(),
            platform_id: id.into(),
            snapshot: WorkSnapshot {
                captured_at: at(time),
                views: Some(*reads),
                likes: Some(*likes),
                ..WorkSnapshot::default()
            },
        });
    }
    records
}

async fn articles_service() -> Service {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let a = "articles";
    let records: Vec<Record> = [
        account(a, "t1", "科技君", "科技数码", 0, &[]),
        account(a, "f1", "理财君", "财富理财", 0, &[]),
        account(a, "d1", "数码控", "科技数码", 0, &[]),
        // P1: reads 100,000 → 109,999 (+9,999), likes 10 → 109 (+99)
        article(
            "p1",
            "t1",
            "芯片大战",
            "科技数码",
            "原创",
            "2026-11-10 08:00",
            &[("2026-11-17 22:00", 100_000, 10), ("2026-11-18 22:00", 109_999, 109)],
        ),
        // P2: reads 5,000 → 6,000 (+1,000)
        article(
            "p2",
            "t1",
            "手机评测",
            "科技数码",
            "转载",
            "2026-11-12 08:00",
            &[("2026-11-17 22:00", 5_000, 0), ("2026-11-18 22:00", 6_000, 0)],
        ),
        // P3: reads 200 → 1,199 (+999)
        article(
            "p3",
            "f1",
            "基金定投",
            "财富理财",
            "原创",
            "2026-11-11 08:00",
            &[("2026-11-17 22:00", 200, 0), ("2026-11-18 22:00", 1_199, 0)],
        ),
        // P5: a 短剧 article of 数码控 published before the 30-day window (only the playlet feed sees it)
        article("p5", "d1", "霸总短剧推荐", "文摘精选", "", "2026-10-01 08:00", &[("2026-11-18 22:00", 3_000, 0)]),
        // P4: one snapshot, no gain
        article("p4", "d1", "相机入门", "科技数码", "", "2026-11-15 08:00", &[("2026-11-18 22:00", 28_999, 0)]),
    ]
    .into_iter()
    .flatten()
    .chain(work("channels", "c1", "x", "AI绘画入门教程", "", "2026-11-18 08:00", &[("2026-11-18 22:00", 88, 0)]))
    .collect();
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
    Service::start_with(dir, |core| core.now = Some("2026-11-20".into())).await
}

fn upstream(status: u16, body: &Value, field: &str) -> String {
    let error = failure(status, body, 400, "invalid_input");
    assert_eq!(error["field"], field, "{body}");
    error["upstream"]["message"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn articles_rankings_follow_the_fixture_and_the_rules() {
    let service = articles_service().await;
    let ar = |slug: &'static str, body: Value| {
        let service = &service;
        async move { call(service, "articles", slug, body).await }
    };

    // category-time-hot: the 10万+ board then the original board
    let (status, body) =
        ar("category-time-hot", json!({"type": "科技数码", "startDate": "2026-11-10", "endDate": "2026-11-20"})).await;
    let row = json!({"title": "芯片大战", "accountName": "科技君", "readCount": 109999});
    assert_eq!(success(status, &body)["items"], json!([row, row]));
    let (status, body) =
        ar("category-time-hot", json!({"type": "财富理财", "startDate": "2026-11-10", "endDate": "2026-11-18"})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([{"title": "基金定投", "accountName": "理财君", "readCount": 1199}])
    );
    let (status, body) =
        ar("category-time-hot", json!({"type": "科技", "startDate": "2026-11-10", "endDate": "2026-11-18"})).await;
    empty_because(status, &body, "not a value of LIST_ARTICLES");
    let (status, body) =
        ar("category-time-hot", json!({"type": "民生资讯", "startDate": "2026-11-10", "endDate": "2026-11-18"})).await;
    empty_because(status, &body, "upstream currently has no data");
    let (status, body) =
        ar("category-time-hot", json!({"type": "科技数码", "startDate": "2026-09-01", "endDate": "2026-09-30"})).await;
    assert_eq!(upstream(status, &body, "startDate"), "日期格式错误");
    let (status, body) =
        ar("category-time-hot", json!({"type": "科技数码", "startDate": "2026-11-19", "endDate": "2026-11-20"})).await;
    empty_because(status, &body, "two-day lag");

    // index-rank: 10·log10(1+R) + 5·log10(1+L): 科技君 R 10,999 L 99 → 50.41; 理财君 R 999 → 30
    let (status, body) = ar("articles-index-rank", json!({"rankType": "day", "rankDate": "2026-11-18"})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([{"rank": 1, "accountName": "科技君", "indexScore": 50.41}, {"rank": 2, "accountName": "理财君", "indexScore": 30.0}])
    );
    let (status, body) =
        ar("articles-index-rank", json!({"rankType": "day", "rankDate": "2026-11-18", "category": "财富理财"})).await;
    assert_eq!(column(&success(status, &body), "accountName"), [json!("理财君")]);
    let (status, body) = ar("articles-index-rank", json!({"rankType": "day", "rankDate": "2026-11-12"})).await;
    assert_eq!(upstream(status, &body, "rankDate"), "接口执行异常");
    let (status, body) = ar("articles-index-rank", json!({"rankType": "day"})).await;
    assert_eq!(upstream(status, &body, "rankDate"), "接口执行异常");
    let (status, body) = ar("articles-index-rank", json!({"rankType": "week", "rankDate": "2026-11-18"})).await;
    empty_because(status, &body, "is a Wednesday");
    let (status, body) = ar("articles-index-rank", json!({"rankType": "days", "rankDate": "2026-11-18"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "rankType");

    // raise-rank: reads gained on the day
    let (status, body) = ar("articles-raise-rank", json!({"rankDate": "2026-11-18"})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([{"rank": 1, "accountName": "科技君", "readRaise": 10999}, {"rank": 2, "accountName": "理财君", "readRaise": 999}])
    );
    let (status, body) = ar("articles-raise-rank", json!({"rankDate": "2026-10-21"})).await;
    assert_eq!(upstream(status, &body, "rankDate"), "接口执行异常");
    let (status, body) = ar("articles-raise-rank", json!({"rankDate": "2026-11-19"})).await;
    empty_because(status, &body, "two-day lag");

    // hit-cover: default window 11-12..11-18
    let (status, body) = ar("articles-hit-cover", json!({"keyword": "芯片"})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([
            {"rank": "10万+爆文", "item": {"title": "芯片大战", "coverUrl": "https://img.example.com/p1.jpg", "clicksCount": 109999}},
            {"rank": "阅读增长", "item": {"title": "芯片大战", "coverUrl": "https://img.example.com/p1.jpg", "clicksCount": 9999}},
        ])
    );
    let (status, body) = ar("articles-hit-cover", json!({"keyword": "芯片", "startDate": "2026-09-01"})).await;
    assert_eq!(upstream(status, &body, "startDate"), "日期格式错误");

    // analyzer: 2 articles in 30 days, average reads (109,999 + 6,000) / 2 = 57,999 → 50·0.1 + 50·1
    let (status, body) = ar("articles-account-analyzer", json!({"accountNames": ["科技君"]})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([{"accountName": "科技君", "avgReadCount": 57999, "healthScore": 55.0}])
    );
    // similar: same type 科技数码 (0.6) + 0.4 × 28,999 / 57,999
    let (status, body) = ar("articles-similar-account", json!({"accountName": "科技君"})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([{"accountName": "数码控", "avgReadCount": 28999, "similarity": 0.8}])
    );
    // accountName and accountType optional (spec 4.5): neither = an empty list with a warning
    empty_because_status(ar("articles-similar-account", json!({})).await, "no account given");
}

async fn skill(service: &Service, slug: &str, body: Value) -> (u16, Value) {
    service.post(&format!("/api/skills/{slug}/invoke"), body).await
}

#[tokio::test]
async fn analytics_skills_follow_the_fixture() {
    let service = articles_service().await;

    // fastest-growing on 11-18: per author the most read article; rate = gained / before
    // 理财君 P3 999/200 = 4.995; 科技君 P1 9,999/100,000 = 0.1; 数码控 P4 0/28,999 = 0
    let (status, body) = skill(&service, "articles-fastest-growing", json!({"rankDate": "2026-11-18"})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([
            {"accountName": "理财君", "title": "基金定投", "readGrowthRate": 4.995},
            {"accountName": "科技君", "title": "芯片大战", "readGrowthRate": 0.1},
            {"accountName": "数码控", "title": "相机入门", "readGrowthRate": 0.0},
        ])
    );
    let (status, body) = skill(&service, "articles-fastest-growing", json!({"rankDate": "2026-11-19"})).await;
    empty_because(status, &body, "two-day lag");

    // articles-search: reads above 5,000 only
    let (status, body) = skill(&service, "articles-search", json!({"keyword": "芯片"})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([{"title": "芯片大战", "accountName": "科技君", "readCount": 109999}])
    );
    let (status, body) = skill(&service, "articles-search", json!({"keyword": "基金"})).await;
    assert_eq!(success(status, &body)["items"], json!([]));

    // account-analyzer skill: found / not found
    let (status, body) = skill(&service, "articles-account-analyzer", json!({"accountName": "科技君"})).await;
    let data = success(status, &body);
    assert_eq!((data["found"].clone(), data["source"].clone()), (json!(true), json!("store")));
    assert_eq!(data["account"], json!({"accountName": "科技君", "fansCount": 0, "articleCount": 2}));
    let (status, body) = skill(&service, "articles-account-analyzer", json!({"accountName": "无名号"})).await;
    let data = success(status, &body);
    assert_eq!((data["found"].clone(), data["accountName"].clone()), (json!(false), json!("无名号")));
    // not found: `account` keeps the spec's object shape, empty (docs/rankings.md), never null
    assert_eq!(data["account"], json!({"accountName": "", "fansCount": 0, "articleCount": 0}));

    // similar-account skill: 40 (same category) + 35 × 1/2 (articles 2 vs 1) + 25 × 28,999/57,999 → 70.0, same tier 腰部
    let (status, body) = skill(&service, "articles-similar-account", json!({"accountName": "科技君"})).await;
    assert_eq!(success(status, &body)["items"], json!([{"accountName": "数码控", "matchScore": 70.0, "tier": "腰部"}]));
    empty_because_status(skill(&service, "articles-similar-account", json!({})).await, "no account given");

    // playlet-articles-feed: the 短剧 topic only
    let (status, body) = skill(&service, "playlet-articles-feed", json!({})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([{"title": "霸总短剧推荐", "accountName": "数码控", "readCount": 3000}])
    );

    // channels-ai-feed: AI topic AND the keyword
    let (status, body) = skill(&service, "channels-ai-feed", json!({"keyword": "绘画"})).await;
    assert_eq!(success(status, &body)["items"], json!([{"title": "AI绘画入门教程", "likeCount": 88, "topic": "AI"}]));

    // lifestyle-viral-notes: most liked notes matching the keyword
    let service = self::service().await;
    let (status, body) = skill(&service, "lifestyle-viral-notes", json!({"keyword": "做法"})).await;
    let data = success(status, &body);
    assert_eq!(column(&data, "workTitle"), [json!("红烧肉家常做法"), json!("糖醋排骨家常做法")]);
    assert_eq!(
        data["items"][0],
        json!({"workId": "n1", "workTitle": "红烧肉家常做法", "accountNickname": "甲", "workLikedCount": 1500, "workCollectedCount": 100, "workCommentsCount": 0})
    );
}
