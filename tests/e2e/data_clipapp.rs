//! clipapp operations (spec 4.10) over REST and gRPC, answered from a store
//! holding a few short-clip accounts and works written here.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use chrono::{DateTime, Duration, FixedOffset, TimeZone, Utc};
use common::{KEY, Service, failure, success};
use mediaops::proto::mediaops::clipapp::v1::{SearchWorkRequest, clipapp_service_client::ClipappServiceClient};
use mediaops_store::ContentStore;
use mediaops_store::model::{Account, AccountIds, Record, Work, WorkIds, WorkSnapshot};
use serde_json::{Value, json};

/// The chef's user id (`platform_id`); his kwaiId is `kuaishou_chef`.
const CHEF: &str = "3xkz9q2m8n7wabc";
/// An account without a kwaiId.
const NOVICE: &str = "3xnokwai5t6y7u8";
const HUIGUOROU: &str = "3xv8k2abcdxyz01";
const MAPO: &str = "3xv8k2abcdxyz02";
const SHUIZHUYU: &str = "3xv8k2abcdxyz03";
const GONGBAO: &str = "3xv8k2abcdxyz04";

/// 2024-06-`day` `hour`:00 in Asia/Shanghai (UTC+8).
fn at(day: u32, hour: u32) -> DateTime<Utc> {
    FixedOffset::east_opt(8 * 3600).unwrap().with_ymd_and_hms(2024, 6, day, hour, 0, 0).unwrap().with_timezone(&Utc)
}

fn account(id: &str, kwai_id: Option<&str>, nickname: &str, signature: &str, fans: i64) -> Record {
    Record::Account(Account {
        platform: "clipapp".into(),
        platform_id: id.into(),
        ids: AccountIds { kwai_id: kwai_id.map(str::to_owned), ..AccountIds::default() },
        nickname: nickname.into(),
        signature: Some(signature.into()),
        fans: Some(fans),
        avatar: Some(format!("https://p2.a.yximgs.com/uhead/AB/{id}.jpg")),
        ..Account::default()
    })
}

/// A work and its snapshot: `(likes, collects, comments, views)`.
fn work(photo_id: &str, author: &str, caption: &str, published: DateTime<Utc>, counts: [i64; 4]) -> [Record; 2] {
    let work = Work {
        platform: "clipapp".into(),
        platform_id: photo_id.into(),
        ids: WorkIds { photo_id: Some(photo_id.into()), ..WorkIds::default() },
        title: caption.into(),
        description: Some(caption.into()),
        author_id: Some(author.into()),
        published_at: Some(published),
        cover: Some(format!("https://p1.a.yximgs.com/upic/{photo_id}.jpg")),
        video_url: Some(format!("https://v2.kwaicdn.com/upic/{photo_id}_b.mp4")),
        work_type: Some("video".into()),
        ..Work::default()
    };
    let [likes, collects, comments, views] = counts.map(Some);
    let snapshot = WorkSnapshot { captured_at: at(20, 9), likes, collects, comments, views, ..WorkSnapshot::default() };
    [Record::Work(work), Record::WorkSnapshot { platform: "clipapp".into(), platform_id: photo_id.into(), snapshot }]
}

/// A service whose store holds the chef (3 川菜 clips and 20 older 家常菜
/// clips) and a novice without a kwaiId (1 川菜 clip).
async fn service() -> Service {
    let dir = tempfile::tempdir().unwrap();
    let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let mut records = vec![
        account(CHEF, Some("kuaishou_chef"), "川菜王师傅", "每天一道家常川菜，关注我学做菜", 880_000),
        account(NOVICE, None, "川菜小白", "厨房新手的川菜练习", 1_200),
    ];
    let works = [
        work(HUIGUOROU, CHEF, "回锅肉的正宗做法，一学就会 #川菜", at(1, 18), [5000, 900, 200, 120_000]),
        work(MAPO, CHEF, "麻婆豆腐，川菜之魂，麻辣鲜香", at(3, 18), [8000, 300, 650, 200_000]),
        work(SHUIZHUYU, CHEF, "家常版水煮鱼 #川菜 #下饭菜", at(2, 18), [1000, 2000, 80, 50_000]),
        work(GONGBAO, NOVICE, "我的第一道川菜：宫保鸡丁", at(4, 12), [10, 1, 3, 300]),
    ];
    records.extend(works.into_iter().flatten());
    for n in 1..=20 {
        let id = format!("3xdaily{n:08}");
        records.extend(work(&id, CHEF, &format!("家常菜合集 第{n}集"), at(1, 9) - Duration::hours(n), [n; 4]));
    }
    let outcomes = store.write(&records).await.unwrap();
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    Service::start_in(dir).await
}

