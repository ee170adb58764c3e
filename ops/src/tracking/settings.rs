//! `[tracking]` settings (`MEDIAOPS_TRACKING__…`; docs/tracking.md
//! "Configuration").

use serde::{Deserialize, Serialize};

/// How the tracking scheduler runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct TrackingSettings {
    /// Whether this core runs due tracking lists (`…__SCHEDULER`); the API
    /// works either way.
    pub scheduler: bool,
    /// Seconds between two looks for due tracking lists (`…__TICK_SECS`).
    pub tick_secs: f64,
    /// Seconds a runner holds a tracking list it runs before another may
    /// take it over (`…__LEASE_SECS`); a run of many accounts needs longer
    /// than its calls take.
    pub lease_secs: u64,
}

impl Default for TrackingSettings {
    fn default() -> Self {
        TrackingSettings { scheduler: true, tick_secs: 30.0, lease_secs: 1800 }
    }
}
