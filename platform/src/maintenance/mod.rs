//! The maintenance switch (spec 3; docs/maintenance.md).
//!
//! An operation is under maintenance when the proto declares it so (the spec's
//! `lifestyle.comments` and `articles.articles-sync-account`), unless an admin
//! switched it at run time; an admin can switch any operation either way,
//! with a note. While under maintenance the catalogs show
//! `availability {status: maintenance, note}` and `execution.mode =
//! unavailable`, and calls answer 503 `maintenance`, uncharged.
//!
//! The automatic switch: an operation answered by vendors alone
//! (`upstream:<vendor>` chains, docs/vendors.md) is under maintenance while
//! every one of its vendors has its circuit breaker open, and available
//! again when one closes; an admin switch overrides it.
//!
//! Switches live in a [`SwitchStore`]: Redis when the ledger is in Redis, so
//! every core sees them, else a file in the data dir. Each core re-reads
//! them every [`CACHE_TTL`] in the background: a switch takes effect at once
//! on the core that took it and within that time on the others, and a call
//! never waits on the store (a frozen Redis would otherwise add its wait to
//! every call's, beyond the ledger's 2 s bound; docs/billing.md "Failing
//! closed"), except the first calls of a process, before any read.

pub mod file;
pub mod redis;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mediaops_proto::mediaops::admin::v1 as pb;
use mediaops_proto::mediaops::catalog::v1::Availability;
use serde::{Deserialize, Serialize};

use crate::registry::{OperationInfo, Registry};
use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;

/// How long a core trusts the switches it read: a switch set through one
/// core is in force on every other within this time (docs/maintenance.md; the aim is
/// within one second).
pub const CACHE_TTL: Duration = Duration::from_millis(500);

/// `availability.status` of an operation under maintenance (spec 2.4).
pub const MAINTENANCE: &str = "maintenance";
/// Status of an available operation in the admin answers.
pub const AVAILABLE: &str = "available";

/// The switches last read and when they were read.
type CachedSwitches = (Instant, Arc<HashMap<String, Switch>>);

/// One run-time switch of one operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Switch {
    /// Under maintenance (true) or available (false).
    pub maintenance: bool,
    /// Shown as `availability.note` and in the 503 message.
    pub note: String,
    /// RFC 3339 UTC.
    pub changed_at: String,
}

/// Where switches are kept, by operation key.
#[async_trait::async_trait]
pub trait SwitchStore: Send + Sync + 'static {
    /// Every switch.
    async fn load(&self) -> Result<HashMap<String, Switch>, ServiceError>;
    /// Stores the switch of `operation_key`, replacing an earlier one.
    async fn put(&self, operation_key: &str, switch: &Switch) -> Result<(), ServiceError>;
}

/// An upstream an operation depends on (a data vendor,
/// `mediaops_connectors::vendors::Vendor`), as the automatic switch sees it.
pub trait Upstream: Send + Sync {
    /// Its name in source chains (`upstream:<name>`).
    fn name(&self) -> &str;
    /// Whether its circuit is open now (it is failing).
    fn circuit_open(&self) -> bool;
}

/// The effective availability of every operation: declared, then switched.
pub struct Maintenance {
    store: Arc<dyn SwitchStore>,
    /// Declared maintenance notes, by operation key.
    declared: HashMap<String, String>,
    /// Every operation key the registry knows.
    known: std::collections::HashSet<String>,
    cache: Arc<Mutex<Option<CachedSwitches>>>,
    /// Whether the background re-read runs.
    refreshing: std::sync::OnceLock<()>,
    /// Upstream-only operations and their vendors: down while every one of
    /// their vendors' circuits is open (the automatic switch).
    watched: std::sync::OnceLock<HashMap<String, Vec<Arc<dyn Upstream>>>>,
    /// Stamps a switch's `changedAt` (the service clock, `MEDIAOPS_NOW`).
    clock: mediaops_store::clock::Clock,
}

impl Maintenance {
    /// The switch over the operations of `registry`, kept in `store`;
    /// `clock` stamps each change.
    pub fn new(registry: &Registry, store: Arc<dyn SwitchStore>, clock: mediaops_store::clock::Clock) -> Maintenance {
        let mut declared = HashMap::new();
        let mut known = std::collections::HashSet::new();
        for op in registry.operations() {
            known.insert(op.key().to_owned());
            if op.under_maintenance() {
                declared.insert(op.key().to_owned(), op.meta.availability.clone().unwrap_or_default().note);
            }
        }
        Maintenance {
            store,
            declared,
            known,
            cache: Arc::default(),
            refreshing: std::sync::OnceLock::new(),
            watched: std::sync::OnceLock::new(),
            clock,
        }
    }

    /// Turns on the automatic switch for upstream-only operations: one is
    /// under maintenance while every vendor of its chain has its circuit
    /// open, and available again when one closes. Set once, at start.
    pub fn watch_vendors(&self, operations: HashMap<String, Vec<Arc<dyn Upstream>>>) {
        if self.watched.set(operations).is_err() {
            tracing::warn!("vendor watches were set twice; the first stay");
        }
    }

    /// The automatic maintenance of `key`: its note while its vendors fail.
    fn automatic(&self, key: &str) -> Option<pb::OperationAvailability> {
        let vendors = self.watched.get()?.get(key)?;
        let failing = !vendors.is_empty() && vendors.iter().all(|v| v.circuit_open());
        failing.then(|| {
            let names: Vec<_> = vendors.iter().map(|v| v.name()).collect();
            pb::OperationAvailability {
                operation_key: key.to_owned(),
                status: MAINTENANCE.to_owned(),
                note: format!("上游数据源 {} 暂不可用，维护中，恢复后自动可用", names.join("、")),
                origin: "automatic".to_owned(),
                changed_at: String::new(),
            }
        })
    }

