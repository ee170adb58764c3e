//! SQL text shared by both backends, and the migrator. Statements are
//! written with PostgreSQL's `$n` placeholders; [`for_sqlite`] turns them
//! into SQLite's `?n`. Rows are decoded by [`super::rows`], records written
//! by [`super::writes`], reads run by [`super::queries`].

use std::borrow::Cow;
use std::sync::LazyLock;

use sqlx::migrate::{Migrate, Migration, MigrationType, Migrator};
use sqlx::{ColumnIndex, Database, Decode, Executor, IntoArguments, Pool, Type};

use super::failure::Failure;
use super::{StoreError, StoreResult};

/// A migrator over `(version, description, sql)` steps, in order.
pub fn migrator(steps: &[(i64, &'static str, &'static str)]) -> Migrator {
    let migrations = steps
        .iter()
        .map(|&(version, description, sql)| {
            Migration::new(version, Cow::Borrowed(description), MigrationType::Simple, Cow::Borrowed(sql), false)
        })
        .collect();
    Migrator { migrations: Cow::Owned(migrations), ..Migrator::DEFAULT }
}

/// The newest migration of `migrator`.
pub fn latest_version(migrator: &Migrator) -> i64 {
    migrator.iter().map(|m| m.version).max().unwrap_or(0)
}

/// [`ContentStore::check`](crate::ContentStore::check) on `pool`:
/// one query for the newest applied migration; when the migrations table
/// is missing or behind `migrator`, the migrations run (logged). An
/// unreachable database fails with its error.
pub async fn ensure_schema<DB>(pool: &Pool<DB>, migrator: Migrator) -> StoreResult<()>
where
    DB: Database,
    DB::Connection: Migrate,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    usize: ColumnIndex<DB::Row>,
    i64: Type<DB> + for<'r> Decode<'r, DB>,
{
    let latest = latest_version(&migrator);
    let applied: Result<Option<i64>, sqlx::Error> =
        sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success").fetch_one(pool).await;
    match applied.map_err(StoreError::Database) {
        Ok(Some(version)) if version >= latest => Ok(()),
        Err(error) if error.failure() == Failure::Unavailable => Err(error),
        _ => {
            tracing::warn!(latest, "the store's schema is missing or behind; running the migrations");
            migrator.run(pool).await?;
            Ok(())
        }
    }
}

/// Account columns (table alias `a`) and its newest snapshot (alias `s`).
pub const ACCOUNT_COLUMNS: &str = "a.id, a.platform, a.platform_id, a.account_id, a.sec_uid, a.uid, a.mid, a.red_id, \
     a.kwai_id, a.unique_id, a.wechat_id, a.nickname, a.signature, a.fans, a.following, a.works, a.likes, \
     a.collects, a.region, a.category, a.avatar";

/// Newest account snapshot columns (alias `s`).
pub const ACCOUNT_SNAPSHOT_COLUMNS: &str =
    "s.captured_at AS s_captured_at, s.fans AS s_fans, s.likes AS s_likes, s.works AS s_works, s.reads AS s_reads";

/// Work columns (alias `w`).
pub const WORK_COLUMNS: &str = "w.id, w.platform, w.platform_id, w.work_id, w.note_id, w.video_id, w.bv_id, \
     w.photo_id, w.work_uuid, w.title, w.description, w.author_id, w.published_at, w.url, w.cover, w.video_url, \
     w.work_type, w.category, w.tags, w.duration_secs";

/// The author's columns (alias `au`, the account joined on the work's
/// platform and `author_id`).
pub const AUTHOR_COLUMNS: &str = "au.nickname AS au_nickname, au.fans AS au_fans, au.avatar AS au_avatar";

/// Work snapshot columns (alias `s`) except `extra`, which each backend
/// selects as text named `s_extra`.
pub const WORK_SNAPSHOT_COLUMNS: &str = "s.captured_at AS s_captured_at, s.likes AS s_likes, \
     s.collects AS s_collects, s.comments AS s_comments, s.shares AS s_shares, s.views AS s_views, s.watch AS s_watch";

/// The columns of a [`crate::model::WorkTotals`] row and what they read:
/// the works `w` with their newest snapshot `s` (left out = zeros).
macro_rules! work_totals_of {
    () => {
        "count(*) AS works, CAST(COALESCE(sum(s.views), 0) AS BIGINT) AS views, \
         CAST(COALESCE(sum(s.likes), 0) AS BIGINT) AS likes, CAST(COALESCE(sum(s.comments), 0) AS BIGINT) AS comments, \
         CAST(COALESCE(sum(s.collects), 0) AS BIGINT) AS collects, CAST(COALESCE(sum(s.shares), 0) AS BIGINT) AS shares \
         FROM works w LEFT JOIN work_snapshots s ON s.work = w.id AND s.captured_at = w.latest_captured_at"
    };
}

