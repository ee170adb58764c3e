//! several replicas on the machine's PostgreSQL and Redis,
//! as separate processes of the built binary. Two cores and two gateways
//! (each gateway balanced over both cores; the first makes unary calls,
//! `MEDIAOPS_CORE_TRANSPORT=unary`, the second sends them on call streams),
//! plus one gateway pinned to each
//! core so a test can say "through one replica, seen on the other". Every
//! process has a data directory of its own: nothing may be shared through
//! files.
//!
//! One test, in phases that need both cores, then the load with a SIGTERM
//! on one core; it prints its figures.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::process::{Database, Process, Spawn, cli, redis_prefix, redis_url};
use common::{ADMIN_TOKEN, KEY, with_token};
use mediaops::proto::mediaops::admin::v1::SetMaintenanceRequest;
use mediaops::proto::mediaops::admin::v1::admin_service_client::AdminServiceClient;
use serde_json::{Value, json};

use mediaops_connectors::test_support::fake_web;

/// Concurrent clients and calls per client of the load phase.
const CLIENTS: usize = 64;
const CALLS_PER_CLIENT: usize = 50;

/// Points of the load account: fewer than the calls would cost, so the
/// balance runs out under load and the last calls answer 402.
const LOAD_POINTS: i64 = 6_000;

