//! The hot-list collectors' state as Prometheus metrics (docs/hotlists.md "Admin view", docs/metrics.md), read from
//! [`Collectors::states`] at each scrape, one series per source labelled
//! `source` (`weibo`, `douyin`, …):
//!
//! | metric | type | from [`CollectorState`] |
//! |---|---|---|
//! | `mediaops_hotlist_collector_enabled` | gauge 0/1 | `enabled` |
//! | `mediaops_hotlist_collector_runs_total` | counter | `runs` |
//! | `mediaops_hotlist_collector_failures_total` | counter | `failures` |
//! | `mediaops_hotlist_collector_consecutive_failures` | gauge | `consecutive_failures` |
//! | `mediaops_hotlist_collector_items_written_total` | counter | `items_written_total` |
//! | `mediaops_hotlist_collector_last_items` | gauge | `items_last_written` |
//! | `mediaops_hotlist_collector_last_skipped_items` | gauge | `items_last_skipped` |
//! | `mediaops_hotlist_collector_last_success_timestamp_seconds` | gauge, Unix s | `last_success_at` |
//! | `mediaops_hotlist_collector_last_error_timestamp_seconds` | gauge, Unix s | `last_error_at` |
//!
//! A timestamp series is absent until its event has happened once.

use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

use super::collector::{CollectorState, Collectors};

/// The [`Collector`] over the hot-list collectors.
pub struct CollectorMetrics(pub Arc<Collectors>);

impl std::fmt::Debug for CollectorMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CollectorMetrics")
    }
}

/// How one metric reads a state: `None` leaves that source's series out.
enum Reading {
    Counter(fn(&CollectorState) -> u64),
    Gauge(fn(&CollectorState) -> Option<i64>),
}

/// Every metric: name (after `mediaops_hotlist_collector_`), help, reading.
const METRICS: [(&str, &str, Reading); 9] = [
    ("enabled", "1 when the source is collected when the scheduler runs", Reading::Gauge(|s| Some(s.enabled.into()))),
    ("runs", "Runs finished, successful or not", Reading::Counter(|s| s.runs)),
    ("failures", "Runs that wrote nothing because every attempt failed", Reading::Counter(|s| s.failures)),
    (
        "consecutive_failures",
        "Failed runs since the last success",
        Reading::Gauge(|s| Some(saturate(s.consecutive_failures))),
    ),
    ("items_written", "Entries written by every run together", Reading::Counter(|s| s.items_written_total)),
    ("last_items", "Entries the last successful run wrote", Reading::Gauge(|s| Some(saturate(s.items_last_written)))),
    (
        "last_skipped_items",
        "Items of the last successful reply that were skipped or refused",
        Reading::Gauge(|s| Some(saturate(s.items_last_skipped))),
    ),
    (
        "last_success_timestamp_seconds",
        "Unix time of the last successful run's capture",
        Reading::Gauge(|s| unix_seconds(s.last_success_at.as_deref())),
    ),
    (
        "last_error_timestamp_seconds",
        "Unix time of the last failure",
        Reading::Gauge(|s| unix_seconds(s.last_error_at.as_deref())),
    ),
];

fn saturate(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// An RFC 3339 time (as [`CollectorState`] keeps them) as Unix seconds.
fn unix_seconds(at: Option<&str>) -> Option<i64> {
    Some(chrono::DateTime::parse_from_rfc3339(at?).ok()?.timestamp())
}

impl Collector for CollectorMetrics {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let states = self.0.states();
        for (name, help, reading) in &METRICS {
            let name = format!("hotlist_collector_{name}");
            let kind = match reading {
                Reading::Counter(_) => MetricType::Counter,
                Reading::Gauge(_) => MetricType::Gauge,
            };
            let mut metric = encoder.encode_descriptor(&name, help, None, kind)?;
            for state in &states {
                let labels = [("source", state.source.as_str())];
                match reading {
                    Reading::Counter(read) => ConstCounter::new(read(state)).encode(metric.encode_family(&labels)?)?,
                    Reading::Gauge(read) => {
                        if let Some(value) = read(state) {
                            ConstGauge::new(value).encode(metric.encode_family(&labels)?)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
