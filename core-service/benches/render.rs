//! Render throughput (spec 4.15 render) over the real Markdown documents of
//! `../shared/data/markdown/`: the whole pipeline (parse, highlight,
//! sanitize, inline the theme's CSS) and each stage alone, so a change can
//! be traced to its stage. One iteration renders every document once;
//! criterion's throughput line is the Markdown bytes per second, and docs/s
//! is the document count divided by the iteration time. A variant without
//! code highlighting does the work of the Node pipeline (marked + juice),
//! which does not highlight.
//!
//! Run: `cargo bench -p core-service --bench render`. The Node comparison
//! (marked + juice on the same files) is described in docs/articles.md.
#![allow(clippy::unwrap_used)] // a failed unwrap in a bench is a failed run
use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_main};
use mediaops_ops::articles::render::highlight::code_theme;
use mediaops_ops::articles::render::warnings::Warnings;
use mediaops_ops::articles::render::{Look, inline_styles, markdown, render, sanitize};
use mediaops_ops::articles::themes::builtin;

fn documents() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/markdown");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    paths.sort();
    paths.iter().map(|path| std::fs::read_to_string(path).unwrap()).collect()
}

fn look(id: &str) -> Look<'static> {
    let theme = builtin::find(id).unwrap();
    Look { css: theme.full_css(), code_theme: code_theme(theme.code_theme) }
}

fn bench(c: &mut Criterion) {
    let documents = documents();
    let bytes: usize = documents.iter().map(String::len).sum();
    eprintln!("{} documents, {bytes} bytes of Markdown per iteration", documents.len());
    let mut group = c.benchmark_group("render");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(30);

    for theme in ["neutral", "tech"] {
        let look = look(theme);
        group.bench_function(format!("full pipeline, {theme}"), |b| {
            b.iter(|| {
                for markdown in &documents {
                    black_box(render(black_box(markdown), Some("标题"), look).unwrap());
                }
            })
        });
    }

    // The same documents with the fences' languages removed: code is
    // escaped but not highlighted, which is the work marked + juice do.
    let unhighlighted: Vec<String> = documents.iter().map(|md| without_fence_languages(md)).collect();
    let look = look("neutral");
    group.bench_function("full pipeline, neutral, code not highlighted", |b| {
        b.iter(|| {
            for markdown in &unhighlighted {
                black_box(render(black_box(markdown), Some("标题"), look).unwrap());
            }
        })
    });
    group.bench_function("stage: markdown + highlight", |b| {
        b.iter(|| {
            for markdown in &documents {
                let mut warnings = Warnings::default();
                black_box(markdown::to_html(black_box(markdown), None, look.code_theme, &mut warnings).ok());
            }
        })
    });
    let html: Vec<String> = documents
        .iter()
        .map(|md| markdown::to_html(md, None, look.code_theme, &mut Warnings::default()).ok().unwrap().html)
        .collect();
    group.bench_function("stage: sanitize", |b| {
        b.iter(|| {
            for page in &html {
                black_box(sanitize::sanitize(black_box(page)));
            }
        })
    });
    let clean: Vec<String> = html.iter().map(|page| sanitize::sanitize(page)).collect();
    group.bench_function("stage: inline styles", |b| {
        b.iter(|| {
            for page in &clean {
                black_box(inline_styles::inline(black_box(page), look.css).unwrap());
            }
        })
    });
    group.finish();
}

/// `markdown` with every fence's info string removed (```` ```rust ```` → ```` ``` ````).
fn without_fence_languages(markdown: &str) -> String {
    markdown
        .lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let fence = if trimmed.starts_with("```") {
                "```"
            } else if trimmed.starts_with("~~~") {
                "~~~"
            } else {
                ""
            };
            if fence.is_empty() { line.to_owned() } else { format!("{}{fence}", &line[..line.len() - trimmed.len()]) }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

// `criterion_group!` writes a `pub fn`; inside a private module it is not
// part of the bench crate's public items, so it needs no doc comment.
mod group {
    criterion::criterion_group!(benches, super::bench);
}
criterion_main!(group::benches);
