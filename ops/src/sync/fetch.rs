//! One sync's work (docs/sync.md "Vendor mapping"): read the account's pages
//! from the vendor through the operation's mapping, and write what its
//! `store` filter makes of each page to the content store.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use mediaops_connectors::vendors::chain::vendor_records;
use mediaops_connectors::vendors::vendor::{MappedOperation, Vendor};
use mediaops_proto::error::ServiceError;
use mediaops_store::ContentStore;
use mediaops_store::model::Record;

/// The vendor mapping a sync operation fetches through.
#[derive(Clone)]
pub struct SyncFetch {
    /// The vendor fetched from.
    pub vendor: Arc<Vendor>,
    /// The vendor operation mapped to the sync.
    pub operation: Arc<MappedOperation>,
}

/// What one successful sync did: the task's `sync` progress.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct SyncSummary {
    /// Vendor pages read.
    pub pages: u32,
    /// Store records written (accounts, works and their snapshots).
    pub records: u32,
    /// Of those, works and accounts.
    pub works: u32,
    /// Accounts among the records written.
    pub accounts: u32,
}

impl SyncFetch {
    /// Reads page after page (the request, plus `cursor`: `null` first,
    /// then what the mapping's `next_cursor` gave) until the last page or
    /// the mapping's `max_pages`, writing each page before the next.
    ///
    /// # Errors
    /// The vendor's (502 `upstream_unavailable`, 400, 404 `not_found`), or
    /// 500 when the store refuses the write. Pages written before a failure
    /// stay written (a retry writes them again: the store upserts).
    pub async fn run(&self, request: &Value, store: &dyn ContentStore) -> Result<SyncSummary, ServiceError> {
        let mut summary = SyncSummary::default();
        let mut cursor = Value::Null;
        loop {
            let mut page_request = request.clone();
            if let Some(object) = page_request.as_object_mut() {
                object.insert("cursor".into(), cursor.clone());
            }
            let page = self.vendor.fetch_page(&self.operation, &page_request).await?;
            summary.pages += 1;
            let records = vendor_records(self.vendor.name(), page.records);
            let results = store.write(&records).await.map_err(|e| e.into_service_error("content store"))?;
            for (record, result) in records.iter().zip(&results) {
                match result {
                    Ok(()) => count(&mut summary, record),
                    Err(e) => tracing::warn!(vendor = self.vendor.name(), error = %e, "a synced record was refused"),
                }
            }
            match page.next_cursor {
                Some(next) if next != cursor && summary.pages < self.operation.max_pages() => cursor = next,
                _ => break,
            }
        }
        Ok(summary)
    }
}

fn count(summary: &mut SyncSummary, record: &Record) {
    summary.records += 1;
    match record {
        Record::Work(_) => summary.works += 1,
        Record::Account(_) => summary.accounts += 1,
        _ => {}
    }
}
