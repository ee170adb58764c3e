//! The load generator of `bench/load` (docs/performance.md): measures every target of
//! a tab-separated list in one run, programs alternating, and prints one
//! Markdown table of req/s, p50, p99 and the ratio to the bound.
//!
//! ```text
//! load [--secs 5] [--rounds 3] [--connections 64] [--threads 2] [--warmup 1] [--rate R] [--timeline FILE] TARGETS.tsv
//! ```
//!
//! `TARGETS.tsv`, one target a line: `deployment`, `ledger`, `call`,
//! `method`, `url`, `key` (`-` = no `Authorization`), `body` (`-` = none,
//! else JSON sent as `application/json`). The row whose deployment is
//! `bound` is the bound; without one (`bench/profile`) each target is only
//! loaded, `--rounds` times `--secs`, and its figures printed: closed loop,
//! or open loop at `--rate` requests per second in all; `--timeline FILE`
//! writes every answer of the last run, when it was due (ms after the
//! start) and its latency (ms), to find stalls.
//!
//! Each round runs the bound, then every other target in file order, each
//! followed by the bound again, each run `--secs` seconds on
//! `--connections` HTTP/1.1 keep-alive connections sending back to back
//! (closed loop, as `wrk -c64`): a target's ratio is to the mean of the two
//! bound runs around it, so a machine whose speed drifts (other work on its
//! cores) moves both alike. Then every other target runs again at half the
//! bound's median rate so far (open loop: each connection
//! sends on a fixed schedule, latency counted from the scheduled instant,
//! so a stall is not hidden by the sender waiting). The table shows the
//! median over the rounds. A run with any non-2xx answer or transport error
//! is marked; its figures do not count as a result.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::http::{HeaderValue, Method, Uri, header};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// One line of the targets file.
struct Target {
    deployment: String,
    ledger: String,
    call: String,
    method: Method,
    uri: Uri,
    addr: SocketAddr,
    authorization: Option<HeaderValue>,
    body: Option<Bytes>,
}

impl Target {
    fn is_bound(&self) -> bool {
        self.deployment == "bound"
    }

    fn parse(line: &str) -> anyhow::Result<Target> {
        let fields: Vec<&str> = line.split('\t').collect();
        let [deployment, ledger, call, method, url, key, body] = fields[..] else {
            anyhow::bail!("a target line has 7 tab-separated fields, not {}: {line:?}", fields.len());
        };
        let uri: Uri = url.parse()?;
        let authority = uri.authority().ok_or_else(|| anyhow::anyhow!("no host:port in {url}"))?;
        let addr = std::net::ToSocketAddrs::to_socket_addrs(authority.as_str())?
            .next()
            .ok_or_else(|| anyhow::anyhow!("{url} does not resolve"))?;
        Ok(Target {
            deployment: deployment.into(),
            ledger: ledger.into(),
            call: call.into(),
            method: method.parse()?,
            uri,
            addr,
            authorization: (key != "-").then(|| HeaderValue::from_str(&format!("Bearer {key}"))).transpose()?,
            body: (body != "-").then(|| Bytes::from(body.to_owned())),
        })
    }

