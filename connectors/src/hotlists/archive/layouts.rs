//! The archive layouts of `shared/data/hotlists/` (its README), each read
//! into snapshots of [`Item`]s: one snapshot per capture moment, with the
//! 1-based row in the file of every item.
//!
//! | layout | file | snapshot(s) | rank |
//! |---|---|---|---|
//! | [`weibo_hourly`] | `weibo/<date>/<HH>.json`, crawler array | `<date> HH:00` | `band_rank` in `url`; pinned (no `band_rank`) and ads after |
//! | [`daily_union`] | `<bilibili\|douyin\|kuaishou>/<date>.json`, `[{url, title}]` | `<date> 23:59:59` | position in the file |
//! | [`toutiao_union`] | `toutiao/<date>.json`, `[{Title, Url}]` | each item at its first sighting (`hot_board_impr_id`) | `rank=` in `Url` |
//! | raw replies | `zhihu/hot-question-<date>.json`, `baidu/<date>/hot-search.json` | the reply's own time | list order ([`crate::hotlists::parse`]) |
//!
//! Times are Asia/Shanghai (the crawlers ran with `TZ=Asia/Shanghai`).

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use serde_json::{Map, Value};

use crate::hotlists::parse::{Item, ParseError, Placement, count, text, weibo};
use mediaops_store::clock::shanghai_to_utc;

/// Items captured at one moment, with each item's 1-based row in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The moment the snapshot is dated (the file's stated time, else the
    /// end of its Shanghai day).
    pub captured_at: DateTime<Utc>,
    /// `(row, item)`: the item and its 1-based row in the file, in list order.
    pub items: Vec<(u64, Item)>,
}

/// The last second of `date` in Asia/Shanghai: when a daily file's
/// snapshot is dated if the file states no better time.
pub fn end_of_day(date: NaiveDate) -> DateTime<Utc> {
    shanghai_to_utc(date, NaiveTime::from_hms_opt(23, 59, 59).unwrap_or_default())
}

fn array(body: &str) -> Result<Vec<Value>, ParseError> {
    match crate::hotlists::parse::json(body)? {
        Value::Array(items) => Ok(items),
        _ => Err(ParseError::Shape("not a JSON array".into())),
    }
}

/// `text` with `%XX` escapes decoded once (invalid escapes kept as they are).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) =
                (bytes.get(i + 1).and_then(|b| hex(*b)), bytes.get(i + 2).and_then(|b| hex(*b)))
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The digits after `key=` in `text` (the first occurrence).
fn number_after(text: &str, key: &str) -> Option<String> {
    text.match_indices(key).find_map(|(i, _)| {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        let digits: String = text[i + key.len()..].chars().take_while(char::is_ascii_digit).collect();
        (!digits.is_empty()).then_some(digits)
    })
}

/// A Weibo hourly file (`weibo-trending-hot-history`): a JSON array of
/// `{title, category, description, url, hot, ads, readCount, discussCount,
/// origin}`, sorted by `hot`, so the rank is read from `band_rank` inside
/// the `url` (percent-encoded in its `extparam`). The crawler's copy of the
/// pinned entry carries no `band_rank` and becomes pinned; `ads: true`
/// items are ads. `hot` 0 (the pinned entry, ads) is unknown. The url is
/// the search page of the title, as the live parser builds it. `extra`:
/// `category`, `description`, `readCount`, `discussCount`, `origin`.
///
/// # Errors
/// Not a JSON array.
pub fn weibo_hourly(body: &str, captured_at: DateTime<Utc>) -> Result<Vec<Snapshot>, ParseError> {
    let items = array(body)?
        .iter()
        .enumerate()
        .map(|(index, value)| {
            let url = text(value, &["url"]).map(|u| percent_decode(&u));
            let band_rank = url.as_deref().and_then(|u| number_after(u, "band_rank=")).and_then(|r| r.parse().ok());
            let placement = if value.get("ads").and_then(Value::as_bool) == Some(true) {
                Placement::Ad
            } else if band_rank.is_none() {
                Placement::Pinned
            } else {
                Placement::Ranked
            };
            let mut extra = Map::new();
            crate::hotlists::parse::copy_extra(
                &mut extra,
                value,
                &[
                    ("category", &["category"]),
                    ("description", &["description"]),
                    ("readCount", &["readCount"]),
                    ("discussCount", &["discussCount"]),
                    ("origin", &["origin"]),
                ],
            );
            let title = text(value, &["title"]);
            let item = Item {
                url: title.as_deref().map(weibo::search_url),
                title,
                title_fields: "title",
                rank: band_rank,
                hot_value: count(value, &["hot"]).filter(|h| *h > 0),
                extra,
                placement,
            };
            (index as u64 + 1, item)
        })
        .collect();
    Ok(vec![Snapshot { captured_at, items }])
}

