//! Toutiao hot board: `GET https://www.toutiao.com/hot-event/hot-board/?origin=toutiao_pc`
//! (HOTLISTS.md). Items at `data[]`: title `Title`, hot value `HotValue`
//! (a string), url `https://www.toutiao.com/trending/{ClusterIdStr}/`
//! (fallback `Url`). `extra`: `clusterId`, `image` (`Image.url`), `label`
//! (`Label`), `labelUrl` (`LabelUri.url`), `interestCategory`. The pinned
//! items of `fixed_top_data[]` are kept flagged `extra.pinned`.

use serde_json::{Map, Value};

use super::{Item, ParseError, Placement, Reply, copy_extra, count, first_text, text};

fn item(value: &Value, placement: Placement) -> Item {
    let cluster = first_text(value, &[&["ClusterIdStr"], &["ClusterId"]]);
    let mut extra = Map::new();
    copy_extra(
        &mut extra,
        value,
        &[
            ("clusterId", &["ClusterIdStr"]),
            ("image", &["Image", "url"]),
            ("label", &["Label"]),
            ("labelUrl", &["LabelUri", "url"]),
            ("interestCategory", &["InterestCategory"]),
        ],
    );
    Item {
        title: text(value, &["Title"]),
        title_fields: "Title",
        hot_value: count(value, &["HotValue"]),
        url: cluster.map(|id| format!("https://www.toutiao.com/trending/{id}/")).or_else(|| text(value, &["Url"])),
        extra,
        placement,
        rank: None,
    }
}

/// Reads the items of a hot-board reply.
///
/// # Errors
/// Not JSON, or no `data` list.
pub fn read(body: &str) -> Result<Reply, ParseError> {
    let reply = super::json(body)?;
    let mut items: Vec<Item> = super::list_at(&reply, &["data"])?.iter().map(|v| item(v, Placement::Ranked)).collect();
    if let Some(pinned) = super::at(&reply, &["fixed_top_data"]).and_then(Value::as_array) {
        items.extend(pinned.iter().map(|v| item(v, Placement::Pinned)));
    }
    Ok(Reply { items, reported_at: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hotlists::Source;
    use crate::hotlists::parse::parse as parse_reply;
    use chrono::{DateTime, Utc};

    fn parse(body: &str, at: DateTime<Utc>) -> Result<crate::hotlists::parse::Parsed, ParseError> {
        parse_reply(Source::Toutiao, body, at)
    }

    #[test]
    fn board_items_and_pinned() {
        let body = r#"{"status":"success","data":[
            {"ClusterId":7110213463787929615,"ClusterIdStr":"7110213463787929615","Title":"评论员详解福建舰多久能形成战斗力",
             "HotValue":"36588751","Image":{"url":"https://p3.toutiaoimg.com/a.jpg"},"Label":"hot","LabelUri":{"url":"https://lf3.a/hot.png"}},
            {"Title":"没有编号","Url":"https://www.toutiao.com/trending/x/"},
            {"HotValue":"1"}
          ],"fixed_top_data":[{"Title":"置顶新闻","Url":"https://www.toutiao.com/article/1/"}]}"#;
        let parsed = parse(body, Utc::now()).unwrap();
        let got: Vec<(i64, &str, Option<i64>, Option<&str>)> =
            parsed.entries.iter().map(|e| (e.rank, e.title.as_str(), e.hot_value, e.url.as_deref())).collect();
        assert_eq!(
            got,
            [
                (
                    1,
                    "评论员详解福建舰多久能形成战斗力",
                    Some(36_588_751),
                    Some("https://www.toutiao.com/trending/7110213463787929615/")
                ),
                (2, "没有编号", None, Some("https://www.toutiao.com/trending/x/")),
                (3, "置顶新闻", None, Some("https://www.toutiao.com/article/1/")),
            ]
        );
        let extra = parsed.entries[0].extra.as_ref().unwrap();
        assert_eq!(
            (extra["label"].as_str(), extra["image"].as_str()),
            (Some("hot"), Some("https://p3.toutiaoimg.com/a.jpg"))
        );
        assert_eq!(parsed.entries[2].extra.as_ref().unwrap()["pinned"], true);
        assert_eq!(parsed.skipped[0].position, 3);
    }
}
