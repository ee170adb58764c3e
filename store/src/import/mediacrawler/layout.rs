//! Where each MediaCrawler platform keeps each value, and how a row becomes
//! canonical records. Column names follow MediaCrawler's `store/<platform>/
//! __init__.py` (`update_*`, `save_creator`, `update_up_info`) at commit
//! `0282e626c94a8c0e42548dedf4475d90fdd3ec61` (docs/store.md, "mediacrawler").

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::bvid::{av_to_bv, bv_to_av};
use super::fields::Fields;
use super::{Kind, Platform};
use crate::model::{Account, AccountIds, AccountSnapshot, Comment, Record, Work, WorkIds, WorkSnapshot};

/// MediaCrawler's anonymous creator id: since mid-2026 its rows carry this
/// instead of `user_id` (and a masked `nickname`, e.g. `露*达人`). A row
/// with no [`Layout::account_key`] column but this one is credited to an
/// anonymous account keyed by the hash (docs/store.md "mediacrawler").
const CREATOR_HASH: &str = "creator_hash";

/// One platform's column names.
struct Layout {
    /// Columns naming the author's key, first present wins; without any,
    /// [`CREATOR_HASH`] keys an anonymous account.
    account_key: &'static [&'static str],
    /// Contents: the work's id column.
    work_id: &'static str,
    work_type: Option<&'static str>,
    title: &'static str,
    description: Option<&'static str>,
    /// Publish time columns, first present wins.
    published: &'static [&'static str],
    url: Option<&'static str>,
    cover: Option<&'static str>,
    video_url: Option<&'static str>,
    tags: Option<&'static str>,
    likes: Option<&'static str>,
    collects: Option<&'static str>,
    comments: Option<&'static str>,
    shares: Option<&'static str>,
    views: Option<&'static str>,
    /// Further counters kept in the snapshot's `extra`: (key, column).
    extra: &'static [(&'static str, &'static str)],
    /// Comments: the commented work's id column and the likes column.
    comment_work_id: &'static str,
    comment_likes: Option<&'static str>,
    comment_time: &'static [&'static str],
    /// Creators.
    signature: &'static [&'static str],
    fans: &'static str,
    following: Option<&'static str>,
    creator_likes: Option<&'static str>,
    creator_works: Option<&'static str>,
}

const XHS: Layout = Layout {
    account_key: &["user_id"],
    work_id: "note_id",
    work_type: Some("type"),
    title: "title",
    description: Some("desc"),
    published: &["time"],
    url: Some("note_url"),
    cover: Some("image_list"),
    video_url: Some("video_url"),
    tags: Some("tag_list"),
    likes: Some("liked_count"),
    collects: Some("collected_count"),
    comments: Some("comment_count"),
    shares: Some("share_count"),
    views: None,
    extra: &[],
    comment_work_id: "note_id",
    comment_likes: Some("like_count"),
    comment_time: &["create_time"],
    signature: &["desc"],
    fans: "fans",
    following: Some("follows"),
    // 获赞与收藏: likes and collects together.
    creator_likes: Some("interaction"),
    creator_works: None,
};

const DOUYIN: Layout = Layout {
    // Creators are saved under their sec_uid (DY_CREATOR_ID_LIST), so
    // accounts are keyed by it; contents carry both.
    account_key: &["sec_uid", "user_id"],
    work_id: "aweme_id",
    work_type: Some("aweme_type"),
    title: "title",
    description: Some("desc"),
    published: &["create_time"],
    url: Some("aweme_url"),
    cover: Some("cover_url"),
    video_url: Some("video_download_url"),
    tags: None,
    likes: Some("liked_count"),
    collects: Some("collected_count"),
    comments: Some("comment_count"),
    shares: Some("share_count"),
    views: None,
    extra: &[],
    comment_work_id: "aweme_id",
    comment_likes: Some("like_count"),
    comment_time: &["create_time"],
    signature: &["desc"],
    fans: "fans",
    following: Some("follows"),
    creator_likes: Some("interaction"),
    creator_works: Some("videos_count"),
};

const KUAISHOU: Layout = Layout {
    account_key: &["user_id"],
    work_id: "video_id",
    work_type: Some("video_type"),
    title: "title",
    description: Some("desc"),
    published: &["create_time"],
    url: Some("video_url"),
    cover: Some("video_cover_url"),
    video_url: Some("video_play_url"),
    tags: None,
    likes: Some("liked_count"),
    collects: None,
    comments: None,
    shares: None,
    views: Some("viewd_count"),
    extra: &[],
    comment_work_id: "video_id",
    comment_likes: None,
    comment_time: &["create_time"],
    signature: &["desc"],
    fans: "fans",
    following: Some("follows"),
    creator_likes: None,
    // `interaction` is ownerCount.photo_public: the public works.
    creator_works: Some("interaction"),
};

