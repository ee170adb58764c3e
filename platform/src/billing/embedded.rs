//! The embedded ledger of the one-process default: state in memory behind a
//! mutex, persisted to `<data_dir>/ledger.json` (atomic rewrite + fsync).
//! Concurrent changes share one write (group commit). The usage log is
//! appended to `<data_dir>/usage.jsonl`.
//!
//! Two kinds of change (docs/billing.md "Embedded or Redis"):
//! - **durable before acknowledged** (`EmbeddedLedger::change`): keys,
//!   grants, rate limits, idempotency records, the sweeper's releases. Their
//!   loss would hurt a customer (points granted, a key still enabled, an
//!   answer that a retry would pay for again);
//! - **written right after** (`EmbeddedLedger::change_soon`): the
//!   reservations, commits and releases of calls and the usage counters,
//!   on the hot path of every call. The next group write takes them, in
//!   the background [`WRITE_BEHIND`] later; a crash before it loses at
//!   most those milliseconds' calls, and a lost reservation or commit is a call not charged (a
//!   restart releases what it finds held), never a call charged twice or a
//!   failed call charged.
//!
//! One process owns a data directory: `<data_dir>/ledger.lock` is locked
//! for the ledger's lifetime, and a second opener gets a clear error.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{IdempotencyBegin, KeyInfo, Ledger, Reserved, UsageRecord, now_ms, unavailable};
use crate::auth::Principal;
use crate::auth::keys::{display_prefix, hash_key};
use crate::persist;
use crate::quota::Limit;
use mediaops_proto::error::ServiceError;

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct State {
    /// Bumped by every change; what a flush has written is compared to it.
    generation: u64,
    accounts: BTreeMap<String, Account>,
    /// SHA-256 hex of the key → key.
    keys: BTreeMap<String, KeyRecord>,
    /// (account, reservation id) → reservation.
    reservations: BTreeMap<String, Reservation>,
    /// account \u{1f} idempotency key → record.
    idempotency: BTreeMap<String, IdempotencyRecord>,
    usage_counts: BTreeMap<String, i64>,
    /// account → operation key → successful calls.
    account_usage_counts: BTreeMap<String, BTreeMap<String, i64>>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Account {
    points: i64,
    /// Its own rate limit; absent = the configured default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rate_limit: Option<Limit>,
}

#[derive(Debug, Serialize, Deserialize)]
struct KeyRecord {
    account_id: String,
    prefix: String,
    disabled: bool,
    created_at: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct Reservation {
    account_id: String,
    points: i64,
    expires_ms: i64,
}

#[derive(Debug, Serialize, Deserialize)]
struct IdempotencyRecord {
    fingerprint: String,
    /// Base64 of the stored answer; `None` while the request runs.
    response: Option<String>,
    expires_ms: i64,
}

/// How long a background write waits for more changes to take along:
/// under load one write (one fsync) per this interval instead of one after
/// another; the most a crash can lose of the calls' own changes.
pub const WRITE_BEHIND: Duration = Duration::from_millis(10);

fn reservation_key(account_id: &str, id: &str) -> String {
    format!("{account_id}\u{1f}{id}")
}

/// The embedded [`Ledger`].
pub struct EmbeddedLedger {
    disk: Arc<Disk>,
    usage_path: PathBuf,
    usage_file: Mutex<std::fs::File>,
    _lock: std::fs::File,
}

/// The state and its file: what a background write needs.
struct Disk {
    path: PathBuf,
    state: Mutex<State>,
    /// The last generation on disk.
    flushed: AtomicU64,
    /// Held by the one write under way (group commit).
    flush: tokio::sync::Mutex<()>,
    /// A background write is scheduled and has not started yet.
    write_scheduled: AtomicBool,
}

impl EmbeddedLedger {
    /// Opens the ledger of `data_dir`, migrating a `keys.json` of the first
    /// release. Reservations left by a previous process are released: it
    /// died before settling them, so those calls are not charged.
    pub fn open(data_dir: &Path) -> anyhow::Result<EmbeddedLedger> {
        std::fs::create_dir_all(data_dir)?;
        let lock =
            std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(data_dir.join("ledger.lock"))?;
        lock.try_lock().map_err(|_| {
            anyhow::anyhow!(
                "the embedded ledger in {} is in use by another mediaops process; stop it first, or use the admin gRPC API",
                data_dir.display()
            )
        })?;
        let path = data_dir.join("ledger.json");
        let mut state: State = match persist::read_if_exists(&path)? {
            Some(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| anyhow::anyhow!("{} is not a valid ledger file: {e}", path.display()))?,
            None => State::default(),
        };
        let orphans = std::mem::take(&mut state.reservations);
        for reservation in orphans.into_values() {
            state.accounts.entry(reservation.account_id).or_default().points += reservation.points;
        }
        let usage_path = data_dir.join("usage.jsonl");
        let usage_file = std::fs::OpenOptions::new().create(true).append(true).open(&usage_path)?;
        let disk = Disk {
            path,
            state: Mutex::new(state),
            flushed: AtomicU64::new(0),
            flush: tokio::sync::Mutex::new(()),
            write_scheduled: AtomicBool::new(false),
        };
        disk.write_blocking(&disk.lock_state())?;
        Ok(EmbeddedLedger { disk: Arc::new(disk), usage_path, usage_file: Mutex::new(usage_file), _lock: lock })
    }

    /// Applies `change` and returns its result once it is on disk.
    async fn change<R>(&self, change: impl FnOnce(&mut State) -> R) -> Result<R, ServiceError> {
        let (result, generation) = self.disk.apply(change);
        self.disk.durable(generation).await?;
        Ok(result)
    }

    /// Applies `change` and returns its result at once; the next group
    /// write, scheduled now in the background if none is pending, puts it
    /// on disk [`WRITE_BEHIND`] later with every change made meanwhile (see
    /// the module docs for which changes may wait).
    fn change_soon<R>(&self, change: impl FnOnce(&mut State) -> R) -> R {
        let (result, _) = self.disk.apply(change);
        if !self.disk.write_scheduled.swap(true, Ordering::AcqRel) {
            let disk = self.disk.clone();
            tokio::spawn(async move {
                tokio::time::sleep(WRITE_BEHIND).await;
                disk.write_scheduled.store(false, Ordering::Release);
                let generation = disk.lock_state().generation;
                if let Err(e) = disk.durable(generation).await {
                    tracing::error!(error = %e.message, "the ledger file was not written; the next change retries");
                }
            });
        }
        result
    }

    fn read<R>(&self, read: impl FnOnce(&State) -> R) -> R {
        read(&self.disk.lock_state())
    }
}

impl Disk {
    fn lock_state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes `state` (the locked state) on this thread: when the ledger
    /// opens and when it closes, where there is no group write to join.
    fn write_blocking(&self, state: &State) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(state).map_err(std::io::Error::other)?;
        persist::write_atomic(&self.path, &bytes)?;
        self.flushed.store(state.generation, Ordering::Release);
        Ok(())
    }

    /// Applies `change` in memory; returns its result and the generation
    /// that holds it.
    fn apply<R>(&self, change: impl FnOnce(&mut State) -> R) -> (R, u64) {
        let mut state = self.lock_state();
        let result = change(&mut state);
        state.generation += 1;
        (result, state.generation)
    }

    /// Group commit: the first waiter writes everything changed so far; the
    /// others find their change already written.
    async fn durable(&self, generation: u64) -> Result<(), ServiceError> {
        let _flush = self.flush.lock().await;
        if self.flushed.load(Ordering::Acquire) >= generation {
            return Ok(());
        }
        let (bytes, written) = {
            let state = self.lock_state();
            (serde_json::to_vec(&*state).map_err(unavailable)?, state.generation)
        };
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || persist::write_atomic(&path, &bytes))
            .await
            .map_err(unavailable)?
            .map_err(|e| unavailable(format!("cannot write the ledger file: {e}")))?;
        self.flushed.store(written, Ordering::Release);
        Ok(())
    }
}

