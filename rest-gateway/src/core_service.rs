//! The core as the gateway's clients call it, over a connection or in
//! process: a boxed tower service of gRPC requests and responses
//! ([`CoreService`]) and its error ([`TransportError`]). Both the unary
//! calls (`core_client`) and the call streams (`call_stream`) go through it.

/// The core as the gateway calls it: gRPC requests in, gRPC responses out.
pub type CoreService = tower::util::BoxCloneSyncService<
    http::Request<tonic::body::Body>,
    http::Response<tonic::body::Body>,
    TransportError,
>;

/// The core could not be reached or its answer could not be read (a
/// concrete type: a boxed error here trips the compiler's lifetime
/// inference in handler futures).
#[derive(Debug)]
pub struct TransportError(pub(crate) tower::BoxError);

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.0.as_ref())
    }
}
