//! Every ranking on a generated store (docs/performance.md), both backends: p50 / p99
//! latency of each operation's handler, called through the registry as the
//! pipeline calls it (request decode, rules, store reads, ranking, encode).
//! Run: `cargo bench -p core-service --bench rankings`.
//!
//! - Scale: `RANKINGS_BENCH_WORKS` works (default 1,000,000; a comma list
//!   such as `100000,1000000` runs each scale in turn and prints their
//!   p50 / p99 side by side at the end) spread over
//!   lifestyle, shortvideo and articles, `RANKINGS_BENCH_SNAPSHOTS` snapshots
//!   per work (default 10: one a day at 22:00 over the 10 days ending on the
//!   newest ranked day, so 10,000,000 snapshots at the default), one account
//!   per 10 works with one snapshot a day over the same days. Categories
//!   come from the spec 4.2 lists; counters grow by a seeded random amount
//!   a day, so every run writes the same store.
//! - Writing: accounts and works through the store's own write path
//!   (`ContentStore::write`, with its text indexing; on PostgreSQL four
//!   batches at once); snapshots entity by entity through the store's bulk
//!   path (`ContentStore::bulk_work_snapshots` / `bulk_account_snapshots`,
//!   `SNAPSHOTS_PER_CALL` a call, one caller), which keeps the per-day
//!   aggregates and the works' newest figures as the write path does. The
//!   ingestion rates (entities/s, snapshots/s) are printed per backend and
//!   scale.
//! - Header: the machine (`nproc`, memory) and the git commit, so the
//!   output can go into docs/rankings.md as it is.
//! - Calls: `RANKINGS_BENCH_CALLS` (default 20) calls per operation, one at
//!   a time, the clock fixed at 2026-11-20 (newest ranked day 11-18): first
//!   at read time, then (`<backend>+boards`) after the board builder has
//!   built every board (timed, and one day's boards again).
//! - Backends: SQLite in a temp file; PostgreSQL (`MEDIAOPS_TEST_DATABASE_URL`,
//!   default `postgres://root@127.0.0.1:5432/test`) in a fresh schema dropped
//!   at the end. `RANKINGS_BENCH_BACKENDS=sqlite` (or `postgres`) runs one.
//! - Iterating on a few operations: `RANKINGS_BENCH_STORE=<dir>` keeps the
//!   generated store (SQLite `<dir>/sqlite-<works>x<days>.sqlite`, PostgreSQL
//!   schema `rankings_bench_kept_<works>x<days>`) and reuses it in the next
//!   run instead of writing it again (a `.filled` file in `<dir>` says it is
//!   complete); `RANKINGS_BENCH_ONLY=SearchNote,HitData` calls only the
//!   operations whose gRPC method contains one of the words;
//!   `RANKINGS_BENCH_BOARDS=0` skips the board build and the `+boards` run.
//! - Texts: a work's title alone by default, so every match of a keyword
//!   scores the same; `RANKINGS_BENCH_TEXTS=varied` adds descriptions of
//!   varied length and words, for the searches' relevance order.
//! - Before and after: each operation is called first with the boards'
//!   replaced statement shapes (`<backend> before`, the shapes the
//!   index-ordered ones replaced: `mediaops_store::plans`; the
//!   keyword matched in every statement on PostgreSQL, 单日互动 ranked from
//!   the series read, a search's count and page as two statements) and then
//!   with the index-ordered ones, and both answers must be the same bytes;
//!   `RANKINGS_BENCH_PLANS=new` calls only the index-ordered ones.
//! - SQLite's memory: through the bench's allocator, mimalloc, as in the
//!   service (`mediaops_store::sqlite_memory`);
//!   `RANKINGS_BENCH_SQLITE_MALLOC=c` leaves SQLite on the C library's.
//! - CPU: `cpu p50` is the median CPU time (user + system, every thread
//!   of the process: on SQLite the database's work too) per call, which
//!   the machine's other load does not inflate as it does the wall clock.
//! - Cold start: the first call of each operation is printed apart
//!   (`first`), and so is the p99 of the calls after it (`p99 after it`;
//!   the summary's third figure); the first call of a run is the process's
//!   first read of the store. The segmentation dictionary is loaded before any call, as the
//!   core loads it at start.
//!
//! Figures measured: docs/rankings.md "Benchmark".
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use chrono::{DateTime, Days, NaiveDate, NaiveTime, Utc};
use futures::{StreamExt, TryStreamExt};
use mediaops_ops::data_api::DataApi;
use mediaops_platform::auth::Principal;
use mediaops_platform::registry::{CallContext, Registry};
use mediaops_platform::source::Fallbacks;
use mediaops_store::clock::{Clock, shanghai_to_utc};
use mediaops_store::model::{Account, AccountSnapshot, Record, Work, WorkSnapshot};
use mediaops_store::postgres::PostgresStore;
use mediaops_store::rankings::rules::CategoryList;
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::{ContentStore, StoreResult};
use prost::Message;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

