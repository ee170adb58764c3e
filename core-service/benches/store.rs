//! Content store at scale (docs/performance.md): import rate and search latency of both
//! backends on a synthetic store. Run:
//! `cargo bench -p core-service --bench store` (release build).
//!
//! - Data: `STORE_BENCH_WORKS` works (default 1,000,000) on one platform,
//!   with Chinese titles, descriptions and tags built from a vocabulary of
//!   topics (美食, 旅行, 露营, 数码, 美妆, AI, 短剧, …) by a seeded RNG, so
//!   every run writes the same store; word choice is Zipf-like, so some
//!   terms are common and some rare. One account per ten works (authors),
//!   one snapshot per work.
//! - Import: [`ContentStore::write`] in batches of [`BATCH`] records
//!   (accounts first, then each work followed by its snapshot); rows/s
//!   counts every record.
//! - Search: `STORE_BENCH_SEARCHES` (default 1,000) `find_works` calls, one
//!   at a time, page 1 of 20 by relevance, with total; the text is one
//!   common term, two common terms, one rare term, or a common and a rare
//!   one (a quarter each). p50/p99 per class and overall.
//! - Backends: SQLite in a temp file; PostgreSQL
//!   (`MEDIAOPS_TEST_DATABASE_URL`, default
//!   `postgres://root@127.0.0.1:5432/test`) in a fresh schema dropped at the
//!   end. `STORE_BENCH_BACKENDS=sqlite` (or `postgres`) runs one.
//! - PostgreSQL is `ANALYZE`d after the import, as autovacuum would do
//!   (the test server runs with autovacuum off).
//! - Reuse, for looking at query plans: `STORE_BENCH_SQLITE=<file>` and
//!   `STORE_BENCH_PG_SCHEMA=<schema>` use (and keep) that store, importing
//!   only when it holds no works; migrations run on open as always.
//!
//! Measured on the 2-core dev machine while other builds ran (so p99 is
//! noisy): SQLite, 1,000,000 works: 2,794 rows/s import; search p50 101 ms,
//! p99 2.8 s (one common term, ~49k hits: p50 411 ms; one rare term, ~4k
//! hits: p50 67 ms, p99 296 ms). PostgreSQL, 200,000 works: 1,587 rows/s;
//! p50 16 ms, p99 489 ms. Common terms cost what their matches cost: the
//! exact total and the rank touch every match.
#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test (clippy.toml)

use std::str::FromStr;
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeZone, Utc};
use mediaops_store::model::{Account, Record, Work, WorkQuery, WorkSnapshot};
use mediaops_store::postgres::PostgresStore;
use mediaops_store::sqlite::SqliteStore;
use mediaops_store::{ContentStore, StoreResult};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

/// Records per `write` call.
const BATCH: usize = 1000;
const PLATFORM: &str = "lifestyle";
const SEED: u64 = 20_240_501;

/// One topic of the vocabulary: its name (the work's category and first
/// tag) and its nouns, most common first.
struct Topic {
    name: &'static str,
    nouns: &'static [&'static str],
}

