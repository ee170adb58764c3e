//! The W3C Trace Context `traceparent` header (docs/http.md): a client's
//! trace id is recorded in the gateway's request span, passed on to the core
//! as gRPC metadata `traceparent`, and named by the core's call log lines
//! (`trace_id`, docs/http.md "Tracing"). A malformed header is ignored,
//! never an error (W3C Trace Context, "traceparent Header": a vendor that
//! cannot parse it starts a new trace).

/// The header's name, also the gRPC metadata key toward the core.
pub const HEADER: &str = "traceparent";

/// The parts of a well-formed `traceparent`:
/// `version-traceid-parentid-flags`, e.g.
/// `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceParent<'a> {
    /// 32 lower-case hex digits, not all zero.
    pub trace_id: &'a str,
    /// 16 lower-case hex digits, not all zero.
    pub parent_id: &'a str,
    /// The trace flags byte (bit 0: sampled).
    pub flags: u8,
}

/// Parses `value`: version `00` is exactly 55 characters; a later version
/// (`01`-`fe`) may carry more after a `-` (the W3C forward-compatibility
/// rule); version `ff`, upper-case hex or all-zero ids are malformed (`None`).
pub fn parse(value: &str) -> Option<TraceParent<'_>> {
    let value = value.trim_matches([' ', '\t']);
    let head = value.get(..55)?;
    let rest = &value[55..];
    let mut parts = head.split('-');
    let (version, trace_id, parent_id, flags) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let lower_hex = |s: &str, len: usize| s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    let ok = parts.next().is_none()
        && lower_hex(version, 2)
        && version != "ff"
        && (rest.is_empty() || (version != "00" && rest.starts_with('-')))
        && lower_hex(trace_id, 32)
        && trace_id.bytes().any(|b| b != b'0')
        && lower_hex(parent_id, 16)
        && parent_id.bytes().any(|b| b != b'0')
        && lower_hex(flags, 2);
    ok.then(|| TraceParent { trace_id, parent_id, flags: u8::from_str_radix(flags, 16).unwrap_or(0) })
}

/// The trace id of a `traceparent` value ([`parse`]); `None` when it is
/// malformed.
pub fn trace_id(value: &str) -> Option<&str> {
    parse(value).map(|parent| parent.trace_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_well_formed_header_gives_its_parts() {
        let parsed = parse(GOOD).unwrap();
        assert_eq!(parsed.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(parsed.parent_id, "00f067aa0ba902b7");
        assert_eq!(parsed.flags, 1);
        // A later version may carry more fields.
        assert!(parse(&format!("01{}-extra", &GOOD[2..])).is_some());
    }

    #[test]
    fn malformed_headers_are_ignored() {
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01",
            "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
            "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
        assert_eq!(trace_id(GOOD), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
        assert_eq!(trace_id("00-bad"), None);
    }
}
