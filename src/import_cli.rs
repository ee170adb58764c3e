//! `mediaops import <format> <path>…`: reads files into the content store
//! the service is configured with (PostgreSQL at `MEDIAOPS_DATABASE_URL`,
//! else `<MEDIAOPS_DATA_DIR>/store.sqlite`), with a progress bar on stderr
//! and a JSON report on stdout: files, rows read, written, rejected with
//! reasons, the same per format (`formats`), the files not imported with
//! the reason (`skipped`), the rows per table before and after
//! (docs/store.md), and what the ranking-board builder then built
//! (`boards`; `--no-boards` skips it). Directories are searched
//! recursively, in name order, for the format's extensions: `.jsonl`
//! (jsonl), `.json`/`.jsonl`/`.csv` (mediacrawler), `.json`
//! (bilibili-popular, hotlists, vendor-replies, the JSON recipes), `.csv`
//! (the CSV recipes); `auto` takes every file and recognises its format by
//! its content (docs/data-sources.md). An import that writes nothing (no
//! file of the format found, or every row rejected) exits non-zero, with a
//! message saying what was expected, after printing its report.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser};
use core_service::CoreSettings;
use mediaops::imports::{Reader, auto, recipe, vendor_replies};
use mediaops_store::import::{self, ImportReport, mediacrawler};

/// The formats on the command line: the store's, the hot-list archive,
/// every import recipe, recorded vendor replies, and `auto`.
fn formats() -> Vec<PossibleValue> {
    let mut values = vec![
        PossibleValue::new("auto").help("Every file under the paths, each format recognised by its content"),
        PossibleValue::new("jsonl").help("Our own schema: one record a line, `{\"type\": \"work\", …}`"),
        PossibleValue::new("mediacrawler")
            .help("MediaCrawler exports (json, jsonl, csv) of xhs, douyin, kuaishou, bilibili and weibo"),
        PossibleValue::new("bilibili-popular").help("Archived Bilibili popular-feed replies, `<YYYY-MM-DD>/list.json`"),
        PossibleValue::new("hotlists")
            .help("Archived hot-list snapshots laid out as `shared/data/hotlists/` (docs/hotlists.md)"),
        PossibleValue::new("vendor-replies")
            .help("Recorded replies of a vendor (`--pack`), written through its mappings' `store` filters"),
    ];
    values.extend(recipe::RECIPE_FILES.iter().map(|(name, _)| {
        let help = recipe::recipe(name).map(|r| r.description.clone()).unwrap_or_default();
        PossibleValue::new(*name).help(help)
    }));
    values
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
    #[arg(value_parser = PossibleValuesParser::new(formats()))]
    format: String,
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
    /// vendor-replies: the vendor pack whose mappings read the replies
    /// (`tikhub`, `justoneapi`; docs/vendors.md).
    #[arg(long)]
    pack: Option<String>,
    /// Do not build the ranking boards the import changed (a later run of
    /// a core's builder or `mediaops boards rebuild` will).
    #[arg(long)]
    no_boards: bool,
}

impl ImportArgs {
    /// What a file of this format holds, for the message of an import
    /// that wrote nothing.
    fn expected(&self) -> String {
        match self.format.as_str() {
            "auto" => "files of a format docs/data-sources.md lists".into(),
            "jsonl" => "one JSON record a line with a known \"type\" (docs/store.md \"jsonl\")".into(),
            "mediacrawler" => "MediaCrawler contents, comments or creators exports (docs/store.md)".into(),
            "bilibili-popular" => "Bilibili popular-feed replies, <YYYY-MM-DD>/list.json (docs/store.md)".into(),
            "hotlists" => "hot-list snapshots laid out as shared/data/hotlists/ (docs/hotlists.md)".into(),
            "vendor-replies" => {
                "recorded replies of routes the pack's mappings write back (docs/data-sources.md)".into()
            }
            name => recipe::recipe(name).map(|r| r.description.clone()).unwrap_or_default(),
        }
    }

