//! One Rust type per proto service, each in a module named after its
//! service (docs/architecture.md "How to add an operation"). Each type
//! implements the trait `proto/build.rs` generates from the service
//! ([`mediaops_proto::service`]), so a missing RPC is a compile error, and
//! the generated `register` puts every RPC in the [`crate::registry`].
//!
//! The types are thin: each method turns the call into a call of the domain
//! module that does the work (`crate::charter`, `crate::safety`, …).
//!
//! Methods are written as `async fn` answering their concrete reply (the
//! response, or an [`Answer`](crate::source::Answer) of it for an RPC read
//! through its source chain), which names the trait's `impl Reply` exactly:
//! `refining_impl_trait` is allowed for that (in `lib.rs`).
//!
//! Not converted yet (registered by string in their domain modules):
//! `ArticlesService`, `LifestyleService`, `ShortvideoService` and
//! `SkillsService`, whose RPCs are spread over the rankings, the data APIs,
//! the sync operations and the skills.

pub mod account;
pub mod admin;
pub mod article_studio;
pub mod catalog;
pub mod channels;
pub mod charter;
pub mod clipapp;
pub mod content_safety;
pub mod feed;
pub mod intlshort;
pub mod microblog;
pub mod multi;
pub mod task;
pub mod tool;
pub mod trend;
pub mod videosite;
pub mod watchlist;
