//! One connected vendor: its mapping file compiled and checked, its
//! connector, key, rate limiter and circuit breaker, and the call of one
//! mapped operation (docs/vendors.md "A call").

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use mediaops_proto::error_code::ErrorCode;
use prost::Message;
use prost_reflect::{DeserializeOptions, DynamicMessage, MessageDescriptor, ReflectMessage, SerializeOptions};
use reqwest::Method;
use serde_json::Value;

use super::breaker::CircuitBreaker;
use super::cache::{AnswerCache, CacheBackend};
use super::filter::JqFilter;
use super::mapping::{Auth, Call, ErrorRule, OperationMapping, Outcome, VendorFile};
use crate::outbound::{ConnectorClient, OutboundSettings, Retry};
use mediaops_platform::registry::{OperationInfo, Registry};
use mediaops_proto::error::{ServiceError, UpstreamDetail};
use mediaops_proto::service::Answer;
use mediaops_store::vendor_call::{VendorCall, VendorCallStore};

type Limiter = governor::DefaultDirectRateLimiter;

/// The key, as the vendor wants it.
enum Key {
    Bearer(String),
    Header(reqwest::header::HeaderName, String),
    Query(String, String),
    None,
}

/// One mapped operation, compiled.
pub struct MappedOperation {
    method: Method,
    path: String,
    /// Request fields named in `path`.
    path_fields: Vec<String>,
    query: Option<JqFilter>,
    body: Option<JqFilter>,
    /// Absent only for sync operations (they answer our receipt).
    response: Option<JqFilter>,
    /// Records to write back from a found answer's reply.
    store: Option<JqFilter>,
    /// Sync operations: the next page's cursor.
    next_cursor: Option<JqFilter>,
    /// Sync operations: pages per sync.
    max_pages: u32,
    retry: Retry,
    /// Our request message (`None` for a route of `[routes]`, whose request
    /// is the object its call gives).
    input: Option<MessageDescriptor>,
    /// Our response message (`None` for a route of `[routes]`).
    output: Option<MessageDescriptor>,
    /// Calls made first (docs/vendors.md "Several calls").
    calls: Vec<CompiledCall>,
    /// Refresh, then compute: the answer is the store's.
    refresh: bool,
    cache: Option<AnswerCache>,
    /// The route's own rate limit (`rate_limit_per_second` of the mapping).
    limiter: Option<Limiter>,
    /// Identical concurrent calls share one request.
    flight: super::single_flight::SingleFlight,
    /// The operation key.
    key: String,
    /// What one request costs, in the vendor's currency.
    cost_per_call: Option<f64>,
    /// Requests sent.
    requests: AtomicU64,
    /// Calls answered by the cache.
    cache_hits: AtomicU64,
    /// Calls that shared another call's request.
    shared: AtomicU64,
}

/// One route's counters ([`Vendor::usage`]; docs/metrics.md "Vendors").
#[derive(Debug, Clone, PartialEq)]
pub struct RouteUsage {
    /// The vendor's name.
    pub vendor: String,
    /// The operation key.
    pub operation: String,
    /// Requests sent.
    pub requests: u64,
    /// Calls answered by the answer cache (no request, no cost).
    pub cache_hits: u64,
    /// Calls that shared an identical concurrent call's request.
    pub shared: u64,
    /// The route's `cost_per_call`.
    pub cost_per_call: Option<f64>,
    /// The pack's `currency` (empty when it names none).
    pub currency: String,
}

impl RouteUsage {
    /// `requests × cost_per_call` (0 without a price).
    pub fn spend(&self) -> f64 {
        self.cost_per_call.unwrap_or(0.0) * self.requests as f64
    }
}

impl MappedOperation {
    /// Pages one sync reads at most (sync operations; docs/sync.md).
    pub fn max_pages(&self) -> u32 {
        self.max_pages
    }

    /// Whether this mapping refreshes the store's records and leaves the
    /// answer to the store (docs/vendors.md "Several calls"); its records
    /// must be written before the store is asked.
    pub fn refreshes(&self) -> bool {
        self.refresh
    }

    /// `request` as the full request of this mapping: for an operation, the
    /// object read as its request message (a 500 naming the mapping when it
    /// is not one) and written back with every field present; for a route,
    /// as it is.
    fn full_request(&self, request: Value) -> Result<Value, ServiceError> {
        let Some(input) = &self.input else { return Ok(request) };
        let message = DynamicMessage::deserialize_with_options(
            input.clone(),
            request,
            &DeserializeOptions::new().deny_unknown_fields(true),
        )
        .map_err(|e| ServiceError::internal(format!("a call's request is not a {}: {e}", input.full_name())))?;
        message
            .serialize_with_options(serde_json::value::Serializer, &SerializeOptions::new().skip_default_fields(false))
            .map_err(|e| ServiceError::internal(format!("request not serializable: {e}")))
    }
}

