//! The HTTP header names and gRPC metadata keys every call reads or writes,
//! each parsed once: a lookup by `&str` parses and checks the name on every
//! call before it hashes it (docs/performance.md "Header names parsed
//! once"). The names are the `&str` constants of their modules (the
//! rate-limit fields' keys are [`crate::rate_limit`]'s own).

/// HTTP header names (`http::HeaderMap` lookups of the gateway).
pub mod header {
    use http::HeaderName;

    /// [`crate::request_id::HEADER`].
    pub const REQUEST_ID: HeaderName = HeaderName::from_static(crate::request_id::HEADER);
    /// [`crate::idempotency::HEADER`].
    pub const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static(crate::idempotency::HEADER);
    /// [`crate::idempotency::REPLAYED_METADATA`], the header of a replayed answer.
    pub const IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static(crate::idempotency::REPLAYED_METADATA);
    /// [`crate::traceparent::HEADER`].
    pub const TRACEPARENT: HeaderName = HeaderName::from_static(crate::traceparent::HEADER);
    /// [`crate::delivery::ACK_METADATA`], as the core reads it from the
    /// HTTP/2 request's headers.
    pub const DELIVERY_ACK: HeaderName = HeaderName::from_static(crate::delivery::ACK_METADATA);
}

/// gRPC metadata keys (`tonic::metadata::MetadataMap` lookups of the
/// gateway's call to the core and of the core's pipeline).
pub mod metadata {
    use std::sync::LazyLock;

    use tonic::metadata::{AsciiMetadataKey, BinaryMetadataKey};

    /// A key made once, on first use.
    type Key = LazyLock<AsciiMetadataKey>;

    /// `authorization`: the caller's `Bearer <key>`.
    pub static AUTHORIZATION: Key = LazyLock::new(|| AsciiMetadataKey::from_static("authorization"));
    /// [`crate::request_id::HEADER`].
    pub static REQUEST_ID: Key = LazyLock::new(|| AsciiMetadataKey::from_static(crate::request_id::HEADER));
    /// [`crate::idempotency::HEADER`].
    pub static IDEMPOTENCY_KEY: Key = LazyLock::new(|| AsciiMetadataKey::from_static(crate::idempotency::HEADER));
    /// [`crate::idempotency::REPLAYED_METADATA`].
    pub static IDEMPOTENT_REPLAYED: Key =
        LazyLock::new(|| AsciiMetadataKey::from_static(crate::idempotency::REPLAYED_METADATA));
    /// [`crate::traceparent::HEADER`].
    pub static TRACEPARENT: Key = LazyLock::new(|| AsciiMetadataKey::from_static(crate::traceparent::HEADER));
    /// [`crate::task_id::METADATA`].
    pub static TASK_ID: Key = LazyLock::new(|| AsciiMetadataKey::from_static(crate::task_id::METADATA));
    /// [`crate::delivery::ACK_METADATA`].
    pub static DELIVERY_ACK: Key = LazyLock::new(|| AsciiMetadataKey::from_static(crate::delivery::ACK_METADATA));
    /// [`crate::warnings::METADATA`] (binary).
    pub static WARNINGS: LazyLock<BinaryMetadataKey> =
        LazyLock::new(|| BinaryMetadataKey::from_static(crate::warnings::METADATA));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_are_their_modules_names() {
        assert_eq!(header::REQUEST_ID.as_str(), metadata::REQUEST_ID.as_str());
        assert_eq!(header::TRACEPARENT.as_str(), metadata::TRACEPARENT.as_str());
        assert_eq!(header::IDEMPOTENCY_KEY.as_str(), metadata::IDEMPOTENCY_KEY.as_str());
        assert_eq!(metadata::WARNINGS.as_str(), crate::warnings::METADATA);
    }
}