/// The service's allocator (src/main.rs links mimalloc), so that a call's
/// time here is the time it takes in the service: with glibc's malloc the
/// allocator was 15 % of a keyword board call's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Records per `ContentStore::write` call.
const BATCH: usize = 5_000;
/// Snapshots per bulk call (`ContentStore::bulk_*_snapshots`).
const SNAPSHOTS_PER_CALL: usize = 50_000;
const SEED: u64 = 20_261_120;
const NOW: &str = "2026-11-20";

/// `RANKINGS_BENCH_TEXTS=varied`: each work also gets a description of
/// 0–59 words drawn from [`DESCRIPTION_WORDS`] and its platform's
/// categories, so that a keyword's matches differ in length and in how often
/// they hold it, and relevance has an order to find. By default a work has
/// its title alone (`<category>作品<n>`), and every match of a keyword
/// scores the same. The kept store's name says which (`…-varied`).
fn varied_texts() -> bool {
    std::env::var("RANKINGS_BENCH_TEXTS").is_ok_and(|v| v == "varied")
}

/// The kept store's name suffix for [`varied_texts`].
fn texts_suffix() -> &'static str {
    if varied_texts() { "-varied" } else { "" }
}

/// The words of a [`varied_texts`] description, beside the categories.
const DESCRIPTION_WORDS: [&str; 24] = [
    "分享",
    "日常",
    "推荐",
    "教程",
    "攻略",
    "好物",
    "体验",
    "记录",
    "生活",
    "周末",
    "新手",
    "干货",
    "合集",
    "测评",
    "避坑",
    "清单",
    "作品",
    "美味佳肴",
    "美食",
    "火锅",
    "旅行",
    "露营",
    "数码",
    "账号",
];

