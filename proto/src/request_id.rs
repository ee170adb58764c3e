//! Request ids (`X-Request-Id` header, `x-request-id` metadata): a client's
//! own id is kept when it is 1-128 printable ASCII characters, else a new
//! UUID is made. Shared so the gateway and the core accept the same ids.

/// Header and metadata key of the request id.
pub const HEADER: &str = "x-request-id";

/// The client's id when acceptable, else a new UUID v4.
pub fn accept_or_new(client: Option<&str>) -> String {
    client
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_owned)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_good_ids_and_replaces_bad_ones() {
        assert_eq!(accept_or_new(Some("trace-1")), "trace-1");
        for bad in [None, Some(""), Some("has space"), Some("中文")] {
            assert_eq!(accept_or_new(bad).len(), 36, "{bad:?}");
        }
        assert_eq!(accept_or_new(Some(&"x".repeat(129))).len(), 36);
    }
}
