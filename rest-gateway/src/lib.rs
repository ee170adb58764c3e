//! The mediaops REST/JSON gateway (ARCHITECTURE.md): routes derived from the
//! proto descriptors, JSON ⇄ protobuf transcoding, Bearer header checks, the
//! `{success, requestId, data, error}` envelope; every call goes to the core
//! over gRPC. No per-operation code lives here.

pub mod call;
pub mod call_stream;
pub mod core_client;
pub mod core_service;
pub mod core_set;
pub mod delivery;
pub mod envelope;
pub mod etag;
pub mod feeds;
pub mod mcp;
pub mod middleware;
pub mod openapi;
pub mod routes;
pub mod server;
pub mod settings;
pub mod state;
pub mod traceparent;
pub mod transcode;
pub mod workbench;

pub use core_client::CoreClient;
pub use server::{router, run, serve};
pub use settings::GatewaySettings;