/// One call of a several-call operation, compiled.
struct CompiledCall {
    /// The mapping called: another operation's, or a route of `[routes]`.
    target: Arc<MappedOperation>,
    /// How the replies the filters see name it: the operation key, or
    /// `route:<name>`.
    name: String,
    request: JqFilter,
    bind: Option<JqFilter>,
}

/// A vendor ready to call.
pub struct Vendor {
    name: String,
    connector: ConnectorClient,
    key: Key,
    limiter: Option<Limiter>,
    breaker: CircuitBreaker,
    code: Option<JqFilter>,
    message: Option<JqFilter>,
    success: Vec<String>,
    errors: Vec<ErrorRule>,
    operations: HashMap<String, Arc<MappedOperation>>,
    /// The currency of the routes' `cost_per_call`.
    currency: String,
    /// Where each call is recorded (docs/vendors.md "Vendor spend"), once
    /// set ([`Vendor::record_calls`]).
    call_log: std::sync::OnceLock<Arc<dyn VendorCallStore>>,
}

impl std::fmt::Debug for Vendor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vendor").field("name", &self.name).finish_non_exhaustive()
    }
}

/// The limiter of `rate_limit_per_second` (`None`: no limit).
fn limiter(rate: Option<u32>, place: &str) -> anyhow::Result<Option<Limiter>> {
    rate.map(|rate| {
        let rate =
            NonZeroU32::new(rate).ok_or_else(|| anyhow::anyhow!("{place}: rate_limit_per_second must be above 0"))?;
        Ok(governor::RateLimiter::direct(governor::Quota::per_second(rate)))
    })
    .transpose()
}

/// A jq filter, or a start-up error naming where it is.
fn compile(code: &str, place: &str) -> anyhow::Result<JqFilter> {
    JqFilter::compile(code).map_err(|e| anyhow::anyhow!("{place}: the jq filter does not compile: {e}"))
}

