//! The TikHub pack for WeChat articles (`articles`), Bilibili (`videosite`), WeChat Channels (`channels`), Kuaishou (`clipapp`), Weibo (`microblog`) and the cross-platform operations (`tool`, `multi`, `trend`, skills).
//!
//! Every operation this part of the pack maps is called over REST against
//! the fake vendor: the recorded replies where TikHub's route was recorded
//! (Bilibili search, WeChat Channels search, Xiaohongshu search), the
//! fixtures of `tests/fixtures/vendors/tikhub` otherwise. Each call checks
//! the answer's rows against the reply, the price charged once, the request
//! TikHub received and the records written back to the store.
//!
//! Within a test, feeds and lookups come before the calls whose write-back
//! would store what they read, so that a chain reading the store first
//! (docs/vendors.md "Default chains") still asks the vendor.

use std::time::Duration;

use mediaops_store::ContentStore;
use mediaops_store::model::{AccountRecord, WorkRecord};
use mediaops_store::sqlite::SqliteStore;
use serde_json::{Value, json};

use super::pack_service;
use crate::common::vendor_replay::{Seen, VendorReplay, fixtures, recorded};
use crate::common::{KEY, Service, success};

/// A service whose every operation the TikHub pack maps is answered by the
/// fake vendor, with that vendor.
async fn tikhub() -> (Service, VendorReplay, tempfile::TempDir) {
    let replay = VendorReplay::start(&[recorded("tikhub"), fixtures("tikhub")], &[]).await;
    let (service, files) = pack_service("tikhub", &replay).await;
    (service, replay, files)
}

pub(crate) async fn points(service: &Service) -> i64 {
    let (status, body) = service.get("/api/account/balance").await;
    success(status, &body)["points"].as_i64().unwrap()
}

/// Calls `path` with `body`, checks it answered and cost `price` points
/// exactly, and gives its `data` and the one request TikHub received for it.
async fn call(service: &Service, replay: &VendorReplay, path: &str, body: Value, price: i64) -> (Value, Seen) {
    let before_points = points(service).await;
    let before_seen = replay.seen().len();
    let (status, reply) = service.post(path, body).await;
    let data = success(status, &reply);
    assert_eq!(before_points - points(service).await, price, "{path} is charged its price once");
    let seen = replay.seen();
    assert_eq!(seen.len(), before_seen + 1, "{path} asked TikHub once");
    (data, seen.last().unwrap().clone())
}

pub(crate) async fn store_of(service: &Service) -> SqliteStore {
    SqliteStore::open(&service.data_path().join("store.sqlite")).await.unwrap()
}

