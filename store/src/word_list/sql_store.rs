//! Per-account banned-word lists in the content store's database
//! (migration 0008, table `word_lists`; docs/banned-words.md,
//! docs/state.md): the [`CustomWordStore`]
//! of both backends, one impl generic over them ([`SqlStore`]). A row is one scope's
//! [`WordList`] as JSON
//! (`{add: [{word, category}], allow, updatedAt}`), keyed by (account,
//! scope); an empty list has no row.

use std::sync::Arc;

use async_trait::async_trait;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Type};

use crate::backend::{Backend, SqlStore};
use crate::failure::database_failed;
use crate::word_list::{AccountLists, CustomWordStore, WordList};
use mediaops_proto::error::ServiceError;

const GET_LISTS: &str = "SELECT scope, list FROM word_lists WHERE account_id = $1";

const PUT_LIST: &str = "INSERT INTO word_lists (account_id, scope, list) VALUES ($1, $2, $3) \
     ON CONFLICT (account_id, scope) DO UPDATE SET list = excluded.list";

const DELETE_LIST: &str = "DELETE FROM word_lists WHERE account_id = $1 AND scope = $2";

/// How the word-list store is named in logs.
const WHAT: &str = "word-list store";

/// The rows `(scope, list JSON)` of one account as its lists; a row that
/// does not read is a 500.
fn account_lists(rows: Vec<(String, String)>) -> Result<Arc<AccountLists>, ServiceError> {
    let mut lists = AccountLists::default();
    for (scope, json) in rows {
        let list: WordList = serde_json::from_str(&json)
            .map_err(|e| ServiceError::internal(format!("a stored word list ({scope}) does not read: {e}")))?;
        lists.lists.insert(scope, list);
    }
    Ok(Arc::new(lists))
}

/// A list as stored.
fn list_json(list: &WordList) -> Result<String, ServiceError> {
    serde_json::to_string(list).map_err(|e| ServiceError::internal(e.to_string()))
}

#[async_trait]
impl<DB: Backend> CustomWordStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: Type<DB> + Encode<'a, DB>,
    usize: ColumnIndex<DB::Row>,
    String: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB>,
{
    async fn get(&self, account_id: &str) -> Result<Arc<AccountLists>, ServiceError> {
        let rows: Vec<(String, String)> = sqlx::query_as(&Self::sql(GET_LISTS))
            .bind(account_id)
            .fetch_all(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        account_lists(rows)
    }

    async fn put(&self, account_id: &str, scope: &str, list: &WordList) -> Result<(), ServiceError> {
        let statement = Self::sql(if list.is_empty() { DELETE_LIST } else { PUT_LIST });
        let mut query = sqlx::query(&statement).bind(account_id).bind(scope);
        if !list.is_empty() {
            query = query.bind(list_json(list)?);
        }
        query.execute(&self.pool).await.map_err(database_failed(WHAT))?;
        Ok(())
    }
}