const TOPICS: &[Topic] = &[
    Topic {
        name: "美食",
        nouns: &[
            "美食",
            "火锅",
            "探店",
            "家常菜",
            "烧烤",
            "小龙虾",
            "甜品",
            "咖啡",
            "奶茶",
            "早餐",
            "减脂餐",
            "烘焙",
            "面条",
            "饺子",
            "川菜",
            "粤菜",
            "螺蛳粉",
            "牛肉面",
            "寿司",
            "日料",
            "烤肉",
            "蛋糕",
            "面包",
            "卤味",
            "酸菜鱼",
            "煲仔饭",
            "肠粉",
            "凉皮",
            "麻辣烫",
            "串串",
            "羊肉串",
            "糖水",
            "红烧肉",
            "可颂",
            "拿铁",
            "抹茶",
            "榴莲",
            "芒果",
        ],
    },
    Topic {
        name: "旅行",
        nouns: &[
            "旅行",
            "攻略",
            "自驾",
            "民宿",
            "酒店",
            "景点",
            "古镇",
            "海边",
            "徒步",
            "机票",
            "签证",
            "行程",
            "洱海",
            "雪山",
            "草原",
            "沙漠",
            "海岛",
            "寺庙",
            "博物馆",
            "夜景",
            "日出",
            "高铁",
            "房车",
            "温泉",
            "滑雪",
            "潜水",
            "冲浪",
        ],
    },
    Topic {
        name: "露营",
        nouns: &[
            "露营",
            "装备",
            "帐篷",
            "天幕",
            "营地",
            "野餐",
            "睡袋",
            "炉具",
            "户外",
            "折叠椅",
            "氛围灯",
            "蛋卷桌",
            "篝火",
            "星空",
            "车顶帐",
            "防潮垫",
            "卡式炉",
            "冷藏箱",
        ],
    },
    Topic {
        name: "数码",
        nouns: &[
            "手机",
            "测评",
            "iPhone",
            "拍照",
            "相机",
            "耳机",
            "电脑",
            "平板",
            "键盘",
            "华为",
            "小米",
            "充电器",
            "手表",
            "笔记本电脑",
            "显示器",
            "鼠标",
            "路由器",
            "无人机",
            "大疆",
            "索尼",
            "镜头",
            "降噪",
            "续航",
            "屏幕",
            "芯片",
            "投影仪",
            "硬盘",
            "音箱",
        ],
    },
    Topic {
        name: "美妆",
        nouns: &[
            "护肤",
            "口红",
            "妆容",
            "粉底液",
            "眼影",
            "防晒",
            "面膜",
            "香水",
            "彩妆",
            "卸妆",
            "精华",
            "面霜",
            "腮红",
            "眉笔",
            "睫毛膏",
            "遮瑕",
            "散粉",
            "发型",
            "美甲",
            "国货",
            "试色",
            "素颜",
            "痘痘",
            "美白",
        ],
    },
    Topic {
        name: "AI",
        nouns: &[
            "AI",
            "绘画",
            "ChatGPT",
            "大模型",
            "Midjourney",
            "提示词",
            "工具",
            "DeepSeek",
            "数字人",
            "AIGC",
            "智能体",
            "写作",
            "编程",
            "效率",
            "自动化",
            "插件",
            "Sora",
            "Kimi",
        ],
    },
    Topic {
        name: "短剧",
        nouns: &[
            "短剧", "霸总", "甜宠", "逆袭", "重生", "赘婿", "追剧", "全集", "剧情", "反转", "古装", "穿越", "战神",
        ],
    },
    Topic {
        name: "健身",
        nouns: &["健身", "减脂", "瑜伽", "跑步", "增肌", "普拉提", "拉伸", "体态", "马拉松", "跳绳", "深蹲", "腹肌"],
    },
    Topic {
        name: "宠物",
        nouns: &["猫咪", "狗狗", "铲屎官", "猫粮", "柯基", "布偶猫", "金毛", "柴犬", "仓鼠", "驱虫", "绝育", "猫砂"],
    },
    Topic {
        name: "家居",
        nouns: &[
            "家居",
            "装修",
            "收纳",
            "租房",
            "改造",
            "厨房",
            "卧室",
            "客厅",
            "软装",
            "沙发",
            "窗帘",
            "绿植",
            "扫地机",
        ],
    },
    Topic {
        name: "职场",
        nouns: &[
            "职场",
            "面试",
            "简历",
            "考研",
            "考公",
            "英语",
            "副业",
            "理财",
            "基金",
            "存钱",
            "读书",
            "笔记",
            "时间管理",
        ],
    },
    Topic {
        name: "穿搭",
        nouns: &[
            "穿搭",
            "显瘦",
            "通勤",
            "大衣",
            "卫衣",
            "牛仔裤",
            "运动鞋",
            "连衣裙",
            "配色",
            "包包",
            "羽绒服",
            "衬衫",
        ],
    },
];

