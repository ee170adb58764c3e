//! Charters in the content store's database (migration 0008, table
//! `charters`; docs/charter.md, docs/state.md): the
//! [`CharterStore`] of both backends, one impl generic over them
//! ([`SqlStore`]). A row is one profile's `StoredCharter` in
//! proto JSON, keyed by (account, profile).

use async_trait::async_trait;
use mediaops_proto::mediaops::charter::v1::StoredCharter;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Type};

use crate::backend::{Backend, SqlStore};
use crate::charter::CharterStore;
use crate::failure::database_failed;
use mediaops_proto::error::ServiceError;

const GET_CHARTER: &str = "SELECT document FROM charters WHERE account_id = $1 AND profile_id = $2";

const PUT_CHARTER: &str = "INSERT INTO charters (account_id, profile_id, document) VALUES ($1, $2, $3) \
     ON CONFLICT (account_id, profile_id) DO UPDATE SET document = excluded.document";

/// How the charter store is named in logs.
const WHAT: &str = "charter store";

/// A stored document back as a charter; a row that does not read is a 500.
fn document(json: &str) -> Result<StoredCharter, ServiceError> {
    crate::charter::from_json(json.as_bytes())
        .map_err(|e| ServiceError::internal(format!("a stored charter does not read: {e}")))
}

#[async_trait]
impl<DB: Backend> CharterStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: Type<DB> + Encode<'a, DB>,
    usize: ColumnIndex<DB::Row>,
    String: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB>,
{
    async fn get(&self, account_id: &str, profile_id: &str) -> Result<Option<StoredCharter>, ServiceError> {
        let json: Option<String> = sqlx::query_scalar(&Self::sql(GET_CHARTER))
            .bind(account_id)
            .bind(profile_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        json.as_deref().map(document).transpose()
    }

    async fn put(&self, account_id: &str, stored: &StoredCharter) -> Result<(), ServiceError> {
        sqlx::query(&Self::sql(PUT_CHARTER))
            .bind(account_id)
            .bind(&stored.profile_id)
            .bind(crate::charter::to_json(stored)?)
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(())
    }
}