fn photo_ids(data: &Value) -> Vec<String> {
    data["items"].as_array().unwrap().iter().map(|i| i["photoId"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn search_work_sorts_by_the_four_choices_and_has_no_total() {
    let service = service().await;
    let (status, body) = service.post("/api/apis/clipapp/search-work/call", json!({"keyword": "川菜"})).await;
    let data = success(status, &body);
    assert!(data.get("total").is_none(), "no total: {data}");
    let mapo = data["items"].as_array().unwrap().iter().find(|i| i["photoId"] == MAPO).unwrap().clone();
    assert_eq!(
        mapo,
        json!({
            "caption": "麻婆豆腐，川菜之魂，麻辣鲜香",
            "nickname": "川菜王师傅",
            "authorFans": 880000,
            "likeCount": 8000,
            "commentCount": 650,
            "viewCount": 200000,
            "publishTime": "2024-06-03 18:00:00",
            "photoId": MAPO,
            "coverUrl": format!("https://p1.a.yximgs.com/upic/{MAPO}.jpg"),
            "videoUrl": format!("https://v2.kwaicdn.com/upic/{MAPO}_b.mp4"),
        })
    );
    for (sort, order) in [
        ("最新", [GONGBAO, MAPO, SHUIZHUYU, HUIGUOROU]),
        ("最多点赞", [MAPO, HUIGUOROU, SHUIZHUYU, GONGBAO]),
        ("最多收藏", [SHUIZHUYU, HUIGUOROU, MAPO, GONGBAO]),
    ] {
        let (status, body) =
            service.post("/api/apis/clipapp/search-work/call", json!({"keyword": "川菜", "sort": sort})).await;
        assert_eq!(photo_ids(&success(status, &body)), order, "{sort}");
    }
    let (status, body) =
        service.post("/api/apis/clipapp/search-work/call", json!({"keyword": "川菜", "sort": "综合"})).await;
    assert_eq!(photo_ids(&success(status, &body)).len(), 4);
    for sort in ["hot", "最热", "likes"] {
        let (status, body) =
            service.post("/api/apis/clipapp/search-work/call", json!({"keyword": "川菜", "sort": sort})).await;
        assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "sort", "{sort}");
    }
}

#[tokio::test]
async fn search_work_pages_until_an_empty_list() {
    let service = service().await;
    let mut pages = Vec::new();
    for page in 1..=3 {
        let body = json!({"keyword": "川菜", "sort": "最新", "page": page, "size": 3});
        let (status, body) = service.post("/api/apis/clipapp/search-work/call", body).await;
        pages.push(photo_ids(&success(status, &body)));
    }
    assert_eq!(pages, [vec![GONGBAO, MAPO, SHUIZHUYU], vec![HUIGUOROU], vec![]]);
    let (status, body) = service.post("/api/apis/clipapp/search-work/call", json!({"keyword": "家常菜合集"})).await;
    assert_eq!(photo_ids(&success(status, &body)).len(), 20, "size defaults to 20");
    let (status, body) =
        service.post("/api/apis/clipapp/search-work/call", json!({"keyword": "家常菜合集", "size": 50})).await;
    assert_eq!(photo_ids(&success(status, &body)).len(), 20);
    for size in [51, -5] {
        let (status, body) =
            service.post("/api/apis/clipapp/search-work/call", json!({"keyword": "川菜", "size": size})).await;
        assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "size");
    }
    let (status, body) = service.post("/api/apis/clipapp/search-work/call", json!({"keyword": "粤菜"})).await;
    assert_eq!(success(status, &body), json!({"items": []}));
}

#[tokio::test]
async fn search_user_gives_kwai_ids_which_may_be_empty() {
    let service = service().await;
    let (status, body) = service.post("/api/apis/clipapp/search-user/call", json!({"accountName": "川菜"})).await;
    let data = success(status, &body);
    assert_eq!(data["total"], 2);
    let items = data["items"].as_array().unwrap();
    let chef = items.iter().find(|i| i["nickname"] == "川菜王师傅").unwrap();
    assert_eq!(
        chef,
        &json!({
            "nickname": "川菜王师傅",
            "kwaiId": "kuaishou_chef",
            "signature": "每天一道家常川菜，关注我学做菜",
            "headUrl": format!("https://p2.a.yximgs.com/uhead/AB/{CHEF}.jpg"),
            "coverImgUrl": "",
        })
    );
    let novice = items.iter().find(|i| i["nickname"] == "川菜小白").unwrap();
    assert_eq!(novice["kwaiId"], "");
    let (status, body) = service
        .post("/api/apis/clipapp/search-user/call", json!({"accountName": "川菜", "page": 2, "pageSize": 1}))
        .await;
    let data = success(status, &body);
    assert_eq!((data["total"].clone(), data["items"].as_array().unwrap().len()), (json!(2), 1));
    let (status, body) =
        service.post("/api/apis/clipapp/search-user/call", json!({"accountName": "川菜", "pageSize": 51})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "pageSize");
}

#[tokio::test]
async fn query_work_is_flat_and_misses_are_free_404s() {
    let service = service().await;
    let (status, body) = service.post("/api/apis/clipapp/query-work/call", json!({"photoId": SHUIZHUYU})).await;
    assert_eq!(
        success(status, &body),
        json!({
            "caption": "家常版水煮鱼 #川菜 #下饭菜",
            "nickname": "川菜王师傅",
            "authorFans": 880000,
            "likeCount": 1000,
            "commentCount": 80,
            "viewCount": 50000,
            "publishTime": "2024-06-02 18:00:00",
            "coverUrl": format!("https://p1.a.yximgs.com/upic/{SHUIZHUYU}.jpg"),
            "videoUrl": format!("https://v2.kwaicdn.com/upic/{SHUIZHUYU}_b.mp4"),
        })
    );
    let (status, body) = service.post("/api/apis/clipapp/query-work/call", json!({"photoId": "3xnothere"})).await;
    failure(status, &body, 404, "not_found");
    let (status, body) = service.post("/api/apis/clipapp/query-work/call", json!({"photoId": "  "})).await;
    assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "photoId");
    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], common::BOOTSTRAP_POINTS - 4, "one hit charged 4; the miss is free");
}

