//! Douyin hot search: `GET https://www.douyin.com/aweme/v1/web/hot/search/list/…`
//! (HOTLISTS.md; needs cookies such as `passport_csrf_token`). Items at
//! `data.word_list[]`: title `word`, hot value `hot_value`, url
//! `https://www.douyin.com/hot/{sentence_id}`. `extra`: `sentenceId`,
//! `eventTime`, `position`, `viewCount`, `label`. The pinned entries of
//! `data.trending_list[]` are not part of the hot list and are not read.

use serde_json::{Map, Value};

use super::{Item, ParseError, Placement, Reply, copy_extra, count, text};

fn item(value: &Value) -> Item {
    let mut extra = Map::new();
    copy_extra(
        &mut extra,
        value,
        &[
            ("sentenceId", &["sentence_id"]),
            ("eventTime", &["event_time"]),
            ("position", &["position"]),
            ("viewCount", &["view_count"]),
            ("label", &["label"]),
        ],
    );
    Item {
        title: text(value, &["word"]),
        title_fields: "word",
        hot_value: count(value, &["hot_value"]),
        url: text(value, &["sentence_id"]).map(|id| format!("https://www.douyin.com/hot/{id}")),
        extra,
        placement: Placement::Ranked,
        rank: None,
    }
}

/// Reads the items of a hot-search reply.
///
/// # Errors
/// Not JSON, or no `data.word_list` list.
pub fn read(body: &str) -> Result<Reply, ParseError> {
    let reply = super::json(body)?;
    let items = super::list_at(&reply, &["data", "word_list"])?.iter().map(item).collect();
    Ok(Reply { items, reported_at: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hotlists::Source;
    use crate::hotlists::parse::parse as parse_reply;
    use chrono::{DateTime, Utc};

    fn parse(body: &str, at: DateTime<Utc>) -> Result<crate::hotlists::parse::Parsed, ParseError> {
        parse_reply(Source::Douyin, body, at)
    }

    #[test]
    fn word_list_items_with_ids_and_missing_fields() {
        let body = r#"{"status_code":0,"data":{"active_time":"2024-06-10 12:00:00","word_list":[
            {"word":"张志磊vs维尔德","hot_value":11946360,"sentence_id":"1710724","event_time":1717990000,"position":1,"view_count":100,"label":3},
            {"word":"端午安康","hot_value":"1001.2万","sentence_id":1710725},
            {"hot_value":5,"sentence_id":"9"},
            {"word":"没有编号"}
        ]}}"#;
        let parsed = parse(body, Utc::now()).unwrap();
        let got: Vec<(i64, &str, Option<i64>, Option<&str>)> =
            parsed.entries.iter().map(|e| (e.rank, e.title.as_str(), e.hot_value, e.url.as_deref())).collect();
        assert_eq!(
            got,
            [
                (1, "张志磊vs维尔德", Some(11_946_360), Some("https://www.douyin.com/hot/1710724")),
                (2, "端午安康", Some(10_012_000), Some("https://www.douyin.com/hot/1710725")),
                (4, "没有编号", None, None),
            ]
        );
        let extra = parsed.entries[0].extra.as_ref().unwrap();
        assert_eq!((extra["eventTime"].as_i64(), extra["position"].as_i64()), (Some(1_717_990_000), Some(1)));
        assert_eq!(parsed.skipped.len(), 1);
        assert_eq!(parsed.skipped[0].position, 3);
        assert!(parse(r#"{"status_code":8,"data":null}"#, Utc::now()).is_err());
    }
}
