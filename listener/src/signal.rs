//! The stop signal of every entry point: SIGINT (Ctrl-C) or SIGTERM (what
//! `docker stop`, systemd and Kubernetes send) mean the same thing.

/// Resolves on the first SIGINT or SIGTERM and logs which one came, with
/// "shutting down". If a handler cannot be installed the error is logged
/// and only the other signal is awaited (on non-Unix systems: Ctrl-C only).
pub async fn shutdown_signal() {
    let name = received().await;
    tracing::info!(signal = name, "{name} received: shutting down (draining in-flight calls)");
}

#[cfg(unix)]
async fn received() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = match signal(SignalKind::terminate()) {
        Ok(term) => Some(term),
        Err(error) => {
            tracing::warn!(%error, "cannot handle SIGTERM; only SIGINT stops the service");
            None
        }
    };
    let term = async {
        match term.as_mut() {
            Some(term) => {
                term.recv().await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        () = term => "SIGTERM",
        () = interrupt() => "SIGINT",
    }
}

#[cfg(not(unix))]
async fn received() -> &'static str {
    interrupt().await;
    "Ctrl-C"
}

async fn interrupt() {
    if let Err(error) = tokio::signal::ctrl_c().await {
        tracing::warn!(%error, "cannot handle SIGINT");
        std::future::pending::<()>().await;
    }
}
