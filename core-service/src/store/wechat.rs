//! WeChat third-party platform state in the content store's database
//! (migration 0008, tables `wechat_verify_ticket`, `wechat_authorizers`,
//! `wechat_pending`; docs/wechat.md "State", docs/state.md): the
//! [`WechatStore`](crate::store::state::wechat::WechatStore) of both backends
//! ([`wechat_store_impl!`]). Refresh tokens are kept in the
//! `wechat_authorizers` rows; they are secrets and never logged.

pub(crate) const GET_TICKET: &str = "SELECT ticket FROM wechat_verify_ticket WHERE id = 1";

pub(crate) const PUT_TICKET: &str = "INSERT INTO wechat_verify_ticket (id, ticket, received_at) VALUES (1, $1, $2) \
     ON CONFLICT (id) DO UPDATE SET ticket = excluded.ticket, received_at = excluded.received_at";

pub(crate) const AUTHORIZER_COLUMNS: &str = "SELECT authorizer_appid, account_id, nickname, avatar, service_type, \
     verified, authorized_at, refresh_token FROM wechat_authorizers";

pub(crate) const PUT_AUTHORIZER: &str = "INSERT INTO wechat_authorizers (authorizer_appid, account_id, nickname, \
     avatar, service_type, verified, authorized_at, refresh_token) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
     ON CONFLICT (authorizer_appid) DO UPDATE SET account_id = excluded.account_id, nickname = excluded.nickname, \
     avatar = excluded.avatar, service_type = excluded.service_type, verified = excluded.verified, \
     authorized_at = excluded.authorized_at, refresh_token = excluded.refresh_token";

pub(crate) const REMOVE_AUTHORIZER: &str = "DELETE FROM wechat_authorizers WHERE authorizer_appid = $1";

pub(crate) const SET_REFRESH_TOKEN: &str =
    "UPDATE wechat_authorizers SET refresh_token = $2 WHERE authorizer_appid = $1";

/// Drops expired codes and an earlier entry of the same code.
pub(crate) const DROP_PENDING: &str = "DELETE FROM wechat_pending WHERE expires_at <= $1 OR pre_auth_code = $2";

/// An upsert, so two cores adding the same code at once both succeed.
pub(crate) const ADD_PENDING: &str = "INSERT INTO wechat_pending (pre_auth_code, account_id, expires_at) \
     VALUES ($1, $2, $3) ON CONFLICT (pre_auth_code) DO UPDATE SET account_id = excluded.account_id, \
     expires_at = excluded.expires_at";

/// Consumes a code, expired or not (an expired one is not answered).
pub(crate) const TAKE_PENDING: &str =
    "DELETE FROM wechat_pending WHERE pre_auth_code = $1 RETURNING pre_auth_code, account_id, expires_at";

/// How the WeChat store is named in logs.
pub(crate) const WHAT: &str = "WeChat state store";

/// Reads a `wechat_authorizers` row (a macro because the backends' rows differ).
macro_rules! authorizer {
    ($row:expr) => {{
        use sqlx::Row;
        let row = $row;
        let failed = $crate::store::failure::database_failed($crate::store::wechat::WHAT);
        let column = |name: &str| row.try_get::<String, _>(name).map_err(&failed);
        $crate::store::state::wechat::StoredAuthorizer {
            authorizer_appid: column("authorizer_appid")?,
            account_id: column("account_id")?,
            nickname: column("nickname")?,
            avatar: column("avatar")?,
            service_type: column("service_type")?,
            verified: row.try_get::<bool, _>("verified").map_err(&failed)?,
            authorized_at: column("authorized_at")?,
            refresh_token: column("refresh_token")?,
        }
    }};
}
pub(crate) use authorizer;