/// The stored work, once the background write-back has written it (10 s at
/// most).
pub(crate) async fn written_work(store: &SqliteStore, platform: &str, id: &str) -> WorkRecord {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(work) = store.get_work(platform, id).await.unwrap()
            && work.latest.is_some()
        {
            return work;
        }
        assert!(std::time::Instant::now() < deadline, "{platform} work {id} was never written back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The stored account, once written back (10 s at most).
pub(crate) async fn written_account(store: &SqliteStore, platform: &str, id: &str) -> AccountRecord {
    written_account_where(store, platform, id, |_| true).await
}

/// The stored account once `ready` holds for it (10 s at most): a later
/// write-back may complete an account an earlier one stored.
async fn written_account_where(
    store: &SqliteStore,
    platform: &str,
    id: &str,
    ready: impl Fn(&AccountRecord) -> bool,
) -> AccountRecord {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(account) = store.get_account(platform, id).await.unwrap()
            && ready(&account)
        {
            return account;
        }
        assert!(std::time::Instant::now() < deadline, "{platform} account {id} was never written back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub(crate) fn query(seen: &Seen) -> Vec<(&str, &str)> {
    let mut pairs: Vec<(&str, &str)> = seen.query.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    pairs.sort_unstable();
    pairs
}

#[tokio::test]
async fn bilibili_operations_answer_from_the_recorded_search_and_the_fixtures() {
    let (service, replay, _files) = tikhub().await;
    let store = store_of(&service).await;

    // The feeds add their topic to the keyword.
    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/videosite/videosite-playlet-feed/call",
        json!({"keyword": "火影忍者", "pageSize": 42}),
        6,
    )
    .await;
    assert_eq!(seen.query["keyword"], "火影忍者 短剧");
    assert_eq!(data["items"][1], json!({"title": "一口气看完，火影忍者1-720集！10亿人的青春", "likeCount": 514803}));
    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/videosite/videosite-ai-feed/call",
        json!({"keywords": ["火影", "忍者"], "pageNum": 1, "pageSize": 42}),
        6,
    )
    .await;
    assert_eq!(seen.query["keyword"], "火影 忍者 AI");
    assert_eq!(data["items"].as_array().unwrap().len(), 42);

    // The recorded general search (火影忍者, 42 a page): rows, total, write-back.
    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/videosite/search-work/call",
        json!({"keyword": "火影忍者", "pageSize": 42}),
        4,
    )
    .await;
    assert_eq!((seen.method.as_str(), seen.route.as_str()), ("GET", "api/v1/bilibili/web/fetch_general_search"));
    assert_eq!(query(&seen), [("keyword", "火影忍者"), ("order", "totalrank"), ("page", "1"), ("page_size", "42")]);
    assert_eq!(data["total"], 1000);
    let items = data["items"].as_array().unwrap();
    assert_eq!(items.len(), 42);
    assert_eq!(items[0], json!({"title": "【火-影-忍-者】全720集 4K超清未删减完整版 reaction", "likeCount": 782}));
    // Highlight tags and HTML entities are removed from the titles.
    assert_eq!(items[8]["title"], "《忍战4K26》<忍战中期3>秽土火影加入战场、木叶新三忍登场、十尾人柱力诞生");
    assert_eq!(
        written_work(&store, "videosite", "BV1ct421u7EJ").await.work.title,
        "《忍战4K28》<忍战中期4>十尾人柱力带土VS四位火影外加鸣人佐助"
    );
    let work = written_work(&store, "videosite", "BV19wFGzzEPZ").await;
    assert_eq!(work.work.author_id.as_deref(), Some("3691001075993433"));
    assert_eq!(work.work.category.as_deref(), Some("综艺"));
    let counters = work.latest.unwrap();
    assert_eq!(
        (counters.likes, counters.views, counters.collects, counters.comments),
        (Some(782), Some(47660), Some(1832), Some(46))
    );
    assert_eq!(written_account(&store, "videosite", "3691001075993433").await.account.nickname, "b站耐补王三世");

    // The spec's sample order `time` is Bilibili's `pubdate`.
    let (_, seen) = call(
        &service,
        &replay,
        "/api/apis/videosite/search-work/call",
        json!({"keyword": "火影忍者", "pageSize": 42, "order": "time"}),
        4,
    )
    .await;
    assert_eq!(seen.query["order"], "pubdate");

    let (data, seen) =
        call(&service, &replay, "/api/apis/videosite/query-account/call", json!({"mid": "700000001"}), 4).await;
    assert_eq!(
        (seen.route.as_str(), query(&seen)),
        ("api/v1/bilibili/app/fetch_user_info", vec![("user_id", "700000001")])
    );
    assert_eq!(
        data["account"],
        json!({"name": "样例UP主", "mid": "700000001", "follower": 45678, "nickname": "样例UP主", "certification": "样例认证",
               "category": "", "totalPlayCount": 0, "totalLikeCount": 0})
    );

    // A space link is reduced to its mid; categories come from the reply's type list.
    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/videosite/videosite-user-works/call",
        json!({"mid": "https://space.bilibili.com/700000001"}),
        4,
    )
    .await;
    assert_eq!(query(&seen), [("order", "pubdate"), ("pn", "1"), ("uid", "700000001")]);
    assert_eq!(
        data["items"],
        json!([{"title": "样例视频一", "url": "https://www.bilibili.com/video/BV1fixtureA1", "categoryName": "生活"},
               {"title": "样例视频二", "url": "https://www.bilibili.com/video/BV1fixtureA2", "categoryName": "单机游戏"}])
    );
    let work = written_work(&store, "videosite", "BV1fixtureA2").await;
    assert_eq!((work.work.duration_secs, work.latest.unwrap().views), (Some(182), Some(800)));

    // A work link is reduced to its BV id.
    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/videosite/query-work/call",
        json!({"bvId": "https://www.bilibili.com/video/BV1fixture01?p=1"}),
        4,
    )
    .await;
    assert_eq!(
        (seen.route.as_str(), query(&seen)),
        ("api/v1/bilibili/web/fetch_one_video", vec![("bv_id", "BV1fixture01")])
    );
    assert_eq!(
        data["item"],
        json!({"bvId": "BV1fixture01", "title": "露营装备清单（样例）", "playCount": 123456,
               "coverUrl": "https://example.invalid/bilibili/cover-1.jpg", "authorName": "样例UP主", "likeCount": 9876,
               "commentCount": 88, "favoriteCount": 2345, "shareCount": 90, "tags": ["户外"]})
    );
    let work = written_work(&store, "videosite", "BV1fixture01").await;
    assert_eq!(
        (work.work.title.as_str(), work.latest.unwrap().extra),
        ("露营装备清单（样例）", Some(json!({"coin": 678, "danmaku": 321})))
    );

    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/videosite/search-user/call",
        json!({"keyword": "露营", "order": "follower"}),
        4,
    )
    .await;
    assert_eq!(seen.route, "api/v1/bilibili/app/fetch_search_by_type");
    assert_eq!(seen.query["search_type"], "user");
    assert_eq!(data["items"], json!([{"uid": "700000001", "fansNum": 45678}, {"uid": "700000002", "fansNum": 1200}]));
    let account = written_account(&store, "videosite", "700000002").await;
    assert_eq!((account.account.nickname.as_str(), account.account.fans), ("另一位UP主", Some(1200)));
}

