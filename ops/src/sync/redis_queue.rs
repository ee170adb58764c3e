//! The production sync queue (docs/sync.md "Queue"): a Redis stream read by
//! a consumer group, shared by every core.
//!
//! - `P:sync:stream` (`P` = `MEDIAOPS_REDIS_PREFIX`): one entry `job=<id>`
//!   per job ready to run; group `sync-workers`, one consumer per worker.
//! - A worker takes entries with `XREADGROUP … >`; the entry stays in the
//!   group's pending list until the worker acknowledges it (`XACK`, then
//!   `XDEL`). A worker renews its claim while it works (`XCLAIM … JUSTID`,
//!   which resets the entry's idle time).
//! - A worker that died leaves its entry pending: once it has been idle for
//!   the lease, the next pull takes it over with `XAUTOCLAIM` (Redis 6.2 or
//!   later).
//! - `P:sync:delayed`: a sorted set of jobs waiting for a retry, scored by
//!   when they are due (ms); due ones move to the stream at each pull (one
//!   Lua script, so a job moves once).

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use redis::aio::ConnectionManager;
use redis::{AsyncCommands, Script};

use super::queue::{Delivery, SyncQueue};

/// The consumer group of the sync workers.
pub const GROUP: &str = "sync-workers";

/// Moves the due jobs of KEYS[1] (sorted set) to KEYS[2] (stream).
const PROMOTE: &str = r"
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 100)
for _, id in ipairs(due) do
  if redis.call('ZREM', KEYS[1], id) == 1 then
    redis.call('XADD', KEYS[2], '*', 'job', id)
  end
end
return #due
";

/// An entry as Redis answers it: id and `[field, value, …]`.
type Entry = (String, Vec<String>);

/// The Redis Streams [`SyncQueue`].
pub struct RedisQueue {
    redis: ConnectionManager,
    stream: String,
    delayed: String,
    lease: Duration,
    promote: Script,
}

impl RedisQueue {
    /// Connects to `url` and creates the stream and its group if absent.
    /// Entries are taken over from a dead worker after `lease` idle.
    pub async fn connect(url: &str, prefix: &str, lease: Duration) -> anyhow::Result<RedisQueue> {
        let mut redis = mediaops_platform::redis_connection::connect(url).await?;
        let stream = format!("{prefix}:sync:stream");
        let created: redis::RedisResult<()> = redis::cmd("XGROUP")
            .arg("CREATE")
            .arg(&stream)
            .arg(GROUP)
            .arg("0")
            .arg("MKSTREAM")
            .query_async(&mut redis)
            .await;
        if let Err(e) = created
            && e.code() != Some("BUSYGROUP")
        {
            anyhow::bail!("cannot create the sync stream {stream} in Redis: {e}");
        }
        Ok(RedisQueue {
            redis,
            delayed: format!("{prefix}:sync:delayed"),
            stream,
            lease,
            promote: Script::new(PROMOTE),
        })
    }

    /// The stream's key (for tests and operators).
    pub fn stream_key(&self) -> &str {
        &self.stream
    }

    fn delivery(entry: Entry, redelivered: bool) -> Delivery {
        let (id, fields) = entry;
        let job_id =
            fields.chunks(2).find(|pair| pair[0] == "job").and_then(|pair| pair.get(1)).cloned().unwrap_or_default();
        Delivery { job_id, entry: id, redelivered }
    }
}

#[async_trait]
impl SyncQueue for RedisQueue {
    fn kind(&self) -> &'static str {
        "redis"
    }

    async fn push(&self, job_id: &str, due: DateTime<Utc>) -> anyhow::Result<()> {
        let mut redis = self.redis.clone();
        if due <= Utc::now() {
            let _: String = redis.xadd(&self.stream, "*", &[("job", job_id)]).await?;
        } else {
            let _: i64 = redis.zadd(&self.delayed, job_id, due.timestamp_millis()).await?;
        }
        Ok(())
    }

    async fn pull(&self, consumer: &str) -> anyhow::Result<Option<Delivery>> {
        let mut redis = self.redis.clone();
        let _: i64 = self
            .promote
            .key(&self.delayed)
            .key(&self.stream)
            .arg(Utc::now().timestamp_millis())
            .invoke_async(&mut redis)
            .await?;
        // A dead worker's entry first: [next cursor, [entries]] (Redis 6.2),
        // plus [deleted ids] since Redis 7.
        let reply: Vec<redis::Value> = redis::cmd("XAUTOCLAIM")
            .arg(&self.stream)
            .arg(GROUP)
            .arg(consumer)
            .arg(u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX))
            .arg("0-0")
            .arg("COUNT")
            .arg(1)
            .query_async(&mut redis)
            .await?;
        let claimed: Vec<Entry> = match reply.into_iter().nth(1) {
            Some(entries) => redis::from_redis_value(entries)?,
            None => Vec::new(),
        };
        if let Some(entry) = claimed.into_iter().next() {
            return Ok(Some(Self::delivery(entry, true)));
        }
        // [[stream, [entries]]], or nil when nothing is new.
        let read: Option<Vec<(String, Vec<Entry>)>> = redis::cmd("XREADGROUP")
            .arg("GROUP")
            .arg(GROUP)
            .arg(consumer)
            .arg("COUNT")
            .arg(1)
            .arg("STREAMS")
            .arg(&self.stream)
            .arg(">")
            .query_async(&mut redis)
            .await?;
        let entry = read.into_iter().flatten().flat_map(|(_, entries)| entries).next();
        Ok(entry.map(|entry| Self::delivery(entry, false)))
    }

    async fn touch(&self, consumer: &str, delivery: &Delivery) -> anyhow::Result<()> {
        let _: Vec<String> = redis::cmd("XCLAIM")
            .arg(&self.stream)
            .arg(GROUP)
            .arg(consumer)
            .arg(0)
            .arg(&delivery.entry)
            .arg("JUSTID")
            .query_async(&mut self.redis.clone())
            .await?;
        Ok(())
    }

    async fn ack(&self, _consumer: &str, delivery: &Delivery) -> anyhow::Result<()> {
        let mut redis = self.redis.clone();
        let _: i64 = redis.xack(&self.stream, GROUP, &[&delivery.entry]).await?;
        let _: i64 = redis.xdel(&self.stream, &[&delivery.entry]).await?;
        Ok(())
    }
}
