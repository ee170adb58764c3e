//! Source chains from config (issue 10 item 2; docs/vendors.md "Source
//! chains"): `[sources]` maps an operation key to `store`,
//! `upstream:<vendor>` or `store,upstream:<vendor>` (the spec's "curated
//! store, then a larger pool": a store miss or empty answer falls through).
//!
//! [`Plan::build`] loads the vendor files and fills the [`Fallbacks`] the
//! data operations are registered with; [`Plan::finish`] then registers
//! upstream-only operations that have no store source and refuses chains
//! that cannot be honoured.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;

use super::cache::CacheBackend;
use super::vendor::{MappedOperation, SYNC_RECEIPT, Vendor};
use crate::outbound::OutboundSettings;
use mediaops_platform::error::ServiceError;
use mediaops_platform::maintenance::Upstream;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_platform::source::{Answer, Fallbacks, Source, SourceChain};
use mediaops_store::store::ContentStore;
use mediaops_store::store::model::Record;

/// `vendors` and `sources` of the core's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct VendorSettings {
    /// Vendor mapping files (`vendors = ["ops/vendors/x.toml"]`).
    pub files: Vec<PathBuf>,
    /// Operation key → chain, e.g. `"shortvideo.search-work" =
    /// "store,upstream:tikhub"`. Operations not listed keep `store`.
    pub sources: BTreeMap<String, String>,
}

/// One mapped operation of one vendor, as a [`Source`], writing the
/// records of its `store` filter back to the content store.
pub struct VendorSource {
    name: String,
    vendor: Arc<Vendor>,
    operation: Arc<MappedOperation>,
    store: Option<Arc<dyn ContentStore>>,
}

#[async_trait]
impl Source for VendorSource {
    fn name(&self) -> &str {
        &self.name
    }

    async fn answer(&self, _ctx: &CallContext, request: Bytes) -> Result<Answer<Bytes>, ServiceError> {
        let (answer, records) = self.vendor.call_with_records(&self.operation, request).await?;
        if let (Some(store), false) = (&self.store, records.is_empty()) {
            write_back(store.clone(), self.name.clone(), records);
        }
        Ok(answer)
    }
}

