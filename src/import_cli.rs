//! `mediaops import <format> <path>…`: reads files into the content store
//! the service is configured with (PostgreSQL at `MEDIAOPS_DATABASE_URL`,
//! else `<MEDIAOPS_DATA_DIR>/store.sqlite`), with a progress bar on stderr
//! and a JSON report on stdout: files, rows read, written, rejected with
//! reasons, the rows per table before and after (docs/store.md), and what
//! the ranking-board builder then built (`boards`; `--no-boards` skips it).
//! Directories are searched recursively, in name order, for the format's
//! extensions: `.jsonl` (jsonl), `.json`/`.jsonl`/`.csv` (mediacrawler),
//! `.json` (bilibili-popular, hotlists). An import that writes nothing (no
//! file of the format found, or every row rejected) exits non-zero, with a
//! message saying what was expected, after printing its report.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use core_service::CoreSettings;
use core_service::hotlists::archive;
use core_service::store::ContentStore;
use core_service::store::import::{self, ImportReport, mediacrawler};

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// Our own schema: one record a line, `{"type": "work", …}`.
    Jsonl,
    /// MediaCrawler exports (json, jsonl, csv) of xhs, douyin, kuaishou,
    /// bilibili and weibo contents, comments and creators.
    Mediacrawler,
    /// Archived Bilibili popular-feed replies, `<YYYY-MM-DD>/list.json`.
    BilibiliPopular,
    /// Archived hot-list snapshots laid out as `shared/data/hotlists/`
    /// (`weibo/<date>/<HH>.json`, `zhihu/hot-question-<date>.json`, …;
    /// docs/hotlists.md).
    Hotlists,
}

/// What reads the files: a store import format, or the hot-list archive.
enum Reader {
    Store(import::Format),
    Hotlists,
}

impl Reader {
    fn extensions(&self) -> &'static [&'static str] {
        match self {
            Reader::Store(format) => format.extensions(),
            Reader::Hotlists => &["json"],
        }
    }

    fn count_rows(&self, path: &Path) -> u64 {
        match self {
            Reader::Store(format) => format.count_rows(path).unwrap_or(0),
            Reader::Hotlists => archive::count_rows(path),
        }
    }

    async fn import_file(&self, store: &dyn ContentStore, path: &Path, on_row: &mut dyn FnMut()) -> ImportReport {
        match self {
            Reader::Store(format) => format.import_file(store, path, on_row).await,
            Reader::Hotlists => archive::import_file(store, path, on_row).await,
        }
    }
}

fn platform(name: &str) -> Result<mediacrawler::Platform, String> {
    mediacrawler::Platform::from_name(name)
        .ok_or_else(|| "one of xhs, douyin (dy), kuaishou (ks), bilibili (bili), weibo (wb)".to_owned())
}

fn kind(name: &str) -> Result<mediacrawler::Kind, String> {
    mediacrawler::Kind::from_name(name).ok_or_else(|| "one of contents, comments, creators".to_owned())
}

#[derive(Args)]
pub struct ImportArgs {
    /// What the files hold.
    format: Format,
    /// Files, or directories to search for the format's files.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// mediacrawler: the platform of every file, instead of the one its
    /// path names (`data/<platform>/…`).
    #[arg(long, value_parser = platform)]
    platform: Option<mediacrawler::Platform>,
    /// mediacrawler: what every file holds, instead of what its name says
    /// (`…_<kind>_<date>.json`).
    #[arg(long, value_parser = kind)]
    kind: Option<mediacrawler::Kind>,
    /// Do not build the ranking boards the import changed (a later run of
    /// a core's builder or `mediaops boards rebuild` will).
    #[arg(long)]
    no_boards: bool,
}

impl ImportArgs {
    /// What a file of this format holds, for the message of an import
    /// that wrote nothing.
    fn expected(&self) -> &'static str {
        match self.format {
            Format::Jsonl => "one JSON record a line with a known \"type\" (docs/store.md \"jsonl\")",
            Format::Mediacrawler => "MediaCrawler contents, comments or creators exports (docs/store.md)",
            Format::BilibiliPopular => "Bilibili popular-feed replies, <YYYY-MM-DD>/list.json (docs/store.md)",
            Format::Hotlists => "hot-list snapshots laid out as shared/data/hotlists/ (docs/hotlists.md)",
        }
    }

    fn format(&self) -> anyhow::Result<Reader> {
        let hint = mediacrawler::Hint { platform: self.platform, kind: self.kind };
        let format = match self.format {
            Format::Jsonl => Reader::Store(import::Format::Jsonl),
            Format::Mediacrawler => Reader::Store(import::Format::Mediacrawler(hint)),
            Format::BilibiliPopular => Reader::Store(import::Format::BilibiliPopular),
            Format::Hotlists => Reader::Hotlists,
        };
        anyhow::ensure!(
            matches!(format, Reader::Store(import::Format::Mediacrawler(_))) || hint == mediacrawler::Hint::default(),
            "--platform and --kind are for the mediacrawler format"
        );
        Ok(format)
    }
}

pub async fn import(settings: &CoreSettings, args: ImportArgs) -> anyhow::Result<()> {
    let format = args.format()?;
    let files = import::collect_files(&args.paths, format.extensions()).map_err(anyhow::Error::msg)?;
    anyhow::ensure!(!files.is_empty(), "no {} files found in {}", extension_list(&format), path_list(&args.paths));
    let store = core_service::store::open(settings.database_url.as_deref(), &settings.data_dir).await?;
    let before = store.counts().await?;
    let total: u64 = files.iter().map(|f| format.count_rows(f)).sum();
    let bar = crate::progress::rows(total);
    let mut report = ImportReport::default();
    for file in &files {
        bar.set_message(file.display().to_string());
        report.merge(format.import_file(store.as_ref(), file, &mut || bar.inc(1)).await);
    }
    bar.finish_and_clear();
    let after = store.counts().await?;
    // The boards of the days the import changed (docs/rankings.md "Boards as data").
    let boards = match report.written > 0 && !args.no_boards {
        true => Some(crate::boards_cli::run(settings, store.clone(), None).await?),
        false => None,
    };
    let out = serde_json::json!({
        "store": store.backend(),
        "files": report.files,
        "read": report.read,
        "written": report.written,
        "rejected": report.rejected.len(),
        "rejections": report.rejected,
        "countsBefore": before,
        "countsAfter": after,
        "boards": boards,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    anyhow::ensure!(
        report.written > 0,
        "nothing written: {} rows read from {} files, {} rejected (see \"rejections\"); expected {}",
        report.read,
        report.files,
        report.rejected.len(),
        args.expected()
    );
    Ok(())
}

/// `.a` / `.a, .b` for the message of an import that found no file.
fn extension_list(format: &Reader) -> String {
    format.extensions().iter().map(|e| format!(".{e}")).collect::<Vec<_>>().join(", ")
}

/// The paths an import searched, for its messages.
fn path_list(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}
