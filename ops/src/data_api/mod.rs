//! The data operations answered from the content store (docs/store.md):
//! search, lookups and lists on every platform, with exactly the spec's
//! response fields (spec 4.3–4.13). One module per platform token; its
//! operations answer an [`Answer`] and are called by the platform's service
//! type in [`crate::services`], so every answer comes through the
//! operation's [`mediaops_platform::source::SourceChain`] (`store` first, then any
//! configured fallbacks).
//!
//! Shared rules (docs/data-apis.md): paging per [`paging`], times per
//! [`mediaops_store::rules::times`], unknown counters are 0 (the response messages have no
//! "unknown"), a lookup miss is 404 `not_found`, an empty list is a
//! success with `items: []`.

pub mod articles;
pub mod channels;
pub mod choice;
pub mod clipapp;
pub mod comments;
pub mod feeds;
pub mod intlshort;
pub mod keyword;
pub mod lifestyle;
pub mod links;
pub mod microblog;
pub mod multi;
pub mod paging;
pub mod parse_link;
pub mod share_link;
pub mod shortvideo;
pub mod videosite;
pub mod window;

use std::sync::Arc;

use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::clock::Clock;
use mediaops_store::model::{WorkOrder, WorkQuery};
use mediaops_store::{ContentStore, StoreError};
use paging::PageRequest;

/// What the data operations share.
pub struct DataApi {
    /// The content store the data operations read.
    pub store: Arc<dyn ContentStore>,
    /// The service clock (`MEDIAOPS_NOW`): "today", windows and look-backs.
    pub clock: Clock,
}

/// A content-store failure as the caller sees it
/// ([`StoreError::into_service_error`]): bad paging is a 400 naming the
/// field, an unreachable database a 503 `store_unavailable`, anything else
/// a 500 (logged) without the database's words.
pub fn store_error(error: StoreError) -> ServiceError {
    error.into_service_error("content store")
}

/// A list answer: [`Answer::Empty`] when it has no items (so a fallback
/// source may find more), else [`Answer::Found`].
pub fn list<T>(response: T, is_empty: bool) -> Answer<T> {
    if is_empty { Answer::Empty(response) } else { Answer::Found(response) }
}

/// A query of the works of the author `author_id` (an account's
/// `platform_id`) on `platform`, newest first, on `page` (the `user-works`
/// listings, docs/data-apis.md "Paging"). Callers set any other filter or
/// order with struct update syntax.
pub fn author_works_query(platform: &str, author_id: String, page: PageRequest) -> WorkQuery {
    WorkQuery {
        platform: platform.into(),
        author_id: Some(author_id),
        order: WorkOrder::Newest,
        page: page.page,
        page_size: page.size,
        ..WorkQuery::default()
    }
}

/// A counter as the response messages carry it: unknown is 0.
pub fn count(value: Option<i64>) -> i64 {
    value.unwrap_or(0)
}

/// A required text field, trimmed, per [`mediaops_platform::fields::text`]: blank or
/// holding a control character (but tab and line breaks) is a 400 naming
/// `field` (the pipeline already refuses a missing one, this catches `"  "`
/// and `"a\u0000b"`).
pub fn required<'a>(value: &'a str, field: &str) -> Result<&'a str, ServiceError> {
    mediaops_platform::fields::text(value, field)
}
