//! The one error vocabulary of the service (ARCHITECTURE.md "Errors"): each
//! `error.code` maps to one gRPC status code and one HTTP status, so the core
//! and the gateway never disagree.

use tonic::Code;

/// The `Retry-After` of a dependency outage, in seconds (about two health
/// check intervals of a core at its defaults).
pub const RETRY_AFTER_SECS: u64 = 5;

/// Every `error.code` the service answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// 400: a field is missing, of the wrong type or out of its list.
    InvalidInput,
    /// 401: key missing, malformed, unknown or disabled (spec 5.4).
    Unauthenticated,
    /// 402: balance below the price; nothing executed or charged (spec 7).
    InsufficientPoints,
    /// 403: the resource exists but belongs to someone else.
    Forbidden,
    /// 404: unknown path, profile or record.
    NotFound,
    /// 405: the path exists with another HTTP method.
    MethodNotAllowed,
    /// 408: the request body arrived slower than the read timeout; nothing
    /// ran or was charged.
    RequestTimeout,
    /// 409: the request conflicts with stored state.
    Conflict,
    /// 413: the request body is over the size limit.
    PayloadTooLarge,
    /// 415: a body without `Content-Type: application/json` (spec 5.2).
    UnsupportedMediaType,
    /// 429: over the key's or the account's rate limit (docs/rate-limits.md); nothing ran or was charged. The answer says
    /// when to retry ([`crate::rate_limit`]).
    RateLimited,
    /// 500: a bug or broken local state; never expected.
    Internal,
    /// 502: the upstream failed or timed out; the charge is released (spec 7).
    UpstreamUnavailable,
    /// 503: the operation is under maintenance (spec 3, `execution.mode = unavailable`).
    Maintenance,
    /// 503: the operation is modelled but not built yet; the message names it.
    NotImplemented,
    /// 503: billing state (Redis) cannot be reached; nothing runs for free.
    BillingUnavailable,
    /// 503: the operation needs an upstream that is not configured (e.g. no
    /// search backend for `ai-web-search`); the message names the settings.
    NotConfigured,
    /// 503: the content store (the database) cannot be reached or is not
    /// ready (its schema is being re-created); nothing was charged, retry.
    StoreUnavailable,
}

impl ErrorCode {
    /// All codes, for tables and tests.
    pub const ALL: [ErrorCode; 18] = [
        ErrorCode::InvalidInput,
        ErrorCode::Unauthenticated,
        ErrorCode::InsufficientPoints,
        ErrorCode::Forbidden,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::RequestTimeout,
        ErrorCode::Conflict,
        ErrorCode::PayloadTooLarge,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::RateLimited,
        ErrorCode::Internal,
        ErrorCode::UpstreamUnavailable,
        ErrorCode::Maintenance,
        ErrorCode::NotImplemented,
        ErrorCode::BillingUnavailable,
        ErrorCode::NotConfigured,
        ErrorCode::StoreUnavailable,
    ];

    /// The `error.code` string.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::Unauthenticated => "unauthenticated",
            ErrorCode::InsufficientPoints => "insufficient_points",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::Conflict => "conflict",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::Internal => "internal",
            ErrorCode::UpstreamUnavailable => "upstream_unavailable",
            ErrorCode::Maintenance => "maintenance",
            ErrorCode::NotImplemented => "not_implemented",
            ErrorCode::BillingUnavailable => "billing_unavailable",
            ErrorCode::NotConfigured => "not_configured",
            ErrorCode::StoreUnavailable => "store_unavailable",
        }
    }

    /// Parses an `error.code` string.
    pub fn parse(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == code)
    }

    /// The HTTP status the gateway answers with.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::InvalidInput => 400,
            ErrorCode::Unauthenticated => 401,
            ErrorCode::InsufficientPoints => 402,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::RequestTimeout => 408,
            ErrorCode::Conflict => 409,
            ErrorCode::PayloadTooLarge => 413,
            ErrorCode::UnsupportedMediaType => 415,
            ErrorCode::RateLimited => 429,
            ErrorCode::Internal => 500,
            ErrorCode::UpstreamUnavailable => 502,
            ErrorCode::Maintenance
            | ErrorCode::NotImplemented
            | ErrorCode::BillingUnavailable
            | ErrorCode::NotConfigured
            | ErrorCode::StoreUnavailable => 503,
        }
    }

    /// The gRPC status code the core answers with.
    pub fn grpc_code(self) -> Code {
        match self {
            ErrorCode::InvalidInput | ErrorCode::PayloadTooLarge | ErrorCode::UnsupportedMediaType => {
                Code::InvalidArgument
            }
            ErrorCode::Unauthenticated => Code::Unauthenticated,
            ErrorCode::InsufficientPoints | ErrorCode::RateLimited => Code::ResourceExhausted,
            ErrorCode::Forbidden => Code::PermissionDenied,
            ErrorCode::NotFound => Code::NotFound,
            ErrorCode::MethodNotAllowed => Code::Unimplemented,
            ErrorCode::Conflict => Code::AlreadyExists,
            ErrorCode::RequestTimeout => Code::DeadlineExceeded,
            ErrorCode::Internal => Code::Internal,
            ErrorCode::UpstreamUnavailable
            | ErrorCode::Maintenance
            | ErrorCode::BillingUnavailable
            | ErrorCode::NotConfigured
            | ErrorCode::StoreUnavailable => Code::Unavailable,
            ErrorCode::NotImplemented => Code::Unimplemented,
        }
    }

    /// Seconds a client should wait before retrying, sent as the
    /// `Retry-After` header (RFC 9110 §10.2.3): set only for the transient
    /// outages of a dependency (`billing_unavailable`, `store_unavailable`),
    /// where the same request may succeed once it is back. A `rate_limited`
    /// answer has its own, computed per call: the core sends it as metadata
    /// ([`crate::rate_limit::RETRY_AFTER`]).
    pub fn retry_after_secs(self) -> Option<u64> {
        match self {
            ErrorCode::BillingUnavailable | ErrorCode::StoreUnavailable => Some(RETRY_AFTER_SECS),
            _ => None,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_through_its_string() {
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
        }
        assert_eq!(ErrorCode::parse("nope"), None);
    }

    #[test]
    fn architecture_table_statuses() {
        assert_eq!(ErrorCode::InvalidInput.http_status(), 400);
        assert_eq!(ErrorCode::Unauthenticated.http_status(), 401);
        assert_eq!(ErrorCode::InsufficientPoints.http_status(), 402);
        assert_eq!(ErrorCode::NotFound.http_status(), 404);
        assert_eq!(ErrorCode::RequestTimeout.http_status(), 408);
        assert_eq!(ErrorCode::RequestTimeout.grpc_code(), Code::DeadlineExceeded);
        assert_eq!(ErrorCode::UpstreamUnavailable.http_status(), 502);
        assert_eq!(ErrorCode::Maintenance.http_status(), 503);
        assert_eq!(ErrorCode::StoreUnavailable.http_status(), 503);
        assert_eq!(ErrorCode::StoreUnavailable.grpc_code(), Code::Unavailable);
        assert_eq!(ErrorCode::StoreUnavailable.retry_after_secs(), Some(RETRY_AFTER_SECS));
        assert_eq!(ErrorCode::Internal.retry_after_secs(), None);
        assert_eq!(ErrorCode::RateLimited.http_status(), 429);
        assert_eq!(ErrorCode::RateLimited.grpc_code(), Code::ResourceExhausted);
        assert_eq!(ErrorCode::RateLimited.retry_after_secs(), None, "computed per call, sent as metadata");
    }
}
