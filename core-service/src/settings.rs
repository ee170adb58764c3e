//! Core configuration: defaults, then a TOML file, then `MEDIAOPS_*`
//! environment variables (README "Configuration"). Keys in the file are the
//! variable names without the prefix, lower-cased (`grpc_addr = "…"`).

use std::path::{Path, PathBuf};

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use mediaops_listener::{ConfigFile, unknown_keys};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// What the core reads.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CoreSettings {
    /// gRPC listen address (`MEDIAOPS_GRPC_ADDR`).
    pub grpc_addr: String,
    /// Embedded state directory (`MEDIAOPS_DATA_DIR`).
    pub data_dir: PathBuf,
    /// API key created at start if absent (`MEDIAOPS_BOOTSTRAP_KEY`).
    pub bootstrap_key: Option<String>,
    /// Points granted to the bootstrap key's account when it is created
    /// (`MEDIAOPS_BOOTSTRAP_POINTS`).
    pub bootstrap_points: i64,
    /// Redis for billing state (`MEDIAOPS_REDIS_URL`); unset = the embedded ledger.
    pub redis_url: Option<String>,
    /// Prefix of every Redis key (`MEDIAOPS_REDIS_PREFIX`), so several
    /// deployments can share one Redis.
    pub redis_prefix: String,
    /// Bearer token of the admin gRPC service (`MEDIAOPS_ADMIN_TOKEN`);
    /// unset = the admin service answers 403.
    pub admin_token: Option<String>,
    /// Seconds after which an unsettled reservation is released
    /// (`MEDIAOPS_RESERVATION_TTL_SECS`).
    pub reservation_ttl_secs: u64,
    /// Seconds an operation may run before it fails with 502 and its charge
    /// is released (`MEDIAOPS_OPERATION_TIMEOUT_SECS`); below the TTL.
    pub operation_timeout_secs: u64,
    /// PostgreSQL for the content store (`MEDIAOPS_DATABASE_URL`); unset =
    /// the embedded SQLite file `<data_dir>/store.sqlite`.
    pub database_url: Option<String>,
    /// Seconds a call waits for a PostgreSQL connection before it fails
    /// with 503 `store_unavailable` (`MEDIAOPS_STORE_ACQUIRE_TIMEOUT_SECS`).
    pub store_acquire_timeout_secs: u64,
    /// MiB of the SQLite file each store connection reads through a memory
    /// mapping (`MEDIAOPS_SQLITE_MMAP_MIB`, 0..=65536, default 65536 = the whole file; 0 =
    /// none; docs/store.md "Memory mapping"). Unused with PostgreSQL.
    pub sqlite_mmap_mib: u64,
    /// Seconds between two readiness checks of the ledger and the store
    /// (`MEDIAOPS_READINESS_INTERVAL_SECS`; docs/errors.md "Liveness and
    /// readiness"); a store whose schema is missing is migrated by them.
    pub readiness_interval_secs: u64,
    /// Days of snapshots the store keeps (`MEDIAOPS_SNAPSHOT_RETENTION_DAYS`;
    /// docs/store.md "Retention"): older ones are pruned every 6 hours,
    /// each entity's newest day always kept; 0 keeps everything.
    pub snapshot_retention_days: u64,
    /// As-of clock, `YYYY-MM-DD` or RFC 3339 (`MEDIAOPS_NOW`).
    pub now: Option<String>,
    /// Hot-list collectors (`[hotlists]`, `MEDIAOPS_HOTLISTS__…`;
    /// docs/hotlists.md); off by default.
    pub hotlists: mediaops_connectors::hotlists::config::HotlistSettings,
    /// Outbound calls: connector timeouts and retries, the guarded fetch
    /// of user-supplied links (`[outbound]`, `MEDIAOPS_OUTBOUND__…`;
    /// docs/outbound.md).
    pub outbound: mediaops_connectors::outbound::OutboundSettings,
    /// Vendor mapping files and source chains (`[vendors]`,
    /// `[vendors.sources]`; docs/vendors.md); none by default.
    pub vendors: mediaops_connectors::vendors::settings::VendorSettings,
    /// The OpenAI-compatible images API of the image skills (`[images]`,
    /// `MEDIAOPS_IMAGES__…`; docs/images.md); unset = those skills answer 503.
    pub images: mediaops_connectors::images::settings::ImageSettings,
    /// `skills.ai-web-search` (`[web_search]`, `MEDIAOPS_WEB_SEARCH__…`;
    /// docs/web-search.md); not configured by default (503).
    pub web_search: mediaops_connectors::web_search::config::WebSearchSettings,
    /// WeChat official accounts (`[wechat]`, `MEDIAOPS_WECHAT__…`;
    /// docs/wechat.md): direct accounts, third-party platform, callback
    /// listener.
    pub wechat: mediaops_connectors::wechat::config::WechatSettings,
    /// `[sync]`: the sync queue, workers and retries (docs/sync.md).
    pub sync: mediaops_ops::sync::settings::SyncSettings,
    /// `[rate_limit]`: the rate limit of accounts without their own
    /// (`MEDIAOPS_RATE_LIMIT__DEFAULT_RATE`, `…__DEFAULT_BURST`;
    /// docs/rate-limits.md); off by default.
    pub rate_limit: mediaops_platform::rate_limit::RateLimitSettings,
    /// `[watchlists]`: the watch-list scheduler (`MEDIAOPS_WATCHLISTS__…`;
    /// docs/watchlists.md "Configuration").
    pub watchlists: mediaops_ops::watch::settings::WatchSettings,
    /// `[tracking]`: the tracking scheduler (`MEDIAOPS_TRACKING__…`;
    /// docs/tracking.md "Configuration").
    pub tracking: mediaops_ops::tracking::settings::TrackingSettings,
    /// Seconds between two runs of the ranking-board builder
    /// (`MEDIAOPS_BOARDS_INTERVAL_SECS`; docs/rankings.md "Boards as data");
    /// 0 = this core does not build boards.
    pub boards_interval_secs: u64,
    /// Timeouts, the connection cap and port sharing of the gRPC port
    /// (`MEDIAOPS_HEADER_READ_TIMEOUT_SECS`, `MEDIAOPS_BODY_READ_TIMEOUT_SECS`,
    /// `MEDIAOPS_IDLE_TIMEOUT_SECS`, `MEDIAOPS_MAX_CONNECTIONS`,
    /// `MEDIAOPS_SHUTDOWN_NOTICE_SECS`, `MEDIAOPS_SHUTDOWN_GRACE_SECS`,
    /// `MEDIAOPS_REUSE_PORT`; the same
    /// keys as the gateway's).
    #[serde(flatten)]
    pub listener: mediaops_listener::ListenerSettings,
}

