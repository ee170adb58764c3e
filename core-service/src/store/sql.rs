//! SQL text and row-to-model mapping shared by both backends. Statements
//! are written with PostgreSQL's `$n` placeholders; [`for_sqlite`] turns
//! them into SQLite's `?n`. The mapping is a macro because sqlx rows of
//! different backends share no decode bounds short of a page of `where`
//! clauses.

use std::borrow::Cow;
use std::sync::LazyLock;

use sqlx::migrate::{Migration, MigrationType, Migrator};

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

/// [`ContentStore::check`](crate::store::ContentStore::check) on pool
/// `$pool`: one query for the newest applied migration; when the
/// migrations table is missing or behind `$migrator`, the migrations run
/// (logged). An unreachable database fails with its error. A macro for the
/// same reason as the row mapping (no shared decode bounds).
macro_rules! ensure_schema {
    ($pool:expr, $migrator:expr) => {{
        let migrator = $migrator;
        let latest = $crate::store::sql::latest_version(&migrator);
        let applied: Result<Option<i64>, sqlx::Error> =
            sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success").fetch_one($pool).await;
        match applied.map_err($crate::store::StoreError::Database) {
            Ok(Some(version)) if version >= latest => Ok(()),
            Err(error) if error.failure() == $crate::store::failure::Failure::Unavailable => Err(error),
            _ => {
                tracing::warn!(latest, "the store's schema is missing or behind; running the migrations");
                migrator.run($pool).await?;
                Ok(())
            }
        }
    }};
}
pub(crate) use ensure_schema;

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

/// Builds an [`Account`](crate::store::model::Account) from a row selected
/// with [`ACCOUNT_COLUMNS`].
macro_rules! account_of {
    ($row:expr) => {{
        use sqlx::Row as _;
        let row = $row;
        $crate::store::model::Account {
            platform: row.try_get("platform")?,
            platform_id: row.try_get("platform_id")?,
            ids: $crate::store::model::AccountIds {
                account_id: row.try_get("account_id")?,
                sec_uid: row.try_get("sec_uid")?,
                uid: row.try_get("uid")?,
                mid: row.try_get("mid")?,
                red_id: row.try_get("red_id")?,
                kwai_id: row.try_get("kwai_id")?,
                unique_id: row.try_get("unique_id")?,
                wechat_id: row.try_get("wechat_id")?,
            },
            nickname: row.try_get("nickname")?,
            signature: row.try_get("signature")?,
            fans: row.try_get("fans")?,
            following: row.try_get("following")?,
            works: row.try_get("works")?,
            likes: row.try_get("likes")?,
            collects: row.try_get("collects")?,
            region: row.try_get("region")?,
            category: row.try_get("category")?,
            avatar: row.try_get("avatar")?,
        }
    }};
}

/// Builds an [`AccountRecord`](crate::store::model::AccountRecord) from a
/// row selected with [`ACCOUNT_COLUMNS`] and [`ACCOUNT_SNAPSHOT_COLUMNS`].
macro_rules! account_record {
    ($row:expr) => {{
        use sqlx::Row as _;
        let row = $row;
        let account = $crate::store::sql::account_of!(row);
        let captured: Option<chrono::DateTime<chrono::Utc>> = row.try_get("s_captured_at")?;
        let latest = match captured {
            Some(captured_at) => Some($crate::store::model::AccountSnapshot {
                captured_at,
                fans: row.try_get("s_fans")?,
                likes: row.try_get("s_likes")?,
                works: row.try_get("s_works")?,
                reads: row.try_get("s_reads")?,
            }),
            None => None,
        };
        $crate::store::model::AccountRecord { account, latest }
    }};
}

/// The work snapshot (alias `s`, [`WORK_SNAPSHOT_COLUMNS`] and `s_extra`)
/// of a row, `None` when the row has none (a left join without a match).
macro_rules! work_snapshot_record {
    ($row:expr) => {{
        use sqlx::Row as _;
        let row = $row;
        let captured: Option<chrono::DateTime<chrono::Utc>> = row.try_get("s_captured_at")?;
        match captured {
            Some(captured_at) => {
                let extra: Option<String> = row.try_get("s_extra")?;
                Some($crate::store::model::WorkSnapshot {
                    captured_at,
                    likes: row.try_get("s_likes")?,
                    collects: row.try_get("s_collects")?,
                    comments: row.try_get("s_comments")?,
                    shares: row.try_get("s_shares")?,
                    views: row.try_get("s_views")?,
                    watch: row.try_get("s_watch")?,
                    extra: extra.and_then(|e| serde_json::from_str(&e).ok()),
                })
            }
            None => None,
        }
    }};
}

