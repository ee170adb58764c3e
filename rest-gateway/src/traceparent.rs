//! The request's W3C `traceparent` header ([`mediaops_proto::traceparent`]
//! parses it): its trace id goes into the request's span, and the header to
//! the core as gRPC metadata, whose call log lines name it too.

pub use mediaops_proto::traceparent::{HEADER, TraceParent, parse};

/// The request's `traceparent` header when it is well-formed ([`parse`]);
/// `None` when absent, repeated (the spec lets a vendor ignore it) or
/// malformed.
pub fn from_headers(headers: &http::HeaderMap) -> Option<&str> {
    let mut all = headers.get_all(mediaops_proto::keys::header::TRACEPARENT).iter();
    let value = all.next()?.to_str().ok()?;
    if all.next().is_some() {
        return None;
    }
    parse(value).map(|_| value.trim_matches([' ', '\t']))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn one_well_formed_header_is_used_and_a_repeated_one_ignored() {
        let mut headers = http::HeaderMap::new();
        assert_eq!(from_headers(&headers), None);
        headers.append(HEADER, GOOD.parse().unwrap());
        assert_eq!(from_headers(&headers), Some(GOOD));
        headers.append(HEADER, GOOD.parse().unwrap());
        assert_eq!(from_headers(&headers), None);
    }
}
