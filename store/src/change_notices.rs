//! The change notices of PostgreSQL (migration 0019): every statement that
//! changes `works`, `accounts`, `work_snapshots` or `account_snapshots`
//! notifies the channel [`CONTENT`] at its commit, and one that changes
//! `word_lists` the channel [`WORD_LISTS`]. Each store keeps one connection
//! listening, and counts them for what the process keeps in memory: the
//! point cache (`store/src/point_cache.rs`) and the banned-word lists
//! (docs/store.md "Point reads on PostgreSQL").

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgListener, PgPoolOptions};

/// The channel of works, accounts and their snapshots.
pub const CONTENT: &str = "mediaops_content";

/// The channel of the banned-word lists.
pub const WORD_LISTS: &str = "mediaops_word_lists";

/// How long the listener waits before connecting again after a failure.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// The oldest a kept record or list is served by a cache following the
/// notices: the bound on what a listening connection that died unnoticed
/// can leave stale (docs/store.md "Point reads on PostgreSQL").
pub const MAX_AGE: Duration = Duration::from_secs(1);

/// The changes one store has heard of, per channel, and whether it is
/// listening: while it is not, a change could go unheard.
#[derive(Debug, Default)]
pub struct Notices {
    content: AtomicU64,
    word_lists: AtomicU64,
    listening: AtomicBool,
}

impl Notices {
    /// Changes of the content heard of so far (notices, this process's
    /// writes, and each time the listener connected or lost its connection:
    /// what happened while it was not listening is unknown).
    pub fn content(&self) -> u64 {
        self.content.load(Ordering::Acquire)
    }

    /// Changes of the word lists heard of so far, counted as
    /// [`Notices::content`].
    pub fn word_lists(&self) -> u64 {
        self.word_lists.load(Ordering::Acquire)
    }

    /// Whether the listening connection is up.
    pub fn listening(&self) -> bool {
        self.listening.load(Ordering::Acquire)
    }

    /// Counts one change of the content.
    pub fn content_changed(&self) {
        self.content.fetch_add(1, Ordering::AcqRel);
    }

    /// The changes heard of on `channel`: [`Notices::word_lists`] for
    /// [`WORD_LISTS`], else [`Notices::content`].
    pub fn count(&self, channel: &str) -> u64 {
        self.counter(channel).load(Ordering::Acquire)
    }

    /// Counts one notice of `channel`.
    fn heard(&self, channel: &str) {
        self.counter(channel).fetch_add(1, Ordering::AcqRel);
    }

    /// The counter of `channel`'s notices.
    fn counter(&self, channel: &str) -> &AtomicU64 {
        match channel {
            WORD_LISTS => &self.word_lists,
            _ => &self.content,
        }
    }

    /// Marks the connection up or down; either way every channel counts a
    /// change.
    pub(crate) fn set_listening(&self, listening: bool) {
        self.listening.store(listening, Ordering::Release);
        self.content.fetch_add(1, Ordering::AcqRel);
        self.word_lists.fetch_add(1, Ordering::AcqRel);
    }
}

/// The count of one channel at which a cache last dropped what it kept.
#[derive(Debug)]
pub struct Seen(AtomicU64);

impl Default for Seen {
    /// Nothing seen yet: the first look drops.
    fn default() -> Self {
        Seen(AtomicU64::new(u64::MAX))
    }
}

impl Seen {
    /// Calls `drop_kept` when `count` (of `notices`, one channel's) moved
    /// since the last drop or nobody is listening, and only then marks it
    /// seen: a thread that finds the count seen finds what was kept before
    /// it dropped.
    pub fn follow(&self, notices: &Notices, count: u64, drop_kept: impl FnOnce()) {
        if !notices.listening() || self.0.load(Ordering::Acquire) != count {
            drop_kept();
            self.0.store(count, Ordering::Release);
        }
    }
}

/// The listener of a store: counts the notices into its [`Notices`] until
/// the store (the last strong reference to them) is gone, or the task is
/// aborted ([`Listening`]).
pub struct Listening {
    task: tokio::task::JoinHandle<()>,
}

impl Listening {
    /// A listener that hears nothing (tests of the cache).
    #[cfg(test)]
    pub(crate) fn deaf() -> Listening {
        Listening { task: tokio::spawn(async {}) }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts listening on a connection of its own with `options` (those of
/// the store's pool), connecting again a second after any failure of the
/// connection; `notices` reads as not listening meanwhile.
pub fn listen(options: PgConnectOptions, notices: &Arc<Notices>) -> Listening {
    let notices = Arc::downgrade(notices);
    // One connection, kept open; the listener connects through it again
    // after a failure.
    let pool = PgPoolOptions::new().max_connections(1).idle_timeout(None).max_lifetime(None).connect_lazy_with(options);
    Listening { task: tokio::spawn(run(pool, notices)) }
}

async fn run(pool: sqlx::PgPool, notices: Weak<Notices>) {
    loop {
        let error = match listen_once(&pool, &notices).await {
            Ok(()) => return,
            Err(error) => error,
        };
        let Some(heard) = notices.upgrade() else { return };
        // Logged once per outage, not at every attempt.
        if heard.listening() {
            tracing::warn!(%error, "change notices: not listening; point reads go to the database until it is back");
        } else {
            tracing::debug!(%error, "change notices: still not listening");
        }
        heard.set_listening(false);
        drop(heard);
        tokio::time::sleep(RECONNECT_AFTER).await;
    }
}

/// Listens until the store is gone (`Ok`) or the connection fails.
async fn listen_once(pool: &sqlx::PgPool, notices: &Weak<Notices>) -> Result<(), sqlx::Error> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.eager_reconnect(false);
    listener.listen_all([CONTENT, WORD_LISTS]).await?;
    match notices.upgrade() {
        Some(heard) => heard.set_listening(true),
        None => return Ok(()),
    }
    loop {
        // `None`: the connection was lost (notices may have been missed).
        let Some(notice) = listener.try_recv().await? else {
            return Err(sqlx::Error::Protocol("the listening connection was lost".into()));
        };
        match notices.upgrade() {
            Some(heard) => heard.heard(notice.channel()),
            None => return Ok(()),
        }
    }
}