impl Vendor {
    /// Reads and checks the mapping file at `path`: the name, base URL and
    /// key (from the environment through `env`), every filter compiles,
    /// every operation exists in `registry` and every `{field}` of a path is
    /// a field of its request. Answers are cached in `cache`.
    ///
    /// # Errors
    /// The first problem, naming the file, the operation and the part.
    pub fn load(
        path: &Path,
        registry: &Registry,
        outbound: &OutboundSettings,
        env: &dyn Fn(&str) -> Option<String>,
        cache: &CacheBackend,
    ) -> anyhow::Result<Vendor> {
        use figment::providers::{Format, Toml};
        let file: VendorFile = figment::Figment::from(Toml::file_exact(path))
            .extract()
            .map_err(|e| anyhow::anyhow!("vendor mapping {}: {e}", path.display()))?;
        Vendor::from_file(file, registry, outbound, env, cache).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    /// [`Vendor::load`] from a parsed file.
    pub fn from_file(
        file: VendorFile,
        registry: &Registry,
        outbound: &OutboundSettings,
        env: &dyn Fn(&str) -> Option<String>,
        cache: &CacheBackend,
    ) -> anyhow::Result<Vendor> {
        let name = file.name.clone();
        anyhow::ensure!(
            !name.is_empty()
                && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_'),
            "vendor name {name:?}: use a-z, 0-9, - and _"
        );
        let secret = |var: &str| {
            env(var)
                .filter(|v| !v.trim().is_empty())
                .ok_or_else(|| anyhow::anyhow!("vendor {name}: the environment variable {var} (its key) is not set"))
        };
        let key = match &file.auth {
            Auth::Bearer { token_env } => Key::Bearer(secret(token_env)?),
            Auth::Header { name: header, token_env } => Key::Header(header.parse()?, secret(token_env)?),
            Auth::Query { name: param, token_env } => Key::Query(param.clone(), secret(token_env)?),
            Auth::None => Key::None,
        };
        let mut builder = ConnectorClient::builder(&format!("vendor {name}"), &file.base_url, outbound);
        if let Some(secs) = file.timeout_secs {
            builder = builder.request_timeout(Duration::from_secs(secs));
        }
        if let Some(retries) = file.retries {
            builder = builder.retries(retries);
        }
        let limiter = limiter(file.rate_limit_per_second, &format!("vendor {name}"))?;
        let mut routes = HashMap::new();
        for (route, mapping) in &file.routes {
            let mut compiled = map_operation(mapping, None, &format!("vendor {name}, route {route}"))?;
            compiled.key = format!("route:{route}");
            routes.insert(route.clone(), Arc::new(compiled));
        }
        let mut operations: HashMap<String, Arc<MappedOperation>> = HashMap::new();
        // Operations of one call first: the calls of the others use them.
        let (single, several): (Vec<_>, Vec<_>) = file.operations.iter().partition(|(_, m)| m.calls.is_empty());
        for (key, mapping) in single.into_iter().chain(several) {
            let info = registry
                .operations()
                .find(|op| op.key() == key)
                .ok_or_else(|| anyhow::anyhow!("vendor {name}: operation {key} does not exist"))?;
            let place = format!("vendor {name}, operation {key}");
            let mut operation = map_operation(mapping, Some(info), &place)?;
            operation.calls = compile_calls(&mapping.calls, &operations, &routes, &place)?;
            operation.key.clone_from(key);
            operation.cache = cache.cache(&name, key, Duration::from_secs(mapping.cache_ttl_secs));
            operations.insert(key.clone(), Arc::new(operation));
        }
        Ok(Vendor {
            connector: builder.build()?,
            key,
            limiter,
            breaker: CircuitBreaker::new(&file.breaker),
            code: file.reply.code.as_deref().map(|c| compile(c, &format!("vendor {name}, reply.code"))).transpose()?,
            message: file
                .reply
                .message
                .as_deref()
                .map(|c| compile(c, &format!("vendor {name}, reply.message")))
                .transpose()?,
            success: file.reply.success,
            errors: file.reply.errors,
            operations,
            currency: file.currency.unwrap_or_default(),
            call_log: std::sync::OnceLock::new(),
            name,
        })
    }

    /// `upstream:<name>` in source chains.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The operation keys this vendor maps.
    pub fn operation_keys(&self) -> impl Iterator<Item = &str> {
        self.operations.keys().map(String::as_str)
    }

    /// The mapping of `operation_key`, if this vendor has one.
    pub fn operation(&self, operation_key: &str) -> Option<Arc<MappedOperation>> {
        self.operations.get(operation_key).cloned()
    }

    /// Each mapped operation's counters, by operation key.
    pub fn usage(&self) -> Vec<RouteUsage> {
        let mut rows: Vec<RouteUsage> = self
            .operations
            .values()
            .map(|op| RouteUsage {
                vendor: self.name.clone(),
                operation: op.key.clone(),
                requests: op.requests.load(Ordering::Relaxed),
                cache_hits: op.cache_hits.load(Ordering::Relaxed),
                shared: op.shared.load(Ordering::Relaxed),
                cost_per_call: op.cost_per_call,
                currency: self.currency.clone(),
            })
            .collect();
        rows.sort_by(|a, b| a.operation.cmp(&b.operation));
        rows
    }

    /// From now on every request sent and every cache hit is recorded in
    /// `log` (docs/vendors.md "Vendor spend"); a second log is ignored.
    pub fn record_calls(&self, log: Arc<dyn VendorCallStore>) {
        let _ = self.call_log.set(log);
    }

    /// Records one call of `route` for `operation_key` in the background (a
    /// failure is logged; the call stands).
    fn log_call(&self, route: &MappedOperation, operation_key: &str, cache_hit: bool) {
        let Some(log) = self.call_log.get().cloned() else { return };
        let call = VendorCall {
            pack: self.name.clone(),
            route: if cache_hit { "cache".to_owned() } else { format!("{} {}", route.method, route.path) },
            operation_key: operation_key.to_owned(),
            cost_per_call: route.cost_per_call,
            currency: self.currency.clone(),
            cache_hit,
            at: chrono::Utc::now().to_rfc3339(),
        };
        tokio::spawn(async move {
            if let Err(e) = log.record_vendor_call(&call).await {
                tracing::warn!(vendor = call.pack, error = %e.message, "a vendor call was not recorded");
            }
        });
    }

    /// Whether the circuit is open now (the vendor is failing).
    pub fn circuit_open(&self) -> bool {
        self.breaker.is_open()
    }

    /// Calls `op` with the encoded request, through the cache.
    ///
    /// # Errors
    /// 502 `upstream_unavailable` (transport, timeout, HTTP error, an
    /// unlisted business code, an open circuit, a reply the mapping does not
    /// fit), or what a business-code rule says (400).
    pub async fn call(&self, op: &MappedOperation, request: Bytes) -> Result<Answer<Bytes>, ServiceError> {
        Ok(self.call_with_records(op, request).await?.0)
    }

    /// [`Vendor::call`], with the records of the operation's `store` filter
    /// (JSONL-schema values) when the vendor was asked and answered found;
    /// none for a cached answer (written when it was fetched).
    ///
    /// # Errors
    /// As [`Vendor::call`].
    pub async fn call_with_records(
        &self,
        op: &MappedOperation,
        request: Bytes,
    ) -> Result<(Answer<Bytes>, Vec<Value>), ServiceError> {
        use super::single_flight::Turn;
        if let Some(cache) = &op.cache
            && let Some(answer) = cache.get(&request).await
        {
            op.cache_hits.fetch_add(1, Ordering::Relaxed);
            self.log_call(op, &op.key, true);
            return Ok((answer, Vec::new()));
        }
        let leader = match op.flight.turn(&request) {
            Turn::Lead(leader) => leader,
            Turn::Follow(follower) => match follower.outcome().await {
                Some(outcome) => {
                    op.shared.fetch_add(1, Ordering::Relaxed);
                    return outcome.map(|answer| (answer, Vec::new()));
                }
                // The first caller was cancelled: ask on our own.
                None => return self.call_fresh(op, request).await,
            },
        };
        let outcome = self.call_fresh(op, request).await;
        leader.done(&outcome.as_ref().map(|(answer, _)| answer.clone()).map_err(Clone::clone));
        outcome
    }

    /// Asks the vendor and keeps the answer in the cache.
    async fn call_fresh(
        &self,
        op: &MappedOperation,
        request: Bytes,
    ) -> Result<(Answer<Bytes>, Vec<Value>), ServiceError> {
        let (answer, records) = self.call_uncached(op, &request).await?;
        if let Some(cache) = &op.cache {
            cache.put(request, &answer).await;
        }
        Ok((answer, records))
    }

    /// The operation's calls (docs/vendors.md "Several calls"), then its
    /// own route: the answer and every record the replies gave.
    async fn call_uncached(
        &self,
        op: &MappedOperation,
        request: &Bytes,
    ) -> Result<(Answer<Bytes>, Vec<Value>), ServiceError> {
        let mut request = request_json(op, request)?;
        let mut records = Vec::new();
        let mut replies = Vec::new();
        for call in &op.calls {
            if let Some(miss) = self.run_call(call, &op.key, &mut request, &mut records, &mut replies).await? {
                return Ok((miss, records));
            }
        }
        if op.refresh {
            let refreshed = format!("vendor {} refreshed {} records; the store answers", self.name, records.len());
            return Ok((Answer::NotFound(refreshed), records));
        }
        let reply = if op.path.is_empty() {
            serde_json::json!({"request": request, "replies": replies})
        } else {
            match self.exchange(op, &op.key, &request).await? {
                Exchange::Reply(reply) => reply,
                Exchange::Outcome(answer) => return Ok((answer, records)),
            }
        };
        let answer = self.response(op, &reply)?;
        if let (Answer::Found(_), Some(filter)) = (&answer, &op.store) {
            records.extend(self.records(filter, &reply));
        }
        Ok((answer, records))
    }

    /// One call of a several-call operation: once per request its `request`
    /// filter gives, each reply's records added to `records` and the reply
    /// to `replies` (`{call, request, reply, answer}`); a step's `bind`
    /// adds its fields to `request`. `Some` ends the operation: a step
    /// found nothing. A fan-out's call that finds nothing adds nothing.
    async fn run_call(
        &self,
        call: &CompiledCall,
        operation_key: &str,
        request: &mut Value,
        records: &mut Vec<Value>,
        replies: &mut Vec<Value>,
    ) -> Result<Option<Answer<Bytes>>, ServiceError> {
        let requests = match self.run(&call.request, request, "calls.request")? {
            Value::Null => return Ok(None),
            Value::Array(items) => items,
            one => vec![one],
        };
        let nothing = |what: &str| Answer::NotFound(format!("vendor {}: {} found nothing{what}", self.name, call.name));
        for sub in requests {
            let sub = call.target.full_request(sub)?;
            let reply = match self.exchange(&call.target, operation_key, &sub).await? {
                Exchange::Reply(reply) => reply,
                Exchange::Outcome(Answer::NotFound(message)) if call.bind.is_some() => {
                    return Ok(Some(Answer::NotFound(message)));
                }
                Exchange::Outcome(_) if call.bind.is_some() => return Ok(Some(nothing(""))),
                Exchange::Outcome(_) => continue,
            };
            let answer = match call.target.response.as_ref().map(|f| f.run(&reply)) {
                Some(Ok(answer)) => answer,
                Some(Err(e)) => return Err(self.mismatch(&call.name, e)),
                None => Value::Null,
            };
            if let Some(filter) = &call.target.store {
                records.extend(self.records(filter, &reply));
            }
            if let Some(bind) = &call.bind {
                let input = serde_json::json!({"request": request, "reply": reply, "answer": answer});
                let Value::Object(fields) = bind.run(&input).map_err(|e| self.mismatch(&call.name, e))? else {
                    return Err(self.mismatch(&call.name, "its bind filter gave no object".into()));
                };
                for (field, value) in fields {
                    if value.is_null() || value == "" {
                        return Ok(Some(nothing(&format!(" for {field}"))));
                    }
                    request[field] = value;
                }
            }
            replies.push(serde_json::json!({"call": call.name, "request": sub, "reply": reply, "answer": answer}));
        }
        Ok(None)
    }

    /// One page of a sync (docs/sync.md "Vendor mapping"): calls `op` with
    /// `request` (proto3 JSON plus `cursor`), never through the cache.
    ///
    /// # Errors
    /// As [`Vendor::call`]; a vendor "not found" is a 404 `not_found`.
    pub async fn fetch_page(&self, op: &MappedOperation, request: &Value) -> Result<SyncPage, ServiceError> {
        let reply = match self.exchange(op, &op.key, request).await? {
            Exchange::Reply(reply) => reply,
            Exchange::Outcome(Answer::NotFound(message)) => {
                return Err(ServiceError::not_found(format!("vendor {}: {message}", self.name)));
            }
            Exchange::Outcome(_) => return Ok(SyncPage { records: Vec::new(), next_cursor: None }),
        };
        let records = op.store.as_ref().map(|filter| self.records(filter, &reply)).unwrap_or_default();
        let next_cursor = match op.next_cursor.as_ref().map(|filter| filter.run(&reply)) {
            None | Some(Ok(Value::Null | Value::Bool(false))) => None,
            Some(Ok(Value::String(s))) if s.is_empty() => None,
            Some(Ok(cursor)) => Some(cursor),
            Some(Err(e)) => {
                tracing::warn!(vendor = self.name, error = e, "next_cursor filter failed; the sync stops at this page");
                None
            }
        };
        Ok(SyncPage { records, next_cursor })
    }

    /// Sends `op` with the proto3-JSON `request` for the operation
    /// `operation_key` (recorded so): the reply when its business code says
    /// success, else what the code means.
    async fn exchange(
        &self,
        op: &MappedOperation,
        operation_key: &str,
        request: &Value,
    ) -> Result<Exchange, ServiceError> {
        let http = self.build_request(op, request)?;
        if let Err(open) = self.breaker.admit() {
            return Err(ServiceError::upstream_unavailable(
                format!(
                    "vendor {} is failing and is not called for now; retry in {} s; nothing was charged",
                    self.name,
                    open.retry_after.as_secs().max(1)
                ),
                Some(UpstreamDetail { code: Some("circuit_open".into()), message: "circuit breaker open".into() }),
            ));
        }
        for limiter in [&self.limiter, &op.limiter].into_iter().flatten() {
            limiter.until_ready().await;
        }
        let what = format!("vendor {}", self.name);
        op.requests.fetch_add(1, Ordering::Relaxed);
        self.log_call(op, operation_key, false);
        let reply = match self.connector.send(http, op.retry).await {
            Ok(response) => self.connector.bytes(response).await,
            Err(e) => Err(e),
        };
        let reply = reply.map_err(|e| {
            self.breaker.failed();
            e.to_service_error(&what, None)
        })?;
        let reply: Value = serde_json::from_slice(&reply).map_err(|e| {
            self.breaker.failed();
            ServiceError::upstream_unavailable(format!("{what} answered something that is not JSON: {e}"), None)
        })?;
        if let Some(outcome) = self.business_outcome(&reply) {
            return outcome.map(Exchange::Outcome);
        }
        self.breaker.succeeded();
        Ok(Exchange::Reply(reply))
    }

    /// The write-back records of a reply; a filter failure is logged and
    /// writes nothing (the answer stands).
    fn records(&self, filter: &JqFilter, reply: &Value) -> Vec<Value> {
        match filter.run(reply) {
            Ok(Value::Array(records)) => records,
            Ok(Value::Null) => Vec::new(),
            Ok(other) => {
                tracing::warn!(vendor = self.name, output = %other, "store filter did not give an array; nothing written");
                Vec::new()
            }
            Err(e) => {
                tracing::warn!(vendor = self.name, error = e, "store filter failed; nothing written");
                Vec::new()
            }
        }
    }

    fn build_request(&self, op: &MappedOperation, request: &Value) -> Result<reqwest::RequestBuilder, ServiceError> {
        let mut path = op.path.clone();
        for field in &op.path_fields {
            let value = match request.get(field) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => String::new(),
            };
            if value.is_empty() {
                return Err(ServiceError::invalid_field(field, format!("{field} is required by this data source")));
            }
            let encoded: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
            path = path.replace(&format!("{{{field}}}"), &encoded);
        }
        let mut http = self.connector.request(op.method.clone(), &path);
        if let Some(filter) = &op.query {
            http = http.query(&query_pairs(&self.run(filter, request, "query")?));
        }
        if let Some(filter) = &op.body {
            http = http.json(&self.run(filter, request, "body")?);
        }
        Ok(match &self.key {
            Key::Bearer(token) => http.bearer_auth(token),
            Key::Header(name, token) => http.header(name.clone(), token),
            Key::Query(name, token) => http.query(&[(name, token)]),
            Key::None => http,
        })
    }

