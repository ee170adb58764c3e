//! The mediaops content store and durable state (docs/store.md): the
//! model, the SQLite and PostgreSQL backends with their migrations, the
//! imports, the boards tables, bulk writes, retention and the state traits
//! ([`store`]), with the leaf modules it needs. `core-service` re-exports
//! these modules under the same paths (`core_service::store`, …), so a
//! change in an operation module no longer recompiles the store.
//!
//! `missing_docs` (workspace lints) is allowed in the
//! modules marked below: their public struct fields, variants and
//! constructors are not all documented yet.

pub mod chinese_count;
pub mod clock;
/// The one error type of mediaops ([`mediaops_proto::error`]).
pub mod error {
    pub use mediaops_proto::error::{ServiceError, UpstreamDetail};
}
pub mod offload;
#[allow(missing_docs)] // documentation debt, see the note above
pub mod rules;
#[allow(missing_docs)] // documentation debt, see the note above
pub mod store;
pub mod text;