    fn request(&self) -> Request<Full<Bytes>> {
        let mut request =
            Request::builder().method(self.method.clone()).uri(self.uri.path_and_query().unwrap().as_str());
        let headers = request.headers_mut().unwrap();
        headers.insert(header::HOST, HeaderValue::from_str(self.uri.authority().unwrap().as_str()).unwrap());
        if let Some(authorization) = &self.authorization {
            headers.insert(header::AUTHORIZATION, authorization.clone());
        }
        if self.body.is_some() {
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        request.body(Full::new(self.body.clone().unwrap_or_default())).unwrap()
    }
}

/// What one connection or one run saw.
#[derive(Default)]
struct Sample {
    /// Latencies of the answers completed before the deadline, µs.
    latencies_us: Vec<u32>,
    /// When each of those requests was due, µs after the run's start, in
    /// the same order (`--timeline`).
    due_us: Vec<u32>,
    /// Non-2xx answers and transport errors.
    errors: u64,
    /// The first error seen, for the report.
    first_error: Option<String>,
}

impl Sample {
    fn merge(&mut self, other: Sample) {
        self.latencies_us.extend(other.latencies_us);
        self.due_us.extend(other.due_us);
        self.errors += other.errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }
}

/// One run's figures.
#[derive(Clone, Copy, Debug)]
struct Figures {
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
    errors: u64,
}

fn figures(mut sample: Sample, secs: f64) -> Figures {
    sample.latencies_us.sort_unstable();
    let at = |q: f64| {
        let n = sample.latencies_us.len();
        if n == 0 { f64::NAN } else { f64::from(sample.latencies_us[((n - 1) as f64 * q).round() as usize]) / 1e3 }
    };
    Figures { rps: sample.latencies_us.len() as f64 / secs, p50_ms: at(0.5), p99_ms: at(0.99), errors: sample.errors }
}

/// One connection from `start` until `deadline`: back to back (`pace` =
/// `None`) or one request every `pace` from `first`.
async fn connection(
    target: Arc<Target>,
    start: Instant,
    deadline: Instant,
    pace: Option<(Instant, Duration)>,
) -> Sample {
    let mut sample = Sample::default();
    let mut next = pace.map(|(first, _)| first);
    'connect: while Instant::now() < deadline {
        let stream = match TcpStream::connect(target.addr).await {
            Ok(stream) => stream,
            Err(e) => {
                note_error(&mut sample, format!("connect: {e}"));
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let Ok((mut sender, driver)) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await else {
            note_error(&mut sample, "handshake failed".into());
            continue;
        };
        tokio::spawn(driver);
        loop {
            let scheduled = match (&mut next, pace) {
                (Some(at), Some((_, interval))) => {
                    let scheduled = *at;
                    *at += interval;
                    // A request already due goes at once: tokio fires a
                    // timer for a past instant at once only when the timer
                    // wheel has processed its millisecond, else at the
                    // wheel's next turn.
                    if scheduled > Instant::now() {
                        tokio::time::sleep_until(scheduled.into()).await;
                    }
                    scheduled
                }
                _ => Instant::now(),
            };
            // Behind schedule (the target is slower than the rate) the
            // schedule lags the clock: stop at the deadline either way.
            if scheduled >= deadline || Instant::now() >= deadline {
                break 'connect;
            }
            if sender.ready().await.is_err() {
                note_error(&mut sample, "connection closed".into());
                continue 'connect;
            }
            let answer = match sender.send_request(target.request()).await {
                Ok(response) => {
                    let status = response.status();
                    response.into_body().collect().await.map(|body| (status, body.to_bytes()))
                }
                Err(e) => Err(e),
            };
            let done = Instant::now();
            match answer {
                Ok((status, _)) if status.is_success() => {
                    if done <= deadline {
                        sample.latencies_us.push(micros(done - scheduled));
                        sample.due_us.push(micros(scheduled.saturating_duration_since(start)));
                    }
                }
                Ok((status, body)) => note_error(
                    &mut sample,
                    format!("{status}: {}", String::from_utf8_lossy(&body[..body.len().min(300)])),
                ),
                Err(e) => {
                    note_error(&mut sample, format!("request: {e}"));
                    continue 'connect;
                }
            }
        }
    }
    sample
}

/// `duration` in µs, at most `u32::MAX`.
fn micros(duration: Duration) -> u32 {
    duration.as_micros().min(u128::from(u32::MAX)) as u32
}

fn note_error(sample: &mut Sample, error: String) {
    sample.errors += 1;
    sample.first_error.get_or_insert(error);
}

/// Runs `target` for `secs` on `connections` connections: closed loop, or
/// open loop at `rate` requests per second in all.
async fn run(target: &Arc<Target>, connections: usize, secs: f64, rate: Option<f64>) -> Figures {
    figures(run_sample(target, connections, secs, rate).await, secs)
}

/// [`run`]'s answers, each with its latency and when it was due.
async fn run_sample(target: &Arc<Target>, connections: usize, secs: f64, rate: Option<f64>) -> Sample {
    let start = Instant::now() + Duration::from_millis(20);
    let deadline = start + Duration::from_secs_f64(secs);
    let interval = rate.map(|rate| Duration::from_secs_f64(connections as f64 / rate));
    let tasks: Vec<_> = (0..connections)
        .map(|i| {
            let pace = interval.map(|interval| (start + interval.mul_f64(i as f64 / connections as f64), interval));
            tokio::spawn(connection(target.clone(), start, deadline, pace))
        })
        .collect();
    let mut sample = Sample::default();
    for task in tasks {
        sample.merge(task.await.unwrap_or_default());
    }
    if let Some(error) = &sample.first_error {
        eprintln!(
            "  {} errors on {}/{}/{}; first: {error}",
            sample.errors, target.deployment, target.ledger, target.call
        );
    }
    sample
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    if values.is_empty() { f64::NAN } else { values[values.len() / 2] }
}

struct Options {
    secs: f64,
    rounds: usize,
    connections: usize,
    threads: usize,
    warmup: f64,
    /// Without a bound: open loop at this many requests per second.
    rate: Option<f64>,
    /// Without a bound: a file to write every answer's due time and
    /// latency to, one `due_ms<TAB>latency_ms` line each.
    timeline: Option<String>,
    targets: String,
}

fn options() -> anyhow::Result<Options> {
    let mut options = Options {
        secs: 5.0,
        rounds: 3,
        connections: 64,
        threads: 2,
        warmup: 1.0,
        rate: None,
        timeline: None,
        targets: String::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| anyhow::anyhow!("{arg} needs a value"));
        match arg.as_str() {
            "--secs" => options.secs = value()?.parse()?,
            "--rounds" => options.rounds = value()?.parse()?,
            "--connections" => options.connections = value()?.parse()?,
            "--threads" => options.threads = value()?.parse()?,
            "--warmup" => options.warmup = value()?.parse()?,
            "--rate" => options.rate = Some(value()?.parse()?),
            "--timeline" => options.timeline = Some(value()?),
            _ if !arg.starts_with("--") => options.targets = arg,
            _ => anyhow::bail!("unknown option {arg}"),
        }
    }
    anyhow::ensure!(!options.targets.is_empty(), "usage: load [options] TARGETS.tsv");
    Ok(options)
}

fn main() -> anyhow::Result<()> {
    let options = options()?;
    let targets: Vec<Arc<Target>> = std::fs::read_to_string(&options.targets)?
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| Target::parse(line).map(Arc::new))
        .collect::<anyhow::Result<_>>()?;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(options.threads).enable_all().build()?;
    let bound = targets.iter().position(|t| t.is_bound());
    anyhow::ensure!(
        bound.is_none() || (options.rate.is_none() && options.timeline.is_none()),
        "--rate and --timeline are for a list without the bound: with it, the open loop runs at half the bound's rate"
    );
    match bound {
        Some(bound) => runtime.block_on(measure(&options, &targets, bound)),
        None => runtime.block_on(load_only(&options, &targets)),
    }
}

