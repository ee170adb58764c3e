//! The search backend: SearXNG's JSON API, `GET {searxng_url}/search?q=…&format=json`
//! (docs.searxng.org "Search API"). Answer shape used: `{query, results:
//! [{title, url, content, engine, …}], suggestions: [string], …}`; other
//! fields are ignored. A GET is safe to repeat, so transient failures
//! (transport, timeout, 5xx, 429) are retried a bounded number of times.

use std::time::Duration;

use serde::Deserialize;

use super::upstream::{UpstreamFailure, retry_transient};

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Hit {
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub url: String,
    /// The snippet (may be absent).
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub engine: String,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct SearchAnswer {
    #[serde(default)]
    pub results: Vec<Hit>,
    #[serde(default)]
    pub suggestions: Vec<String>,
}

/// A SearXNG instance.
#[derive(Debug, Clone)]
pub struct Searxng {
    client: reqwest::Client,
    base_url: String,
    language: String,
    retries: u32,
}

impl Searxng {
    /// `base_url` without a trailing `/search`; `timeout` bounds one request.
    pub fn new(
        base_url: &str,
        language: &str,
        connect_timeout: Duration,
        timeout: Duration,
        retries: u32,
    ) -> reqwest::Result<Searxng> {
        let client = reqwest::Client::builder().connect_timeout(connect_timeout).timeout(timeout).build()?;
        Ok(Searxng {
            client,
            base_url: base_url.trim_end_matches('/').to_owned(),
            language: language.to_owned(),
            retries,
        })
    }

    /// Searches `query`; hits without a title or URL and repeated URLs are
    /// dropped, order kept.
    pub async fn search(&self, query: &str) -> Result<SearchAnswer, UpstreamFailure> {
        let url = format!("{}/search", self.base_url);
        let mut answer: SearchAnswer = retry_transient(self.retries, || async {
            let mut request = self.client.get(&url).query(&[("q", query), ("format", "json")]);
            if !self.language.is_empty() {
                request = request.query(&[("language", self.language.as_str())]);
            }
            let response = request.send().await.map_err(|e| UpstreamFailure::transport("the search backend", &e))?;
            UpstreamFailure::json_or_status("the search backend", response).await
        })
        .await?;
        let mut seen = std::collections::HashSet::new();
        answer
            .results
            .retain(|hit| !hit.title.trim().is_empty() && !hit.url.is_empty() && seen.insert(hit.url.clone()));
        Ok(answer)
    }
}
