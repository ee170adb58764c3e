//! The vendor mapping file (docs/vendors.md): one TOML file per vendor
//! that connects a commercial data API without Rust. Read with figment;
//! every jq filter is compiled and every operation checked at start
//! ([`super::Vendor::load`]).

use std::collections::BTreeMap;

use serde::Deserialize;

/// One vendor file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VendorFile {
    /// The name in source chains: `upstream:<name>`; `[a-z0-9_-]+`.
    pub name: String,
    /// Base URL of the vendor's API, `http(s)://host[:port][/prefix]`.
    pub base_url: String,
    /// How the vendor wants its key (`[auth]`).
    pub auth: Auth,
    /// Seconds for one request, reply included (default: `[outbound]`'s).
    pub timeout_secs: Option<u64>,
    /// Retries of an idempotent read (GET, or `idempotent = true`) after a
    /// transport failure, timeout, 5xx or 429 (default: `[outbound]`'s).
    pub retries: Option<u32>,
    /// Requests per second allowed to this vendor; calls beyond wait their
    /// turn. Absent = no limit.
    pub rate_limit_per_second: Option<u32>,
    /// How its replies' business codes are read (`[reply]`; default: none,
    /// an HTTP 2xx is a success).
    #[serde(default)]
    pub reply: Reply,
    /// Its circuit breaker (`[breaker]`; default 5 failures, open 30 s).
    #[serde(default)]
    pub breaker: Breaker,
    /// The currency of the operations' `cost_per_call` (`"USD"`, `"CNY"`).
    pub currency: Option<String>,
    /// Per operation key (`shortvideo.search-work`).
    pub operations: BTreeMap<String, OperationMapping>,
    /// Named routes that answer no operation themselves, for the [`Call`]s
    /// of operations (a platform's hot list fetched before a board is
    /// computed): `method`, `path`, `query`, `body`, `store`,
    /// `cost_per_call`, `rate_limit_per_second`, `idempotent` as in an
    /// operation; no `response`.
    #[serde(default)]
    pub routes: BTreeMap<String, OperationMapping>,
    /// Operation key → why none of the vendor's routes answers it (a pack
    /// lists every data API of spec 4.3–4.14 it does not map).
    #[serde(default)]
    pub unmapped: BTreeMap<String, String>,
}

/// How the vendor wants its key. The secret itself comes from the
/// environment variable `token_env`, never from the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Auth {
    /// `Authorization: Bearer <token>` (TikHub style).
    Bearer {
        /// The environment variable holding the token.
        token_env: String,
    },
    /// `<name>: <token>`.
    Header {
        /// The header's name.
        name: String,
        /// The environment variable holding the token.
        token_env: String,
    },
    /// `?<name>=<token>` (Just One API style).
    Query {
        /// The query parameter's name.
        name: String,
        /// The environment variable holding the token.
        token_env: String,
    },
    /// No key (a vendor behind a private network, a test server).
    None,
}

/// How a reply's business status is read, and what its codes mean.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    /// jq over the reply giving its business code (number or string); absent
    /// or giving `null` = the reply has none and an HTTP 2xx is a success.
    pub code: Option<String>,
    /// jq over the reply giving its message (used in errors).
    pub message: Option<String>,
    /// Codes meaning success (compared as text: `200`, `0`).
    #[serde(default)]
    pub success: Vec<String>,
    /// What other codes mean; an unlisted code is a 502 with the vendor's
    /// code and message in `error.upstream`.
    #[serde(default)]
    pub errors: Vec<ErrorRule>,
}

/// One business-code rule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorRule {
    /// The vendor codes (as text) this rule covers.
    pub codes: Vec<String>,
    /// What we answer: `upstream_unavailable` (502, the default),
    /// `invalid_input` (400), `not_found` (a miss: the chain goes on, then
    /// 404) or `empty` (a success with nothing: the chain goes on).
    #[serde(default = "default_outcome")]
    pub outcome: Outcome,
    /// Our message; default: the vendor's.
    pub message: Option<String>,
    /// Advice appended to a 502: "retry in N seconds".
    pub retry_after_secs: Option<u64>,
    /// Counts toward the circuit breaker (default: true for
    /// `upstream_unavailable`; a vendor-side "collection failed" is a
    /// vendor failure, a bad keyword is not).
    pub breaker: Option<bool>,
}

fn default_outcome() -> Outcome {
    Outcome::UpstreamUnavailable
}

/// What a business code becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// 502 `upstream_unavailable` with the vendor's code and message in
    /// `error.upstream` (the default).
    UpstreamUnavailable,
    /// 400 `invalid_input`: the request was wrong.
    InvalidInput,
    /// A miss: the source chain goes on, then 404 `not_found`.
    NotFound,
    /// A success with nothing: the source chain goes on.
    Empty,
}