/// A ledger closed with changes not yet written (a call settled just
/// before shutdown) writes them now.
impl Drop for EmbeddedLedger {
    fn drop(&mut self) {
        let state = self.disk.lock_state();
        if self.disk.flushed.load(Ordering::Acquire) >= state.generation {
            return;
        }
        if let Err(e) = self.disk.write_blocking(&state) {
            tracing::error!(error = %e, "the ledger's last changes were not written");
        }
    }
}

/// Releases the account's expired reservations; returns how many.
fn release_expired_of(state: &mut State, account: Option<&str>, now: i64) -> usize {
    let expired: Vec<String> = state
        .reservations
        .iter()
        .filter(|(_, r)| r.expires_ms <= now && account.is_none_or(|a| a == r.account_id))
        .map(|(k, _)| k.clone())
        .collect();
    for key in &expired {
        if let Some(r) = state.reservations.remove(key) {
            state.accounts.entry(r.account_id).or_default().points += r.points;
        }
    }
    expired.len()
}

#[async_trait::async_trait]
impl Ledger for EmbeddedLedger {
    async fn ping(&self) -> Result<(), ServiceError> {
        Ok(())
    }

    async fn authenticate(&self, key: &str) -> Result<Principal, ServiceError> {
        let hash = hash_key(key);
        self.read(|state| match state.keys.get(&hash) {
            Some(record) if !record.disabled => Ok(Principal {
                account_id: record.account_id.clone(),
                key_id: hash[..12].to_owned(),
                key_prefix: record.prefix.clone(),
            }),
            Some(_) => Err(ServiceError::unauthenticated("this API key is disabled")),
            None => Err(ServiceError::unauthenticated("unknown API key")),
        })
    }