/// [`crate::ContentStore::work_totals`]: `$1` platform, `$2` author id.
pub const WORK_TOTALS: &str = concat!("SELECT ", work_totals_of!(), " WHERE w.platform = $1 AND w.author_id = $2");

/// [`crate::ContentStore::published_totals`] for `authors` author ids: `$1`
/// platform, `$2`..`$3` the published window, `$4`.. the authors; one row per
/// author with a work in the window, its id in column `author_id`. Read by
/// the index `works_author (platform, author_id, published_at)`.
pub fn published_totals(authors: usize) -> String {
    let ids: Vec<String> = (0..authors).map(|i| format!("${}", i + 4)).collect();
    format!(
        concat!(
            "SELECT w.author_id, ",
            work_totals_of!(),
            " WHERE w.platform = $1 AND w.published_at >= $2 AND w.published_at <= $3 AND w.author_id IN ({}) \
             GROUP BY w.author_id"
        ),
        ids.join(", ")
    )
}

/// Rows per table, one row with one column per table (both backends).
pub const COUNTS: &str = "SELECT (SELECT count(*) FROM accounts) AS accounts, \
     (SELECT count(*) FROM account_snapshots) AS account_snapshots, \
     (SELECT count(*) FROM works) AS works, (SELECT count(*) FROM work_snapshots) AS work_snapshots, \
     (SELECT count(*) FROM comments) AS comments, (SELECT count(*) FROM hot_list_entries) AS hot_list_entries";

/// Tags as stored: a JSON array of strings.
pub fn tags_json(tags: &[String]) -> String {
    serde_json::to_string(tags).unwrap_or_else(|_| "[]".into())
}

/// A statement with `$n` placeholders in SQLite's `?n` form (the shared
/// statements hold no `$` elsewhere).
pub fn for_sqlite(sql: &str) -> String {
    sql.replace('$', "?")
}

/// Account id-form columns, in [`crate::model::AccountIds`] order.
pub const ACCOUNT_ID_COLUMNS: [&str; 8] =
    ["account_id", "sec_uid", "uid", "mid", "red_id", "kwai_id", "unique_id", "wechat_id"];

/// Work id-form columns, in [`crate::model::WorkIds`] order.
pub const WORK_ID_COLUMNS: [&str; 6] = ["work_id", "note_id", "video_id", "bv_id", "photo_id", "work_uuid"];

/// `INSERT … ON CONFLICT (platform, platform_id) DO UPDATE` where nullable
/// columns keep the stored value when the new one is NULL, `keep_if_empty`
/// columns keep it when the new one equals the given empty value, and
/// `updated_at` always takes the new value.
fn upsert(table: &str, nullable: &[&str], keep_if_empty: &[(&str, &str)], returning: &str) -> String {
    let mut columns = vec!["platform", "platform_id"];
    columns.extend(nullable.iter().copied());
    columns.extend(keep_if_empty.iter().map(|(c, _)| *c));
    columns.push("updated_at");
    let values: Vec<String> = (1..=columns.len()).map(|i| format!("${i}")).collect();
    let mut set: Vec<String> = nullable.iter().map(|c| format!("{c} = COALESCE(excluded.{c}, {table}.{c})")).collect();
    set.extend(
        keep_if_empty.iter().map(|(c, empty)| {
            format!("{c} = CASE WHEN excluded.{c} = '{empty}' THEN {table}.{c} ELSE excluded.{c} END")
        }),
    );
    set.push("updated_at = excluded.updated_at".into());
    format!(
        "INSERT INTO {table} ({}) VALUES ({}) ON CONFLICT (platform, platform_id) DO UPDATE SET {}{returning}",
        columns.join(", "),
        values.join(", "),
        set.join(", ")
    )
}

/// Upserts an account and returns its `id, nickname, signature, category`
/// as stored; binds: platform, platform_id, the 8 id forms,
/// signature, fans, following, works, likes, collects, region, category,
/// avatar, nickname, updated_at.
pub static UPSERT_ACCOUNT: LazyLock<String> = LazyLock::new(|| {
    let mut nullable: Vec<&str> = ACCOUNT_ID_COLUMNS.to_vec();
    nullable.extend(["signature", "fans", "following", "works", "likes", "collects", "region", "category", "avatar"]);
    upsert("accounts", &nullable, &[("nickname", "")], " RETURNING id, nickname, signature, category")
});

/// Upserts a work and returns its `id, title, description, tags` as
/// stored; binds: platform, platform_id, the 6 id forms, description,
/// author_id, published_at, url, cover, video_url, work_type, category,
/// duration_secs, title, tags (JSON), updated_at.
pub static UPSERT_WORK: LazyLock<String> = LazyLock::new(|| {
    let mut nullable: Vec<&str> = WORK_ID_COLUMNS.to_vec();
    nullable.extend([
        "description",
        "author_id",
        "published_at",
        "url",
        "cover",
        "video_url",
        "work_type",
        "category",
        "duration_secs",
    ]);
    upsert("works", &nullable, &[("title", ""), ("tags", "[]")], " RETURNING id, title, description, tags")
});

