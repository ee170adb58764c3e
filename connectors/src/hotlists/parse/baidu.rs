//! Baidu realtime hot search (HOTLISTS.md): the HTML of
//! `https://top.baidu.com/board?tab=realtime`, whose JSON is in the comment
//! `<!--s-data:{…}-->`, or the same JSON served bare (`{"success": true,
//! "data": {…}}`, as the board API and the archived files have it). Items at
//! `data.cards[0].content[]`, or one level deeper at
//! `cards[0].content[0].content[]`; the pinned item(s) at
//! `cards[0].topContent[]` are kept flagged `extra.pinned`. Title `word`
//! (fallback `query`), hot value `hotScore` (a string of digits), url
//! `rawUrl` (fallback `url`). `extra`: `desc`, `img`, `index` (0-based rank
//! as Baidu gives it), `hotTag`, `hotChange`, `isTop`. The reply time
//! ([`super::Reply::reported_at`]) is `cards[0].updateTime` (epoch seconds).

use chrono::{TimeZone, Utc};
use serde_json::{Map, Value};

use super::{Item, ParseError, Placement, Reply, at, copy_extra, count, first_text};

/// The board JSON of a page (`<!--s-data:…-->`) or of a bare JSON reply.
///
/// # Errors
/// Neither JSON nor a page with the comment.
pub fn board_json(body: &str) -> Result<Value, ParseError> {
    let trimmed = body.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('{') {
        return super::json(trimmed);
    }
    let marker = "<!--s-data:";
    let start = body.find(marker).ok_or_else(|| ParseError::Shape("no <!--s-data:…--> in the page".into()))?;
    let rest = &body[start + marker.len()..];
    let end = rest.find("-->").ok_or_else(|| ParseError::Shape("<!--s-data: does not close".into()))?;
    super::json(&rest[..end])
}

fn item(value: &Value, placement: Placement) -> Item {
    let mut extra = Map::new();
    copy_extra(
        &mut extra,
        value,
        &[
            ("desc", &["desc"]),
            ("img", &["img"]),
            ("index", &["index"]),
            ("hotTag", &["hotTag"]),
            ("hotChange", &["hotChange"]),
            ("isTop", &["isTop"]),
        ],
    );
    let placement = if super::truthy(value, &["isTop"]) { Placement::Pinned } else { placement };
    Item {
        title: first_text(value, &[&["word"], &["query"]]),
        title_fields: "word, query",
        hot_value: count(value, &["hotScore"]),
        url: first_text(value, &[&["rawUrl"], &["url"]]),
        extra,
        placement,
        rank: None,
    }
}

/// Reads the items of a board page or reply.
///
/// # Errors
/// No board JSON, or no list at `data.cards[0].content`.
pub fn read(body: &str) -> Result<Reply, ParseError> {
    let reply = board_json(body)?;
    let card = at(&reply, &["data", "cards", "0"]).ok_or_else(|| ParseError::Shape("no `data.cards[0]`".into()))?;
    let mut content = super::list_at(card, &["content"])
        .map_err(|_| ParseError::Shape("no list at `data.cards[0].content`".into()))?;
    if let Some(deeper) = content.first().and_then(|first| at(first, &["content"])).and_then(Value::as_array) {
        content = deeper;
    }
    let mut items: Vec<Item> = content.iter().map(|v| item(v, Placement::Ranked)).collect();
    if let Some(top) = at(card, &["topContent"]).and_then(Value::as_array) {
        items.extend(top.iter().map(|v| item(v, Placement::Pinned)));
    }
    let reported_at = super::count(card, &["updateTime"]).and_then(|secs| Utc.timestamp_opt(secs, 0).single());
    Ok(Reply { items, reported_at })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hotlists::Source;
    use crate::hotlists::parse::parse as parse_reply;
    use chrono::{DateTime, Utc};

    fn parse(body: &str, at: DateTime<Utc>) -> Result<crate::hotlists::parse::Parsed, ParseError> {
        parse_reply(Source::Baidu, body, at)
    }

    const BOARD: &str = r#"{"success":true,"data":{"cards":[{"component":"hotList","updateTime":1717254780,
        "content":[
          {"word":"美防长演讲一开口就提中国防长","query":"美防长演讲一开口就提中国防长","hotScore":"4904139","index":0,
           "rawUrl":"https://www.baidu.com/s?wd=a","url":"https://www.baidu.com/s?wd=a&sa=fyb_news","desc":"专家分析","hotTag":"3"},
          {"query":"只有查询词","hotScore":"","index":1,"url":"https://www.baidu.com/s?wd=b"},
          {"hotScore":"1","index":2}
        ],
        "topContent":[{"word":"总书记心中最温柔的牵挂","hotScore":"4950560","index":0,"rawUrl":"https://www.baidu.com/s?wd=c"}]}]}}"#;

    #[test]
    fn the_bare_board_reply() {
        let parsed = parse(BOARD, Utc::now()).unwrap();
        let got: Vec<(i64, &str, Option<i64>, Option<&str>)> =
            parsed.entries.iter().map(|e| (e.rank, e.title.as_str(), e.hot_value, e.url.as_deref())).collect();
        assert_eq!(
            got,
            [
                (1, "美防长演讲一开口就提中国防长", Some(4_904_139), Some("https://www.baidu.com/s?wd=a")),
                (2, "只有查询词", None, Some("https://www.baidu.com/s?wd=b")),
                (3, "总书记心中最温柔的牵挂", Some(4_950_560), Some("https://www.baidu.com/s?wd=c")),
            ]
        );
        assert_eq!(parsed.entries[0].extra.as_ref().unwrap()["desc"], "专家分析");
        assert_eq!(parsed.entries[2].extra.as_ref().unwrap()["pinned"], true);
        assert_eq!(parsed.skipped.len(), 1);
        assert_eq!(parsed.reported_at.unwrap().to_rfc3339(), "2024-06-01T15:13:00+00:00");
    }

    #[test]
    fn the_html_page_and_the_deeper_nesting() {
        let nested =
            r#"{"data":{"cards":[{"content":[{"content":[{"word":"深一层","hotScore":"7","isTop":false}]}]}]}}"#;
        let page = format!("<!doctype html><html><body><!--s-data:{nested}--><div id=\"sanRoot\"></div></body></html>");
        let parsed = parse(&page, Utc::now()).unwrap();
        assert_eq!(parsed.entries.len(), 1);
        assert_eq!((parsed.entries[0].title.as_str(), parsed.entries[0].hot_value), ("深一层", Some(7)));
        assert!(matches!(parse("<html>验证</html>", Utc::now()), Err(ParseError::Shape(_))));
        assert!(matches!(parse(r#"{"success":false,"data":{"cards":[]}}"#, Utc::now()), Err(ParseError::Shape(_))));
    }
}
