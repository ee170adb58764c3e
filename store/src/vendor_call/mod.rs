//! The record of vendor calls (docs/vendors.md "Vendor spend"): the
//! [`VendorCallStore`] trait, implemented for both databases of the content
//! store (`crate::vendor_call`, migration 0016). The vendor chain
//! writes one row per request sent to a data vendor and per call its answer
//! cache answered; `mediaops usage --vendors` reads the totals.

mod sql_store;

use mediaops_proto::error::ServiceError;

/// One vendor call, or one call the answer cache answered (no request, no
/// cost).
#[derive(Debug, Clone, PartialEq)]
pub struct VendorCall {
    /// The vendor (pack) name: `tikhub`.
    pub pack: String,
    /// The route asked, `GET /api/v1/…`; `cache` for a cache hit.
    pub route: String,
    /// The operation the call answered (for a call of a several-call
    /// operation, that operation): `channels.user-works`.
    pub operation_key: String,
    /// The route's price, in `currency`; `None` when the pack gives none. A
    /// cache hit costs nothing whatever this says.
    pub cost_per_call: Option<f64>,
    /// The pack's currency (`USD`; empty when it names none).
    pub currency: String,
    /// Answered by the answer cache.
    pub cache_hit: bool,
    /// When, RFC 3339 UTC.
    pub at: String,
}

/// The calls of one (operation, pack, currency).
#[derive(Debug, Clone, PartialEq)]
pub struct VendorCallTotal {
    /// The operation the calls answered (`<platform>.<slug>`, docs/vendors.md).
    pub operation_key: String,
    /// The vendor pack that was called (its name in `[sources]`).
    pub pack: String,
    /// The currency of the pack's prices, as its configuration names it.
    pub currency: String,
    /// Requests sent to the vendor.
    pub calls: i64,
    /// Calls the answer cache answered.
    pub cache_hits: i64,
    /// The sum of the requests' `cost_per_call`, in `currency`.
    pub spend: f64,
}

/// Where vendor calls are kept.
#[async_trait::async_trait]
pub trait VendorCallStore: Send + Sync + 'static {
    /// Appends one call.
    async fn record_vendor_call(&self, call: &VendorCall) -> Result<(), ServiceError>;

    /// The totals of every (operation, pack, currency) with calls, by
    /// operation key then pack.
    async fn vendor_call_totals(&self) -> Result<Vec<VendorCallTotal>, ServiceError>;
}
