//! The gateway's acknowledgement of delivered answers (docs/billing.md
//! "When a call is charged"): a caller that passes the core's answer on to
//! its own client sends the ASCII metadata [`ACK_METADATA`] with the value
//! [`ACK_VALUE`], keeps its request stream open after its one request
//! message, and ends the stream once it has written the answer to its
//! client (or resets it if it could not). The core commits the call's
//! points only on that end.

/// ASCII metadata key.
pub const ACK_METADATA: &str = "mediaops-delivery-ack";

/// Its one value.
pub const ACK_VALUE: &str = "1";
