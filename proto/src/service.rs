//! What the generated service traits stand on (docs/architecture.md).
//!
//! `proto/build.rs` turns each proto service into a module next to its
//! messages, named after the service in snake case, holding:
//! - a trait named after the service (`VideositeService<P>`) with one
//!   method per RPC: it takes the call context and the typed request and
//!   answers the typed response, or an [`Answer`] of it, or the service
//!   error. A type that implements the trait implements every RPC: a
//!   missing one is a compile error;
//! - `register(pipeline, service)`, which registers every RPC of the
//!   service with a [`Pipeline`] (the core's registry), answered by
//!   `service`.
//!
//! The traits are generic over the [`Pipeline`] so that this crate does not
//! depend on the core: the core's registry implements [`Pipeline`] with its
//! call context and its error type.

use std::future::Future;
use std::sync::Arc;

/// What one source says about one call, when an RPC is answered by a source
/// chain: the content store first, then the vendors configured for the
/// operation (ARCHITECTURE.md "Data"; `platform/src/source.rs`).
#[derive(Debug, Clone, PartialEq)]
pub enum Answer<T> {
    /// An answer with content: the chain stops here.
    Found(T),
    /// A valid answer with nothing in it (an empty list): the chain tries
    /// the next source and, if none finds more, answers this.
    Empty(T),
    /// The thing asked for is not known here (a lookup miss): the chain
    /// tries the next source and, if none knows it, answers 404
    /// `not_found` with this message.
    NotFound(String),
}

/// What a service method may answer for the response message `T`: `T`
/// itself (the RPC is answered by the method alone) or an [`Answer<T>`]
/// (the method is the first source of the RPC's source chain, and the
/// operation accepts vendor sources after it).
pub trait Reply<T>: Send + 'static {
    /// Whether the method is the first source of a source chain.
    const SOURCED: bool;

    /// The reply as a source's answer (`T` is always [`Answer::Found`]).
    fn into_answer(self) -> Answer<T>;
}

impl<T: prost::Message + 'static> Reply<T> for T {
    const SOURCED: bool = false;

    fn into_answer(self) -> Answer<T> {
        Answer::Found(self)
    }
}

impl<T: Send + 'static> Reply<T> for Answer<T> {
    const SOURCED: bool = true;

    fn into_answer(self) -> Answer<T> {
        self
    }
}

/// The pipeline that serves the generated services: its call context, its
/// error, and how one RPC is registered (the core's registry implements
/// it).
pub trait Pipeline {
    /// What a method learns about the call (caller, request id, operation).
    type Context: Send + 'static;
    /// The error a method answers (mapped to gRPC and HTTP statuses).
    type Error: Send + 'static;
    /// Why a registration failed (an RPC without operation metadata, a
    /// second handler, request or response types that do not match).
    type Failure;

    /// Registers the RPC `full_method` (`package.Service.Method`) as
    /// answered by `handler` over `service`.
    ///
    /// # Errors
    /// See [`Pipeline::Failure`].
    fn rpc<S, Req, Resp, R, F, Fut>(
        &mut self,
        full_method: &'static str,
        service: &Arc<S>,
        handler: F,
    ) -> Result<(), Self::Failure>
    where
        S: Send + Sync + 'static,
        Req: prost::Message + prost::Name + Default + 'static,
        Resp: prost::Message + prost::Name + Default + 'static,
        R: Reply<Resp>,
        F: Fn(Arc<S>, Self::Context, Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, Self::Error>> + Send + 'static;
}

/// One service's `register`, held until the composition root registers
/// every service at once ([`crate::services::Services`]). `Tag` is the
/// service module's `Tag` (`videosite_service::Tag`), so a field of
/// [`crate::services::Services`] takes only its own service's registration.
/// Made by the generated `registration` function of each service module.
pub struct Registration<P: Pipeline, Tag> {
    register: RegisterFn<P>,
    tag: std::marker::PhantomData<fn() -> Tag>,
}

/// A service's `register` over one service value, called once.
type RegisterFn<P> = Box<dyn FnOnce(&mut P) -> Result<(), <P as Pipeline>::Failure> + Send>;

impl<P: Pipeline, Tag> Registration<P, Tag> {
    /// Holds `register` (the service module's `register` over one service
    /// value) until [`Registration::register`].
    pub fn new(register: impl FnOnce(&mut P) -> Result<(), P::Failure> + Send + 'static) -> Registration<P, Tag> {
        Registration { register: Box::new(register), tag: std::marker::PhantomData }
    }

    /// Registers every RPC of the service with `pipeline`.
    ///
    /// # Errors
    /// See [`Pipeline::Failure`].
    pub fn register(self, pipeline: &mut P) -> Result<(), P::Failure> {
        (self.register)(pipeline)
    }
}