/// `platform = $1 AND $2 IN (every id form)` for accounts.
pub static ACCOUNT_BY_ANY_ID: LazyLock<String> =
    LazyLock::new(|| format!("a.platform = $1 AND $2 IN ({})", prefixed("a", &ACCOUNT_ID_COLUMNS)));

/// `platform = $1 AND $2 IN (every id form)` for works.
pub static WORK_BY_ANY_ID: LazyLock<String> =
    LazyLock::new(|| format!("w.platform = $1 AND $2 IN ({})", prefixed("w", &WORK_ID_COLUMNS)));

fn prefixed(alias: &str, columns: &[&str]) -> String {
    columns.iter().map(|c| format!("{alias}.{c}")).collect::<Vec<_>>().join(", ")
}

/// Checks a natural key before it reaches the database.
pub fn check_key(platform: &str, platform_id: &str) -> crate::StoreResult<()> {
    if platform.trim().is_empty() {
        return Err(crate::StoreError::invalid("platform", "must not be empty"));
    }
    if platform_id.trim().is_empty() {
        return Err(crate::StoreError::invalid("platformId", "must not be empty"));
    }
    Ok(())
}

/// Records an account snapshot; binds: platform, platform_id, captured_at,
/// fans, likes, works, reads. Affects no row when the account is not stored.
pub const INSERT_ACCOUNT_SNAPSHOT: &str = "INSERT INTO account_snapshots (account, captured_at, fans, likes, works, \
     reads) SELECT id, $3, $4, $5, $6, $7 FROM accounts WHERE platform = $1 AND platform_id = $2 \
     ON CONFLICT (account, captured_at) DO UPDATE SET fans = excluded.fans, likes = excluded.likes, \
     works = excluded.works, reads = excluded.reads";

/// Records a work snapshot; binds: platform, platform_id, captured_at,
/// likes, collects, comments, shares, views, watch, extra (JSON text, cast
/// with `json_cast`). Affects no row when the work is not stored.
pub fn insert_work_snapshot(json_cast: &str) -> String {
    format!(
        "INSERT INTO work_snapshots (work, captured_at, likes, collects, comments, shares, views, watch, extra) \
         SELECT id, $3, $4, $5, $6, $7, $8, $9, $10{json_cast} FROM works WHERE platform = $1 AND platform_id = $2 \
         ON CONFLICT (work, captured_at) DO UPDATE SET likes = excluded.likes, collects = excluded.collects, \
         comments = excluded.comments, shares = excluded.shares, views = excluded.views, \
         watch = excluded.watch, extra = excluded.extra"
    )
}

/// Moves a work's denormalised newest figures forward; binds: platform,
/// platform_id, likes, captured_at.
pub const UPDATE_WORK_LATEST: &str = "UPDATE works SET latest_likes = $3, latest_captured_at = $4 \
     WHERE platform = $1 AND platform_id = $2 AND (latest_captured_at IS NULL OR latest_captured_at <= $4)";

/// Upserts a comment; binds: platform, platform_id, work_id, text, likes,
/// author_id, author_name, published_at, parent_id. An empty text keeps
/// the stored one; `NULL`s keep stored values.
pub const UPSERT_COMMENT: &str = "INSERT INTO comments (platform, platform_id, work_id, text, likes, author_id, \
     author_name, published_at, parent_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
     ON CONFLICT (platform, platform_id) DO UPDATE SET work_id = excluded.work_id, \
     text = CASE WHEN excluded.text = '' THEN comments.text ELSE excluded.text END, \
     likes = COALESCE(excluded.likes, comments.likes), author_id = COALESCE(excluded.author_id, comments.author_id), \
     author_name = COALESCE(excluded.author_name, comments.author_name), \
     published_at = COALESCE(excluded.published_at, comments.published_at), \
     parent_id = COALESCE(excluded.parent_id, comments.parent_id)";

/// Upserts a hot-list entry; binds: source, captured_at, rank, title,
/// hot_value, url, extra (JSON text, cast with `json_cast`).
pub fn upsert_hot_list_entry(json_cast: &str) -> String {
    format!(
        "INSERT INTO hot_list_entries (source, captured_at, rank, title, hot_value, url, extra) \
         VALUES ($1, $2, $3, $4, $5, $6, $7{json_cast}) ON CONFLICT (source, captured_at, rank) DO UPDATE SET \
         title = excluded.title, hot_value = excluded.hot_value, url = excluded.url, extra = excluded.extra"
    )
}
