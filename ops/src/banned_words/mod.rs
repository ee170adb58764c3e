//! Banned-word checks (spec 2.6, 4.6, 4.14; docs/banned-words.md):
//! `tool/check-banned-words`, the skills `content-safety-check` and
//! `articles-prohibited-word` (platform `articles`), and the per-account
//! word lists (`GET`/`PUT /api/tool/banned-words/custom`).
//!
//! A check normalizes the text ([`normalize`]), finds the words of the
//! built-in lexicon ([`lexicon`]: common lists plus the platform's extra
//! list) and of the account's own lists with Aho-Corasick ([`matcher`]), and
//! builds the spec 2.6 result ([`result`]). Nothing upstream is called.

pub mod cached_words;
pub mod custom;
pub mod lexicon;
pub mod matcher;
pub mod normalize;
pub mod platform;
pub mod result;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use mediaops_proto::mediaops::common::v1::BannedWordResult;
use mediaops_proto::mediaops::safety::v1::{CustomWord, CustomWordList, CustomWordLists, PutCustomWordsRequest};
use sha2::{Digest, Sha256};

use lexicon::{Entry, Lexicon};
use matcher::{AllowScope, Matcher, scan};
use mediaops_proto::error::ServiceError;
use mediaops_store::word_list::{ALL_PLATFORMS, AccountLists, AddedWord, CustomWordStore, WordList};
use platform::Platform;

/// Longest text a check accepts, in characters (ours; the spec sets none).
pub const MAX_CONTENT_CHARS: usize = 100_000;

/// Compiled account matchers kept at most (then the cache starts over).
const ACCOUNT_CACHE_SIZE: usize = 32;

/// The built-in matcher of a platform (common lists, its extra list and
/// the built-in allow phrases), compiled once per process.
///
/// # Errors
/// The lexicon files are malformed or do not compile (500).
pub fn base_matcher(platform: Platform) -> Result<&'static Matcher, ServiceError> {
    static BASE: [OnceLock<Result<Matcher, String>>; 4] = [const { OnceLock::new() }; 4];
    BASE[platform.index()]
        .get_or_init(|| {
            let lexicon = Lexicon::builtin().map_err(|e| e.to_string())?;
            Matcher::build(lexicon.entries_for(platform).cloned(), builtin_allow(lexicon)).map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| ServiceError::internal(format!("banned-word lexicon: {e}")))
}

fn builtin_allow(lexicon: &Lexicon) -> impl Iterator<Item = (&str, AllowScope)> {
    lexicon.allow.iter().map(|phrase| (phrase.as_str(), AllowScope::Builtin))
}

/// Checks that `content` is something to check.
///
/// # Errors
/// 400 naming `content`: empty (or only white space), or longer than
/// [`MAX_CONTENT_CHARS`] characters.
pub fn check_content(content: &str) -> Result<(), ServiceError> {
    if content.trim().is_empty() {
        return Err(ServiceError::invalid_field("content", "`content` is required"));
    }
    let chars = content.chars().count();
    if chars > MAX_CONTENT_CHARS {
        return Err(ServiceError::invalid_field(
            "content",
            format!("`content` has {chars} characters; at most {MAX_CONTENT_CHARS} are checked per call"),
        ));
    }
    Ok(())
}

/// The banned-word operations over a store of account lists.
pub struct BannedWordChecker {
    lexicon: &'static Lexicon,
    store: Arc<dyn CustomWordStore>,
    /// Matchers of accounts with lists of their own (their words, the
    /// platform's built-in words and both allow lists), by platform and the
    /// hash of the lists they were built from.
    /// Keyed by content, so a list changed through another core is never
    /// served from here: the lists are read from the store on every check.
    account_matchers: std::sync::Mutex<HashMap<(Platform, String), Arc<Matcher>>>,
    /// Stamps a list's `updatedAt` (the service clock, `MEDIAOPS_NOW`).
    clock: mediaops_store::clock::Clock,
}