    /// The reader of a single-format import.
    fn reader(&self) -> anyhow::Result<Reader> {
        let hint = mediacrawler::Hint { platform: self.platform, kind: self.kind };
        anyhow::ensure!(
            self.format == "mediacrawler" || hint == mediacrawler::Hint::default(),
            "--platform and --kind are for the mediacrawler format"
        );
        anyhow::ensure!(
            (self.format == "vendor-replies") == self.pack.is_some(),
            "--pack is required by the vendor-replies format and only by it"
        );
        Ok(match self.format.as_str() {
            "jsonl" => Reader::Store(import::Format::Jsonl),
            "mediacrawler" => Reader::Store(import::Format::Mediacrawler(hint)),
            "bilibili-popular" => Reader::Store(import::Format::BilibiliPopular),
            "hotlists" => Reader::Hotlists,
            "vendor-replies" => Reader::Vendor(
                vendor_replies::pack(self.pack.as_deref().unwrap_or_default()).map_err(anyhow::Error::msg)?,
            ),
            name => Reader::Recipe(recipe::recipe(name).map_err(anyhow::Error::msg)?),
        })
    }

    /// The files to import with their readers, and those left out.
    fn plan(&self) -> anyhow::Result<auto::Plan> {
        if self.format == "auto" {
            anyhow::ensure!(self.pack.is_none(), "--pack is required by the vendor-replies format and only by it");
            let plan = auto::plan(&self.paths).map_err(anyhow::Error::msg)?;
            if let (true, Some(first)) = (plan.0.is_empty(), plan.1.first()) {
                anyhow::bail!(
                    "no file of a known format found in {} ({} files skipped; {}: {})",
                    path_list(&self.paths),
                    plan.1.len(),
                    first.file,
                    first.reason
                );
            }
            anyhow::ensure!(!plan.0.is_empty(), "no file found in {}", path_list(&self.paths));
            return Ok(plan);
        }
        let reader = self.reader()?;
        let files = import::collect_files(&self.paths, reader.extensions()).map_err(anyhow::Error::msg)?;
        anyhow::ensure!(!files.is_empty(), "no {} files found in {}", extension_list(&reader), path_list(&self.paths));
        let (mut readers, mut skipped) = (Vec::new(), Vec::new());
        for file in files {
            // A reply no mapping writes back is listed, not refused.
            match reader {
                Reader::Vendor(pack) => match pack.plan(&file) {
                    Ok(_) => readers.push((file, reader)),
                    Err(reason) => skipped.push(auto::Skipped { file: file.display().to_string(), reason }),
                },
                _ => readers.push((file, reader)),
            }
        }
        Ok((readers, skipped))
    }
}

/// One format's figures in the report.
#[derive(Default, serde::Serialize)]
struct FormatReport {
    files: u64,
    read: u64,
    written: u64,
    rejected: usize,
    rejections: Vec<import::Rejected>,
}

pub async fn import(settings: &CoreSettings, args: ImportArgs) -> anyhow::Result<()> {
    let (files, skipped) = args.plan()?;
    let store = mediaops_store::open(settings.database_url.as_deref(), &settings.data_dir).await?;
    let before = store.counts().await?;
    let total: u64 = files.iter().map(|(f, format)| format.count_rows(f)).sum();
    let bar = crate::progress::rows(total);
    let mut report = ImportReport::default();
    let mut by_format: BTreeMap<String, FormatReport> = BTreeMap::new();
    for (file, format) in &files {
        bar.set_message(file.display().to_string());
        let one = format.import_file(store.as_ref(), file, &mut || bar.inc(1)).await;
        add_to(by_format.entry(format.name()).or_default(), &one);
        report.merge(one);
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
        "formats": by_format,
        "skipped": skipped,
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

/// Adds one file's report to its format's figures.
fn add_to(figures: &mut FormatReport, one: &ImportReport) {
    figures.files += one.files;
    figures.read += one.read;
    figures.written += one.written;
    figures.rejected += one.rejected.len();
    figures.rejections.extend(one.rejected.iter().cloned());
}

/// `.a` / `.a, .b` for the message of an import that found no file.
fn extension_list(format: &Reader) -> String {
    format.extensions().iter().map(|e| format!(".{e}")).collect::<Vec<_>>().join(", ")
}

/// The paths an import searched, for its messages.
fn path_list(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}
