//! `Idempotent-Replayed: true` (docs/billing.md "Idempotency-Key"): an
//! answer replayed under its `Idempotency-Key` says so, as the header
//! Stripe's API and the IETF idempotency-key draft's users expect. The core
//! sends it as the ASCII gRPC response metadata [`REPLAYED_METADATA`]; the
//! gateway turns it into the HTTP header of the same name.

/// ASCII metadata key and HTTP header name (lower case, as HTTP/2 sends it).
pub const REPLAYED_METADATA: &str = "idempotent-replayed";

/// Its value on a replayed answer; absent otherwise.
pub const REPLAYED_VALUE: &str = "true";