const BILIBILI: Layout = Layout {
    account_key: &["user_id"],
    work_id: "video_id",
    work_type: Some("video_type"),
    title: "title",
    description: Some("desc"),
    published: &["create_time"],
    url: Some("video_url"),
    cover: Some("video_cover_url"),
    video_url: None,
    tags: None,
    likes: Some("liked_count"),
    collects: Some("video_favorite_count"),
    comments: Some("video_comment"),
    shares: Some("video_share_count"),
    views: Some("video_play_count"),
    extra: &[("coin", "video_coin_count"), ("danmaku", "video_danmaku"), ("dislike", "disliked_count")],
    comment_work_id: "video_id",
    comment_likes: Some("like_count"),
    comment_time: &["create_time"],
    signature: &["sign"],
    fans: "total_fans",
    following: None,
    creator_likes: Some("total_liked"),
    creator_works: None,
};

const WEIBO: Layout = Layout {
    account_key: &["user_id"],
    work_id: "note_id",
    work_type: None,
    title: "content",
    description: None,
    // `create_time` is the Shanghai wall time read as UTC (MediaCrawler's
    // rfc2822_to_timestamp drops the offset), 8 hours late; the text
    // `create_date_time` keeps the offset.
    published: &["create_date_time", "create_time"],
    url: Some("note_url"),
    cover: None,
    video_url: None,
    tags: None,
    likes: Some("liked_count"),
    collects: None,
    comments: Some("comments_count"),
    shares: Some("shared_count"),
    views: None,
    extra: &[],
    comment_work_id: "note_id",
    comment_likes: Some("comment_like_count"),
    comment_time: &["create_date_time", "create_time"],
    signature: &["desc"],
    fans: "fans",
    following: Some("follows"),
    creator_likes: None,
    creator_works: None,
};

fn layout(platform: Platform) -> &'static Layout {
    match platform {
        Platform::Xhs => &XHS,
        Platform::Douyin => &DOUYIN,
        Platform::Kuaishou => &KUAISHOU,
        Platform::Bilibili => &BILIBILI,
        Platform::Weibo => &WEIBO,
    }
}

/// The records of one row of a `kind` file of `platform`; snapshots are
/// taken at the row's `last_modify_ts`, else at `fallback`.
pub(super) fn records(
    platform: Platform,
    kind: Kind,
    row: &Map<String, Value>,
    fallback: DateTime<Utc>,
) -> Result<Vec<Record>, String> {
    let f = Fields(row);
    let captured_at = f.time("last_modify_ts")?.unwrap_or(fallback);
    match kind {
        Kind::Contents => content(platform, &f, captured_at),
        Kind::Comments => comment(platform, &f).map(|c| vec![Record::Comment(c)]),
        Kind::Creators => creator(platform, &f, captured_at),
    }
}

/// The key and id forms of the work a row's id column names. Bilibili rows
/// carry the `aid`; the store keys videosite works by `bvid`.
fn work_key(platform: Platform, column: &str, f: &Fields) -> Result<(String, WorkIds), String> {
    let id = f.required(column)?;
    Ok(match platform {
        Platform::Bilibili => {
            let (aid, bvid) = match id.parse::<u64>() {
                Ok(aid) => (aid, av_to_bv(aid).ok_or_else(|| format!("{column}: {id} is not a video aid"))?),
                Err(_) => (bv_to_av(&id).ok_or_else(|| format!("{column}: {id:?} is neither an aid nor a bvid"))?, id),
            };
            let ids = WorkIds { bv_id: Some(bvid.clone()), work_id: Some(aid.to_string()), ..Default::default() };
            (bvid, ids)
        }
        Platform::Xhs => (id.clone(), WorkIds { note_id: Some(id.clone()), work_id: Some(id), ..Default::default() }),
        Platform::Douyin => {
            (id.clone(), WorkIds { video_id: Some(id.clone()), work_id: Some(id), ..Default::default() })
        }
        Platform::Kuaishou => {
            (id.clone(), WorkIds { photo_id: Some(id.clone()), work_id: Some(id), ..Default::default() })
        }
        Platform::Weibo => (id.clone(), WorkIds { work_id: Some(id), ..Default::default() }),
    })
}