/// Without a bound (`bench/profile`): each target for `--secs`, closed
/// loop or at `--rate`, `--rounds` times, its figures printed as they come.
async fn load_only(options: &Options, targets: &[Arc<Target>]) -> anyhow::Result<()> {
    for round in 1..=options.rounds {
        for target in targets {
            let sample = run_sample(target, options.connections, options.secs, options.rate).await;
            if let Some(path) = &options.timeline {
                write_timeline(path, &sample)?;
            }
            let f = figures(sample, options.secs);
            println!(
                "round {round} {} {} {}: {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms{}",
                target.deployment,
                target.ledger,
                target.call,
                f.rps,
                f.p50_ms,
                f.p99_ms,
                errors_note(f.errors)
            );
        }
    }
    Ok(())
}

/// Writes `sample`'s answers to `path`, in the order they were due: one
/// `due_ms<TAB>latency_ms` line each (the last run's, when there are several).
fn write_timeline(path: &str, sample: &Sample) -> anyhow::Result<()> {
    use std::fmt::Write as _;
    let mut answers: Vec<(u32, u32)> = sample.due_us.iter().copied().zip(sample.latencies_us.iter().copied()).collect();
    answers.sort_unstable();
    let mut text = String::with_capacity(answers.len() * 16);
    for (due, latency) in answers {
        let _ = writeln!(text, "{:.3}\t{:.3}", f64::from(due) / 1e3, f64::from(latency) / 1e3);
    }
    std::fs::write(path, text)?;
    Ok(())
}