/// The calls of the load phase and their spec prices (spec 4.6, 4.11,
/// 4.12, 4.14): free of any upstream, so every answer comes from the cores.
fn load_calls() -> [(&'static str, Value, i64); 4] {
    [
        ("/api/apis/tool/check-banned-words/call", json!({"platform": "抖音", "content": "全网最好的产品"}), 1),
        ("/api/apis/trend/hot-keywords/call", json!({}), 6),
        ("/api/skills/cn-last30days/invoke", json!({"keyword": "露营", "platforms": ["articles"]}), 4),
        ("/api/apis/multi/cn30-multi-search/call", json!({"keyword": "露营"}), 12),
    ]
}

struct Cluster {
    env: Vec<(&'static str, String)>,
    cores: Vec<Process>,
    /// Gateways balanced over both cores.
    gateways: Vec<Process>,
    /// `pinned[i]` calls `cores[i]` only.
    pinned: Vec<Process>,
    /// A data dir for the admin commands (the ledger is in Redis).
    admin_dir: tempfile::TempDir,
    _dirs: Vec<tempfile::TempDir>,
    _database: Database,
}

impl Cluster {
    fn start(web: &fake_web::FakeSearxng, chat: &fake_web::FakeChat) -> Cluster {
        let database = Database::create("scale");
        let env = vec![
            ("MEDIAOPS_DATABASE_URL", database.url.clone()),
            ("MEDIAOPS_REDIS_URL", redis_url()),
            ("MEDIAOPS_REDIS_PREFIX", redis_prefix("scale")),
            ("MEDIAOPS_SHUTDOWN_NOTICE_SECS", "2".into()),
            ("MEDIAOPS_SHUTDOWN_GRACE_SECS", "20".into()),
            ("MEDIAOPS_CORE_REFRESH_SECS", "1".into()),
            ("MEDIAOPS_WEB_SEARCH__SEARXNG_URL", web.url.clone()),
            ("MEDIAOPS_WEB_SEARCH__CHAT_URL", chat.url.clone()),
            ("MEDIAOPS_WEB_SEARCH__CHAT_API_KEY", fake_web::CHAT_KEY.into()),
            ("MEDIAOPS_WEB_SEARCH__WAIT_SECS", "1".into()),
        ];
        let mut dirs = Vec::new();
        let mut spawn = |args: Vec<&str>, more: &[(&'static str, &str)]| {
            let dir = tempfile::tempdir().unwrap();
            let mut env = env.clone();
            env.extend(more.iter().map(|(name, value)| (*name, (*value).to_owned())));
            let process = Process::spawn(dir.path(), Spawn { args, env });
            dirs.push(dir);
            process
        };
        let cores = vec![spawn(vec!["core"], &[]), spawn(vec!["core"], &[])];
        let both = format!("{},{}", cores[0].grpc(), cores[1].grpc());
        // The first balanced gateway makes unary calls, the second sends
        // its calls as messages on call streams (the default;
        // docs/performance.md "Calls as messages on a stream"), so the load
        // and the SIGTERM below go through both transports.
        let gateways = vec![
            spawn(vec!["gateway", "--core-addr", &both], &[("MEDIAOPS_CORE_TRANSPORT", "unary")]),
            spawn(vec!["gateway", "--core-addr", &both], &[]),
        ];
        let pinned = vec![
            spawn(vec!["gateway", "--core-addr", cores[0].grpc()], &[]),
            spawn(vec!["gateway", "--core-addr", cores[1].grpc()], &[]),
        ];
        Cluster {
            env,
            cores,
            gateways,
            pinned,
            admin_dir: tempfile::tempdir().unwrap(),
            _dirs: dirs,
            _database: database,
        }
    }

    /// `mediaops <args>` against the shared ledger.
    fn cli(&self, args: &[&str]) -> Value {
        cli(self.admin_dir.path(), &self.env, args)
    }

    /// A new account with `points`; returns its key.
    fn account(&self, account: &str, points: i64) -> String {
        let created = self.cli(&["keys", "create", "--account", account, "--points", &points.to_string()]);
        created["key"].as_str().unwrap().to_owned()
    }

    fn balance(&self, account: &str) -> i64 {
        self.cli(&["points", "balance", "--account", account])["points"].as_i64().unwrap()
    }

    async fn admin(&self, core: usize) -> AdminServiceClient<tonic::transport::Channel> {
        let channel = tonic::transport::Endpoint::from_shared(self.cores[core].grpc().to_owned())
            .unwrap()
            .connect()
            .await
            .unwrap();
        AdminServiceClient::new(channel)
    }
}

async fn call(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    key: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let mut request = http.request(method, url).bearer_auth(key);
    if let Some(body) = body {
        request = request.json(body);
    }
    match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            (status, response.json().await.unwrap_or(Value::Null))
        }
        // The connection broke: no answer, so no 2xx to account for.
        Err(_) => (0, Value::Null),
    }
}

/// Polls `probe` every 50 ms until it returns true; returns how long it
/// took, or `None` after `limit`.
async fn within<F, Fut>(limit: Duration, mut probe: F) -> Option<Duration>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while started.elapsed() < limit {
        if probe().await {
            return Some(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_cores_behind_two_gateways_share_state_and_billing_and_drain_on_sigterm() {
    let (web, chat) = (fake_web::searxng().await, fake_web::chat().await);
    // Slower than the invoke call waits: the task is still running when the
    // call answers.
    chat.set(fake_web::ChatMode::Answer { delay: Duration::from_secs(3) });
    let mut cluster = Cluster::start(&web, &chat);
    let http = reqwest::Client::new();
    let (a, b) = (cluster.pinned[0].rest().to_owned(), cluster.pinned[1].rest().to_owned());

    charter_put_on_one_core_is_read_on_the_other(&http, &a, &b).await;
    theme_and_word_list_set_on_one_core_are_in_force_on_the_other(&http, &a, &b).await;
    maintenance_switch_is_in_force_on_the_other_core(&cluster, &http, &b).await;
    async_task_started_on_one_core_is_polled_on_the_other(&http, &a, &b).await;
    rate_limit_holds_across_both_gateways(&cluster, &http).await;

    load_with_a_sigterm_on_one_core(&mut cluster, &http).await;
}

async fn charter_put_on_one_core_is_read_on_the_other(http: &reqwest::Client, a: &str, b: &str) {
    let charter = json!({
        "version": 1,
        "positioning": {"oneLiner": "帮三人小团队做内容增长", "domain": "新媒体运营", "niche": "B2B 内容", "tag": "增长笔记"},
        "audience": {"persona": "小团队负责人", "decisionScene": "季度规划", "payerNote": "老板付费"},
        "monetization": {"path": "membership", "practicalPaths": ["consulting"], "stage": "accumulation", "gapNote": "缺案例"},
        "northStar": {"metric": "private_leads", "rationale": "线索决定收入"},
        "review": {"lastReviewedAt": "", "nextTrigger": "粉丝过万"}
    });
    let url = |base: &str| format!("{base}/api/ip-profile/brand/charter");
    let (status, put) = call(http, reqwest::Method::PUT, url(a), KEY, Some(&charter)).await;
    assert_eq!(status, 200, "{put}");
    let (status, got) = call(http, reqwest::Method::GET, url(b), KEY, None).await;
    assert_eq!(status, 200, "a charter PUT through core 1 is read through core 2: {got}");
    assert_eq!(got["data"]["charter"], put["data"]["charter"]);
    assert_eq!(got["data"]["charterUpdatedAt"], put["data"]["charterUpdatedAt"]);
}

async fn theme_and_word_list_set_on_one_core_are_in_force_on_the_other(http: &reqwest::Client, a: &str, b: &str) {
    let theme = json!({"name": "团队蓝", "css": "h2 { color: #1a4fa0; }"});
    let (status, body) =
        call(http, reqwest::Method::PUT, format!("{a}/api/articles/themes/custom/team-blue"), KEY, Some(&theme)).await;
    assert_eq!(status, 200, "{body}");
    let default = json!({"themeId": "team-blue"});
    let (status, body) =
        call(http, reqwest::Method::PUT, format!("{a}/api/articles/themes/default"), KEY, Some(&default)).await;
    assert_eq!(status, 200, "{body}");
    let render = json!({"markdown": "## 标题"});
    let took = within(Duration::from_secs(1), || async {
        let (status, body) =
            call(http, reqwest::Method::POST, format!("{b}/api/articles/render"), KEY, Some(&render)).await;
        status == 200
            && body["data"]["themeId"] == "team-blue"
            && body["data"]["html"].as_str().unwrap_or("").contains("#1a4fa0")
    })
    .await;
    let took = took.expect("a custom default theme set through core 1 renders through core 2 within 1 s");
    println!("custom default theme set on core 1 in force on core 2 after {} ms", took.as_millis());

    let words = json!({"add": [{"word": "私域引流", "category": "站外导流"}]});
    let (status, body) =
        call(http, reqwest::Method::PUT, format!("{a}/api/tool/banned-words/custom"), KEY, Some(&words)).await;
    assert_eq!(status, 200, "{body}");
    let check = json!({"platform": "抖音", "content": "欢迎私域引流"});
    let took = within(Duration::from_secs(1), || async {
        let (status, body) =
            call(http, reqwest::Method::POST, format!("{b}/api/apis/tool/check-banned-words/call"), KEY, Some(&check))
                .await;
        status == 200 && body["data"].to_string().contains("私域引流")
    })
    .await;
    let took = took.expect("a custom word added through core 1 is reported through core 2 within 1 s");
    println!("custom banned word added on core 1 in force on core 2 after {} ms", took.as_millis());
}

async fn maintenance_switch_is_in_force_on_the_other_core(cluster: &Cluster, http: &reqwest::Client, b: &str) {
    let url = format!("{b}/api/apis/trend/hot-keywords/call");
    let mut admin = cluster.admin(0).await;
    let switch = |maintenance: bool| {
        with_token(
            SetMaintenanceRequest {
                operation_key: "trend.hot-keywords".into(),
                maintenance,
                note: "scale test".into(),
            },
            ADMIN_TOKEN,
        )
    };
    admin.set_maintenance(switch(true)).await.unwrap();
    let took = within(Duration::from_secs(1), || async {
        call(http, reqwest::Method::POST, url.clone(), KEY, Some(&json!({}))).await.0 == 503
    })
    .await;
    let took = took.expect("a maintenance switch set on core 1 is in force on core 2 within 1 s");
    admin.set_maintenance(switch(false)).await.unwrap();
    let back = within(Duration::from_secs(1), || async {
        call(http, reqwest::Method::POST, url.clone(), KEY, Some(&json!({}))).await.0 == 200
    })
    .await;
    back.expect("lifting it is in force on core 2 within 1 s");
    println!("maintenance switch on core 1 in force on core 2 after {} ms", took.as_millis());
}

async fn async_task_started_on_one_core_is_polled_on_the_other(http: &reqwest::Client, a: &str, b: &str) {
    let (status, started) = call(
        http,
        reqwest::Method::POST,
        format!("{a}/api/skills/ai-web-search/invoke"),
        KEY,
        Some(&json!({"query": "露营要带什么"})),
    )
    .await;
    assert_eq!(status, 200, "{started}");
    assert_eq!(started["data"]["status"], "running", "{started}");
    let task_id = started["data"]["taskId"].as_str().expect("a task id").to_owned();
    let url = format!("{b}/api/tasks/{task_id}");
    let deadline = Instant::now() + Duration::from_secs(20);
    let last = loop {
        let (status, body) = call(http, reqwest::Method::GET, url.clone(), KEY, None).await;
        if (status == 200 && body["data"]["status"] == "success") || Instant::now() > deadline {
            break body;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(last["data"]["status"], "success", "the task started through core 1 is seen finished through core 2");
    assert_eq!(last["data"]["query"], "露营要带什么");
}

/// A key limited to 10 calls a second with a burst of 1, hammered through
/// both gateways (so through both cores) for two seconds: the cores share
/// the GCRA cells in Redis, so no more than the burst plus 10 a second pass.
async fn rate_limit_holds_across_both_gateways(cluster: &Cluster, http: &reqwest::Client) {
    let (rate, burst) = (10.0, 1.0);
    let created =
        cluster.cli(&["keys", "create", "--account", "limited", "--points", "1000", "--rate", "10/s", "--burst", "1"]);
    let key = created["key"].as_str().unwrap().to_owned();
    let gateways: Vec<String> = cluster.gateways.iter().map(|g| g.rest().to_owned()).collect();
    let (path, body, price) = load_calls()[0].clone();
    let started = Instant::now();
    let mut clients = Vec::new();
    for client in 0..16 {
        let (http, key, url, body) =
            (http.clone(), key.clone(), format!("{}{path}", gateways[client % 2]), body.clone());
        clients.push(tokio::spawn(async move {
            let mut answers = Vec::new();
            while started.elapsed() < Duration::from_secs(2) {
                answers.push(call(&http, reqwest::Method::POST, url.clone(), &key, Some(&body)).await.0);
            }
            answers
        }));
    }
    let mut answers = Vec::new();
    for client in clients {
        answers.extend(client.await.unwrap());
    }
    let secs = started.elapsed().as_secs_f64();
    let ok = answers.iter().filter(|s| **s == 200).count();
    let limited = answers.iter().filter(|s| **s == 429).count();
    let most = burst + rate * secs;
    println!(
        "rate limit 10/s burst 1 over both gateways: {} calls in {secs:.2} s: 2xx {ok}, 429 {limited}, \
         other {}; at most {most:.1} may pass",
        answers.len(),
        answers.len() - ok - limited
    );
    assert_eq!(ok + limited, answers.len(), "every answer is a 200 or a 429");
    assert!(ok as f64 <= most + 1.0, "{ok} calls passed; the limit allows {most:.1} (+1)");
    assert!(ok as f64 >= rate * secs * 0.7, "the limit lets its rate through: {ok} in {secs:.2} s");
    assert_eq!(cluster.balance("limited"), 1000 - price * ok as i64, "refused calls are not charged");

    let response = http.post(format!("{}{path}", gateways[1])).bearer_auth(&key).json(&body).send().await.unwrap();
    let response = if response.status() == 429 {
        response
    } else {
        http.post(format!("{}{path}", gateways[0])).bearer_auth(&key).json(&body).send().await.unwrap()
    };
    assert_eq!(response.status(), 429);
    let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    assert!(header("retry-after").is_some_and(|s| s.parse::<u64>().is_ok_and(|s| s >= 1)));
    assert_eq!(header("ratelimit-policy").as_deref(), Some("\"default\";q=10;w=1"));
    let envelope: Value = response.json().await.unwrap();
    assert_eq!(envelope["error"]["code"], "rate_limited");
}

/// Figures of the load phase.
#[derive(Debug, Default)]
struct Tally {
    ok: usize,
    points: i64,
    insufficient: usize,
    limited: usize,
    other: Vec<u16>,
}

async fn load_with_a_sigterm_on_one_core(cluster: &mut Cluster, http: &reqwest::Client) {
    let key = cluster.account("load", LOAD_POINTS);
    let gateways: Vec<String> = cluster.gateways.iter().map(|g| g.rest().to_owned()).collect();
    let done = Arc::new(AtomicUsize::new(0));
    let tally = Arc::new(std::sync::Mutex::new(Tally::default()));
    let mut clients = Vec::new();
    for client in 0..CLIENTS {
        let (http, key, gateways, done, tally) =
            (http.clone(), key.clone(), gateways.clone(), done.clone(), tally.clone());
        clients.push(tokio::spawn(async move {
            let calls = load_calls();
            for n in 0..CALLS_PER_CLIENT {
                let (path, body, price) = &calls[(client + n) % calls.len()];
                let gateway = &gateways[(client + n) % gateways.len()];
                let (status, envelope) =
                    call(&http, reqwest::Method::POST, format!("{gateway}{path}"), &key, Some(body)).await;
                let mut tally = tally.lock().unwrap();
                match status {
                    200 => {
                        assert_eq!(envelope["success"], true);
                        tally.ok += 1;
                        tally.points += price;
                    }
                    402 => tally.insufficient += 1,
                    429 => tally.limited += 1,
                    other => tally.other.push(other),
                }
                drop(tally);
                done.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    // SIGTERM core 1 once a fifth of the calls are answered.
    let total = CLIENTS * CALLS_PER_CLIENT;
    while done.load(Ordering::Relaxed) < total / 5 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let signalled_at = done.load(Ordering::Relaxed);
    cluster.cores[0].signal("TERM");
    // The notice period: the core still answers, and says NOT_SERVING.
    let health = tonic::transport::Endpoint::from_shared(cluster.cores[0].grpc().to_owned()).unwrap().connect().await;
    let health = tonic_health::pb::health_client::HealthClient::new(health.expect("core 1 still accepts"));
    let not_serving = within(Duration::from_secs(1), || {
        let mut health = health.clone();
        async move {
            let answer = health.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await;
            answer.is_ok_and(|a| {
                a.get_ref().status() == tonic_health::pb::health_check_response::ServingStatus::NotServing
            })
        }
    })
    .await;
    assert!(not_serving.is_some(), "core 1 reports NOT_SERVING at once on SIGTERM");
    drop(health);
    for client in clients {
        client.await.unwrap();
    }
    let exit = cluster.cores[0].wait_exit(Duration::from_secs(40));
    let log = cluster.cores[0].log();
    assert!(exit.is_some_and(|s| s.success()), "core 1 exits 0 after SIGTERM: {exit:?}\n{}", log.join("\n"));
    let drained = log.iter().find(|l| l.contains("drained:")).cloned();
    let drained = drained.unwrap_or_else(|| panic!("core 1 logs what it drained:\n{}", log.join("\n")));

    let tally = Arc::try_unwrap(tally).unwrap().into_inner().unwrap();
    let balance = cluster.balance("load");
    println!(
        "multi-replica load: {total} calls over 2 gateways x 2 cores; SIGTERM on core 1 after {signalled_at}; \
         2xx {}, 402 {}, 429 {}, other {:?}; points charged {} of {LOAD_POINTS}; final balance {balance}",
        tally.ok, tally.insufficient, tally.limited, tally.other, tally.points
    );
    println!("core 1: {drained}");
    assert_eq!(balance, LOAD_POINTS - tally.points, "balance == start - sum of the prices of the 2xx answers");
    assert!(balance >= 0, "never negative");
    assert!(tally.other.is_empty(), "a core's stop after its notice loses no call: {:?}", tally.other);
    assert!(tally.insufficient > 0, "the balance ran out under load (the 402 path was exercised)");
    assert!(tally.ok > total / 4, "most calls were answered: {tally:?}");

    // No reservation is left: every call settled or released.
    let prefix = cluster.env.iter().find(|(k, _)| *k == "MEDIAOPS_REDIS_PREFIX").unwrap().1.clone();
    let held = std::process::Command::new("redis-cli")
        .args(["-u", &redis_url(), "HLEN", &format!("{prefix}:{{load}}:res")])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&held.stdout).trim(), "0", "no reservation is left held");
}
