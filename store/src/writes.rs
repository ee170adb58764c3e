//! Writes of the content store, generic over the backend: one
//! [`Record`] per savepoint inside one transaction per batch
//! ([`write_batch`]), each an idempotent upsert on its natural key
//! ([`apply`]) with the statements of [`super::sql`]. Full-text indexing
//! is the backend's ([`Backend::index_account`], [`Backend::index_work`]).

use chrono::{DateTime, Utc};
use sqlx::{ColumnIndex, Connection, Database, Decode, Encode, Executor, IntoArguments, Pool, Row, Type};

use super::backend::Backend;
use super::listing::DbQuery;
use super::model::{Account, Record, Work};
use super::sql::{self, check_key, tags_json};
use super::{StoreError, StoreResult};

/// Binds an account in [`UPSERT_ACCOUNT`](sql::UPSERT_ACCOUNT) order.
fn bind_account<'q, DB: Database>(query: DbQuery<'q, DB>, a: &'q Account, now: DateTime<Utc>) -> DbQuery<'q, DB>
where
    String: Type<DB> + Encode<'q, DB>,
    Option<String>: Type<DB> + Encode<'q, DB>,
    i64: Type<DB> + Encode<'q, DB>,
    Option<i64>: Type<DB> + Encode<'q, DB>,
    DateTime<Utc>: Type<DB> + Encode<'q, DB>,
    Option<DateTime<Utc>>: Type<DB> + Encode<'q, DB>,
{
    query
        .bind(&a.platform)
        .bind(&a.platform_id)
        .bind(&a.ids.account_id)
        .bind(&a.ids.sec_uid)
        .bind(&a.ids.uid)
        .bind(&a.ids.mid)
        .bind(&a.ids.red_id)
        .bind(&a.ids.kwai_id)
        .bind(&a.ids.unique_id)
        .bind(&a.ids.wechat_id)
        .bind(&a.signature)
        .bind(a.fans)
        .bind(a.following)
        .bind(a.works)
        .bind(a.likes)
        .bind(a.collects)
        .bind(&a.region)
        .bind(&a.category)
        .bind(&a.avatar)
        .bind(&a.nickname)
        .bind(now)
}

/// Binds a work in [`UPSERT_WORK`](sql::UPSERT_WORK) order.
fn bind_work<'q, DB: Database>(query: DbQuery<'q, DB>, w: &'q Work, now: DateTime<Utc>) -> DbQuery<'q, DB>
where
    String: Type<DB> + Encode<'q, DB>,
    Option<String>: Type<DB> + Encode<'q, DB>,
    i64: Type<DB> + Encode<'q, DB>,
    Option<i64>: Type<DB> + Encode<'q, DB>,
    DateTime<Utc>: Type<DB> + Encode<'q, DB>,
    Option<DateTime<Utc>>: Type<DB> + Encode<'q, DB>,
{
    query
        .bind(&w.platform)
        .bind(&w.platform_id)
        .bind(&w.ids.work_id)
        .bind(&w.ids.note_id)
        .bind(&w.ids.video_id)
        .bind(&w.ids.bv_id)
        .bind(&w.ids.photo_id)
        .bind(&w.ids.work_uuid)
        .bind(&w.description)
        .bind(&w.author_id)
        .bind(w.published_at)
        .bind(&w.url)
        .bind(&w.cover)
        .bind(&w.video_url)
        .bind(&w.work_type)
        .bind(&w.category)
        .bind(w.duration_secs)
        .bind(&w.title)
        .bind(tags_json(&w.tags))
        .bind(now)
}

