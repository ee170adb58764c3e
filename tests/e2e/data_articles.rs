//! articles (official-account) operations over REST and gRPC, answered
//! from a store holding three accounts, their articles with counters over
//! time, and comments.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use chrono::{DateTime, Days, NaiveDate, NaiveDateTime, Utc};
use common::{KEY, Service, failure, success};
use mediaops::proto::mediaops::articles::v1::{QueryUserRequest, articles_service_client::ArticlesServiceClient};
use mediaops_store::ContentStore;
use mediaops_store::model::{Account, AccountIds, Comment, Record, Work, WorkIds, WorkSnapshot};
use serde_json::{Value, json};

const RMRB: &str = "MjM5MjAxNDM4MA==";
const DXYS: &str = "MjM5ODQ2MDIyMA==";
const KR36: &str = "MzI2NDk5NzA0Mw==";

/// `YYYY-MM-DD HH:mm:ss` Asia/Shanghai as UTC.
fn at(local: &str) -> DateTime<Utc> {
    let local = NaiveDateTime::parse_from_str(local, "%Y-%m-%d %H:%M:%S").unwrap();
    (local - chrono::Duration::hours(8)).and_utc()
}

/// Yesterday in Asia/Shanghai by the wall clock (the service's default
/// `date` of `articles-daily-publish`).
fn yesterday() -> NaiveDate {
    (Utc::now() + chrono::Duration::hours(8)).date_naive().checked_sub_days(Days::new(1)).unwrap()
}

fn account(
    platform_id: &str,
    wechat_id: &str,
    uid: Option<&str>,
    nickname: &str,
    signature: &str,
    fans: i64,
) -> Record {
    Record::Account(Account {
        platform: "articles".into(),
        platform_id: platform_id.into(),
        ids: AccountIds { wechat_id: Some(wechat_id.into()), uid: uid.map(Into::into), ..AccountIds::default() },
        nickname: nickname.into(),
        signature: Some(signature.into()),
        fans: Some(fans),
        ..Account::default()
    })
}

fn work(uuid: &str, author: &str, title: &str, published: &str) -> Record {
    Record::Work(Work {
        platform: "articles".into(),
        platform_id: uuid.into(),
        ids: WorkIds { work_uuid: Some(uuid.into()), ..WorkIds::default() },
        title: title.into(),
        author_id: Some(author.into()),
        published_at: Some(at(published)),
        work_type: Some("article".into()),
        ..Work::default()
    })
}

/// A snapshot: (captured, views, watch, likes, shares, comments).
fn snapshot(uuid: &str, captured: &str, counts: [Option<i64>; 5]) -> Record {
    let [views, watch, likes, shares, comments] = counts;
    Record::WorkSnapshot {
        platform: "articles".into(),
        platform_id: uuid.into(),
        snapshot: WorkSnapshot {
            captured_at: at(captured),
            views,
            watch,
            likes,
            shares,
            comments,
            ..WorkSnapshot::default()
        },
    }
}

fn comment(id: &str, text: &str, likes: i64, author: &str, published: &str) -> Record {
    Record::Comment(Comment {
        platform: "articles".into(),
        platform_id: id.into(),
        work_id: "wx-rmrb-0601-1".into(),
        text: text.into(),
        likes: Some(likes),
        author_name: Some(author.into()),
        published_at: Some(at(published)),
        ..Comment::default()
    })
}