#[tokio::test]
async fn wechat_channels_operations_answer_from_the_recorded_search_and_the_fixtures() {
    let (service, replay, _files) = tikhub().await;
    let store = store_of(&service).await;

    // The Channels AI feed skill over the recorded default search (陈皮): the first #topic of each description.
    let (data, seen) =
        call(&service, &replay, "/api/skills/channels-ai-feed/invoke", json!({"keyword": "陈皮"}), 6).await;
    assert_eq!(seen.route, "api/v1/wechat_channels/fetch_default_search");
    assert_eq!(
        data["items"][0],
        json!({"title": "买陈皮踩过坑的评论区扣1！4招速辨真假不踩雷", "likeCount": 487, "topic": "召唤茶友"})
    );

    // The AI feed: the same search with AI added.
    let (data, seen) =
        call(&service, &replay, "/api/apis/channels/channels-ai-feed/call", json!({"keyword": "陈皮"}), 6).await;
    assert_eq!(seen.body["keywords"], "陈皮 AI");
    assert_eq!(data["items"][1], json!({"title": "陈皮配茯苓，蛋白尿你不用慌，我就说一次。", "likeCount": 711}));

    // The recorded default search (陈皮): a read-only POST with the keyword in the body.
    let (data, seen) =
        call(&service, &replay, "/api/apis/channels/search-work/call", json!({"keyword": "陈皮"}), 4).await;
    assert_eq!((seen.method.as_str(), seen.route.as_str()), ("POST", "api/v1/wechat_channels/fetch_default_search"));
    assert_eq!(seen.body, json!({"keywords": "陈皮", "session_buffer": ""}));
    assert_eq!(data["total"], 10);
    let first = &data["items"][0];
    assert_eq!(
        (&first["nickname"], &first["likeCount"], &first["favCount"], &first["commentCount"], &first["forwardCount"]),
        (&json!("分享正宗新会陈皮"), &json!(487), &json!(901), &json!(64), &json!(4329))
    );
    assert_eq!(
        (&first["videoId"], &first["publishTime"]),
        (&json!("14846516519852050449"), &json!("2026-01-31 14:58:06"))
    );
    let description = first["description"].as_str().unwrap();
    assert!(description.starts_with("买陈皮踩过坑的评论区扣1！"), "the highlight tags are removed: {description}");
    assert!(first["videoUrl"].as_str().unwrap().starts_with("https://finder.video.qq.com/"));
    let work = written_work(&store, "channels", "14846516519852050449").await;
    assert_eq!(work.work.title, "买陈皮踩过坑的评论区扣1！4招速辨真假不踩雷");
    let counters = work.latest.unwrap();
    assert_eq!(
        (counters.likes, counters.collects, counters.comments, counters.shares),
        (Some(487), Some(901), Some(64), Some(4329))
    );
    let author = work.work.author_id.unwrap();
    assert_eq!(written_account(&store, "channels", &author).await.account.nickname, "分享正宗新会陈皮");

    let (data, seen) =
        call(&service, &replay, "/api/apis/channels/search-user/call", json!({"accountName": "陈皮"}), 4).await;
    assert_eq!(
        (seen.route.as_str(), query(&seen)),
        ("api/v1/wechat_channels/fetch_user_search", vec![("keywords", "陈皮"), ("page", "1")])
    );
    assert_eq!(data["total"], 2);
    assert_eq!(
        data["items"][0],
        json!({"nickname": "样例陈皮小店", "signature": "样例签名", "uid": "v2_fixture0001@finder",
               "headUrl": "https://example.invalid/finder/head-1.jpg", "coverImgUrl": "https://example.invalid/finder/cover-1.jpg"})
    );
    assert_eq!(written_account(&store, "channels", "v2_fixture0002@finder").await.account.nickname, "样例养生号");

    let (data, seen) =
        call(&service, &replay, "/api/apis/channels/query-work/call", json!({"videoId": "14800000000000000001"}), 4)
            .await;
    assert_eq!(query(&seen), [("id", "14800000000000000001")]);
    assert_eq!(
        data,
        json!({"description": "样例视频描述 #陈皮", "nickname": "样例陈皮小店", "likeCount": 321, "favCount": 654,
               "commentCount": 45, "forwardCount": 67, "publishTime": "2025-11-28 11:20:00", "videoDuration": "01:15",
               "coverUrl": "https://example.invalid/finder/cover-v1.jpg",
               "videoUrl": "https://example.invalid/finder/video-1?encfilekey=x&token=y"})
    );
    let work = written_work(&store, "channels", "14800000000000000001").await;
    assert_eq!((work.work.duration_secs, work.latest.unwrap().likes), (Some(75), Some(321)));
}