const PLACES: &[&str] = &[
    "成都",
    "重庆",
    "北京",
    "上海",
    "广州",
    "杭州",
    "深圳",
    "西安",
    "长沙",
    "大理",
    "三亚",
    "厦门",
    "青岛",
    "南京",
    "苏州",
    "武汉",
    "昆明",
    "丽江",
    "新疆",
    "云南",
    "西藏",
    "贵州",
    "桂林",
    "哈尔滨",
    "东京",
    "大阪",
    "首尔",
    "曼谷",
    "清迈",
    "新加坡",
    "巴黎",
    "冰岛",
];

const MODIFIERS: &[&str] = &[
    "新手",
    "平价",
    "超详细",
    "保姆级",
    "小众",
    "宝藏",
    "高性价比",
    "周末",
    "学生党",
    "打工人",
    "一人食",
    "懒人",
    "秋冬",
    "夏日",
    "春季",
    "2024",
    "年度",
    "私藏",
    "入门",
    "进阶",
];

const SUFFIXES: &[&str] = &[
    "攻略",
    "教程",
    "测评",
    "推荐",
    "分享",
    "合集",
    "清单",
    "避坑指南",
    "vlog",
    "开箱",
    "技巧",
    "体验",
    "日常",
    "好物",
    "种草",
    "记录",
    "心得",
    "对比",
    "排行榜",
    "干货",
];

const HOOKS: &[&str] = &[
    "看完不踩坑",
    "建议收藏",
    "真的绝了",
    "一次说清楚",
    "附详细清单",
    "亲测有效",
    "后悔没早点知道",
    "评论区见",
    "手把手教你",
    "三分钟学会",
    "不花冤枉钱",
    "第一次尝试",
];

const PERSONAS: &[&str] =
    &["小王", "阿美", "老张", "日记", "研究所", "酱", "同学", "频道", "小队", "不吃香菜", "的日常", "实验室", "君"];

/// Zipf-like pick: index `i` of `n` with weight 1/(i+1).
fn zipf(rng: &mut StdRng, n: usize) -> usize {
    // Inverse of the harmonic CDF, approximated by exp(u·ln(n+1)) − 1.
    let u: f64 = rng.random();
    let i = ((n as f64 + 1.0).ln() * u).exp() - 1.0;
    (i as usize).min(n - 1)
}

fn pick<'a>(rng: &mut StdRng, words: &[&'a str]) -> &'a str {
    words[zipf(rng, words.len())]
}

fn account_id(i: usize) -> String {
    format!("acc{i:07}")
}

/// Accounts and works, deterministic from [`SEED`].
struct Generator {
    rng: StdRng,
    base: DateTime<Utc>,
}

impl Generator {
    fn new() -> Generator {
        Generator { rng: StdRng::seed_from_u64(SEED), base: Utc.with_ymd_and_hms(2023, 1, 1, 0, 0, 0).unwrap() }
    }

