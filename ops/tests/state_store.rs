//! The per-account state stores of migration 0008 (docs/state.md) on both backends, one suite each: charters, article
//! themes, banned-word lists and the WeChat third-party state round-trip
//! and keep accounts apart; SQLite keeps them across a reopen; two cores on
//! one PostgreSQL database see each other's changes within a second
//! through their services; and the files of the earlier file-backed stores
//! are imported once and their directories renamed. PostgreSQL is the real
//! server (`MEDIAOPS_TEST_DATABASE_URL` overrides), one schema per test.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use mediaops_store::test_support as support;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mediaops_ops::articles::themes::ThemeCatalog;
use mediaops_ops::banned_words::BannedWordChecker;
use mediaops_ops::banned_words::platform::Platform;
use mediaops_ops::charter::rules::empty_charter;
use mediaops_proto::mediaops::charter::v1::StoredCharter;
use mediaops_proto::mediaops::studio::v1::CustomTheme;
use mediaops_store::charter::CharterStore;
use mediaops_store::postgres::PostgresStore;
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::theme::ThemeStore;
use mediaops_store::wechat::{PendingAuthorization, StoredAuthorizer, WechatStore};
use mediaops_store::word_list::{ALL_PLATFORMS, AddedWord, CustomWordStore, WordList};
use mediaops_store::{Opened, PoolSettings, legacy};

fn charter(one_liner: &str, profile: &str, at: &str) -> StoredCharter {
    let mut charter = empty_charter();
    charter.positioning.as_mut().unwrap().one_liner = Some(one_liner.into());
    charter.monetization.as_mut().unwrap().practical_paths = vec!["membership".into()];
    StoredCharter { profile_id: profile.into(), charter: Some(charter), charter_updated_at: Some(at.into()) }
}

async fn charters(store: &dyn CharterStore) {
    assert_eq!(store.get("acct_a", "brand").await.unwrap(), None);
    let stored = charter("帮小团队做增长", "brand", "2026-01-01T00:00:00.000Z");
    store.put("acct_a", &stored).await.unwrap();
    let read = store.get("acct_a", "brand").await.unwrap().unwrap();
    assert_eq!(read, stored, "empty strings and the stamp survive");
    assert_eq!(store.get("acct_b", "brand").await.unwrap(), None, "another account's profile is unknown");
    assert_eq!(store.get("acct_a", "other").await.unwrap(), None);
    let replaced = charter("换个说法", "brand", "2026-01-02T00:00:00.000Z");
    store.put("acct_a", &replaced).await.unwrap();
    assert_eq!(store.get("acct_a", "brand").await.unwrap(), Some(replaced), "a put replaces the whole charter");
}

fn theme(id: &str, css: &str) -> CustomTheme {
    CustomTheme {
        id: id.into(),
        name: "我的主题".into(),
        description: String::new(),
        css: css.into(),
        updated_at: "2026-01-01T00:00:00.000Z".into(),
    }
}

async fn themes(store: &dyn ThemeStore) {
    assert_eq!(store.default_theme("acct_a").await.unwrap(), None);
    assert!(store.custom_themes("acct_a").await.unwrap().is_empty());
    store.set_default_theme("acct_a", "magazine").await.unwrap();
    store.set_default_theme("acct_a", "minimal").await.unwrap();
    assert_eq!(store.default_theme("acct_a").await.unwrap().as_deref(), Some("minimal"));
    // Ids in byte order, whatever the database's collation thinks of `-` and `_`.
    for id in ["zeta", "a_b", "a-c", "ab"] {
        store.put_custom_theme("acct_a", &theme(id, "p { color: #123456 }")).await.unwrap();
    }
    let ids: Vec<_> = store.custom_themes("acct_a").await.unwrap().into_iter().map(|t| t.id).collect();
    assert_eq!(ids, ["a-c", "a_b", "ab", "zeta"]);
    let replaced = CustomTheme { description: "说明".into(), ..theme("zeta", "h1 { color: red }") };
    store.put_custom_theme("acct_a", &replaced).await.unwrap();
    assert_eq!(store.custom_theme("acct_a", "zeta").await.unwrap(), Some(replaced));
    assert_eq!(store.default_theme("acct_b").await.unwrap(), None);
    assert_eq!(store.custom_theme("acct_b", "zeta").await.unwrap(), None);
    assert!(store.custom_themes("acct_b").await.unwrap().is_empty());
}

fn word(word: &str, category: &str) -> AddedWord {
    AddedWord { word: word.into(), category: category.into() }
}