/// A service whose store holds the fixture.
async fn service() -> Service {
    let dir = tempfile::tempdir().unwrap();
    let store = mediaops_store::sqlite::SqliteStore::open(&dir.path().join("store.sqlite")).await.unwrap();
    let yesterday_nine = format!("{} 09:00:00", yesterday().format("%Y-%m-%d"));
    let records = vec![
        account(RMRB, "rmrbwx", None, "人民日报", "人民日报官方微信，参与、沟通、记录时代。", 30_000_000),
        account(DXYS, "DingXiangYiSheng", Some("3094043316"), "丁香医生", "专业的健康科普平台。", 12_000_000),
        account(KR36, "wow36kr", None, "36氪", "36氪官方微信，让一部分人先看到未来。", 5_000_000),
        work("wx-rmrb-0601-1", RMRB, "人工智能如何改变我们的生活", "2024-06-01 08:00:00"),
        snapshot("wx-rmrb-0601-1", "2024-06-01 12:00:00", [Some(52_000), Some(800), Some(1_500), Some(300), Some(120)]),
        snapshot(
            "wx-rmrb-0601-1",
            "2024-06-02 12:00:00",
            [Some(100_001), Some(2_100), Some(3_200), Some(650), Some(240)],
        ),
        work("wx-rmrb-0601-2", RMRB, "夏季高温来袭，这份防暑指南请收好", "2024-06-01 19:30:00"),
        snapshot("wx-rmrb-0601-2", "2024-06-02 12:00:00", [Some(80_000), Some(1_200), Some(900), None, None]),
        work("wx-rmrb-0603-1", RMRB, "高考倒计时：人工智能命题作文怎么写", "2024-06-03 07:00:00"),
        snapshot("wx-rmrb-0603-1", "2024-06-03 12:00:00", [Some(30_000), Some(400), Some(600), None, None]),
        work("wx-dxys-0601-1", DXYS, "人工智能看病靠谱吗？医生这样说", "2024-06-01 21:00:00"),
        snapshot("wx-dxys-0601-1", "2024-06-02 12:00:00", [Some(45_000), Some(600), Some(700), None, None]),
        work("wx-dxys-0602-1", DXYS, "凌晨发布：睡眠不足的危害", "2024-06-02 00:00:30"),
        snapshot("wx-dxys-0602-1", "2024-06-02 12:00:00", [Some(20_000), None, None, None, None]),
        work("wx-36kr-0520-1", KR36, "人工智能大模型创业公司融资盘点", "2024-05-20 10:00:00"),
        snapshot("wx-36kr-0520-1", "2024-05-21 12:00:00", [Some(12_000), Some(90), Some(150), None, None]),
        work("wx-36kr-yesterday", KR36, "昨日科技要闻速览", &yesterday_nine),
        snapshot("wx-36kr-yesterday", &yesterday_nine, [Some(5_000), None, None, None, None]),
        comment("c1", "说得太好了，技术要为人服务", 56, "读者小王", "2024-06-01 09:15:00"),
        comment("c2", "希望多一些这样的科普", 12, "晨光", "2024-06-01 10:02:00"),
        comment("c3", "人工智能不会取代人，会用人工智能的人会", 230, "老李", "2024-06-01 08:40:00"),
    ];
    for outcome in store.write(&records).await.unwrap() {
        outcome.unwrap();
    }
    Service::start_in(dir).await
}

async fn call(service: &Service, slug: &str, body: Value) -> (u16, Value) {
    service.post(&format!("/api/apis/articles/{slug}/call"), body).await
}

/// The `field` of a 400 `invalid_input` answer.
async fn bad_field(service: &Service, slug: &str, body: Value) -> Value {
    let (status, body) = call(service, slug, body).await;
    failure(status, &body, 400, "invalid_input")["field"].clone()
}

#[tokio::test]
async fn search_article_finds_titles_with_account_and_time() {
    let service = service().await;
    let (status, body) = call(&service, "search-article", json!({"keyword": "人工智能"})).await;
    let items = success(status, &body)["items"].as_array().unwrap().clone();
    let mut titles: Vec<&str> = items.iter().map(|i| i["title"].as_str().unwrap()).collect();
    titles.sort_unstable();
    assert_eq!(
        titles,
        [
            "人工智能大模型创业公司融资盘点",
            "人工智能如何改变我们的生活",
            "人工智能看病靠谱吗？医生这样说",
            "高考倒计时：人工智能命题作文怎么写"
        ]
    );
    let kr = items.iter().find(|i| i["accountName"] == "36氪").unwrap();
    assert_eq!(
        kr,
        &json!({"title": "人工智能大模型创业公司融资盘点", "accountName": "36氪", "publishTime": "2024-05-20 10:00:00"})
    );

    let (status, body) = call(&service, "search-article", json!({"keyword": "人工智能", "page": 2})).await;
    assert_eq!(success(status, &body), json!({"items": []}));
    assert_eq!(bad_field(&service, "search-article", json!({"keyword": "人工智能", "page": -1})).await, "page");

    // keyword and page are optional (spec 4.5; docs/data-apis.md "Empty requests"):
    // an empty request answers the latest articles, newest first
    for empty in [json!({}), json!({"keyword": "   "})] {
        let (status, body) = call(&service, "search-article", empty).await;
        let items = success(status, &body)["items"].as_array().unwrap().clone();
        assert!(!items.is_empty(), "{body}");
        let times: Vec<&str> = items.iter().map(|i| i["publishTime"].as_str().unwrap()).collect();
        let mut newest_first = times.clone();
        newest_first.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(times, newest_first, "newest first");
    }
}

