//! Numbers of the hot lists in `trending-hub-keyword` `platforms[]` and
//! `shortvideo-hot-trend` `platform` (spec 4.11; docs/trends.md
//! "Numbering").
//!
//! The spec shows platform numbers only for the playlet feed (part 1: 0 =
//! articles, 1 = shortvideo, 3 = lifestyle, 6 = videosite) and says hot-topic
//! payloads use numbers "not shown beyond example use". One numbering serves
//! both operations and agrees with the spec's numbers where a list exists:
//! 1 is the short-video list (Douyin) and 6 the video-site list (Bilibili).
//! The other lists take the free numbers in the spec's order of kinds
//! (microblog, clip, Q&A, headline, search engine). 0 (articles) and 3
//! (lifestyle) have no public hot list and are refused.

use mediaops_connectors::hotlists::Source;
use mediaops_proto::error::ServiceError;

/// (number, list), every hot list once.
pub const LIST_NUMBERS: [(i32, Source); 7] = [
    (1, Source::Douyin),
    (2, Source::Weibo),
    (4, Source::Kuaishou),
    (5, Source::Zhihu),
    (6, Source::Bilibili),
    (7, Source::Toutiao),
    (8, Source::Baidu),
];

/// The numbers `shortvideo-hot-trend` accepts: the short-video lists
/// (Douyin, Kuaishou).
pub const SHORT_VIDEO_NUMBERS: [i32; 2] = [1, 4];

/// The number `shortvideo-hot-trend` reads when `platform` is 0 (unset in
/// proto3): Douyin, the proto's "1 = 短视频".
pub const DEFAULT_SHORT_VIDEO: i32 = 1;

/// `1 douyin, 2 weibo, …` for error messages.
fn described(numbers: &[i32]) -> String {
    LIST_NUMBERS
        .iter()
        .filter(|(n, _)| numbers.contains(n))
        .map(|(n, s)| format!("{n} {}", s.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The list of `number`; 400 naming `field` when it numbers no list.
pub fn list_of(number: i32, field: &str) -> Result<Source, ServiceError> {
    LIST_NUMBERS.iter().find(|(n, _)| *n == number).map(|(_, s)| *s).ok_or_else(|| {
        let all: Vec<i32> = LIST_NUMBERS.iter().map(|(n, _)| *n).collect();
        ServiceError::invalid_field(field, format!("{field}: {number} is not a hot-list number ({})", described(&all)))
    })
}

/// The distinct lists of `platforms[]` in the order given; every list when
/// empty. A number that names no list is a 400 naming `platforms[i]`.
pub fn lists_of(numbers: &[i32], field: &str) -> Result<Vec<Source>, ServiceError> {
    if numbers.is_empty() {
        return Ok(LIST_NUMBERS.iter().map(|(_, s)| *s).collect());
    }
    let mut out = Vec::new();
    for (i, number) in numbers.iter().enumerate() {
        let source = list_of(*number, &format!("{field}[{i}]"))?;
        if !out.contains(&source) {
            out.push(source);
        }
    }
    Ok(out)
}

/// The short-video list of `shortvideo-hot-trend`'s `platform` (0 = the
/// default); 400 naming `field` for any other number.
pub fn short_video_list(number: i32, field: &str) -> Result<Source, ServiceError> {
    let number = if number == 0 { DEFAULT_SHORT_VIDEO } else { number };
    if !SHORT_VIDEO_NUMBERS.contains(&number) {
        return Err(ServiceError::invalid_field(
            field,
            format!("{field}: {number} is not a short-video list ({})", described(&SHORT_VIDEO_NUMBERS)),
        ));
    }
    list_of(number, field)
}

/// The position of `source` in [`LIST_NUMBERS`] (answers list the lists in
/// this order).
pub fn list_order(source: Source) -> usize {
    LIST_NUMBERS.iter().position(|(_, s)| *s == source).unwrap_or(LIST_NUMBERS.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_list_has_one_number_and_the_spec_numbers_agree() {
        let mut sources: Vec<Source> = LIST_NUMBERS.iter().map(|(_, s)| *s).collect();
        sources.sort();
        sources.dedup();
        assert_eq!(sources.len(), Source::ALL.len());
        assert_eq!(list_of(1, "platform").unwrap(), Source::Douyin, "spec: 1 = shortvideo");
        assert_eq!(list_of(6, "platform").unwrap(), Source::Bilibili, "spec: 6 = videosite");
        assert_eq!(list_of(3, "platform").unwrap_err().field.as_deref(), Some("platform"));
    }

    #[test]
    fn lists_are_distinct_default_to_all_and_name_the_bad_element() {
        assert_eq!(lists_of(&[2, 1, 2], "platforms").unwrap(), [Source::Weibo, Source::Douyin]);
        assert_eq!(lists_of(&[], "platforms").unwrap().len(), 7);
        assert_eq!(lists_of(&[2, 0], "platforms").unwrap_err().field.as_deref(), Some("platforms[1]"));
    }

    #[test]
    fn short_video_numbers() {
        assert_eq!(short_video_list(0, "platform").unwrap(), Source::Douyin);
        assert_eq!(short_video_list(4, "platform").unwrap(), Source::Kuaishou);
        let err = short_video_list(2, "platform").unwrap_err();
        assert_eq!(err.field.as_deref(), Some("platform"));
        assert!(err.message.contains("1 douyin, 4 kuaishou"), "{}", err.message);
    }
}
