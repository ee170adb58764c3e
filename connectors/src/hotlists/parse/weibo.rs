//! Weibo realtime hot search: `GET https://weibo.com/ajax/side/hotSearch`
//! (HOTLISTS.md). Items at `data.realtime[]`; the pinned government entry
//! at `data.hotgov` (or the list `data.hotgovs`). Title `word` (fallback
//! `word_scheme` without its `#`s), hot value `num`, url
//! `https://s.weibo.com/weibo?q=<urlencoded word>`. `extra`: `labelName`
//! (新/热/爆/沸), `note`, `onboardTime`, `category`, `realpos`, `rawRank`.
//! Ads (`is_ad`, or the promo icon `icon_desc` 商/荐) are kept flagged
//! `extra.ad` and ranked after the list.

use serde_json::{Map, Value};

use super::{Item, ParseError, Placement, Reply, copy_extra, count, encode_query_value, first_text, truthy};

/// The search page of a hot word.
pub fn search_url(word: &str) -> String {
    format!("https://s.weibo.com/weibo?q={}", encode_query_value(word))
}

fn item(value: &Value, placement: Placement) -> Item {
    let title = first_text(value, &[&["word"]])
        .or_else(|| first_text(value, &[&["word_scheme"]]).map(|w| w.trim_matches('#').to_owned()));
    let promo = first_text(value, &[&["icon_desc"]]).is_some_and(|d| d == "商" || d == "荐");
    let placement =
        if placement == Placement::Ranked && (truthy(value, &["is_ad"]) || promo) { Placement::Ad } else { placement };
    let mut extra = Map::new();
    copy_extra(
        &mut extra,
        value,
        &[
            ("labelName", &["label_name"]),
            ("note", &["note"]),
            ("onboardTime", &["onboard_time"]),
            ("category", &["category"]),
            ("realpos", &["realpos"]),
            ("rawRank", &["rank"]),
            ("iconDesc", &["icon_desc"]),
        ],
    );
    Item {
        url: title.as_deref().map(search_url),
        title,
        title_fields: "word, word_scheme",
        hot_value: count(value, &["num"]),
        extra,
        placement,
        rank: None,
    }
}

/// Reads the items of a `hotSearch` reply.
///
/// # Errors
/// Not JSON, or no `data.realtime` list.
pub fn read(body: &str) -> Result<Reply, ParseError> {
    let reply = super::json(body)?;
    let realtime = super::list_at(&reply, &["data", "realtime"])?;
    let mut items: Vec<Item> = realtime.iter().map(|v| item(v, Placement::Ranked)).collect();
    let pinned = super::at(&reply, &["data", "hotgovs"])
        .and_then(Value::as_array)
        .map(|list| list.iter().collect::<Vec<_>>())
        .or_else(|| super::at(&reply, &["data", "hotgov"]).filter(|v| v.is_object()).map(|v| vec![v]))
        .unwrap_or_default();
    items.extend(pinned.into_iter().map(|v| item(v, Placement::Pinned)));
    Ok(Reply { items, reported_at: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hotlists::Source;
    use crate::hotlists::parse::parse as parse_reply;
    use chrono::{DateTime, Utc};

    fn parse(body: &str, at: DateTime<Utc>) -> Result<crate::hotlists::parse::Parsed, ParseError> {
        parse_reply(Source::Weibo, body, at)
    }

    #[test]
    fn realtime_items_ads_and_the_pinned_entry() {
        let body = r##"{"ok":1,"data":{
          "hotgov":{"word":"#习近平同突尼斯总统会谈#","word_scheme":"#习近平同突尼斯总统会谈#","icon_desc":"热"},
          "realtime":[
            {"word":"为什么床上总是有沙子","word_scheme":"#为什么床上总是有沙子#","num":1428835,"label_name":"热","note":"为什么床上总是有沙子","onboard_time":1717990000,"rank":0,"realpos":1,"category":"社会"},
            {"word_scheme":"#端午 安康#","num":"1.2万","label_name":"新"},
            {"word":"某品牌新品","num":0,"is_ad":1},
            {"num":9},
            {"word":"无热度"}
          ]}}"##;
        let at = Utc::now();
        let parsed = parse(body, at).unwrap();
        let got: Vec<(i64, &str, Option<i64>)> =
            parsed.entries.iter().map(|e| (e.rank, e.title.as_str(), e.hot_value)).collect();
        assert_eq!(
            got,
            [
                (1, "为什么床上总是有沙子", Some(1_428_835)),
                (2, "端午 安康", Some(12_000)),
                (5, "某品牌新品", Some(0)),
                (4, "无热度", None),
                (6, "#习近平同突尼斯总统会谈#", None),
            ]
        );
        let first = &parsed.entries[0];
        assert_eq!(
            first.url.as_deref(),
            Some(
                "https://s.weibo.com/weibo?q=%E4%B8%BA%E4%BB%80%E4%B9%88%E5%BA%8A%E4%B8%8A%E6%80%BB%E6%98%AF%E6%9C%89%E6%B2%99%E5%AD%90"
            )
        );
        let extra = first.extra.as_ref().unwrap();
        assert_eq!(extra["labelName"], "热");
        assert_eq!(extra["onboardTime"], 1_717_990_000);
        assert_eq!(extra["category"], "社会");
        assert_eq!(
            parsed.entries[1].url.as_deref(),
            Some("https://s.weibo.com/weibo?q=%E7%AB%AF%E5%8D%88%20%E5%AE%89%E5%BA%B7")
        );
        assert_eq!(parsed.entries[2].extra.as_ref().unwrap()["ad"], true);
        assert_eq!(parsed.entries[4].extra.as_ref().unwrap()["pinned"], true);
        assert_eq!(parsed.skipped.len(), 1);
        assert_eq!(parsed.skipped[0].position, 4);
        assert!(parsed.skipped[0].reason.contains("word"));
    }

    #[test]
    fn other_shapes_are_errors() {
        assert!(matches!(parse("<html>", Utc::now()), Err(ParseError::NotJson(_))));
        assert!(matches!(parse(r#"{"ok":-100,"data":{}}"#, Utc::now()), Err(ParseError::Shape(_))));
    }
}
