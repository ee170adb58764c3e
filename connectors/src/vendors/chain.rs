//! Source chains from config (docs/vendors.md "Source
//! chains" and "Packs"): `[sources]` maps an operation key to a chain of
//! `store`, `store:fresh` and `upstream:<vendor>` (the spec's "curated
//! store, then a larger pool"), and every operation an enabled pack maps
//! gets its kind's default chain ([`super::routes`]).
//!
//! [`Plan::build`] loads the packs and vendor files and fills the
//! [`Fallbacks`] the data operations are registered with; [`Plan::finish`]
//! then registers upstream-only operations that have no store source and
//! refuses chains that cannot be honoured.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;

use super::cache::CacheBackend;
use super::routes::{self, Kind, Route, Word};
use super::settings::VendorSettings;
use super::vendor::{MappedOperation, Vendor};
use crate::outbound::OutboundSettings;
use chrono::{DateTime, Utc};
use mediaops_platform::maintenance::Upstream;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_platform::source::{Fallbacks, Slot, Source, SourceChain};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;
use mediaops_store::ContentStore;
use mediaops_store::clock::Clock;
use mediaops_store::model::Record;

/// One mapped operation of one vendor, as a [`Source`], writing the
/// records of its `store` filter back to the content store.
pub struct VendorSource {
    name: String,
    vendor: Arc<Vendor>,
    operation: Arc<MappedOperation>,
    store: Option<Arc<dyn ContentStore>>,
    /// Stamps the snapshots written back (the service clock, so a replay
    /// under `MEDIAOPS_NOW` files them on its own days).
    clock: Clock,
}

#[async_trait]
impl Source for VendorSource {
    fn name(&self) -> &str {
        &self.name
    }

    async fn answer(&self, _ctx: &CallContext, request: Bytes) -> Result<Answer<Bytes>, ServiceError> {
        let (answer, records) = self.vendor.call_with_records(&self.operation, request).await?;
        match (&self.store, records.is_empty()) {
            // A refresh: the store answers next, from these records.
            (Some(store), false) if self.operation.refreshes() => {
                let records = vendor_records_at(&self.name, records, self.clock.now());
                if let Err(e) = store.write(&records).await {
                    tracing::warn!(source = self.name, error = %e, "refreshed records not written");
                }
            }
            (Some(store), false) => {
                write_back(store.clone(), self.name.clone(), vendor_records_at(&self.name, records, self.clock.now()))
            }
            _ => {}
        }
        Ok(answer)
    }
}

/// Writes a vendor's records to the store in the background (the answer does
/// not wait).
fn write_back(store: Arc<dyn ContentStore>, source: String, records: Vec<Record>) {
    tokio::spawn(async move {
        match store.write(&records).await {
            Ok(_) => tracing::debug!(source, records = records.len(), "vendor answer written back"),
            Err(e) => tracing::warn!(source, error = %e, "vendor answer not written back"),
        }
    });
}

/// The store records of a `store` filter's values (JSONL schema,
/// docs/store.md): snapshots without `capturedAt` are stamped now; a value
/// the schema refuses is logged (naming `source`) and skipped.
pub fn vendor_records(source: &str, values: Vec<serde_json::Value>) -> Vec<Record> {
    vendor_records_at(source, values, chrono::Utc::now())
}

/// [`vendor_records`] with snapshots lacking `capturedAt` stamped `at`
/// (the service clock's now, docs/tracking.md "What is collected").
pub fn vendor_records_at(source: &str, values: Vec<serde_json::Value>, at: DateTime<Utc>) -> Vec<Record> {
    let captured_at = at.to_rfc3339();
    let mut records = Vec::with_capacity(values.len());
    for mut value in values {
        if let Some(object) = value.as_object_mut()
            && matches!(object.get("type").and_then(|t| t.as_str()), Some("workSnapshot" | "accountSnapshot"))
        {
            object.entry("capturedAt").or_insert_with(|| captured_at.clone().into());
        }
        match mediaops_store::import::jsonl::parse_value(value) {
            Ok(record) => records.push(record),
            Err(e) => tracing::warn!(source, error = e, "a vendor record was refused"),
        }
    }
    records
}

/// The parsed chains and the vendors they use.
pub struct Plan {
    /// What the data operations are registered with.
    pub fallbacks: Fallbacks,
    /// Every loaded vendor.
    pub vendors: Vec<Arc<Vendor>>,
    /// Every route ([`routes::routes`]), by operation key, with its vendor
    /// sources in chain order.
    chains: BTreeMap<String, (Route, Vec<Arc<dyn Source>>)>,
    /// Sync operation key → the vendor mapping its workers fetch through
    /// (docs/sync.md).
    pub sync: BTreeMap<String, (Arc<Vendor>, Arc<MappedOperation>)>,
}

