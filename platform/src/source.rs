//! Where an operation's answer comes from (ARCHITECTURE.md
//! "Data"): each data operation is answered by a [`SourceChain`], an
//! ordered list of [`Source`]s. Today every chain is `store`, the content
//! store; the upstream-vendor issue adds `upstream:<vendor>` sources and
//! builds chains such as `store,upstream:<vendor>` from config (the spec's
//! "curated store, then a larger data pool") without touching the
//! operations.
//!
//! Sources speak encoded protobuf (`Bytes` of the RPC's request and
//! response messages), so a source that is not written in Rust types (a
//! declarative vendor mapping) fits as well as a typed one.

use std::collections::HashMap;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use mediaops_proto::error_code::ErrorCode;

use crate::call::CallContext;
use mediaops_proto::error::ServiceError;

/// What one source says about one call (defined with the generated
/// service traits, whose methods may answer it: [`mediaops_proto::service`]).
use mediaops_proto::service::Answer;

/// One place answers can come from.
#[async_trait]
pub trait Source: Send + Sync {
    /// `store`, `upstream:<vendor>`, … (logs and docs).
    fn name(&self) -> &str;

    /// Answers one call: `request` is the encoded request message, the
    /// answer holds the encoded response message. An `Err` ends the chain
    /// (an invalid request is invalid everywhere; an upstream failure is a
    /// 502 and the pipeline releases the charge).
    async fn answer(&self, ctx: &CallContext, request: Bytes) -> Result<Answer<Bytes>, ServiceError>;
}

/// One step of a chain.
#[derive(Clone)]
pub enum Step {
    /// Ask this source.
    Ask(Arc<dyn Source>),
    /// Ask this source (the store) and take its found answer only when the
    /// newest record it read is younger than `max_age`
    /// ([`mediaops_store::freshness`]); an older found answer is kept
    /// and answered when no later source finds anything (docs/vendors.md
    /// "Default chains": lookups).
    Fresh {
        /// The store.
        source: Arc<dyn Source>,
        /// How old its newest record may be.
        max_age: std::time::Duration,
    },
}

impl Step {
    fn source(&self) -> &Arc<dyn Source> {
        match self {
            Step::Ask(source) | Step::Fresh { source, .. } => source,
        }
    }

    /// `store`, `store:fresh`, `upstream:<vendor>`.
    pub fn name(&self) -> String {
        match self {
            Step::Ask(source) => source.name().to_owned(),
            Step::Fresh { source, .. } => format!("{}:fresh", source.name()),
        }
    }
}

/// The sources of one operation, tried in order (docs/vendors.md "Source
/// chains").
#[derive(Clone)]
pub struct SourceChain {
    steps: Vec<Step>,
}

/// What a chain met before its answer.
#[derive(Default)]
struct Tried {
    empty: Option<Bytes>,
    missing: Option<String>,
    /// The first source that failed (502) and its error.
    failed: Option<(String, ServiceError)>,
    /// A found answer older than its step's maximum age, with its time.
    stale: Option<(Bytes, Option<chrono::DateTime<chrono::Utc>>)>,
}

impl SourceChain {
    /// A chain asking `sources` in order.
    pub fn new(sources: Vec<Arc<dyn Source>>) -> SourceChain {
        SourceChain::of_steps(sources.into_iter().map(Step::Ask).collect())
    }

    /// A chain of `steps`.
    pub fn of_steps(steps: Vec<Step>) -> SourceChain {
        SourceChain { steps }
    }

    /// The steps' names joined with `,` (e.g. `store`), as configured.
    pub fn describe(&self) -> String {
        self.steps.iter().map(Step::name).collect::<Vec<_>>().join(",")
    }