/// Writes a vendor's records to the store in the background (the answer does
/// not wait).
fn write_back(store: Arc<dyn ContentStore>, source: String, values: Vec<serde_json::Value>) {
    let records = vendor_records(&source, values);
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
    let captured_at = chrono::Utc::now().to_rfc3339();
    let mut records = Vec::with_capacity(values.len());
    for mut value in values {
        if let Some(object) = value.as_object_mut()
            && matches!(object.get("type").and_then(|t| t.as_str()), Some("workSnapshot" | "accountSnapshot"))
        {
            object.entry("capturedAt").or_insert_with(|| captured_at.clone().into());
        }
        match mediaops_store::store::import::jsonl::parse_value(value) {
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
    /// Operation key → (store first?, upstream sources).
    chains: BTreeMap<String, (bool, Vec<Arc<dyn Source>>)>,
    /// Sync operation key → the vendor mapping its workers fetch through
    /// (docs/sync.md).
    pub sync: BTreeMap<String, (Arc<Vendor>, Arc<MappedOperation>)>,
}

impl Plan {
    /// Loads every vendor file (answers cached in `cache`) and parses every
    /// chain; answers with records are written back to `store`.
    ///
    /// # Errors
    /// A vendor file that [`Vendor::load`] refuses, two vendors of one name,
    /// a chain naming an unknown operation or vendor, a vendor that does not
    /// map the operation, or a chain of other words than `store` and
    /// `upstream:<vendor>`.
    pub fn build(
        settings: &VendorSettings,
        registry: &Registry,
        outbound: &OutboundSettings,
        env: &dyn Fn(&str) -> Option<String>,
        cache: &CacheBackend,
        store: Option<Arc<dyn ContentStore>>,
    ) -> anyhow::Result<Plan> {
        let mut vendors: BTreeMap<String, Arc<Vendor>> = BTreeMap::new();
        for path in &settings.files {
            let vendor = Vendor::load(path, registry, outbound, env, cache)?;
            let name = vendor.name().to_owned();
            anyhow::ensure!(!vendors.contains_key(&name), "two vendor files are named {name}");
            vendors.insert(name, Arc::new(vendor));
        }
        let mut fallbacks = Fallbacks::default();
        let mut chains = BTreeMap::new();
        let mut sync = BTreeMap::new();
        for (key, chain) in &settings.sources {
            let info = registry
                .operations()
                .find(|op| op.key() == key)
                .ok_or_else(|| anyhow::anyhow!("sources: operation {key} does not exist"))?;
            if info.method.output().full_name() == SYNC_RECEIPT {
                sync.insert(key.clone(), sync_vendor(key, chain, &vendors)?);
                continue;
            }
            let mut store_first = false;
            let mut upstream: Vec<Arc<dyn Source>> = Vec::new();
            for (i, word) in chain.split(',').map(str::trim).enumerate() {
                if word == "store" {
                    anyhow::ensure!(i == 0, "sources.{key}: store comes first ({chain:?})");
                    store_first = true;
                    continue;
                }
                let name = word
                    .strip_prefix("upstream:")
                    .ok_or_else(|| anyhow::anyhow!("sources.{key}: {word:?} is neither store nor upstream:<vendor>"))?;
                let (vendor, operation) = mapped(key, name, &vendors)?;
                upstream.push(Arc::new(VendorSource {
                    name: word.to_owned(),
                    vendor,
                    operation,
                    store: store.clone(),
                }));
            }
            anyhow::ensure!(store_first || !upstream.is_empty(), "sources.{key}: the chain is empty");
            if store_first {
                for source in &upstream {
                    fallbacks.add(key, source.clone());
                }
            } else {
                fallbacks.replace(key, upstream.clone());
            }
            chains.insert(key.clone(), (store_first, upstream));
        }
        Ok(Plan { fallbacks, vendors: vendors.into_values().collect(), chains, sync })
    }

    /// The operations answered by vendors alone, with their vendors (for
    /// the automatic maintenance switch).
    pub fn upstream_only(&self) -> std::collections::HashMap<String, Vec<Arc<dyn Upstream>>> {
        self.chains
            .iter()
            .filter(|(_, (store, _))| !store)
            .map(|(key, (_, sources))| {
                let vendors = sources
                    .iter()
                    .filter_map(|s| self.vendors.iter().find(|v| s.name() == format!("upstream:{}", v.name())))
                    .map(|v| v.clone() as Arc<dyn Upstream>)
                    .collect();
                (key.clone(), vendors)
            })
            .collect()
    }

    /// After every handler is registered: registers each upstream-only
    /// chain whose operation has no store source, and refuses a chain the
    /// registry cannot honour.
    ///
    /// # Errors
    /// A chain with `store` for an operation without a store source, or any
    /// chain for an operation whose handler does not read a source chain.
    pub fn finish(self, registry: &mut Registry) -> anyhow::Result<()> {
        for (key, (store, upstream)) in self.chains {
            if self.fallbacks.was_used(&key) {
                continue;
            }
            let implemented = registry
                .operations()
                .find(|op| op.key() == key)
                .is_some_and(|op| registry.is_implemented(&op.grpc_path));
            anyhow::ensure!(
                !implemented,
                "sources.{key}: this operation is not answered through a source chain, so it cannot take one"
            );
            anyhow::ensure!(!store, "sources.{key}: this operation has no store source; use upstream:<vendor> alone");
            registry.handle_chain(&key, Arc::new(SourceChain::new(upstream)))?;
        }
        Ok(())
    }
}

/// The one vendor a sync operation's chain names: `upstream:<vendor>`, a
/// vendor that maps the operation (docs/sync.md).
fn sync_vendor(
    key: &str,
    chain: &str,
    vendors: &BTreeMap<String, Arc<Vendor>>,
) -> anyhow::Result<(Arc<Vendor>, Arc<MappedOperation>)> {
    let name = chain.trim().strip_prefix("upstream:").filter(|name| !name.contains(',')).ok_or_else(|| {
        anyhow::anyhow!("sources.{key}: a sync operation fetches from one vendor: upstream:<vendor>, not {chain:?}")
    })?;
    mapped(key, name, vendors)
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
