//! Per-operation usage counters (successful calls), which feed `usageCount`
//! in the skill catalog (spec 2.3). In-process for now; the billing issue
//! moves them next to the ledger so replicas share them.

use std::collections::HashMap;
use std::sync::Mutex;

/// Successful calls per operation key since start.
#[derive(Debug, Default)]
pub struct UsageCounters {
    counts: Mutex<HashMap<String, i64>>,
}

impl UsageCounters {
    /// Counts one successful call of `operation_key`.
    pub fn record(&self, operation_key: &str) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        *counts.entry(operation_key.to_owned()).or_default() += 1;
    }

    /// Successful calls of `operation_key` so far.
    pub fn count(&self, operation_key: &str) -> i64 {
        let counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        counts.get(operation_key).copied().unwrap_or(0)
    }
}