    fn topic(&mut self) -> &'static Topic {
        &TOPICS[zipf(&mut self.rng, TOPICS.len())]
    }

    fn account(&mut self, i: usize) -> Account {
        let topic = self.topic();
        let place = if self.rng.random_bool(0.3) { pick(&mut self.rng, PLACES) } else { "" };
        let noun = pick(&mut self.rng, topic.nouns);
        let persona = PERSONAS[self.rng.random_range(0..PERSONAS.len())];
        let fans = (self.rng.random_range(2.0f64..16.0)).exp() as i64;
        Account {
            platform: PLATFORM.into(),
            platform_id: account_id(i),
            nickname: format!("{place}{noun}{persona}"),
            signature: Some(format!("分享{}{}日常｜合作请私信", topic.name, pick(&mut self.rng, topic.nouns))),
            fans: Some(fans),
            category: Some(topic.name.into()),
            avatar: Some(format!("https://img.example.com/avatar/{i}.jpg")),
            ..Account::default()
        }
    }

    /// A work and its one snapshot.
    fn work(&mut self, i: usize, accounts: usize) -> (Work, WorkSnapshot) {
        let rng = &mut self.rng;
        let topic = &TOPICS[zipf(rng, TOPICS.len())];
        let n1 = pick(rng, topic.nouns);
        let n2 = pick(rng, topic.nouns);
        let place = if rng.random_bool(0.4) { pick(rng, PLACES) } else { "" };
        let modifier = if rng.random_bool(0.5) { pick(rng, MODIFIERS) } else { "" };
        let suffix = pick(rng, SUFFIXES);
        let hook = HOOKS[rng.random_range(0..HOOKS.len())];
        let title = match rng.random_range(0..4) {
            0 => format!("{modifier}{place}{n1}{suffix}"),
            1 => format!("{place}{n1}｜{modifier}{n2}{suffix}"),
            2 => format!("{n1}{suffix}：{hook}"),
            _ => format!("{modifier}{n1}和{n2}，{hook}"),
        };
        let n3 = pick(rng, topic.nouns);
        let description =
            format!("{hook}！今天分享{place}{n2}和{n3}的{suffix}，{}", HOOKS[rng.random_range(0..HOOKS.len())]);
        let mut tags = vec![topic.name.to_owned(), n1.to_owned()];
        if n3 != n1 {
            tags.push(n3.to_owned());
        }
        let published = self.base + chrono::Duration::seconds(rng.random_range(0..730 * 86_400));
        let likes = rng.random_range(0.0f64..13.0).exp() as i64;
        let work = Work {
            platform: PLATFORM.into(),
            platform_id: format!("note{i:08}"),
            title,
            description: Some(description),
            author_id: Some(account_id(rng.random_range(0..accounts.max(1)))),
            published_at: Some(published),
            url: Some(format!("https://www.example.com/explore/note{i:08}")),
            work_type: Some(if rng.random_bool(0.3) { "video" } else { "normal" }.into()),
            category: Some(topic.name.into()),
            tags,
            ..Work::default()
        };
        let snapshot = WorkSnapshot {
            captured_at: published + chrono::Duration::days(1),
            likes: Some(likes),
            collects: Some(likes / rng.random_range(2..10)),
            comments: Some(likes / rng.random_range(10..50)),
            shares: Some(likes / rng.random_range(20..100)),
            views: Some(likes * rng.random_range(5..50)),
            ..WorkSnapshot::default()
        };
        (work, snapshot)
    }

    /// A search text of class `class` (see [`CLASSES`]).
    fn query(&mut self, class: usize) -> String {
        // Common: the head of a topic's nouns or a place; rare: the tail.
        let rng = &mut self.rng;
        let topic = &TOPICS[rng.random_range(0..TOPICS.len())];
        let head = topic.nouns.len().min(3);
        let common = |rng: &mut StdRng| {
            if rng.random_bool(0.2) { PLACES[rng.random_range(0..5)] } else { topic.nouns[rng.random_range(0..head)] }
        };
        let rare = |rng: &mut StdRng| topic.nouns[rng.random_range(topic.nouns.len() - 4..topic.nouns.len())];
        match class {
            0 => common(rng).to_owned(),
            1 => {
                let a = common(rng);
                let b = topic.nouns[rng.random_range(0..head)];
                if a == b { format!("{a}{}", SUFFIXES[0]) } else { format!("{a}{b}") }
            }
            2 => rare(rng).to_owned(),
            _ => format!("{}{}", common(rng), rare(rng)),
        }
    }
}

/// Search classes, in [`Generator::query`] order.
const CLASSES: [&str; 4] = ["1 common", "2 common", "1 rare", "common+rare"];