impl BannedWordChecker {
    /// # Errors
    /// The built-in lexicon is malformed.
    pub fn new(
        store: Arc<dyn CustomWordStore>,
        clock: mediaops_store::clock::Clock,
    ) -> anyhow::Result<BannedWordChecker> {
        Ok(BannedWordChecker { lexicon: Lexicon::builtin()?, store, account_matchers: Default::default(), clock })
    }

    /// Checks `content` for `platform` with the account's lists.
    pub async fn check(
        &self,
        account_id: &str,
        platform: Platform,
        content: &str,
    ) -> Result<BannedWordResult, ServiceError> {
        check_content(content)?;
        let base = base_matcher(platform)?;
        let lists = self.store.get(account_id).await?;
        Ok(match self.account_matcher(&lists, platform)? {
            Some((matcher, hash)) => {
                scan_and_build(content, matcher, platform, format!("{}+account.{hash}", self.lexicon.version)).await
            }
            None => scan_and_build(content, base, platform, self.lexicon.version.clone()).await,
        })
    }

    /// The matcher of the account's lists that apply on `platform` together
    /// with the platform's built-in lexicon (the account's words first, so
    /// they win over a built-in entry of the same form), with a short hash of
    /// the lists; `None` when the account has no lists there.
    fn account_matcher(
        &self,
        lists: &AccountLists,
        platform: Platform,
    ) -> Result<Option<(Arc<Matcher>, String)>, ServiceError> {
        let applying: Vec<&WordList> = lists.for_platform(platform).collect();
        if applying.iter().all(|l| l.is_empty()) {
            return Ok(None);
        }
        let mut hash = Sha256::new();
        for list in &applying {
            for AddedWord { word, category } in &list.add {
                hash.update(format!("+{word}\t{category}\n"));
            }
            for phrase in &list.allow {
                hash.update(format!("-{phrase}\n"));
            }
            hash.update("\0");
        }
        let hash = hex::encode(hash.finalize())[..8].to_owned();
        let key = (platform, hash.clone());
        if let Some(matcher) = self.cached(&key) {
            return Ok(Some((matcher, hash)));
        }
        let account_words = applying.iter().flat_map(|l| &l.add).map(|added| {
            Arc::new(Entry {
                word: added.word.clone(),
                category: added.category.clone(),
                rule: None,
                suggestion: None,
                list: "account",
            })
        });
        let account_allow = applying.iter().flat_map(|l| &l.allow).map(|p| (p.as_str(), AllowScope::Account));
        let matcher = Matcher::build(
            account_words.chain(self.lexicon.entries_for(platform).cloned()),
            account_allow.chain(builtin_allow(self.lexicon)),
        )
        .map_err(|e| ServiceError::internal(format!("account word list does not compile: {e}")))?;
        let matcher = Arc::new(matcher);
        let mut cache = self.account_matchers.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if cache.len() >= ACCOUNT_CACHE_SIZE {
            cache.clear();
        }
        cache.insert(key, matcher.clone());
        Ok(Some((matcher, hash)))
    }

    fn cached(&self, key: &(Platform, String)) -> Option<Arc<Matcher>> {
        self.account_matchers.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get(key).cloned()
    }

    /// The account's lists, all or those applying on one platform.
    pub async fn get_custom(&self, account_id: &str, platform: &str) -> Result<CustomWordLists, ServiceError> {
        let lists = self.store.get(account_id).await?;
        let scopes: Vec<&str> = if platform.trim().is_empty() {
            std::iter::once(ALL_PLATFORMS).chain(Platform::ALL.iter().map(|p| p.name())).collect()
        } else {
            let platform = Platform::parse(platform, "platform")?;
            vec![ALL_PLATFORMS, platform.name()]
        };
        let lists = scopes
            .into_iter()
            .filter_map(|scope| lists.lists.get(scope).map(|list| to_proto(scope, list.clone())))
            .collect();
        Ok(CustomWordLists { lists, categories: self.lexicon.category_names() })
    }