/// A douyin creator may be saved under its profile link
/// (`https://www.douyin.com/user/<sec_uid>?…`); the key is the sec_uid.
fn strip_profile_link(id: String) -> String {
    match id.split_once("/user/") {
        Some((_, rest)) => rest.split(['?', '/', '#']).next().unwrap_or_default().to_owned(),
        None => id,
    }
}

/// The account a row's author columns describe, or `None` without a key.
/// A platform key (`user_id`, douyin `sec_uid`; older exports) wins; else
/// `creator_hash` (current exports) keys an **anonymous** account: the hash
/// is its `platform_id`, it has no platform id forms (the hash is none) and
/// its nickname is the masked one as written (`露*达人`). An anonymous
/// account never merges with a keyed one: the export gives no link.
fn account(platform: Platform, f: &Fields) -> Option<Account> {
    let (key, ids) = match f.first_text(layout(platform).account_key) {
        Some(key) => {
            let key = strip_profile_link(key);
            let ids = platform_ids(platform, f, &key);
            (key, ids)
        }
        None => (f.text(CREATOR_HASH)?, AccountIds::default()),
    };
    Some(Account {
        platform: platform.token().into(),
        platform_id: key,
        ids,
        nickname: f.text("nickname").unwrap_or_default(),
        signature: f.first_text(&["user_signature"]),
        region: f.text("ip_location"),
        avatar: f.text("avatar"),
        ..Default::default()
    })
}

/// The id forms of the account keyed `key` (a platform key) on `platform`.
fn platform_ids(platform: Platform, f: &Fields, key: &str) -> AccountIds {
    let key = key.to_owned();
    let user_id = f.text("user_id").map(strip_profile_link);
    match platform {
        Platform::Xhs | Platform::Kuaishou => AccountIds { account_id: Some(key), ..Default::default() },
        Platform::Douyin => {
            let unique_id = f.text("user_unique_id");
            AccountIds {
                account_id: unique_id.clone().or_else(|| f.id("short_user_id")),
                uid: user_id.filter(|uid| *uid != key),
                sec_uid: Some(key.clone()),
                unique_id,
                ..Default::default()
            }
        }
        Platform::Bilibili => AccountIds { mid: Some(key), ..Default::default() },
        Platform::Weibo => AccountIds { uid: Some(key), ..Default::default() },
    }
}

/// What the platform's type column says, in the store's words.
fn work_type(platform: Platform, raw: Option<String>) -> Option<String> {
    let kind = match (platform, raw.as_deref()) {
        (Platform::Xhs, Some("normal")) | (Platform::Douyin, Some("68")) => "note",
        (Platform::Xhs, Some(other)) => return Some(other.to_owned()),
        (Platform::Weibo, _) => "post",
        _ => "video",
    };
    Some(kind.into())
}

fn content(platform: Platform, f: &Fields, captured_at: DateTime<Utc>) -> Result<Vec<Record>, String> {
    let l = layout(platform);
    let (platform_id, ids) = work_key(platform, l.work_id, f)?;
    let title = f.text(l.title).unwrap_or_default();
    let description = l.description.and_then(|d| f.text(d)).filter(|d| *d != title);
    let author = account(platform, f);
    let mut extra = serde_json::Map::new();
    for (key, column) in l.extra {
        if let Some(v) = f.count(column)? {
            extra.insert((*key).into(), v.into());
        }
    }
    let work = Work {
        platform: platform.token().into(),
        platform_id: platform_id.clone(),
        ids,
        title,
        description,
        author_id: author.as_ref().map(|a| a.platform_id.clone()),
        published_at: f.first_time(l.published)?,
        url: l.url.and_then(|u| f.text(u)),
        cover: l.cover.and_then(|c| f.first_url(c)),
        video_url: l.video_url.and_then(|v| f.first_url(v)),
        work_type: work_type(platform, l.work_type.and_then(|t| f.text(t))),
        category: None,
        tags: l.tags.map(|t| f.list(t)).unwrap_or_default(),
        duration_secs: None,
    };
    let snapshot = WorkSnapshot {
        captured_at,
        likes: f.count_opt(l.likes)?,
        collects: f.count_opt(l.collects)?,
        comments: f.count_opt(l.comments)?,
        shares: f.count_opt(l.shares)?,
        views: f.count_opt(l.views)?,
        watch: None,
        extra: (!extra.is_empty()).then_some(Value::Object(extra)),
    };
    let mut out = Vec::with_capacity(3);
    out.extend(author.map(Record::Account));
    out.push(Record::Work(work));
    out.push(Record::WorkSnapshot { platform: platform.token().into(), platform_id, snapshot });
    Ok(out)
}