async fn words(store: &dyn CustomWordStore) {
    assert!(store.get("acct_a").await.unwrap().lists.is_empty());
    let shortvideo = WordList {
        add: vec![word("内部黑话", "自定义"), word("私域", "站外导流")],
        allow: vec!["最佳实践".into()],
        updated_at: Some("2026-01-01T00:00:00.000Z".into()),
    };
    store.put("acct_a", "shortvideo", &shortvideo).await.unwrap();
    let all = WordList {
        allow: vec!["绝对".into()],
        updated_at: Some("2026-01-02T00:00:00.000Z".into()),
        ..WordList::default()
    };
    store.put("acct_a", ALL_PLATFORMS, &all).await.unwrap();
    let lists = store.get("acct_a").await.unwrap();
    assert_eq!(lists.lists["shortvideo"], shortvideo);
    let applying: Vec<&WordList> = lists.for_platform(Platform::Shortvideo).collect();
    assert_eq!(applying, [&all, &shortvideo], "the account-wide list, then the platform's");
    assert_eq!(lists.for_platform(Platform::Articles).count(), 1);
    assert!(store.get("acct_b").await.unwrap().lists.is_empty());

    store.put("acct_a", "shortvideo", &WordList::default()).await.unwrap();
    let lists = store.get("acct_a").await.unwrap();
    assert_eq!(lists.lists.keys().collect::<Vec<_>>(), [ALL_PLATFORMS], "an empty list removes its scope");
    store.put("acct_a", "articles", &WordList::default()).await.unwrap();
}

fn authorizer(appid: &str, account: &str) -> StoredAuthorizer {
    StoredAuthorizer {
        authorizer_appid: appid.into(),
        account_id: account.into(),
        nickname: "公众号".into(),
        avatar: String::new(),
        service_type: "service".into(),
        verified: true,
        authorized_at: "2026-01-01T00:00:00Z".into(),
        refresh_token: "refresh@@@1".into(),
    }
}

fn pending(code: &str, account: &str, expires_at: i64) -> PendingAuthorization {
    PendingAuthorization { pre_auth_code: code.into(), account_id: account.into(), expires_at }
}

async fn wechat(store: &dyn WechatStore) {
    assert_eq!(store.verify_ticket().await.unwrap(), None);
    store.set_verify_ticket("ticket@@@x").await.unwrap();
    store.set_verify_ticket("ticket@@@y").await.unwrap();
    assert_eq!(store.verify_ticket().await.unwrap().as_deref(), Some("ticket@@@y"));

    store.put_authorizer(authorizer("wxb", "acme")).await.unwrap();
    store.put_authorizer(authorizer("wxa", "acme")).await.unwrap();
    store.put_authorizer(authorizer("wxc", "other")).await.unwrap();
    store.set_refresh_token("wxa", "refresh@@@2").await.unwrap();
    store.set_refresh_token("wx-unknown", "refresh@@@9").await.unwrap();
    let acme = store.authorizers_of("acme").await.unwrap();
    assert_eq!(acme.iter().map(|a| a.authorizer_appid.as_str()).collect::<Vec<_>>(), ["wxa", "wxb"]);
    assert_eq!(acme[0].refresh_token, "refresh@@@2");
    assert_eq!(acme[1], authorizer("wxb", "acme"), "every field read back");
    // A new authorization rebinds the appid.
    let rebound = StoredAuthorizer { verified: false, ..authorizer("wxc", "acme") };
    store.put_authorizer(rebound.clone()).await.unwrap();
    assert_eq!(store.authorizer("wxc").await.unwrap(), Some(rebound));
    assert!(store.authorizers_of("other").await.unwrap().is_empty());
    assert!(store.remove_authorizer("wxa").await.unwrap());
    assert!(!store.remove_authorizer("wxa").await.unwrap());
    assert_eq!(store.authorizer("wxa").await.unwrap(), None);

    store.add_pending(pending("pre1", "acme", 100), 0).await.unwrap();
    store.add_pending(pending("pre2", "acme", 50), 0).await.unwrap();
    store.add_pending(pending("pre3", "other", 70), 0).await.unwrap();
    assert_eq!(store.take_pending("pre2", 60).await.unwrap(), None, "expired");
    assert_eq!(store.take_pending("pre1", 60).await.unwrap(), Some(pending("pre1", "acme", 100)));
    assert_eq!(store.take_pending("pre1", 60).await.unwrap(), None, "consumed");
    // Adding drops the expired ones; a code added again replaces its entry.
    store.add_pending(pending("pre4", "acme", 200), 80).await.unwrap();
    store.add_pending(pending("pre4", "other", 300), 80).await.unwrap();
    assert_eq!(store.take_pending("pre3", 0).await.unwrap(), None, "dropped when pre4 was added at 80");
    assert_eq!(store.take_pending("pre4", 90).await.unwrap(), Some(pending("pre4", "other", 300)));
}