/// The [`WechatStore`](crate::store::state::wechat::WechatStore) of a backend
/// whose type has a `pool` field, with statements in `$n` form rewritten by
/// `$dialect`.
macro_rules! wechat_store_impl {
    ($store:ty, $dialect:expr) => {
        #[async_trait::async_trait]
        impl $crate::store::state::wechat::WechatStore for $store {
            async fn verify_ticket(&self) -> Result<Option<String>, $crate::error::ServiceError> {
                use $crate::store::wechat::{GET_TICKET, WHAT};
                sqlx::query_scalar(GET_TICKET)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))
            }

            async fn set_verify_ticket(&self, ticket: &str) -> Result<(), $crate::error::ServiceError> {
                use $crate::store::wechat::{PUT_TICKET, WHAT};
                let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                sqlx::query(&$dialect.placeholders(PUT_TICKET.to_owned()))
                    .bind(ticket)
                    .bind(now)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(())
            }

            async fn authorizers_of(
                &self,
                account_id: &str,
            ) -> Result<Vec<$crate::store::state::wechat::StoredAuthorizer>, $crate::error::ServiceError> {
                use $crate::store::wechat::{AUTHORIZER_COLUMNS, WHAT};
                let statement = $dialect.placeholders(format!("{AUTHORIZER_COLUMNS} WHERE account_id = $1"));
                let rows = sqlx::query(&statement)
                    .bind(account_id)
                    .fetch_all(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                let mut authorizers = Vec::with_capacity(rows.len());
                for row in &rows {
                    authorizers.push($crate::store::wechat::authorizer!(row));
                }
                // By appid in byte order, whatever the database's collation.
                authorizers.sort_by(|a, b| a.authorizer_appid.cmp(&b.authorizer_appid));
                Ok(authorizers)
            }

            async fn authorizer(
                &self,
                appid: &str,
            ) -> Result<Option<$crate::store::state::wechat::StoredAuthorizer>, $crate::error::ServiceError> {
                use $crate::store::wechat::{AUTHORIZER_COLUMNS, WHAT};
                let statement = $dialect.placeholders(format!("{AUTHORIZER_COLUMNS} WHERE authorizer_appid = $1"));
                let row = sqlx::query(&statement)
                    .bind(appid)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(match row {
                    Some(row) => Some($crate::store::wechat::authorizer!(&row)),
                    None => None,
                })
            }

            async fn put_authorizer(
                &self,
                authorizer: $crate::store::state::wechat::StoredAuthorizer,
            ) -> Result<(), $crate::error::ServiceError> {
                use $crate::store::wechat::{PUT_AUTHORIZER, WHAT};
                sqlx::query(&$dialect.placeholders(PUT_AUTHORIZER.to_owned()))
                    .bind(&authorizer.authorizer_appid)
                    .bind(&authorizer.account_id)
                    .bind(&authorizer.nickname)
                    .bind(&authorizer.avatar)
                    .bind(&authorizer.service_type)
                    .bind(authorizer.verified)
                    .bind(&authorizer.authorized_at)
                    .bind(&authorizer.refresh_token)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(())
            }

            async fn remove_authorizer(&self, appid: &str) -> Result<bool, $crate::error::ServiceError> {
                use $crate::store::wechat::{REMOVE_AUTHORIZER, WHAT};
                let done = sqlx::query(&$dialect.placeholders(REMOVE_AUTHORIZER.to_owned()))
                    .bind(appid)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(done.rows_affected() > 0)
            }

            async fn set_refresh_token(
                &self,
                appid: &str,
                refresh_token: &str,
            ) -> Result<(), $crate::error::ServiceError> {
                use $crate::store::wechat::{SET_REFRESH_TOKEN, WHAT};
                sqlx::query(&$dialect.placeholders(SET_REFRESH_TOKEN.to_owned()))
                    .bind(appid)
                    .bind(refresh_token)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(())
            }

            async fn add_pending(
                &self,
                pending: $crate::store::state::wechat::PendingAuthorization,
                now: i64,
            ) -> Result<(), $crate::error::ServiceError> {
                use $crate::store::wechat::{ADD_PENDING, DROP_PENDING, WHAT};
                let failed = $crate::store::failure::database_failed(WHAT);
                let mut tx = self.pool.begin().await.map_err(&failed)?;
                sqlx::query(&$dialect.placeholders(DROP_PENDING.to_owned()))
                    .bind(now)
                    .bind(&pending.pre_auth_code)
                    .execute(&mut *tx)
                    .await
                    .map_err(&failed)?;
                sqlx::query(&$dialect.placeholders(ADD_PENDING.to_owned()))
                    .bind(&pending.pre_auth_code)
                    .bind(&pending.account_id)
                    .bind(pending.expires_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(&failed)?;
                tx.commit().await.map_err(&failed)
            }

            async fn take_pending(
                &self,
                pre_auth_code: &str,
                now: i64,
            ) -> Result<Option<$crate::store::state::wechat::PendingAuthorization>, $crate::error::ServiceError> {
                use $crate::store::wechat::{TAKE_PENDING, WHAT};
                let taken: Option<(String, String, i64)> =
                    sqlx::query_as(&$dialect.placeholders(TAKE_PENDING.to_owned()))
                        .bind(pre_auth_code)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err($crate::store::failure::database_failed(WHAT))?;
                Ok(taken
                    .map(|(pre_auth_code, account_id, expires_at)| $crate::store::state::wechat::PendingAuthorization {
                        pre_auth_code,
                        account_id,
                        expires_at,
                    })
                    .filter(|p| p.expires_at > now))
            }
        }
    };
}
pub(crate) use wechat_store_impl;
