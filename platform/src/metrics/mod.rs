//! Prometheus metrics of the core (docs/metrics.md), served as OpenMetrics
//! text at `GET /metrics` on the core's own port (HTTP/1.1 beside gRPC).
//!
//! Two kinds:
//! - per operation, counted by the call pipeline ([`Metrics::observe_call`]):
//!   calls by outcome code, latency, points charged;
//! - read at scrape time from parts that keep their own state, through a
//!   [`prometheus_client::collector::Collector`] (the hot-list collectors,
//!   `mediaops_connectors::hotlists::metrics`).

pub mod in_flight;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::Duration;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use in_flight::InFlight;

/// The path the metrics are served on.
pub const PATH: &str = "/metrics";

/// The `Content-Type` of [`Metrics::render`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Labels of a call count: the operation key and the outcome (`ok`, or the
/// error code such as `invalid_input`, `upstream_unavailable`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    operation: String,
    code: String,
}

/// Label of the per-operation latency and points.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationLabel {
    operation: String,
}

/// Labels of a watch-list delivery count: the channel type (`webhook`,
/// `wecom`, …) and the delivery-log status (`delivered`, `failed`,
/// `insufficient_points`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DeliveryLabels {
    channel_type: String,
    status: String,
}

/// `mediaops_watchlist_deliveries_total{channel_type, status}`: one count
/// per delivery-log line a watch-list run writes (docs/watchlists.md
/// "Delivery log"). A clone counts into the same series.
#[derive(Clone, Debug, Default)]
pub struct WatchDeliveries(Family<DeliveryLabels, Counter>);

impl WatchDeliveries {
    /// Counts one delivery of a digest to a `channel_type` channel that
    /// ended as `status`.
    pub fn observe(&self, channel_type: &str, status: &str) {
        self.0
            .get_or_create(&DeliveryLabels { channel_type: channel_type.to_owned(), status: status.to_owned() })
            .inc();
    }
}

type LatencyFamily = Family<OperationLabel, Histogram, fn() -> Histogram>;

/// The outcome code of a successful call.
const OK: &str = "ok";

fn operation_label(operation: &str) -> OperationLabel {
    OperationLabel { operation: operation.to_owned() }
}

/// One operation's metrics of its `ok` calls, shared with the families
/// (a prometheus-client metric's clones count together): the call
/// counter, the latency histogram, and the points counter once a call
/// kept points (so `/metrics` shows it only then, as before).
struct OkHandles {
    calls: Counter,
    latency: Histogram,
    points: OnceLock<Counter>,
}

/// Latency buckets: 1 ms doubling to about 33 s.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 16))
}

