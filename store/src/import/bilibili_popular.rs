//! `bilibili-popular`: the archived replies of Bilibili's popular feed
//! (`api.bilibili.com/x/web-interface/popular`), one file per day, laid out
//! as `<YYYY-MM-DD>/list.json` (shared data README, `works/bilibili/`):
//! `{"number": n, "list": [video, …]}`.
//!
//! Each video becomes, on the `videosite` platform:
//! - a work keyed by `bvid` (`bvId`; `aid` as `workId`), with title, `desc`,
//!   author `owner.mid`, `pubdate` (epoch seconds → UTC), canonical URL,
//!   cover `pic`, category `tname`, duration (s);
//! - a work snapshot: like, favorite → collects, reply → comments, share,
//!   view; `coin`, `danmaku`, `his_rank`, `now_rank` in `extra`;
//! - an account keyed by `owner.mid` (nickname, avatar, fans = `follower`)
//!   and an account snapshot of its fans.
//!
//! Snapshots are taken at the file's date (the last `YYYY-MM-DD` in its
//! path) at 00:00 Asia/Shanghai: the feed was collected once a day at an
//! unrecorded hour.

use std::path::Path;

use chrono::{DateTime, NaiveDate, NaiveTime, TimeZone, Utc};
use serde::Deserialize;

use super::{ImportReport, RowWriter};
use crate::ContentStore;
use crate::clock::shanghai_to_utc;
use crate::model::{Account, AccountIds, AccountSnapshot, Record, Work, WorkIds, WorkSnapshot};

/// The platform token the feed belongs to.
pub const PLATFORM: &str = "videosite";

#[derive(Deserialize)]
struct Feed {
    list: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct Video {
    bvid: String,
    aid: Option<i64>,
    title: String,
    desc: Option<String>,
    tname: Option<String>,
    pubdate: Option<i64>,
    duration: Option<i64>,
    pic: Option<String>,
    owner: Owner,
    stat: Stat,
}

#[derive(Deserialize)]
struct Owner {
    mid: i64,
    name: Option<String>,
    face: Option<String>,
    follower: Option<i64>,
}

#[derive(Deserialize)]
struct Stat {
    view: Option<i64>,
    danmaku: Option<i64>,
    reply: Option<i64>,
    favorite: Option<i64>,
    coin: Option<i64>,
    share: Option<i64>,
    like: Option<i64>,
    now_rank: Option<i64>,
    his_rank: Option<i64>,
}

/// When a file's snapshots were taken: its path's last `YYYY-MM-DD`
/// component at 00:00 Asia/Shanghai, in UTC.
pub fn captured_at(path: &Path) -> Option<DateTime<Utc>> {
    path.iter().rev().find_map(|part| {
        let part = part.to_str()?;
        let stem = part.strip_suffix(".json").unwrap_or(part);
        let date = NaiveDate::parse_from_str(stem, "%Y-%m-%d").ok()?;
        Some(shanghai_to_utc(date, NaiveTime::MIN))
    })
}

/// The records of one video: account, account snapshot, work, work
/// snapshot, in the order a batch needs them.
fn records(value: serde_json::Value, captured_at: DateTime<Utc>) -> Result<Vec<Record>, String> {
    let video: Video = serde_path_to_error::deserialize(value).map_err(|e| format!("{}: {}", e.path(), e.inner()))?;
    if video.bvid.trim().is_empty() {
        return Err("bvid is empty".into());
    }
    let published_at = match video.pubdate {
        Some(secs) => Some(Utc.timestamp_opt(secs, 0).single().ok_or(format!("pubdate {secs} is not a time"))?),
        None => None,
    };
    let mid = video.owner.mid.to_string();
    let stat = &video.stat;
    let extra = serde_json::json!({
        "coin": stat.coin, "danmaku": stat.danmaku, "hisRank": stat.his_rank, "nowRank": stat.now_rank,
    });
    let work = Work {
        platform: PLATFORM.into(),
        platform_id: video.bvid.clone(),
        ids: WorkIds {
            bv_id: Some(video.bvid.clone()),
            work_id: video.aid.map(|a| a.to_string()),
            ..Default::default()
        },
        title: video.title,
        description: video.desc.filter(|d| !d.trim().is_empty() && d != "-"),
        author_id: Some(mid.clone()),
        published_at,
        url: Some(format!("https://www.bilibili.com/video/{}", video.bvid)),
        cover: video.pic,
        video_url: None,
        work_type: Some("video".into()),
        category: video.tname,
        tags: Vec::new(),
        duration_secs: video.duration,
    };
    let work_snapshot = WorkSnapshot {
        captured_at,
        likes: stat.like,
        collects: stat.favorite,
        comments: stat.reply,
        shares: stat.share,
        views: stat.view,
        watch: None,
        extra: Some(extra),
    };
    let account = Account {
        platform: PLATFORM.into(),
        platform_id: mid.clone(),
        ids: AccountIds { mid: Some(mid.clone()), ..Default::default() },
        nickname: video.owner.name.unwrap_or_default(),
        fans: video.owner.follower,
        avatar: video.owner.face,
        ..Default::default()
    };
    let account_snapshot = AccountSnapshot { captured_at, fans: video.owner.follower, ..Default::default() };
    let bvid = work.platform_id.clone();
    Ok(vec![
        Record::Account(account),
        Record::AccountSnapshot { platform: PLATFORM.into(), platform_id: mid, snapshot: account_snapshot },
        Record::Work(work),
        Record::WorkSnapshot { platform: PLATFORM.into(), platform_id: bvid, snapshot: work_snapshot },
    ])
}

/// The rows of one file, read without writing: how many there are, for a
/// progress bar. A file that cannot be read is an error naming the file.
pub fn count_rows(path: &Path) -> Result<u64, String> {
    read_feed(path).map(|feed| feed.list.len() as u64)
}

fn read_feed(path: &Path) -> Result<Feed, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("not a popular-feed reply ({{\"list\": [...]}}): {e}"))
}

