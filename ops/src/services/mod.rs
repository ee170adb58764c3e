//! One Rust type per proto service, each in a module named after its
//! service (docs/architecture.md "How to add an operation"). Each type
//! implements the trait `proto/build.rs` generates from the service
//! ([`mediaops_proto::service`]), so a missing RPC is a compile error, and
//! the generated `register` puts every RPC in the [`mediaops_platform::registry`].
//!
//! The types are thin: each method turns the call into a call of the domain
//! module that does the work (`crate::charter`, `crate::banned_words`, …).
//!
//! Methods are written as `async fn` answering their concrete reply (the
//! response, or an [`Answer`] of it for an RPC read
//! through its source chain), which names the trait's `impl Reply` exactly:
//! `refining_impl_trait` is allowed for that (in `lib.rs`).
//!
//! Every proto service with operations is implemented here; nothing is
//! registered by string any more.

pub mod account;
pub mod admin;
pub mod article_studio;
pub mod articles;
pub mod catalog;
pub mod channels;
pub mod charter;
pub mod clipapp;
pub mod content_safety;
pub mod feed;
pub mod history;
pub mod intlshort;
pub mod lifestyle;
pub mod microblog;
pub mod multi;
pub mod shortvideo;
pub mod skills;
pub mod task;
pub mod tool;
pub mod tracking;
pub mod trend;
pub mod videosite;
pub mod watchlist;

use std::sync::Arc;

use mediaops_proto::error_code::ErrorCode;

use mediaops_proto::mediaops::common::v1::{SyncReceipt, TitleLikeList};

use crate::data_api::DataApi;
use crate::data_api::feeds::{Feed, FeedInput, Times, topic_feed};
use crate::sync::SyncService;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_platform::source::Fallbacks;
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::topic::Topic;

/// The platform services whose RPCs read the content store
/// (`ArticlesService`, `LifestyleService`, `ShortvideoService`, without a
/// sync backend, and `MultiService`), registered with `fallbacks` after the store (benches that
/// only read the store; the server builds them with its sync jobs).
///
/// # Errors
/// What [`Registry`] refuses (an RPC registered twice).
pub fn register_store_reads(api: &Arc<DataApi>, fallbacks: &Fallbacks, registry: &mut Registry) -> anyhow::Result<()> {
    use mediaops_proto::mediaops::{articles, lifestyle, multi, shortvideo};
    registry.set_fallbacks(fallbacks.clone());
    let articles_ops = self::articles::Articles { api: api.clone(), sync: None };
    articles::v1::articles_service::register(registry, &Arc::new(articles_ops))?;
    let lifestyle_ops = self::lifestyle::Lifestyle { api: api.clone(), sync: None };
    lifestyle::v1::lifestyle_service::register(registry, &Arc::new(lifestyle_ops))?;
    let shortvideo_ops = self::shortvideo::Shortvideo { api: api.clone(), sync: None };
    shortvideo::v1::shortvideo_service::register(registry, &Arc::new(shortvideo_ops))?;
    multi::v1::multi_service::register(registry, &Arc::new(self::multi::Multi(api.clone())))
}

/// The backend `backend`, or 503 `not_configured` naming `what`.
fn configured<'a, T>(backend: &'a Option<Arc<T>>, what: &str) -> Result<&'a T, ServiceError> {
    backend.as_deref().ok_or_else(|| {
        ServiceError::new(ErrorCode::NotConfigured, format!("no {what} in this process; nothing was charged"))
    })
}

/// The feed RPC `method` (its generated constant, e.g.
/// `articles_service::ARTICLES_AI_FEED`): works of the `topic` on the
/// method's platform ([`topic_feed`]).
async fn feed<Req: FeedInput>(
    api: &Arc<DataApi>,
    method: &'static str,
    topic: Topic,
    times: Times,
    request: Req,
) -> Result<Answer<TitleLikeList>, ServiceError> {
    topic_feed(api.clone(), Feed::new(method, topic, times), request).await
}

/// Queues a sync job keyed by `field` of `request` (docs/sync.md); 503
/// `not_configured` without sync jobs.
async fn submit_sync(
    sync: &Option<Arc<SyncService>>,
    ctx: &CallContext,
    field: &str,
    request: serde_json::Value,
) -> Result<SyncReceipt, ServiceError> {
    configured(sync, "sync jobs")?.submit(ctx, field, request).await
}
