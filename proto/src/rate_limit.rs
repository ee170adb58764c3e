//! The rate-limit fields of an answer (docs/rate-limits.md):
//! `RateLimit-Policy` and `RateLimit` of the IETF draft
//! draft-ietf-httpapi-ratelimit-headers (revision 11; structured-field
//! lists, e.g. `"default";q=20;w=1` and `"default";r=3;t=1`), and
//! `Retry-After` (RFC 9110 §10.2.3, whole seconds) on a 429 `rate_limited`.
//!
//! The core sends them as ASCII gRPC metadata of the same lower-case names,
//! on a success and on a `rate_limited` failure of a limited account; the
//! gateway copies them to the HTTP headers of the answer.

use tonic::metadata::MetadataMap;

/// The quota policy: `"default";q=<calls>;w=<seconds>` (draft section 3).
pub const POLICY: &str = "ratelimit-policy";

/// The service limit now: `"default";r=<calls left>;t=<seconds>` (draft section 4).
pub const STATE: &str = "ratelimit";

/// Whole seconds to wait before the next call can pass (at least 1); only
/// on a `rate_limited` failure.
pub const RETRY_AFTER: &str = "retry-after";

/// Every field, in the order they are copied.
pub const FIELDS: [&str; 3] = [POLICY, STATE, RETRY_AFTER];

/// [`FIELDS`] as metadata keys, parsed once (docs/performance.md "Header
/// names parsed once").
static KEYS: std::sync::LazyLock<[tonic::metadata::AsciiMetadataKey; 3]> =
    std::sync::LazyLock::new(|| FIELDS.map(tonic::metadata::AsciiMetadataKey::from_static));

/// The one policy's identifier in both fields.
pub const POLICY_NAME: &str = "default";

/// The fields present in `metadata`, as `(name, value)` in [`FIELDS`]
/// order. Values that are not visible ASCII are left out.
pub fn from_metadata(metadata: &MetadataMap) -> Vec<(&'static str, String)> {
    FIELDS
        .into_iter()
        .zip(KEYS.iter())
        .filter_map(|(name, key)| {
            let value = metadata.get(key)?.to_str().ok()?;
            value.bytes().all(|b| b == b' ' || b.is_ascii_graphic()).then(|| (name, value.to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_rate_limit_fields_are_taken() {
        let mut metadata = MetadataMap::new();
        metadata.insert(STATE, "\"default\";r=0;t=1".parse().unwrap());
        metadata.insert(RETRY_AFTER, "1".parse().unwrap());
        metadata.insert("x-request-id", "r1".parse().unwrap());
        assert_eq!(
            from_metadata(&metadata),
            vec![(STATE, "\"default\";r=0;t=1".to_owned()), (RETRY_AFTER, "1".to_owned())]
        );
        assert!(from_metadata(&MetadataMap::new()).is_empty());
    }
}
