//! lifestyle operations over REST and gRPC, answered from a store holding a
//! few camping and café notes, their authors and one note's comments.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use common::{KEY, Service, failure, success};
use mediaops::proto::mediaops::lifestyle::v1::{
    CommentsRequest, SearchNoteRequest, lifestyle_service_client::LifestyleServiceClient,
};
use mediaops_ops::data_api::{DataApi, lifestyle};
use mediaops_proto::service::Answer;
use mediaops_store::ContentStore;
use mediaops_store::clock::Clock;
use mediaops_store::model::{Account, AccountIds, Comment, Record, Work, WorkIds, WorkSnapshot};
use mediaops_store::sqlite::SqliteStore;
use serde_json::{Value, json};

const CAMPER: &str = "5f3c2a1b000000000101aa01";
const GEAR: &str = "5f3c2a1b000000000101aa02";
const CAFE: &str = "5e8d7c6b000000000101bb03";
const CHECKLIST: &str = "64f1a2b3c4d5e6f7a8b9c001";
const MOGANSHAN: &str = "64f1a2b3c4d5e6f7a8b9c002";
const LAMPS: &str = "64f1a2b3c4d5e6f7a8b9c003";
const COFFEE: &str = "64f1a2b3c4d5e6f7a8b9c004";

/// `YYYY-MM-DD HH:mm` in Asia/Shanghai as UTC.
fn at(text: &str) -> DateTime<Utc> {
    let local = chrono::NaiveDateTime::parse_from_str(&format!("{text}:00"), "%Y-%m-%d %H:%M:%S").unwrap();
    Utc.from_utc_datetime(&(local - chrono::Duration::hours(8)))
}

fn account(id: &str, red_id: &str, nickname: &str, signature: &str, fans: i64) -> Account {
    Account {
        platform: "lifestyle".into(),
        platform_id: id.into(),
        ids: AccountIds { account_id: Some(id.into()), red_id: Some(red_id.into()), ..AccountIds::default() },
        nickname: nickname.into(),
        signature: Some(signature.into()),
        fans: Some(fans),
        ..Account::default()
    }
}

/// A note and its counters `[likes, collects, comments, shares]`.
fn note(id: &str, author: &str, title: &str, desc: &str, published: &str, kind: &str, counts: [i64; 4]) -> [Record; 2] {
    let work = Work {
        platform: "lifestyle".into(),
        platform_id: id.into(),
        ids: WorkIds { note_id: Some(id.into()), ..WorkIds::default() },
        title: title.into(),
        description: Some(desc.into()),
        author_id: Some(author.into()),
        published_at: Some(at(published)),
        url: Some(format!("https://www.xiaohongshu.com/explore/{id}")),
        cover: Some(format!("https://sns-img-qc.xhscdn.com/{id}.jpg")),
        work_type: Some(kind.into()),
        ..Work::default()
    };
    let [likes, collects, comments, shares] = counts;
    let snapshot = WorkSnapshot {
        captured_at: at("2024-06-10 09:00"),
        likes: Some(likes),
        collects: Some(collects),
        comments: Some(comments),
        shares: Some(shares),
        ..WorkSnapshot::default()
    };
    [Record::Work(work), Record::WorkSnapshot { platform: "lifestyle".into(), platform_id: id.into(), snapshot }]
}

/// 25 comments on the checklist note, comment `i` liked `300 - 10 i` times.
fn comments() -> Vec<Record> {
    let texts = ["请问帐篷是哪个牌子的？", "收藏了，下周就去", "天幕尺寸多大合适", "睡袋温标怎么看", "求营地推荐！"];
    (0..25)
        .map(|i| {
            Record::Comment(Comment {
                platform: "lifestyle".into(),
                platform_id: format!("c{i:03}"),
                work_id: CHECKLIST.into(),
                text: format!("{}（{i}）", texts[i % texts.len()]),
                likes: Some(300 - 10 * i as i64),
                author_name: Some(format!("路人{i}")),
                published_at: Some(at("2024-05-04 12:00") + chrono::Duration::minutes(i as i64)),
                ..Comment::default()
            })
        })
        .collect()
}