/// The circuit breaker of a vendor (docs/vendors.md "Failures").
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Breaker {
    /// Consecutive failed calls that open the circuit (0 = never).
    pub failures: u32,
    /// Seconds the circuit stays open (calls fail at once) before one trial
    /// call is let through.
    pub open_secs: u64,
}

impl Default for Breaker {
    fn default() -> Self {
        Breaker { failures: 5, open_secs: 30 }
    }
}

/// How one operation maps onto one vendor endpoint.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperationMapping {
    /// `GET` (default) or `POST`.
    #[serde(default = "default_method")]
    pub method: String,
    /// Path under the base URL; `{field}` is replaced by that request field
    /// (JSON name, percent-encoded), e.g. `/users/{accountId}/posts`. Empty
    /// (only with `calls`): the operation is answered from its calls alone.
    #[serde(default)]
    pub path: String,
    /// Calls made first, in order (docs/vendors.md "Several calls"): steps
    /// whose `bind` adds fields of their reply to the request (a search
    /// giving the id the final call takes), and fan-outs (one call per item
    /// or per platform) whose replies the `response` filter combines.
    #[serde(default)]
    pub calls: Vec<Call>,
    /// Refresh, then compute (docs/vendors.md "Several calls"): the calls'
    /// records are written to the store before the operation's next source,
    /// the store, answers from them; the mapping gives no answer itself
    /// (no `path`, no `response`), and its default chain is the vendor, then
    /// the store.
    #[serde(default)]
    pub refresh: bool,
    /// jq over our request (proto3 JSON, every field present) giving an
    /// object of query parameters; `null` values are left out, arrays repeat
    /// the parameter.
    pub query: Option<String>,
    /// jq over our request giving the JSON body (POST).
    pub body: Option<String>,
    /// jq over the vendor's reply giving our response message (proto3 JSON).
    /// Its output is checked against the message at call time. Required,
    /// except for sync operations, whose answer is our receipt
    /// (docs/sync.md).
    pub response: Option<String>,
    /// jq over the vendor's reply giving an array of records in the store's
    /// JSONL schema (docs/store.md), written to the content store after a
    /// found answer (docs/vendors.md "Write-back"); snapshots without
    /// `capturedAt` are stamped with the time of the call.
    pub store: Option<String>,
    /// Sync operations (docs/sync.md "Vendor mapping"): jq over the reply
    /// giving the next page's cursor, or `null` (or `""`, `false`) when it
    /// was the last page. The request filters then see it as `.cursor`
    /// (`null` on the first page).
    pub next_cursor: Option<String>,
    /// Sync operations: at most this many pages per sync (default 20).
    pub max_pages: Option<u32>,
    /// A POST that only reads (a search): retried like a GET.
    #[serde(default)]
    pub idempotent: bool,
    /// Seconds an answer is reused for the same request (0 = not cached).
    #[serde(default)]
    pub cache_ttl_secs: u64,
    /// What one call of this route costs at the vendor, in the file's
    /// `currency` (from the vendor's price list).
    pub cost_per_call: Option<f64>,
    /// Requests per second allowed to this route (the vendor's per-path
    /// limit), on top of the vendor's `rate_limit_per_second`.
    pub rate_limit_per_second: Option<u32>,
    /// Lookups: seconds a stored record stays fresh enough to answer
    /// without asking the vendor (the store-first chain of a lookup).
    pub max_age_secs: Option<u64>,
}

/// One call of an operation made of several (docs/vendors.md "Several
/// calls"), through another mapping of the same file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// An operation of this file whose mapping is called (its route, request
    /// filters, `store` write-back and `response`); the `request` filter
    /// gives that operation's request (proto3 JSON, missing fields default).
    pub operation: Option<String>,
    /// Or a route of this file's `[routes]`; `request` gives the object its
    /// filters read.
    pub route: Option<String>,
    /// jq over our request (proto3 JSON, with the fields earlier steps
    /// bound) giving the call's request: an object = one call, an array =
    /// one call per element (fan-out), `null` = no call (e.g. another
    /// platform was asked for).
    pub request: String,
    /// A step: jq over `{request, reply, answer}` (`answer` = the called
    /// operation's `response` output, else `null`) giving an object whose
    /// fields are added to our request for later calls and the final call.
    /// A `null` or `""` field is a miss: the operation answers not found.
    pub bind: Option<String>,
}

fn default_method() -> String {
    "GET".to_owned()
}
