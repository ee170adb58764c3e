//! Feed names (docs/watchlists.md "Feeds"): `hotlists/<source>` for one of
//! the seven hot lists, `watchlists/<id>` for a watch list, and the URL path
//! the REST gateway serves each at.

use mediaops_connectors::hotlists::sources::Source;
use mediaops_proto::error::ServiceError;

/// Which feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedName {
    /// The items of a hot list's newest capture.
    Hotlist(Source),
    /// What a watch list matches in the last 24 hours.
    Watchlist(String),
}

impl FeedName {
    /// Parses `hotlists/<source>` or `watchlists/<id>`.
    ///
    /// # Errors
    /// 400 naming `field` for anything else (an unknown hot list, a bad
    /// watch-list id).
    pub fn parse(text: &str, field: &str) -> Result<FeedName, ServiceError> {
        let bad = |why: String| ServiceError::invalid_field(field, why);
        match text.split_once('/') {
            Some(("hotlists", source)) => Source::from_name(source).map(FeedName::Hotlist).ok_or_else(|| {
                let names: Vec<&str> = Source::ALL.iter().map(|s| s.name()).collect();
                bad(format!("`{field}`: no hot list {source:?}; one of {}", names.join(", ")))
            }),
            Some(("watchlists", id)) => {
                crate::watch::check_id(id).map_err(|e| bad(format!("`{field}`: {}", e.message)))?;
                Ok(FeedName::Watchlist(id.to_owned()))
            }
            _ => Err(bad(format!("`{field}` must be hotlists/<source> or watchlists/<id>"))),
        }
    }

    /// The stored form, `hotlists/weibo` or `watchlists/<id>`.
    pub fn as_str(&self) -> String {
        match self {
            FeedName::Hotlist(source) => format!("hotlists/{}", source.name()),
            FeedName::Watchlist(id) => format!("watchlists/{id}"),
        }
    }

    /// The gateway's URL path of the feed, without its token.
    pub fn path(&self) -> String {
        match self {
            FeedName::Hotlist(source) => format!("/api/feeds/hotlists/{}.atom", source.name()),
            FeedName::Watchlist(id) => format!("/api/watchlists/{id}.atom"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print_back() {
        for text in ["hotlists/weibo", "hotlists/baidu", "watchlists/exams-2024"] {
            assert_eq!(FeedName::parse(text, "feed").unwrap().as_str(), text);
        }
        assert_eq!(FeedName::parse("hotlists/zhihu", "feed").unwrap().path(), "/api/feeds/hotlists/zhihu.atom");
        assert_eq!(FeedName::parse("watchlists/a_b", "feed").unwrap().path(), "/api/watchlists/a_b.atom");
        for bad in ["", "hotlists/myspace", "watchlists/bad id", "watchlists/", "weibo", "boards/x"] {
            let error = FeedName::parse(bad, "feed").unwrap_err();
            assert_eq!(error.field.as_deref(), Some("feed"), "{bad}");
        }
    }
}