async fn all(store: &(impl CharterStore + ThemeStore + CustomWordStore + WechatStore)) {
    charters(store).await;
    eprintln!("charters: ok");
    themes(store).await;
    eprintln!("themes: ok");
    words(store).await;
    eprintln!("word lists: ok");
    wechat(store).await;
    eprintln!("wechat: ok");
}

#[tokio::test]
async fn sqlite_state_stores() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.sqlite");
    all(&SqliteStore::open(&path).await.unwrap()).await;
    let reopened = SqliteStore::open(&path).await.unwrap();
    assert!(CharterStore::get(&reopened, "acct_a", "brand").await.unwrap().is_some(), "durable");
    assert_eq!(reopened.default_theme("acct_a").await.unwrap().as_deref(), Some("minimal"));
    assert!(!CustomWordStore::get(&reopened, "acct_a").await.unwrap().lists.is_empty());
    assert_eq!(reopened.verify_ticket().await.unwrap().as_deref(), Some("ticket@@@y"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // It holds refresh tokens: the owner's only, as the state file of earlier releases was.
        for file in ["store.sqlite", "store.sqlite-wal"] {
            let mode = std::fs::metadata(dir.path().join(file)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{file}");
        }
    }
}

#[tokio::test]
async fn postgres_state_stores() {
    support::with_postgres_store("state", async |store| all(store).await).await;
}

/// Polls `seen` until it holds, for at most a second; how long it took.
async fn within_a_second(what: &str, mut seen: impl AsyncFnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !seen().await {
        assert!(start.elapsed() < Duration::from_secs(1), "{what}: not seen by the other core within 1 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    start.elapsed()
}

/// two cores (two store handles, two services each) on
/// one PostgreSQL database; a change through one is in force on the other
/// within a second, also when the other already compiled or read the old
/// state.
#[tokio::test]
async fn a_change_through_one_core_is_in_force_on_another_within_a_second() {
    support::with_postgres_schema("state_two", async |options| {
        let clock = mediaops_store::clock::Clock::System;
        let one = Arc::new(PostgresStore::open_with(options.clone()).await.unwrap());
        let two = Arc::new(PostgresStore::open_with(options).await.unwrap());
        let safety_one = BannedWordChecker::new(one.clone(), clock).unwrap();
        let safety_two = BannedWordChecker::new(two.clone(), clock).unwrap();
        let themes_one = ThemeCatalog::new(one.clone(), clock);
        let themes_two = ThemeCatalog::new(two.clone(), clock);

        // Word lists: core two compiles the account's matcher, core one changes the list.
        let text = "竞品甲的私域玩法";
        let hits = async |service: &BannedWordChecker| {
            let result = service.check("acct", Platform::Shortvideo, text).await.unwrap();
            result.prohibited_words_type
        };
        let put = |add: &[&str]| mediaops_proto::mediaops::safety::v1::PutCustomWordsRequest {
            platform: String::new(),
            add: add
                .iter()
                .map(|w| mediaops_proto::mediaops::safety::v1::CustomWord {
                    word: (*w).into(),
                    category: String::new(),
                })
                .collect(),
            allow: vec![],
        };
        assert!(!hits(&safety_two).await.contains(&"自定义".to_owned()));
        safety_one.put_custom("acct", put(&["竞品甲"])).await.unwrap();
        let took =
            within_a_second("an added word", async || hits(&safety_two).await.contains(&"自定义".to_owned())).await;
        eprintln!("added word seen after {took:?}");
        safety_one.put_custom("acct", put(&[])).await.unwrap();
        let took =
            within_a_second("a removed word", async || !hits(&safety_two).await.contains(&"自定义".to_owned())).await;
        eprintln!("removed word seen after {took:?}");

        // Themes: core two renders with the service default, core one saves a default.
        assert_eq!(themes_two.choose("acct", "").await.unwrap().id, "neutral");
        themes_one.set_default("acct", "magazine").await.unwrap();
        within_a_second("a default theme", async || themes_two.choose("acct", "").await.unwrap().id == "magazine")
            .await;
        let request = mediaops_proto::mediaops::studio::v1::PutCustomThemeRequest {
            id: "brand".into(),
            name: "品牌".into(),
            description: String::new(),
            css: ".mo-article p { color: #0a7 }".into(),
        };
        themes_one.put_custom("acct", request).await.unwrap();
        within_a_second("a custom theme", async || themes_two.choose("acct", "brand").await.is_ok()).await;

        // Charters: read on core two before and after core one stores one.
        let lists = mediaops_proto::value_lists::ValueLists::from_pool(mediaops_proto::descriptor_pool());
        let charters_one = mediaops_ops::charter::Charters::new(one.clone(), lists.clone(), clock);
        let charters_two = mediaops_ops::charter::Charters::new(two.clone(), lists, clock);
        assert!(charters_two.get("acct", "brand").await.is_err(), "no such profile yet");
        let put = mediaops_proto::mediaops::charter::v1::PutCharterRequest {
            id: "brand".into(),
            charter: Some(empty_charter()),
        };
        let stored = charters_one.put("acct", put).await.unwrap();
        within_a_second("a charter", async || charters_two.get("acct", "brand").await.ok().as_ref() == Some(&stored))
            .await;

        // WeChat: an authorization completed on core one is listed on core two.
        let wechat = |store: Arc<PostgresStore>| {
            let outbound = mediaops_connectors::outbound::OutboundSettings::default();
            let fetcher = mediaops_connectors::outbound::GuardedFetcher::new(&outbound).unwrap();
            let settings = mediaops_connectors::wechat::config::WechatSettings::default();
            let tokens = mediaops_connectors::wechat::tokens::TokenCache::in_process();
            mediaops_connectors::wechat::Wechat::new(settings, &outbound, store, tokens, fetcher).unwrap()
        };
        let wechat_two = wechat(two.clone());
        assert!(wechat_two.accounts_of("acct").await.unwrap().is_empty());
        WechatStore::put_authorizer(one.as_ref(), authorizer("wxa", "acct")).await.unwrap();
        within_a_second("an authorized account", async || wechat_two.accounts_of("acct").await.unwrap().len() == 1)
            .await;
        // A pending authorization is redeemed by one core only, whichever gets the event.
        let now = chrono::Utc::now().timestamp();
        for round in 0..20 {
            let code = format!("pre{round}");
            WechatStore::add_pending(one.as_ref(), pending(&code, "acct", now + 60), now).await.unwrap();
            let (a, b) = tokio::join!(
                WechatStore::take_pending(one.as_ref(), &code, now),
                WechatStore::take_pending(two.as_ref(), &code, now)
            );
            assert_eq!(a.unwrap().is_some() as u8 + b.unwrap().is_some() as u8, 1, "round {round}");
        }
    })
    .await;
}

/// Writes the files the file-backed stores of earlier releases left.
fn legacy_files(data_dir: &Path) {
    let write = |path: &str, json: &str| {
        let path = data_dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, json).unwrap();
    };
    let brand = mediaops_store::charter::to_json(&charter("老文件里的定位", "brand", "2025-12-01T00:00:00.000Z"));
    write("charters/acct_a/brand.json", &brand.unwrap());
    // An account id with a `.` was kept under `x` + hex.
    let other = mediaops_store::charter::to_json(&charter("点号账户", "default", "2025-12-02T00:00:00.000Z"));
    write(&format!("charters/x{}/default.json", hex("team.a")), &other.unwrap());
    write("charters/acct_a/.brand.json.0123.tmp", "{\"torn");
    write("charters/acct_a/broken.json", "{not json");
    write("article-themes/acct_a/default.json", r#"{"themeId": "brand"}"#);
    write(
        "article-themes/acct_a/custom/brand.json",
        r#"{"id": "brand", "name": "品牌", "description": "", "css": "p { color: #0a7 }", "updatedAt": "2025-12-03T00:00:00.000Z"}"#,
    );
    write(
        "banned-words/acct_a.json",
        r#"{"lists": {"all": {"add": [{"word": "竞品甲", "category": "自定义"}], "allow": [], "updatedAt": "2025-12-04T00:00:00.000Z"},
            "articles": {"add": [], "allow": ["最佳实践"], "updatedAt": "2025-12-05T00:00:00.000Z"}}}"#,
    );
    let far = chrono::Utc::now().timestamp() + 3600;
    write(
        "wechat/state.json",
        &format!(
            r#"{{"verifyTicket": "ticket@@@old", "verifyTicketAt": "2025-12-06T00:00:00Z",
            "authorizers": {{"wxa": {{"authorizerAppid": "wxa", "accountId": "acct_a", "nickname": "号", "avatar": "",
              "serviceType": "service", "verified": true, "authorizedAt": "2025-12-07T00:00:00Z", "refreshToken": "refresh@@@old"}}}},
            "pending": [{{"preAuthCode": "pre-live", "accountId": "acct_a", "expiresAt": {far}}},
                        {{"preAuthCode": "pre-dead", "accountId": "acct_a", "expiresAt": 1}}]}}"#
        ),
    );
}

fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

/// What the legacy files hold, read through the stores.
async fn imported(opened: &Opened) {
    let brand = opened.charters.get("acct_a", "brand").await.unwrap().unwrap();
    assert_eq!(brand, charter("老文件里的定位", "brand", "2025-12-01T00:00:00.000Z"), "the stamp is kept");
    let dotted = opened.charters.get("team.a", "default").await.unwrap().unwrap();
    assert_eq!(dotted.charter_updated_at.as_deref(), Some("2025-12-02T00:00:00.000Z"));
    assert_eq!(opened.charters.get("acct_a", "broken").await.unwrap(), None);
    assert_eq!(opened.themes.default_theme("acct_a").await.unwrap().as_deref(), Some("brand"));
    let theme = opened.themes.custom_theme("acct_a", "brand").await.unwrap().unwrap();
    assert_eq!((theme.css.as_str(), theme.updated_at.as_str()), ("p { color: #0a7 }", "2025-12-03T00:00:00.000Z"));
    let lists = opened.words.get("acct_a").await.unwrap();
    assert_eq!(lists.lists["all"].add, [word("竞品甲", "自定义")]);
    assert_eq!(lists.lists["articles"].updated_at.as_deref(), Some("2025-12-05T00:00:00.000Z"));
    assert_eq!(opened.wechat.verify_ticket().await.unwrap().as_deref(), Some("ticket@@@old"));
    assert_eq!(opened.wechat.authorizer("wxa").await.unwrap().unwrap().refresh_token, "refresh@@@old");
    let now = chrono::Utc::now().timestamp();
    assert_eq!(opened.wechat.take_pending("pre-dead", now).await.unwrap(), None);
    assert_eq!(opened.wechat.take_pending("pre-live", now).await.unwrap().unwrap().account_id, "acct_a");
}

