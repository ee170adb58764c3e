//! The search backend: SearXNG's JSON API, `GET {searxng_url}/search?q=…&format=json`
//! (docs.searxng.org "Search API"). Answer shape used: `{query, results:
//! [{title, url, content, engine, …}], suggestions: [string], …}`; other
//! fields are ignored. A GET is safe to repeat, so the connector retries
//! transient failures (transport, timeout, 5xx, 429) a bounded number of
//! times (docs/outbound.md).

use reqwest::Method;
use serde::Deserialize;

use crate::outbound::{ConnectorClient, OutboundError, Retry};

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Hit {
    /// The page title.
    #[serde(default)]
    pub title: String,
    /// The page address.
    #[serde(default)]
    pub url: String,
    /// The snippet (may be absent).
    #[serde(default)]
    pub content: String,
    /// The engine that found it.
    #[serde(default)]
    pub engine: String,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct SearchAnswer {
    /// The hits, best first.
    #[serde(default)]
    pub results: Vec<Hit>,
    /// Queries the engines suggest.
    #[serde(default)]
    pub suggestions: Vec<String>,
}

/// A SearXNG instance.
#[derive(Clone)]
pub struct Searxng {
    client: ConnectorClient,
    language: String,
}

impl Searxng {
    /// `client` is based at the instance's root URL (without `/search`).
    pub fn new(client: ConnectorClient, language: &str) -> Searxng {
        Searxng { client, language: language.to_owned() }
    }

    /// Searches `query`; hits without a title or URL and repeated URLs are
    /// dropped, order kept.
    pub async fn search(&self, query: &str) -> Result<SearchAnswer, OutboundError> {
        let mut request = self.client.request(Method::GET, "/search").query(&[("q", query), ("format", "json")]);
        if !self.language.is_empty() {
            request = request.query(&[("language", self.language.as_str())]);
        }
        let response = self.client.send(request, Retry::ByMethod).await?;
        let mut answer: SearchAnswer = self.client.json(response).await?;
        let mut seen = std::collections::HashSet::new();
        answer
            .results
            .retain(|hit| !hit.title.trim().is_empty() && !hit.url.is_empty() && seen.insert(hit.url.clone()));
        Ok(answer)
    }
}
