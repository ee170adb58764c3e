//! Where an operation's answer comes from (issue 5 item 6; ARCHITECTURE.md
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
use crate::error::ServiceError;

/// What one source says about one call (defined with the generated
/// service traits, whose methods may answer it: [`mediaops_proto::service`]).
pub use mediaops_proto::service::Answer;

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

/// The sources of one operation, tried in order.
#[derive(Clone)]
pub struct SourceChain {
    sources: Vec<Arc<dyn Source>>,
}

impl SourceChain {
    /// A chain asking `sources` in order.
    pub fn new(sources: Vec<Arc<dyn Source>>) -> SourceChain {
        SourceChain { sources }
    }

    /// The sources' names joined with `,` (e.g. `store`), as configured.
    pub fn describe(&self) -> String {
        self.sources.iter().map(|s| s.name()).collect::<Vec<_>>().join(",")
    }

    /// Runs the chain: the first [`Answer::Found`] wins; else the first
    /// [`Answer::Empty`]; else 404 with the first miss's message.
    pub async fn call(&self, ctx: &CallContext, request: Bytes) -> Result<Bytes, ServiceError> {
        let mut empty = None;
        let mut missing = None;
        for source in &self.sources {
            match source.answer(ctx, request.clone()).await? {
                Answer::Found(found) => return Ok(found),
                Answer::Empty(answer) => {
                    empty.get_or_insert(answer);
                }
                Answer::NotFound(message) => {
                    missing.get_or_insert(message);
                }
            }
        }
        match (empty, missing) {
            (Some(answer), _) => Ok(answer),
            (None, Some(message)) => Err(ServiceError::not_found(message)),
            (None, None) => Err(ServiceError::internal(format!("{} has no source", ctx.operation.key()))),
        }
    }
}

/// Extra sources per operation key, tried after the built-in one, or
/// instead of it (`mediaops_connectors::vendors::chain` fills this from `[sources]`;
/// empty by default).
#[derive(Clone, Default)]
pub struct Fallbacks {
    by_operation: HashMap<String, Vec<Arc<dyn Source>>>,
    /// Operations whose built-in source is left out.
    without_builtin: std::collections::HashSet<String>,
    /// Operations whose chain was built (shared by clones).
    used: Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
}

impl Fallbacks {
    /// Adds `source` after the built-in source of `operation_key`.
    pub fn add(&mut self, operation_key: &str, source: Arc<dyn Source>) {
        self.by_operation.entry(operation_key.to_owned()).or_default().push(source);
    }

    /// Answers `operation_key` from `sources` alone, without its built-in one.
    pub fn replace(&mut self, operation_key: &str, sources: Vec<Arc<dyn Source>>) {
        self.by_operation.insert(operation_key.to_owned(), sources);
        self.without_builtin.insert(operation_key.to_owned());
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
        let mut sources = Vec::new();
        if !self.without_builtin.contains(operation_key) {
            sources.push(first);
        }
        sources.extend(self.by_operation.get(operation_key).into_iter().flatten().cloned());
        SourceChain::new(sources)
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