async fn measure(options: &Options, targets: &[Arc<Target>], bound: usize) -> anyhow::Result<()> {
    let n = targets.len();
    for target in targets {
        run(target, options.connections, options.warmup, None).await;
    }
    let bound_target = &targets[bound];
    let mut bound_runs: Vec<Figures> = Vec::new();
    let mut closed: Vec<Vec<Figures>> = vec![Vec::new(); n];
    // Each target's req/s over the mean of the bound runs just before and
    // just after it: a drift of the machine (other work on the cores)
    // moves both alike.
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); n];
    // Each open-loop run with the rate it was asked (half the bound's
    // median up to its round, so the rounds' rates differ).
    let mut half: Vec<Vec<(f64, Figures)>> = vec![Vec::new(); n];
    let mut half_rates: Vec<f64> = Vec::new();
    let log = |round: usize, target: &Target, f: &Figures, rate: Option<f64>| {
        let at = rate.map(|r| format!("at {r:.0}/s: ")).unwrap_or_default();
        eprintln!(
            "round {round} {:>10} {:>8} {:<22} {at}{:>8.0} req/s  p50 {:>6.2} ms  p99 {:>6.2} ms{}",
            target.deployment,
            target.ledger,
            target.call,
            f.rps,
            f.p50_ms,
            f.p99_ms,
            errors_note(f.errors)
        );
    };
    for round in 1..=options.rounds {
        let mut before = run(bound_target, options.connections, options.secs, None).await;
        log(round, bound_target, &before, None);
        bound_runs.push(before);
        for (i, target) in targets.iter().enumerate().filter(|(i, _)| *i != bound) {
            let f = run(target, options.connections, options.secs, None).await;
            log(round, target, &f, None);
            let after = run(bound_target, options.connections, options.secs, None).await;
            log(round, bound_target, &after, None);
            bound_runs.push(after);
            ratios[i].push(2.0 * f.rps / (before.rps + after.rps));
            closed[i].push(f);
            before = after;
        }
        let rate = median(&mut bound_runs.iter().map(|f| f.rps).collect::<Vec<_>>()) / 2.0;
        half_rates.push(rate);
        for (i, target) in targets.iter().enumerate().filter(|(i, _)| *i != bound) {
            let f = run(target, options.connections, options.secs, Some(rate)).await;
            log(round, target, &f, Some(rate));
            half[i].push((rate, f));
        }
    }
    closed[bound] = bound_runs;
    ratios[bound] = vec![1.0];
    let stat = |runs: &[Figures], pick: fn(&Figures) -> f64| median(&mut runs.iter().map(pick).collect::<Vec<_>>());
    let half_p99 = |i: usize| median(&mut half[i].iter().map(|(_, f)| f.p99_ms).collect::<Vec<_>>());
    let rates = half_rates.iter().map(|r| format!("{r:.0}")).collect::<Vec<_>>().join(", ");
    println!(
        "{} rounds × {} s per run, {} connections, load generator on {} threads; medians over the rounds \
         (the bound: over its {} runs, one between every two targets). × bound: the target's req/s over the \
         mean of the two bound runs around it. Open loop at ½ bound: each round at half the bound's median \
         up to it ({rates} req/s); a shortfall is the median share of its round's rate reached.\n",
        options.rounds,
        options.secs,
        options.connections,
        options.threads,
        closed[bound].len()
    );
    println!("| deployment | ledger | call | req/s | p50 ms | p99 ms | × bound | p99 ms at ½ bound |");
    println!("|---|---|---|---:|---:|---:|---:|---:|");
    for (i, target) in targets.iter().enumerate() {
        let errors: u64 = closed[i].iter().chain(half[i].iter().map(|(_, f)| f)).map(|f| f.errors).sum();
        let at_half = if i == bound {
            "–".to_owned()
        } else {
            let reached = median(&mut half[i].iter().map(|(rate, f)| f.rps / rate).collect::<Vec<_>>());
            let shortfall =
                if reached < 0.95 { format!(" (reached {:.0} % of the rate)", 100.0 * reached) } else { String::new() };
            format!("{:.2}{shortfall}", half_p99(i))
        };
        println!(
            "| {} | {} | {} | {:.0} | {:.2} | {:.2} | {:.2} | {at_half} |{}",
            target.deployment,
            target.ledger,
            target.call,
            stat(&closed[i], |f| f.rps),
            stat(&closed[i], |f| f.p50_ms),
            stat(&closed[i], |f| f.p99_ms),
            median(&mut ratios[i]),
            errors_note(errors)
        );
    }
    // `BASELINE=` in bench/load: each "before: …" target beside the same
    // target of the binary measured now.
    let pairs: Vec<(usize, usize)> = targets
        .iter()
        .enumerate()
        .filter_map(|(b, before)| {
            let deployment = before.deployment.strip_prefix("before: ")?;
            let now = targets
                .iter()
                .position(|t| t.deployment == deployment && t.ledger == before.ledger && t.call == before.call)?;
            Some((b, now))
        })
        .collect();
    if !pairs.is_empty() {
        println!("\nBefore → after, same run: × bound (closed loop) and p99 at ½ bound (open loop, ms).\n");
        println!("| deployment | ledger | call | × bound | p99 ms at ½ bound |");
        println!("|---|---|---|---:|---:|");
        for (b, now) in pairs {
            println!(
                "| {} | {} | {} | {:.2} → {:.2} | {:.2} → {:.2} |",
                targets[now].deployment,
                targets[now].ledger,
                targets[now].call,
                median(&mut ratios[b]),
                median(&mut ratios[now]),
                half_p99(b),
                half_p99(now)
            );
        }
    }
    Ok(())
}

fn errors_note(errors: u64) -> String {
    if errors == 0 { String::new() } else { format!(" **{errors} errors**") }
}
