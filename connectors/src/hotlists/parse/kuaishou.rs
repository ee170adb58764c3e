//! Kuaishou hot rank: the HTML of `https://www.kuaishou.com/?isHome=1`
//! (HOTLISTS.md), whose JSON is the script assignment
//! `window.__APOLLO_STATE__ = {…};`. The list is
//! `defaultClient['$ROOT_QUERY.visionHotRank({"page":"home"})'].items[]`,
//! each a reference `{id}` to `defaultClient[id]` (an inline object is read
//! as is). Title `name`, hot value `hotValue` (text like `123.4万`), url
//! `https://www.kuaishou.com/short-video/{photoIds.json[0]}`. `extra`:
//! `photoId`, `poster`, `tagType`, `itemId`. Items tagged 置顶 are pinned.

use serde_json::{Map, Value};

use super::{Item, ParseError, Placement, Reply, at, copy_extra, count, first_text, text};

/// The root query key of the home hot rank.
const HOT_RANK: &str = r#"$ROOT_QUERY.visionHotRank({"page":"home"})"#;

/// The JSON object assigned to `window.__APOLLO_STATE__` in `html`.
///
/// # Errors
/// No assignment, or an object that does not close or is not JSON.
pub fn apollo_state(html: &str) -> Result<Value, ParseError> {
    let marker = "__APOLLO_STATE__";
    let start = html.find(marker).ok_or_else(|| ParseError::Shape(format!("no {marker} in the page")))?;
    let rest = &html[start + marker.len()..];
    let open = rest.find('{').ok_or_else(|| ParseError::Shape(format!("no object after {marker}")))?;
    let object = balanced_object(&rest[open..]).ok_or_else(|| ParseError::Shape(format!("{marker} does not close")))?;
    super::json(object)
}

/// The leading `{…}` of `text`, braces inside JSON strings ignored.
fn balanced_object(text: &str) -> Option<&str> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, byte) in text.bytes().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&text[..=i]);
                }
            }
            _ => {}
        }
    }
    None
}

fn item(value: &Value) -> Item {
    let photo_id = first_text(value, &[&["photoIds", "json", "0"], &["photoIds", "0"], &["photoId"]]);
    let pinned = ["tagType", "tagText", "tag"].iter().any(|k| text(value, &[k]).is_some_and(|t| t.contains("置顶")));
    let mut extra = Map::new();
    copy_extra(&mut extra, value, &[("poster", &["poster"]), ("tagType", &["tagType"]), ("itemId", &["id"])]);
    if let Some(id) = &photo_id {
        extra.insert("photoId".into(), Value::String(id.clone()));
    }
    Item {
        title: text(value, &["name"]),
        title_fields: "name",
        hot_value: count(value, &["hotValue"]),
        url: photo_id.map(|id| format!("https://www.kuaishou.com/short-video/{id}")),
        extra,
        placement: if pinned { Placement::Pinned } else { Placement::Ranked },
        rank: None,
    }
}

/// Reads the items of the home page.
///
/// # Errors
/// No Apollo state, or no hot-rank list in it.
pub fn read(body: &str) -> Result<Reply, ParseError> {
    let state = apollo_state(body)?;
    let client = at(&state, &["defaultClient"]).ok_or_else(|| ParseError::Shape("no defaultClient".into()))?;
    let root = client.get(HOT_RANK).or_else(|| {
        let map = client.as_object()?;
        map.iter().find(|(k, _)| k.starts_with("$ROOT_QUERY.visionHotRank(")).map(|(_, v)| v)
    });
    let list = root
        .and_then(|r| r.get("items"))
        .and_then(Value::as_array)
        .ok_or_else(|| ParseError::Shape(format!("no items at defaultClient['{HOT_RANK}']")))?;
    let items = list
        .iter()
        .map(|reference| {
            let target = text(reference, &["id"]).and_then(|id| client.get(id.as_str()));
            item(target.unwrap_or(reference))
        })
        .collect();
    Ok(Reply { items, reported_at: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hotlists::Source;
    use crate::hotlists::parse::parse as parse_reply;
    use chrono::{DateTime, Utc};

    fn parse(body: &str, at: DateTime<Utc>) -> Result<crate::hotlists::parse::Parsed, ParseError> {
        parse_reply(Source::Kuaishou, body, at)
    }

    /// A page in the documented shape: a script assigning the Apollo state,
    /// followed by more script (braces in strings included).
    fn page() -> String {
        let state = serde_json::json!({"defaultClient": {
            "$ROOT_QUERY.visionHotRank({\"page\":\"home\"})": {"items": [
                {"type": "id", "generated": false, "id": "VisionHotRankItem:a", "typename": "VisionHotRankItem"},
                {"type": "id", "generated": false, "id": "VisionHotRankItem:b", "typename": "VisionHotRankItem"},
                {"type": "id", "generated": false, "id": "VisionHotRankItem:c", "typename": "VisionHotRankItem"},
                {"type": "id", "generated": false, "id": "VisionHotRankItem:d", "typename": "VisionHotRankItem"}
            ]},
            "VisionHotRankItem:a": {"id": "a", "name": "总书记给“小树苗”的暖心寄语", "hotValue": "1234.5万", "tagType": "置顶",
                "photoIds": {"type": "json", "json": ["3xzjuxmeib3i6bs"]}, "poster": "https://p.kuaishou.com/a.jpg"},
            "VisionHotRankItem:b": {"id": "b", "name": "高考 {加油}", "hotValue": "987.6万",
                "photoIds": {"type": "json", "json": ["3xb"]}},
            "VisionHotRankItem:c": {"id": "c", "hotValue": "1万"},
            "VisionHotRankItem:d": {"id": "d", "name": "没有视频", "hotValue": "12"}
        }});
        format!(
            "<html><script>window.__APOLLO_STATE__={state};(function(){{var s;(s=document.currentScript||document.scripts[document.scripts.length-1]).parentNode.removeChild(s);}}());</script></html>"
        )
    }

    #[test]
    fn apollo_state_items_are_followed_by_reference() {
        let parsed = parse(&page(), Utc::now()).unwrap();
        let got: Vec<(i64, &str, Option<i64>, Option<&str>)> =
            parsed.entries.iter().map(|e| (e.rank, e.title.as_str(), e.hot_value, e.url.as_deref())).collect();
        assert_eq!(
            got,
            [
                (
                    4,
                    "总书记给“小树苗”的暖心寄语",
                    Some(12_345_000),
                    Some("https://www.kuaishou.com/short-video/3xzjuxmeib3i6bs")
                ),
                (1, "高考 {加油}", Some(9_876_000), Some("https://www.kuaishou.com/short-video/3xb")),
                (3, "没有视频", Some(12), None),
            ]
        );
        assert_eq!(parsed.entries[0].extra.as_ref().unwrap()["pinned"], true);
        assert_eq!(parsed.skipped.len(), 1);
        assert_eq!(parsed.skipped[0].position, 3);
    }

    #[test]
    fn pages_without_the_state_are_errors() {
        assert!(matches!(parse("<html>login</html>", Utc::now()), Err(ParseError::Shape(_))));
        assert!(parse("window.__APOLLO_STATE__={\"a\":", Utc::now()).is_err());
        assert!(parse("window.__APOLLO_STATE__={\"defaultClient\":{}};", Utc::now()).is_err());
    }
}