fn comment(platform: Platform, f: &Fields) -> Result<Comment, String> {
    let l = layout(platform);
    let platform_id = f.required("comment_id")?;
    let (work_id, _) = work_key(platform, l.comment_work_id, f)?;
    let author = account(platform, f);
    Ok(Comment {
        platform: platform.token().into(),
        work_id,
        text: f.text("content").unwrap_or_default(),
        likes: f.count_opt(l.comment_likes)?,
        author_id: author.as_ref().map(|a| a.platform_id.clone()),
        author_name: f.text("nickname"),
        published_at: f.first_time(l.comment_time)?,
        parent_id: f.id("parent_comment_id").filter(|p| *p != platform_id),
        platform_id,
    })
}

fn creator(platform: Platform, f: &Fields, captured_at: DateTime<Utc>) -> Result<Vec<Record>, String> {
    let l = layout(platform);
    let mut account = account(platform, f).ok_or("user_id (or creator_hash) is missing")?;
    let fans = f.count(l.fans)?;
    let likes = f.count_opt(l.creator_likes)?;
    let works = f.count_opt(l.creator_works)?;
    account.signature = f.first_text(l.signature);
    account.fans = fans;
    account.following = f.count_opt(l.following)?;
    account.likes = likes;
    account.works = works;
    let snapshot = AccountSnapshot { captured_at, fans, likes, works, reads: None };
    let key = account.platform_id.clone();
    Ok(vec![
        Record::Account(account),
        Record::AccountSnapshot { platform: platform.token().into(), platform_id: key, snapshot },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn row(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn douyin_accounts_are_keyed_by_sec_uid_even_from_a_profile_link() {
        let at = Utc.with_ymd_and_hms(2024, 6, 1, 0, 0, 0).unwrap();
        let creator = row(serde_json::json!({
            "user_id": "https://www.douyin.com/user/MS4wLjABAAAAx?from_tab_name=main",
            "nickname": "甲", "fans": "1.2万", "interaction": "3亿", "videos_count": 12, "follows": "5",
        }));
        let out = records(Platform::Douyin, Kind::Creators, &creator, at).unwrap();
        let Record::Account(a) = &out[0] else { panic!("{out:?}") };
        assert_eq!((a.platform.as_str(), a.platform_id.as_str()), ("shortvideo", "MS4wLjABAAAAx"));
        assert_eq!((a.fans, a.likes, a.works, a.following), (Some(12_000), Some(300_000_000), Some(12), Some(5)));
        let content = row(serde_json::json!({"aweme_id": "7", "user_id": "99", "sec_uid": "MS4wLjABAAAAx"}));
        let out = records(Platform::Douyin, Kind::Contents, &content, at).unwrap();
        let Record::Account(a) = &out[0] else { panic!("{out:?}") };
        assert_eq!(a.platform_id, "MS4wLjABAAAAx");
        assert_eq!(a.ids.uid.as_deref(), Some("99"));
        let Record::Work(w) = &out[1] else { panic!("{out:?}") };
        assert_eq!(w.author_id.as_deref(), Some("MS4wLjABAAAAx"));
    }

    #[test]
    fn bilibili_aids_become_bvids_and_bad_ids_are_refused() {
        let at = Utc::now();
        let video = row(serde_json::json!({"video_id": "535243818", "user_id": "927587", "title": "t"}));
        let out = records(Platform::Bilibili, Kind::Contents, &video, at).unwrap();
        let Record::Work(w) = &out[1] else { panic!("{out:?}") };
        assert_eq!(w.platform_id, "BV1cM41197ui");
        assert_eq!(w.ids.work_id.as_deref(), Some("535243818"));
        let comment = row(serde_json::json!({"comment_id": "1", "video_id": 535243818, "parent_comment_id": "0"}));
        let out = records(Platform::Bilibili, Kind::Comments, &comment, at).unwrap();
        let Record::Comment(c) = &out[0] else { panic!("{out:?}") };
        assert_eq!((c.work_id.as_str(), c.parent_id.as_deref()), ("BV1cM41197ui", None));
        let bad = row(serde_json::json!({"video_id": "av-1"}));
        assert!(records(Platform::Bilibili, Kind::Contents, &bad, at).unwrap_err().contains("video_id"));
        let no_id = row(serde_json::json!({"title": "t"}));
        assert_eq!(records(Platform::Xhs, Kind::Contents, &no_id, at).unwrap_err(), "note_id is missing");
    }
}