    async fn insert_key(&self, key: &str, account_id: &str) -> Result<bool, ServiceError> {
        let hash = hash_key(key);
        let record = KeyRecord {
            account_id: account_id.to_owned(),
            prefix: display_prefix(key),
            disabled: false,
            created_at: chrono::Utc::now().to_rfc3339(),
        };
        self.change(|state| {
            if state.keys.contains_key(&hash) {
                return false;
            }
            state.accounts.entry(account_id.to_owned()).or_default();
            state.keys.insert(hash, record);
            true
        })
        .await
    }

    async fn disable_key(&self, key_id: &str) -> Result<bool, ServiceError> {
        self.change(|state| {
            match state.keys.iter_mut().find(|(hash, _)| hash.starts_with(key_id) && key_id.len() >= 8) {
                Some((_, record)) => {
                    record.disabled = true;
                    true
                }
                None => false,
            }
        })
        .await
    }

    async fn list_keys(&self) -> Result<Vec<KeyInfo>, ServiceError> {
        let mut keys: Vec<KeyInfo> = self.read(|state| {
            state
                .keys
                .iter()
                .map(|(hash, r)| KeyInfo {
                    key_id: hash[..12].to_owned(),
                    prefix: r.prefix.clone(),
                    account_id: r.account_id.clone(),
                    disabled: r.disabled,
                    created_at: r.created_at.clone(),
                })
                .collect()
        });
        keys.sort_by(|a, b| a.created_at.cmp(&b.created_at));
        Ok(keys)
    }

    async fn grant(&self, account_id: &str, points: i64) -> Result<i64, ServiceError> {
        self.change(|state| {
            let account = state.accounts.entry(account_id.to_owned()).or_default();
            account.points += points;
            account.points
        })
        .await
    }

    async fn balance(&self, account_id: &str) -> Result<Option<i64>, ServiceError> {
        Ok(self.read(|state| state.accounts.get(account_id).map(|a| a.points)))
    }

    async fn reserve(&self, account_id: &str, id: &str, points: i64, ttl: Duration) -> Result<Reserved, ServiceError> {
        let now = now_ms();
        Ok(self.change_soon(|state| {
            release_expired_of(state, Some(account_id), now);
            let account = state.accounts.entry(account_id.to_owned()).or_default();
            if account.points < points {
                return Reserved::Insufficient { balance: account.points };
            }
            account.points -= points;
            let balance = account.points;
            let reservation =
                Reservation { account_id: account_id.to_owned(), points, expires_ms: now + ttl.as_millis() as i64 };
            state.reservations.insert(reservation_key(account_id, id), reservation);
            Reserved::Held { balance }
        }))
    }

    async fn commit(&self, account_id: &str, id: &str) -> Result<bool, ServiceError> {
        Ok(self.change_soon(|state| state.reservations.remove(&reservation_key(account_id, id)).is_some()))
    }

    async fn release(&self, account_id: &str, id: &str) -> Result<bool, ServiceError> {
        Ok(self.change_soon(|state| match state.reservations.remove(&reservation_key(account_id, id)) {
            Some(r) => {
                state.accounts.entry(r.account_id).or_default().points += r.points;
                true
            }
            None => false,
        }))
    }

    async fn release_expired(&self) -> Result<usize, ServiceError> {
        let now = now_ms();
        if self.read(|state| state.reservations.values().all(|r| r.expires_ms > now)) {
            return Ok(0);
        }
        self.change(|state| release_expired_of(state, None, now)).await
    }