/// Applies one [`Record`] on `conn`: statements in the backend's
/// placeholders, JSON parameters cast with [`Backend::JSON_CAST`], the
/// text of the row just written re-indexed by the backend.
pub(crate) async fn apply<DB: Backend>(conn: &mut DB::Connection, record: &Record) -> StoreResult<()>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: ColumnIndex<DB::Row> + Type<DB> + Encode<'a, DB>,
    String: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB>,
    i64: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<i64>: Type<DB> + for<'q> Encode<'q, DB>,
    DateTime<Utc>: Type<DB> + for<'q> Encode<'q, DB>,
    Option<DateTime<Utc>>: Type<DB> + for<'q> Encode<'q, DB>,
{
    let placeholders = |statement: &str| DB::DIALECT.placeholders(statement.to_owned());
    let now = Utc::now();
    match record {
        Record::Account(a) => {
            check_key(&a.platform, &a.platform_id)?;
            let statement = placeholders(&sql::UPSERT_ACCOUNT);
            let row = bind_account(sqlx::query(&statement), a, now).fetch_one(&mut *conn).await?;
            let stored = Account {
                platform: a.platform.clone(),
                nickname: row.try_get("nickname")?,
                signature: row.try_get("signature")?,
                category: row.try_get("category")?,
                ..Account::default()
            };
            DB::index_account(&mut *conn, row.try_get("id")?, &stored).await
        }
        Record::Work(w) => {
            check_key(&w.platform, &w.platform_id)?;
            let statement = placeholders(&sql::UPSERT_WORK);
            let row = bind_work(sqlx::query(&statement), w, now).fetch_one(&mut *conn).await?;
            let stored = Work {
                platform: w.platform.clone(),
                title: row.try_get("title")?,
                description: row.try_get("description")?,
                tags: serde_json::from_str(&row.try_get::<String, _>("tags")?).unwrap_or_default(),
                ..Work::default()
            };
            DB::index_work(&mut *conn, row.try_get("id")?, &stored).await
        }
        Record::AccountSnapshot { platform, platform_id, snapshot: s } => {
            let done = sqlx::query(&placeholders(sql::INSERT_ACCOUNT_SNAPSHOT))
                .bind(platform)
                .bind(platform_id)
                .bind(s.captured_at)
                .bind(s.fans)
                .bind(s.likes)
                .bind(s.works)
                .bind(s.reads)
                .execute(&mut *conn)
                .await?;
            if DB::rows_affected(&done) == 0 {
                return Err(StoreError::NotFound(format!("account {platform}/{platform_id}")));
            }
            Ok(())
        }
        Record::WorkSnapshot { platform, platform_id, snapshot: s } => {
            let done = sqlx::query(&placeholders(&sql::insert_work_snapshot(DB::JSON_CAST)))
                .bind(platform)
                .bind(platform_id)
                .bind(s.captured_at)
                .bind(s.likes)
                .bind(s.collects)
                .bind(s.comments)
                .bind(s.shares)
                .bind(s.views)
                .bind(s.watch)
                .bind(s.extra.as_ref().map(|e| e.to_string()))
                .execute(&mut *conn)
                .await?;
            if DB::rows_affected(&done) == 0 {
                return Err(StoreError::NotFound(format!("work {platform}/{platform_id}")));
            }
            sqlx::query(&placeholders(sql::UPDATE_WORK_LATEST))
                .bind(platform)
                .bind(platform_id)
                .bind(s.likes)
                .bind(s.captured_at)
                .execute(&mut *conn)
                .await?;
            Ok(())
        }
        Record::Comment(c) => {
            check_key(&c.platform, &c.platform_id)?;
            if c.work_id.trim().is_empty() {
                return Err(StoreError::invalid("workId", "must not be empty"));
            }
            sqlx::query(&placeholders(sql::UPSERT_COMMENT))
                .bind(&c.platform)
                .bind(&c.platform_id)
                .bind(&c.work_id)
                .bind(&c.text)
                .bind(c.likes)
                .bind(&c.author_id)
                .bind(&c.author_name)
                .bind(c.published_at)
                .bind(&c.parent_id)
                .execute(&mut *conn)
                .await?;
            Ok(())
        }
        Record::HotListEntry(h) => {
            if h.source.trim().is_empty() {
                return Err(StoreError::invalid("source", "must not be empty"));
            }
            sqlx::query(&placeholders(&sql::upsert_hot_list_entry(DB::JSON_CAST)))
                .bind(&h.source)
                .bind(h.captured_at)
                .bind(h.rank)
                .bind(&h.title)
                .bind(h.hot_value)
                .bind(&h.url)
                .bind(h.extra.as_ref().map(|e| e.to_string()))
                .execute(&mut *conn)
                .await?;
            Ok(())
        }
    }
}

/// Writes a batch on `pool`: one transaction, one savepoint per record
/// ([`apply`]); a record that fails is rolled back to its savepoint and
/// reported in its slot, the others are kept.
pub(crate) async fn write_batch<DB: Backend>(pool: &Pool<DB>, records: &[Record]) -> StoreResult<Vec<StoreResult<()>>>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: ColumnIndex<DB::Row> + Type<DB> + Encode<'a, DB>,
    String: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB>,
    i64: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<i64>: Type<DB> + for<'q> Encode<'q, DB>,
    DateTime<Utc>: Type<DB> + for<'q> Encode<'q, DB>,
    Option<DateTime<Utc>>: Type<DB> + for<'q> Encode<'q, DB>,
{
    let mut tx = pool.begin().await?;
    let mut outcomes = Vec::with_capacity(records.len());
    for record in records {
        let mut savepoint = Connection::begin(&mut *tx).await?;
        match apply::<DB>(&mut *savepoint, record).await {
            Ok(()) => {
                savepoint.commit().await?;
                outcomes.push(Ok(()));
            }
            Err(e) => {
                savepoint.rollback().await?;
                outcomes.push(Err(e));
            }
        }
    }
    tx.commit().await?;
    Ok(outcomes)
}
