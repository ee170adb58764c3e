//! The spec's rules of times, hot-list windows and platforms (spec 1, 4,
//! 4.1, 8), below the operations that apply them (`data_api`, `trend`,
//! `history`, the store's retention):
//!
//! - [`platforms`]: the platform tokens of spec 1, in its order;
//! - [`times`]: the `datetime` and `date` fields (spec 4), Asia/Shanghai;
//! - [`window`]: the windows of hot keywords, hot topics and the hot-list hub
//!   (spec 4.1 "Hot-keyword and hot-topic time ranges", spec 8 "about 3
//!   weeks").
//!
//! The ranking rules (period boundaries, the daily lag, look-backs, category
//! lists; spec 4.1, 4.2, 8) live with the rankings' store side, in
//! [`crate::rankings::rules`].
//!
//! This module depends only on [`crate::clock`] and [`mediaops_proto::error`];
//! every other crate names these modules by this path (no re-exports).

pub mod platforms;
pub mod times;
pub mod window;
