//! Rows to the canonical [`model`](super::model): one generic function per
//! shape of row, for the rows of either backend (`R: sqlx::Row` with the
//! decode bounds the shape needs). The selected columns are named in
//! [`super::sql`] ([`ACCOUNT_COLUMNS`](super::sql::ACCOUNT_COLUMNS),
//! [`WORK_COLUMNS`](super::sql::WORK_COLUMNS), …).

use chrono::{DateTime, Utc};
use sqlx::{ColumnIndex, Decode, Row, Type};

use super::model::{
    Account, AccountIds, AccountRecord, AccountSnapshot, AuthorBrief, Comment, Counts, HotListEntry, Work, WorkIds,
    WorkRecord, WorkSnapshot, WorkTotals,
};

/// What a row is decoded as.
type Decoded<T> = Result<T, sqlx::Error>;

/// Builds an [`Account`] from a row selected with
/// [`ACCOUNT_COLUMNS`](super::sql::ACCOUNT_COLUMNS).
pub fn account_of<R: Row>(row: &R) -> Decoded<Account>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    Ok(Account {
        platform: row.try_get("platform")?,
        platform_id: row.try_get("platform_id")?,
        ids: AccountIds {
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
    })
}

/// Builds an [`AccountRecord`] from a row selected with
/// [`ACCOUNT_COLUMNS`](super::sql::ACCOUNT_COLUMNS) and
/// [`ACCOUNT_SNAPSHOT_COLUMNS`](super::sql::ACCOUNT_SNAPSHOT_COLUMNS).
pub fn account_record<R: Row>(row: &R) -> Decoded<AccountRecord>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    DateTime<Utc>: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    let account = account_of(row)?;
    let captured: Option<DateTime<Utc>> = row.try_get("s_captured_at")?;
    let latest = match captured {
        Some(captured_at) => Some(AccountSnapshot {
            captured_at,
            fans: row.try_get("s_fans")?,
            likes: row.try_get("s_likes")?,
            works: row.try_get("s_works")?,
            reads: row.try_get("s_reads")?,
        }),
        None => None,
    };
    Ok(AccountRecord { account, latest })
}

/// The work snapshot (alias `s`,
/// [`WORK_SNAPSHOT_COLUMNS`](super::sql::WORK_SNAPSHOT_COLUMNS) and
/// `s_extra`) of a row, `None` when the row has none (a left join without
/// a match).
pub fn work_snapshot_record<R: Row>(row: &R) -> Decoded<Option<WorkSnapshot>>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    DateTime<Utc>: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    let captured: Option<DateTime<Utc>> = row.try_get("s_captured_at")?;
    Ok(match captured {
        Some(captured_at) => {
            let extra: Option<String> = row.try_get("s_extra")?;
            Some(WorkSnapshot {
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
    })
}

/// Builds a [`WorkRecord`] from a row selected with
/// [`WORK_COLUMNS`](super::sql::WORK_COLUMNS),
/// [`WORK_SNAPSHOT_COLUMNS`](super::sql::WORK_SNAPSHOT_COLUMNS), `s_extra`
/// and [`AUTHOR_COLUMNS`](super::sql::AUTHOR_COLUMNS).
pub fn work_record<R: Row>(row: &R) -> Decoded<WorkRecord>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    DateTime<Utc>: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    let work = work_of(row)?;
    let latest = work_snapshot_record(row)?;
    let author = author_of(row)?;
    Ok(WorkRecord { work, latest, author })
}

/// Builds a [`Work`] from a row selected with
/// [`WORK_COLUMNS`](super::sql::WORK_COLUMNS).
pub fn work_of<R: Row>(row: &R) -> Decoded<Work>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    DateTime<Utc>: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    let tags: String = row.try_get("tags")?;
    Ok(Work {
        platform: row.try_get("platform")?,
        platform_id: row.try_get("platform_id")?,
        ids: WorkIds {
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
    })
}

/// The author of a row selected with
/// [`AUTHOR_COLUMNS`](super::sql::AUTHOR_COLUMNS), `None` when none is
/// stored.
pub fn author_of<R: Row>(row: &R) -> Decoded<Option<AuthorBrief>>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    let author_nickname: Option<String> = row.try_get("au_nickname")?;
    Ok(match author_nickname {
        Some(nickname) => {
            Some(AuthorBrief { nickname, fans: row.try_get("au_fans")?, avatar: row.try_get("au_avatar")? })
        }
        None => None,
    })
}

/// A row of [`WORK_TOTALS`](super::sql::WORK_TOTALS).
pub fn work_totals_record<R: Row>(row: &R) -> Decoded<WorkTotals>
where
    for<'a> &'a str: ColumnIndex<R>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    Ok(WorkTotals {
        works: row.try_get("works")?,
        views: row.try_get("views")?,
        likes: row.try_get("likes")?,
        comments: row.try_get("comments")?,
        collects: row.try_get("collects")?,
        shares: row.try_get("shares")?,
    })
}

/// A row of [`COUNTS`](super::sql::COUNTS).
pub fn counts_record<R: Row>(row: &R) -> Decoded<Counts>
where
    for<'a> &'a str: ColumnIndex<R>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    let n = |name: &str| row.try_get::<i64, _>(name).map(|v| v as u64);
    Ok(Counts {
        accounts: n("accounts")?,
        account_snapshots: n("account_snapshots")?,
        works: n("works")?,
        work_snapshots: n("work_snapshots")?,
        comments: n("comments")?,
        hot_list_entries: n("hot_list_entries")?,
    })
}

/// Builds a [`Comment`] from a row.
pub fn comment_record<R: Row>(row: &R) -> Decoded<Comment>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    DateTime<Utc>: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    Ok(Comment {
        platform: row.try_get("platform")?,
        platform_id: row.try_get("platform_id")?,
        work_id: row.try_get("work_id")?,
        text: row.try_get("text")?,
        likes: row.try_get("likes")?,
        author_id: row.try_get("author_id")?,
        author_name: row.try_get("author_name")?,
        published_at: row.try_get("published_at")?,
        parent_id: row.try_get("parent_id")?,
    })
}

/// Builds a [`HotListEntry`] from a row whose `extra` is JSON text.
pub fn hot_list_record<R: Row>(row: &R) -> Decoded<HotListEntry>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    i64: Type<R::Database> + for<'r> Decode<'r, R::Database>,
    DateTime<Utc>: Type<R::Database> + for<'r> Decode<'r, R::Database>,
{
    let extra: Option<String> = row.try_get("extra")?;
    Ok(HotListEntry {
        source: row.try_get("source")?,
        captured_at: row.try_get("captured_at")?,
        rank: row.try_get("rank")?,
        title: row.try_get("title")?,
        hot_value: row.try_get("hot_value")?,
        url: row.try_get("url")?,
        extra: extra.and_then(|e| serde_json::from_str(&e).ok()),
    })
}