#[tokio::test]
async fn query_user_takes_the_english_id_and_refuses_display_names() {
    let service = service().await;
    let (status, body) = call(&service, "query-user", json!({"account": "rmrbwx"})).await;
    assert_eq!(success(status, &body)["account"], json!({"accountName": "人民日报", "uid": RMRB}));
    // A stored uid is answered as the uid, and finds the account too.
    for account in ["DingXiangYiSheng", "3094043316"] {
        let (status, body) = call(&service, "query-user", json!({"account": account})).await;
        assert_eq!(success(status, &body)["account"], json!({"accountName": "丁香医生", "uid": "3094043316"}));
    }

    let (status, body) = call(&service, "query-user", json!({"account": "人民日报"})).await;
    let error = failure(status, &body, 400, "invalid_input");
    assert_eq!(error["field"], "account");
    assert!(error["message"].as_str().unwrap().contains("articles-search-user"), "{error}");
    let (status, body) = call(&service, "query-user", json!({"account": "nobody_here"})).await;
    failure(status, &body, 404, "not_found");

    let (_, balance) = service.get("/api/account/balance").await;
    assert_eq!(balance["data"]["points"], common::BOOTSTRAP_POINTS - 12, "three hits at 4; the 400 and 404 are free");
}

#[tokio::test]
async fn query_work_and_metrics_read_the_newest_snapshot() {
    let service = service().await;
    let (status, body) = call(&service, "query-work", json!({"workUuid": "wx-rmrb-0601-1"})).await;
    assert_eq!(
        success(status, &body)["item"],
        json!({"title": "人工智能如何改变我们的生活", "accountName": "人民日报"})
    );
    let (status, body) = call(&service, "query-work", json!({"workUuid": "wx-none"})).await;
    failure(status, &body, 404, "not_found");

    let (status, body) = call(&service, "article-metrics", json!({"workUuid": "wx-rmrb-0601-1"})).await;
    assert_eq!(
        success(status, &body),
        json!({"workUuid": "wx-rmrb-0601-1", "readCount": 100_001, "likeCount": 3_200, "shareCount": 650,
               "watchCount": 2_100, "commentCount": 240})
    );
    // Unknown counters are 0.
    let (status, body) = call(&service, "article-metrics", json!({"workUuid": "wx-dxys-0602-1"})).await;
    let data = success(status, &body);
    assert_eq!(
        (data["readCount"].clone(), data["watchCount"].clone(), data["shareCount"].clone()),
        (json!(20_000), json!(0), json!(0))
    );
    let (status, body) = call(&service, "article-metrics", json!({"workUuid": "wx-none"})).await;
    failure(status, &body, 404, "not_found");
    assert_eq!(bad_field(&service, "article-metrics", json!({"workUuid": " "})).await, "workUuid");
}

