//! Tracking lists (docs/tracking.md): per-account sets of accounts and
//! keywords of one platform whose counters the scheduler collects on a cron
//! schedule (Asia/Shanghai), so the store's snapshots (and the boards,
//! growth rankings and analyzers computed from them, spec 4.3–4.5) grow with
//! the team's own history.
//!
//! - `GET /api/tracking`, `GET|PUT|DELETE /api/tracking/{id}`,
//!   `GET /api/tracking/{id}/runs` ([`TrackingService`]): free.
//! - The scheduler ([`runner`]) runs due lists; one runner of all replicas
//!   holds a list at a time (a row lease, as watch lists are leased). A run
//!   calls each account's profile and recent works and each keyword's
//!   search ([`platforms`]) through the pipeline on the owner's account, so
//!   each call is priced, charged and sourced as a client's call of that
//!   operation; a 402 pauses the list (`state: paused_insufficient_points`).

pub mod platforms;
pub mod runner;
pub mod settings;

use std::sync::Arc;

use mediaops_proto::excerpt::excerpt;
use mediaops_proto::mediaops::tracking::v1::{
    DeletedTrackingList, ListTrackingRunsRequest, PutTrackingListRequest, TrackingList, TrackingListList,
    TrackingRunList, TrackingSpec,
};

use crate::watch::rules::parse_cron;
use crate::watch::stamp_of;
use crate::watch::state; // tracking-list states (`TrackingList.state`) are those of watch lists
use mediaops_proto::error::ServiceError;
use mediaops_store::clock::Clock;
use mediaops_store::tracking::{StoredTracking, TrackingStore};

/// Most accounts, and most keywords, of one tracking list.
pub const MAX_ENTRIES: usize = 100;
/// Most characters of one keyword.
pub const MAX_KEYWORD_CHARS: usize = 50;

/// Default and largest `limit` of the run log.
const RUNS_DEFAULT: i32 = 50;
const RUNS_MAX: i32 = 200;

/// The tracking-list operations over a store.
pub struct TrackingService {
    store: Arc<dyn TrackingStore>,
    clock: Clock,
}

impl TrackingService {
    /// The operations over `store`, stamped and scheduled by `clock`.
    pub fn new(store: Arc<dyn TrackingStore>, clock: Clock) -> Self {
        TrackingService { store, clock }
    }

    /// The account's tracking lists.
    pub async fn list(&self, account_id: &str) -> Result<TrackingListList, ServiceError> {
        let items: Vec<TrackingList> = self.store.list_tracking(account_id).await?.iter().map(view).collect();
        Ok(TrackingListList { total: items.len() as i32, items })
    }

    /// One tracking list; 404 when the account has none with that id.
    pub async fn get(&self, account_id: &str, id: &str) -> Result<TrackingList, ServiceError> {
        Ok(view(&self.stored(account_id, id).await?))
    }

    async fn stored(&self, account_id: &str, id: &str) -> Result<StoredTracking, ServiceError> {
        check_id(id)?;
        self.store
            .get_tracking(account_id, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(format!("no tracking list {} in this account", excerpt(id))))
    }

    /// Validates and stores the whole tracking list ([`normalize`]),
    /// scheduling its next run from the service clock: the first firing
    /// after now (a list saved at 09:30 with `0 9 * * *` first runs
    /// tomorrow at 09:00). Saving drops a runner's lease, so the edit wins.
    pub async fn put(&self, account_id: &str, request: PutTrackingListRequest) -> Result<TrackingList, ServiceError> {
        check_id(&request.id)?;
        let spec =
            request.tracking.ok_or_else(|| ServiceError::invalid_field("tracking", "the tracking list is required"))?;
        let spec = normalize(spec)?;
        let previous = self.store.get_tracking(account_id, &request.id).await?;
        let now = self.clock.now();
        let (state, next_run_ms) = if spec.status == state::PAUSED {
            (state::PAUSED, None)
        } else {
            (state::ACTIVE, runner::next_firing(&spec.schedule, now)?.map(|t| t.timestamp_millis()))
        };
        let stored =
            StoredTracking::saved(request.id, spec, (state, next_run_ms), self.clock.stamp(), previous.as_ref());
        self.store.put_tracking(account_id, &stored).await?;
        Ok(view(&stored))
    }

    /// Deletes a tracking list and its run log (the snapshots stay).
    pub async fn delete(&self, account_id: &str, id: &str) -> Result<DeletedTrackingList, ServiceError> {
        check_id(id)?;
        if !self.store.delete_tracking(account_id, id).await? {
            return Err(ServiceError::not_found(format!("no tracking list {} in this account", excerpt(id))));
        }
        Ok(DeletedTrackingList { id: id.to_owned(), deleted: true })
    }