/// The core's metric registry.
pub struct Metrics {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    latency: LatencyFamily,
    points: Family<OperationLabel, Counter>,
    /// The handles of each operation's `ok` calls, by operation key.
    ok: RwLock<HashMap<Box<str>, OkHandles, foldhash::fast::RandomState>>,
    /// Watch-list deliveries by channel type and status.
    pub watch_deliveries: WatchDeliveries,
    /// Unsettled calls (`mediaops_calls_in_flight`); a stopping core waits
    /// for them (`core_service::server::Serving::serve`).
    pub in_flight: Arc<InFlight>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// A registry with the per-operation metrics, every name prefixed
    /// `mediaops_`:
    /// - `mediaops_operation_calls_total{operation, code}`: finished calls;
    /// - `mediaops_operation_duration_seconds{operation}`: latency histogram;
    /// - `mediaops_operation_points_charged_total{operation}`: points kept;
    /// - `mediaops_calls_in_flight`: calls not settled yet;
    /// - `mediaops_watchlist_deliveries_total{channel_type, status}`:
    ///   watch-list digests per channel, by how their delivery ended.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("mediaops");
        let calls = Family::<CallLabels, Counter>::default();
        let latency = LatencyFamily::new_with_constructor(latency_histogram);
        let points = Family::<OperationLabel, Counter>::default();
        registry.register(
            "operation_calls",
            "Finished operation calls, by operation key and outcome code (ok or the error code)",
            calls.clone(),
        );
        registry.register(
            "operation_duration_seconds",
            "Operation latency in seconds, from the call's arrival to its answer",
            latency.clone(),
        );
        registry.register(
            "operation_points_charged",
            "Points kept (committed) by successful calls, by operation key",
            points.clone(),
        );
        let in_flight = Arc::new(InFlight::default());
        registry.register(
            "calls_in_flight",
            "Calls that reached billing and are not settled yet (points held or an idempotency record open)",
            in_flight.gauge(),
        );
        let watch_deliveries = WatchDeliveries::default();
        registry.register(
            "watchlist_deliveries",
            "Watch-list digests sent to a channel, by channel type and delivery status (delivered, failed, insufficient_points)",
            watch_deliveries.0.clone(),
        );
        Metrics { registry, calls, latency, points, ok: RwLock::default(), watch_deliveries, in_flight }
    }

    /// Adds a collector read at each scrape; its names get the `mediaops_`
    /// prefix too.
    pub fn register_collector(&mut self, collector: Box<dyn Collector>) {
        self.registry.register_collector(collector);
    }

    /// Counts one finished call of `operation` with outcome `code` (`ok` or
    /// an error code), its latency and the points it kept.
    ///
    /// The handles of an operation's `ok` calls are found in the families
    /// once and kept (`OkHandles`): a successful call counts itself
    /// without building labels or hashing them (docs/performance.md "The
    /// settlement as the group commit's continuation"). The families, and
    /// so `/metrics`, are the same either way.
    pub fn observe_call(&self, operation: &str, code: &str, elapsed: Duration, points: i64) {
        if code == OK {
            return self.with_ok_handles(operation, |handles| {
                handles.calls.inc();
                handles.latency.observe(elapsed.as_secs_f64());
                if points > 0 {
                    let counter =
                        handles.points.get_or_init(|| self.points.get_or_create(&operation_label(operation)).clone());
                    counter.inc_by(points.unsigned_abs());
                }
            });
        }
        self.calls.get_or_create(&CallLabels { operation: operation.to_owned(), code: code.to_owned() }).inc();
        let label = operation_label(operation);
        self.latency.get_or_create(&label).observe(elapsed.as_secs_f64());
        if points > 0 {
            self.points.get_or_create(&label).inc_by(points.unsigned_abs());
        }
    }

    /// Runs `count` with the kept handles of `operation`'s `ok` calls,
    /// finding them in the families the first time.
    fn with_ok_handles(&self, operation: &str, count: impl FnOnce(&OkHandles)) {
        if let Some(handles) = self.ok.read().unwrap_or_else(|e| e.into_inner()).get(operation) {
            return count(handles);
        }
        let mut kept = self.ok.write().unwrap_or_else(|e| e.into_inner());
        let handles = kept.entry(operation.into()).or_insert_with(|| OkHandles {
            calls: self
                .calls
                .get_or_create(&CallLabels { operation: operation.to_owned(), code: OK.to_owned() })
                .clone(),
            latency: self.latency.get_or_create(&operation_label(operation)).clone(),
            points: OnceLock::new(),
        });
        count(handles);
    }

    /// The OpenMetrics text exposition of every metric.
    pub fn render(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail; an encoder error would be a bug
        // in a collector, which then only loses its own lines.
        if let Err(e) = prometheus_client::encoding::text::encode(&mut text, &self.registry) {
            tracing::error!(error = %e, "metrics encoding failed");
        }
        text
    }

    /// `GET /metrics` as an axum router, to merge beside the gRPC routes.
    pub fn router(self: Arc<Self>) -> axum::Router {
        axum::Router::new().route(
            PATH,
            axum::routing::get(move || {
                let metrics = Arc::clone(&self);
                async move { ([(axum::http::header::CONTENT_TYPE, CONTENT_TYPE)], metrics.render()) }
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_latency_and_points_are_counted_per_operation() {
        let metrics = Metrics::new();
        metrics.observe_call("trend.hot-topics", "ok", Duration::from_millis(3), 8);
        metrics.observe_call("trend.hot-topics", "ok", Duration::from_millis(5), 4);
        metrics.observe_call("trend.hot-topics", "invalid_input", Duration::from_millis(1), 0);
        let text = metrics.render();
        assert!(text.contains(r#"mediaops_operation_calls_total{operation="trend.hot-topics",code="ok"} 2"#), "{text}");
        assert!(
            text.contains(r#"mediaops_operation_calls_total{operation="trend.hot-topics",code="invalid_input"} 1"#)
        );
        assert!(text.contains(r#"mediaops_operation_points_charged_total{operation="trend.hot-topics"} 12"#));
        assert!(text.contains(r#"mediaops_operation_duration_seconds_count{operation="trend.hot-topics"} 3"#));
        assert!(text.ends_with("# EOF\n"));
    }

    /// A successful call counts through handles kept per operation; they
    /// are the families' own, and an operation whose calls kept no points
    /// has no points line, as before the handles were kept.
    #[test]
    fn kept_handles_count_in_the_families() {
        let metrics = Metrics::new();
        metrics.observe_call("tool.check-banned-words", "ok", Duration::from_millis(2), 0);
        let text = metrics.render();
        assert!(!text.contains(r#"points_charged_total{operation="tool.check-banned-words"}"#), "{text}");
        metrics.observe_call("tool.check-banned-words", "ok", Duration::from_millis(2), 5);
        metrics.observe_call("tool.check-banned-words", "ok", Duration::from_millis(2), 0);
        metrics.observe_call("videosite.query-work", "ok", Duration::from_millis(2), 1);
        let text = metrics.render();
        let lines = [
            r#"mediaops_operation_calls_total{operation="tool.check-banned-words",code="ok"} 3"#,
            r#"mediaops_operation_points_charged_total{operation="tool.check-banned-words"} 5"#,
            r#"mediaops_operation_duration_seconds_count{operation="tool.check-banned-words"} 3"#,
            r#"mediaops_operation_calls_total{operation="videosite.query-work",code="ok"} 1"#,
            r#"mediaops_operation_points_charged_total{operation="videosite.query-work"} 1"#,
        ];
        for line in lines {
            assert!(text.contains(line), "{line} in {text}");
        }
    }

    #[test]
    fn watch_list_deliveries_are_counted_by_channel_type_and_status() {
        let metrics = Metrics::new();
        let deliveries = metrics.watch_deliveries.clone();
        deliveries.observe("webhook", "failed");
        deliveries.observe("webhook", "failed");
        deliveries.observe("wecom", "delivered");
        let text = metrics.render();
        assert!(
            text.contains(r#"mediaops_watchlist_deliveries_total{channel_type="webhook",status="failed"} 2"#),
            "{text}"
        );
        assert!(text.contains(r#"mediaops_watchlist_deliveries_total{channel_type="wecom",status="delivered"} 1"#));
    }
}
