//! Bilibili (HOTLISTS.md), two reply shapes, told apart by where the list is:
//! - ranking `GET https://api.bilibili.com/x/web-interface/ranking/v2?rid=0&type=all`
//!   (also the popular feed `/x/web-interface/popular`): `data.list[]`,
//!   title `title`, hot value `stat.view`, url
//!   `https://www.bilibili.com/video/{bvid}` (fallback `short_link_v2`);
//!   `extra`: `bvid`, `owner` (`owner.name`), `pubdate`, `pic`, `likes`
//!   (`stat.like`), `danmaku`, `rcmdReason`;
//! - hot search `GET https://s.search.bilibili.com/main/hotword?limit=30`:
//!   `list[]`, title `keyword` (fallback `show_name`), hot value
//!   `heat_score`, url the search page `https://search.bilibili.com/all?keyword=…`.

use serde_json::{Map, Value};

use super::{Item, ParseError, Placement, Reply, copy_extra, count, encode_query_value, first_text, text};

fn video(value: &Value) -> Item {
    let mut extra = Map::new();
    copy_extra(
        &mut extra,
        value,
        &[
            ("bvid", &["bvid"]),
            ("owner", &["owner", "name"]),
            ("pubdate", &["pubdate"]),
            ("pic", &["pic"]),
            ("likes", &["stat", "like"]),
            ("danmaku", &["stat", "danmaku"]),
            ("rcmdReason", &["rcmd_reason", "content"]),
        ],
    );
    let url = text(value, &["bvid"])
        .map(|bvid| format!("https://www.bilibili.com/video/{bvid}"))
        .or_else(|| text(value, &["short_link_v2"]));
    Item {
        title: text(value, &["title"]),
        title_fields: "title",
        hot_value: count(value, &["stat", "view"]),
        url,
        extra,
        placement: Placement::Ranked,
        rank: None,
    }
}

fn hotword(value: &Value) -> Item {
    let title = first_text(value, &[&["keyword"], &["show_name"]]);
    let mut extra = Map::new();
    copy_extra(&mut extra, value, &[("showName", &["show_name"]), ("icon", &["icon"])]);
    Item {
        url: title.as_deref().map(|k| format!("https://search.bilibili.com/all?keyword={}", encode_query_value(k))),
        title,
        title_fields: "keyword, show_name",
        hot_value: count(value, &["heat_score"]),
        extra,
        placement: Placement::Ranked,
        rank: None,
    }
}

/// Reads the items of a ranking/popular reply or a hot-search reply.
///
/// # Errors
/// Not JSON, or neither `data.list` nor `list` is a list.
pub fn read(body: &str) -> Result<Reply, ParseError> {
    let reply = super::json(body)?;
    let items = if let Ok(list) = super::list_at(&reply, &["data", "list"]) {
        list.iter().map(video).collect()
    } else if let Ok(list) = super::list_at(&reply, &["list"]) {
        list.iter().map(hotword).collect()
    } else {
        return Err(ParseError::Shape("no list at `data.list` (ranking) or `list` (hot search)".into()));
    };
    Ok(Reply { items, reported_at: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hotlists::Source;
    use crate::hotlists::parse::parse as parse_reply;
    use chrono::{DateTime, Utc};

    fn parse(body: &str, at: DateTime<Utc>) -> Result<crate::hotlists::parse::Parsed, ParseError> {
        parse_reply(Source::Bilibili, body, at)
    }

    #[test]
    fn ranking_videos() {
        let body = r#"{"code":0,"data":{"note":"…","list":[
            {"bvid":"BV1cM41197ui","title":"《史记》原文全解读","pic":"http://i0.hdslb.com/a.jpg","pubdate":1698319490,
             "owner":{"mid":927587,"name":"木鱼水心"},"stat":{"view":2022003,"like":377747,"danmaku":11186}},
            {"title":"只有短链","short_link_v2":"https://b23.tv/BV1x","stat":{}},
            {"bvid":"BV1y"}
        ]}}"#;
        let parsed = parse(body, Utc::now()).unwrap();
        assert_eq!(parsed.entries.len(), 2);
        let first = &parsed.entries[0];
        assert_eq!((first.rank, first.hot_value), (1, Some(2_022_003)));
        assert_eq!(first.url.as_deref(), Some("https://www.bilibili.com/video/BV1cM41197ui"));
        let extra = first.extra.as_ref().unwrap();
        assert_eq!((extra["owner"].as_str(), extra["likes"].as_i64()), (Some("木鱼水心"), Some(377_747)));
        assert_eq!(parsed.entries[1].url.as_deref(), Some("https://b23.tv/BV1x"));
        assert_eq!(parsed.entries[1].hot_value, None);
        assert_eq!(parsed.skipped[0].position, 3);
    }

    #[test]
    fn hot_search_words() {
        let body = r#"{"code":0,"list":[{"keyword":"原神","show_name":"原神新版本","heat_score":2345678},{"show_name":"只有展示名"}]}"#;
        let parsed = parse(body, Utc::now()).unwrap();
        let got: Vec<(&str, Option<i64>)> = parsed.entries.iter().map(|e| (e.title.as_str(), e.hot_value)).collect();
        assert_eq!(got, [("原神", Some(2_345_678)), ("只有展示名", None)]);
        assert_eq!(
            parsed.entries[0].url.as_deref(),
            Some("https://search.bilibili.com/all?keyword=%E5%8E%9F%E7%A5%9E")
        );
        assert!(matches!(parse(r#"{"code":-352,"message":"风控"}"#, Utc::now()), Err(ParseError::Shape(_))));
    }
}