/// What one backend measured.
struct Figures {
    backend: &'static str,
    works: usize,
    rows: usize,
    import: Option<Duration>,
    /// Latencies per class.
    searches: Vec<Vec<Duration>>,
    /// Mean hits per class.
    hits: Vec<f64>,
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.replace('_', "").parse().ok()).unwrap_or(default)
}

/// Writes the synthetic store; returns the rows written.
async fn import(store: &dyn ContentStore, works: usize) -> StoreResult<usize> {
    let accounts = works.div_ceil(10);
    let mut generator = Generator::new();
    let mut batch = Vec::with_capacity(BATCH);
    let mut rows = 0;
    let started = Instant::now();
    for i in 0..accounts {
        batch.push(Record::Account(generator.account(i)));
        if batch.len() == BATCH {
            rows += flush(store, &mut batch).await?;
        }
    }
    for i in 0..works {
        let (work, snapshot) = generator.work(i, accounts);
        let platform_id = work.platform_id.clone();
        batch.push(Record::Work(work));
        batch.push(Record::WorkSnapshot { platform: PLATFORM.into(), platform_id, snapshot });
        if batch.len() >= BATCH {
            rows += flush(store, &mut batch).await?;
        }
        if (i + 1) % 100_000 == 0 {
            eprintln!("  {} works written, {:.0} s", i + 1, started.elapsed().as_secs_f64());
        }
    }
    rows += flush(store, &mut batch).await?;
    Ok(rows)
}

/// Writes a batch and empties it; returns its length. A refused record
/// is a bug of the generator.
async fn flush(store: &dyn ContentStore, batch: &mut Vec<Record>) -> StoreResult<usize> {
    let outcomes = store.write(batch).await?;
    if let Some(Err(e)) = outcomes.into_iter().find(Result::is_err) {
        panic!("a generated record was refused: {e}");
    }
    let n = batch.len();
    batch.clear();
    Ok(n)
}

/// Runs the searches; latencies and mean hits per class.
async fn search(store: &dyn ContentStore, count: usize) -> StoreResult<(Vec<Vec<Duration>>, Vec<f64>)> {
    let mut generator = Generator { rng: StdRng::seed_from_u64(SEED + 1), ..Generator::new() };
    let queries: Vec<(usize, String)> =
        (0..count).map(|i| (i % CLASSES.len(), generator.query(i % CLASSES.len()))).collect();
    // Warm the caches with a few queries that are not measured.
    for (_, text) in queries.iter().take(20) {
        store.find_works(&query(text)).await?;
    }
    let mut latencies = vec![Vec::new(); CLASSES.len()];
    let mut hits = vec![0u64; CLASSES.len()];
    for (class, text) in &queries {
        let started = Instant::now();
        let page = store.find_works(&query(text)).await?;
        latencies[*class].push(started.elapsed());
        hits[*class] += page.total;
    }
    let means = hits.iter().zip(&latencies).map(|(h, l)| *h as f64 / l.len().max(1) as f64).collect();
    Ok((latencies, means))
}

fn query(text: &str) -> WorkQuery {
    WorkQuery { platform: PLATFORM.into(), text: Some(text.into()), page: 1, page_size: 20, ..WorkQuery::default() }
}