#[tokio::test]
async fn hot_article_ranks_by_reads_within_the_dates() {
    let service = service().await;
    let body = json!({"keyword": "人工智能", "startDate": "2024-06-01", "endDate": "2024-06-03"});
    let (status, body) = call(&service, "hot-article", body).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([
            {"title": "人工智能如何改变我们的生活", "clicksCount": 100_001, "watchCount": 2_100, "likeCount": 3_200},
            {"title": "人工智能看病靠谱吗？医生这样说", "clicksCount": 45_000, "watchCount": 600, "likeCount": 700},
            {"title": "高考倒计时：人工智能命题作文怎么写", "clicksCount": 30_000, "watchCount": 400, "likeCount": 600},
        ])
    );
    let (status, body) = call(&service, "hot-article", json!({"keyword": "人工智能", "endDate": "2024-06-01"})).await;
    let items = success(status, &body)["items"].as_array().unwrap().clone();
    let titles: Vec<&str> = items.iter().map(|i| i["title"].as_str().unwrap()).collect();
    assert_eq!(
        titles,
        ["人工智能如何改变我们的生活", "人工智能看病靠谱吗？医生这样说", "人工智能大模型创业公司融资盘点"]
    );

    let body = json!({"keyword": "人工智能", "startDate": "2024-06-03", "endDate": "2024-06-01"});
    assert_eq!(bad_field(&service, "hot-article", body).await, "endDate");
    assert_eq!(
        bad_field(&service, "hot-article", json!({"keyword": "人工智能", "startDate": "2024/06/01"})).await,
        "startDate"
    );
}

#[tokio::test]
async fn daily_publish_lists_each_named_accounts_works_of_the_day() {
    let service = service().await;
    let names = json!(["人民日报", "DingXiangYiSheng", "不存在的号", "rmrbwx"]);
    let (status, body) =
        call(&service, "articles-daily-publish", json!({"date": "2024-06-01", "accountNames": names})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([
            {"accountName": "人民日报", "title": "人工智能如何改变我们的生活", "clicksCount": 100_001},
            {"accountName": "人民日报", "title": "夏季高温来袭，这份防暑指南请收好", "clicksCount": 80_000},
            {"accountName": "丁香医生", "title": "人工智能看病靠谱吗？医生这样说", "clicksCount": 45_000},
        ]),
        "accounts in the order named, each once; the 00:00:30 article belongs to the next day"
    );
    // No date: yesterday (Asia/Shanghai).
    let (status, body) = call(&service, "articles-daily-publish", json!({"accountNames": ["36氪"]})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([{"accountName": "36氪", "title": "昨日科技要闻速览", "clicksCount": 5_000}])
    );
    let (status, body) =
        call(&service, "articles-daily-publish", json!({"date": "2024-06-02", "accountNames": ["36氪"]})).await;
    assert_eq!(success(status, &body), json!({"items": []}));

    assert_eq!(
        bad_field(&service, "articles-daily-publish", json!({"date": "6/1", "accountNames": ["36氪"]})).await,
        "date"
    );
    assert_eq!(bad_field(&service, "articles-daily-publish", json!({"accountNames": []})).await, "accountNames");
    assert_eq!(
        bad_field(&service, "articles-daily-publish", json!({"accountNames": ["36氪", " "]})).await,
        "accountNames"
    );
    let many: Vec<String> = (0..51).map(|i| format!("号{i}")).collect();
    assert_eq!(bad_field(&service, "articles-daily-publish", json!({"accountNames": many})).await, "accountNames");
}

#[tokio::test]
async fn work_list_pages_an_accounts_articles_newest_first() {
    let service = service().await;
    let (status, body) = call(&service, "articles-work-list", json!({"account": "rmrbwx"})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([
            {"title": "高考倒计时：人工智能命题作文怎么写", "publishTime": "2024-06-03 07:00:00", "clicksCount": 30_000},
            {"title": "夏季高温来袭，这份防暑指南请收好", "publishTime": "2024-06-01 19:30:00", "clicksCount": 80_000},
            {"title": "人工智能如何改变我们的生活", "publishTime": "2024-06-01 08:00:00", "clicksCount": 100_001},
        ])
    );
    let body =
        json!({"account": RMRB, "publishTimeStart": "2024-06-01 12:00:00", "publishTimeEnd": "2024-06-02 23:59:59"});
    let (status, body) = call(&service, "articles-work-list", body).await;
    let items = success(status, &body)["items"].clone();
    assert_eq!(items.as_array().unwrap().len(), 1);
    assert_eq!(items[0]["title"], "夏季高温来袭，这份防暑指南请收好");
    let (status, body) = call(&service, "articles-work-list", json!({"account": "rmrbwx", "page": 2})).await;
    assert_eq!(success(status, &body), json!({"items": []}));

    // An id the store lacks falls back to the exact accountName.
    let (status, body) =
        call(&service, "articles-work-list", json!({"account": "unknown_id", "accountName": "丁香医生"})).await;
    let titles: Vec<Value> =
        success(status, &body)["items"].as_array().unwrap().iter().map(|i| i["title"].clone()).collect();
    assert_eq!(titles, [json!("凌晨发布：睡眠不足的危害"), json!("人工智能看病靠谱吗？医生这样说")]);
    let (status, body) = call(&service, "articles-work-list", json!({"account": "unknown_id"})).await;
    failure(status, &body, 404, "not_found");

    let body = json!({"account": "rmrbwx", "publishTimeStart": "2024-06-01"});
    assert_eq!(bad_field(&service, "articles-work-list", body).await, "publishTimeStart");
    let body = json!({"account": "rmrbwx", "publishTimeStart": "2024-06-02 00:00:00", "publishTimeEnd": "2024-06-01 00:00:00"});
    assert_eq!(bad_field(&service, "articles-work-list", body).await, "publishTimeEnd");
}