    /// Replaces one scope's list.
    pub async fn put_custom(
        &self,
        account_id: &str,
        request: PutCustomWordsRequest,
    ) -> Result<CustomWordList, ServiceError> {
        let platform = if request.platform.trim().is_empty() {
            None
        } else {
            Some(Platform::parse(&request.platform, "platform")?)
        };
        let add = request.add.into_iter().map(|w| AddedWord { word: w.word, category: w.category }).collect();
        let mut list = custom::validate(self.lexicon, add, request.allow)?;
        // An empty list removes the scope and answers without a stamp.
        list.updated_at = (!list.is_empty()).then(|| self.clock.stamp());
        let scope = custom::scope_name(platform);
        self.store.put(account_id, scope, &list).await?;
        Ok(to_proto(scope, list))
    }
}

/// Scans `content` with `matcher` and builds the spec 2.6 result; a text
/// of more than [`mediaops_store::offload::INLINE_BYTES`] (up to
/// [`MAX_CONTENT_CHARS`] characters) is scanned on the blocking pool.
async fn scan_and_build(
    content: &str,
    matcher: impl std::ops::Deref<Target = Matcher> + Send + 'static,
    platform: Platform,
    version: String,
) -> BannedWordResult {
    let content = content.to_owned();
    mediaops_store::offload::cpu(content.len(), move || {
        let hits = scan(&content, &matcher);
        result::build(&content, &hits, platform, &version)
    })
    .await
}

