//! The core's error type: the one error type of mediaops, defined in
//! `mediaops-proto` ([`mediaops_proto::error`]) so that the gateway reads
//! the same type back from a gRPC status (docs/errors.md).

pub use mediaops_proto::error::{ServiceError, UpstreamDetail};
