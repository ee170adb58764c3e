//! Settings of `skills.ai-web-search` (`[web_search]`,
//! `MEDIAOPS_WEB_SEARCH__…`; docs/web-search.md "Configuration").

use serde::{Deserialize, Serialize};

/// Where the search backend and the chat model are, and the task's timing.
/// Without `searxng_url` and `chat_url` the skill answers 503
/// `not_configured` (nothing charged).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WebSearchSettings {
    /// SearXNG base URL, e.g. `http://searxng:8080`; its JSON API
    /// (`/search?format=json`) must be enabled (`search.formats: [html, json]`).
    pub searxng_url: Option<String>,
    /// SearXNG `language` parameter (`zh-CN` by default; empty = SearXNG's default).
    pub language: String,
    /// Search results given to the model and returned as `references` (1-20).
    pub max_results: usize,
    /// OpenAI-compatible API base URL including its version segment, e.g.
    /// `https://api.openai.com/v1`; `/chat/completions` is appended.
    pub chat_url: Option<String>,
    /// Bearer token of the chat API; unset = no `Authorization` header
    /// (a local model server).
    pub chat_api_key: Option<String>,
    /// The `model` of the chat request.
    pub chat_model: String,
    /// Seconds the invoke call waits for the answer before returning
    /// `status: running` with the `taskId` (60).
    pub wait_secs: u64,
    /// Seconds a task may run before it fails, uncharged (spec 8: "about 5 minutes").
    pub deadline_secs: u64,
    /// Seconds one search request may take (connect and read timeouts,
    /// and the retry backoff, come from `[outbound]`: docs/outbound.md).
    pub search_timeout_secs: u64,
    /// Retries of a failed search (transport failure, timeout, 5xx, 429).
    pub search_retries: u32,
    /// Seconds one chat completion may take; never retried.
    pub chat_timeout_secs: u64,
}

impl Default for WebSearchSettings {
    fn default() -> Self {
        WebSearchSettings {
            searxng_url: None,
            language: "zh-CN".into(),
            max_results: 8,
            chat_url: None,
            chat_api_key: None,
            chat_model: "gpt-4o-mini".into(),
            wait_secs: 60,
            deadline_secs: 300,
            search_timeout_secs: 20,
            search_retries: 2,
            chat_timeout_secs: 180,
        }
    }
}

impl WebSearchSettings {
    /// Checks values that the types alone do not.
    pub fn check(&self) -> anyhow::Result<()> {
        for (name, url) in [("searxng_url", &self.searxng_url), ("chat_url", &self.chat_url)] {
            if let Some(url) = url {
                let parsed = reqwest::Url::parse(url)
                    .map_err(|e| anyhow::anyhow!("web_search.{name} is not a URL ({url:?}): {e}"))?;
                anyhow::ensure!(
                    matches!(parsed.scheme(), "http" | "https"),
                    "web_search.{name} must be an http or https URL, not {url:?}"
                );
            }
        }
        anyhow::ensure!((1..=20).contains(&self.max_results), "web_search.max_results must be 1-20");
        // The gateway gives up on a core call after 300 s (rest-gateway core_client).
        anyhow::ensure!((1..=240).contains(&self.wait_secs), "web_search.wait_secs must be 1-240");
        anyhow::ensure!(
            self.deadline_secs > self.wait_secs && self.deadline_secs <= 3600,
            "web_search.deadline_secs must be above web_search.wait_secs and at most 3600"
        );
        anyhow::ensure!(
            self.search_timeout_secs >= 1 && self.chat_timeout_secs >= 1,
            "web_search timeouts must be at least 1 second"
        );
        anyhow::ensure!(self.search_retries <= 5, "web_search.search_retries must be at most 5");
        Ok(())
    }

    /// The settings that are missing for the skill to run, by their
    /// variable names; empty when it can run.
    pub fn missing(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if self.searxng_url.is_none() {
            missing.push("MEDIAOPS_WEB_SEARCH__SEARXNG_URL");
        }
        if self.chat_url.is_none() {
            missing.push("MEDIAOPS_WEB_SEARCH__CHAT_URL");
        }
        missing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_pass_and_name_what_is_missing() {
        let s = WebSearchSettings::default();
        assert!(s.check().is_ok());
        assert_eq!((s.wait_secs, s.deadline_secs), (60, 300), "wait 60 s; spec 8: about 5 minutes");
        assert_eq!(s.missing(), ["MEDIAOPS_WEB_SEARCH__SEARXNG_URL", "MEDIAOPS_WEB_SEARCH__CHAT_URL"]);
        let configured = WebSearchSettings {
            searxng_url: Some("http://searxng:8080".into()),
            chat_url: Some("https://api.openai.com/v1".into()),
            ..s
        };
        assert!(configured.missing().is_empty());
    }

    #[test]
    fn bad_values_are_refused_by_name() {
        let with = |f: fn(&mut WebSearchSettings)| {
            let mut s = WebSearchSettings::default();
            f(&mut s);
            s.check().map_err(|e| e.to_string())
        };
        assert!(with(|s| s.searxng_url = Some("searxng:8080".into())).unwrap_err().contains("searxng_url"));
        assert!(with(|s| s.chat_url = Some("ftp://x.example/v1".into())).unwrap_err().contains("chat_url"));
        assert!(with(|s| s.wait_secs = 300).unwrap_err().contains("wait_secs"));
        assert!(with(|s| s.deadline_secs = 30).unwrap_err().contains("deadline_secs"));
        assert!(with(|s| s.max_results = 0).unwrap_err().contains("max_results"));
        assert!(with(|s| s.search_retries = 9).unwrap_err().contains("search_retries"));
    }
}
