//! `mediaops`: the one-process service. Starts the core (gRPC) and the REST
//! gateway together on embedded defaults; the same crates also run split
//! (`core-service`, `rest-gateway --core-addr`).
//!
//! The generated protobuf types and the embedded descriptor set live in the
//! `mediaops-proto` crate and are re-exported here as [`proto`]: Cargo forbids
//! the package cycle that putting them in this root package would make
//! (core-service needs the types, this package needs core-service).

pub mod imports;
pub mod operations;
pub mod sources;

use std::net::SocketAddr;
use std::sync::Arc;

use core_service::{Core, CoreSettings};
use mediaops_platform::bootstrap::Bootstrap;
use mediaops_platform::dispatch::Pipeline;
use rest_gateway::GatewaySettings;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use mediaops_proto as proto;

/// Both servers, running.
pub struct Running {
    /// Where the gRPC core listens.
    pub grpc_addr: SocketAddr,
    /// Where the REST gateway listens.
    pub rest_addr: SocketAddr,
    /// The WeChat-facing listener (docs/wechat.md), when configured.
    pub wechat_callback_addr: Option<SocketAddr>,
    /// What the bootstrap-key step did (the key itself when generated).
    pub bootstrap: Bootstrap,
    /// Each server's stop switch and task, in the order they stop: the
    /// gateway first (its in-flight calls still reach the core), then the core.
    servers: Vec<(watch::Sender<bool>, JoinHandle<anyhow::Result<()>>)>,
}

/// Binds both listeners, opens the core's state and starts serving.
///
/// The gateway calls the core in process: the same gRPC requests, metadata
/// and pipeline as across machines, without a connection between them, so
/// no call can break a connection another call shares (docs/errors.md "Limits of a request") and no
/// call pays a loopback hop. The core's own port serves gRPC clients.
pub async fn start(core: &CoreSettings, gateway: &GatewaySettings) -> anyhow::Result<Running> {
    let grpc_listener = mediaops_listener::bind(&core.grpc_addr, &core.listener, "MEDIAOPS_GRPC_ADDR").await?;
    let rest_listener = mediaops_listener::bind(&gateway.rest_addr, &gateway.listener, "MEDIAOPS_REST_ADDR").await?;
    let grpc_addr = grpc_listener.local_addr()?;
    let rest_addr = rest_listener.local_addr()?;

    let core_service = Core::open(core).await?;
    let bootstrap = core_service.bootstrap.clone();
    let wechat_callback_addr = core_service.wechat_callback_addr();
    let (stop_core, core_stopped) = watch::channel(false);
    let (stop_gateway, gateway_stopped) = watch::channel(false);
    let on_stop = |mut rx: watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|stop| *stop).await;
    };

    // The core stops after the gateway has drained; its drain figures
    // count from the signal, when the gateway's stop begins.
    let serving = core_service
        .start()
        .await?
        .with_notice(std::time::Duration::ZERO)
        .counting_from(on_stop(gateway_stopped.clone()));
    let local = Arc::new(InProcessCore(serving.pipeline()));
    let client = rest_gateway::CoreClient::in_process(serving.service(), local);
    let draining = mediaops_listener::Draining::new();
    let router = rest_gateway::router(client, gateway, draining.clone())?;

    let core_task = tokio::spawn(serving.serve(grpc_listener, on_stop(core_stopped)));
    let limits = gateway.listener.clone();
    let gateway_task = tokio::spawn(async move {
        rest_gateway::serve(rest_listener, router, &limits, on_stop(gateway_stopped), &draining).await
    });
    let servers = vec![(stop_gateway, gateway_task), (stop_core, core_task)];
    Ok(Running { grpc_addr, rest_addr, wechat_callback_addr, bootstrap, servers })
}

/// The core's call pipeline as the gateway in this process calls it
/// ([`rest_gateway::core_client::LocalCore`]): no gRPC framing between them.
struct InProcessCore(Arc<Pipeline>);

impl rest_gateway::core_client::LocalCore for InProcessCore {
    fn call<'a>(
        &'a self,
        grpc_path: &'a str,
        request: tonic::Request<bytes::Bytes>,
    ) -> rest_gateway::core_client::LocalCall<'a> {
        Box::pin(async move {
            let answer = self.0.call_in_process(grpc_path, request).await?;
            let delivery = answer.delivery;
            let settle = Box::new(move |delivered| delivery.settle(delivered));
            Ok(rest_gateway::core_client::LocalAnswer { response: answer.response, settle })
        })
    }
}

impl Running {
    /// Stops both servers gracefully and waits for them: the gateway answers
    /// `/readyz` 503 for `shutdown_notice_secs`, stops accepting and drains
    /// its in-flight requests (within `shutdown_grace_secs`); then the core
    /// stops accepting at once (its clients had the notice) and drains.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        for (stop, task) in self.servers {
            let _ = stop.send(true);
            task.await??;
        }
        Ok(())
    }
}
