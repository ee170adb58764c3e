//! Charters in the content store's database (migration 0008, table
//! `charters`; docs/charter.md, docs/state.md): the
//! [`CharterStore`](crate::store::state::charter::CharterStore) of both backends
//! ([`charter_store_impl!`]). A row is one profile's `StoredCharter` in
//! proto JSON, keyed by (account, profile).

pub(crate) const GET_CHARTER: &str = "SELECT document FROM charters WHERE account_id = $1 AND profile_id = $2";

pub(crate) const PUT_CHARTER: &str = "INSERT INTO charters (account_id, profile_id, document) VALUES ($1, $2, $3) \
     ON CONFLICT (account_id, profile_id) DO UPDATE SET document = excluded.document";

/// How the charter store is named in logs.
pub(crate) const WHAT: &str = "charter store";

/// A stored document back as a charter; a row that does not read is a 500.
pub(crate) fn document(
    json: &str,
) -> Result<mediaops_proto::mediaops::charter::v1::StoredCharter, crate::error::ServiceError> {
    crate::store::state::charter::from_json(json.as_bytes())
        .map_err(|e| crate::error::ServiceError::internal(format!("a stored charter does not read: {e}")))
}

/// The [`CharterStore`](crate::store::state::charter::CharterStore) of a backend
/// whose type has a `pool` field, with statements in `$n` form rewritten by
/// `$dialect`.
macro_rules! charter_store_impl {
    ($store:ty, $dialect:expr) => {
        #[async_trait::async_trait]
        impl $crate::store::state::charter::CharterStore for $store {
            async fn get(
                &self,
                account_id: &str,
                profile_id: &str,
            ) -> Result<Option<mediaops_proto::mediaops::charter::v1::StoredCharter>, $crate::error::ServiceError> {
                use $crate::store::charter::{GET_CHARTER, WHAT, document};
                let json: Option<String> = sqlx::query_scalar(&$dialect.placeholders(GET_CHARTER.to_owned()))
                    .bind(account_id)
                    .bind(profile_id)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                json.as_deref().map(document).transpose()
            }

            async fn put(
                &self,
                account_id: &str,
                stored: &mediaops_proto::mediaops::charter::v1::StoredCharter,
            ) -> Result<(), $crate::error::ServiceError> {
                use $crate::store::charter::{PUT_CHARTER, WHAT};
                sqlx::query(&$dialect.placeholders(PUT_CHARTER.to_owned()))
                    .bind(account_id)
                    .bind(&stored.profile_id)
                    .bind($crate::store::state::charter::to_json(stored)?)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(())
            }
        }
    };
}
pub(crate) use charter_store_impl;
