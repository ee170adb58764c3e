//! Per-account banned-word lists in the content store's database
//! (migration 0008, table `word_lists`; docs/banned-words.md,
//! docs/state.md): the [`CustomWordStore`](crate::store::state::word_list::CustomWordStore)
//! of both backends ([`word_list_store_impl!`]). A row is one scope's
//! [`WordList`](crate::store::state::word_list::WordList) as JSON
//! (`{add: [{word, category}], allow, updatedAt}`), keyed by (account,
//! scope); an empty list has no row.

use std::sync::Arc;

use crate::error::ServiceError;
use crate::store::state::word_list::{AccountLists, WordList};

pub(crate) const GET_LISTS: &str = "SELECT scope, list FROM word_lists WHERE account_id = $1";

pub(crate) const PUT_LIST: &str = "INSERT INTO word_lists (account_id, scope, list) VALUES ($1, $2, $3) \
     ON CONFLICT (account_id, scope) DO UPDATE SET list = excluded.list";

pub(crate) const DELETE_LIST: &str = "DELETE FROM word_lists WHERE account_id = $1 AND scope = $2";

/// How the word-list store is named in logs.
pub(crate) const WHAT: &str = "word-list store";

/// The rows `(scope, list JSON)` of one account as its lists; a row that
/// does not read is a 500.
pub(crate) fn account_lists(rows: Vec<(String, String)>) -> Result<Arc<AccountLists>, ServiceError> {
    let mut lists = AccountLists::default();
    for (scope, json) in rows {
        let list: WordList = serde_json::from_str(&json)
            .map_err(|e| ServiceError::internal(format!("a stored word list ({scope}) does not read: {e}")))?;
        lists.lists.insert(scope, list);
    }
    Ok(Arc::new(lists))
}

/// A list as stored.
pub(crate) fn list_json(list: &WordList) -> Result<String, ServiceError> {
    serde_json::to_string(list).map_err(|e| ServiceError::internal(e.to_string()))
}

/// The [`CustomWordStore`](crate::store::state::word_list::CustomWordStore) of a
/// backend whose type has a `pool` field, with statements in `$n` form
/// rewritten by `$dialect`.
macro_rules! word_list_store_impl {
    ($store:ty, $dialect:expr) => {
        #[async_trait::async_trait]
        impl $crate::store::state::word_list::CustomWordStore for $store {
            async fn get(
                &self,
                account_id: &str,
            ) -> Result<std::sync::Arc<$crate::store::state::word_list::AccountLists>, $crate::error::ServiceError>
            {
                use $crate::store::word_list::{GET_LISTS, WHAT, account_lists};
                let rows: Vec<(String, String)> = sqlx::query_as(&$dialect.placeholders(GET_LISTS.to_owned()))
                    .bind(account_id)
                    .fetch_all(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                account_lists(rows)
            }

            async fn put(
                &self,
                account_id: &str,
                scope: &str,
                list: &$crate::store::state::word_list::WordList,
            ) -> Result<(), $crate::error::ServiceError> {
                use $crate::store::word_list::{DELETE_LIST, PUT_LIST, WHAT, list_json};
                let statement = if list.is_empty() { DELETE_LIST } else { PUT_LIST };
                let statement = $dialect.placeholders(statement.to_owned());
                let mut query = sqlx::query(&statement).bind(account_id).bind(scope);
                if !list.is_empty() {
                    query = query.bind(list_json(list)?);
                }
                query.execute(&self.pool).await.map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(())
            }
        }
    };
}
pub(crate) use word_list_store_impl;
