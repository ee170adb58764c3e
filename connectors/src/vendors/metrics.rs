//! What the vendors cost (docs/metrics.md "Vendors"; docs/vendors.md
//! "Costs"), read from each mapped operation's counters at each scrape, one
//! series per vendor and operation (labels `vendor`, `operation`):
//!
//! | metric | type | meaning |
//! |---|---|---|
//! | `mediaops_vendor_requests_total` | counter | requests sent to the vendor (retries not counted apart) |
//! | `mediaops_vendor_cache_hits_total` | counter | calls answered by the answer cache: no request, no cost |
//! | `mediaops_vendor_shared_total` | counter | calls that shared another identical call's request (single flight) |
//! | `mediaops_vendor_spend_total` | counter | requests × the route's `cost_per_call`, in `currency` (label) |

use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;

use super::Vendor;
use super::vendor::RouteUsage;

/// How a counter reads a route's usage.
type Read = fn(&RouteUsage) -> u64;

/// The [`Collector`] over every loaded vendor.
pub struct VendorMetrics(pub Vec<Arc<Vendor>>);

impl std::fmt::Debug for VendorMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("VendorMetrics")
    }
}

impl Collector for VendorMetrics {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let rows: Vec<_> = self.0.iter().flat_map(|v| v.usage()).collect();
        let counts: [(&str, &str, Read); 3] = [
            ("vendor_requests", "Requests sent to the vendor", |u| u.requests),
            ("vendor_cache_hits", "Calls answered by the vendor answer cache, at no cost", |u| u.cache_hits),
            ("vendor_shared", "Calls that shared an identical concurrent call's request", |u| u.shared),
        ];
        for (name, help, read) in counts {
            let mut metric = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
            for row in &rows {
                let labels = [("vendor", row.vendor.as_str()), ("operation", row.operation.as_str())];
                ConstCounter::new(read(row)).encode(metric.encode_family(&labels)?)?;
            }
        }
        let mut metric = encoder.encode_descriptor(
            "vendor_spend",
            "Requests times the route's cost_per_call, in the pack's currency",
            None,
            MetricType::Counter,
        )?;
        for row in rows.iter().filter(|r| r.cost_per_call.is_some()) {
            let labels = [
                ("vendor", row.vendor.as_str()),
                ("operation", row.operation.as_str()),
                ("currency", row.currency.as_str()),
            ];
            ConstCounter::new(row.spend()).encode(metric.encode_family(&labels)?)?;
        }
        Ok(())
    }
}
