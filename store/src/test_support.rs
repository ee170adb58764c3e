//! What the store tests share (of this crate and of the crates above it):
//! the test PostgreSQL and a fresh schema per test, dropped afterwards.
//! Test code only, behind the `test-support` feature (dev-dependencies).

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap fails the test that called it

use std::str::FromStr;

use crate::ContentStore;
use crate::change_notices::Notices;
use crate::postgres::PostgresStore;
use futures::FutureExt;
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

/// Writes `records` to `store`; each must be written.
pub async fn write_all(store: &dyn ContentStore, records: &[crate::model::Record]) {
    for outcome in store.write(records).await.unwrap() {
        outcome.unwrap();
    }
}

/// A plain connection to the SQLite store at `path` (none of the store's
/// own settings or functions), to read or change its tables directly.
pub async fn sqlite_connection(path: &std::path::Path) -> sqlx::SqliteConnection {
    sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display())).await.unwrap()
}

/// SQLite's plan of `statement` with `params` on `store`: the detail of
/// each step of `EXPLAIN QUERY PLAN`.
pub async fn sqlite_plan(
    store: &crate::sqlite::SqliteStore,
    statement: &str,
    params: &[crate::listing::Param],
) -> Vec<String> {
    use sqlx::Row;
    let explain = format!("EXPLAIN QUERY PLAN {statement}");
    let rows = crate::listing::bind_params(sqlx::query(&explain), params).fetch_all(&store.pool).await.unwrap();
    rows.iter().map(|row| row.get::<String, _>("detail")).collect()
}

/// Puts the SQLite store at `path` back as it was before migration
/// `version`: runs `undo` (statements that remove what the migration
/// added) and forgets the migration, so that the next open runs it again
/// (the tests of a migration's backfill).
pub async fn sqlite_before_migration(path: &std::path::Path, undo: &[&str], version: i64) {
    let mut conn = sqlite_connection(path).await;
    for statement in undo {
        sqlx::query(statement).execute(&mut conn).await.unwrap();
    }
    sqlx::query("DELETE FROM _sqlx_migrations WHERE version = ?1").bind(version).execute(&mut conn).await.unwrap();
    conn.close().await.unwrap();
}

/// `MEDIAOPS_TEST_DATABASE_URL`, else the machine's PostgreSQL.
pub fn database_url() -> String {
    std::env::var("MEDIAOPS_TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into())
}

/// Runs `run` on a PostgreSQL store in a new schema `<prefix>_<uuid>`; the
/// schema is dropped afterwards, even when `run` panics.
pub async fn with_postgres(prefix: &str, run: impl AsyncFnOnce(&dyn ContentStore)) {
    with_postgres_store(prefix, async move |store: &PostgresStore| run(store).await).await
}

/// [`with_postgres`] giving the store itself (for its other traits, e.g.
/// the task store).
pub async fn with_postgres_store(prefix: &str, run: impl AsyncFnOnce(&PostgresStore)) {
    with_postgres_schema(prefix, async move |options: PgConnectOptions| {
        let store = PostgresStore::open_with(options).await.unwrap();
        run(&store).await
    })
    .await
}

/// Runs `run` with connect options whose `search_path` is a new schema
/// `<prefix>_<uuid>`, dropped afterwards even when `run` panics.
pub async fn with_postgres_schema(prefix: &str, run: impl AsyncFnOnce(PgConnectOptions)) {
    let schema = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
    let options = PgConnectOptions::from_str(&database_url()).unwrap().options([("search_path", &schema)]);
    let [create, drop] = [format!("CREATE SCHEMA {schema}"), format!("DROP SCHEMA {schema} CASCADE")];
    with_created(&create, &drop, options, run).await;
}

/// Runs `create` on the test database, then `run` with `options`, then
/// `drop`, even when `run` panics (the panic goes on afterwards).
async fn with_created(create: &str, drop: &str, options: PgConnectOptions, run: impl AsyncFnOnce(PgConnectOptions)) {
    let mut conn = PgConnection::connect(&database_url()).await.expect("PostgreSQL at 127.0.0.1:5432");
    sqlx::query(create).execute(&mut conn).await.unwrap();
    let outcome = std::panic::AssertUnwindSafe(run(options)).catch_unwind().await;
    sqlx::query(drop).execute(&mut conn).await.unwrap();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// Runs `run` with connect options of a new database `<prefix>_<uuid>`,
/// dropped afterwards even when `run` panics: for tests of the change
/// notices, which reach every listener of a database whatever its schema
/// (the other tests' writes would drop what the test expects kept).
pub async fn with_postgres_database(prefix: &str, run: impl AsyncFnOnce(PgConnectOptions)) {
    let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
    let options = PgConnectOptions::from_str(&database_url()).unwrap().database(&name);
    let [create, drop] = [format!("CREATE DATABASE {name}"), format!("DROP DATABASE {name} WITH (FORCE)")];
    with_created(&create, &drop, options, run).await;
}

/// Waits (10 s at most) until `notices` has heard every notice committed
/// before this call: sends one on `channel` from `conn` and waits for that
/// channel's count to move (the server delivers notices in commit order).
/// Nothing else in the test's database may notify `channel` meanwhile.
pub async fn hear_all_notices(conn: &mut PgConnection, notices: &Notices, channel: &str) {
    let count = || notices.count(channel);
    let before = count();
    sqlx::query("SELECT pg_notify($1, '')").bind(channel).execute(&mut *conn).await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while count() == before {
        assert!(std::time::Instant::now() < deadline, "the notice on {channel} not heard within 10 s");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// Copies of about `share` of `snapshots` (one `random_bool` drawn per
/// snapshot, in order) at the same moment with other counters: a work's
/// likes + `likes`, an account's followers + `fans`; written after the
/// originals, they replace them (tests of replaced snapshots).
pub fn replacements(
    rng: &mut impl rand::Rng,
    snapshots: &[crate::model::Record],
    share: f64,
    (likes, fans): (i64, i64),
) -> Vec<crate::model::Record> {
    use crate::model::Record;
    snapshots
        .iter()
        .filter(|_| rng.random_bool(share))
        .map(|r| match r.clone() {
            Record::WorkSnapshot { platform, platform_id, mut snapshot } => {
                snapshot.likes = snapshot.likes.map(|l| l + likes);
                Record::WorkSnapshot { platform, platform_id, snapshot }
            }
            Record::AccountSnapshot { platform, platform_id, mut snapshot } => {
                snapshot.fans = Some(snapshot.fans.unwrap_or(0) + fans);
                Record::AccountSnapshot { platform, platform_id, snapshot }
            }
            other => other,
        })
        .collect()
}
