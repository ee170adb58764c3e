//! What a tracking run calls on each platform (docs/tracking.md "What is
//! collected"): per account its profile and its recent works, per keyword
//! its search, each an ordinary data operation of spec 4.3–4.10 answered by
//! its own source chain (a vendor pack's mapping, the store, or both).

use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;

/// One operation a run calls and the request field that takes the account
/// or the keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The operation key, e.g. `shortvideo.query-account`.
    pub operation: &'static str,
    /// The request's field for the account id or the keyword.
    pub field: &'static str,
}

/// The operations a run calls on one platform.
#[derive(Debug, Clone, Copy)]
pub struct Platform {
    /// The platform token (`shortvideo`).
    pub token: &'static str,
    /// An account's profile (its followers, likes and works counters).
    pub profile: Option<Step>,
    /// An account's recent works (each work's counters).
    pub works: Option<Step>,
    /// A keyword's search (the works it finds and their counters).
    pub search: Step,
    /// Where an account's id stands in a profile link: the host's ending
    /// and the path segment after which the id follows (`None`: the
    /// platform's account ids are not read from links).
    pub link: Option<(&'static str, &'static str)>,
}

const fn step(operation: &'static str, field: &'static str) -> Step {
    Step { operation, field }
}

/// Every platform a tracking list may name (value list
/// `TRACKING_PLATFORMS` of tracking.proto).
pub static PLATFORMS: [Platform; 5] = [
    Platform {
        token: "shortvideo",
        profile: Some(step("shortvideo.query-account", "secUid")),
        works: Some(step("shortvideo.query-work-list", "accountId")),
        search: step("shortvideo.search-work", "keyword"),
        link: Some(("douyin.com", "/user/")),
    },
    Platform {
        token: "lifestyle",
        profile: Some(step("lifestyle.query-account", "accountId")),
        works: None,
        search: step("lifestyle.search-note", "keyword"),
        link: Some(("xiaohongshu.com", "/user/profile/")),
    },
    Platform {
        token: "videosite",
        profile: Some(step("videosite.query-account", "mid")),
        works: Some(step("videosite.videosite-user-works", "mid")),
        search: step("videosite.search-work", "keyword"),
        link: Some(("space.bilibili.com", "/")),
    },
    Platform {
        token: "channels",
        profile: None,
        works: Some(step("channels.user-works", "nickname")),
        search: step("channels.search-work", "keyword"),
        link: None,
    },
    Platform {
        token: "clipapp",
        profile: None,
        works: Some(step("clipapp.user-works", "kwaiId")),
        search: step("clipapp.search-work", "keyword"),
        link: None,
    },
];

/// The platform of `token`.
///
/// # Errors
/// 400 naming `tracking.platform` for any other value.
pub fn platform(token: &str) -> Result<&'static Platform, ServiceError> {
    PLATFORMS.iter().find(|p| p.token == token.trim()).ok_or_else(|| {
        let known: Vec<&str> = PLATFORMS.iter().map(|p| p.token).collect();
        ServiceError::invalid_field(
            "tracking.platform",
            format!(
                "`tracking.platform` {} is not a platform a tracking list collects; use one of {}",
                excerpt(token),
                known.join(", ")
            ),
        )
    })
}

impl Platform {
    /// The account id an entry names: the entry itself, or the id read
    /// from its profile link (`https://www.douyin.com/user/MS4w…?from=…`).
    ///
    /// # Errors
    /// 400 naming `field` for an empty entry, a link of another site, a
    /// link without an id, or a link on a platform whose ids are not read
    /// from links.
    pub fn account_id(&self, entry: &str, field: &str) -> Result<String, ServiceError> {
        let entry = entry.trim();
        let bad = |why: &str| ServiceError::invalid_field(field, format!("`{field}` {}: {why}", excerpt(entry)));
        if entry.is_empty() {
            return Err(bad("an account is an id or a profile link"));
        }
        if !entry.starts_with("http://") && !entry.starts_with("https://") {
            if entry.chars().count() > 200 || entry.contains(char::is_whitespace) {
                return Err(bad("an account id is at most 200 characters without spaces"));
            }
            return Ok(entry.to_owned());
        }
        let Some((host, after)) = self.link else {
            return Err(bad(&format!("{} accounts are named by id, not by link", self.token)));
        };
        let url = url::Url::parse(entry).map_err(|_| bad("not a link"))?;
        let on_host = url.host_str().is_some_and(|h| h == host || h.ends_with(&format!(".{host}")));
        if !on_host {
            return Err(bad(&format!("a {} profile link is on {host}", self.token)));
        }
        let id = url.path().split_once(after).map(|(_, rest)| rest.split('/').next().unwrap_or_default());
        match id {
            Some(id) if !id.is_empty() => Ok(id.to_owned()),
            _ => Err(bad(&format!("the link holds no account id after `{after}`"))),
        }
    }

    /// The steps of one run: for each account its profile then its works,
    /// then each keyword's search; as (step, value) pairs.
    pub fn plan<'a>(&self, accounts: &'a [String], keywords: &'a [String]) -> Vec<(Step, &'a str)> {
        let per_account = accounts
            .iter()
            .flat_map(|a| [self.profile, self.works].into_iter().flatten().map(move |s| (s, a.as_str())));
        let per_keyword = keywords.iter().map(|k| (self.search, k.as_str()));
        per_account.chain(per_keyword).collect()
    }
}

/// The price of each operation key (`unit_price` of its catalog entry),
/// read from the descriptor pool.
pub fn unit_price(operation: &str) -> i64 {
    mediaops_proto::options::operations(mediaops_proto::descriptor_pool())
        .into_iter()
        .find(|(_, meta)| meta.operation_key == operation)
        .map_or(0, |(_, meta)| i64::from(meta.unit_price))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_read_from_profile_links() {
        let douyin = platform("shortvideo").unwrap();
        let id = douyin.account_id("https://www.douyin.com/user/MS4wLjABAAAAabc?from_tab_name=main", "a").unwrap();
        assert_eq!(id, "MS4wLjABAAAAabc");
        assert_eq!(douyin.account_id(" MS4wLjABAAAAabc ", "a").unwrap(), "MS4wLjABAAAAabc");
        let err = douyin.account_id("https://www.bilibili.com/user/1", "tracking.accounts[0]").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("tracking.accounts[0]"));
        assert!(douyin.account_id("https://www.douyin.com/video/1", "a").is_err());
        let bili = platform("videosite").unwrap();
        assert_eq!(bili.account_id("https://space.bilibili.com/700000001?spm=x", "a").unwrap(), "700000001");
        assert!(platform("channels").unwrap().account_id("https://channels.weixin.qq.com/x", "a").is_err());
        assert!(platform("weibo").is_err());
    }

    #[test]
    fn a_run_calls_profile_and_works_per_account_and_search_per_keyword() {
        let douyin = platform("shortvideo").unwrap();
        let (accounts, keywords) = (["a".to_owned(), "b".to_owned()], ["猫".to_owned()]);
        let plan = douyin.plan(&accounts, &keywords);
        let ops: Vec<&str> = plan.iter().map(|(s, _)| s.operation).collect();
        assert_eq!(
            ops,
            [
                "shortvideo.query-account",
                "shortvideo.query-work-list",
                "shortvideo.query-account",
                "shortvideo.query-work-list",
                "shortvideo.search-work"
            ]
        );
        let price: i64 = plan.iter().map(|(s, _)| unit_price(s.operation)).sum();
        assert_eq!(price, 4 + 4 + 4 + 4 + 6, "spec 4.4 prices");
    }
}
