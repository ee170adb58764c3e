//! WeChat third-party platform state in the content store's database
//! (migration 0008, tables `wechat_verify_ticket`, `wechat_authorizers`,
//! `wechat_pending`; docs/wechat.md "State", docs/state.md): the
//! [`WechatStore`] of both backends, one
//! impl generic over them ([`SqlStore`]). Refresh tokens are kept in the
//! `wechat_authorizers` rows; they are secrets and never logged.

use async_trait::async_trait;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Row, Type};

use crate::backend::{Backend, SqlStore};
use crate::failure::database_failed;
use crate::wechat::{PendingAuthorization, StoredAuthorizer, WechatStore};
use mediaops_proto::error::ServiceError;

const GET_TICKET: &str = "SELECT ticket FROM wechat_verify_ticket WHERE id = 1";

const PUT_TICKET: &str = "INSERT INTO wechat_verify_ticket (id, ticket, received_at) VALUES (1, $1, $2) \
     ON CONFLICT (id) DO UPDATE SET ticket = excluded.ticket, received_at = excluded.received_at";

const AUTHORIZER_COLUMNS: &str = "SELECT authorizer_appid, account_id, nickname, avatar, service_type, \
     verified, authorized_at, refresh_token FROM wechat_authorizers";

const PUT_AUTHORIZER: &str = "INSERT INTO wechat_authorizers (authorizer_appid, account_id, nickname, \
     avatar, service_type, verified, authorized_at, refresh_token) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
     ON CONFLICT (authorizer_appid) DO UPDATE SET account_id = excluded.account_id, nickname = excluded.nickname, \
     avatar = excluded.avatar, service_type = excluded.service_type, verified = excluded.verified, \
     authorized_at = excluded.authorized_at, refresh_token = excluded.refresh_token";

const REMOVE_AUTHORIZER: &str = "DELETE FROM wechat_authorizers WHERE authorizer_appid = $1";

const SET_REFRESH_TOKEN: &str = "UPDATE wechat_authorizers SET refresh_token = $2 WHERE authorizer_appid = $1";

/// Drops expired codes and an earlier entry of the same code.
const DROP_PENDING: &str = "DELETE FROM wechat_pending WHERE expires_at <= $1 OR pre_auth_code = $2";

/// An upsert, so two cores adding the same code at once both succeed.
const ADD_PENDING: &str = "INSERT INTO wechat_pending (pre_auth_code, account_id, expires_at) \
     VALUES ($1, $2, $3) ON CONFLICT (pre_auth_code) DO UPDATE SET account_id = excluded.account_id, \
     expires_at = excluded.expires_at";

/// Consumes a code, expired or not (an expired one is not answered).
const TAKE_PENDING: &str =
    "DELETE FROM wechat_pending WHERE pre_auth_code = $1 RETURNING pre_auth_code, account_id, expires_at";

/// How the WeChat store is named in logs.
const WHAT: &str = "WeChat state store";

/// Reads a `wechat_authorizers` row.
fn authorizer<R: Row>(row: &R) -> Result<StoredAuthorizer, sqlx::Error>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    bool: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    Ok(StoredAuthorizer {
        authorizer_appid: row.try_get("authorizer_appid")?,
        account_id: row.try_get("account_id")?,
        nickname: row.try_get("nickname")?,
        avatar: row.try_get("avatar")?,
        service_type: row.try_get("service_type")?,
        verified: row.try_get("verified")?,
        authorized_at: row.try_get("authorized_at")?,
        refresh_token: row.try_get("refresh_token")?,
    })
}

#[async_trait]
impl<DB: Backend> WechatStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: ColumnIndex<DB::Row> + Type<DB> + Encode<'a, DB>,
    usize: ColumnIndex<DB::Row>,
    String: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB>,
    i64: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<i64>: Type<DB> + for<'q> Encode<'q, DB>,
    bool: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
{
    async fn verify_ticket(&self) -> Result<Option<String>, ServiceError> {
        sqlx::query_scalar(GET_TICKET).fetch_optional(&self.pool).await.map_err(database_failed(WHAT))
    }

    async fn set_verify_ticket(&self, ticket: &str) -> Result<(), ServiceError> {
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        sqlx::query(&Self::sql(PUT_TICKET))
            .bind(ticket)
            .bind(now)
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(())
    }

    async fn authorizers_of(&self, account_id: &str) -> Result<Vec<StoredAuthorizer>, ServiceError> {
        let statement = Self::sql(&format!("{AUTHORIZER_COLUMNS} WHERE account_id = $1"));
        let rows =
            sqlx::query(&statement).bind(account_id).fetch_all(&self.pool).await.map_err(database_failed(WHAT))?;
        let mut authorizers = Vec::with_capacity(rows.len());
        for row in &rows {
            authorizers.push(authorizer(row).map_err(database_failed(WHAT))?);
        }
        // By appid in byte order, whatever the database's collation.
        authorizers.sort_by(|a, b| a.authorizer_appid.cmp(&b.authorizer_appid));
        Ok(authorizers)
    }

    async fn authorizer(&self, appid: &str) -> Result<Option<StoredAuthorizer>, ServiceError> {
        let statement = Self::sql(&format!("{AUTHORIZER_COLUMNS} WHERE authorizer_appid = $1"));
        let row =
            sqlx::query(&statement).bind(appid).fetch_optional(&self.pool).await.map_err(database_failed(WHAT))?;
        row.as_ref().map(authorizer).transpose().map_err(database_failed(WHAT))
    }

    async fn put_authorizer(&self, authorizer: StoredAuthorizer) -> Result<(), ServiceError> {
        sqlx::query(&Self::sql(PUT_AUTHORIZER))
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
            .map_err(database_failed(WHAT))?;
        Ok(())
    }

    async fn remove_authorizer(&self, appid: &str) -> Result<bool, ServiceError> {
        let done = sqlx::query(&Self::sql(REMOVE_AUTHORIZER))
            .bind(appid)
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(DB::rows_affected(&done) > 0)
    }

    async fn set_refresh_token(&self, appid: &str, refresh_token: &str) -> Result<(), ServiceError> {
        sqlx::query(&Self::sql(SET_REFRESH_TOKEN))
            .bind(appid)
            .bind(refresh_token)
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(())
    }

    async fn add_pending(&self, pending: PendingAuthorization, now: i64) -> Result<(), ServiceError> {
        let failed = database_failed(WHAT);
        let mut tx = self.pool.begin().await.map_err(&failed)?;
        sqlx::query(&Self::sql(DROP_PENDING))
            .bind(now)
            .bind(&pending.pre_auth_code)
            .execute(&mut *tx)
            .await
            .map_err(&failed)?;
        sqlx::query(&Self::sql(ADD_PENDING))
            .bind(&pending.pre_auth_code)
            .bind(&pending.account_id)
            .bind(pending.expires_at)
            .execute(&mut *tx)
            .await
            .map_err(&failed)?;
        tx.commit().await.map_err(&failed)
    }

    async fn take_pending(&self, pre_auth_code: &str, now: i64) -> Result<Option<PendingAuthorization>, ServiceError> {
        let taken: Option<(String, String, i64)> = sqlx::query_as(&Self::sql(TAKE_PENDING))
            .bind(pre_auth_code)
            .fetch_optional(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(taken
            .map(|(pre_auth_code, account_id, expires_at)| PendingAuthorization {
                pre_auth_code,
                account_id,
                expires_at,
            })
            .filter(|p| p.expires_at > now))
    }
}