    /// The newest runs of a tracking list.
    pub async fn runs(
        &self,
        account_id: &str,
        request: ListTrackingRunsRequest,
    ) -> Result<TrackingRunList, ServiceError> {
        self.stored(account_id, &request.id).await?;
        let limit = crate::watch::log_limit(request.limit, RUNS_DEFAULT, RUNS_MAX)?;
        Ok(TrackingRunList { items: self.store.runs(account_id, &request.id, i64::from(limit)).await? })
    }
}

/// A tracking-list id: 1-64 characters of `[A-Za-z0-9_-]`.
///
/// # Errors
/// 400 naming `id`.
pub fn check_id(id: &str) -> Result<(), ServiceError> {
    if mediaops_platform::validate::is_record_id(id) {
        Ok(())
    } else {
        Err(ServiceError::invalid_field("id", "tracking list id must be 1-64 characters of A-Z, a-z, 0-9, _ and -"))
    }
}

/// Checks a spec and puts it in its stored form (docs/tracking.md
/// "Fields"): trimmed name (1-100 characters), a known platform, accounts
/// as ids (profile links read, duplicates dropped), keywords trimmed
/// (1-50 characters, duplicates dropped), at most 100 of each and at least
/// one account or keyword, a 5-field cron schedule, status `active` or
/// `paused`.
///
/// # Errors
/// 400 naming the field: `tracking.name`, `tracking.platform`,
/// `tracking.accounts[i]`, `tracking.keywords[i]`, `tracking.accounts`
/// (too many, or nothing to track), `tracking.schedule`, `tracking.status`.
pub fn normalize(spec: TrackingSpec) -> Result<TrackingSpec, ServiceError> {
    let name = spec.name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(ServiceError::invalid_field("tracking.name", "`tracking.name` must be 1-100 characters"));
    }
    let platform = platforms::platform(&spec.platform)?;
    let mut accounts: Vec<String> = Vec::new();
    for (i, entry) in spec.accounts.iter().enumerate() {
        let id = platform.account_id(entry, &format!("tracking.accounts[{i}]"))?;
        if !accounts.contains(&id) {
            accounts.push(id);
        }
    }
    let mut keywords: Vec<String> = Vec::new();
    for (i, keyword) in spec.keywords.iter().enumerate() {
        let keyword = keyword.trim();
        if keyword.is_empty() || keyword.chars().count() > MAX_KEYWORD_CHARS {
            let field = format!("tracking.keywords[{i}]");
            return Err(ServiceError::invalid_field(
                field.clone(),
                format!("`{field}` must be 1-{MAX_KEYWORD_CHARS} characters"),
            ));
        }
        if !keywords.iter().any(|k| k == keyword) {
            keywords.push(keyword.to_owned());
        }
    }
    for (field, count) in [("tracking.accounts", accounts.len()), ("tracking.keywords", keywords.len())] {
        if count > MAX_ENTRIES {
            return Err(ServiceError::invalid_field(field, format!("`{field}` holds {count}; at most {MAX_ENTRIES}")));
        }
    }
    if accounts.is_empty() && keywords.is_empty() {
        return Err(ServiceError::invalid_field(
            "tracking.accounts",
            "a tracking list needs at least one account (`tracking.accounts`) or keyword (`tracking.keywords`)",
        ));
    }
    parse_cron(&spec.schedule, "tracking.schedule", "")?;
    let status = match spec.status.trim() {
        "" | state::ACTIVE => state::ACTIVE,
        state::PAUSED => state::PAUSED,
        other => {
            return Err(ServiceError::invalid_field(
                "tracking.status",
                format!("`tracking.status` is {}; allowed: active, paused", excerpt(other)),
            ));
        }
    };
    Ok(TrackingSpec {
        name,
        platform: platform.token.to_owned(),
        accounts,
        keywords,
        schedule: spec.schedule.split_whitespace().collect::<Vec<_>>().join(" "),
        status: status.to_owned(),
    })
}

/// The answer form of a stored tracking list, with the calls and the
/// points of one run ([`platforms::Platform::plan`], each operation's
/// `unit_price`).
pub fn view(stored: &StoredTracking) -> TrackingList {
    let spec = &stored.spec;
    let plan = platforms::platform(&spec.platform).map(|p| p.plan(&spec.accounts, &spec.keywords)).unwrap_or_default();
    TrackingList {
        id: stored.id.clone(),
        name: spec.name.clone(),
        platform: spec.platform.clone(),
        accounts: spec.accounts.clone(),
        keywords: spec.keywords.clone(),
        schedule: spec.schedule.clone(),
        status: spec.status.clone(),
        state: stored.state.clone(),
        state_reason: stored.state_reason.clone(),
        created_at: stored.created_at.clone(),
        updated_at: stored.updated_at.clone(),
        next_run_at: stored.next_run_ms.and_then(stamp_of),
        last_run_at: stored.last_run_ms.and_then(stamp_of),
        calls_per_run: plan.len() as i32,
        points_per_run: plan.iter().map(|(step, _)| platforms::unit_price(step.operation)).sum(),
    }
}