/// The fixture store in `dir`.
async fn store(dir: &std::path::Path) -> SqliteStore {
    let store = SqliteStore::open(&dir.join("store.sqlite")).await.unwrap();
    let mut camper = account(CAMPER, "95270011", "露营小分队", "周末带你去露营 | 装备测评", 128_000);
    camper.following = Some(210);
    camper.works = Some(86);
    camper.likes = Some(1_520_000);
    camper.collects = Some(430_000);
    camper.region = Some("浙江".into());
    let mut records = vec![
        Record::Account(camper),
        Record::Account(account(GEAR, "3311002", "露营装备控阿杰", "露营装备老炮，只说实话", 56_000)),
        Record::Account(account(CAFE, "cafe_map", "上海咖啡地图", "每周一家小众咖啡馆", 890_000)),
    ];
    let notes = [
        note(
            CHECKLIST,
            CAMPER,
            "新手露营装备清单｜第一次露营必看",
            "帐篷、天幕、睡袋怎么选？一篇讲清楚",
            "2024-05-03 10:20",
            "normal",
            [5230, 8120, 312, 95],
        ),
        note(
            MOGANSHAN,
            CAMPER,
            "莫干山露营地推荐 周末两天一夜",
            "竹林营地，夜里能看到星星",
            "2024-05-20 18:05",
            "video",
            [12_800, 6400, 530, 210],
        ),
        note(
            LAMPS,
            GEAR,
            "露营 营地灯实测五款",
            "续航、亮度、重量对比",
            "2024-04-11 21:30",
            "normal",
            [860, 1500, 48, 12],
        ),
        note(
            COFFEE,
            CAFE,
            "上海小众咖啡馆探店合集",
            "武康路附近的六家店",
            "2024-06-01 15:00",
            "normal",
            [3400, 2100, 96, 40],
        ),
    ];
    records.extend(notes.into_iter().flatten());
    records.extend(comments());
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
    store
}

async fn service() -> Service {
    let dir = tempfile::tempdir().unwrap();
    store(dir.path()).await;
    Service::start_in(dir).await
}

async fn call(service: &Service, slug: &str, body: Value) -> (u16, Value) {
    service.post(&format!("/api/apis/lifestyle/{slug}/call"), body).await
}

