//! The operation registry: every RPC of the descriptor pool that carries an
//! operation option (ARCHITECTURE.md), keyed by its gRPC path, with the
//! handler that implements it, if one is built yet.
//!
//! Handlers are registered with their typed prost request and response; the
//! registry checks at start-up that the types match the RPC's descriptor.

mod services;
mod sourced;

pub use crate::call::{CallContext, OperationInfo, TaskIdSlot, Warnings};

// Keys from a fixed set (operations, fields): foldhash, not SipHash
// (docs/performance.md "Fixed-key maps with foldhash").
use foldhash::{HashMap, HashMapExt};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use prost_reflect::DescriptorPool;

use crate::call::Limits;
use crate::source::Fallbacks;
use mediaops_proto::error::ServiceError;

/// A boxed, sendable future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// What a handler gets and returns: encoded protobuf messages.
pub type Handler = Arc<dyn Fn(CallContext, Bytes) -> BoxFuture<Result<Bytes, ServiceError>> + Send + Sync>;

/// Every operation and its handler.
pub struct Registry {
    operations: HashMap<String, Arc<OperationInfo>>,
    /// In descriptor order, for catalogs.
    order: Vec<String>,
    handlers: HashMap<String, Handler>,
    /// Per-operation timing that replaces the pipeline's defaults.
    limits: HashMap<String, Limits>,
    /// The configured sources after the store, for the RPCs of generated
    /// service traits that answer through a source chain
    /// ([`Registry::set_fallbacks`]).
    fallbacks: Option<Fallbacks>,
}

impl Registry {
    /// Collects every RPC with an operation option. Fails on duplicate
    /// operation keys, so two RPCs can never claim one catalog entry.
    pub fn from_pool(pool: &DescriptorPool) -> anyhow::Result<Registry> {
        let mut operations = HashMap::new();
        let mut order = Vec::new();
        let mut keys = std::collections::HashSet::new();
        for (method, meta) in mediaops_proto::options::operations(pool) {
            anyhow::ensure!(
                keys.insert(meta.operation_key.clone()),
                "operation key {} is declared twice",
                meta.operation_key
            );
            let grpc_path = format!("/{}/{}", method.parent_service().full_name(), method.name());
            order.push(grpc_path.clone());
            operations.insert(grpc_path.clone(), Arc::new(OperationInfo { grpc_path, method, meta }));
        }
        Ok(Registry { operations, order, handlers: HashMap::new(), limits: HashMap::new(), fallbacks: None })
    }

    /// The sources configured after the store (`[sources]`,
    /// `mediaops_connectors::vendors::chain::Plan`), which the source chains of the
    /// service traits' RPCs registered from now on follow.
    pub fn set_fallbacks(&mut self, fallbacks: Fallbacks) {
        self.fallbacks = Some(fallbacks);
    }

    /// Whether `operation_key` was registered with a source chain whose
    /// first source is built in (the store), so configured sources can
    /// stand before or after it ([`Fallbacks::was_used`]).
    pub fn is_sourced(&self, operation_key: &str) -> bool {
        self.fallbacks.as_ref().is_some_and(|f| f.was_used(operation_key))
    }