fn renamed(data_dir: &Path) {
    for name in legacy::DIRECTORIES {
        assert!(!data_dir.join(name).exists(), "{name} is moved away");
        assert!(data_dir.join(format!("{name}.imported")).is_dir(), "{name}.imported is kept");
    }
    assert!(data_dir.join("charters.imported/acct_a/broken.json").is_file(), "an unreadable file stays");
}

/// An embedded install of an earlier release: the core's open imports its
/// files into SQLite once and renames their directories.
#[tokio::test]
async fn earlier_files_are_imported_into_sqlite_once_on_open() {
    let dir = tempfile::tempdir().unwrap();
    legacy_files(dir.path());
    let opened = mediaops_store::open_all(None, dir.path(), PoolSettings::default()).await.unwrap();
    imported(&opened).await;
    renamed(dir.path());
    drop(opened);

    // The next open finds nothing to import and keeps what was changed since.
    let opened = mediaops_store::open_all(None, dir.path(), PoolSettings::default()).await.unwrap();
    assert_eq!(opened.themes.default_theme("acct_a").await.unwrap().as_deref(), Some("brand"));
    opened.themes.set_default_theme("acct_a", "minimal").await.unwrap();
    drop(opened);
    let opened = mediaops_store::open_all(None, dir.path(), PoolSettings::default()).await.unwrap();
    assert_eq!(opened.themes.default_theme("acct_a").await.unwrap().as_deref(), Some("minimal"));
}

/// A PostgreSQL install whose core kept these files in its data dir: they
/// go to PostgreSQL; what the database already has wins.
#[tokio::test]
async fn earlier_files_are_imported_into_postgres_and_the_database_wins() {
    support::with_postgres_schema("state_import", async |options| {
        let dir = tempfile::tempdir().unwrap();
        legacy_files(dir.path());
        let opened = Opened::of(PostgresStore::open_with(options).await.unwrap());
        let newer = charter("数据库里更新", "brand", "2026-02-01T00:00:00.000Z");
        opened.charters.put("acct_a", &newer).await.unwrap();
        let report = legacy::import(dir.path(), &opened).await.unwrap();
        assert_eq!(report["charters"], legacy::Imported { written: 1, kept: 1, unreadable: 1 });
        assert_eq!(report["wechat"], legacy::Imported { written: 3, kept: 0, unreadable: 0 });
        assert_eq!(opened.charters.get("acct_a", "brand").await.unwrap(), Some(newer));
        opened.charters.put("acct_a", &charter("老文件里的定位", "brand", "2025-12-01T00:00:00.000Z")).await.unwrap();
        imported(&opened).await;
        renamed(dir.path());
        assert!(legacy::import(dir.path(), &opened).await.unwrap().is_empty(), "nothing left to import");
    })
    .await;
}
