//! The connection limits of one port. Both servers flatten this struct into
//! their own settings (`GatewaySettings`, `CoreSettings`), so the keys are
//! the same top-level names on both: `MEDIAOPS_HEADER_READ_TIMEOUT_SECS`,
//! `MEDIAOPS_BODY_READ_TIMEOUT_SECS`, `MEDIAOPS_IDLE_TIMEOUT_SECS`,
//! `MEDIAOPS_MAX_CONNECTIONS`, `MEDIAOPS_SHUTDOWN_NOTICE_SECS`,
//! `MEDIAOPS_SHUTDOWN_GRACE_SECS`, `MEDIAOPS_REUSE_PORT` (README
//! "Configuration", docs/errors.md "Limits and timeouts"). In the one-process
//! `mediaops serve` each port applies them on its own.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Largest accepted `max_connections`.
pub const MAX_CONNECTIONS_LIMIT: usize = 1_000_000;

/// Longest accepted timeout or grace period, in seconds (one hour).
pub const MAX_SECS: u64 = 3600;

/// Timeouts (whole seconds) and the connection cap of one port.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ListenerSettings {
    /// Seconds a client has to send a complete request head: from accept to
    /// the first request (TLS-less HTTP/1.1 head or HTTP/2 preface, SETTINGS
    /// and HEADERS), and on an HTTP/1.1 keep-alive connection from the end
    /// of one response to the next request's complete head. Default 10.
    pub header_read_timeout_secs: u64,
    /// Seconds the whole request body may take to arrive, counted from its
    /// head. Slower bodies fail: 408 `request_timeout` at the REST port, a
    /// failed call at the gRPC port. Default 30.
    pub body_read_timeout_secs: u64,
    /// Seconds a connection may stay open with no request in flight before
    /// it is closed (HTTP/2: GOAWAY; HTTP/1.1 keep-alive connections are
    /// closed earlier, by the header timeout). Default 60.
    pub idle_timeout_secs: u64,
    /// Connections served at once on this port; further clients wait in the
    /// kernel's accept backlog until one closes, and one WARN line says the
    /// cap was reached. Keep it below the process's open-file limit
    /// (`ulimit -n`) minus the files the service itself holds. Default 4096.
    pub max_connections: usize,
    /// Seconds the port keeps accepting after SIGINT/SIGTERM while the
    /// process already reports "not ready" (gRPC health NOT_SERVING, the
    /// gateway's `/readyz` 503), so load balancers stop routing to it
    /// before it stops accepting (docs/state.md). Default 3; 0 stops
    /// accepting at once.
    pub shutdown_notice_secs: u64,
    /// Seconds in-flight requests may take to finish once the port stopped
    /// accepting; connections still open then are closed. Default 25.
    pub shutdown_grace_secs: u64,
    /// Whether the port is bound with `SO_REUSEPORT`, so that several
    /// processes on one host listen on the same address and the kernel
    /// spreads the connections among them ([`crate::bind`]): replicas on one
    /// host without a load balancer in front (docs/performance.md "Replicas
    /// on one port"). Off by default, so that a second process started on
    /// a port by mistake fails with "address in use" instead of taking half
    /// of the first one's clients.
    pub reuse_port: bool,
}

impl Default for ListenerSettings {
    fn default() -> Self {
        ListenerSettings {
            header_read_timeout_secs: 10,
            body_read_timeout_secs: 30,
            idle_timeout_secs: 60,
            max_connections: 4096,
            shutdown_notice_secs: 3,
            shutdown_grace_secs: 25,
            reuse_port: false,
        }
    }
}

impl ListenerSettings {
    /// Checks the ranges: every timeout 1-3600 s, the grace period 0-3600 s,
    /// `max_connections` 1-1,000,000. The error names the variable.
    pub fn check(&self) -> Result<(), String> {
        for (name, secs) in [
            ("MEDIAOPS_HEADER_READ_TIMEOUT_SECS", self.header_read_timeout_secs),
            ("MEDIAOPS_BODY_READ_TIMEOUT_SECS", self.body_read_timeout_secs),
            ("MEDIAOPS_IDLE_TIMEOUT_SECS", self.idle_timeout_secs),
        ] {
            if !(1..=MAX_SECS).contains(&secs) {
                return Err(format!("{name} must be 1-{MAX_SECS} seconds, not {secs}"));
            }
        }
        for (name, secs) in [
            ("MEDIAOPS_SHUTDOWN_NOTICE_SECS", self.shutdown_notice_secs),
            ("MEDIAOPS_SHUTDOWN_GRACE_SECS", self.shutdown_grace_secs),
        ] {
            if secs > MAX_SECS {
                return Err(format!("{name} must be 0-{MAX_SECS} seconds, not {secs}"));
            }
        }
        if !(1..=MAX_CONNECTIONS_LIMIT).contains(&self.max_connections) {
            return Err(format!("MEDIAOPS_MAX_CONNECTIONS must be 1-{MAX_CONNECTIONS_LIMIT}"));
        }
        Ok(())
    }

    /// [`Self::header_read_timeout_secs`] as a duration.
    pub fn header_read_timeout(&self) -> Duration {
        Duration::from_secs(self.header_read_timeout_secs)
    }

    /// [`Self::body_read_timeout_secs`] as a duration.
    pub fn body_read_timeout(&self) -> Duration {
        Duration::from_secs(self.body_read_timeout_secs)
    }

    /// [`Self::idle_timeout_secs`] as a duration.
    pub fn idle_timeout(&self) -> Duration {
        Duration::from_secs(self.idle_timeout_secs)
    }

    /// [`Self::shutdown_notice_secs`] as a duration.
    pub fn shutdown_notice(&self) -> Duration {
        Duration::from_secs(self.shutdown_notice_secs)
    }

    /// [`Self::shutdown_grace_secs`] as a duration.
    pub fn shutdown_grace(&self) -> Duration {
        Duration::from_secs(self.shutdown_grace_secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_pass_and_out_of_range_values_name_their_variable() {
        assert!(ListenerSettings::default().check().is_ok());
        let with = |f: fn(&mut ListenerSettings)| {
            let mut s = ListenerSettings::default();
            f(&mut s);
            s.check()
        };
        assert!(with(|s| s.header_read_timeout_secs = 0).unwrap_err().contains("MEDIAOPS_HEADER_READ_TIMEOUT_SECS"));
        assert!(with(|s| s.body_read_timeout_secs = 3601).unwrap_err().contains("MEDIAOPS_BODY_READ_TIMEOUT_SECS"));
        assert!(with(|s| s.idle_timeout_secs = 0).unwrap_err().contains("MEDIAOPS_IDLE_TIMEOUT_SECS"));
        assert!(with(|s| s.max_connections = 0).unwrap_err().contains("MEDIAOPS_MAX_CONNECTIONS"));
        assert!(with(|s| s.shutdown_grace_secs = 0).is_ok());
        assert!(with(|s| s.shutdown_notice_secs = 3601).unwrap_err().contains("MEDIAOPS_SHUTDOWN_NOTICE_SECS"));
    }
}