/// A daily union (`website-hot-hub`: Bilibili, Douyin, Kuaishou): a JSON
/// array of `{url, title}`, everything seen on the board that day in
/// first-seen order. It is **not one ranking**: each item becomes an entry
/// of one snapshot at the day's end ([`end_of_day`]) with rank = its
/// position in the file and `extra.dailyUnion = true`; there is no hot
/// value. Bilibili's `https://b23.tv/<BV id>` becomes
/// `https://www.bilibili.com/video/<BV id>` (with `extra.bvid`).
///
/// # Errors
/// Not a JSON array.
pub fn daily_union(body: &str, date: NaiveDate) -> Result<Vec<Snapshot>, ParseError> {
    let items = array(body)?
        .iter()
        .enumerate()
        .map(|(index, value)| {
            let mut extra = Map::new();
            extra.insert("dailyUnion".into(), Value::Bool(true));
            let mut url = text(value, &["url"]);
            if let Some(bvid) =
                url.as_deref().and_then(|u| u.strip_prefix("https://b23.tv/")).filter(|id| id.starts_with("BV"))
            {
                extra.insert("bvid".into(), Value::String(bvid.to_owned()));
                url = Some(format!("https://www.bilibili.com/video/{bvid}"));
            }
            let row = index as u64 + 1;
            let item = Item {
                title: text(value, &["title"]),
                title_fields: "title",
                rank: Some(row as i64),
                url,
                extra,
                ..Item::default()
            };
            (row, item)
        })
        .collect();
    Ok(vec![Snapshot { captured_at: end_of_day(date), items }])
}