fn titles(data: &Value) -> Vec<String> {
    data["items"].as_array().unwrap().iter().map(|i| i["title"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn search_note_answers_every_field_with_offset_and_raw() {
    let service = service().await;
    let (status, body) = call(&service, "search-note", json!({"keyword": " 露营 "})).await;
    let data = success(status, &body);
    assert_eq!(data["source"], "store");
    assert_eq!(data["keyword"], "露营");
    assert_eq!((data["offset"].as_i64(), data["total"].as_i64()), (Some(0), Some(3)));
    assert_eq!(data["raw"], json!({"page": 1, "pageSize": 20, "backend": "sqlite", "order": "relevance"}));
    let items = data["items"].as_array().unwrap();
    let checklist = items.iter().find(|i| i["workId"] == CHECKLIST).expect("the checklist note is found");
    assert_eq!(
        *checklist,
        json!({
            "workId": CHECKLIST,
            "workTitle": "新手露营装备清单｜第一次露营必看",
            "workDesc": "帐篷、天幕、睡袋怎么选？一篇讲清楚",
            "accountNickname": "露营小分队",
            "accountUserid": CAMPER,
            "workLikedCount": 5230,
            "workCollectedCount": 8120,
            "workCommentsCount": 312,
            "workSharedCount": 95,
            "workReadedCount": 0,
            "workPublishTime": "2024-05-03 10:20:00",
            "workUrl": format!("https://www.xiaohongshu.com/explore/{CHECKLIST}"),
            "coverUrl": format!("https://sns-img-qc.xhscdn.com/{CHECKLIST}.jpg"),
            "workType": "normal",
        })
    );
    assert!(items.iter().all(|i| i["workId"] != COFFEE));

    let (status, body) = call(&service, "search-note", json!({"keyword": "露营", "page": 2})).await;
    let data = success(status, &body);
    assert_eq!((data["offset"].as_i64(), data["total"].as_i64()), (Some(20), Some(3)));
    assert_eq!(data["items"], json!([]));
    assert_eq!(data["raw"]["page"], 2);

    let (status, body) = call(&service, "search-note", json!({})).await;
    let data = success(status, &body);
    assert_eq!(data["total"], 4, "no keyword lists every note");
    assert_eq!(data["items"][0]["workId"], COFFEE, "newest first");
    assert_eq!(data["raw"]["order"], "newest");

    let (status, body) = call(&service, "search-note", json!({"keyword": "露营", "page": -1})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "page");
}

#[tokio::test]
async fn user_search_and_account_lookup() {
    let service = service().await;
    let (status, body) = call(&service, "search-user", json!({"keyword": "露营", "sortType": "fans"})).await;
    let items = success(status, &body)["items"].clone();
    assert_eq!(
        items,
        json!([
            {"accountName": "露营小分队", "accountFans": 128000, "accountId": "95270011"},
            {"accountName": "露营装备控阿杰", "accountFans": 56000, "accountId": "3311002"},
        ])
    );
    let (status, body) = call(&service, "search-user", json!({"keyword": "咖啡", "sortType": "general"})).await;
    assert_eq!(success(status, &body)["items"][0]["accountId"], "cafe_map");
    let (status, body) = call(&service, "search-user", json!({"keyword": "露营", "sortType": "likes"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "sortType");
    let (status, body) = call(&service, "search-user", json!({"keyword": "  "})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "keyword");

    let profile = format!("https://www.xiaohongshu.com/user/profile/{CAMPER}?xsec_source=pc_note");
    for id in ["95270011", CAMPER, profile.as_str()] {
        let (status, body) = call(&service, "query-account", json!({"accountId": id})).await;
        assert_eq!(
            success(status, &body)["account"],
            json!({
                "accountName": "露营小分队",
                "accountFans": 128000,
                "accountTotalWorks": 86,
                "intro": "周末带你去露营 | 装备测评",
                "likedCount": 1520000,
                "collectedCount": 430000,
                "region": "浙江",
            })
        );
    }
    // No profile counters stored: the sums over the account's stored notes.
    let (status, body) = call(&service, "query-account", json!({"accountId": "3311002"})).await;
    let account = success(status, &body)["account"].clone();
    assert_eq!(
        (&account["accountTotalWorks"], &account["likedCount"], &account["collectedCount"], &account["region"]),
        (&json!(1), &json!(860), &json!(1500), &json!(""))
    );
    let (status, body) = call(&service, "query-account", json!({"accountId": "00000000"})).await;
    failure(status, &body, 404, "not_found");
    let (status, body) = call(&service, "query-account", json!({"accountId": "https://xhslink.com/m/abc"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "accountId");

    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], common::BOOTSTRAP_POINTS - 6 * 4, "six hits at 4 points; misses free");
}

#[tokio::test]
async fn work_search_scores_and_filters_by_date() {
    let service = service().await;
    let (status, body) = call(&service, "search-work", json!({"keyword": "露营"})).await;
    let items = success(status, &body)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 3);
    let checklist = items.iter().find(|i| i["title"] == "新手露营装备清单｜第一次露营必看").unwrap();
    // likes + 2 collects + 3 comments + 4 shares = 5230 + 16240 + 936 + 380.
    assert_eq!(
        *checklist,
        json!({"title": "新手露营装备清单｜第一次露营必看", "likedCount": 5230, "authorNickname": "露营小分队", "totalScore": 22786.0})
    );

    let (status, body) =
        call(&service, "search-work", json!({"keyword": "露营", "startDate": "2024-05-01", "endDate": "2024-05-20"}))
            .await;
    let data = success(status, &body);
    let mut found = titles(&data);
    found.sort();
    assert_eq!(found, ["新手露营装备清单｜第一次露营必看", "莫干山露营地推荐 周末两天一夜"], "both ends included");

    let (status, body) = call(&service, "search-work", json!({"keyword": "露营", "pageSize": 2, "page": 2})).await;
    assert_eq!(success(status, &body)["items"].as_array().unwrap().len(), 1);
    let (status, body) = call(&service, "search-work", json!({"keyword": "露营", "pageSize": 51})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "pageSize");
    let (status, body) =
        call(&service, "search-work", json!({"keyword": "露营", "startDate": "2024-05-21", "endDate": "2024-05-01"}))
            .await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "endDate");
    let (status, body) = call(&service, "search-work", json!({"keyword": "露营", "startDate": "20240501"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "startDate");
}

#[tokio::test]
async fn crawl_work_sorts_by_the_platform_values() {
    let service = service().await;
    let (status, body) =
        call(&service, "crawl-work", json!({"keyword": "露营", "sortType": "popularity_descending"})).await;
    let data = success(status, &body);
    assert_eq!(
        titles(&data),
        ["莫干山露营地推荐 周末两天一夜", "新手露营装备清单｜第一次露营必看", "露营 营地灯实测五款"]
    );
    assert_eq!(
        data["items"][0],
        json!({"title": "莫干山露营地推荐 周末两天一夜", "likedCount": 12800, "authorNickname": "露营小分队"})
    );

    let (status, body) = call(
        &service,
        "crawl-work",
        json!({"keyword": "露营", "sortType": "time_descending", "startDate": "2024-04-01", "endDate": "2024-05-10"}),
    )
    .await;
    assert_eq!(titles(&success(status, &body)), ["新手露营装备清单｜第一次露营必看", "露营 营地灯实测五款"]);

    let (status, body) =
        call(&service, "crawl-work", json!({"keyword": "露营", "sortType": "comment_descending"})).await;
    assert_eq!(titles(&success(status, &body))[0], "莫干山露营地推荐 周末两天一夜");
    let (status, body) = call(&service, "crawl-work", json!({"keyword": "露营", "sortType": "hot"})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "sortType");
    let (status, body) = call(&service, "crawl-work", json!({"keyword": "潜水"})).await;
    assert_eq!(success(status, &body), json!({"items": []}));
}

#[tokio::test]
async fn comments_are_under_maintenance_and_not_charged() {
    let service = service().await;
    let (status, body) = call(&service, "comments", json!({"noteId": CHECKLIST})).await;
    failure(status, &body, 503, "maintenance");
    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], common::BOOTSTRAP_POINTS);
}

/// The `comments` handler itself (reachable once maintenance is lifted),
/// on the same store.
#[tokio::test]
async fn comments_handler_pages_by_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn ContentStore> = Arc::new(store(dir.path()).await);
    let api = Arc::new(DataApi { store, clock: Clock::System });
    let ask = |note_id: &str, cursor: &str| {
        lifestyle::note_comments(api.clone(), CommentsRequest { note_id: note_id.into(), cursor: cursor.into() })
    };
    let Answer::Found(first) = ask(CHECKLIST, "").await.unwrap() else { panic!("comments found") };
    assert_eq!((first.items.len(), first.total), (20, 25));
    assert_eq!((first.items[0].content.as_str(), first.items[0].like_count), ("请问帐篷是哪个牌子的？（0）", 300));
    assert!(first.items.windows(2).all(|w| w[0].like_count > w[1].like_count), "most liked first");

    let Answer::Found(rest) = ask(CHECKLIST, "20").await.unwrap() else { panic!("the rest") };
    assert_eq!((rest.items.len(), rest.total), (5, 25));
    assert_eq!(rest.items[0].like_count, 100);

    let link = format!("https://www.xiaohongshu.com/explore/{CHECKLIST}?xsec_token=AB");
    let Answer::Found(shifted) = ask(&link, "3").await.unwrap() else { panic!("from the 4th") };
    assert_eq!(shifted.items.len(), 20);
    assert_eq!(shifted.items[..17], first.items[3..]);

    let Answer::Empty(past) = ask(CHECKLIST, "25").await.unwrap() else { panic!("past the end is empty") };
    assert_eq!((past.items.len(), past.total), (0, 25));
    let Answer::Empty(none) = ask(COFFEE, "").await.unwrap() else { panic!("a stored note without comments") };
    assert_eq!(none.total, 0);
    assert!(matches!(ask("64f100000000000000000000", "").await.unwrap(), Answer::NotFound(_)));
    assert_eq!(ask(CHECKLIST, "-5").await.unwrap_err().field.as_deref(), Some("cursor"));
    assert_eq!(ask(CHECKLIST, "next").await.unwrap_err().field.as_deref(), Some("cursor"));
    assert_eq!(ask(" ", "").await.unwrap_err().field.as_deref(), Some("noteId"));
}

#[tokio::test]
async fn grpc_clients_get_the_same_answer() {
    let service = service().await;
    let mut client = LifestyleServiceClient::connect(service.grpc.clone()).await.unwrap();
    let mut request = tonic::Request::new(SearchNoteRequest { keyword: "莫干山".into(), page: 0 });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let answer = client.search_note(request).await.unwrap().into_inner();
    assert_eq!((answer.source.as_str(), answer.total, answer.offset), ("store", 1, 0));
    assert_eq!(answer.items[0].work_id, MOGANSHAN);
    assert_eq!((answer.items[0].work_liked_count, answer.items[0].work_type.as_str()), (12_800, "video"));
}

#[tokio::test]
async fn current_mediacrawler_exports_answer_with_their_anonymous_authors() {
    // MediaCrawler's current rows carry `creator_hash` and a masked nickname
    // instead of `user_id` (docs/store.md "mediacrawler"): imported with the
    // real binary, their notes are answered with that anonymous account.
    let data_dir = tempfile::tempdir().unwrap();
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/store/tests/fixtures/mediacrawler-2026");
    let report = common::process::cli(data_dir.path(), &[], &["import", "mediacrawler", fixtures]);
    assert_eq!((report["written"].as_u64(), report["rejected"].as_u64()), (Some(8), Some(0)), "{report}");
    let service = Service::start_in(data_dir).await;
    let (status, body) = call(&service, "search-note", json!({"keyword": "露营"})).await;
    let items = success(status, &body)["items"].as_array().unwrap().clone();
    let authors: std::collections::BTreeSet<(String, String)> = items
        .iter()
        .map(|i| (i["accountNickname"].as_str().unwrap().to_owned(), i["accountUserid"].as_str().unwrap().to_owned()))
        .collect();
    let expected = [("灯*小*", "ch_02b6e8d41c9f7a35"), ("露*达人", "ch_7f3a9c2e5b1d4068")]
        .map(|(name, hash)| (name.to_owned(), hash.to_owned()));
    assert_eq!(authors, expected.into(), "{items:?}");
    assert_eq!(items.len(), 3);
}