    async fn idempotency_begin(
        &self,
        account_id: &str,
        key: &str,
        fingerprint: &str,
        pending_ttl: Duration,
    ) -> Result<IdempotencyBegin, ServiceError> {
        let now = now_ms();
        let slot = format!("{account_id}\u{1f}{key}");
        self.change(|state| {
            state.idempotency.retain(|_, r| r.expires_ms > now);
            match state.idempotency.get(&slot) {
                Some(IdempotencyRecord { response: None, .. }) => IdempotencyBegin::InProgress,
                Some(IdempotencyRecord { response: Some(b64), fingerprint: stored, .. }) => {
                    use base64::Engine;
                    IdempotencyBegin::Replay {
                        same_request: stored == fingerprint,
                        response: base64::engine::general_purpose::STANDARD.decode(b64).unwrap_or_default(),
                    }
                }
                None => {
                    let record = IdempotencyRecord {
                        fingerprint: fingerprint.to_owned(),
                        response: None,
                        expires_ms: now + pending_ttl.as_millis() as i64,
                    };
                    state.idempotency.insert(slot, record);
                    IdempotencyBegin::New
                }
            }
        })
        .await
    }

    async fn idempotency_finish(
        &self,
        account_id: &str,
        key: &str,
        response: Option<&[u8]>,
    ) -> Result<(), ServiceError> {
        use base64::Engine;
        let slot = format!("{account_id}\u{1f}{key}");
        let encoded = response.map(|r| base64::engine::general_purpose::STANDARD.encode(r));
        let expires_ms = now_ms() + super::IDEMPOTENCY_TTL.as_millis() as i64;
        self.change(|state| match encoded {
            Some(b64) => {
                if let Some(record) = state.idempotency.get_mut(&slot) {
                    record.response = Some(b64);
                    record.expires_ms = expires_ms;
                }
            }
            None => {
                state.idempotency.remove(&slot);
            }
        })
        .await
    }

    async fn record_usage(&self, record: &UsageRecord) -> Result<(), ServiceError> {
        let mut line = serde_json::to_vec(record).map_err(unavailable)?;
        line.push(b'\n');
        {
            let mut file = self.usage_file.lock().unwrap_or_else(|e| e.into_inner());
            file.write_all(&line).map_err(|e| unavailable(format!("cannot append the usage log: {e}")))?;
        }
        if record.outcome == "ok" {
            self.change_soon(|state| {
                *state.usage_counts.entry(record.operation_key.clone()).or_default() += 1;
                let account = state.account_usage_counts.entry(record.account_id.clone()).or_default();
                *account.entry(record.operation_key.clone()).or_default() += 1;
            });
        }
        Ok(())
    }

    async fn usage_counts(&self) -> Result<HashMap<String, i64>, ServiceError> {
        Ok(self.read(|state| state.usage_counts.iter().map(|(k, v)| (k.clone(), *v)).collect()))
    }

    async fn account_usage_counts(&self, account_id: &str) -> Result<HashMap<String, i64>, ServiceError> {
        Ok(self.read(|state| {
            state
                .account_usage_counts
                .get(account_id)
                .map(|counts| counts.iter().map(|(k, v)| (k.clone(), *v)).collect())
                .unwrap_or_default()
        }))
    }

    async fn usage_log(&self, account_id: &str, limit: usize) -> Result<Vec<UsageRecord>, ServiceError> {
        let path = self.usage_path.clone();
        let account_id = account_id.to_owned();
        tokio::task::spawn_blocking(move || -> Result<Vec<UsageRecord>, ServiceError> {
            let text = std::fs::read_to_string(&path).map_err(unavailable)?;
            let mut records: Vec<UsageRecord> = text
                .lines()
                .filter_map(|line| serde_json::from_str::<UsageRecord>(line).ok())
                .filter(|r| r.account_id == account_id)
                .collect();
            records.reverse();
            records.truncate(limit.min(super::USAGE_LOG_LIMIT));
            Ok(records)
        })
        .await
        .map_err(unavailable)?
    }

    async fn rate_limit(&self, account_id: &str) -> Result<Option<Limit>, ServiceError> {
        Ok(self.read(|state| state.accounts.get(account_id).and_then(|a| a.rate_limit)))
    }

    async fn set_rate_limit(&self, account_id: &str, limit: Option<Limit>) -> Result<(), ServiceError> {
        self.change(|state| state.accounts.entry(account_id.to_owned()).or_default().rate_limit = limit).await
    }
}
