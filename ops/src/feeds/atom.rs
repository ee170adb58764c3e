//! Atom 1.0 documents (RFC 4287) of the feeds, written with
//! `atom_syndication`: the feed's metadata and entries in, the XML and its
//! validators (a strong ETag of the bytes, `updated` for `Last-Modified`)
//! out.

use atom_syndication::{Category, Content, Entry, Feed, Generator, Link, Person, Text};
use chrono::{DateTime, SecondsFormat, Utc};
use mediaops_proto::mediaops::feeds::v1::FeedDocument;
use sha2::{Digest, Sha256};

use mediaops_proto::error::ServiceError;

/// The media type of every feed.
pub const CONTENT_TYPE: &str = "application/atom+xml; charset=utf-8";

/// What a feed says about itself.
pub struct FeedMeta {
    /// A URN that never changes for the feed (`urn:mediaops:feed:…`).
    pub id: String,
    /// `<title>`: the list's or the watch list's name.
    pub title: String,
    /// `<subtitle>`: what the feed shows.
    pub subtitle: String,
    /// The feed's URL path without its token (`rel="self"`).
    pub path: String,
    /// The newest change the feed shows.
    pub updated: DateTime<Utc>,
}

/// One entry.
pub struct FeedEntry {
    /// A URN stable across polls, so a reader shows an item once.
    pub id: String,
    /// The item's title.
    pub title: String,
    /// The item's page (`rel="alternate"`), when known.
    pub url: Option<String>,
    /// When the item first appeared (entries do not change `updated` as
    /// their rank moves, so readers do not mark them unread again).
    pub updated: DateTime<Utc>,
    /// One line of plain text: rank, heat, first seen, other lists.
    pub summary: String,
    /// The list or store platform (`weibo`, `lifestyle`).
    pub category: String,
}

/// The XML of `meta` with `entries` in their order, as the gateway answers
/// it.
///
/// # Errors
/// 500 if the XML cannot be written (it always can for valid UTF-8).
pub fn document(meta: FeedMeta, entries: Vec<FeedEntry>) -> Result<FeedDocument, ServiceError> {
    let fixed = |t: DateTime<Utc>| t.fixed_offset();
    let feed = Feed {
        title: Text::plain(meta.title),
        id: meta.id,
        updated: fixed(meta.updated),
        authors: vec![Person { name: "mediaops".into(), ..Default::default() }],
        generator: Some(Generator {
            value: "mediaops".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
            ..Default::default()
        }),
        links: vec![Link {
            href: meta.path,
            rel: "self".into(),
            mime_type: Some("application/atom+xml".into()),
            ..Default::default()
        }],
        subtitle: Some(Text::plain(meta.subtitle)),
        lang: Some("zh-CN".into()),
        entries: entries.into_iter().map(entry).collect(),
        ..Default::default()
    };
    let body = feed.write_to(Vec::new()).map_err(|e| ServiceError::internal(format!("writing an Atom feed: {e}")))?;
    let etag = hex::encode(&Sha256::digest(&body)[..16]);
    Ok(FeedDocument {
        content_type: CONTENT_TYPE.to_owned(),
        body,
        etag,
        updated_at: meta.updated.to_rfc3339_opts(SecondsFormat::Secs, true),
    })
}

fn entry(item: FeedEntry) -> Entry {
    let updated = item.updated.fixed_offset();
    Entry {
        title: Text::plain(item.title),
        id: item.id,
        updated,
        published: Some(updated),
        links: item.url.into_iter().map(|href| Link { href, rel: "alternate".into(), ..Default::default() }).collect(),
        categories: vec![Category { term: item.category, ..Default::default() }],
        summary: Some(Text::plain(item.summary)),
        content: None::<Content>,
        ..Default::default()
    }
}

/// A stable entry id: `urn:mediaops:<scope>:<hex of SHA-256 of key>` (the
/// first 16 bytes).
pub fn entry_id(scope: &str, key: &str) -> String {
    format!("urn:mediaops:{scope}:{}", hex::encode(&Sha256::digest(key.as_bytes())[..16]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn a_document_parses_back_with_its_entries_and_validators() {
        let meta = FeedMeta {
            id: "urn:mediaops:feed:hotlists:weibo".into(),
            title: "微博热搜 <&>".into(),
            subtitle: "mediaops".into(),
            path: "/api/feeds/hotlists/weibo.atom".into(),
            updated: at("2024-06-07T02:00:00Z"),
        };
        let entries = vec![FeedEntry {
            id: entry_id("hotlists:weibo", "高考"),
            title: "高考 & 作文".into(),
            url: Some("https://s.weibo.com/weibo?q=%E9%AB%98%E8%80%83&a=1".into()),
            updated: at("2024-06-07T01:00:00Z"),
            summary: "第 1 名".into(),
            category: "weibo".into(),
        }];
        let document = document(meta, entries).unwrap();
        assert_eq!(document.updated_at, "2024-06-07T02:00:00Z");
        assert_eq!(document.etag.len(), 32);
        let feed = Feed::read_from(&document.body[..]).unwrap();
        assert_eq!(feed.title.value, "微博热搜 <&>");
        assert_eq!(feed.entries.len(), 1);
        let first = &feed.entries[0];
        assert_eq!(first.title.value, "高考 & 作文");
        assert_eq!(first.links[0].href, "https://s.weibo.com/weibo?q=%E9%AB%98%E8%80%83&a=1");
        assert_eq!(first.id, entry_id("hotlists:weibo", "高考"));
        assert_ne!(first.id, entry_id("hotlists:weibo", "高考 "), "ids follow the key");
    }
}
