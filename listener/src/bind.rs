//! Binding a server port: the address resolved, `SO_REUSEADDR` as
//! `TcpListener::bind` sets it, and `SO_REUSEPORT` when
//! [`ListenerSettings::reuse_port`] asks for it.

use std::io;

use tokio::net::{TcpListener, TcpSocket};

use crate::settings::ListenerSettings;

/// The accept backlog of a bound port (tokio's `TcpListener::bind` uses the
/// same).
const BACKLOG: u32 = 1024;

/// Binds `addr` (`host:port`; a name is resolved and its addresses tried in
/// turn, as `TcpListener::bind` does), the value of the setting `variable`
/// (`MEDIAOPS_REST_ADDR`, `MEDIAOPS_GRPC_ADDR`), for a server port of
/// `settings`.
///
/// With `settings.reuse_port` the socket is bound with `SO_REUSEPORT`: other
/// processes of the same user that bind the same address with it too listen
/// beside this one, and the kernel hands each new connection to one of them
/// (Linux hashes the connection's addresses and ports). Without it a port
/// already taken is an error ("address in use").
///
/// # Errors
/// `addr` does not resolve, or none of its addresses can be bound (the last
/// address's error): the error's kind, with a message that names `variable`
/// and `addr` ("cannot listen on MEDIAOPS_REST_ADDR 0.0.0.0:8080: …").
pub async fn bind(addr: &str, settings: &ListenerSettings, variable: &str) -> io::Result<TcpListener> {
    bind_any(addr, settings)
        .await
        .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {variable} {addr}: {e}")))
}

/// [`bind`] without the setting's name in its error.
async fn bind_any(addr: &str, settings: &ListenerSettings) -> io::Result<TcpListener> {
    let mut last = None;
    for addr in tokio::net::lookup_host(addr).await? {
        let socket = if addr.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
        socket.set_reuseaddr(true)?;
        if settings.reuse_port {
            socket.set_reuseport(true)?;
        }
        match socket.bind(addr).and_then(|()| socket.listen(BACKLOG)) {
            Ok(listener) => return Ok(listener),
            Err(error) => last = Some(error),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("{addr} names no address"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(reuse_port: bool) -> ListenerSettings {
        ListenerSettings { reuse_port, ..ListenerSettings::default() }
    }

    #[tokio::test]
    async fn a_taken_port_is_shared_only_when_both_ask_for_it() {
        let first = bind("127.0.0.1:0", &settings(true), "MEDIAOPS_REST_ADDR").await.unwrap();
        let addr = first.local_addr().unwrap().to_string();
        let second = bind(&addr, &settings(true), "MEDIAOPS_REST_ADDR").await.unwrap();
        assert_eq!(second.local_addr().unwrap(), first.local_addr().unwrap());

        let refused = bind(&addr, &settings(false), "MEDIAOPS_REST_ADDR").await.unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::AddrInUse, "{refused}");
        let alone = bind("127.0.0.1:0", &settings(false), "MEDIAOPS_REST_ADDR").await.unwrap();
        let alone_addr = alone.local_addr().unwrap().to_string();
        let refused = bind(&alone_addr, &settings(true), "MEDIAOPS_REST_ADDR").await.unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::AddrInUse, "a port bound without it stays its own: {refused}");
    }

    #[tokio::test]
    async fn both_listeners_of_a_shared_port_take_connections() {
        let first = bind("127.0.0.1:0", &settings(true), "MEDIAOPS_REST_ADDR").await.unwrap();
        let addr = first.local_addr().unwrap();
        let second = bind(&addr.to_string(), &settings(true), "MEDIAOPS_REST_ADDR").await.unwrap();
        let mut accepted = [0usize; 2];
        let mut clients = Vec::new();
        for _ in 0..64 {
            clients.push(tokio::net::TcpStream::connect(addr).await.unwrap());
            tokio::select! {
                Ok(_) = first.accept() => accepted[0] += 1,
                Ok(_) = second.accept() => accepted[1] += 1,
            }
        }
        assert_eq!(accepted.iter().sum::<usize>(), 64);
        assert!(accepted.iter().all(|&n| n > 0), "the kernel spread the connections: {accepted:?}");
    }

    #[tokio::test]
    async fn an_address_without_a_port_is_an_error() {
        let error = bind("127.0.0.1", &settings(false), "MEDIAOPS_REST_ADDR").await.unwrap_err();
        assert!(error.to_string().starts_with("cannot listen on MEDIAOPS_REST_ADDR 127.0.0.1: "), "{error}");
    }
}
