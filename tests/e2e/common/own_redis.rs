//! A Redis server of a test's own: a real `redis-server` (on PATH) on a free
//! loopback port and on a Unix socket in its own directory, without
//! persistence, so that a test can freeze it (SIGSTOP) or reach it over its
//! socket without touching the machine's shared server. Dropped, it is
//! resumed and killed, whatever happened.

use std::path::PathBuf;
use std::time::Duration;

/// The running server; see the module documentation.
pub struct OwnRedis {
    port: u16,
    child: std::process::Child,
    dir: tempfile::TempDir,
}

impl OwnRedis {
    /// Starts the server and waits (5 s at most) until its port and its
    /// socket take connections.
    pub fn start() -> OwnRedis {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let dir = tempfile::tempdir().unwrap();
        let child = std::process::Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--unixsocket")
            .arg(dir.path().join("redis.sock"))
            .args(["--unixsocketperm", "700"])
            .arg("--dir")
            .arg(dir.path())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server on PATH");
        let redis = OwnRedis { port, child, dir };
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
                && std::os::unix::net::UnixStream::connect(redis.socket()).is_ok()
            {
                return redis;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("redis-server did not start on port {port}");
    }

    /// `redis://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// The path of its Unix socket.
    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("redis.sock")
    }

    /// `unix://<its socket>`, the URL form the `redis` crate reads.
    pub fn socket_url(&self) -> String {
        format!("unix://{}", self.socket().display())
    }

    /// Sends `signal` (`STOP`, `CONT`, …) to the server.
    pub fn signal(&self, signal: &str) {
        let status =
            std::process::Command::new("kill").args([&format!("-{signal}"), &self.child.id().to_string()]).status();
        assert!(status.is_ok_and(|s| s.success()), "kill -{signal} redis-server failed");
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill").args(["-CONT", &self.child.id().to_string()]).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
