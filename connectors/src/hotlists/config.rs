//! Collector configuration: the `hotlists` table of the core's settings
//! (docs/hotlists.md "Configuration"). In the TOML file:
//!
//! ```toml
//! [hotlists]
//! enabled = true            # default false: no network unless asked
//! interval_secs = 600
//!
//! [hotlists.douyin]
//! cookie = "passport_csrf_token=…"
//! headers = { "accept-language" = "zh-CN" }
//!
//! [hotlists.baidu]
//! enabled = false
//! ```
//!
//! As environment variables, nested keys are joined by `__`:
//! `MEDIAOPS_HOTLISTS__ENABLED=true`,
//! `MEDIAOPS_HOTLISTS__WEIBO__BASE_URL=http://mirror/hotSearch`,
//! `MEDIAOPS_HOTLISTS__DOUYIN__COOKIE=…`,
//! `MEDIAOPS_HOTLISTS__ZHIHU__HEADERS='{authorization="…"}'`.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Source;

/// The `hotlists` settings: scheduler defaults and one table per source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HotlistSettings {
    /// Run the collectors inside the core (`MEDIAOPS_HOTLISTS__ENABLED`).
    /// Default false, so tests and offline installs never touch the network.
    pub enabled: bool,
    /// Seconds between two runs of a source (each source may override);
    /// at least 10.
    pub interval_secs: u64,
    /// Up to this many seconds are added at random to each wait (and to the
    /// first run), so sources and replicas do not call in step.
    pub jitter_secs: u64,
    /// Seconds to open a connection.
    pub connect_timeout_secs: u64,
    /// Seconds for a whole request, reply body included.
    pub timeout_secs: u64,
    /// Retries of a failed request within one run (0 = one attempt).
    pub retries: u32,
    /// Milliseconds before the first retry; each further retry waits
    /// twice as long.
    pub retry_backoff_ms: u64,
    /// Largest reply read, in bytes.
    pub max_body_bytes: usize,
    /// `User-Agent` of every request (a source's `headers` may replace it).
    pub user_agent: String,
    /// Weibo hot search (`[hotlists.weibo]`).
    pub weibo: SourceSettings,
    /// Douyin hot board (`[hotlists.douyin]`).
    pub douyin: SourceSettings,
    /// Bilibili popular list (`[hotlists.bilibili]`).
    pub bilibili: SourceSettings,
    /// Kuaishou hot board (`[hotlists.kuaishou]`).
    pub kuaishou: SourceSettings,
    /// Zhihu hot list (`[hotlists.zhihu]`).
    pub zhihu: SourceSettings,
    /// Toutiao hot board (`[hotlists.toutiao]`).
    pub toutiao: SourceSettings,
    /// Baidu realtime hot search (`[hotlists.baidu]`).
    pub baidu: SourceSettings,
}

/// One source's table (`[hotlists.<source>]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SourceSettings {
    /// Collect this source when the collectors run (default true).
    pub enabled: bool,
    /// Overrides `hotlists.interval_secs`.
    pub interval_secs: Option<u64>,
    /// The URL read; default the public endpoint of HOTLISTS.md
    /// ([`Source::default_url`]).
    pub base_url: Option<String>,
    /// Extra request headers (name → value), sent after the defaults.
    pub headers: BTreeMap<String, String>,
    /// Sent as the `Cookie` header (Douyin needs one; Zhihu may).
    pub cookie: Option<String>,
}

impl Default for SourceSettings {
    fn default() -> Self {
        SourceSettings { enabled: true, interval_secs: None, base_url: None, headers: BTreeMap::new(), cookie: None }
    }
}

impl Default for HotlistSettings {
    fn default() -> Self {
        HotlistSettings {
            enabled: false,
            interval_secs: 600,
            jitter_secs: 60,
            connect_timeout_secs: 10,
            timeout_secs: 30,
            retries: 2,
            retry_backoff_ms: 2_000,
            max_body_bytes: 8 * 1024 * 1024,
            user_agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
                         Chrome/126.0 Safari/537.36"
                .into(),
            weibo: SourceSettings::default(),
            douyin: SourceSettings::default(),
            bilibili: SourceSettings::default(),
            kuaishou: SourceSettings::default(),
            zhihu: SourceSettings::default(),
            toutiao: SourceSettings::default(),
            baidu: SourceSettings::default(),
        }
    }
}

/// Smallest interval accepted, in seconds.
pub const MIN_INTERVAL_SECS: u64 = 10;

