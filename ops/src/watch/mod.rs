//! Watch lists (docs/watchlists.md): per-account keyword
//! subscriptions over the hot lists and the store, pushed on a cron schedule
//! (Asia/Shanghai) or on change to a channel, with a seen-set so an item is
//! pushed once, and a delivery log.
//!
//! - `GET /api/watchlists`, `GET|PUT|DELETE /api/watchlists/{id}`,
//!   `GET /api/watchlists/{id}/deliveries` ([`WatchService`]): free.
//! - The scheduler ([`runner`]) runs due watch lists; one runner of all
//!   replicas holds a watch list at a time (a row lease in the store, as
//!   tasks are leased). A delivered digest costs [`DIGEST_PRICE`] point,
//!   reserved before sending and committed only once a channel accepted it;
//!   a 402 pauses the watch list (`state: paused_insufficient_points`).

pub mod digest;
pub mod rules;
pub mod runner;
pub mod settings;

use std::sync::Arc;

use chrono::{DateTime, SecondsFormat, Utc};
use mediaops_proto::excerpt::excerpt;
use mediaops_proto::mediaops::watch::v1::{
    ChannelView, DeletedWatchlist, DeliveryList, ListDeliveriesRequest, PutWatchlistRequest, Watchlist, WatchlistList,
    WatchlistSpec,
};

use mediaops_connectors::outbound::GuardedFetcher;
use mediaops_proto::error::ServiceError;
use mediaops_store::clock::Clock;
use mediaops_store::watch::{StoredWatchlist, WatchStore};

/// Points a delivered digest costs (docs/watchlists.md
/// "Pricing"): whatever the number of channels or items.
pub const DIGEST_PRICE: i64 = 1;

/// Watch-list states (`Watchlist.state`).
pub mod state {
    /// Scheduled.
    pub const ACTIVE: &str = "active";
    /// Paused by its owner (`status: paused`).
    pub const PAUSED: &str = "paused";
    /// A digest met 402 `insufficient_points`; saving the watch list again resumes it.
    pub const PAUSED_POINTS: &str = "paused_insufficient_points";
}

/// Default and largest `limit` of the delivery log.
const DELIVERIES_DEFAULT: i32 = 50;
const DELIVERIES_MAX: i32 = 200;

/// The watch-list operations over a store.
pub struct WatchService {
    store: Arc<dyn WatchStore>,
    clock: Clock,
    fetcher: GuardedFetcher,
    settings: settings::WatchSettings,
}

impl WatchService {
    /// The watch-list API over `store`: `clock` stamps and schedules runs,
    /// `fetcher` checks channel URLs when a watch list is saved, `settings`
    /// say which channel kinds can be used (e-mail needs SMTP).
    pub fn new(
        store: Arc<dyn WatchStore>,
        clock: Clock,
        fetcher: GuardedFetcher,
        settings: settings::WatchSettings,
    ) -> Self {
        WatchService { store, clock, fetcher, settings }
    }

    /// The account's watch lists.
    pub async fn list(&self, account_id: &str) -> Result<WatchlistList, ServiceError> {
        let items: Vec<Watchlist> = self.store.list_watchlists(account_id).await?.iter().map(view).collect();
        Ok(WatchlistList { total: items.len() as i32, items })
    }

    /// One watch list; 404 when the account has none with that id.
    pub async fn get(&self, account_id: &str, id: &str) -> Result<Watchlist, ServiceError> {
        Ok(view(&self.stored(account_id, id).await?))
    }

    async fn stored(&self, account_id: &str, id: &str) -> Result<StoredWatchlist, ServiceError> {
        check_id(id)?;
        self.store
            .get_watchlist(account_id, id)
            .await?
            .ok_or_else(|| ServiceError::not_found(format!("no watch list {} in this account", excerpt(id))))
    }