/// The largest `MEDIAOPS_SQLITE_MMAP_MIB`: the most the bundled SQLite maps
/// (it would lower a larger setting silently).
const MAX_SQLITE_MMAP_MIB: u64 = mediaops_store::sqlite::MAX_MMAP_BYTES >> 20;

impl Default for CoreSettings {
    fn default() -> Self {
        CoreSettings {
            grpc_addr: "0.0.0.0:50051".into(),
            data_dir: PathBuf::from("./data"),
            bootstrap_key: None,
            bootstrap_points: 10_000,
            redis_url: None,
            redis_prefix: "mediaops".into(),
            admin_token: None,
            reservation_ttl_secs: 120,
            operation_timeout_secs: 60,
            database_url: None,
            store_acquire_timeout_secs: 2,
            sqlite_mmap_mib: mediaops_store::sqlite::DEFAULT_MMAP_BYTES >> 20,
            readiness_interval_secs: 5,
            snapshot_retention_days: mediaops_store::retention::DEFAULT_RETENTION_DAYS,
            now: None,
            hotlists: Default::default(),
            outbound: Default::default(),
            vendors: Default::default(),
            images: Default::default(),
            web_search: Default::default(),
            wechat: Default::default(),
            sync: Default::default(),
            rate_limit: Default::default(),
            watchlists: Default::default(),
            tracking: Default::default(),
            boards_interval_secs: mediaops_ops::rankings::boards::schedule::DEFAULT_INTERVAL_SECS,
            listener: Default::default(),
        }
    }
}

