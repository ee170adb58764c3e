//! The banned-word result of spec 2.6 built from the hits:
//!
//! - `content`: the text HTML-escaped (`& < > " '`), each run of hits
//!   wrapped in `<span class="banned-word">…</span>`; overlapping or adjacent
//!   hits share one span;
//! - `originalContent`: the text as sent;
//! - `prohibitedWordsType`: the distinct categories, in order of first hit;
//! - `source`: [`SOURCE`];
//! - `raw`: `{hits: [{word, text, category, start, end, rule?, suggestion?,
//!   list}], lexiconVersion, platform, offsetUnit: "char"}`. `start`/`end`
//!   count Unicode scalar values of `originalContent` (end exclusive); `text`
//!   is that slice of the original (`微 信` for the word `微信`).

use mediaops_proto::mediaops::common::v1::BannedWordResult;
use serde_json::{Map, Value};

use super::matcher::Hit;
use super::platform::Platform;
use mediaops_platform::structs::to_struct;

/// `source` of every result.
pub const SOURCE: &str = "mediaops-lexicon";

/// Builds the result for `text` and its `hits` (sorted by start).
pub fn build(text: &str, hits: &[Hit], platform: Platform, lexicon_version: &str) -> BannedWordResult {
    let byte_at = byte_offsets(text, hits);
    let spans = merged_spans(hits);
    let mut content = String::with_capacity(text.len() + spans.len() * 32);
    let mut at = 0;
    for (start, end) in spans {
        let (from, to) = (byte_at(start), byte_at(end));
        html_escape::encode_quoted_attribute_to_string(&text[at..from], &mut content);
        content.push_str(r#"<span class="banned-word">"#);
        html_escape::encode_quoted_attribute_to_string(&text[from..to], &mut content);
        content.push_str("</span>");
        at = to;
    }
    html_escape::encode_quoted_attribute_to_string(&text[at..], &mut content);

    let mut categories: Vec<String> = Vec::new();
    for hit in hits {
        if !categories.contains(&hit.entry.category) {
            categories.push(hit.entry.category.clone());
        }
    }

    let raw_hits: Vec<Value> = hits
        .iter()
        .map(|hit| {
            let mut object = Map::new();
            object.insert("word".into(), Value::from(hit.entry.word.as_str()));
            object.insert("text".into(), Value::from(&text[byte_at(hit.start)..byte_at(hit.end)]));
            object.insert("category".into(), Value::from(hit.entry.category.as_str()));
            object.insert("start".into(), Value::from(hit.start));
            object.insert("end".into(), Value::from(hit.end));
            if let Some(rule) = &hit.entry.rule {
                object.insert("rule".into(), Value::from(rule.as_str()));
            }
            if let Some(suggestion) = &hit.entry.suggestion {
                object.insert("suggestion".into(), Value::from(suggestion.as_str()));
            }
            object.insert("list".into(), Value::from(hit.entry.list));
            Value::Object(object)
        })
        .collect();
    // Built by hand: `json!` would serialize `raw_hits` a second time.
    let mut raw = Map::new();
    raw.insert("hits".into(), Value::Array(raw_hits));
    raw.insert("lexiconVersion".into(), Value::from(lexicon_version));
    raw.insert("platform".into(), Value::from(platform.name()));
    raw.insert("offsetUnit".into(), Value::from("char"));
    let raw = Value::Object(raw);

    BannedWordResult {
        source: SOURCE.to_owned(),
        content,
        original_content: text.to_owned(),
        prohibited_words_type: categories,
        raw: Some(to_struct(raw)),
    }
}

/// Hit spans merged where they overlap or touch, in order.
fn merged_spans(hits: &[Hit]) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = hits.iter().map(|h| (h.start, h.end)).collect();
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (start, end) in spans {
        match merged.last_mut() {
            Some((_, last_end)) if start <= *last_end => *last_end = (*last_end).max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// Byte offset of every character index the hits name, found in one pass.
fn byte_offsets(text: &str, hits: &[Hit]) -> impl Fn(usize) -> usize {
    let mut wanted: Vec<usize> = hits.iter().flat_map(|h| [h.start, h.end]).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut bytes = Vec::with_capacity(wanted.len());
    let mut chars = text.char_indices().map(|(b, _)| b).chain([text.len()]).enumerate();
    for &index in &wanted {
        let byte = chars.find(|(i, _)| *i == index).map_or(text.len(), |(_, b)| b);
        bytes.push(byte);
    }
    move |index| wanted.binary_search(&index).map_or(0, |i| bytes[i])
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use prost_types::value::Kind;

    use super::*;
    use crate::banned_words::lexicon::Entry;

    fn hit(start: usize, end: usize, word: &str, category: &str) -> Hit {
        let entry = Entry {
            word: word.into(),
            category: category.into(),
            rule: Some("广告法第九条第三项".into()),
            suggestion: None,
            list: "common",
        };
        Hit { start, end, entry: Arc::new(entry) }
    }

    #[test]
    fn spans_merge_and_text_is_escaped() {
        let text = "<b>全网最低价</b>&最佳😀第一品牌";
        let hits = [
            hit(3, 7, "全网最低", "极限用语"),
            hit(5, 8, "最低价", "极限用语"),
            hit(13, 15, "最佳", "极限用语"),
            hit(16, 20, "第一品牌", "极限用语"),
        ];
        let result = build(text, &hits, Platform::Articles, "builtin.test");
        assert_eq!(
            result.content,
            "&lt;b&gt;<span class=\"banned-word\">全网最低价</span>&lt;/b&gt;&amp;\
             <span class=\"banned-word\">最佳</span>😀<span class=\"banned-word\">第一品牌</span>"
        );
        assert_eq!(result.original_content, text);
        assert_eq!(result.prohibited_words_type, vec!["极限用语"]);
        assert_eq!(result.source, SOURCE);
    }

    #[test]
    fn adjacent_hits_share_a_span_and_categories_keep_first_order() {
        let hits = [hit(0, 2, "保本", "金融承诺"), hit(2, 4, "最佳", "极限用语"), hit(5, 7, "稳赚", "金融承诺")];
        let result = build("保本最佳和稳赚", &hits, Platform::Lifestyle, "v");
        assert_eq!(
            result.content,
            "<span class=\"banned-word\">保本最佳</span>和<span class=\"banned-word\">稳赚</span>"
        );
        assert_eq!(result.prohibited_words_type, vec!["金融承诺", "极限用语"]);
    }

    #[test]
    fn raw_lists_hits_with_original_text() {
        let result = build("加微 信", &[hit(1, 4, "微信", "站外导流")], Platform::Shortvideo, "builtin.x");
        let raw = result.raw.unwrap();
        let Some(Kind::ListValue(list)) = &raw.fields["hits"].kind else { panic!() };
        let Some(Kind::StructValue(first)) = &list.values[0].kind else { panic!() };
        assert_eq!(first.fields["text"].kind, Some(Kind::StringValue("微 信".into())));
        assert_eq!(first.fields["start"].kind, Some(Kind::NumberValue(1.0)));
        assert_eq!(first.fields["end"].kind, Some(Kind::NumberValue(4.0)));
        assert!(!first.fields.contains_key("suggestion"));
        assert_eq!(raw.fields["platform"].kind, Some(Kind::StringValue("shortvideo".into())));
        assert_eq!(raw.fields["lexiconVersion"].kind, Some(Kind::StringValue("builtin.x".into())));
    }

    #[test]
    fn no_hits_is_the_escaped_text() {
        let result = build("a < b", &[], Platform::Articles, "v");
        assert_eq!(result.content, "a &lt; b");
        assert!(result.prohibited_words_type.is_empty());
    }
}