    /// Registers the handler of the RPC `full_method` (`package.Service.Method`).
    ///
    /// # Errors
    /// The RPC does not exist, already has a handler, or its request/response
    /// types are not `Req`/`Resp`.
    pub fn handle<Req, Resp, F, Fut>(&mut self, full_method: &str, handler: F) -> anyhow::Result<()>
    where
        Req: prost::Message + prost::Name + Default + 'static,
        Resp: prost::Message + prost::Name + 'static,
        F: Fn(CallContext, Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Resp, ServiceError>> + Send + 'static,
    {
        let grpc_path = self.typed_path::<Req, Resp>(full_method)?.grpc_path.clone();
        anyhow::ensure!(!self.handlers.contains_key(&grpc_path), "{full_method} has two handlers");
        let handler = Arc::new(handler);
        let erased: Handler = Arc::new(move |ctx: CallContext, bytes: Bytes| {
            let handler = handler.clone();
            Box::pin(async move {
                let request = Req::decode(bytes).map_err(|e| {
                    ServiceError::new(
                        mediaops_proto::error_code::ErrorCode::InvalidInput,
                        format!("the request is not a valid {}: {e}", Req::full_name()),
                    )
                })?;
                let response = handler(ctx, request).await?;
                Ok(Bytes::from(response.encode_to_vec()))
            })
        });
        self.handlers.insert(grpc_path, erased);
        Ok(())
    }

    /// Registers an encoded-message handler for the RPC at `grpc_path`
    /// (`/package.Service/Method`), for handlers that are not written in
    /// Rust types (source chains of vendor mappings).
    ///
    /// # Errors
    /// An unknown path, or one that has a handler already.
    pub fn handle_encoded(&mut self, grpc_path: &str, handler: Handler) -> anyhow::Result<()> {
        anyhow::ensure!(self.operations.contains_key(grpc_path), "no operation RPC at {grpc_path}");
        anyhow::ensure!(!self.handlers.contains_key(grpc_path), "{grpc_path} has two handlers");
        self.handlers.insert(grpc_path.to_owned(), handler);
        Ok(())
    }

    /// The RPC named `full_method` (`package.Service.Method`), checked to
    /// take `Req` and return `Resp`.
    fn typed_path<Req: prost::Name, Resp: prost::Name>(
        &self,
        full_method: &str,
    ) -> anyhow::Result<&Arc<OperationInfo>> {
        let info = self.named(full_method)?;
        anyhow::ensure!(
            info.method.input().full_name() == Req::full_name()
                && info.method.output().full_name() == Resp::full_name(),
            "{full_method} takes {} and returns {}, not {} / {}",
            info.method.input().full_name(),
            info.method.output().full_name(),
            Req::full_name(),
            Resp::full_name()
        );
        Ok(info)
    }

    /// The RPC named `full_method` (`package.Service.Method`).
    fn named(&self, full_method: &str) -> anyhow::Result<&Arc<OperationInfo>> {
        self.operations
            .values()
            .find(|info| info.method.full_name() == full_method)
            .ok_or_else(|| anyhow::anyhow!("no operation RPC named {full_method}"))
    }

    /// [`Registry::handle`] for a handler that needs shared state: each call
    /// gets its own clone of `state`, so handlers are plain `async move`
    /// blocks without clone-before-move boilerplate.
    pub fn handle_shared<S, Req, Resp, F, Fut>(
        &mut self,
        full_method: &str,
        state: &Arc<S>,
        handler: F,
    ) -> anyhow::Result<()>
    where
        S: Send + Sync + ?Sized + 'static,
        Req: prost::Message + prost::Name + Default + 'static,
        Resp: prost::Message + prost::Name + 'static,
        F: Fn(Arc<S>, CallContext, Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Resp, ServiceError>> + Send + 'static,
    {
        let state = state.clone();
        self.handle(full_method, move |ctx, request| handler(state.clone(), ctx, request))
    }

    /// [`Registry::handle`], replacing the RPC's handler if it has one (tests
    /// put stand-ins in front of built operations to drive billing paths).
    pub fn replace<Req, Resp, F, Fut>(&mut self, full_method: &str, handler: F) -> anyhow::Result<()>
    where
        Req: prost::Message + prost::Name + Default + 'static,
        Resp: prost::Message + prost::Name + 'static,
        F: Fn(CallContext, Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Resp, ServiceError>> + Send + 'static,
    {
        if let Some(info) = self.operations.values().find(|info| info.method.full_name() == full_method) {
            self.handlers.remove(&info.grpc_path);
        }
        self.handle(full_method, handler)
    }

    /// Gives the RPC `full_method` its own timing instead of the pipeline's
    /// defaults (a task operation waits longer and holds its reservation
    /// until the task ends: docs/tasks.md).
    ///
    /// # Errors
    /// The RPC does not exist, or its timeout is not below its reservation TTL.
    pub fn set_limits(&mut self, full_method: &str, limits: Limits) -> anyhow::Result<()> {
        let info = self.named(full_method)?;
        anyhow::ensure!(
            limits.operation_timeout < limits.reservation_ttl,
            "{full_method}: the operation timeout must be below the reservation TTL"
        );
        self.limits.insert(info.grpc_path.clone(), limits);
        Ok(())
    }

    /// The timing set for the operation at `grpc_path`, if it has its own.
    pub fn limits(&self, grpc_path: &str) -> Option<Limits> {
        self.limits.get(grpc_path).copied()
    }

    /// The operation at a gRPC path.
    pub fn get(&self, grpc_path: &str) -> Option<&Arc<OperationInfo>> {
        self.operations.get(grpc_path)
    }

    /// The handler at a gRPC path, if the operation is built.
    pub fn handler(&self, grpc_path: &str) -> Option<&Handler> {
        self.handlers.get(grpc_path)
    }

    /// Whether the operation at `grpc_path` has a handler.
    pub fn is_implemented(&self, grpc_path: &str) -> bool {
        self.handlers.contains_key(grpc_path)
    }

    /// Every operation, in descriptor order.
    pub fn operations(&self) -> impl Iterator<Item = &Arc<OperationInfo>> {
        self.order.iter().map(|path| &self.operations[path])
    }
}