/// A Toutiao daily file (`toutiao-trending-hout-search`): a JSON array of
/// `{Title, Url}`, the union of the day's hourly crawls de-duplicated by
/// title. The board rank at first sighting is `rank=<n>` in `Url` and the
/// board's impression time the first 14 digits of `hot_board_impr_id`
/// (`20220619173536…`, Asia/Shanghai), so each item is an entry of the
/// snapshot taken at that moment, ranked `n`: the snapshots are the hourly
/// boards, each holding the items first seen in it. Items without either
/// (links to Xigua live rooms, 50 in the archive) are captured at the day's
/// end, ranked by position in the file, with `extra.unranked = true`. The
/// url becomes `https://www.toutiao.com/trending/{hot_board_cluster_id}/`
/// when the cluster id is in `Url` (the live parser's form), else `Url`.
///
/// # Errors
/// Not a JSON array.
pub fn toutiao_union(body: &str, date: NaiveDate) -> Result<Vec<Snapshot>, ParseError> {
    let mut snapshots: BTreeMap<DateTime<Utc>, Vec<(u64, Item)>> = BTreeMap::new();
    for (index, value) in array(body)?.iter().enumerate() {
        let row = index as u64 + 1;
        let raw = text(value, &["Url"]);
        let decoded = raw.as_deref().map(percent_decode).unwrap_or_default();
        let rank = number_after(&decoded, "rank=").and_then(|r| r.parse::<i64>().ok());
        let seen = number_after(&decoded, "\"hot_board_impr_id\":\"")
            .filter(|digits| digits.len() >= 14)
            .and_then(|digits| NaiveDateTime::parse_from_str(&digits[..14], "%Y%m%d%H%M%S").ok())
            .filter(|t| t.date() == date)
            .map(|t| shanghai_to_utc(t.date(), t.time()));
        let cluster = number_after(&decoded, "\"hot_board_cluster_id\":\"");
        let mut extra = Map::new();
        if let Some(id) = &cluster {
            extra.insert("clusterId".into(), Value::String(id.clone()));
        }
        let (captured_at, rank) = match (seen, rank) {
            (Some(seen), Some(rank)) => (seen, rank),
            _ => {
                extra.insert("unranked".into(), Value::Bool(true));
                (end_of_day(date), row as i64)
            }
        };
        let item = Item {
            title: text(value, &["Title"]),
            title_fields: "Title",
            rank: Some(rank),
            url: cluster.map(|id| format!("https://www.toutiao.com/trending/{id}/")).or(raw),
            extra,
            ..Item::default()
        };
        snapshots.entry(captured_at).or_default().push((row, item));
    }
    Ok(snapshots.into_iter().map(|(captured_at, items)| Snapshot { captured_at, items }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date() -> NaiveDate {
        NaiveDate::from_ymd_opt(2022, 6, 19).unwrap()
    }

    #[test]
    fn weibo_ranks_come_from_band_rank_and_the_rest_follow() {
        let body = r#"[
          {"title":"b","url":"https://m.weibo.cn/search?extparam=seat%3D1%26realpos%3D2%26band_rank%3D2%26cate%3D5001","hot":900,"ads":false,"category":"社会"},
          {"title":"a","url":"https://m.weibo.cn/search?extparam=seat%3D1%26band_rank%3D1","hot":800,"ads":false,"readCount":5},
          {"title":"广告","url":"https://m.weibo.cn/search?extparam=band_rank%3D1","hot":0,"ads":true},
          {"title":"置顶","url":"https://m.weibo.cn/search?extparam=seat%3D1","hot":0,"ads":false}
        ]"#;
        let at = Utc::now();
        let snapshots = weibo_hourly(body, at).unwrap();
        let items = &snapshots[0].items;
        assert_eq!(items.iter().map(|(_, i)| i.rank).collect::<Vec<_>>(), [Some(2), Some(1), Some(1), None]);
        assert_eq!(items[2].1.placement, Placement::Ad);
        assert_eq!(items[3].1.placement, Placement::Pinned);
        assert_eq!((items[0].1.hot_value, items[3].1.hot_value), (Some(900), None));
        assert_eq!(items[1].1.url.as_deref(), Some("https://s.weibo.com/weibo?q=a"));
        assert_eq!(items[1].1.extra["readCount"], 5);
    }

    #[test]
    fn daily_unions_rank_by_position_at_the_days_end() {
        let body = r#"[{"url":"https://b23.tv/BV1Qw4m1U7q3","title":"《坦克模拟器2》"},{"url":"https://www.douyin.com/hot/1","title":"x"}]"#;
        let snapshots = daily_union(body, date()).unwrap();
        assert_eq!(snapshots[0].captured_at.to_rfc3339(), "2022-06-19T15:59:59+00:00");
        let first = &snapshots[0].items[0].1;
        assert_eq!((first.rank, first.url.as_deref()), (Some(1), Some("https://www.bilibili.com/video/BV1Qw4m1U7q3")));
        assert_eq!(first.extra["bvid"], "BV1Qw4m1U7q3");
        assert_eq!(snapshots[0].items[1].1.rank, Some(2));
        assert!(daily_union("{}", date()).is_err());
    }

    #[test]
    fn toutiao_items_are_captured_at_their_first_sighting() {
        let url = |rank: u32, at: &str| {
            format!(
                "https://www.toutiao.com/amos_land_page/?category_name=topic_innerflow&log_pb=%7B%22hot_board_cluster_id%22%3A%227110213463787929615%22%2C%22hot_board_impr_id%22%3A%22{at}0102121520280444C6A2%22%7D&rank={rank}&style_id=40132"
            )
        };
        let body = serde_json::json!([
            {"Title": "a", "Url": url(1, "20220619173536")},
            {"Title": "b", "Url": url(1, "20220619183501")},
            {"Title": "c", "Url": url(7, "20220619173536")},
            {"Title": "直播", "Url": "https://live.ixigua.com/room/7110823122055564039"},
            {"Title": "前一天", "Url": url(3, "20220618235959")}
        ])
        .to_string();
        let snapshots = toutiao_union(&body, date()).unwrap();
        let times: Vec<String> = snapshots.iter().map(|s| s.captured_at.to_rfc3339()).collect();
        assert_eq!(times, ["2022-06-19T09:35:36+00:00", "2022-06-19T10:35:01+00:00", "2022-06-19T15:59:59+00:00"]);
        let rows = |i: usize| snapshots[i].items.iter().map(|(row, item)| (*row, item.rank)).collect::<Vec<_>>();
        assert_eq!(rows(0), [(1, Some(1)), (3, Some(7))]);
        assert_eq!(rows(1), [(2, Some(1))]);
        assert_eq!(rows(2), [(4, Some(4)), (5, Some(5))], "no time or rank: the day's end, by position");
        let first = &snapshots[0].items[0].1;
        assert_eq!(first.url.as_deref(), Some("https://www.toutiao.com/trending/7110213463787929615/"));
        assert_eq!(snapshots[2].items[0].1.extra["unranked"], true);
        assert_eq!(snapshots[2].items[0].1.url.as_deref(), Some("https://live.ixigua.com/room/7110823122055564039"));
    }

    #[test]
    fn percent_decoding_and_number_lookup() {
        assert_eq!(percent_decode("a%3Db%26c%E4%B8%AD%zz"), "a=b&c中%zz");
        assert_eq!(number_after("x_rank=3&rank=5", "rank=").as_deref(), Some("5"));
        assert_eq!(number_after("band_rank=12&", "band_rank=").as_deref(), Some("12"));
        assert_eq!(number_after("rank=&", "rank="), None);
    }
}