    /// Runs a request-side filter; its failure is our mapping's fault.
    fn run(&self, filter: &JqFilter, input: &Value, part: &str) -> Result<Value, ServiceError> {
        filter.run(input).map_err(|e| {
            tracing::error!(vendor = self.name, part, error = e, "vendor mapping filter failed");
            ServiceError::internal(format!("vendor {}: the {part} mapping failed: {e}", self.name))
        })
    }

    /// `None` for a success reply; else what its business code means.
    fn business_outcome(&self, reply: &Value) -> Option<Result<Answer<Bytes>, ServiceError>> {
        let code_filter = self.code.as_ref()?;
        let code = match code_filter.run(reply) {
            Ok(Value::Null) | Err(_) => return None,
            Ok(Value::String(s)) => s,
            Ok(other) => other.to_string(),
        };
        if self.success.contains(&code) {
            return None;
        }
        let vendor_message = self
            .message
            .as_ref()
            .and_then(|m| m.run(reply).ok())
            .map(|m| match m {
                Value::String(s) => s,
                Value::Null => String::new(),
                other => other.to_string(),
            })
            .unwrap_or_default();
        let upstream = UpstreamDetail { code: Some(code.clone()), message: vendor_message.clone() };
        let rule = self.errors.iter().find(|r| r.codes.contains(&code));
        let outcome = rule.map_or(Outcome::UpstreamUnavailable, |r| r.outcome);
        let counts = rule.and_then(|r| r.breaker).unwrap_or(outcome == Outcome::UpstreamUnavailable);
        if counts {
            self.breaker.failed();
        } else {
            self.breaker.succeeded();
        }
        let message = rule.and_then(|r| r.message.clone()).unwrap_or_else(|| vendor_message.clone());
        Some(match outcome {
            Outcome::NotFound => Ok(Answer::NotFound(message)),
            // The default message encodes as no bytes at all.
            Outcome::Empty => Ok(Answer::Empty(Bytes::new())),
            Outcome::InvalidInput => {
                Err(ServiceError { upstream: Some(upstream), ..ServiceError::new(ErrorCode::InvalidInput, message) })
            }
            Outcome::UpstreamUnavailable => {
                let advice =
                    rule.and_then(|r| r.retry_after_secs).map(|s| format!("; retry in {s} s")).unwrap_or_default();
                Err(ServiceError::upstream_unavailable(
                    format!("vendor {} failed ({code}: {message}){advice}; nothing was charged", self.name),
                    Some(upstream),
                ))
            }
        })
    }