fn to_proto(scope: &str, list: WordList) -> CustomWordList {
    CustomWordList {
        platform: scope.to_owned(),
        add: list.add.into_iter().map(|w| CustomWord { word: w.word, category: w.category }).collect(),
        allow: list.allow,
        updated_at: list.updated_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_store::sqlite::SqliteStore;
    use prost_types::value::Kind;

    fn hits(result: &BannedWordResult) -> Vec<(String, f64, f64)> {
        let Some(Kind::ListValue(list)) = &result.raw.as_ref().unwrap().fields["hits"].kind else { panic!() };
        list.values
            .iter()
            .map(|v| {
                let Some(Kind::StructValue(hit)) = &v.kind else { panic!() };
                let text = |k: &str| match &hit.fields[k].kind {
                    Some(Kind::StringValue(s)) => s.clone(),
                    _ => panic!(),
                };
                let number = |k: &str| match hit.fields[k].kind {
                    Some(Kind::NumberValue(n)) => n,
                    _ => panic!(),
                };
                (text("word"), number("start"), number("end"))
            })
            .collect()
    }

    async fn service(dir: &std::path::Path) -> BannedWordChecker {
        let store = SqliteStore::open(&dir.join("store.sqlite")).await.unwrap();
        BannedWordChecker::new(Arc::new(store), mediaops_store::clock::Clock::System).unwrap()
    }

    #[tokio::test]
    async fn platform_lists_apply_only_on_their_platform() {
        let dir = tempfile::tempdir().unwrap();
        let service = service(dir.path()).await;
        let text = "加微信领资料，转发到朋友圈，最佳选择";
        let articles = service.check("a", Platform::Articles, text).await.unwrap();
        let words: Vec<String> = hits(&articles).into_iter().map(|h| h.0).collect();
        assert_eq!(words, vec!["转发到朋友圈", "最佳"]);
        assert_eq!(articles.prohibited_words_type, vec!["诱导分享", "极限用语"]);
        let shortvideo = service.check("a", Platform::Shortvideo, text).await.unwrap();
        let words: Vec<String> = hits(&shortvideo).into_iter().map(|h| h.0).collect();
        assert_eq!(words, vec!["加微信", "最佳"]);
        assert_eq!(shortvideo.prohibited_words_type, vec!["站外导流", "极限用语"]);
    }

    #[tokio::test]
    async fn account_additions_and_allows_follow_scope() {
        let dir = tempfile::tempdir().unwrap();
        let service = service(dir.path()).await;
        let put = |platform: &str, add: &[(&str, &str)], allow: &[&str]| PutCustomWordsRequest {
            platform: platform.into(),
            add: add.iter().map(|(w, c)| CustomWord { word: (*w).into(), category: (*c).into() }).collect(),
            allow: allow.iter().map(|s| s.to_string()).collect(),
        };
        service.put_custom("acct", put("", &[("竞品甲", "")], &["最佳"])).await.unwrap();
        service.put_custom("acct", put("抖音", &[("私域", "站外导流")], &[])).await.unwrap();

        let text = "竞品甲的最佳私域玩法";
        let on_articles = service.check("acct", Platform::Articles, text).await.unwrap();
        assert_eq!(hits(&on_articles), vec![("竞品甲".into(), 0.0, 3.0)]);
        assert_eq!(on_articles.prohibited_words_type, vec!["自定义"]);
        let on_shortvideo = service.check("acct", Platform::Shortvideo, text).await.unwrap();
        assert_eq!(hits(&on_shortvideo), vec![("竞品甲".into(), 0.0, 3.0), ("私域".into(), 6.0, 8.0)]);
        let other_account = service.check("other", Platform::Shortvideo, text).await.unwrap();
        assert_eq!(hits(&other_account), vec![("最佳".into(), 4.0, 6.0)]);

        let Some(Kind::StringValue(version)) = &on_articles.raw.as_ref().unwrap().fields["lexiconVersion"].kind else {
            panic!()
        };
        assert!(version.starts_with("builtin.") && version.contains("+account."), "{version}");

        let lists = service.get_custom("acct", "").await.unwrap();
        let scopes: Vec<&str> = lists.lists.iter().map(|l| l.platform.as_str()).collect();
        assert_eq!(scopes, vec!["all", "shortvideo"]);
        assert!(lists.categories.contains(&"极限用语".to_string()));
        assert_eq!(service.get_custom("acct", "0").await.unwrap().lists.len(), 1);
        let error = service.get_custom("acct", "weibo").await.unwrap_err();
        assert_eq!(error.field.as_deref(), Some("platform"));
    }

    #[tokio::test]
    async fn content_limits() {
        let dir = tempfile::tempdir().unwrap();
        let service = service(dir.path()).await;
        for content in ["", "  \n"] {
            let error = service.check("a", Platform::Articles, content).await.unwrap_err();
            assert_eq!(error.field.as_deref(), Some("content"));
        }
        let long = "好".repeat(MAX_CONTENT_CHARS + 1);
        let error = service.check("a", Platform::Articles, &long).await.unwrap_err();
        assert_eq!(error.field.as_deref(), Some("content"));
        let at_limit = "好".repeat(MAX_CONTENT_CHARS);
        assert!(service.check("a", Platform::Articles, &at_limit).await.is_ok());
    }

    /// The example of docs/banned-words.md "The result".
    #[tokio::test]
    async fn the_documented_example_holds() {
        let dir = tempfile::tempdir().unwrap();
        let result = service(dir.path()).await.check("a", Platform::Articles, "本品全网最低价，<限时>").await.unwrap();
        assert_eq!(result.content, "本品<span class=\"banned-word\">全网最低价</span>，&lt;限时&gt;");
        assert_eq!(result.prohibited_words_type, vec!["极限用语"]);
        assert_eq!(hits(&result), vec![("全网最低".into(), 2.0, 6.0), ("最低价".into(), 4.0, 7.0)]);
        let raw = serde_json::to_string(&mediaops_proto::to_dynamic(&result)).unwrap();
        for fragment in [r#""suggestion":"优惠""#, r#""suggestion":"优惠价、实惠""#, r#""rule":"广告法第九条第三项""#]
        {
            assert!(raw.contains(fragment), "{fragment} in {raw}");
        }
    }

    #[test]
    fn every_platform_matcher_compiles() {
        for platform in Platform::ALL {
            assert!(base_matcher(platform).unwrap().len() > 150);
        }
    }
}
