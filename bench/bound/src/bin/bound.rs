//! The bare-metal bound of a charged REST call (docs/performance.md): an axum handler
//! that checks a Bearer key, parses the JSON body, debits one point with
//! one Redis `EVALSHA` and answers a small envelope. Nothing else: no
//! catalog, no validation, no store, no usage record. `bench/load` measures
//! every mediaops call against it, in the same run, on the same Redis.
//!
//! Environment: `BOUND_ADDR` (listen address, default `127.0.0.1:8099`),
//! `BOUND_KEY` (the one valid key), `BOUND_REDIS_URL` (default
//! `redis://127.0.0.1:6379`). The balance starts at 10^15 points.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use redis::Script;
use redis::aio::ConnectionManager;
use serde_json::{Value, json};

/// The debit: one point off the balance if it covers it; the balance after,
/// or -1.
const DEBIT: &str = r"
local balance = tonumber(redis.call('GET', KEYS[1]) or '0')
local price = tonumber(ARGV[1])
if balance < price then return -1 end
return redis.call('DECRBY', KEYS[1], price)
";

const BALANCE_KEY: &str = "mediaops-bench:bound:{acct}:balance";

struct Bound {
    key: String,
    redis: ConnectionManager,
    debit: Script,
    next_id: AtomicU64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let addr = std::env::var("BOUND_ADDR").unwrap_or_else(|_| "127.0.0.1:8099".into());
    let key = std::env::var("BOUND_KEY").map_err(|_| anyhow::anyhow!("set BOUND_KEY"))?;
    let url = std::env::var("BOUND_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let mut redis = ConnectionManager::new(redis::Client::open(url)?).await?;
    let _: () = redis::cmd("SET").arg(BALANCE_KEY).arg(1_000_000_000_000_000_i64).query_async(&mut redis).await?;
    let state = Arc::new(Bound { key, redis, debit: Script::new(DEBIT), next_id: AtomicU64::new(0) });
    let app = Router::new().route("/healthz", axum::routing::get(|| async { "ok" })).fallback(call).with_state(state);
    let listener = tokio::net::TcpListener::bind(&addr).await?.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app).await?;
    Ok(())
}

async fn call(State(bound): State<Arc<Bound>>, headers: HeaderMap, body: Bytes) -> Response {
    let request_id = format!("bound-{}", bound.next_id.fetch_add(1, Ordering::Relaxed));
    let bearer =
        headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    if bearer != Some(bound.key.as_str()) {
        return failure(StatusCode::UNAUTHORIZED, &request_id, "unauthenticated", "unknown API key");
    }
    let input: Value = if body.is_empty() {
        Value::Object(Default::default())
    } else {
        match serde_json::from_slice(&body) {
            Ok(value @ Value::Object(_)) => value,
            _ => {
                return failure(StatusCode::BAD_REQUEST, &request_id, "invalid_input", "the body is not a JSON object");
            }
        }
    };
    let debited: redis::RedisResult<i64> =
        bound.debit.key(BALANCE_KEY).arg(1).invoke_async(&mut bound.redis.clone()).await;
    match debited {
        Ok(balance) if balance >= 0 => {
            let fields = input.as_object().map_or(0, |o| o.len());
            let envelope = json!({"success": true, "requestId": request_id, "data": {"balance": balance, "fields": fields}, "error": null});
            (StatusCode::OK, axum::Json(envelope)).into_response()
        }
        Ok(_) => failure(StatusCode::PAYMENT_REQUIRED, &request_id, "insufficient_points", "balance too low"),
        Err(e) => failure(StatusCode::SERVICE_UNAVAILABLE, &request_id, "billing_unavailable", &e.to_string()),
    }
}

fn failure(status: StatusCode, request_id: &str, code: &str, message: &str) -> Response {
    let envelope =
        json!({"success": false, "requestId": request_id, "data": null, "error": {"code": code, "message": message}});
    (status, axum::Json(envelope)).into_response()
}