    /// Runs the chain: the first [`Answer::Found`] wins. A source that
    /// fails with 502 `upstream_unavailable` (a vendor down, timing out, its
    /// circuit open) does not end the chain: the next sources are asked
    /// (failover between vendors, the store after a vendor), and a found
    /// answer after a failure carries a warning naming the failed source.
    /// Any other error ends the chain. With nothing found: the stale answer
    /// of a [`Step::Fresh`] (warned about when a source failed); else the
    /// first failure; else the first [`Answer::Empty`]; else 404 with the
    /// first miss's message.
    pub async fn call(&self, ctx: &CallContext, request: Bytes) -> Result<Bytes, ServiceError> {
        let mut tried = Tried::default();
        for step in &self.steps {
            let source = step.source();
            let (answer, newest) = match step {
                Step::Ask(_) => (source.answer(ctx, request.clone()).await, None),
                Step::Fresh { .. } => mediaops_store::freshness::observe(source.answer(ctx, request.clone())).await,
            };
            match answer {
                Ok(Answer::Found(found)) => match step {
                    Step::Fresh { max_age, .. } if !is_fresh(newest, *max_age) => {
                        tried.stale.get_or_insert((found, newest));
                    }
                    _ => {
                        if let Some((failed, error)) = &tried.failed {
                            ctx.warn(format!(
                                "{failed} failed ({}); this answer comes from {}",
                                error.message,
                                source.name()
                            ));
                        }
                        return Ok(found);
                    }
                },
                Ok(Answer::Empty(answer)) => {
                    tried.empty.get_or_insert(answer);
                }
                Ok(Answer::NotFound(message)) => {
                    tried.missing.get_or_insert(message);
                }
                Err(error) if error.code == ErrorCode::UpstreamUnavailable => {
                    tracing::warn!(source = source.name(), error = %error.message, "a source failed; the chain goes on");
                    tried.failed.get_or_insert((source.name().to_owned(), error));
                }
                Err(error) => return Err(error),
            }
        }
        if let Some((answer, captured)) = tried.stale {
            if let Some((failed, error)) = &tried.failed {
                let when =
                    captured.map(|t| format!(" (its newest record is of {})", t.to_rfc3339())).unwrap_or_default();
                ctx.warn(format!("{failed} failed ({}); this answer comes from the store{when}", error.message));
            }
            return Ok(answer);
        }
        if let Some((_, error)) = tried.failed {
            return Err(error);
        }
        match (tried.empty, tried.missing) {
            (Some(answer), _) => Ok(answer),
            (None, Some(message)) => Err(ServiceError::not_found(message)),
            (None, None) => Err(ServiceError::internal(format!("{} has no source", ctx.operation.key()))),
        }
    }
}

/// Whether a record captured at `newest` is younger than `max_age` (no
/// time: not fresh).
fn is_fresh(newest: Option<chrono::DateTime<chrono::Utc>>, max_age: std::time::Duration) -> bool {
    let max_age = chrono::Duration::from_std(max_age).unwrap_or(chrono::Duration::MAX);
    newest.is_some_and(|at| chrono::Utc::now() - at < max_age)
}

/// Where an operation's built-in source (the store) sits in a configured
/// chain ([`Fallbacks::set`]).
#[derive(Clone)]
pub enum Slot {
    /// The built-in source.
    Builtin,
    /// The built-in source while its newest record is younger than this
    /// ([`Step::Fresh`]).
    BuiltinIfFresh(std::time::Duration),
    /// Another source (a vendor).
    Source(Arc<dyn Source>),
}

/// Extra sources per operation key, tried after the built-in one, or
/// instead of it (`mediaops_connectors::vendors::chain` fills this from `[sources]`;
/// empty by default).
#[derive(Clone, Default)]
pub struct Fallbacks {
    /// Operation key → its chain; absent = the built-in source alone.
    by_operation: HashMap<String, Vec<Slot>>,
    /// Operations whose chain was built (shared by clones).
    used: Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
}

impl Fallbacks {
    /// Adds `source` after the built-in source of `operation_key`.
    pub fn add(&mut self, operation_key: &str, source: Arc<dyn Source>) {
        self.by_operation
            .entry(operation_key.to_owned())
            .or_insert_with(|| vec![Slot::Builtin])
            .push(Slot::Source(source));
    }

    /// Answers `operation_key` from `sources` alone, without its built-in one.
    pub fn replace(&mut self, operation_key: &str, sources: Vec<Arc<dyn Source>>) {
        self.set(operation_key, sources.into_iter().map(Slot::Source).collect());
    }

