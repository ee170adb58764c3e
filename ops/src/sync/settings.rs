//! `[sync]` settings (docs/sync.md "Settings").

use serde::{Deserialize, Serialize};

/// Where sync jobs wait for a worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueKind {
    /// Redis Streams when `MEDIAOPS_REDIS_URL` is set, else embedded.
    #[default]
    Auto,
    /// The `sync_queue` table of the content store's database.
    Embedded,
    /// A Redis stream read by a consumer group (needs `MEDIAOPS_REDIS_URL`).
    Redis,
}

/// How sync jobs are queued, worked and retried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SyncSettings {
    /// Where jobs are queued: in the core, or in Redis shared by cores.
    pub queue: QueueKind,
    /// Workers per core (0 = this core only accepts syncs; another core
    /// sharing the queue works them).
    pub workers: u32,
    /// Attempts before a job goes to the dead-letter list (at least 1).
    pub max_attempts: u32,
    /// Seconds before the first retry; each retry waits twice the one
    /// before, up to `retry_max_secs`, with ±20 % jitter.
    pub retry_base_secs: f64,
    /// Most seconds a retry waits.
    pub retry_max_secs: f64,
    /// Seconds a worker's claim on a job holds without renewal (it renews
    /// every third of it while it works); a job whose worker died is taken
    /// over after this.
    pub lease_secs: f64,
    /// Seconds an idle worker waits before looking at the queue again.
    pub poll_secs: f64,
}

impl Default for SyncSettings {
    fn default() -> Self {
        SyncSettings {
            queue: QueueKind::Auto,
            workers: 2,
            max_attempts: 5,
            retry_base_secs: 30.0,
            retry_max_secs: 1800.0,
            lease_secs: 60.0,
            poll_secs: 1.0,
        }
    }
}

impl SyncSettings {
    /// Refuses values the workers cannot run with, naming the key.
    pub fn check(&self) -> anyhow::Result<()> {
        anyhow::ensure!(self.max_attempts >= 1, "sync.max_attempts must be at least 1");
        anyhow::ensure!(self.workers <= 64, "sync.workers must be at most 64");
        for (name, value) in [
            ("retry_base_secs", self.retry_base_secs),
            ("retry_max_secs", self.retry_max_secs),
            ("lease_secs", self.lease_secs),
            ("poll_secs", self.poll_secs),
        ] {
            anyhow::ensure!(value.is_finite() && value > 0.0, "sync.{name} must be a positive number of seconds");
        }
        anyhow::ensure!(self.lease_secs >= 0.3, "sync.lease_secs must be at least 0.3");
        Ok(())
    }

    /// The wait before attempt `attempts + 1`, without jitter.
    pub fn backoff(&self, attempts: u32) -> std::time::Duration {
        let exponent = attempts.saturating_sub(1).min(30);
        let secs = (self.retry_base_secs * f64::from(1u32 << exponent)).min(self.retry_max_secs);
        std::time::Duration::from_secs_f64(secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let s = SyncSettings { retry_base_secs: 30.0, retry_max_secs: 100.0, ..SyncSettings::default() };
        let secs: Vec<u64> = (1..=4).map(|n| s.backoff(n).as_secs()).collect();
        assert_eq!(secs, [30, 60, 100, 100]);
        assert_eq!(s.backoff(1000).as_secs(), 100, "no overflow on many attempts");
    }

    #[test]
    fn bad_values_are_named() {
        let bad = SyncSettings { max_attempts: 0, ..SyncSettings::default() };
        assert!(bad.check().unwrap_err().to_string().contains("sync.max_attempts"));
        let bad = SyncSettings { poll_secs: f64::NAN, ..SyncSettings::default() };
        assert!(bad.check().unwrap_err().to_string().contains("sync.poll_secs"));
        assert!(SyncSettings::default().check().is_ok());
    }
}