/// Builds a [`WorkRecord`](crate::store::model::WorkRecord) from a row
/// selected with [`WORK_COLUMNS`], [`WORK_SNAPSHOT_COLUMNS`], `s_extra` and
/// [`AUTHOR_COLUMNS`].
macro_rules! work_record {
    ($row:expr) => {{
        let row = $row;
        let work = $crate::store::sql::work_of!(row);
        let latest = $crate::store::sql::work_snapshot_record!(row);
        let author = $crate::store::sql::author_of!(row);
        $crate::store::model::WorkRecord { work, latest, author }
    }};
}

/// Builds a [`Work`](crate::store::model::Work) from a row selected with
/// [`WORK_COLUMNS`].
macro_rules! work_of {
    ($row:expr) => {{
        use sqlx::Row as _;
        let row = $row;
        let tags: String = row.try_get("tags")?;
        $crate::store::model::Work {
            platform: row.try_get("platform")?,
            platform_id: row.try_get("platform_id")?,
            ids: $crate::store::model::WorkIds {
                work_id: row.try_get("work_id")?,
                note_id: row.try_get("note_id")?,
                video_id: row.try_get("video_id")?,
                bv_id: row.try_get("bv_id")?,
                photo_id: row.try_get("photo_id")?,
                work_uuid: row.try_get("work_uuid")?,
            },
            title: row.try_get("title")?,
            description: row.try_get("description")?,
            author_id: row.try_get("author_id")?,
            published_at: row.try_get("published_at")?,
            url: row.try_get("url")?,
            cover: row.try_get("cover")?,
            video_url: row.try_get("video_url")?,
            work_type: row.try_get("work_type")?,
            category: row.try_get("category")?,
            tags: serde_json::from_str(&tags).unwrap_or_default(),
            duration_secs: row.try_get("duration_secs")?,
        }
    }};
}

/// The author (an [`AuthorBrief`](crate::store::model::AuthorBrief)) of a
/// row selected with [`AUTHOR_COLUMNS`], `None` when none is stored.
macro_rules! author_of {
    ($row:expr) => {{
        use sqlx::Row as _;
        let row = $row;
        let author_nickname: Option<String> = row.try_get("au_nickname")?;
        match author_nickname {
            Some(nickname) => Some($crate::store::model::AuthorBrief {
                nickname,
                fans: row.try_get("au_fans")?,
                avatar: row.try_get("au_avatar")?,
            }),
            None => None,
        }
    }};
}

/// Totals of an author's works (newest snapshots); binds: platform,
/// author_id.
pub const WORK_TOTALS: &str = "SELECT count(*) AS works, CAST(COALESCE(sum(s.views), 0) AS BIGINT) AS views, \
     CAST(COALESCE(sum(s.likes), 0) AS BIGINT) AS likes, CAST(COALESCE(sum(s.comments), 0) AS BIGINT) AS comments, \
     CAST(COALESCE(sum(s.collects), 0) AS BIGINT) AS collects, CAST(COALESCE(sum(s.shares), 0) AS BIGINT) AS shares \
     FROM works w LEFT JOIN work_snapshots s ON s.work = w.id AND s.captured_at = w.latest_captured_at \
     WHERE w.platform = $1 AND w.author_id = $2";

/// A row of [`WORK_TOTALS`].
macro_rules! work_totals_record {
    ($row:expr) => {{
        use sqlx::Row as _;
        let row = $row;
        $crate::store::model::WorkTotals {
            works: row.try_get("works")?,
            views: row.try_get("views")?,
            likes: row.try_get("likes")?,
            comments: row.try_get("comments")?,
            collects: row.try_get("collects")?,
            shares: row.try_get("shares")?,
        }
    }};
}

