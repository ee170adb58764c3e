//! Where watch lists live (docs/watchlists.md "Storage"):
//! the [`WatchStore`] trait, implemented for both databases of the content
//! store (`crate::watch`, migration 0009), and the JSON form of the
//! stored documents ([`to_json`](crate::scheduled::to_json),
//! [`from_json`](crate::scheduled::from_json): proto JSON).

mod sql_store;

use std::collections::HashSet;

use mediaops_proto::mediaops::watch::v1::{Delivery, WatchlistSpec};

pub use crate::scheduled::{RunOutcome, Scheduled};
use mediaops_proto::error::ServiceError;

/// One stored watch list: the owner's spec (channel secrets included) and
/// what the scheduler keeps beside it (`state` as `mediaops_ops::watch::state`).
pub type StoredWatchlist = Scheduled<WatchlistSpec>;

/// Watch lists by (account, id), their seen-sets and delivery logs. An
/// account only ever reaches its own.
#[async_trait::async_trait]
pub trait WatchStore: Send + Sync + 'static {
    /// The account's watch lists, by id (byte order).
    async fn list_watchlists(&self, account_id: &str) -> Result<Vec<StoredWatchlist>, ServiceError>;

    /// One watch list, `None` when there is none with that id.
    async fn get_watchlist(&self, account_id: &str, id: &str) -> Result<Option<StoredWatchlist>, ServiceError>;

    /// Creates or replaces the watch list `stored.id` whole, and drops any
    /// runner's lease on it (that runner's [`WatchStore::finish_watchlist`] then
    /// writes nothing: the owner's edit wins).
    async fn put_watchlist(&self, account_id: &str, stored: &StoredWatchlist) -> Result<(), ServiceError>;

    /// Deletes a watch list with its seen-set and delivery log; false when
    /// there was none.
    async fn delete_watchlist(&self, account_id: &str, id: &str) -> Result<bool, ServiceError>;

    /// Up to `limit` (account, id) pairs due at `now_ms` and not leased
    /// (or whose lease passed), soonest first.
    async fn due_watchlists(&self, now_ms: i64, limit: i64) -> Result<Vec<(String, String)>, ServiceError>;

    /// Leases a due watch list to `owner` until `until_ms` when it is still
    /// due at `now_ms` and nobody else holds it; answers it then. The row
    /// update is conditional, so one runner of all replicas wins.
    async fn claim_watchlist(
        &self,
        account_id: &str,
        id: &str,
        owner: &str,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<Option<StoredWatchlist>, ServiceError>;

    /// Writes a run's outcome and clears the lease, only while `owner`
    /// still holds it (false: the watch list was edited or taken over).
    async fn finish_watchlist(
        &self,
        account_id: &str,
        id: &str,
        owner: &str,
        outcome: &RunOutcome,
    ) -> Result<bool, ServiceError>;

    /// The seen-set: `(source, normalized title)` of every item pushed.
    async fn seen_items(&self, account_id: &str, id: &str) -> Result<HashSet<(String, String)>, ServiceError>;

    /// Adds items to the seen-set (already present ones are kept).
    async fn mark_seen(
        &self,
        account_id: &str,
        id: &str,
        keys: &[(String, String)],
        at: &str,
    ) -> Result<(), ServiceError>;

    /// Appends a line to the delivery log.
    async fn add_delivery(&self, account_id: &str, id: &str, delivery: &Delivery) -> Result<(), ServiceError>;

    /// The last `limit` lines of the delivery log, newest first.
    async fn deliveries(&self, account_id: &str, id: &str, limit: i64) -> Result<Vec<Delivery>, ServiceError>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduled::{from_json, to_json};
    use mediaops_proto::mediaops::watch::v1::Channel;

    #[test]
    fn specs_round_trip_with_their_secrets() {
        let spec = WatchlistSpec {
            name: "手机".into(),
            keywords: "华为 小米 +手机\n!二手".into(),
            schedule: "0 8 * * *".into(),
            channels: vec![Channel {
                r#type: "webhook".into(),
                url: "https://example.com/hook".into(),
                secret: "s3cret".into(),
                ..Channel::default()
            }],
            ..WatchlistSpec::default()
        };
        let json = to_json(&spec).unwrap();
        assert!(json.contains("s3cret"), "{json}");
        assert_eq!(from_json::<WatchlistSpec>(&json).unwrap(), spec);
        assert!(from_json::<WatchlistSpec>("{\"name\": 1}").is_err());
    }
}