#[tokio::test]
async fn user_works_lists_the_kwai_id_newest_first_until_empty() {
    let service = service().await;
    let (status, body) = service.post("/api/apis/clipapp/user-works/call", json!({"kwaiId": "kuaishou_chef"})).await;
    let data = success(status, &body);
    assert!(data.get("total").is_none(), "no total: {data}");
    let page1 = photo_ids(&data);
    assert_eq!(page1.len(), 20, "20 per page");
    assert_eq!(page1[..4], [MAPO, SHUIZHUYU, HUIGUOROU, "3xdaily00000001"], "newest first");
    assert!(data["items"].as_array().unwrap().iter().all(|i| i["nickname"] == "川菜王师傅"));
    let (status, body) =
        service.post("/api/apis/clipapp/user-works/call", json!({"kwaiId": "kuaishou_chef", "page": 2})).await;
    assert_eq!(photo_ids(&success(status, &body)), ["3xdaily00000018", "3xdaily00000019", "3xdaily00000020"]);
    let (status, body) =
        service.post("/api/apis/clipapp/user-works/call", json!({"kwaiId": "kuaishou_chef", "page": 3})).await;
    assert_eq!(success(status, &body), json!({"items": []}));

    let (status, body) = service.post("/api/apis/clipapp/user-works/call", json!({"kwaiId": "kuaishou_nobody"})).await;
    assert_eq!(success(status, &body), json!({"items": []}), "unknown kwaiId: empty list");
    for kwai_id in ["", "   "] {
        let (status, body) = service.post("/api/apis/clipapp/user-works/call", json!({"kwaiId": kwai_id})).await;
        assert_eq!(failure(status, &body, 400, "invalid_input")["field"], "kwaiId", "{kwai_id:?}");
    }
}

#[tokio::test]
async fn grpc_clients_get_the_same_answer() {
    let service = service().await;
    let mut client = ClipappServiceClient::connect(service.grpc.clone()).await.unwrap();
    let mut request = tonic::Request::new(SearchWorkRequest {
        keyword: "川菜".into(),
        sort: "最多点赞".into(),
        size: 2,
        ..SearchWorkRequest::default()
    });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let items = client.search_work(request).await.unwrap().into_inner().items;
    let got: Vec<_> = items.iter().map(|i| (i.photo_id.as_str(), i.like_count, i.author_fans)).collect();
    assert_eq!(got, [(MAPO, 8000, 880_000), (HUIGUOROU, 5000, 880_000)]);
    let mut request =
        tonic::Request::new(SearchWorkRequest { keyword: "川菜".into(), sort: "hot".into(), ..Default::default() });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let status = client.search_work(request).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
}