/// Rows per table, one row with one column per table (both backends).
pub const COUNTS: &str = "SELECT (SELECT count(*) FROM accounts) AS accounts, \
     (SELECT count(*) FROM account_snapshots) AS account_snapshots, \
     (SELECT count(*) FROM works) AS works, (SELECT count(*) FROM work_snapshots) AS work_snapshots, \
     (SELECT count(*) FROM comments) AS comments, (SELECT count(*) FROM hot_list_entries) AS hot_list_entries";

/// A row of [`COUNTS`] as [`crate::store::model::Counts`].
macro_rules! counts_record {
    ($row:expr) => {{
        use sqlx::Row as _;
        let row = $row;
        let n = |name: &str| row.try_get::<i64, _>(name).map(|v| v as u64);
        crate::store::model::Counts {
            accounts: n("accounts")?,
            account_snapshots: n("account_snapshots")?,
            works: n("works")?,
            work_snapshots: n("work_snapshots")?,
            comments: n("comments")?,
            hot_list_entries: n("hot_list_entries")?,
        }
    }};
}

pub(crate) use {
    account_of, account_record, author_of, counts_record, work_of, work_record, work_snapshot_record,
    work_totals_record,
};

/// Tags as stored: a JSON array of strings.
pub fn tags_json(tags: &[String]) -> String {
    serde_json::to_string(tags).unwrap_or_else(|_| "[]".into())
}

/// A statement with `$n` placeholders in SQLite's `?n` form (the shared
/// statements hold no `$` elsewhere).
pub fn for_sqlite(sql: &str) -> String {
    sql.replace('$', "?")
}

/// Account id-form columns, in [`crate::store::model::AccountIds`] order.
pub const ACCOUNT_ID_COLUMNS: [&str; 8] =
    ["account_id", "sec_uid", "uid", "mid", "red_id", "kwai_id", "unique_id", "wechat_id"];

/// Work id-form columns, in [`crate::store::model::WorkIds`] order.
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

/// Binds an account in [`UPSERT_ACCOUNT`] order.
macro_rules! bind_account {
    ($query:expr, $a:expr, $now:expr) => {{
        let a = $a;
        $query
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
            .bind($now)
    }};
}

/// Binds a work in [`UPSERT_WORK`] order.
macro_rules! bind_work {
    ($query:expr, $w:expr, $now:expr) => {{
        let w = $w;
        $query
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
            .bind($crate::store::sql::tags_json(&w.tags))
            .bind($now)
    }};
}

pub(crate) use {bind_account, bind_work};

