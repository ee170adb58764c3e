//! The per-account banned-word lists as stored: their shapes and the
//! [`CustomWordStore`] trait (the rules they follow are
//! `mediaops_ops::banned_words::custom`, which re-exports these).

mod sql_store;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use mediaops_proto::error::ServiceError;

/// An added word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedWord {
    /// The word as the operator wrote it.
    pub word: String,
    /// Its category (`自定义` when none was named).
    pub category: String,
}

/// One scope's list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WordList {
    /// Words added to the built-in lexicon.
    pub add: Vec<AddedWord>,
    /// Built-in words no longer reported.
    pub allow: Vec<String>,
    /// RFC 3339 UTC of the last store.
    pub updated_at: Option<String>,
}

impl WordList {
    /// Whether the list adds and allows nothing.
    pub fn is_empty(&self) -> bool {
        self.add.is_empty() && self.allow.is_empty()
    }
}

/// Every list of one account, by scope (`all` or a platform name).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountLists {
    /// Each scope's list, by scope.
    pub lists: BTreeMap<String, WordList>,
}

/// Scope name of the account-wide list.
pub const ALL_PLATFORMS: &str = "all";

/// A platform's scope name (`mediaops_ops::banned_words::platform::Platform`
/// implements it with its spec 1 token, e.g. `articles`).
pub trait PlatformScope {
    /// The scope of the platform's own list.
    fn scope(&self) -> &'static str;
}

impl AccountLists {
    /// The lists that apply on `platform`: the account-wide one, then the
    /// platform's (either may be absent).
    pub fn for_platform(&self, platform: impl PlatformScope) -> impl Iterator<Item = &WordList> {
        [ALL_PLATFORMS, platform.scope()].into_iter().filter_map(|scope| self.lists.get(scope))
    }
}

/// Word lists by account. An account only ever reaches its own.
/// Implemented for both databases of the content store
/// (`crate::word_list`: SQLite in the data dir, or PostgreSQL shared
/// by every core; docs/state.md). Nothing is cached in process: every call
/// reads the database, so a change through another core is in force at
/// once (docs/store.md).
#[async_trait::async_trait]
pub trait CustomWordStore: Send + Sync + 'static {
    /// Every list of the account (empty when none was stored).
    async fn get(&self, account_id: &str) -> Result<Arc<AccountLists>, ServiceError>;

    /// Replaces the list of `scope` as given (the caller stamps
    /// `updated_at`); an empty list removes the scope.
    async fn put(&self, account_id: &str, scope: &str, list: &WordList) -> Result<(), ServiceError>;
}