    /// Answers `operation_key` by the chain `slots` (the built-in source
    /// where [`Slot::Builtin`] or [`Slot::BuiltinIfFresh`] stands).
    pub fn set(&mut self, operation_key: &str, slots: Vec<Slot>) {
        self.by_operation.insert(operation_key.to_owned(), slots);
    }

    /// Whether an operation registered with these fallbacks built the chain
    /// of `operation_key` (so its configured sources are in use).
    pub fn was_used(&self, operation_key: &str) -> bool {
        self.used.lock().unwrap_or_else(std::sync::PoisonError::into_inner).contains(operation_key)
    }

    /// The chain of `operation_key`: a first source named `name` (e.g.
    /// `store`) that decodes the request as `Req`, runs `f` over `state` and
    /// encodes the `Resp` of its answer, followed by these fallbacks (the
    /// registry's `handle_sourced`).
    pub(crate) fn typed_chain<S, Req, Resp, F, Fut>(
        &self,
        operation_key: &str,
        name: &'static str,
        state: &Arc<S>,
        f: F,
    ) -> SourceChain
    where
        S: Send + Sync + ?Sized + 'static,
        Req: prost::Message + prost::Name + Default + 'static,
        Resp: prost::Message + 'static,
        F: Fn(Arc<S>, CallContext, Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Answer<Resp>, ServiceError>> + Send + 'static,
    {
        let first: Arc<dyn Source> =
            Arc::new(TypedSource { name, state: state.clone(), f, types: PhantomData::<fn(Req) -> Resp> });
        self.chain(first, operation_key)
    }

    fn chain(&self, first: Arc<dyn Source>, operation_key: &str) -> SourceChain {
        self.used.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(operation_key.to_owned());
        let Some(slots) = self.by_operation.get(operation_key) else {
            return SourceChain::new(vec![first]);
        };
        let steps = slots
            .iter()
            .map(|slot| match slot {
                Slot::Builtin => Step::Ask(first.clone()),
                Slot::BuiltinIfFresh(max_age) => Step::Fresh { source: first.clone(), max_age: *max_age },
                Slot::Source(source) => Step::Ask(source.clone()),
            })
            .collect();
        SourceChain::of_steps(steps)
    }
}

/// A typed source: decodes the request as `Req`, runs `f`, encodes the
/// `Resp` of its answer.
struct TypedSource<S: ?Sized, Req, Resp, F> {
    name: &'static str,
    state: Arc<S>,
    f: F,
    types: PhantomData<fn(Req) -> Resp>,
}

#[async_trait]
impl<S, Req, Resp, F, Fut> Source for TypedSource<S, Req, Resp, F>
where
    S: Send + Sync + ?Sized + 'static,
    Req: prost::Message + prost::Name + Default + 'static,
    Resp: prost::Message + 'static,
    F: Fn(Arc<S>, CallContext, Req) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Answer<Resp>, ServiceError>> + Send + 'static,
{
    fn name(&self) -> &str {
        self.name
    }

    async fn answer(&self, ctx: &CallContext, request: Bytes) -> Result<Answer<Bytes>, ServiceError> {
        let request = Req::decode(request).map_err(|e| {
            ServiceError::new(ErrorCode::InvalidInput, format!("the request is not a valid {}: {e}", Req::full_name()))
        })?;
        let encode = |m: Resp| Bytes::from(m.encode_to_vec());
        Ok(match (self.f)(self.state.clone(), ctx.clone(), request).await? {
            Answer::Found(m) => Answer::Found(encode(m)),
            Answer::Empty(m) => Answer::Empty(encode(m)),
            Answer::NotFound(message) => Answer::NotFound(message),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Principal;
    use crate::registry::Registry;

    /// A source answering `answer` (or failing with 502 when `None`).
    struct Fixed {
        name: &'static str,
        answer: Option<Answer<Bytes>>,
        asked: std::sync::atomic::AtomicUsize,
    }

    fn fixed(name: &'static str, answer: Option<Answer<Bytes>>) -> Arc<Fixed> {
        Arc::new(Fixed { name, answer, asked: Default::default() })
    }

    #[async_trait]
    impl Source for Fixed {
        fn name(&self) -> &str {
            self.name
        }

        async fn answer(&self, _: &CallContext, _: Bytes) -> Result<Answer<Bytes>, ServiceError> {
            self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            self.answer
                .clone()
                .ok_or_else(|| ServiceError::upstream_unavailable(format!("{} is down", self.name), None))
        }
    }

    fn ctx() -> CallContext {
        let registry = Registry::from_pool(mediaops_proto::descriptor_pool()).unwrap();
        let operation = registry.operations().next().unwrap().clone();
        let principal = Principal { account_id: "a".into(), key_id: "k".into(), key_prefix: "mk_".into() };
        CallContext::new("r".into(), principal, operation)
    }

    fn found(text: &'static str) -> Option<Answer<Bytes>> {
        Some(Answer::Found(Bytes::from_static(text.as_bytes())))
    }

    #[tokio::test]
    async fn a_failed_source_hands_over_to_the_next_with_a_warning() {
        let (down, other, store) =
            (fixed("upstream:a", None), fixed("upstream:b", found("b")), fixed("store", found("s")));
        let chain = SourceChain::new(vec![down.clone(), other.clone(), store.clone()]);
        let first = ctx();
        assert_eq!(chain.call(&first, Bytes::new()).await.unwrap(), "b");
        assert_eq!(store.asked.load(std::sync::atomic::Ordering::SeqCst), 0, "the first found answer wins");
        assert_eq!(
            first.warnings.list(),
            ["upstream:a failed (upstream:a is down); this answer comes from upstream:b"]
        );

        let quiet = ctx();
        let chain = SourceChain::new(vec![other.clone(), down.clone()]);
        assert_eq!(chain.call(&quiet, Bytes::new()).await.unwrap(), "b");
        assert!(quiet.warnings.list().is_empty());
    }

    #[tokio::test]
    async fn after_a_failure_only_a_found_answer_counts() {
        let empty = fixed("store", Some(Answer::Empty(Bytes::new())));
        let chain = SourceChain::new(vec![fixed("upstream:a", None), empty]);
        let error = chain.call(&ctx(), Bytes::new()).await.unwrap_err();
        assert_eq!((error.code, error.message.as_str()), (ErrorCode::UpstreamUnavailable, "upstream:a is down"));
        let missing = fixed("upstream:a", Some(Answer::NotFound("no such video".into())));
        let chain = SourceChain::new(vec![missing, fixed("store", Some(Answer::Empty(Bytes::new())))]);
        assert_eq!(chain.call(&ctx(), Bytes::new()).await.unwrap(), "", "a miss then an empty answer: empty");
    }

    #[tokio::test]
    async fn a_stale_store_answer_waits_behind_the_vendor() {
        let store = fixed("store", found("old"));
        let fresh = |vendor: Arc<Fixed>| {
            SourceChain::of_steps(vec![
                Step::Fresh { source: store.clone(), max_age: std::time::Duration::from_secs(60) },
                Step::Ask(vendor),
            ])
        };
        // The fixed store reads no record: its age is unknown, so not fresh.
        let chain = fresh(fixed("upstream:a", found("new")));
        assert_eq!(chain.describe(), "store:fresh,upstream:a");
        assert_eq!(chain.call(&ctx(), Bytes::new()).await.unwrap(), "new");
        let warned = ctx();
        assert_eq!(fresh(fixed("upstream:a", None)).call(&warned, Bytes::new()).await.unwrap(), "old");
        assert!(
            warned.warnings.list()[0]
                .starts_with("upstream:a failed (upstream:a is down); this answer comes from the store")
        );
        let missing = fixed("upstream:a", Some(Answer::NotFound("gone".into())));
        assert_eq!(fresh(missing).call(&ctx(), Bytes::new()).await.unwrap(), "old");
    }

    #[test]
    fn freshness_is_the_age_of_the_newest_record() {
        let minute = std::time::Duration::from_secs(60);
        assert!(is_fresh(Some(chrono::Utc::now() - chrono::Duration::seconds(10)), minute));
        assert!(!is_fresh(Some(chrono::Utc::now() - chrono::Duration::seconds(120)), minute));
        assert!(!is_fresh(None, minute));
    }
}