#[tokio::test]
async fn kuaishou_and_weibo_operations_answer_from_the_fixtures() {
    let (service, replay, _files) = tikhub().await;
    let store = store_of(&service).await;

    let (data, seen) =
        call(&service, &replay, "/api/apis/clipapp/clipapp-ai-feed/call", json!({"keywords": ["露营"]}), 6).await;
    assert_eq!(seen.query["keyword"], "露营 AI");
    assert_eq!(
        data["items"],
        json!([{"title": "样例快手露营视频", "likeCount": 1520}, {"title": "第二条样例", "likeCount": 12}])
    );

    let (data, seen) =
        call(&service, &replay, "/api/apis/clipapp/query-work/call", json!({"photoId": "5200000000000001"}), 4).await;
    assert_eq!(query(&seen), [("photo_id", "5200000000000001")]);
    assert_eq!(
        (&data["caption"], &data["viewCount"], &data["publishTime"]),
        (&json!("样例快手露营视频"), &json!(63901), &json!("2025-11-28 11:20:00"))
    );
    assert_eq!(data["coverUrl"], "https://example.invalid/ks/cover-1.jpg");

    let (data, seen) =
        call(&service, &replay, "/api/apis/clipapp/search-work/call", json!({"keyword": "露营"}), 4).await;
    assert_eq!(
        (seen.route.as_str(), query(&seen)),
        ("api/v1/kuaishou/app/search_video_v2", vec![("keyword", "露营"), ("page", "1")])
    );
    assert_eq!(
        data["items"][0],
        json!({"caption": "样例快手露营视频", "nickname": "样例快手号", "authorFans": 0, "likeCount": 1520, "commentCount": 68, "viewCount": 63901,
               "publishTime": "2025-11-28 11:20:00", "photoId": "5200000000000001",
               "coverUrl": "https://example.invalid/ks/cover-1.jpg", "videoUrl": "https://example.invalid/ks/video-1.mp4"})
    );
    let work = written_work(&store, "clipapp", "5200000000000002").await;
    assert_eq!((work.work.author_id.as_deref(), work.latest.unwrap().views), (Some("3100000002"), Some(800)));
    assert_eq!(
        written_account(&store, "clipapp", "3100000001").await.account.ids.kwai_id.as_deref(),
        Some("ks_fixture_a")
    );

    let (data, seen) =
        call(&service, &replay, "/api/apis/clipapp/search-user/call", json!({"accountName": "露营"}), 4).await;
    assert_eq!(seen.route, "api/v1/kuaishou/app/search_user_v2");
    assert_eq!(data["total"], 2);
    assert_eq!(
        data["items"][0],
        json!({"nickname": "样例快手号", "kwaiId": "ks_fixture_a", "signature": "样例简介", "headUrl": "https://example.invalid/ks/head-1.jpg", "coverImgUrl": ""})
    );
    let account = written_account_where(&store, "clipapp", "3100000002", |a| a.account.fans.is_some()).await;
    assert_eq!(account.account.fans, Some(12));

    // Without a post id the link's last segment is the id.
    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/microblog/detail/call",
        json!({"url": "https://m.weibo.cn/detail/5200000000000101?from=share"}),
        4,
    )
    .await;
    assert_eq!(
        (seen.route.as_str(), query(&seen)),
        ("api/v1/weibo/app/fetch_status_detail", vec![("status_id", "5200000000000101")])
    );
    assert_eq!((&data["item"]["text"], &data["item"]["commentCount"]), (&json!("样例微博详情正文"), &json!(30)));
    assert_eq!(written_account(&store, "microblog", "6000000001").await.account.fans, Some(9000));
    let (data, seen) = call(&service, &replay, "/api/apis/microblog/search/call", json!({"keyword": "露营"}), 4).await;
    assert_eq!(query(&seen), [("keyword", "露营"), ("page", "1"), ("search_type", "1")]);
    assert_eq!(data["total"], 57);
    assert_eq!(
        data["items"][0],
        json!({"postId": "5200000000000101", "text": "样例#露营#微博正文", "authorName": "样例微博号", "authorId": "6000000001",
               "likeCount": 120, "repostCount": 4, "commentCount": 30, "publishTime": "2026-11-27 09:30:05",
               "url": "https://m.weibo.cn/detail/5200000000000101"})
    );
    assert_eq!(data["items"].as_array().unwrap().len(), 2, "cards without a post are skipped");
    let work = written_work(&store, "microblog", "5200000000000102").await;
    assert_eq!((work.work.author_id.as_deref(), work.latest.unwrap().likes), (Some("6000000002"), Some(3)));
}

