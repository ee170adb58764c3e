//! The rules of the spec (4, 4.1, 4.2, 8) in one place, below the operations
//! that apply them (`data_api`, `rankings`, `trend`, the store's retention):
//!
//! - [`platforms`]: the platform tokens of spec 1, in its order;
//! - [`times`]: the `datetime` and `date` fields (spec 4), Asia/Shanghai;
//! - [`window`]: the windows of hot keywords, hot topics and the hot-list hub
//!   (spec 4.1 "Hot-keyword and hot-topic time ranges", spec 8 "about 3
//!   weeks");
//! - [`rankings`]: period boundaries, the daily lag, each ranking's
//!   look-back, the category lists and the upstream messages (spec 4.1, 4.2,
//!   8).
//!
//! This module depends only on [`crate::clock`] and [`mediaops_proto::error`];
//! every other crate names these modules by this path (no re-exports).

pub mod platforms;
pub mod times;
pub mod window;