    /// A 502: the vendor's reply to `what` does not fit our mapping.
    fn mismatch(&self, what: &str, e: String) -> ServiceError {
        tracing::error!(vendor = self.name, what, error = e, "vendor reply does not fit");
        ServiceError::upstream_unavailable(
            format!("vendor {} answered a reply our mapping does not fit ({e}); nothing was charged", self.name),
            None,
        )
    }

    /// The reply mapped onto our response message, checked against it.
    fn response(&self, op: &MappedOperation, reply: &Value) -> Result<Answer<Bytes>, ServiceError> {
        let mismatch = |e: String| self.mismatch(&op.key, e);
        let (Some(response), Some(output)) = (&op.response, &op.output) else {
            return Err(mismatch("this operation's mapping has no response filter".into()));
        };
        let mapped = response.run(reply).map_err(&mismatch)?;
        let message = DynamicMessage::deserialize_with_options(
            output.clone(),
            mapped,
            &DeserializeOptions::new().deny_unknown_fields(true),
        )
        .map_err(|e| mismatch(format!("not a {}: {e}", output.full_name())))?;
        let bytes = Bytes::from(message.encode_to_vec());
        Ok(if is_empty(&message) { Answer::Empty(bytes) } else { Answer::Found(bytes) })
    }
}

/// The answer message of sync operations (spec 2.6).
pub const SYNC_RECEIPT: &str = "mediaops.common.v1.SyncReceipt";