/// The configuration sources every mediaops binary reads, in order: `T`'s
/// defaults, the TOML file ([`ConfigFile::resolve`]: `config_file`, else
/// `MEDIAOPS_CONFIG`, else `./mediaops.toml` when present), then
/// `MEDIAOPS_*` variables. In a variable name `__` nests a key
/// (`MEDIAOPS_HOTLISTS__WEIBO__BASE_URL` is `hotlists.weibo.base_url`).
///
/// The file is strict: a key that neither `T` nor the other server (its
/// top-level keys `others`) reads is refused
/// ([`mediaops_listener::unknown_keys`]); variables are not checked.
///
/// # Errors
/// A file named by `--config` or `MEDIAOPS_CONFIG` that does not exist, a
/// file that is not TOML, unknown keys in the file.
pub fn sources<T: Serialize + DeserializeOwned + Default>(
    config_file: Option<&Path>,
    others: &[&str],
) -> anyhow::Result<Figment> {
    let file = ConfigFile::resolve(config_file);
    file.check_exists().map_err(anyhow::Error::msg)?;
    let toml = Figment::from(if file.required { Toml::file_exact(&file.path) } else { Toml::file(&file.path) });
    let table: serde_json::Value = toml.extract()?;
    unknown_keys::refuse::<T>(&file.path, &table, others).map_err(anyhow::Error::msg)?;
    Ok(Figment::from(Serialized::defaults(T::default())).merge(toml).merge(variables("MEDIAOPS_")))
}

/// The variables starting with `prefix`, `__` nesting a key; values parse
/// as TOML-like values (`'["tikhub"]'` is an array).
fn variables(prefix: &str) -> Env {
    Env::prefixed(prefix).split("__")
}

impl CoreSettings {
    /// Loads and checks the settings.
    ///
    /// # Errors
    /// A value of the wrong type, a malformed `MEDIAOPS_NOW`, or a backend
    /// that is configured but not built yet: nothing falls back silently.
    pub fn load(config_file: Option<&Path>) -> anyhow::Result<CoreSettings> {
        let settings: CoreSettings = sources::<CoreSettings>(config_file, unknown_keys::GATEWAY_KEYS)?.extract()?;
        settings.check()?;
        Ok(settings)
    }