/// A [`varied_texts`] description: 0–59 words, space-separated.
fn description(rng: &mut StdRng, categories: &[String]) -> String {
    let words = rng.random_range(0..60);
    (0..words)
        .map(|_| {
            let i = rng.random_range(0..DESCRIPTION_WORDS.len() + categories.len());
            DESCRIPTION_WORDS.get(i).copied().unwrap_or_else(|| &categories[i - DESCRIPTION_WORDS.len()])
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The platforms and the category list each draws from.
const PLATFORMS: [(&str, CategoryList); 3] = [
    ("lifestyle", CategoryList::Lifestyle),
    ("shortvideo", CategoryList::Shortvideo),
    ("articles", CategoryList::Articles),
];

/// Writes records through the store, `BATCH` a call, as many calls at once
/// as the backend takes writers (SQLite: one).
async fn write_all(store: &dyn ContentStore, records: Vec<Record>) -> StoreResult<usize> {
    let writers = if store.backend() == "sqlite" { 1 } else { 4 };
    let n = records.len();
    futures::stream::iter(records.chunks(BATCH).map(|batch| async move {
        for outcome in store.write(batch).await? {
            outcome?;
        }
        StoreResult::Ok(())
    }))
    .buffer_unordered(writers)
    .try_collect::<Vec<()>>()
    .await?;
    Ok(n)
}

/// Rows written and the seconds they took.
#[derive(Debug, Clone, Copy, Default)]
struct Rate {
    rows: usize,
    secs: f64,
}

impl Rate {
    fn per_sec(&self) -> f64 {
        self.rows as f64 / self.secs.max(1e-9)
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} in {:.1} s ({:.0}/s)", self.rows, self.secs, self.per_sec())
    }
}

/// How fast the generated store was written.
#[derive(Debug, Clone, Copy, Default)]
struct Ingestion {
    /// Accounts and works through `ContentStore::write`.
    entities: Rate,
    /// Account snapshots through the bulk path.
    account_snapshots: Rate,
    /// Work snapshots through the bulk path.
    work_snapshots: Rate,
}

/// An entity's platform, platform id and two starting counters (works:
/// likes, views; accounts: followers, likes).
type Start = (&'static str, String, i64, i64);

/// Writes every entity's `days` daily snapshots through the bulk path,
/// entity by entity (each entity's days in order), `SNAPSHOTS_PER_CALL` a
/// call; `snapshot(time, a, b)` builds one. Counters grow by a seeded
/// random step in `steps` a day.
async fn bulk_snapshots<S: Clone>(
    starts: &[Start],
    days: u64,
    day_at: &dyn Fn(u64) -> DateTime<Utc>,
    steps: ((i64, i64), (i64, i64)),
    rng: &mut StdRng,
    snapshot: impl Fn(DateTime<Utc>, i64, i64) -> S,
    write: impl AsyncFn(&str, Vec<(String, S)>) -> StoreResult<usize>,
) -> StoreResult<Rate> {
    let started = Instant::now();
    let mut rows = 0;
    let per_call = (SNAPSHOTS_PER_CALL / days.max(1) as usize).max(1);
    for (platform, _) in PLATFORMS {
        let of_platform: Vec<&Start> = starts.iter().filter(|s| s.0 == platform).collect();
        for chunk in of_platform.chunks(per_call) {
            let mut batch = Vec::with_capacity(chunk.len() * days as usize);
            for (_, id, a, b) in chunk {
                let (mut a, mut b) = (*a, *b);
                for d in 0..days {
                    a += rng.random_range(steps.0.0..steps.0.1);
                    b += rng.random_range(steps.1.0..steps.1.1);
                    batch.push((id.clone(), snapshot(day_at(d), a, b)));
                }
            }
            rows += write(platform, batch).await?;
        }
    }
    Ok(Rate { rows, secs: started.elapsed().as_secs_f64() })
}

/// Writes the store: per platform `works / 3` works and `works / 30`
/// accounts, with `days` daily snapshots each.
async fn generate(store: &dyn ContentStore, works: usize, days: u64) -> StoreResult<Ingestion> {
    let mut rng = StdRng::seed_from_u64(SEED);
    let newest = NaiveDate::parse_from_str(NOW, "%Y-%m-%d").unwrap() - Days::new(2);
    let evening = NaiveTime::from_hms_opt(22, 0, 0).unwrap();
    let day_at = |i: u64| shanghai_to_utc(newest - Days::new(days - 1 - i), evening);
    let mut account_start: Vec<Start> = Vec::new();
    let mut work_start: Vec<Start> = Vec::new();
    let mut entities = Vec::new();
    let varied = varied_texts();
    for (platform, list) in PLATFORMS {
        let categories: Vec<String> =
            list.values().into_iter().filter(|c| Some(c.as_str()) != list.all_value()).collect();
        let accounts = (works / 30).max(1);
        for a in 0..accounts {
            let id = format!("{platform}-a{a}");
            entities.push(Record::Account(Account {
                platform: platform.into(),
                platform_id: id.clone(),
                nickname: format!("账号{a}"),
                category: Some(categories[a % categories.len()].clone()),
                fans: Some(rng.random_range(100..2_000_000)),
                ..Account::default()
            }));
            account_start.push((platform, id, rng.random_range(100..1_000_000i64), rng.random_range(0..5_000_000i64)));
        }
        for w in 0..works / 3 {
            let id = format!("{platform}-w{w}");
            let author = rng.random_range(0..accounts);
            let description = varied.then(|| description(&mut rng, &categories));
            entities.push(Record::Work(Work {
                platform: platform.into(),
                platform_id: id.clone(),
                title: format!("{}作品{w}", categories[w % categories.len()]),
                description,
                author_id: Some(format!("{platform}-a{author}")),
                category: Some(categories[w % categories.len()].clone()),
                published_at: Some(day_at(0) - chrono::Duration::days(rng.random_range(0..30))),
                work_type: Some(if w % 4 == 0 { "原创" } else { "normal" }.into()),
                ..Work::default()
            }));
            work_start.push((platform, id, rng.random_range(0..10_000i64), rng.random_range(0..200_000i64)));
        }
    }
    let started = Instant::now();
    let written = write_all(store, entities).await?;
    let entities = Rate { rows: written, secs: started.elapsed().as_secs_f64() };
    println!("  accounts and works through write: {entities}");
    let account_snapshots = bulk_snapshots(
        &account_start,
        days,
        &day_at,
        ((-50, 2_000), (0, 20_000)),
        &mut rng,
        |captured_at, fans, likes| AccountSnapshot {
            captured_at,
            fans: Some(fans),
            likes: Some(likes),
            ..Default::default()
        },
        async |platform, batch| {
            let report = store.bulk_account_snapshots(platform, &batch).await?;
            assert!(report.missing.is_empty(), "every account is stored");
            Ok(batch.len())
        },
    )
    .await?;
    println!("  account snapshots through the bulk path: {account_snapshots}");
    let work_snapshots = bulk_snapshots(
        &work_start,
        days,
        &day_at,
        ((0, 3_000), (0, 20_000)),
        &mut rng,
        |captured_at, likes, views| WorkSnapshot {
            captured_at,
            likes: Some(likes),
            views: Some(views),
            collects: Some(likes / 3),
            ..Default::default()
        },
        async |platform, batch| {
            let report = store.bulk_work_snapshots(platform, &batch).await?;
            assert!(report.missing.is_empty(), "every work is stored");
            Ok(batch.len())
        },
    )
    .await?;
    println!("  work snapshots through the bulk path: {work_snapshots}");
    Ok(Ingestion { entities, account_snapshots, work_snapshots })
}

/// One request of each ranking, encoded.
fn requests() -> Vec<(&'static str, Bytes)> {
    use mediaops_proto::mediaops::{articles::v1 as ar, lifestyle::v1 as ls, shortvideo::v1 as sv};
    let enc = |m: &dyn Fn() -> Vec<u8>| Bytes::from(m());
    let day = "2026-11-18".to_owned();
    vec![
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleTopAccount",
            enc(&|| {
                ls::LifestyleTopAccountRequest { period: "day".into(), rank_date: day.clone(), r#type: String::new() }
                    .encode_to_vec()
            }),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleHitData",
            enc(&|| {
                ls::LifestyleHitDataRequest { keyword: "美味佳肴".into(), start_date: String::new() }.encode_to_vec()
            }),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleDailyTop",
            enc(&|| ls::LifestyleRankRequest { rank_date: day.clone(), category: String::new() }.encode_to_vec()),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleLowFansTop",
            enc(&|| ls::LifestyleRankRequest { rank_date: day.clone(), category: "日常生活".into() }.encode_to_vec()),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleWeeklyTop",
            enc(&|| {
                ls::LifestyleRankRequest { rank_date: "2026-11-09".into(), category: String::new() }.encode_to_vec()
            }),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleAccountAnalyzer",
            enc(&|| {
                ls::LifestyleAccountAnalyzerRequest { user_ids: vec!["lifestyle-a1".into(), "lifestyle-a2".into()] }
                    .encode_to_vec()
            }),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.DouyinRiseFansRank",
            enc(&|| {
                sv::DouyinRiseFansRankRequest {
                    period: "day".into(), rank_date: day.clone(), category: "全部".into()
                }
                .encode_to_vec()
            }),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.ShortvideoTopAccount",
            enc(&|| {
                sv::ShortvideoTopAccountRequest {
                    period: "day".into(),
                    rank_date: day.clone(),
                    category: "美食".into(),
                }
                .encode_to_vec()
            }),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.ShortvideoContentSurge",
            enc(&|| {
                sv::ShortvideoContentSurgeRequest { r#type: String::new(), start_time: "2026-11-12".into() }
                    .encode_to_vec()
            }),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.ShortvideoLikesRank",
            enc(&|| {
                sv::ShortvideoLikesRankRequest { r#type: String::new(), start_time: day.clone(), end_time: day.clone() }
                    .encode_to_vec()
            }),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.ShortvideoAccountDiagnosis",
            enc(&|| {
                sv::ShortvideoAccountDiagnosisRequest { account_names: vec!["shortvideo-a1".into()] }.encode_to_vec()
            }),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.ShortvideoSimilarAccount",
            enc(&|| {
                sv::ShortvideoSimilarAccountRequest { account_name: String::new(), account_id: "shortvideo-a1".into() }
                    .encode_to_vec()
            }),
        ),
        (
            "mediaops.articles.v1.ArticlesService.CategoryTimeHot",
            enc(&|| {
                ar::CategoryTimeHotRequest {
                    r#type: "科技数码".into(),
                    start_date: "2026-10-01".into(),
                    end_date: day.clone(),
                }
                .encode_to_vec()
            }),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesIndexRank",
            enc(&|| {
                ar::ArticlesIndexRankRequest {
                    rank_type: "day".into(),
                    rank_date: day.clone(),
                    category: String::new(),
                }
                .encode_to_vec()
            }),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesRaiseRank",
            enc(&|| ar::ArticlesRaiseRankRequest { rank_date: day.clone() }.encode_to_vec()),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesHitCover",
            enc(&|| {
                ar::ArticlesHitCoverRequest { keyword: "科技数码".into(), start_date: String::new() }.encode_to_vec()
            }),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesAccountAnalyzer",
            enc(&|| ar::ArticlesAccountAnalyzerRequest { account_names: vec!["articles-a1".into()] }.encode_to_vec()),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesSimilarAccount",
            enc(&|| {
                ar::ArticlesSimilarAccountRequest { account_name: "articles-a1".into(), account_type: String::new() }
                    .encode_to_vec()
            }),
        ),
    ]
    .into_iter()
    .chain(search_requests())
    .collect()
}

/// One request of each `search-*` operation and of the searches of the
/// skills and `multi`, and the keyword boards again with a keyword that
/// matches every work of the platform (the generated titles are
/// `<category>作品<n>`: a category matches 1/24 of a platform, 作品 all of
/// it, past the count cap from 30,000 works on): docs/rankings.md.
/// Printed in this order (two calls of one operation share its name).
fn search_requests() -> Vec<(&'static str, Bytes)> {
    use mediaops_proto::mediaops::{
        articles::v1 as ar, lifestyle::v1 as ls, multi::v1 as mu, shortvideo::v1 as sv, skills::v1 as sk,
    };
    let all = || "作品".to_owned();
    let note = |keyword: &str, page| ls::SearchNoteRequest { keyword: keyword.into(), page }.encode_to_vec();
    let entries: Vec<(&'static str, Vec<u8>)> = vec![
        ("mediaops.lifestyle.v1.LifestyleService.SearchNote", note("美味佳肴", 1)),
        ("mediaops.lifestyle.v1.LifestyleService.SearchNote", note("作品", 1)),
        ("mediaops.lifestyle.v1.LifestyleService.SearchNote", note("作品", 200)),
        (
            "mediaops.lifestyle.v1.LifestyleService.SearchUser",
            ls::SearchUserRequest { keyword: "账号".into(), ..Default::default() }.encode_to_vec(),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.SearchWork",
            ls::SearchWorkRequest { keyword: "美味佳肴".into(), ..Default::default() }.encode_to_vec(),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.SearchWork",
            sv::SearchWorkRequest { keyword: "美食".into(), ..Default::default() }.encode_to_vec(),
        ),
        (
            "mediaops.shortvideo.v1.ShortvideoService.SearchUser",
            sv::SearchUserRequest { keyword: "账号".into(), ..Default::default() }.encode_to_vec(),
        ),
        (
            "mediaops.articles.v1.ArticlesService.SearchArticle",
            ar::SearchArticleRequest { keyword: "科技数码".into(), page: 1 }.encode_to_vec(),
        ),
        (
            "mediaops.articles.v1.ArticlesService.SearchArticle",
            ar::SearchArticleRequest { keyword: all(), page: 1 }.encode_to_vec(),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesSearchUser",
            ar::ArticlesSearchUserRequest { keyword: "账号".into(), ..Default::default() }.encode_to_vec(),
        ),
        (
            "mediaops.skills.v1.SkillsService.ArticlesSearch",
            sk::ArticlesSearchRequest { keyword: "科技数码".into() }.encode_to_vec(),
        ),
        (
            "mediaops.skills.v1.SkillsService.LifestyleViralNotes",
            sk::LifestyleViralNotesRequest { keyword: "美味佳肴".into(), page: 1 }.encode_to_vec(),
        ),
        (
            "mediaops.multi.v1.MultiService.Cn30MultiSearch",
            mu::Cn30MultiSearchRequest { keyword: all(), ..Default::default() }.encode_to_vec(),
        ),
        (
            "mediaops.lifestyle.v1.LifestyleService.LifestyleHitData",
            ls::LifestyleHitDataRequest { keyword: all(), start_date: String::new() }.encode_to_vec(),
        ),
        (
            "mediaops.articles.v1.ArticlesService.ArticlesHitCover",
            ar::ArticlesHitCoverRequest { keyword: all(), start_date: String::new() }.encode_to_vec(),
        ),
    ];
    entries.into_iter().map(|(method, body)| (method, Bytes::from(body))).collect()
}

/// CPU time (user + system) of this process so far, every thread: the
/// service's own work and, on SQLite, the database's (it runs in the
/// process), not the time spent waiting for a core, which on a shared
/// machine the wall-clock figures include. PostgreSQL's work runs in its
/// server and is not in it.
fn process_cpu() -> Duration {
    // SAFETY: getrusage writes the struct it is given; zeroed is a valid rusage.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage owned by this frame.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// One operation's timings over its calls.
struct Measured {
    /// The operation's key (`lifestyle-hit-data`).
    key: String,
    p50: Duration,
    p99: Duration,
    /// The p99 of the calls after the first: the first is the process's
    /// first read of the operation's pages (after a cold start or another
    /// run's load, out of the page cache) and is the p99 of a short run.
    p99_warm: Duration,
}

async fn fill(backend: &str, store: &dyn ContentStore, works: usize, days: u64) -> Ingestion {
    let started = Instant::now();
    let ingestion = generate(store, works, days).await.expect("generate");
    let secs = started.elapsed().as_secs_f64();
    let rows = ingestion.entities.rows + ingestion.account_snapshots.rows + ingestion.work_snapshots.rows;
    println!("{backend}: wrote {rows} rows in {secs:.0} s ({:.0} rows/s)", rows as f64 / secs);
    ingestion
}

/// Where a generated store is kept between runs (`RANKINGS_BENCH_STORE`).
struct Kept {
    dir: std::path::PathBuf,
    /// The file whose presence says the store was written to the end.
    marker: std::path::PathBuf,
}

impl Kept {
    fn new(backend: &str, works: usize, days: u64) -> Option<Kept> {
        let dir = std::path::PathBuf::from(std::env::var_os("RANKINGS_BENCH_STORE")?);
        std::fs::create_dir_all(&dir).unwrap();
        let marker = dir.join(format!("{backend}-{works}x{days}{}.filled", texts_suffix()));
        Some(Kept { dir, marker })
    }

    fn filled(&self) -> bool {
        self.marker.exists()
    }
}

/// Writes the store, unless `kept` says a previous run wrote it.
async fn fill_or_reuse(
    backend: &str,
    store: &dyn ContentStore,
    works: usize,
    days: u64,
    kept: Option<&Kept>,
) -> Ingestion {
    if let Some(kept) = kept.filter(|k| k.filled()) {
        println!("{backend}: reusing the store kept by a previous run ({})", kept.marker.display());
        return Ingestion::default();
    }
    let ingestion = fill(backend, store, works, days).await;
    if let Some(kept) = kept {
        std::fs::write(&kept.marker, format!("{ingestion:?}\n")).unwrap();
    }
    ingestion
}

/// `RANKINGS_BENCH_BOARDS=0` skips the board build and the `+boards` run.
fn with_boards() -> bool {
    std::env::var("RANKINGS_BENCH_BOARDS").map_or(true, |v| v != "0")
}

/// `RANKINGS_BENCH_PLANS`: `both` (the default) calls each operation first
/// with the boards' replaced statement shapes (`<backend> before`,
/// docs/rankings.md "Index-ordered boards") and then with the
/// index-ordered ones, one after the other on the same store; `new` only
/// with the index-ordered ones.
fn compare_plans() -> bool {
    std::env::var("RANKINGS_BENCH_PLANS").map_or(true, |v| v != "new")
}

/// Every operation's p50 / p99 with the index-ordered statement shapes,
/// and (`RANKINGS_BENCH_PLANS=both`) with the shapes they replaced.
struct Runs {
    after: Vec<Measured>,
    before: Option<Vec<Measured>>,
}

async fn run(backend: &str, store: Arc<dyn ContentStore>, calls: usize) -> Runs {
    let api = Arc::new(DataApi { store, clock: Clock::from_setting(Some(NOW)).unwrap() });
    // The core loads the segmentation dictionary at start (`Core::new`); a
    // kept store is reused without writing, so without this the first timed
    // keyword call would load it (about 100 ms of CPU) and be its p99.
    mediaops_store::text::warm_up();
    let mut registry = Registry::from_pool(mediaops_proto::descriptor_pool()).unwrap();
    mediaops_ops::services::register_store_reads(&api, &Fallbacks::default(), &mut registry).unwrap();
    let mut measured = Vec::new();
    let mut before = Vec::new();
    let only = std::env::var("RANKINGS_BENCH_ONLY").unwrap_or_default();
    let wanted = |method: &str| only.is_empty() || only.split(',').any(|w| !w.is_empty() && method.contains(w.trim()));
    for (method, request) in requests().into_iter().filter(|(m, _)| wanted(m)) {
        let info = registry.operations().find(|o| o.method.full_name() == method).expect("operation").clone();
        // The skills need the whole core (trends, images, web search): the
        // bench registers only the store-reading services.
        let Some(handler) = registry.handler(&info.grpc_path).cloned() else {
            println!("{backend}  {:<40} not registered in the bench (skipped)", info.key());
            continue;
        };
        let shapes: &[bool] = if compare_plans() { &[true, false] } else { &[false] };
        let mut answers = Vec::new();
        for &replaced in shapes {
            mediaops_store::plans::use_replaced_shapes(replaced);
            let principal =
                Principal { account_id: "bench".into(), key_id: "bench".into(), key_prefix: "bench".into() };
            let ctx = CallContext::new("bench".into(), principal, info.clone());
            let mut times = Vec::with_capacity(calls);
            let mut cpu = Vec::with_capacity(calls);
            let mut answer = Bytes::new();
            for _ in 0..calls {
                let (t, c) = (Instant::now(), process_cpu());
                answer = handler(ctx.clone(), request.clone()).await.unwrap_or_else(|e| panic!("{method}: {e}"));
                times.push(t.elapsed());
                cpu.push(process_cpu().saturating_sub(c));
            }
            let warnings = ctx.warnings.list();
            let first = times.first().copied().unwrap_or_default();
            let mut warm = times.get(1..).unwrap_or_default().to_vec();
            warm.sort();
            let p99_warm = if warm.is_empty() { first } else { percentile(&warm, 0.99) };
            times.sort();
            cpu.sort();
            println!(
                "{backend}{}  {:<40} p50 {:>8.1} ms  p99 {:>8.1} ms  first {:>8.1} ms  p99 after it {:>8.1} ms  \
                 cpu p50 {:>7.1} ms  ({} bytes){}",
                if replaced { " before" } else { "" },
                info.key(),
                percentile(&times, 0.5).as_secs_f64() * 1e3,
                percentile(&times, 0.99).as_secs_f64() * 1e3,
                first.as_secs_f64() * 1e3,
                p99_warm.as_secs_f64() * 1e3,
                percentile(&cpu, 0.5).as_secs_f64() * 1e3,
                answer.len(),
                if warnings.is_empty() { String::new() } else { format!("  warnings: {warnings:?}") }
            );
            let row = Measured {
                key: info.key().to_string(),
                p50: percentile(&times, 0.5),
                p99: percentile(&times, 0.99),
                p99_warm,
            };
            if replaced {
                before.push(row)
            } else {
                measured.push(row)
            }
            answers.push(answer);
        }
        mediaops_store::plans::use_replaced_shapes(false);
        assert!(answers.windows(2).all(|w| w[0] == w[1]), "{method}: the two statement shapes answer differently");
    }
    Runs { after: measured, before: compare_plans().then_some(before) }
}

/// One backend at one scale.
struct Outcome {
    backend: &'static str,
    works: usize,
    ingestion: Ingestion,
    measured: Vec<Measured>,
    /// The board build before the calls (`<backend>+boards` only).
    boards: Option<BoardBuilds>,
}

/// The time to build every board, and one day's boards again.
#[derive(Debug, Clone, Copy)]
struct BoardBuilds {
    all: Rate,
    one_day: Rate,
}

/// Adds the outcomes of one run: the replaced shapes' (when measured) as
/// `names.1`, then the index-ordered ones' as `names.0`.
fn push_runs(
    outcomes: &mut Vec<Outcome>,
    names: (&'static str, &'static str),
    works: usize,
    ingestion: Ingestion,
    runs: Runs,
    boards: Option<BoardBuilds>,
) {
    if let Some(measured) = runs.before {
        outcomes.push(Outcome { backend: names.1, works, ingestion, measured, boards });
    }
    outcomes.push(Outcome { backend: names.0, works, ingestion, measured: runs.after, boards });
}

/// `nproc`, memory and load of this machine, and the commit measured.
fn header() -> String {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or("unknown".to_owned(), |kb| format!("{:.1} GiB", kb / 1024.0 / 1024.0));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let commit = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    format!(
        "machine: {cores} cores (nproc), {memory} memory, load average {load}; commit {commit}{}",
        if dirty { " (with uncommitted changes)" } else { "" }
    )
}

/// The ingestion rates and every operation's p50 / p99 of every scale,
/// side by side (Markdown, for docs/rankings.md).
fn summary(outcomes: &[Outcome]) {
    println!("\n| backend | works | accounts + works (write) | account snapshots (bulk) | work snapshots (bulk) |");
    println!("|---|---|---|---|---|");
    // One row per store: the `before` outcome repeats its store's figures.
    let stores = || outcomes.iter().filter(|o| !o.backend.ends_with(" before"));
    for o in stores().filter(|o| o.boards.is_none()) {
        let i = &o.ingestion;
        println!(
            "| {} | {} | {:.0}/s | {:.0}/s | {:.0}/s |",
            o.backend,
            o.works,
            i.entities.per_sec(),
            i.account_snapshots.per_sec(),
            i.work_snapshots.per_sec()
        );
    }
    println!("\n| backend | works | every board: boards, s | one day's boards: boards, s |");
    println!("|---|---|---|---|");
    for o in stores() {
        if let Some(b) = o.boards {
            println!(
                "| {} | {} | {}, {:.1} s | {}, {:.1} s |",
                o.backend, o.works, b.all.rows, b.all.secs, b.one_day.rows, b.one_day.secs
            );
        }
    }
    let columns: Vec<String> = outcomes
        .iter()
        .map(|o| format!("{} {} p50 / p99 / p99 after the first call, ms", o.backend, o.works))
        .collect();
    println!("\n| operation | {} |", columns.join(" | "));
    println!("|---|{}", "---|".repeat(columns.len()));
    let Some(first) = outcomes.first() else { return };
    // By position: every outcome ran the same requests in the same order,
    // and an operation may be asked several times (search with different
    // keywords), so its name alone does not find its row.
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for (i, Measured { key, .. }) in first.measured.iter().enumerate() {
        let cells: Vec<String> = outcomes
            .iter()
            .map(|o| match o.measured.get(i).filter(|m| &m.key == key) {
                Some(m) => format!("{:.1} / {:.1} / {:.1}", ms(m.p50), ms(m.p99), ms(m.p99_warm)),
                None => "–".into(),
            })
            .collect();
        println!("| `{key}` | {} |", cells.join(" | "));
    }
}

/// `RANKINGS_BENCH_WORKS`: one scale or a comma list.
fn scales() -> Vec<usize> {
    let text = std::env::var("RANKINGS_BENCH_WORKS").unwrap_or_else(|_| "1000000".into());
    let scales: Vec<usize> = text.split(',').filter_map(|s| s.trim().replace('_', "").parse().ok()).collect();
    assert!(!scales.is_empty(), "RANKINGS_BENCH_WORKS: works, or a comma list of them, not {text:?}");
    scales
}

/// Builds every board of the generated store (docs/rankings.md "Boards as
/// data") and then one day's again (the newest day marked changed, as after
/// a daily import), timing both; the calls after it read built boards.
async fn build_boards(backend: &str, store: Arc<dyn ContentStore>) -> BoardBuilds {
    use mediaops_ops::rankings::boards::builder::Builder;
    let api = Arc::new(DataApi { store: store.clone(), clock: Clock::from_setting(Some(NOW)).unwrap() });
    let builder = Builder::new(api);
    // The boards of keyword values (docs/rankings.md "Keyword values"),
    // timed apart: a board's time is the time since the one before it.
    let (mut last, mut values, mut values_secs) = (Instant::now(), 0, 0.0);
    let mut time_values = |_: usize, _: usize, key: &mediaops_store::rankings::board_tables::BoardKey| {
        use mediaops_ops::rankings::boards::kinds::{Kind, Shape};
        if Kind::from_name(&key.kind).is_some_and(|k| matches!(k.shape(), Shape::Values(..))) {
            values += 1;
            values_secs += last.elapsed().as_secs_f64();
        }
        last = Instant::now();
    };
    let all = builder.run(&mut time_values).await.expect("build the boards");
    println!("{backend}: built {} boards in {:.1} s ({:?})", all.built, all.seconds, all);
    println!("{backend}: of which {values} boards of keyword values in {values_secs:.1} s");
    let newest = NaiveDate::parse_from_str(NOW, "%Y-%m-%d").unwrap() - Days::new(2);
    let day = builder.rebuild(Some(newest), &mut |_, _, _| {}).await.expect("build a day's boards");
    println!("{backend}: one day's boards ({newest}): {} boards in {:.1} s", day.built, day.seconds);
    BoardBuilds {
        all: Rate { rows: all.built, secs: all.seconds },
        one_day: Rate { rows: day.built, secs: day.seconds },
    }
}

/// The store's settings, with `RANKINGS_BENCH_SQLITE_MMAP_MIB` (when set)
/// as the SQLite memory mapping (docs/store.md "Memory mapping").
fn sqlite_settings() -> mediaops_store::PoolSettings {
    let mut settings = mediaops_store::PoolSettings::default();
    if let Ok(mib) = std::env::var("RANKINGS_BENCH_SQLITE_MMAP_MIB") {
        settings.sqlite_mmap_bytes = mib.parse::<u64>().expect("RANKINGS_BENCH_SQLITE_MMAP_MIB: MiB") << 20;
    }
    println!("SQLite memory mapping: {} MiB", settings.sqlite_mmap_bytes >> 20);
    settings
}

#[tokio::main]
async fn main() {
    // As the service does (`src/main.rs`), unless RANKINGS_BENCH_SQLITE_MALLOC=c.
    if std::env::var("RANKINGS_BENCH_SQLITE_MALLOC").map_or(true, |v| v != "c") {
        mediaops_store::sqlite_memory::use_process_allocator()
            .expect("SQLite's allocator set before its first connection");
    }
    let days = env("RANKINGS_BENCH_SNAPSHOTS", 10) as u64;
    let calls = env("RANKINGS_BENCH_CALLS", 20);
    let backends = std::env::var("RANKINGS_BENCH_BACKENDS").unwrap_or_else(|_| "sqlite,postgres".into());
    println!("{}", header());
    let mut outcomes = Vec::new();
    for works in scales() {
        println!(
            "\n{works} works × {days} snapshots = {} work snapshots; {calls} calls per ranking",
            works as u64 * days
        );
        if backends.contains("sqlite") {
            let temp = tempfile::tempdir().unwrap();
            let kept = Kept::new("sqlite", works, days);
            let path = match &kept {
                Some(k) => k.dir.join(format!("sqlite-{works}x{days}{}.sqlite", texts_suffix())),
                None => temp.path().join("store.sqlite"),
            };
            let store = Arc::new(SqliteStore::open_with(&path, sqlite_settings()).await.expect("open SQLite"));
            let ingestion = fill_or_reuse("sqlite", store.as_ref(), works, days, kept.as_ref()).await;
            let runs = run("sqlite", store.clone(), calls).await;
            push_runs(&mut outcomes, ("sqlite", "sqlite before"), works, ingestion, runs, None);
            if with_boards() {
                let boards = build_boards("sqlite", store.clone()).await;
                let runs = run("sqlite+boards", store, calls).await;
                push_runs(
                    &mut outcomes,
                    ("sqlite+boards", "sqlite+boards before"),
                    works,
                    ingestion,
                    runs,
                    Some(boards),
                );
            }
        }
        if backends.contains("postgres") {
            let url = std::env::var("MEDIAOPS_TEST_DATABASE_URL")
                .unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into());
            let kept = Kept::new("postgres", works, days);
            let schema = match &kept {
                Some(_) => format!("rankings_bench_kept_{works}x{days}{}", texts_suffix().replace('-', "_")),
                None => format!("rankings_bench_{}", uuid::Uuid::new_v4().simple()),
            };
            let mut conn = PgConnection::connect(&url).await.expect("PostgreSQL");
            sqlx::query(&format!("CREATE SCHEMA IF NOT EXISTS {schema}")).execute(&mut conn).await.unwrap();
            let options = PgConnectOptions::from_str(&url).unwrap().options([("search_path", &schema)]);
            let store = Arc::new(PostgresStore::open_with(options.clone()).await.expect("open PostgreSQL"));
            let reused = kept.as_ref().is_some_and(Kept::filled);
            let ingestion = fill_or_reuse("postgres", store.as_ref(), works, days, kept.as_ref()).await;
            if !reused {
                // as autovacuum would (the test server runs with it off)
                let started = Instant::now();
                for table in [
                    "works",
                    "work_terms",
                    "work_snapshots",
                    "work_days",
                    "accounts",
                    "account_snapshots",
                    "account_days",
                ] {
                    sqlx::raw_sql(&format!("VACUUM ANALYZE {schema}.{table}")).execute(&mut conn).await.unwrap();
                }
                println!("postgres: VACUUM ANALYZE in {:.0} s", started.elapsed().as_secs_f64());
            }
            let runs = run("postgres", store.clone(), calls).await;
            push_runs(&mut outcomes, ("postgres", "postgres before"), works, ingestion, runs, None);
            if with_boards() {
                let boards = build_boards("postgres", store.clone()).await;
                let runs = run("postgres+boards", store.clone(), calls).await;
                let names = ("postgres+boards", "postgres+boards before");
                push_runs(&mut outcomes, names, works, ingestion, runs, Some(boards));
            }
            drop(store);
            if kept.is_none() {
                sqlx::query(&format!("DROP SCHEMA {schema} CASCADE")).execute(&mut conn).await.unwrap();
            }
        }
    }
    summary(&outcomes);
}