/// Pages per sync when the mapping does not say.
pub const DEFAULT_MAX_PAGES: u32 = 20;

/// What a vendor call gave.
enum Exchange {
    /// A success reply, to map.
    Reply(Value),
    /// What a business code made of it (a miss, an empty answer).
    Outcome(Answer<Bytes>),
}

/// One page of a sync.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncPage {
    /// What the `store` filter made of the reply (JSONL-schema values).
    pub records: Vec<Value>,
    /// The cursor of the next page, if there is one.
    pub next_cursor: Option<Value>,
}

/// The calls of a several-call operation, each through a mapping of
/// `operations` (of one call) or of `routes`.
fn compile_calls(
    calls: &[Call],
    operations: &HashMap<String, Arc<MappedOperation>>,
    routes: &HashMap<String, Arc<MappedOperation>>,
    place: &str,
) -> anyhow::Result<Vec<CompiledCall>> {
    let mut compiled = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let place = format!("{place}, calls[{i}]");
        let (target, name) = match (&call.operation, &call.route) {
            (Some(key), None) => {
                let target = operations.get(key).ok_or_else(|| {
                    anyhow::anyhow!("{place}: operation {key} is not mapped by this file with a call of its own")
                })?;
                anyhow::ensure!(
                    target.output.as_ref().is_some_and(|o| o.full_name() != SYNC_RECEIPT),
                    "{place}: {key} is a sync operation"
                );
                (target.clone(), key.clone())
            }
            (None, Some(route)) => {
                let target =
                    routes.get(route).ok_or_else(|| anyhow::anyhow!("{place}: no route {route} in [routes]"))?;
                (target.clone(), format!("route:{route}"))
            }
            _ => anyhow::bail!("{place}: name either operation or route"),
        };
        compiled.push(CompiledCall {
            target,
            name,
            request: compile(&call.request, &format!("{place}, request"))?,
            bind: call.bind.as_deref().map(|c| compile(c, &format!("{place}, bind"))).transpose()?,
        });
    }
    Ok(compiled)
}