#[tokio::test]
async fn wechat_article_operations_answer_from_the_fixtures() {
    let (service, replay, _files) = tikhub().await;
    let store = store_of(&service).await;
    let link = "https://mp.weixin.qq.com/s/FixtureArticle001";

    // Page 2 is WeChat's offset 10: the fixture's second page.
    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/articles/articles-work-list/call",
        json!({"account": "gh_fixture000001", "page": 2}),
        4,
    )
    .await;
    assert_eq!(query(&seen), [("ghid", "gh_fixture000001"), ("offset", "10")]);
    assert_eq!(
        data["items"],
        json!([{"title": "更早的样例文章", "publishTime": "2025-11-27 07:33:20", "clicksCount": 0}])
    );
    let (data, _) = call(
        &service,
        &replay,
        "/api/apis/articles/articles-work-list/call",
        json!({"account": "gh_fixture000001"}),
        4,
    )
    .await;
    let titles: Vec<&str> = data["items"].as_array().unwrap().iter().map(|i| i["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["样例头条文章", "样例次条文章"], "every article of a message, the first one first");
    assert_eq!(
        written_account(&store, "articles", "MzFixtureBiz==").await.account.ids.account_id.as_deref(),
        Some("gh_fixture000001")
    );

    // A bare id becomes the article's link.
    let (data, seen) =
        call(&service, &replay, "/api/apis/articles/query-work/call", json!({"workUuid": "FixtureArticle001"}), 4)
            .await;
    assert_eq!(
        (seen.route.as_str(), query(&seen)),
        ("api/v1/wechat_mp/web/fetch_mp_article_detail_json", vec![("url", link)])
    );
    assert_eq!(data["item"], json!({"title": "样例公众号文章", "accountName": "样例公众号"}));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let article = loop {
        if let Some(work) = store.get_work("articles", "FixtureArticle001").await.unwrap() {
            break work;
        }
        assert!(std::time::Instant::now() < deadline, "the article was never written back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        (article.work.title.as_str(), article.work.author_id.as_deref()),
        ("样例公众号文章", Some("gh_fixture000001"))
    );

    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/articles/article-comments/call",
        json!({"workUuid": "FixtureArticle001"}),
        6,
    )
    .await;
    assert_eq!(query(&seen), [("buffer", ""), ("comment_id", ""), ("url", link)]);
    assert_eq!(data["total"], 2);
    assert_eq!(
        data["items"][0],
        json!({"content": "写得很好", "likeCount": 15, "authorName": "样例读者甲", "commentTime": "2025-11-28 12:20:00"})
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let page = store.list_comments("articles", "FixtureArticle001", 1, 20).await.unwrap();
        if page.total == 2 {
            assert_eq!((page.items[0].text.as_str(), page.items[0].likes), ("写得很好", Some(15)));
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the comments were never written back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let (data, seen) =
        call(&service, &replay, "/api/apis/articles/article-metrics/call", json!({"workUuid": link}), 4).await;
    assert_eq!(query(&seen), [("comment_id", "0"), ("url", link)]);
    assert_eq!(
        data,
        json!({"workUuid": "FixtureArticle001", "readCount": 100001, "likeCount": 654, "shareCount": 87, "watchCount": 321, "commentCount": 12})
    );
    let counters = written_work(&store, "articles", "FixtureArticle001").await.latest.unwrap();
    assert_eq!((counters.views, counters.watch, counters.likes), (Some(100001), Some(321), Some(654)));
}

#[tokio::test]
async fn the_article_sync_reads_every_page_and_stores_it_uncharged() {
    let (service, replay, _files) = tikhub().await;
    let before = points(&service).await;
    let (status, body) =
        service.post("/api/apis/articles/articles-sync-notes/call", json!({"accountId": "gh_fixture000001"})).await;
    assert_eq!(success(status, &body), json!({"status": "syncing", "accepted": true, "retryAfterMinutes": 30}));
    let task_id = body["taskId"].as_str().unwrap().to_owned();

    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let task = loop {
        let (status, body) = service.get(&format!("/api/tasks/{task_id}")).await;
        let task = success(status, &body);
        if matches!(task["status"].as_str(), Some("success" | "failed")) {
            break task;
        }
        assert!(std::time::Instant::now() < deadline, "the sync did not finish: {task}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(task["status"], "success", "{task}");
    // Two pages (offset "" then the first page's next_offset 10); three articles, an account line per article.
    assert_eq!(
        (&task["sync"]["pages"], &task["sync"]["works"], &task["sync"]["accounts"]),
        (&json!(2), &json!(3), &json!(3))
    );
    let offsets: Vec<String> = replay
        .seen()
        .iter()
        .filter(|s| s.route == "api/v1/wechat_mp/web/fetch_mp_article_list")
        .map(|s| s.query["offset"].clone())
        .collect();
    assert_eq!(offsets, ["", "10"]);
    let store = store_of(&service).await;
    let older = store
        .get_work("articles", "https://mp.weixin.qq.com/s?__biz=MzFixtureBiz==&mid=2650000000&idx=1&sn=fixture3")
        .await
        .unwrap()
        .expect("the second page is stored");
    assert_eq!(
        (older.work.title.as_str(), older.work.author_id.as_deref()),
        ("更早的样例文章", Some("MzFixtureBiz=="))
    );
    assert_eq!(points(&service).await, before, "a sync is never charged");
}

#[tokio::test]
async fn link_parsing_and_the_viral_notes_skill_answer_from_tikhub() {
    let (service, replay, _files) = tikhub().await;
    let store = store_of(&service).await;

    let (data, seen) = call(
        &service,
        &replay,
        "/api/apis/tool/parse-content-detail/call",
        json!({"url": "https://v.douyin.com/Fixture01/"}),
        4,
    )
    .await;
    assert_eq!(
        (seen.route.as_str(), query(&seen)),
        ("api/v1/hybrid/video_data", vec![("url", "https://v.douyin.com/Fixture01/")])
    );
    assert_eq!(
        data,
        json!({"platform": "shortvideo", "source": "tikhub",
               "item": {"title": "样例抖音视频 #露营", "authorName": "样例抖音号", "likeCount": 4321, "shareCount": 98}})
    );
    let work = written_work(&store, "shortvideo", "7400000000000000001").await;
    assert_eq!((work.work.author_id.as_deref(), work.latest.unwrap().comments), (Some("880000000001"), Some(210)));

    // The recorded Xiaohongshu search (陈皮), asked for by popularity.
    let (data, seen) =
        call(&service, &replay, "/api/skills/lifestyle-viral-notes/invoke", json!({"keyword": "陈皮"}), 4).await;
    assert_eq!(query(&seen), [("keyword", "陈皮"), ("page", "1"), ("sort", "popularity_descending")]);
    assert_eq!(
        data["items"][0],
        json!({"workId": "67ff2df8000000001b03ebc7", "workTitle": "【新会陈皮｜别人卷价格，我们只卷品质】", "accountNickname": "大可皮茶记",
               "workLikedCount": 45, "workCollectedCount": 28, "workCommentsCount": 3})
    );
}

#[tokio::test]
async fn a_mapped_operation_answers_over_grpc_too() {
    use mediaops::proto::mediaops::videosite::v1::{
        SearchWorkRequest, videosite_service_client::VideositeServiceClient,
    };

    let (service, replay, _files) = tikhub().await;
    let channel = tonic::transport::Endpoint::from_shared(service.grpc.clone()).unwrap().connect().await.unwrap();
    let mut client = VideositeServiceClient::new(channel);
    let request = SearchWorkRequest { keyword: "火影忍者".into(), page_size: 42, ..Default::default() };
    let answer = client.search_work(crate::common::with_token(request, KEY)).await.unwrap().into_inner();
    assert_eq!(answer.total, 1000);
    assert_eq!(answer.items.len(), 42);
    assert_eq!(
        (answer.items[0].title.as_str(), answer.items[0].like_count),
        ("【火-影-忍-者】全720集 4K超清未删减完整版 reaction", 782)
    );
    assert_eq!(replay.seen().last().unwrap().query["page_size"], "42");
}
