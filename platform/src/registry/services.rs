//! The registry as the [`Pipeline`] of the service traits generated from
//! the protos (`proto/build.rs`, [`mediaops_proto::service`]): a generated
//! `register(registry, service)` puts every RPC of one proto service here,
//! each answered by its trait method.

use std::future::Future;
use std::sync::Arc;

use mediaops_proto::service::{Answer, Pipeline, Reply};

use super::{CallContext, Registry};
use mediaops_proto::error::ServiceError;

/// The name of the first source of a trait method's source chain.
const STORE: &str = "store";

impl Pipeline for Registry {
    type Context = CallContext;
    type Error = ServiceError;
    type Failure = anyhow::Error;

    /// A method answering the response message is registered as is; one
    /// answering an [`Answer`] is the first source (`store`) of the RPC's
    /// source chain, followed by the configured fallbacks.
    ///
    /// # Errors
    /// What [`Registry::handle`] refuses, or a source-chain method
    /// registered before [`Registry::set_fallbacks`].
    fn rpc<S, Req, Resp, R, F, Fut>(
        &mut self,
        full_method: &'static str,
        service: &Arc<S>,
        handler: F,
    ) -> anyhow::Result<()>
    where
        S: Send + Sync + 'static,
        Req: prost::Message + prost::Name + Default + 'static,
        Resp: prost::Message + prost::Name + Default + 'static,
        R: Reply<Resp>,
        F: Fn(Arc<S>, CallContext, Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, ServiceError>> + Send + 'static,
    {
        if R::SOURCED {
            let fallbacks = self.fallbacks.clone().ok_or_else(|| {
                anyhow::anyhow!("{full_method} answers through a source chain: set the registry's fallbacks first")
            })?;
            self.handle_sourced(full_method, &fallbacks, STORE, service, move |service, ctx, request| {
                let reply = handler(service, ctx, request);
                async move { reply.await.map(Reply::into_answer) }
            })
        } else {
            self.handle_shared(full_method, service, move |service, ctx, request| {
                let reply = handler(service, ctx, request);
                async move { reply.await.and_then(alone) }
            })
        }
    }
}

/// A reply of a method without a source chain, as a chain of that one
/// source answers it (a plain response is always [`Answer::Found`]).
fn alone<T>(reply: impl Reply<T>) -> Result<T, ServiceError> {
    match reply.into_answer() {
        Answer::Found(response) | Answer::Empty(response) => Ok(response),
        Answer::NotFound(message) => Err(ServiceError::not_found(message)),
    }
}