/// What a mapping must and must not have: a route of `[routes]` (`info`
/// `None`) a path and no answer; a sync operation a store filter and no
/// response; a refresh calls and no answer of its own; any other operation a
/// response and a path or calls.
fn check_parts(mapping: &OperationMapping, info: Option<&OperationInfo>, place: &str) -> anyhow::Result<()> {
    let several = !mapping.calls.is_empty() || mapping.refresh;
    let paging = mapping.next_cursor.is_some() || mapping.max_pages.is_some();
    let Some(info) = info else {
        anyhow::ensure!(!mapping.path.is_empty(), "{place}: a route needs a path");
        anyhow::ensure!(
            mapping.response.is_none() && !several && !paging,
            "{place}: a route has no response, calls, refresh, next_cursor or max_pages"
        );
        return Ok(());
    };
    // A sync operation answers our receipt: its mapping fetches pages and
    // writes them to the store instead (docs/sync.md).
    if info.method.output().full_name() == SYNC_RECEIPT {
        anyhow::ensure!(mapping.store.is_some(), "{place}: a sync operation needs a store filter");
        anyhow::ensure!(mapping.response.is_none(), "{place}: a sync operation answers our receipt; drop response");
        anyhow::ensure!(!several, "{place}: a sync operation makes one call per page; drop calls and refresh");
        anyhow::ensure!(!mapping.path.is_empty(), "{place}: path is missing");
        return Ok(());
    }
    anyhow::ensure!(!paging, "{place}: next_cursor and max_pages are for sync operations");
    if mapping.refresh {
        anyhow::ensure!(
            !mapping.calls.is_empty() && mapping.path.is_empty() && mapping.response.is_none(),
            "{place}: a refresh makes its calls and leaves the answer to the store: calls, no path, no response"
        );
        return Ok(());
    }
    anyhow::ensure!(mapping.response.is_some(), "{place}: response (the jq filter giving our answer) is missing");
    anyhow::ensure!(!mapping.path.is_empty() || !mapping.calls.is_empty(), "{place}: path is missing");
    Ok(())
}

/// Compiles one mapping: an operation's against its RPC (`info`), or a
/// route of `[routes]` (`None`).
fn map_operation(
    mapping: &OperationMapping,
    info: Option<&OperationInfo>,
    place: &str,
) -> anyhow::Result<MappedOperation> {
    let method: Method = match mapping.method.to_ascii_uppercase().as_str() {
        "GET" => Method::GET,
        "POST" => Method::POST,
        other => anyhow::bail!("{place}: method {other} (use GET or POST)"),
    };
    check_parts(mapping, info, place)?;
    let input = info.map(|i| i.method.input());
    let path_fields = placeholders(&mapping.path);
    for field in &path_fields {
        anyhow::ensure!(
            input.as_ref().is_none_or(|input| input.fields().any(|f| f.json_name() == field)),
            "{place}: path field {{{field}}} is not a field of {}",
            input.as_ref().map_or("the request", |i| i.full_name())
        );
    }
    let retry = if mapping.idempotent || method == Method::GET { Retry::Idempotent } else { Retry::Never };
    let limiter = limiter(mapping.rate_limit_per_second, place)?;
    Ok(MappedOperation {
        path_fields,
        query: mapping.query.as_deref().map(|c| compile(c, &format!("{place}, query"))).transpose()?,
        body: mapping.body.as_deref().map(|c| compile(c, &format!("{place}, body"))).transpose()?,
        response: mapping.response.as_deref().map(|c| compile(c, &format!("{place}, response"))).transpose()?,
        store: mapping.store.as_deref().map(|c| compile(c, &format!("{place}, store"))).transpose()?,
        next_cursor: mapping
            .next_cursor
            .as_deref()
            .map(|c| compile(c, &format!("{place}, next_cursor")))
            .transpose()?,
        max_pages: mapping.max_pages.unwrap_or(DEFAULT_MAX_PAGES).max(1),
        method,
        path: mapping.path.clone(),
        retry,
        input,
        output: info.map(|i| i.method.output()),
        calls: Vec::new(),
        refresh: mapping.refresh,
        cache: None,
        limiter,
        flight: Default::default(),
        key: String::new(),
        cost_per_call: mapping.cost_per_call,
        requests: AtomicU64::new(0),
        cache_hits: AtomicU64::new(0),
        shared: AtomicU64::new(0),
    })
}

