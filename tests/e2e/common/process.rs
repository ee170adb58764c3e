//! Real processes: the `mediaops` binary started as an operator starts it
//! (`serve`, `core`, `gateway`), on free loopback ports, with its own data
//! directory, and the shared servers a replica test needs (a fresh
//! PostgreSQL database, a Redis key prefix of its own).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The machine's Redis (`MEDIAOPS_TEST_REDIS_URL` overrides).
pub fn redis_url() -> String {
    std::env::var("MEDIAOPS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// The machine's PostgreSQL server, database `test` (`MEDIAOPS_TEST_DATABASE_URL` overrides).
pub fn postgres_url() -> String {
    std::env::var("MEDIAOPS_TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into())
}

/// A PostgreSQL database of one test, created empty and dropped (with its
/// connections) when this is dropped.
pub struct Database {
    pub name: String,
    pub url: String,
}

impl Database {
    /// Creates `mo_<prefix>_<uuid>` on the test server.
    pub fn create(prefix: &str) -> Database {
        let name = format!("mo_{prefix}_{}", uuid::Uuid::new_v4().simple());
        psql(&format!("CREATE DATABASE {name}"));
        let base = postgres_url();
        let server = base.rsplit_once('/').map(|(server, _)| server).unwrap_or(&base);
        Database { url: format!("{server}/{name}"), name }
    }

    /// Drops the database (closing its connections) and creates it again,
    /// empty: what an operator's restore-from-scratch looks like to a core.
    pub fn recreate(&self) {
        psql(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
        psql(&format!("CREATE DATABASE {}", self.name));
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let _ = Command::new("psql")
            .args([&postgres_url(), "-q", "-c", &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)])
            .output();
    }
}

/// Runs one SQL statement on the test server's `test` database with `psql`.
pub fn psql(sql: &str) {
    let output = Command::new("psql").args([&postgres_url(), "-q", "-v", "ON_ERROR_STOP=1", "-c", sql]).output();
    let output = output.expect("psql is installed");
    assert!(output.status.success(), "psql {sql:?}: {}", String::from_utf8_lossy(&output.stderr));
}

/// A fresh Redis key prefix, so tests sharing the server never meet.
pub fn redis_prefix(test: &str) -> String {
    format!("mo_test_{test}_{}", uuid::Uuid::new_v4().simple())
}

/// The `mediaops` binary the tests start: this build's, or the one named by
/// `MEDIAOPS_TEST_BIN` (to measure another build with the same tests).
pub fn binary() -> String {
    std::env::var("MEDIAOPS_TEST_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_mediaops").to_owned())
}

/// A running `mediaops` process; killed when dropped.
pub struct Process {
    child: Child,
    /// `http://host:port` of the REST port, when the process serves one.
    pub rest: Option<String>,
    /// `http://host:port` of the gRPC port, when the process serves one.
    pub grpc: Option<String>,
    /// Every line the process wrote to stdout and stderr so far.
    output: Arc<Mutex<Vec<String>>>,
    /// The lines written to stderr only (the log).
    log: Arc<Mutex<Vec<String>>>,
}

/// What to start.
pub struct Spawn<'a> {
    /// The subcommand and its arguments, e.g. `["core"]`; empty = `serve`.
    pub args: Vec<&'a str>,
    /// `MEDIAOPS_*` and other variables; the data dir, ports and bootstrap
    /// key come from [`Process::spawn`]'s defaults unless set here.
    pub env: Vec<(&'a str, String)>,
}

impl Process {
    /// Starts `mediaops <args>` in `data_dir` with the test bootstrap key and
    /// admin token on free loopback ports and waits for its "listening"
    /// lines (both ports for `serve`, one for `core` and `gateway`).
    pub fn spawn(data_dir: &std::path::Path, spawn: Spawn<'_>) -> Process {
        let mut command = Command::new(binary());
        command
            .args(&spawn.args)
            .env("MEDIAOPS_DATA_DIR", data_dir)
            .env("MEDIAOPS_REST_ADDR", "127.0.0.1:0")
            .env("MEDIAOPS_GRPC_ADDR", "127.0.0.1:0")
            .env("MEDIAOPS_BOOTSTRAP_KEY", super::KEY)
            .env("MEDIAOPS_BOOTSTRAP_POINTS", super::BOOTSTRAP_POINTS.to_string())
            .env("MEDIAOPS_ADMIN_TOKEN", super::ADMIN_TOKEN)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in &spawn.env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("mediaops starts");
        let output = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::new(Mutex::new(Vec::new()));
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let (sink, log_sink) = (output.clone(), log.clone());
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                log_sink.lock().unwrap().push(line.clone());
                sink.lock().unwrap().push(line);
            }
        });
        let (lines, done) = std::sync::mpsc::channel();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let sink = output.clone();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line.clone());
                let _ = lines.send(line);
            }
        });
        let wants_rest = spawn.args.first().is_none_or(|c| *c == "serve" || *c == "gateway");
        let wants_grpc = spawn.args.first().is_none_or(|c| *c == "serve" || *c == "core");
        let (mut rest, mut grpc) = (None, None);
        let deadline = Instant::now() + Duration::from_secs(60);
        while (wants_rest && rest.is_none()) || (wants_grpc && grpc.is_none()) {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(line) = done.recv_timeout(left) else {
                let _ = child.kill();
                panic!("mediaops {:?} did not start: {:#?}", spawn.args, output.lock().unwrap());
            };
            if let Some(addr) = line.trim().strip_prefix("REST  listening on ") {
                rest = addr.split_whitespace().next().map(str::to_owned);
            }
            if let Some(addr) = line.trim().strip_prefix("gRPC  listening on ") {
                grpc = addr.split_whitespace().next().map(|a| format!("http://{a}"));
            }
        }
        Process { child, rest, grpc, output, log }
    }

    /// The REST base URL (panics for a process without one).
    pub fn rest(&self) -> &str {
        self.rest.as_deref().expect("this process serves REST")
    }

    /// The gRPC URL (panics for a process without one).
    pub fn grpc(&self) -> &str {
        self.grpc.as_deref().expect("this process serves gRPC")
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` (`TERM`, `INT`, `KILL`, …) with `kill(1)`.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill").args([&format!("-{signal}"), &self.child.id().to_string()]).status();
        assert!(status.is_ok_and(|s| s.success()), "kill -{signal} failed");
    }

    /// Waits up to `limit` for the process to exit.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Every line written so far to stdout and stderr (logs go to stderr).
    pub fn output(&self) -> Vec<String> {
        self.output.lock().unwrap().clone()
    }

    /// Every line written so far to stderr: the log.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `mediaops <args>` (an admin command: keys, points, usage) with
/// `env` on `data_dir` and returns its JSON output.
pub fn cli(data_dir: &std::path::Path, env: &[(&str, String)], args: &[&str]) -> serde_json::Value {
    let mut command = Command::new(binary());
    command.args(args).env("MEDIAOPS_DATA_DIR", data_dir).env("RUST_LOG", "warn").stdin(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("mediaops runs");
    assert!(output.status.success(), "mediaops {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let json = stdout.lines().skip_while(|l| !l.starts_with('{')).collect::<Vec<_>>().join("\n");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("mediaops {args:?} printed no JSON ({e}): {stdout}"))
}

/// A local upstream that answers every request after `delay` with a 500:
/// something slow for a call to wait on. Returns its base URL
/// (`http://127.0.0.1:<port>/v1`); it lives as long as the test process.
pub fn slow_upstream(delay: Duration) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().map_while(Result::ok).take(64) {
            std::thread::spawn(move || {
                let mut buffer = [0u8; 4096];
                let _ = stream.read(&mut buffer);
                std::thread::sleep(delay);
                let _ = stream
                    .write_all(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            });
        }
    });
    format!("http://{addr}/v1")
}

/// `GET /api/account/balance` with the bootstrap key on the REST base
/// `rest`: the points left.
pub async fn balance(http: &reqwest::Client, rest: &str) -> i64 {
    let url = format!("{rest}/api/account/balance");
    let envelope: serde_json::Value =
        http.get(url).bearer_auth(crate::common::KEY).send().await.unwrap().json().await.unwrap();
    envelope["data"]["points"].as_i64().unwrap_or_else(|| panic!("no balance in {envelope}"))
}

/// The points charged since the balance was `before`, once `expected` are
/// (calls are settled as each answer is delivered), or what was charged
/// after 10 s.
pub async fn charged_since(http: &reqwest::Client, rest: &str, before: i64, expected: i64) -> i64 {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut charged = before - balance(http, rest).await;
    while charged < expected && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        charged = before - balance(http, rest).await;
    }
    charged
}
