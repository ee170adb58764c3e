//! The `Idempotency-Key` request header (docs/billing.md "Idempotency-Key"):
//! its name and its one rule, checked by the gateway and the core alike; and
//! `Idempotent-Replayed: true`: an answer replayed under its key says so, as
//! the header Stripe's API and the IETF idempotency-key draft's users
//! expect. The core sends it as the ASCII gRPC response metadata
//! [`REPLAYED_METADATA`]; the gateway turns it into the HTTP header of the
//! same name.

/// The request header and gRPC metadata key (lower case, as HTTP/2 sends it).
pub const HEADER: &str = "idempotency-key";

/// What a client is told when its key breaks [`is_well_formed`]'s rule.
pub const RULE: &str = "Idempotency-Key must be 1-255 printable ASCII characters (no spaces)";

/// Whether `key` is 1-255 printable ASCII characters (no spaces, no
/// controls). Any other value is refused with a 400 naming the header,
/// never ignored: ignoring it would charge a retry twice (docs/errors.md "Limits of a request").
pub fn is_well_formed(key: &str) -> bool {
    (1..=255).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic())
}

/// ASCII metadata key and HTTP header name (lower case, as HTTP/2 sends it).
pub const REPLAYED_METADATA: &str = "idempotent-replayed";

/// Its value on a replayed answer; absent otherwise.
pub const REPLAYED_VALUE: &str = "true";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_printable_ascii_of_1_to_255() {
        assert!(is_well_formed("order-42"));
        assert!(is_well_formed(&"k".repeat(255)));
        for bad in ["", "order-ü-42", "with space", "tab\t", &"k".repeat(256)] {
            assert!(!is_well_formed(bad), "{bad:?}");
        }
    }
}