/// Imports unless the store holds works, runs `settle` (PostgreSQL:
/// `ANALYZE`), then searches.
async fn run(
    backend: &'static str,
    store: &dyn ContentStore,
    works: usize,
    searches: usize,
    settle: impl AsyncFnOnce(),
) -> Figures {
    let existing = store.counts().await.expect("counts").works as usize;
    let (import, rows) = if existing == 0 {
        eprintln!("{backend}: importing {works} works");
        let started = Instant::now();
        let rows = import(store, works).await.expect("import");
        (Some(started.elapsed()), rows)
    } else {
        eprintln!("{backend}: reusing a store of {existing} works");
        (None, 0)
    };
    settle().await;
    let works = store.counts().await.expect("counts").works as usize;
    eprintln!("{backend}: {searches} searches");
    let (searches, hits) = search(store, searches).await.expect("search");
    Figures { backend, works, rows, import, searches, hits }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

fn print(figures: &[Figures]) {
    println!();
    println!(
        "| backend | works | import rows | import rows/s | search class | searches | mean hits | p50 ms | p99 ms |"
    );
    println!("|---|---:|---:|---:|---|---:|---:|---:|---:|");
    for f in figures {
        let rate = f.import.map_or("reused".to_owned(), |d| format!("{:.0}", f.rows as f64 / d.as_secs_f64()));
        let mut all: Vec<Duration> = f.searches.iter().flatten().copied().collect();
        all.sort();
        let mut lines = vec![("all".to_owned(), all, f.hits.iter().sum::<f64>() / f.hits.len() as f64)];
        for (i, name) in CLASSES.iter().enumerate() {
            let mut class = f.searches[i].clone();
            class.sort();
            lines.push((name.to_string(), class, f.hits[i]));
        }
        for (name, sorted, hits) in lines {
            println!(
                "| {} | {} | {} | {rate} | {name} | {} | {hits:.0} | {:.2} | {:.2} |",
                f.backend,
                f.works,
                f.rows,
                sorted.len(),
                percentile(&sorted, 0.50),
                percentile(&sorted, 0.99)
            );
        }
    }
}

fn database_url() -> String {
    std::env::var("MEDIAOPS_TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into())
}

async fn bench_sqlite(works: usize, searches: usize) -> Figures {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = std::env::var("STORE_BENCH_SQLITE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| dir.path().join("store.sqlite"));
    let store = SqliteStore::open(&path).await.expect("open SQLite");
    run("sqlite", &store, works, searches, async || {}).await
}

async fn bench_postgres(works: usize, searches: usize) -> Figures {
    let kept = std::env::var("STORE_BENCH_PG_SCHEMA").ok();
    let schema = kept.clone().unwrap_or_else(|| format!("store_bench_{}", uuid::Uuid::new_v4().simple()));
    let mut conn = PgConnection::connect(&database_url()).await.expect("PostgreSQL");
    sqlx::query(&format!("CREATE SCHEMA IF NOT EXISTS {schema}")).execute(&mut conn).await.expect("create schema");
    let options = PgConnectOptions::from_str(&database_url()).expect("URL").options([("search_path", &schema)]);
    let store = PostgresStore::open_with(options).await.expect("open PostgreSQL");
    // What autovacuum does after a bulk load; the test server runs without
    // it, and without statistics the planner intersects the full-text
    // index with the whole platform's index (10× slower for a rare term).
    let analyze = format!("ANALYZE {schema}.works, {schema}.work_snapshots, {schema}.accounts");
    let settle = async || {
        sqlx::query(&analyze).execute(&mut conn).await.expect("analyze");
    };
    let figures = run("postgres", &store, works, searches, settle).await;
    drop(store);
    if kept.is_none() {
        sqlx::query(&format!("DROP SCHEMA {schema} CASCADE")).execute(&mut conn).await.expect("drop schema");
    }
    figures
}

#[tokio::main]
async fn main() {
    let works = env_usize("STORE_BENCH_WORKS", 1_000_000);
    let searches = env_usize("STORE_BENCH_SEARCHES", 1_000);
    let backends = std::env::var("STORE_BENCH_BACKENDS").unwrap_or_else(|_| "sqlite,postgres".into());
    let mut figures = Vec::new();
    if backends.contains("sqlite") {
        figures.push(bench_sqlite(works, searches).await);
    }
    if backends.contains("postgres") {
        figures.push(bench_postgres(works, searches).await);
    }
    print(&figures);
}
