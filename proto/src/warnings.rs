//! The envelope's optional `warnings` (docs/rankings.md "Warnings"): the
//! core sends each warning of a successful answer as one entry of the
//! binary gRPC response metadata [`METADATA`] (UTF-8 bytes); the gateway
//! puts them in the envelope's top-level `warnings` array.

/// Binary metadata key (`-bin`: values are bytes, base64 on the wire).
pub const METADATA: &str = "mediaops-warnings-bin";