/// Checks a natural key before it reaches the database.
pub fn check_key(platform: &str, platform_id: &str) -> crate::store::StoreResult<()> {
    if platform.trim().is_empty() {
        return Err(crate::store::StoreError::invalid("platform", "must not be empty"));
    }
    if platform_id.trim().is_empty() {
        return Err(crate::store::StoreError::invalid("platformId", "must not be empty"));
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

/// Applies one [`Record`](crate::store::model::Record) on a connection
/// `$conn` (`&mut Connection`), for either backend: `$sql` turns a shared
/// statement into the backend's placeholders, `$json_cast` is the JSON
/// parameter cast, and `$index_account` / `$index_work` re-index the text
/// of the row id just written. Evaluates to `StoreResult<()>`.
macro_rules! apply_record {
    ($conn:expr, $record:expr, $sql:expr, $json_cast:expr, $index_account:path, $index_work:path) => {{
        use sqlx::Row as _;
        use $crate::store::model::{Account, Record, Work};
        use $crate::store::sql;
        let conn = $conn;
        let now = chrono::Utc::now();
        async {
            match $record {
                Record::Account(a) => {
                    sql::check_key(&a.platform, &a.platform_id)?;
                    let statement = $sql(&sql::UPSERT_ACCOUNT);
                    let row = sql::bind_account!(sqlx::query(&statement), a, now).fetch_one(&mut *conn).await?;
                    let stored = Account {
                        nickname: row.try_get("nickname")?,
                        signature: row.try_get("signature")?,
                        category: row.try_get("category")?,
                        ..Account::default()
                    };
                    $index_account(&mut *conn, row.try_get("id")?, &stored).await
                }
                Record::Work(w) => {
                    sql::check_key(&w.platform, &w.platform_id)?;
                    let statement = $sql(&sql::UPSERT_WORK);
                    let row = sql::bind_work!(sqlx::query(&statement), w, now).fetch_one(&mut *conn).await?;
                    let stored = Work {
                        title: row.try_get("title")?,
                        description: row.try_get("description")?,
                        tags: serde_json::from_str(&row.try_get::<String, _>("tags")?).unwrap_or_default(),
                        ..Work::default()
                    };
                    $index_work(&mut *conn, row.try_get("id")?, &stored).await
                }
                Record::AccountSnapshot { platform, platform_id, snapshot: s } => {
                    let done = sqlx::query(&$sql(sql::INSERT_ACCOUNT_SNAPSHOT))
                        .bind(platform)
                        .bind(platform_id)
                        .bind(s.captured_at)
                        .bind(s.fans)
                        .bind(s.likes)
                        .bind(s.works)
                        .bind(s.reads)
                        .execute(&mut *conn)
                        .await?;
                    if done.rows_affected() == 0 {
                        return Err($crate::store::StoreError::NotFound(format!("account {platform}/{platform_id}")));
                    }
                    Ok(())
                }
                Record::WorkSnapshot { platform, platform_id, snapshot: s } => {
                    let done = sqlx::query(&$sql(&sql::insert_work_snapshot($json_cast)))
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
                    if done.rows_affected() == 0 {
                        return Err($crate::store::StoreError::NotFound(format!("work {platform}/{platform_id}")));
                    }
                    sqlx::query(&$sql(sql::UPDATE_WORK_LATEST))
                        .bind(platform)
                        .bind(platform_id)
                        .bind(s.likes)
                        .bind(s.captured_at)
                        .execute(&mut *conn)
                        .await?;
                    Ok(())
                }
                Record::Comment(c) => {
                    sql::check_key(&c.platform, &c.platform_id)?;
                    if c.work_id.trim().is_empty() {
                        return Err($crate::store::StoreError::invalid("workId", "must not be empty"));
                    }
                    sqlx::query(&$sql(sql::UPSERT_COMMENT))
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
                        return Err($crate::store::StoreError::invalid("source", "must not be empty"));
                    }
                    sqlx::query(&$sql(&sql::upsert_hot_list_entry($json_cast)))
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
        .await
    }};
}

/// Writes a batch on pool `$pool`: one transaction, one savepoint per
/// record, `$apply(conn, record)` doing the work. Evaluates to
/// `StoreResult<Vec<StoreResult<()>>>`.
macro_rules! write_batch {
    ($pool:expr, $records:expr, $apply:path) => {{
        use sqlx::Acquire as _;
        let mut tx = $pool.begin().await?;
        let mut outcomes = Vec::with_capacity($records.len());
        for record in $records {
            let mut savepoint = (&mut *tx).begin().await?;
            match $apply(&mut savepoint, record).await {
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
    }};
}

/// Runs a [`Listing`](crate::store::listing::Listing) on `$pool`, mapping
/// page rows with `$map` (a row macro). Evaluates to
/// `StoreResult<SearchPage<_>>`.
macro_rules! run_listing {
    ($pool:expr, $listing:expr, $map:ident) => {{
        let listing = $listing;
        let n = listing.params.len() - 2;
        let counted: i64 =
            $crate::store::listing::bind_params!(sqlx::query_scalar(&listing.count), &listing.params[..n])
                .fetch_one($pool)
                .await?;
        let rows = $crate::store::listing::bind_params!(sqlx::query(listing.page_for(counted)), &listing.params)
            .fetch_all($pool)
            .await?;
        let mut items = Vec::with_capacity(rows.len());
        for row in &rows {
            items.push($map!(row));
        }
        Ok(listing.page_of(counted, items))
    }};
}

/// Builds a [`Comment`](crate::store::model::Comment) from a row.
macro_rules! comment_record {
    ($row:expr) => {{
        use sqlx::Row as _;
        let row = $row;
        $crate::store::model::Comment {
            platform: row.try_get("platform")?,
            platform_id: row.try_get("platform_id")?,
            work_id: row.try_get("work_id")?,
            text: row.try_get("text")?,
            likes: row.try_get("likes")?,
            author_id: row.try_get("author_id")?,
            author_name: row.try_get("author_name")?,
            published_at: row.try_get("published_at")?,
            parent_id: row.try_get("parent_id")?,
        }
    }};
}

/// Builds a [`HotListEntry`](crate::store::model::HotListEntry) from a row
/// whose `extra` is JSON text.
macro_rules! hot_list_record {
    ($row:expr) => {{
        use sqlx::Row as _;
        let row = $row;
        let extra: Option<String> = row.try_get("extra")?;
        $crate::store::model::HotListEntry {
            source: row.try_get("source")?,
            captured_at: row.try_get("captured_at")?,
            rank: row.try_get("rank")?,
            title: row.try_get("title")?,
            hot_value: row.try_get("hot_value")?,
            url: row.try_get("url")?,
            extra: extra.and_then(|e| serde_json::from_str(&e).ok()),
        }
    }};
}

/// The whole [`ContentStore`](crate::store::ContentStore) impl of a backend
/// type `$store` with a `pool` field and an `apply(conn, record)` function:
/// every method is the same statement for both backends, written with `$n`
/// placeholders and turned into the backend's form by `$dialect`
/// ([`Dialect::placeholders`](crate::store::listing::Dialect::placeholders)).
macro_rules! content_store_impl {
    ($store:ty, $backend:literal, $dialect:expr, $bulk:ident) => {
        #[async_trait::async_trait]
        impl $crate::store::ContentStore for $store {
            fn backend(&self) -> &'static str {
                $backend
            }

            fn boards(&self) -> Option<std::sync::Arc<dyn $crate::store::boards::BoardTables>> {
                Some($crate::store::boards::BoardSql::new(self.pool.clone(), $dialect))
            }

            async fn check(&self) -> $crate::store::StoreResult<()> {
                $crate::store::sql::ensure_schema!(&self.pool, migrator())
            }

            async fn write(
                &self,
                records: &[$crate::store::model::Record],
            ) -> $crate::store::StoreResult<Vec<$crate::store::StoreResult<()>>> {
                $crate::store::sql::write_batch!(self.pool, records, Self::apply)
            }

            async fn bulk_work_snapshots(
                &self,
                platform: &str,
                snapshots: &[(String, $crate::store::model::WorkSnapshot)],
            ) -> $crate::store::StoreResult<$crate::store::bulk::BulkReport> {
                $crate::store::bulk::$bulk::load(&self.pool, platform, snapshots).await
            }

            async fn bulk_account_snapshots(
                &self,
                platform: &str,
                snapshots: &[(String, $crate::store::model::AccountSnapshot)],
            ) -> $crate::store::StoreResult<$crate::store::bulk::BulkReport> {
                $crate::store::bulk::$bulk::load(&self.pool, platform, snapshots).await
            }

            async fn prune_snapshots(
                &self,
                keep_from: chrono::NaiveDate,
                dry_run: bool,
            ) -> $crate::store::StoreResult<Option<$crate::store::retention::PruneReport>> {
                $crate::store::retention::$bulk(&self.pool, keep_from, dry_run).await
            }

            async fn get_account(
                &self,
                platform: &str,
                id: &str,
            ) -> $crate::store::StoreResult<Option<$crate::store::model::AccountRecord>> {
                for filter in ["a.platform = $1 AND a.platform_id = $2", $crate::store::sql::ACCOUNT_BY_ANY_ID.as_str()]
                {
                    let statement =
                        $dialect.placeholders(format!("{} WHERE {filter} LIMIT 1", $dialect.account_select()));
                    let row = sqlx::query(&statement).bind(platform).bind(id).fetch_optional(&self.pool).await?;
                    if let Some(row) = row {
                        return Ok(Some($crate::store::sql::account_record!(&row)));
                    }
                }
                Ok(None)
            }

            async fn get_work(
                &self,
                platform: &str,
                id: &str,
            ) -> $crate::store::StoreResult<Option<$crate::store::model::WorkRecord>> {
                for filter in ["w.platform = $1 AND w.platform_id = $2", $crate::store::sql::WORK_BY_ANY_ID.as_str()] {
                    let statement = $dialect.placeholders(format!("{} WHERE {filter} LIMIT 1", $dialect.work_select()));
                    let row = sqlx::query(&statement).bind(platform).bind(id).fetch_optional(&self.pool).await?;
                    if let Some(row) = row {
                        return Ok(Some($crate::store::sql::work_record!(&row)));
                    }
                }
                Ok(None)
            }

            async fn counts(&self) -> $crate::store::StoreResult<$crate::store::model::Counts> {
                let row = sqlx::query($crate::store::sql::COUNTS).fetch_one(&self.pool).await?;
                Ok($crate::store::sql::counts_record!(&row))
            }

            async fn find_works(
                &self,
                query: &$crate::store::model::WorkQuery,
            ) -> $crate::store::StoreResult<$crate::store::model::SearchPage<$crate::store::model::WorkRecord>> {
                match $dialect.find_works(query)? {
                    Some(listing) => $crate::store::sql::run_listing!(&self.pool, listing, work_record),
                    None => Ok($crate::store::model::SearchPage::exact(0, Vec::new())),
                }
            }

            async fn find_accounts(
                &self,
                query: &$crate::store::model::AccountQuery,
            ) -> $crate::store::StoreResult<$crate::store::model::SearchPage<$crate::store::model::AccountRecord>> {
                match $dialect.find_accounts(query)? {
                    Some(listing) => $crate::store::sql::run_listing!(&self.pool, listing, account_record),
                    None => Ok($crate::store::model::SearchPage::exact(0, Vec::new())),
                }
            }

            async fn list_comments(
                &self,
                platform: &str,
                work_id: &str,
                page: u32,
                page_size: u32,
            ) -> $crate::store::StoreResult<$crate::store::model::SearchPage<$crate::store::model::Comment>> {
                $crate::store::sql::run_listing!(
                    &self.pool,
                    $dialect.list_comments(platform, work_id, page, page_size)?,
                    comment_record
                )
            }

            async fn work_totals(
                &self,
                platform: &str,
                author_id: &str,
            ) -> $crate::store::StoreResult<$crate::store::model::WorkTotals> {
                let row = sqlx::query(&$dialect.placeholders($crate::store::sql::WORK_TOTALS.to_owned()))
                    .bind(platform)
                    .bind(author_id)
                    .fetch_one(&self.pool)
                    .await?;
                Ok($crate::store::sql::work_totals_record!(&row))
            }

            async fn work_series(
                &self,
                query: &$crate::store::model::SeriesQuery,
            ) -> $crate::store::StoreResult<Vec<$crate::store::model::WorkSeries>> {
                let Some((statement, params)) = $dialect.work_series(query) else { return Ok(Vec::new()) };
                // Unnamed (not cached) statements: PostgreSQL plans each window
                // and filter for its own parameters, instead of switching a cached
                // statement to one generic plan after a few calls, which was 50x
                // slower for some windows (docs/rankings.md "Boards as data"). The
                // window and board reads below do the same.
                let rows = $crate::store::listing::bind_params!(sqlx::query(&statement), &params)
                    .persistent(false)
                    .fetch_all(&self.pool)
                    .await?;
                let mut out: Vec<$crate::store::model::WorkSeries> = Vec::new();
                let mut last_id = None;
                for row in &rows {
                    // Rows come by work: the work's columns are decoded once,
                    // the following rows of the same work only for their snapshot.
                    let id: i64 = sqlx::Row::try_get(row, "id")?;
                    if last_id == Some(id) {
                        if let (Some(last), Some(snapshot)) =
                            (out.last_mut(), $crate::store::sql::work_snapshot_record!(row))
                        {
                            last.snapshots.push(snapshot);
                        }
                        continue;
                    }
                    let record = $crate::store::sql::work_record!(row);
                    let Some(snapshot) = record.latest else { continue };
                    last_id = Some(id);
                    out.push($crate::store::model::WorkSeries {
                        work: record.work,
                        author: record.author,
                        snapshots: vec![snapshot],
                    });
                }
                Ok(out)
            }

            async fn account_series(
                &self,
                query: &$crate::store::model::SeriesQuery,
            ) -> $crate::store::StoreResult<Vec<$crate::store::model::AccountSeries>> {
                let (statement, params) = $dialect.account_series(query);
                // Planned per call, as `work_series`.
                let rows = $crate::store::listing::bind_params!(sqlx::query(&statement), &params)
                    .persistent(false)
                    .fetch_all(&self.pool)
                    .await?;
                let mut out: Vec<$crate::store::model::AccountSeries> = Vec::new();
                for row in &rows {
                    let record = $crate::store::sql::account_record!(row);
                    let Some(snapshot) = record.latest else { continue };
                    match out.last_mut() {
                        Some(last) if last.account.platform_id == record.account.platform_id => {
                            last.snapshots.push(snapshot)
                        }
                        _ => out.push($crate::store::model::AccountSeries {
                            account: record.account,
                            snapshots: vec![snapshot],
                        }),
                    }
                }
                Ok(out)
            }

            async fn work_board(
                &self,
                query: &$crate::store::model::BoardQuery,
            ) -> $crate::store::StoreResult<Vec<$crate::store::model::BoardWork>> {
                let Some((statement, params)) = $dialect.work_board(query)? else { return Ok(Vec::new()) };
                // Planned per call, as `work_series`.
                let rows = $crate::store::listing::bind_params!(sqlx::query(&statement), &params)
                    .persistent(false)
                    .fetch_all(&self.pool)
                    .await?;
                let mut out = Vec::with_capacity(rows.len());
                for row in &rows {
                    out.push($crate::store::model::BoardWork {
                        work: $crate::store::sql::work_of!(row),
                        author: $crate::store::sql::author_of!(row),
                        value: sqlx::Row::try_get(row, "board_value")?,
                    });
                }
                Ok(out)
            }

            async fn keyword_matches(
                &self,
                query: &$crate::store::model::BoardQuery,
            ) -> $crate::store::StoreResult<$crate::store::model::KeywordMatches> {
                let Some((statement, params)) = $dialect.keyword_matches(query) else { return Ok(Vec::new().into()) };
                let ids: Vec<i64> = $crate::store::listing::bind_params!(sqlx::query_scalar(&statement), &params)
                    .persistent(false)
                    .fetch_all(&self.pool)
                    .await?;
                Ok(ids.into())
            }

            async fn account_board(
                &self,
                query: &$crate::store::model::BoardQuery,
            ) -> $crate::store::StoreResult<Vec<$crate::store::model::BoardAccount>> {
                let (statement, params) = $dialect.account_board(query)?;
                // Planned per call, as `work_series`.
                let rows = $crate::store::listing::bind_params!(sqlx::query(&statement), &params)
                    .persistent(false)
                    .fetch_all(&self.pool)
                    .await?;
                let mut out = Vec::with_capacity(rows.len());
                for row in &rows {
                    out.push($crate::store::model::BoardAccount {
                        account: $crate::store::sql::account_of!(row),
                        value: sqlx::Row::try_get(row, "board_value")?,
                        likes_gained: sqlx::Row::try_get(row, "board_likes_gained")?,
                    });
                }
                Ok(out)
            }

            async fn author_gains(
                &self,
                query: &$crate::store::model::BoardQuery,
            ) -> $crate::store::StoreResult<Vec<$crate::store::model::AuthorGains>> {
                let (statement, params) = $dialect.author_gains(query);
                // Planned per call, as `work_series`.
                let rows = $crate::store::listing::bind_params!(sqlx::query(&statement), &params)
                    .persistent(false)
                    .fetch_all(&self.pool)
                    .await?;
                let mut out = Vec::with_capacity(rows.len());
                for row in &rows {
                    out.push($crate::store::model::AuthorGains {
                        author_id: sqlx::Row::try_get(row, "author")?,
                        name: sqlx::Row::try_get(row, "name")?,
                        views: sqlx::Row::try_get(row, "views")?,
                        likes: sqlx::Row::try_get(row, "likes")?,
                    });
                }
                Ok(out)
            }

            async fn hot_list_entries(
                &self,
                query: &$crate::store::model::HotListQuery,
            ) -> $crate::store::StoreResult<Vec<$crate::store::model::HotListEntry>> {
                let (statement, params) = $dialect.hot_list_entries(query);
                let rows = $crate::store::listing::bind_params!(sqlx::query(&statement), &params)
                    .fetch_all(&self.pool)
                    .await?;
                let mut out = Vec::with_capacity(rows.len());
                for row in &rows {
                    out.push($crate::store::sql::hot_list_record!(row));
                }
                Ok(out)
            }
        }
    };
}

pub(crate) use {apply_record, comment_record, content_store_impl, hot_list_record, run_listing, write_batch};