    /// Checks values that the types alone do not.
    pub fn check(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.operation_timeout_secs >= 1 && self.operation_timeout_secs < self.reservation_ttl_secs,
            "MEDIAOPS_OPERATION_TIMEOUT_SECS must be at least 1 and below MEDIAOPS_RESERVATION_TTL_SECS"
        );
        if let Some(token) = &self.admin_token {
            anyhow::ensure!(
                mediaops_proto::bearer::is_well_formed_key(token),
                "MEDIAOPS_ADMIN_TOKEN must be 16-256 characters of A-Z a-z 0-9 - . _ ~ + / ="
            );
        }
        mediaops_store::clock::Clock::from_setting(self.now.as_deref())?;
        if let Some(key) = &self.bootstrap_key {
            anyhow::ensure!(
                mediaops_proto::bearer::is_well_formed_key(key),
                "MEDIAOPS_BOOTSTRAP_KEY must be 16-256 characters of A-Z a-z 0-9 - . _ ~ + / ="
            );
        }
        anyhow::ensure!(self.bootstrap_points >= 0, "MEDIAOPS_BOOTSTRAP_POINTS must not be negative");
        anyhow::ensure!(
            (1..=300).contains(&self.store_acquire_timeout_secs),
            "MEDIAOPS_STORE_ACQUIRE_TIMEOUT_SECS must be 1..300"
        );
        anyhow::ensure!(
            self.sqlite_mmap_mib <= MAX_SQLITE_MMAP_MIB,
            "MEDIAOPS_SQLITE_MMAP_MIB must be 0..={MAX_SQLITE_MMAP_MIB}"
        );
        anyhow::ensure!(
            (1..=300).contains(&self.readiness_interval_secs),
            "MEDIAOPS_READINESS_INTERVAL_SECS must be 1..300"
        );
        self.outbound.check()?;
        self.images.check()?;
        self.hotlists.check()?;
        self.web_search.check()?;
        self.sync.check()?;
        self.rate_limit.default_limit()?;
        self.listener.check().map_err(anyhow::Error::msg)?;
        anyhow::ensure!(
            !self.listener.reuse_port || (self.database_url.is_some() && self.redis_url.is_some()),
            "MEDIAOPS_REUSE_PORT makes the processes on this port replicas of one service, and replicas keep their \
             state in PostgreSQL and Redis: set MEDIAOPS_DATABASE_URL and MEDIAOPS_REDIS_URL too (docs/state.md)"
        );
        self.wechat.check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wechat_tables_load_and_debug_hides_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mediaops.toml");
        let toml = "[wechat]\ncallback_addr = \"127.0.0.1:8090\"\n\
            [[wechat.accounts]]\naccount_id = \"acme\"\nappid = \"wxa\"\nsecret = \"s3cr3t-direct\"\n\
            [wechat.component]\nappid = \"wxc\"\nsecret = \"s3cr3t-component\"\ntoken = \"tok\"\n\
            encoding_aes_key = \"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG\"\n\
            redirect_uri = \"https://ops.example.com/wechat/component/authorized\"\n";
        std::fs::write(&file, toml).unwrap();
        let settings = CoreSettings::load(Some(&file)).unwrap();
        let wechat = &settings.wechat;
        assert_eq!(wechat.callback_addr.as_deref(), Some("127.0.0.1:8090"));
        assert_eq!(
            (wechat.accounts[0].appid.as_str(), wechat.accounts[0].service_type.as_str()),
            ("wxa", "subscription")
        );
        assert_eq!(wechat.component.as_ref().unwrap().appid, "wxc");
        assert_eq!(wechat.api_base, "https://api.weixin.qq.com", "unset keys keep their defaults");
        let shown = format!("{settings:?}");
        assert!(shown.contains("wxa") && !shown.contains("s3cr3t"), "{shown}");

