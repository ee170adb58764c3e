//! Zhihu hot list: `GET https://api.zhihu.com/topstory/hot-lists/total?limit=50`
//! (HOTLISTS.md). Items at `data[]`, in two shapes, each field read from
//! whichever is present:
//!
//! | field | HOTLISTS.md shape | archived reply shape (shared data README) |
//! |---|---|---|
//! | title | `target.title` | `target.title_area.text` |
//! | hot value | `detail_text` (`924 万热度` → 9,240,000) | `target.metrics_area.text` |
//! | question url | `target.url` (`…/questions/{id}`) | `target.link.url` |
//! | excerpt | `target.excerpt` | `target.excerpt_area.text` |
//! | thumbnail | `children[0].thumbnail` | `target.image_area.url` |
//! | answers | `target.answer_count` | `feed_specific.answer_count` |
//!
//! The url is `https://www.zhihu.com/question/{id}`, `id` the last path
//! segment of the question url. `extra`: `questionId`, `excerpt`,
//! `thumbnail`, `answerCount`, `cardLabel` (`card_label.type`). The reply
//! time ([`super::Reply::reported_at`]) is the epoch in `data[].id`
//! (`0_1718032203.722846`), when there is one.

use chrono::{DateTime, TimeZone, Utc};
use serde_json::{Map, Value};

use super::{Item, ParseError, Placement, Reply, copy_extra, count, first_text, last_segment, text};

fn item(value: &Value) -> Item {
    let question_id = first_text(value, &[&["target", "url"], &["target", "link", "url"]])
        .and_then(|url| last_segment(&url).map(str::to_owned))
        .filter(|id| id.bytes().all(|b| b.is_ascii_digit()))
        .or_else(|| text(value, &["target", "id"]));
    let mut extra = Map::new();
    if let Some(id) = &question_id {
        extra.insert("questionId".into(), Value::String(id.clone()));
    }
    let excerpt = first_text(value, &[&["target", "excerpt"], &["target", "excerpt_area", "text"]]);
    let thumbnail = first_text(value, &[&["children", "0", "thumbnail"], &["target", "image_area", "url"]]);
    for (name, v) in [("excerpt", excerpt), ("thumbnail", thumbnail)] {
        if let Some(v) = v {
            extra.insert(name.into(), Value::String(v));
        }
    }
    if let Some(n) =
        count(value, &["target", "answer_count"]).or_else(|| count(value, &["feed_specific", "answer_count"]))
    {
        extra.insert("answerCount".into(), n.into());
    }
    copy_extra(&mut extra, value, &[("cardLabel", &["card_label", "type"])]);
    let hot_text = first_text(value, &[&["detail_text"], &["target", "metrics_area", "text"]]);
    Item {
        title: first_text(value, &[&["target", "title"], &["target", "title_area", "text"]]),
        title_fields: "target.title, target.title_area.text",
        hot_value: hot_text.as_deref().and_then(mediaops_store::chinese_count::parse_count),
        url: question_id.map(|id| format!("https://www.zhihu.com/question/{id}")),
        extra,
        placement: Placement::Ranked,
        rank: None,
    }
}

/// The crawl epoch in an item id such as `0_1718032203.722846`.
fn id_epoch(value: &Value) -> Option<DateTime<Utc>> {
    let id = text(value, &["id"])?;
    let secs = id.split_once('_')?.1.split('.').next()?.parse::<i64>().ok()?;
    Utc.timestamp_opt(secs, 0).single()
}

/// Reads the items of a hot-list reply.
///
/// # Errors
/// Not JSON, or no `data` list.
pub fn read(body: &str) -> Result<Reply, ParseError> {
    let reply = super::json(body)?;
    let list = super::list_at(&reply, &["data"])?;
    let reported_at = list.iter().find_map(id_epoch);
    Ok(Reply { items: list.iter().map(item).collect(), reported_at })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hotlists::Source;
    use crate::hotlists::parse::parse as parse_reply;

    fn parse(body: &str, at: DateTime<Utc>) -> Result<crate::hotlists::parse::Parsed, ParseError> {
        parse_reply(Source::Zhihu, body, at)
    }

    #[test]
    fn the_documented_shape() {
        let body = r#"{"data":[
            {"type":"hot_list_feed","detail_text":"924 万热度","target":{"id":658537407,"title":"如何解读马克龙此举？",
              "url":"https://api.zhihu.com/questions/658537407","excerpt":"当地时间周日","answer_count":215},
             "children":[{"thumbnail":"https://pic1.zhimg.com/a.jpg"}]},
            {"detail_text":"","target":{"title":"没有热度","url":"https://api.zhihu.com/questions/1"}},
            {"target":{"url":"https://api.zhihu.com/questions/2"}}
        ]}"#;
        let parsed = parse(body, Utc::now()).unwrap();
        let first = &parsed.entries[0];
        assert_eq!((first.rank, first.title.as_str(), first.hot_value), (1, "如何解读马克龙此举？", Some(9_240_000)));
        assert_eq!(first.url.as_deref(), Some("https://www.zhihu.com/question/658537407"));
        let extra = first.extra.as_ref().unwrap();
        assert_eq!(extra["thumbnail"], "https://pic1.zhimg.com/a.jpg");
        assert_eq!((extra["answerCount"].as_i64(), extra["questionId"].as_str()), (Some(215), Some("658537407")));
        assert_eq!((parsed.entries[1].rank, parsed.entries[1].hot_value), (2, None));
        assert_eq!(parsed.skipped.len(), 1);
        assert!(parsed.skipped[0].reason.contains("target.title"));
        assert_eq!(parsed.reported_at, None);
    }

    #[test]
    fn the_archived_shape_and_its_crawl_time() {
        let body = r#"{"data":[{"type":"hot_list_feed","id":"0_1718032203.722846","card_id":"Q_658537407",
            "feed_specific":{"answer_count":215},
            "target":{"title_area":{"text":"法国政坛迎来地震"},"excerpt_area":{"text":"当地时间周日"},
              "image_area":{"url":"https://pic1.zhimg.com/b.jpg"},"metrics_area":{"text":"503 万热度"},
              "link":{"url":"https://www.zhihu.com/question/658537407"}}}],"paging":{}}"#;
        let parsed = parse(body, Utc::now()).unwrap();
        let e = &parsed.entries[0];
        assert_eq!((e.title.as_str(), e.hot_value), ("法国政坛迎来地震", Some(5_030_000)));
        assert_eq!(e.url.as_deref(), Some("https://www.zhihu.com/question/658537407"));
        assert_eq!(e.extra.as_ref().unwrap()["answerCount"], 215);
        assert_eq!(parsed.reported_at.unwrap().to_rfc3339(), "2024-06-10T15:10:03+00:00");
        assert!(matches!(parse(r#"{"error":{"code":100}}"#, Utc::now()), Err(ParseError::Shape(_))));
    }
}
