//! `mediaops import <format> <path>…`: reads files into the content store
//! the service is configured with (PostgreSQL at `MEDIAOPS_DATABASE_URL`,
//! else `<MEDIAOPS_DATA_DIR>/store.sqlite`), with a progress bar on stderr
//! and a JSON report on stdout: files, rows read, written, rejected with
//! reasons, and the rows per table before and after (docs/store.md).
//! Directories are searched recursively for `*.json` files, in name order.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use core_service::CoreSettings;
use core_service::store::import::{ImportReport, bilibili_popular};

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// Archived Bilibili popular-feed replies, `<YYYY-MM-DD>/list.json`.
    BilibiliPopular,
}

#[derive(Args)]
pub struct ImportArgs {
    format: Format,
    /// Files, or directories to search for `*.json`.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// The files named by `paths`, directories expanded, in a stable order.
fn files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for path in paths {
        anyhow::ensure!(path.exists(), "{} does not exist", path.display());
        if path.is_dir() { walk(path, &mut out)? } else { out.push(path.clone()) }
    }
    Ok(out)
}

pub async fn import(settings: &CoreSettings, args: ImportArgs) -> anyhow::Result<()> {
    let files = files(&args.paths)?;
    let store = core_service::store::open(settings.database_url.as_deref(), &settings.data_dir).await?;
    let before = store.counts().await?;
    let total: u64 = match args.format {
        Format::BilibiliPopular => files.iter().map(|f| bilibili_popular::count_rows(f).unwrap_or(0)).sum(),
    };
    let bar = indicatif::ProgressBar::new(total).with_style(
        indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} rows ({per_sec}, {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let mut report = ImportReport::default();
    for file in &files {
        bar.set_message(file.display().to_string());
        let done = match args.format {
            Format::BilibiliPopular => bilibili_popular::import_file(store.as_ref(), file, &mut || bar.inc(1)).await,
        };
        report.merge(done);
    }
    bar.finish_and_clear();
    let after = store.counts().await?;
    let out = serde_json::json!({
        "store": store.backend(),
        "files": report.files,
        "read": report.read,
        "written": report.written,
        "rejected": report.rejected.len(),
        "rejections": report.rejected,
        "countsBefore": before,
        "countsAfter": after,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