        std::fs::write(&file, toml.replace("ABCDEFG", "ABC")).unwrap();
        let error = CoreSettings::load(Some(&file)).unwrap_err().to_string();
        assert!(error.contains("encoding_aes_key"), "{error}");
        std::fs::write(
            &file,
            format!("{toml}[[wechat.accounts]]\naccount_id = \"b\"\nappid = \"wxa\"\nsecret = \"x\"\n"),
        )
        .unwrap();
        assert!(CoreSettings::load(Some(&file)).unwrap_err().to_string().contains("twice"));
    }

    #[test]
    fn packs_and_base_urls_load_from_the_environment() {
        // A prefix of this test's own, so no other test sees the variables.
        let prefix = "MEDIAOPS_TEST_PACKS_";
        // SAFETY: only this test reads variables with this prefix.
        unsafe {
            std::env::set_var(format!("{prefix}VENDORS__PACKS"), r#"["tikhub", "justoneapi"]"#);
            std::env::set_var(format!("{prefix}VENDORS__BASE_URLS__TIKHUB"), "http://127.0.0.1:9000");
        }
        let settings: CoreSettings =
            Figment::from(Serialized::defaults(CoreSettings::default())).merge(variables(prefix)).extract().unwrap();
        assert_eq!(settings.vendors.packs, ["tikhub", "justoneapi"]);
        assert_eq!(settings.vendors.base_urls["tikhub"], "http://127.0.0.1:9000");
        assert!(settings.vendors.files.is_empty() && settings.vendors.sources.is_empty());

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mediaops.toml");
        std::fs::write(&file, "[vendors]\npacks = [\"tikhub\"]\n[vendors.base_urls]\ntikhub = \"http://proxy:1\"\n")
            .unwrap();
        let settings = CoreSettings::load(Some(&file)).unwrap();
        assert_eq!(settings.vendors.packs, ["tikhub"]);
        assert_eq!(settings.vendors.base_urls["tikhub"], "http://proxy:1");
    }

    #[test]
    fn the_listed_core_keys_are_the_settings_keys() {
        let value = serde_json::to_value(CoreSettings::default()).unwrap();
        let listener = serde_json::to_value(mediaops_listener::ListenerSettings::default()).unwrap();
        let own: Vec<&str> =
            value.as_object().unwrap().keys().map(String::as_str).filter(|k| listener.get(k).is_none()).collect();
        assert_eq!(own, unknown_keys::CORE_KEYS);
    }

    #[test]
    fn unknown_keys_of_the_file_are_refused_with_the_closest_known_one() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mediaops.toml");
        std::fs::write(&file, "rest_addr = \"127.0.0.1:1\"\n[hotlists]\ninterval_sec = 5\n").unwrap();
        let err = CoreSettings::load(Some(&file)).unwrap_err().to_string();
        assert!(err.contains("unknown key `hotlists.interval_sec` (did you mean `interval_secs`?)"), "{err}");
        assert!(!err.contains("rest_addr"), "the gateway's keys are known: {err}");
        let err = CoreSettings::load(Some(&dir.path().join("missing.toml"))).unwrap_err().to_string();
        assert!(err.contains("does not exist"), "{err}");
    }

    #[test]
    fn defaults_match_the_readme() {
        let s = CoreSettings::default();
        assert_eq!(s.grpc_addr, "0.0.0.0:50051");
        assert_eq!(s.data_dir, PathBuf::from("./data"));
        assert_eq!(s.bootstrap_points, 10_000);
        assert_eq!((s.store_acquire_timeout_secs, s.readiness_interval_secs), (2, 5));
        assert_eq!(s.snapshot_retention_days, 125);
        assert!(s.check().is_ok());
    }

    #[test]
    fn a_config_file_overrides_defaults_and_bad_values_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mediaops.toml");
        std::fs::write(&file, "grpc_addr = \"127.0.0.1:6000\"\nbootstrap_points = 7\nreservation_ttl_secs = 90\n")
            .unwrap();
        let s = CoreSettings::load(Some(&file)).unwrap();
        assert_eq!((s.grpc_addr.as_str(), s.bootstrap_points, s.reservation_ttl_secs), ("127.0.0.1:6000", 7, 90));
        assert_eq!(s.operation_timeout_secs, 60, "unset keys keep their defaults");
        std::fs::write(&file, "bootstrap_points = \"many\"\n").unwrap();
        let err = CoreSettings::load(Some(&file)).unwrap_err().to_string();
        assert!(err.contains("bootstrap_points"), "{err}");
    }

    #[test]
    fn listener_limits_are_top_level_keys() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mediaops.toml");
        std::fs::write(&file, "max_connections = 20\nheader_read_timeout_secs = 2\n").unwrap();
        let s = CoreSettings::load(Some(&file)).unwrap();
        assert_eq!((s.listener.max_connections, s.listener.header_read_timeout_secs), (20, 2));
        assert_eq!(s.listener.shutdown_grace_secs, 25, "unset keys keep their defaults");
        std::fs::write(&file, "max_connections = 0\n").unwrap();
        let err = CoreSettings::load(Some(&file)).unwrap_err().to_string();
        assert!(err.contains("MEDIAOPS_MAX_CONNECTIONS"), "{err}");
    }

    #[test]
    fn a_shared_port_needs_the_replicas_shared_state() {
        let shared = |database: Option<&str>, redis: Option<&str>| {
            let mut s = CoreSettings::default();
            s.listener.reuse_port = true;
            s.database_url = database.map(str::to_owned);
            s.redis_url = redis.map(str::to_owned);
            s.check()
        };
        let (database, redis) = (Some("postgres://db/mediaops"), Some("redis://cache"));
        assert!(shared(database, redis).is_ok());
        for (database, redis) in [(None, redis), (database, None), (None, None)] {
            let err = shared(database, redis).unwrap_err().to_string();
            assert!(err.contains("MEDIAOPS_REUSE_PORT") && err.contains("MEDIAOPS_DATABASE_URL"), "{err}");
        }
    }

    #[test]
    fn hotlists_are_a_nested_table_that_keeps_unset_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mediaops.toml");
        let toml = "[hotlists]\nenabled = true\n[hotlists.douyin]\ncookie = \"a=1\"\ninterval_secs = 300\n\
                    headers = { \"accept-language\" = \"zh-CN\" }\n";
        std::fs::write(&file, toml).unwrap();
        let s = CoreSettings::load(Some(&file)).unwrap();
        assert!(s.hotlists.enabled);
        assert_eq!(s.hotlists.douyin.cookie.as_deref(), Some("a=1"));
        assert_eq!(s.hotlists.douyin.headers.get("accept-language").map(String::as_str), Some("zh-CN"));
        assert_eq!(s.hotlists.douyin.interval_secs, Some(300));
        assert!(s.hotlists.weibo.enabled, "unset tables keep their defaults");
        assert_eq!(s.hotlists.interval_secs, 600);
        std::fs::write(&file, "[hotlists.weibo]\nbase_url = \"weibo.com\"\n").unwrap();
        let err = CoreSettings::load(Some(&file)).unwrap_err().to_string();
        assert!(err.contains("hotlists.weibo.base_url"), "{err}");
    }

    #[test]
    fn bad_limits_tokens_and_clock_are_refused() {
        let with = |f: fn(&mut CoreSettings)| {
            let mut s = CoreSettings::default();
            f(&mut s);
            s.check()
        };
        assert!(with(|s| s.operation_timeout_secs = 500).is_err());
        assert!(with(|s| s.admin_token = Some("short".into())).is_err());
        assert!(with(|s| s.now = Some("2024-06-21".into())).is_ok());
        assert!(with(|s| s.now = Some("2024-06-21T10:00:00+08:00".into())).is_ok());
        assert!(with(|s| s.now = Some("21/06/2024".into())).is_err());
        assert!(with(|s| s.bootstrap_key = Some("short".into())).is_err());
        assert!(with(|s| s.store_acquire_timeout_secs = 0).is_err());
        assert!(with(|s| s.readiness_interval_secs = 0).is_err());
        assert!(with(|s| s.sqlite_mmap_mib = 0).is_ok());
        assert!(with(|s| s.sqlite_mmap_mib = 65_537).is_err());
        assert!(with(|s| s.rate_limit.default_rate = "20/s".into()).is_ok());
        let err = with(|s| s.rate_limit.default_rate = "20 per second".into()).unwrap_err().to_string();
        assert!(err.contains("MEDIAOPS_RATE_LIMIT__DEFAULT_RATE"), "{err}");
    }

    #[test]
    fn the_rate_limit_section_reads_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mediaops.toml");
        std::fs::write(&file, "[rate_limit]\ndefault_rate = \"20/s\"\ndefault_burst = 40\n").unwrap();
        let s = CoreSettings::load(Some(&file)).unwrap();
        let quota = mediaops_platform::rate_limit::Quota { count: 20, period_secs: 1, burst: 40 };
        assert_eq!(s.rate_limit.default_limit().unwrap(), mediaops_platform::rate_limit::Limit::Quota(quota));
        assert_eq!(
            CoreSettings::default().rate_limit.default_limit().unwrap(),
            mediaops_platform::rate_limit::Limit::Off
        );
        std::fs::write(&file, "[rate_limit]\ndefault_burts = 4\n").unwrap();
        let err = CoreSettings::load(Some(&file)).unwrap_err().to_string();
        assert!(err.contains("rate_limit.default_burts") && err.contains("default_burst"), "{err}");
    }
}