    /// Validates and stores the whole watch list, scheduling its next run
    /// from the service clock. Channel secrets left empty keep the stored
    /// secret of the same channel (type and url); a channel URL is checked
    /// by the outbound guard now (400 naming it) and again at each send.
    pub async fn put(&self, account_id: &str, request: PutWatchlistRequest) -> Result<Watchlist, ServiceError> {
        check_id(&request.id)?;
        let spec =
            request.watchlist.ok_or_else(|| ServiceError::invalid_field("watchlist", "the watch list is required"))?;
        let mut spec = rules::normalize(spec)?;
        for (i, channel) in spec.channels.iter().enumerate() {
            self.settings.channel_available(&channel.r#type, &format!("watchlist.channels[{i}].type"))?;
            if !channel.url.is_empty() {
                let field = format!("watchlist.channels[{i}].url");
                let url = url::Url::parse(channel.url.trim())
                    .map_err(|e| ServiceError::invalid_field(field.clone(), format!("`{field}` is not a URL: {e}")))?;
                self.fetcher.check(&url).await.map_err(|e| e.to_service_error("the channel URL", Some(&field)))?;
            }
        }
        let previous = self.store.get_watchlist(account_id, &request.id).await?;
        if let Some(previous) = &previous {
            keep_secrets(&mut spec, &previous.spec);
        }
        let now = self.clock.now();
        let schedule = rules::Schedule::parse(&spec.schedule)?;
        let (state, next_run_ms) = if spec.status == state::PAUSED {
            (state::PAUSED, None)
        } else {
            (state::ACTIVE, schedule.next_after(now, self.settings.on_change_every()).map(|t| t.timestamp_millis()))
        };
        let stored =
            StoredWatchlist::saved(request.id, spec, (state, next_run_ms), self.clock.stamp(), previous.as_ref());
        self.store.put_watchlist(account_id, &stored).await?;
        Ok(view(&stored))
    }

    /// Deletes a watch list, its seen-set and its delivery log.
    pub async fn delete(&self, account_id: &str, id: &str) -> Result<DeletedWatchlist, ServiceError> {
        check_id(id)?;
        if !self.store.delete_watchlist(account_id, id).await? {
            return Err(ServiceError::not_found(format!("no watch list {} in this account", excerpt(id))));
        }
        Ok(DeletedWatchlist { id: id.to_owned(), deleted: true })
    }

    /// The newest lines of a watch list's delivery log.
    pub async fn deliveries(
        &self,
        account_id: &str,
        request: ListDeliveriesRequest,
    ) -> Result<DeliveryList, ServiceError> {
        self.stored(account_id, &request.id).await?;
        let limit = log_limit(request.limit, DELIVERIES_DEFAULT, DELIVERIES_MAX)?;
        Ok(DeliveryList { items: self.store.deliveries(account_id, &request.id, i64::from(limit)).await? })
    }
}

/// The `limit` of a log (deliveries, tracking runs): 0 gives `default`,
/// 1 to `max` is itself.
///
/// # Errors
/// 400 naming `limit` for anything else.
pub fn log_limit(limit: i32, default: i32, max: i32) -> Result<i32, ServiceError> {
    match limit {
        0 => Ok(default),
        n if (1..=max).contains(&n) => Ok(n),
        _ => Err(ServiceError::invalid_field("limit", format!("`limit` must be 1 to {max}"))),
    }
}

/// A watch-list id: 1-64 characters of `[A-Za-z0-9_-]`.
///
/// # Errors
/// 400 naming `id`.
pub fn check_id(id: &str) -> Result<(), ServiceError> {
    if mediaops_platform::validate::is_record_id(id) {
        Ok(())
    } else {
        Err(ServiceError::invalid_field("id", "watch list id must be 1-64 characters of A-Z, a-z, 0-9, _ and -"))
    }
}

/// Empty secrets take the stored secret of the same channel (type and url).
fn keep_secrets(spec: &mut WatchlistSpec, previous: &WatchlistSpec) {
    for channel in spec.channels.iter_mut().filter(|c| c.secret.is_empty()) {
        if let Some(old) = previous.channels.iter().find(|o| o.r#type == channel.r#type && o.url == channel.url) {
            channel.secret = old.secret.clone();
        }
    }
}

/// Unix milliseconds as RFC 3339 UTC with milliseconds.
pub fn stamp_of(ms: i64) -> Option<String> {
    DateTime::<Utc>::from_timestamp_millis(ms).map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true))
}

/// The answer form of a stored watch list: secrets never shown.
pub fn view(stored: &StoredWatchlist) -> Watchlist {
    let spec = &stored.spec;
    Watchlist {
        id: stored.id.clone(),
        name: spec.name.clone(),
        keywords: spec.keywords.clone(),
        sources: spec.sources.clone(),
        schedule: spec.schedule.clone(),
        quiet_hours: spec.quiet_hours.clone(),
        channels: spec
            .channels
            .iter()
            .map(|c| ChannelView {
                r#type: c.r#type.clone(),
                url: c.url.clone(),
                has_secret: !c.secret.is_empty(),
                chat_id: c.chat_id.clone(),
                to: c.to.clone(),
            })
            .collect(),
        status: spec.status.clone(),
        state: stored.state.clone(),
        state_reason: stored.state_reason.clone(),
        created_at: stored.created_at.clone(),
        updated_at: stored.updated_at.clone(),
        next_run_at: stored.next_run_ms.and_then(stamp_of),
        last_run_at: stored.last_run_ms.and_then(stamp_of),
    }
}
