//! What one call is, below everything that handles it (the lower
//! layer of the platform): the operation called ([`OperationInfo`]), what a
//! handler knows about the call ([`CallContext`], with its [`Warnings`] and
//! [`TaskIdSlot`]), the points it holds ([`HoldSlot`]) and its timing bounds
//! ([`Limits`]).
//!
//! `registry`, `billing`, `source`, `dispatch` and the operations all name
//! these types; this module names none of them, so the dependencies point
//! one way (docs/architecture.md "Layers").

mod context;
mod hold;
mod limits;
mod operation;

pub use context::{CallContext, CallFacts, TaskIdSlot, Warnings};
pub use hold::{Hold, HoldSlot};
pub use limits::Limits;
pub use operation::OperationInfo;
