//! Banned-word check throughput (docs/banned-words.md "Performance").
//!
//! The text: every Markdown document of `../shared/data/markdown/` and the
//! hot-list titles of `../shared/data/hotlists/` (one per line), with a
//! lexicon word sprinkled into every seventh line, some of them written with
//! separators or in full width. About 1 MB of mostly Chinese text.
//!
//! - `scan/full-lexicon`: normalize + Aho-Corasick + offsets, over every
//!   built-in list at once (common, all four platform lists, allow phrases);
//! - `check/lifestyle-100k-chars`: what one call does for platform
//!   `lifestyle` without the transport, on the first 100 000 characters (the
//!   most one call accepts): the scan plus the spec 2.6 result (escaped
//!   HTML, raw hits).
//!
//! `BANNED_WORDS_BENCH_DUMP=<dir>` also writes `text.txt` and `words.txt` (the
//! normalized words and phrases of the full lexicon, one per line) for the
//! pyahocorasick comparison (`benches/banned_words_pyahocorasick.py`).
#![allow(clippy::unwrap_used)] // a failed unwrap in a bench is a failed run
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_main};
use mediaops_ops::banned_words::lexicon::Lexicon;
use mediaops_ops::banned_words::matcher::{AllowScope, Matcher, scan};
use mediaops_ops::banned_words::normalize::normalize_word;
use mediaops_ops::banned_words::platform::Platform;
use mediaops_ops::banned_words::{base_matcher, result};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")
}

fn hotlist_titles() -> Vec<String> {
    let mut titles = Vec::new();
    for platform in ["douyin", "bilibili", "kuaishou", "toutiao"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(data_dir().join("hotlists").join(platform))
            .expect("hot lists")
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for file in files {
            let items: Vec<serde_json::Value> = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
            for item in items {
                if let Some(title) = item.get("title").or_else(|| item.get("Title")).and_then(|t| t.as_str()) {
                    titles.push(title.to_owned());
                }
            }
        }
    }
    titles
}

fn corpus(lexicon: &Lexicon) -> String {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(data_dir().join("markdown"))
        .expect("markdown documents")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    let mut lines: Vec<String> = Vec::new();
    for doc in docs {
        lines.extend(std::fs::read_to_string(doc).unwrap().lines().map(str::to_owned));
    }
    lines.extend(hotlist_titles());

    let words: Vec<&str> =
        lexicon.common.iter().chain(lexicon.platforms.iter().flatten()).map(|e| e.word.as_str()).collect();
    let mut text = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i % 7 == 3 {
            let word = words[(i / 7) % words.len()];
            let written: String = match (i / 7) % 3 {
                0 => word.to_owned(),
                1 => word.chars().map(String::from).collect::<Vec<_>>().join(" "),
                _ => word
                    .chars()
                    .map(|c| if c.is_ascii_graphic() { char::from_u32(c as u32 + 0xFEE0).unwrap() } else { c })
                    .collect(),
            };
            let middle = line.char_indices().nth(line.chars().count() / 2).map_or(line.len(), |(b, _)| b);
            text.push_str(&line[..middle]);
            text.push_str(&written);
            text.push_str(&line[middle..]);
        } else {
            text.push_str(line);
        }
        text.push('\n');
    }
    text
}

fn full_lexicon_words(lexicon: &Lexicon) -> Vec<String> {
    let mut words: Vec<String> = lexicon
        .common
        .iter()
        .chain(lexicon.platforms.iter().flatten())
        .map(|e| normalize_word(&e.word))
        .chain(lexicon.allow.iter().map(|p| normalize_word(p)))
        .collect();
    let mut seen = std::collections::HashSet::new();
    words.retain(|w| seen.insert(w.clone()));
    words
}

fn bench(c: &mut Criterion) {
    let lexicon = Lexicon::builtin().unwrap();
    let text = corpus(lexicon);
    let full = Matcher::build(
        lexicon.common.iter().chain(lexicon.platforms.iter().flatten()).cloned(),
        lexicon.allow.iter().map(|p| (p.as_str(), AllowScope::Builtin)),
    )
    .unwrap();
    let hits = scan(&text, &full);
    println!(
        "text: {} bytes, {} chars, {} lines; lexicon: {} distinct words and phrases; {} hits",
        text.len(),
        text.chars().count(),
        text.lines().count(),
        full.len(),
        hits.len()
    );
    if let Ok(dir) = std::env::var("BANNED_WORDS_BENCH_DUMP") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("text.txt"), &text).unwrap();
        std::fs::write(dir.join("words.txt"), full_lexicon_words(lexicon).join("\n") + "\n").unwrap();
        println!("wrote {}/text.txt and words.txt", dir.display());
    }

    // Best and median of 50 plain runs, comparable with the figures the
    // pyahocorasick script prints (the best is the least disturbed by other
    // load on the machine).
    let mut runs: Vec<f64> = (0..50)
        .map(|_| {
            let started = std::time::Instant::now();
            std::hint::black_box(scan(std::hint::black_box(&text), &full));
            started.elapsed().as_secs_f64()
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    let megabytes = text.len() as f64 / 1e6;
    println!(
        "scan/full-lexicon: best {:.2} ms ({:.1} MB/s), median {:.2} ms ({:.1} MB/s)",
        runs[0] * 1e3,
        megabytes / runs[0],
        runs[25] * 1e3,
        megabytes / runs[25]
    );

    let mut group = c.benchmark_group("banned_words");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(30);
    group.bench_function("scan/full-lexicon", |b| b.iter(|| scan(std::hint::black_box(&text), &full)));
    group.finish();

    let lifestyle = base_matcher(Platform::Lifestyle).unwrap();
    let limit = text.char_indices().nth(mediaops_ops::banned_words::MAX_CONTENT_CHARS).map_or(text.len(), |(b, _)| b);
    let one_call = &text[..limit];
    println!(
        "one call: {} bytes, {} chars, {} hits on lifestyle",
        one_call.len(),
        one_call.chars().count(),
        scan(one_call, lifestyle).len()
    );
    let mut group = c.benchmark_group("banned_words_one_call");
    group.throughput(Throughput::Bytes(one_call.len() as u64));
    group.sample_size(30);
    group.bench_function("check/lifestyle-100k-chars", |b| {
        b.iter(|| {
            let hits = scan(std::hint::black_box(one_call), lifestyle);
            result::build(one_call, &hits, Platform::Lifestyle, &lexicon.version)
        })
    });
    group.finish();
}

// `criterion_group!` writes a `pub fn`; inside a private module it is not
// part of the bench crate's public items, so it needs no doc comment.
mod group {
    criterion::criterion_group!(benches, super::bench);
}
criterion_main!(group::benches);
