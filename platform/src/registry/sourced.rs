//! Operations answered by a source chain ([`crate::source`]): registered
//! with their chain, or with a typed first source and the configured
//! [`Fallbacks`].

use std::future::Future;
use std::sync::Arc;

use bytes::Bytes;

use super::{CallContext, Registry};
use crate::source::{Fallbacks, SourceChain};
use mediaops_proto::error::ServiceError;
use mediaops_proto::service::Answer;

impl Registry {
    /// Registers the operation `operation_key` as answered by `chain` alone
    /// (encoded messages in and out; an upstream-only operation).
    ///
    /// # Errors
    /// An unknown operation key, or one that has a handler already.
    pub fn handle_chain(&mut self, operation_key: &str, chain: Arc<SourceChain>) -> anyhow::Result<()> {
        let grpc_path = self
            .operations()
            .find(|op| op.key() == operation_key)
            .map(|op| op.grpc_path.clone())
            .ok_or_else(|| anyhow::anyhow!("no operation {operation_key}"))?;
        self.handle_encoded(&grpc_path, chain_handler(chain))
    }

    /// Registers `full_method` (`package.Service.Method`) as answered by a
    /// chain whose first source, named `name` (e.g. `store`), is `f` over
    /// `state`, followed by the operation's [`Fallbacks`].
    pub fn handle_sourced<S, Req, Resp, F, Fut>(
        &mut self,
        full_method: &str,
        fallbacks: &Fallbacks,
        name: &'static str,
        state: &Arc<S>,
        f: F,
    ) -> anyhow::Result<()>
    where
        S: Send + Sync + ?Sized + 'static,
        Req: prost::Message + prost::Name + Default + 'static,
        Resp: prost::Message + prost::Name + 'static,
        F: Fn(Arc<S>, CallContext, Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Answer<Resp>, ServiceError>> + Send + 'static,
    {
        let info = self.typed_path::<Req, Resp>(full_method)?;
        let (grpc_path, operation_key) = (info.grpc_path.clone(), info.key().to_owned());
        // The chain's first source decodes the request and encodes its
        // answer, and every source answers the encoded response: its bytes
        // are the call's answer, without decoding and encoding them again
        // here (docs/performance.md "One encoding of a stored answer").
        let chain = Arc::new(fallbacks.typed_chain::<S, Req, Resp, F, Fut>(&operation_key, name, state, f));
        self.handle_encoded(&grpc_path, chain_handler(chain))
    }
}

/// The handler answering every call through `chain` (encoded messages in
/// and out).
fn chain_handler(chain: Arc<SourceChain>) -> super::Handler {
    Arc::new(move |ctx: CallContext, request: Bytes| {
        let chain = chain.clone();
        Box::pin(async move { chain.call(&ctx, request).await })
    })
}
