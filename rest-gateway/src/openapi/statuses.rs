//! Which error statuses an operation can answer, derived from its route and
//! metadata (the rule is written out in docs/openapi.md).
//! Each status is answered with the envelope of docs/errors.md and one of
//! the `error.code`s of [`ErrorCode`] mapped to it.

use axum::http::Method;
use mediaops_proto::error_code::ErrorCode;
use mediaops_proto::mediaops::options::v1::{MetadataKind, Operation, SideEffect};

use crate::routes::Route;

/// Every status [`error_statuses`] can give, ascending.
pub const ALL: [u16; 12] = [400, 401, 402, 403, 404, 408, 409, 413, 415, 429, 502, 503];

/// The error statuses of `route` (an operation `meta`), ascending:
///
/// - 400, 401, 408, 409, 429, 502, 503 for every operation: a bad field,
///   parameter or `Idempotency-Key`; the key; the whole-request timeout; an
///   `Idempotency-Key` reused or still running (the core honours it on every
///   call); the rate limit; the core or the data source failing; maintenance
///   (switchable at run time for any operation), billing or the store down,
///   an upstream not configured or an operation not built;
/// - 402 when a call can be charged ([`mediaops_proto::options::is_charged`]);
/// - 403 for an operation writing to an external account (`sideEffect =
///   write_external`: the account may belong to another key's account);
/// - 404 for every operation but the catalogs: a record the request names
///   (a task, a profile, a theme, an official account) or the work or
///   account a data source or the store is asked for may not exist;
/// - 413 and 415 for routes taking a body (every method but GET and DELETE).
///
/// 500 `internal` is never listed: it is a bug (docs/errors.md).
pub fn error_statuses(route: &Route, meta: &Operation) -> Vec<u16> {
    let side_effect = meta.execution.unwrap_or_default().side_effect();
    let has_body = route.method != Method::GET && route.method != Method::DELETE;
    let mut statuses = vec![400, 401, 408, 409, 429, 502, 503];
    if mediaops_proto::options::is_charged(meta) {
        statuses.push(402);
    }
    if side_effect == SideEffect::WriteExternal {
        statuses.push(403);
    }
    if meta.kind() != MetadataKind::Catalog {
        statuses.push(404);
    }
    if has_body {
        statuses.extend([413, 415]);
    }
    statuses.sort_unstable();
    statuses
}

/// The `error.code`s answered with `status`, in [`ErrorCode::ALL`] order.
pub fn codes(status: u16) -> Vec<ErrorCode> {
    ErrorCode::ALL.into_iter().filter(|c| c.http_status() == status).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statuses_of(key: &str) -> Vec<u16> {
        let pool = mediaops_proto::descriptor_pool();
        let route = crate::routes::routes(pool).unwrap().into_iter().find(|r| r.operation_key == key).unwrap();
        let (_, meta) =
            mediaops_proto::options::operations(pool).into_iter().find(|(_, m)| m.operation_key == key).unwrap();
        error_statuses(&route, &meta)
    }

    #[test]
    fn statuses_follow_price_method_and_side_effect() {
        assert_eq!(statuses_of("catalog.apis"), [400, 401, 408, 409, 429, 502, 503]);
        assert_eq!(statuses_of("lifestyle.search-note"), [400, 401, 402, 404, 408, 409, 413, 415, 429, 502, 503]);
        // Listed at 6 points, not charged: no 402.
        assert!(!statuses_of("lifestyle.lifestyle-sync-notes").contains(&402));
        assert!(statuses_of("articles.publish").contains(&403));
        for status in statuses_of("articles.publish") {
            assert!(ALL.contains(&status));
            assert!(!codes(status).is_empty(), "{status}");
        }
        assert_eq!(codes(503).len(), 5);
    }
}