/// The `{name}` placeholders of a path template.
fn placeholders(path: &str) -> Vec<String> {
    path.split('{').skip(1).filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_owned())).collect()
}

/// Our encoded request as proto3 JSON with every field present.
fn request_json(op: &MappedOperation, request: &Bytes) -> Result<Value, ServiceError> {
    let input = op.input.clone().ok_or_else(|| ServiceError::internal("a route is called with our request"))?;
    request_json_of(input, request)
}

/// The JSON of `request` as a message of type `input`, every field with
/// its default.
///
/// # Errors
/// 400 `invalid_input` when the bytes are not such a message: the chain
/// hands a vendor the caller's bytes as they came (a chain without the
/// store has decoded them nowhere else), as the store's source would refuse
/// them.
fn request_json_of(input: MessageDescriptor, request: &Bytes) -> Result<Value, ServiceError> {
    let name = input.full_name().to_owned();
    let message = DynamicMessage::decode(input, request.clone())
        .map_err(|e| ServiceError::new(ErrorCode::InvalidInput, format!("the request is not a valid {name}: {e}")))?;
    message
        .serialize_with_options(serde_json::value::Serializer, &SerializeOptions::new().skip_default_fields(false))
        .map_err(|e| ServiceError::internal(format!("request not serializable: {e}")))
}

/// Query pairs from a filter's object: `null` left out, arrays repeated,
/// scalars as text.
fn query_pairs(value: &Value) -> Vec<(String, String)> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    };
    let Value::Object(map) = value else { return Vec::new() };
    let mut pairs = Vec::new();
    for (name, value) in map {
        match value {
            Value::Array(items) => pairs.extend(items.iter().filter_map(text).map(|v| (name.clone(), v))),
            other => pairs.extend(text(other).map(|v| (name.clone(), v))),
        }
    }
    pairs
}

/// An answer with nothing in it: it has list fields and all are empty
/// (`{items: [], total: 0}`); the chain then tries its next source.
fn is_empty(message: &DynamicMessage) -> bool {
    let lists: Vec<_> = message.descriptor().fields().filter(|f| f.is_list()).collect();
    !lists.is_empty() && lists.iter().all(|f| message.get_field(f).as_list().is_none_or(|l| l.is_empty()))
}

/// The automatic maintenance switch watches vendors through this
/// (`Maintenance::watch_vendors`).
impl mediaops_platform::maintenance::Upstream for Vendor {
    fn name(&self) -> &str {
        Vendor::name(self)
    }

    fn circuit_open(&self) -> bool {
        Vendor::circuit_open(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_query_pairs() {
        assert_eq!(placeholders("/users/{accountId}/posts/{cursor}"), ["accountId", "cursor"]);
        assert!(placeholders("/search").is_empty());
        let pairs = query_pairs(&serde_json::json!({"q": "露营", "page": 2, "skip": null, "tag": ["a", "b"]}));
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        // In the filter's key order (serde_json keeps it).
        assert_eq!(pairs, [("q", "露营"), ("page", "2"), ("tag", "a"), ("tag", "b")]);
    }

    #[test]
    fn a_request_that_is_not_the_message_is_the_callers_400() {
        let input = mediaops_proto::descriptor_pool()
            .get_message_by_name("mediaops.videosite.v1.SearchWorkRequest")
            .expect("SearchWorkRequest");
        // Field 1 (`keyword`), length 1, a byte that is not UTF-8.
        let error = request_json_of(input.clone(), &Bytes::from_static(&[0x0a, 0x01, 0xff])).unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidInput, "{}", error.message);
        assert!(error.message.contains("SearchWorkRequest"), "{}", error.message);
        let good = request_json_of(input, &Bytes::from_static(&[0x0a, 0x02, b'h', b'i'])).unwrap();
        assert_eq!(good["keyword"], "hi");
    }

    #[test]
    fn compiled_vendors_can_be_shared_across_tasks() {
        fn shared<T: Send + Sync>() {}
        shared::<Vendor>();
    }
}