    /// The switches last read (re-read every [`CACHE_TTL`] behind the
    /// calls), or read now when none were. When the store cannot be read the
    /// last switches read stay in force (or none), so a store outage never
    /// stops calls by itself.
    async fn switches(&self) -> Arc<HashMap<String, Switch>> {
        self.refreshing.get_or_init(|| self.refresh_every_ttl());
        if let Some((_, switches)) = self.lock().as_ref() {
            return switches.clone();
        }
        match self.store.load().await {
            Ok(loaded) => {
                let loaded = Arc::new(loaded);
                *self.lock() = Some((Instant::now(), loaded.clone()));
                loaded
            }
            Err(e) => {
                tracing::warn!(error = %e, "maintenance switches not read; the last ones read stay in force");
                self.lock().as_ref().map(|(_, s)| s.clone()).unwrap_or_default()
            }
        }
    }

    /// Re-reads the switches every [`CACHE_TTL`] for as long as this
    /// `Maintenance` lives.
    fn refresh_every_ttl(&self) {
        let (store, cache) = (self.store.clone(), Arc::downgrade(&self.cache));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(CACHE_TTL).await;
                let loaded = store.load().await;
                let Some(cache) = cache.upgrade() else { return };
                match loaded {
                    Ok(loaded) => {
                        *cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
                            Some((Instant::now(), Arc::new(loaded)));
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "maintenance switches not read; the last ones read stay in force")
                    }
                }
            }
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<CachedSwitches>> {
        self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn effective(&self, key: &str, switches: &HashMap<String, Switch>) -> pb::OperationAvailability {
        if !switches.contains_key(key)
            && let Some(automatic) = self.automatic(key)
        {
            return automatic;
        }
        let (maintenance, note, origin, changed_at) = match (switches.get(key), self.declared.get(key)) {
            (Some(s), _) => (s.maintenance, s.note.clone(), "switched", s.changed_at.clone()),
            (None, Some(note)) => (true, note.clone(), "declared", String::new()),
            (None, None) => (false, String::new(), "declared", String::new()),
        };
        pb::OperationAvailability {
            operation_key: key.to_owned(),
            status: if maintenance { MAINTENANCE } else { AVAILABLE }.to_owned(),
            note,
            origin: origin.to_owned(),
            changed_at,
        }
    }

    /// The note of `op` when it is under maintenance now, else `None`.
    pub async fn note_if_down(&self, op: &OperationInfo) -> Option<String> {
        let switches = self.switches().await;
        let state = self.effective(op.key(), &switches);
        (state.status == MAINTENANCE).then_some(state.note)
    }

    /// The catalog `availability` of every operation switched at run time:
    /// `Some` under maintenance, `None` when switched back to available.
    /// Operations absent from the map keep their declared availability.
    pub async fn catalog_overrides(&self) -> HashMap<String, Option<Availability>> {
        let switches = self.switches().await;
        let mut overrides: HashMap<String, Option<Availability>> = switches
            .iter()
            .map(|(key, s)| {
                let availability =
                    s.maintenance.then(|| Availability { status: MAINTENANCE.to_owned(), note: s.note.clone() });
                (key.clone(), availability)
            })
            .collect();
        for key in self.watched.get().into_iter().flat_map(|w| w.keys()) {
            if let (false, Some(a)) = (switches.contains_key(key), self.automatic(key)) {
                overrides.insert(key.clone(), Some(Availability { status: a.status, note: a.note }));
            }
        }
        overrides
    }

    /// `admin.maintenance.set`: switches `operation_key`.
    ///
    /// # Errors
    /// 400 naming `operationKey` when it is empty or unknown (an admin RPC
    /// key included: the admin service cannot be switched off); 503 when the
    /// store cannot be written.
    pub async fn set(&self, request: pb::SetMaintenanceRequest) -> Result<pb::OperationAvailability, ServiceError> {
        let key = request.operation_key.trim();
        if !self.known.contains(key) {
            return Err(ServiceError::invalid_field("operationKey", format!("unknown operation key {}", excerpt(key))));
        }
        if key.starts_with("admin.") {
            return Err(ServiceError::invalid_field("operationKey", "admin operations cannot be put into maintenance"));
        }
        let switch = Switch {
            maintenance: request.maintenance,
            note: request.note.trim().to_owned(),
            changed_at: self.clock.now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        };
        self.store.put(key, &switch).await?;
        tracing::info!(operation = key, maintenance = switch.maintenance, note = switch.note, "maintenance switched");
        *self.lock() = None;
        let switches = self.switches().await;
        Ok(self.effective(key, &switches))
    }

    /// `admin.maintenance.list`: every operation under maintenance and every
    /// switched one, by operation key.
    pub async fn list(&self) -> pb::ListMaintenanceResponse {
        let switches = self.switches().await;
        let watched = self.watched.get().into_iter().flat_map(|w| w.keys());
        let down_automatically = watched.filter(|k| self.automatic(k).is_some());
        let keys: BTreeMap<&str, ()> =
            self.declared.keys().chain(switches.keys()).chain(down_automatically).map(|k| (k.as_str(), ())).collect();
        pb::ListMaintenanceResponse { operations: keys.keys().map(|k| self.effective(k, &switches)).collect() }
    }
}