/// Imports one file; `on_row` is called once per row (for progress).
/// A file that cannot be read or dated is one rejection with row 0.
pub async fn import_file(store: &dyn ContentStore, path: &Path, on_row: &mut dyn FnMut()) -> ImportReport {
    let mut writer = RowWriter::new(store, path, on_row);
    let read = captured_at(path)
        .ok_or_else(|| "no YYYY-MM-DD in the path to date the snapshots".to_owned())
        .and_then(|at| Ok((at, read_feed(path)?)));
    match read {
        Ok((captured_at, feed)) => {
            for (index, value) in feed.list.into_iter().enumerate() {
                writer.row(index as u64 + 1, records(value, captured_at)).await;
            }
        }
        Err(reason) => writer.refuse_file(reason),
    }
    writer.finish().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_dated_by_their_directory_in_shanghai_time() {
        let t = captured_at(Path::new("/data/works/bilibili/2023-10-27/list.json")).unwrap();
        assert_eq!(t.to_rfc3339(), "2023-10-26T16:00:00+00:00");
        assert!(captured_at(Path::new("/data/list.json")).is_none());
        assert!(captured_at(Path::new("2023-10-26.json")).is_some());
    }

    #[test]
    fn rows_with_missing_or_mistyped_fields_are_refused_with_a_reason() {
        let at = Utc::now();
        let ok = serde_json::json!({"bvid": "BV1", "title": "t", "owner": {"mid": 1}, "stat": {"like": 3}});
        let r = records(ok, at).unwrap();
        let [
            Record::Account(account),
            Record::AccountSnapshot { .. },
            Record::Work(work),
            Record::WorkSnapshot { snapshot, .. },
        ] = r.as_slice()
        else {
            panic!("{r:?}")
        };
        assert_eq!((work.platform_id.as_str(), account.platform_id.as_str()), ("BV1", "1"));
        assert_eq!(snapshot.likes, Some(3));
        let no_bvid = serde_json::json!({"title": "t", "owner": {"mid": 1}, "stat": {}});
        assert!(records(no_bvid, at).unwrap_err().contains("bvid"));
        let bad_like = serde_json::json!({"bvid": "BV1", "title": "t", "owner": {"mid": 1}, "stat": {"like": "many"}});
        assert!(records(bad_like, at).is_err());
    }
}