#[tokio::test]
async fn search_user_finds_accounts_and_sorts_by_fans() {
    let service = service().await;
    let (status, body) = call(&service, "articles-search-user", json!({"keyword": "健康科普"})).await;
    assert_eq!(
        success(status, &body)["items"],
        json!([{"accountName": "丁香医生", "description": "专业的健康科普平台。", "uid": "3094043316"}])
    );
    let (status, body) =
        call(&service, "articles-search-user", json!({"keyword": "官方微信", "sortType": "fans"})).await;
    let names: Vec<Value> =
        success(status, &body)["items"].as_array().unwrap().iter().map(|i| i["accountName"].clone()).collect();
    assert_eq!(names, [json!("人民日报"), json!("36氪")]);
    let (status, body) = call(&service, "articles-search-user", json!({"keyword": "官方微信", "page": 2})).await;
    assert_eq!(success(status, &body), json!({"items": []}));
    assert_eq!(
        bad_field(&service, "articles-search-user", json!({"keyword": "官方微信", "sortType": "hot"})).await,
        "sortType"
    );
}

#[tokio::test]
async fn comments_come_most_liked_first_with_the_total() {
    let service = service().await;
    let (status, body) = call(&service, "article-comments", json!({"workUuid": "wx-rmrb-0601-1"})).await;
    let data = success(status, &body);
    assert_eq!(data["total"], 3);
    assert_eq!(
        data["items"][0],
        json!({"content": "人工智能不会取代人，会用人工智能的人会", "likeCount": 230, "authorName": "老李",
               "commentTime": "2024-06-01 08:40:00"})
    );
    let likes: Vec<Value> = data["items"].as_array().unwrap().iter().map(|i| i["likeCount"].clone()).collect();
    assert_eq!(likes, [json!(230), json!(56), json!(12)]);
    let (status, body) = call(&service, "article-comments", json!({"workUuid": "wx-rmrb-0601-1", "page": 2})).await;
    assert_eq!(success(status, &body), json!({"items": [], "total": 3}));
    let (status, body) = call(&service, "article-comments", json!({"workUuid": "wx-rmrb-0601-2"})).await;
    assert_eq!(success(status, &body), json!({"items": [], "total": 0}));
    let (status, body) = call(&service, "article-comments", json!({"workUuid": "wx-none"})).await;
    failure(status, &body, 404, "not_found");
}

#[tokio::test]
async fn grpc_clients_get_the_same_answer() {
    let service = service().await;
    let mut client = ArticlesServiceClient::connect(service.grpc.clone()).await.unwrap();
    let mut request = tonic::Request::new(QueryUserRequest { account: "wow36kr".into() });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let account = client.query_user(request).await.unwrap().into_inner().account.unwrap();
    assert_eq!((account.account_name.as_str(), account.uid.as_str()), ("36氪", KR36));

    let mut request = tonic::Request::new(QueryUserRequest { account: "三十六氪".into() });
    request.metadata_mut().insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    let status = client.query_user(request).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
}