impl Plan {
    /// Loads the enabled packs and every vendor file
    /// ([`super::packs::resolve`]; answers cached in `cache`) and builds
    /// every route ([`routes::routes`]); answers with records are written
    /// back to `store`, their snapshots stamped by `clock`.
    ///
    /// # Errors
    /// An unknown pack, a vendor file that [`Vendor::from_file`] refuses,
    /// two vendors of one name, or a chain [`routes::routes`] refuses.
    pub fn build(
        settings: &VendorSettings,
        registry: &Registry,
        outbound: &OutboundSettings,
        env: &dyn Fn(&str) -> Option<String>,
        cache: &CacheBackend,
        store: Option<Arc<dyn ContentStore>>,
        clock: Clock,
    ) -> anyhow::Result<Plan> {
        let files = super::packs::resolve(settings)?;
        let routes = routes::routes(settings, &files, registry)?;
        let mut vendors: BTreeMap<String, Arc<Vendor>> = BTreeMap::new();
        for file in files {
            let name = file.name.clone();
            anyhow::ensure!(!vendors.contains_key(&name), "two vendor files are named {name}");
            let vendor = Vendor::from_file(file, registry, outbound, env, cache)?;
            vendors.insert(name, Arc::new(vendor));
        }
        let mut fallbacks = Fallbacks::default();
        let mut chains = BTreeMap::new();
        let mut sync = BTreeMap::new();
        for route in routes {
            let key = route.operation_key.clone();
            let mut slots = Vec::new();
            let mut upstream: Vec<Arc<dyn Source>> = Vec::new();
            for word in &route.chain {
                match word {
                    Word::Store => slots.push(Slot::Builtin),
                    Word::FreshStore(max_age) => slots.push(Slot::BuiltinIfFresh(*max_age)),
                    Word::Upstream(name) => {
                        let (vendor, operation) = mapped(&key, name, &vendors)?;
                        if route.kind == Kind::Sync {
                            sync.insert(key.clone(), (vendor.clone(), operation.clone()));
                        }
                        let source: Arc<dyn Source> = Arc::new(VendorSource {
                            name: word.to_string(),
                            vendor,
                            operation,
                            store: store.clone(),
                            clock,
                        });
                        slots.push(Slot::Source(source.clone()));
                        upstream.push(source);
                    }
                }
            }
            if route.kind == Kind::Sync {
                continue;
            }
            fallbacks.set(&key, slots);
            chains.insert(key, (route, upstream));
        }
        Ok(Plan { fallbacks, vendors: vendors.into_values().collect(), chains, sync })
    }

    /// Records every vendor's calls in `log` from now on (docs/vendors.md
    /// "Vendor spend"; `mediaops usage --vendors`).
    pub fn record_calls(&self, log: &Arc<dyn mediaops_store::vendor_call::VendorCallStore>) {
        for vendor in &self.vendors {
            vendor.record_calls(log.clone());
        }
    }

    /// After every handler is registered: registers each chain whose
    /// operation has no store source (vendors only; a default chain drops
    /// its store steps), refuses a configured chain the registry cannot
    /// honour, and returns the operations answered by vendors alone, with
    /// their vendors (for the automatic maintenance switch).
    ///
    /// # Errors
    /// A configured chain with `store` for an operation without a store
    /// source, or any configured chain for an operation whose handler does
    /// not read a source chain.
    pub fn finish(self, registry: &mut Registry) -> anyhow::Result<HashMap<String, Vec<Arc<dyn Upstream>>>> {
        let mut upstream_only = HashMap::new();
        for (key, (route, upstream)) in self.chains {
            let vendors: Vec<Arc<dyn Upstream>> = upstream
                .iter()
                .filter_map(|s| self.vendors.iter().find(|v| s.name() == format!("upstream:{}", v.name())))
                .map(|v| v.clone() as Arc<dyn Upstream>)
                .collect();
            let sourced = self.fallbacks.was_used(&key);
            let implemented = registry
                .operations()
                .find(|op| op.key() == key)
                .is_some_and(|op| registry.is_implemented(&op.grpc_path));
            let Some(chain) = routes::settle(&route, sourced, implemented)? else {
                tracing::warn!(
                    operation = key,
                    packs = ?route.packs,
                    "this operation is not answered through a source chain; its packs' mapping is not used"
                );
                continue;
            };
            if chain.iter().any(|w| !matches!(w, Word::Upstream(_))) {
                continue; // the store is in it: not upstream-only
            }
            if !sourced {
                registry.handle_chain(&key, Arc::new(SourceChain::new(upstream)))?;
            }
            upstream_only.insert(key, vendors);
        }
        Ok(upstream_only)
    }
}

/// The vendor `name` and its mapping of the operation `key`.
///
/// # Errors
/// No vendor file is named `name`, or it does not map `key`.
fn mapped(
    key: &str,
    name: &str,
    vendors: &BTreeMap<String, Arc<Vendor>>,
) -> anyhow::Result<(Arc<Vendor>, Arc<MappedOperation>)> {
    let vendor = vendors.get(name).ok_or_else(|| anyhow::anyhow!("sources.{key}: no vendor file names {name}"))?;
    let operation = vendor
        .operation(key)
        .ok_or_else(|| anyhow::anyhow!("sources.{key}: vendor {name} does not map this operation"))?;
    Ok((vendor.clone(), operation))
}