impl HotlistSettings {
    /// The table of `source`.
    pub fn source(&self, source: Source) -> &SourceSettings {
        match source {
            Source::Weibo => &self.weibo,
            Source::Douyin => &self.douyin,
            Source::Bilibili => &self.bilibili,
            Source::Kuaishou => &self.kuaishou,
            Source::Zhihu => &self.zhihu,
            Source::Toutiao => &self.toutiao,
            Source::Baidu => &self.baidu,
        }
    }

    /// Mutable table of `source`.
    pub fn source_mut(&mut self, source: Source) -> &mut SourceSettings {
        match source {
            Source::Weibo => &mut self.weibo,
            Source::Douyin => &mut self.douyin,
            Source::Bilibili => &mut self.bilibili,
            Source::Kuaishou => &mut self.kuaishou,
            Source::Zhihu => &mut self.zhihu,
            Source::Toutiao => &mut self.toutiao,
            Source::Baidu => &mut self.baidu,
        }
    }

    /// The URL read for `source`.
    pub fn url(&self, source: Source) -> &str {
        self.source(source).base_url.as_deref().unwrap_or(source.default_url())
    }

    /// The wait between two runs of `source` (before jitter).
    pub fn interval(&self, source: Source) -> Duration {
        Duration::from_secs(self.source(source).interval_secs.unwrap_or(self.interval_secs))
    }

    /// Checks what the types do not, naming the key.
    ///
    /// # Errors
    /// An interval below [`MIN_INTERVAL_SECS`], a zero timeout, a URL that
    /// is not http(s), or a header that HTTP cannot carry.
    pub fn check(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.interval_secs >= MIN_INTERVAL_SECS,
            "hotlists.interval_secs must be at least {MIN_INTERVAL_SECS}"
        );
        anyhow::ensure!(self.connect_timeout_secs >= 1, "hotlists.connect_timeout_secs must be at least 1");
        anyhow::ensure!(self.timeout_secs >= 1, "hotlists.timeout_secs must be at least 1");
        anyhow::ensure!(self.max_body_bytes >= 1024, "hotlists.max_body_bytes must be at least 1024");
        http::HeaderValue::from_str(&self.user_agent)
            .map_err(|_| anyhow::anyhow!("hotlists.user_agent is not a valid header value"))?;
        for source in Source::ALL {
            let table = self.source(source);
            let key = |field: &str| format!("hotlists.{}.{field}", source.name());
            if let Some(secs) = table.interval_secs {
                anyhow::ensure!(
                    secs >= MIN_INTERVAL_SECS,
                    "{} must be at least {MIN_INTERVAL_SECS}",
                    key("interval_secs")
                );
            }
            let url = self.url(source);
            anyhow::ensure!(
                (url.starts_with("http://") || url.starts_with("https://")) && url.len() > "https://".len(),
                "{} must be an http:// or https:// URL, not {url:?}",
                key("base_url")
            );
            for (name, value) in &table.headers {
                http::HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| anyhow::anyhow!("{}: {name:?} is not a header name", key("headers")))?;
                http::HeaderValue::from_str(value)
                    .map_err(|_| anyhow::anyhow!("{}.{name} is not a valid header value", key("headers")))?;
            }
            if let Some(cookie) = &table.cookie {
                http::HeaderValue::from_str(cookie)
                    .map_err(|_| anyhow::anyhow!("{} is not a valid header value", key("cookie")))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_off_and_valid() {
        let s = HotlistSettings::default();
        assert!(!s.enabled);
        assert!(s.check().is_ok());
        assert_eq!(s.url(Source::Zhihu), "https://api.zhihu.com/topstory/hot-lists/total?limit=50");
        assert_eq!(s.interval(Source::Weibo), Duration::from_secs(600));
    }

    #[test]
    fn bad_values_name_their_key() {
        let with = |f: fn(&mut HotlistSettings)| {
            let mut s = HotlistSettings::default();
            f(&mut s);
            s.check().unwrap_err().to_string()
        };
        assert!(with(|s| s.interval_secs = 1).contains("hotlists.interval_secs"));
        assert!(with(|s| s.douyin.interval_secs = Some(2)).contains("hotlists.douyin.interval_secs"));
        assert!(with(|s| s.weibo.base_url = Some("ftp://x".into())).contains("hotlists.weibo.base_url"));
        assert!(
            with(|s| drop(s.zhihu.headers.insert("bad name".into(), "v".into()))).contains("hotlists.zhihu.headers")
        );
        assert!(with(|s| s.douyin.cookie = Some("a\nb".into())).contains("hotlists.douyin.cookie"));
    }
}
