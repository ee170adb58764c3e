//! The built-in banned-word lexicon: tab-separated data files under
//! `ops/lexicon/` (format and sources in docs/banned-words.md),
//! compiled into the binary.
//!
//! - `categories.tsv`: `category, description`: the closed set of categories.
//! - `common/*.tsv`: `word, category, rule, suggestion`: checked on every
//!   platform.
//! - `platforms/<name>.tsv`: same columns: the extra list of one platform.
//! - `allow.tsv`: `phrase, note`: hits inside these phrases are not reported.
//!
//! Lines starting with `#` and blank lines are ignored; the first other line
//! is the header and must name the columns exactly. `rule` and `suggestion`
//! may be empty. Every word must keep at least one character after
//! normalization, and no word may appear twice in one scope.

use std::collections::HashSet;
use std::sync::{Arc, LazyLock};

use anyhow::{Context, bail, ensure};
use sha2::{Digest, Sha256};

use super::normalize::normalize_word;
use super::platform::Platform;

/// Longest word or phrase a matcher takes, in normalized characters.
pub const MAX_PATTERN_CHARS: usize = 63;

/// One lexicon entry: a word and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The word as written in the list (reported as `word`).
    pub word: String,
    /// One of the categories of `categories.tsv`.
    pub category: String,
    /// The rule it comes from, e.g. `广告法第九条第三项`.
    pub rule: Option<String>,
    /// A suggested replacement or fix.
    pub suggestion: Option<String>,
    /// Which list it comes from: `common`, `platform` or `account`.
    pub list: &'static str,
}

/// A category and its description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Category {
    /// The category's name, e.g. `广告法极限词`.
    pub name: String,
    /// What its words are, for the report.
    pub description: String,
}

/// The category of words an operator adds without naming one.
pub const CUSTOM_CATEGORY: &str = "自定义";

/// The parsed built-in lexicon.
#[derive(Debug)]
pub struct Lexicon {
    /// Every category, in file order.
    pub categories: Vec<Category>,
    /// Entries of `common/*.tsv`, in file order.
    pub common: Vec<Arc<Entry>>,
    /// Extra entries per platform, indexed by [`Platform::index`].
    pub platforms: [Vec<Arc<Entry>>; 4],
    /// Built-in allow phrases.
    pub allow: Vec<String>,
    /// `builtin.<first 8 hex digits of the SHA-256 of every file>`.
    pub version: String,
}

const CATEGORIES: (&str, &str) = ("categories.tsv", include_str!("../../lexicon/categories.tsv"));
const COMMON: [(&str, &str); 7] = [
    ("common/absolute.tsv", include_str!("../../lexicon/common/absolute.tsv")),
    ("common/authority.tsv", include_str!("../../lexicon/common/authority.tsv")),
    ("common/medical.tsv", include_str!("../../lexicon/common/medical.tsv")),
    ("common/finance.tsv", include_str!("../../lexicon/common/finance.tsv")),
    ("common/education.tsv", include_str!("../../lexicon/common/education.tsv")),
    ("common/vulgar.tsv", include_str!("../../lexicon/common/vulgar.tsv")),
    ("common/superstition.tsv", include_str!("../../lexicon/common/superstition.tsv")),
];
/// In [`Platform::ALL`] order.
const PLATFORMS: [(&str, &str); 4] = [
    ("platforms/articles.tsv", include_str!("../../lexicon/platforms/articles.tsv")),
    ("platforms/shortvideo.tsv", include_str!("../../lexicon/platforms/shortvideo.tsv")),
    ("platforms/lifestyle.tsv", include_str!("../../lexicon/platforms/lifestyle.tsv")),
    ("platforms/videosite.tsv", include_str!("../../lexicon/platforms/videosite.tsv")),
];
const ALLOW: (&str, &str) = ("allow.tsv", include_str!("../../lexicon/allow.tsv"));

const ENTRY_HEADER: [&str; 4] = ["word", "category", "rule", "suggestion"];

static BUILTIN: LazyLock<Result<Lexicon, String>> = LazyLock::new(|| Lexicon::parse().map_err(|e| format!("{e:#}")));

impl Lexicon {
    /// The built-in lexicon, parsed once per process.
    ///
    /// # Errors
    /// A data file is malformed (the unit tests keep that from shipping;
    /// the core checks it at start).
    pub fn builtin() -> anyhow::Result<&'static Lexicon> {
        BUILTIN.as_ref().map_err(|e| anyhow::anyhow!("banned-word lexicon: {e}"))
    }

    fn parse() -> anyhow::Result<Lexicon> {
        let categories: Vec<Category> = rows(CATEGORIES.0, CATEGORIES.1, &["category", "description"])?
            .into_iter()
            .map(|(_, cols)| Category { name: cols[0].clone(), description: cols[1].clone() })
            .collect();
        let known: HashSet<&str> = categories.iter().map(|c| c.name.as_str()).collect();
        ensure!(known.contains(CUSTOM_CATEGORY), "categories.tsv lacks {CUSTOM_CATEGORY}");

        let mut common = Vec::new();
        for (path, text) in COMMON {
            common.extend(entries(path, text, &known, "common")?);
        }
        check_unique("common", &common)?;
        let mut platforms: [Vec<Arc<Entry>>; 4] = Default::default();
        for (i, (path, text)) in PLATFORMS.into_iter().enumerate() {
            platforms[i] = entries(path, text, &known, "platform")?;
            check_unique(path, &platforms[i])?;
        }
        let mut allow = Vec::new();
        for (line, cols) in rows(ALLOW.0, ALLOW.1, &["phrase", "note"])? {
            let chars = normalize_word(&cols[0]).chars().count();
            ensure!(
                chars > 0 && chars <= MAX_PATTERN_CHARS,
                "{}:{line}: phrase must be 1 to {MAX_PATTERN_CHARS} characters",
                ALLOW.0
            );
            allow.push(cols[0].clone());
        }

        let mut hash = Sha256::new();
        for (path, text) in [CATEGORIES].into_iter().chain(COMMON).chain(PLATFORMS).chain([ALLOW]) {
            hash.update(path.as_bytes());
            hash.update([0]);
            hash.update(text.as_bytes());
            hash.update([0]);
        }
        let version = format!("builtin.{}", &hex::encode(hash.finalize())[..8]);
        Ok(Lexicon { categories, common, platforms, allow, version })
    }

    /// Entries checked on `platform`: the common list, then its extra list.
    pub fn entries_for(&self, platform: Platform) -> impl Iterator<Item = &Arc<Entry>> {
        self.common.iter().chain(self.platforms[platform.index()].iter())
    }

    /// Whether `name` is a known category.
    pub fn has_category(&self, name: &str) -> bool {
        self.categories.iter().any(|c| c.name == name)
    }

    /// Every category name, in file order.
    pub fn category_names(&self) -> Vec<String> {
        self.categories.iter().map(|c| c.name.clone()).collect()
    }
}

/// The data rows of a file as `(line number, columns)`, each row padded to
/// the header's width; checks the header.
fn rows(path: &str, text: &str, header: &[&str]) -> anyhow::Result<Vec<(usize, Vec<String>)>> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#')
    });
    let (line, first) = lines.next().with_context(|| format!("{path}: no header"))?;
    let found: Vec<&str> = first.split('\t').map(str::trim).collect();
    ensure!(found == header, "{path}:{line}: header must be {:?}, found {found:?}", header.join("\\t"));
    let mut out = Vec::new();
    for (line, text) in lines {
        let mut cols: Vec<String> = text.split('\t').map(|c| c.trim().to_owned()).collect();
        ensure!(cols.len() <= header.len(), "{path}:{line}: more than {} columns", header.len());
        cols.resize(header.len(), String::new());
        ensure!(!cols[0].is_empty(), "{path}:{line}: the first column is empty");
        out.push((line, cols));
    }
    Ok(out)
}

/// Parses a word list.
fn entries(path: &str, text: &str, known: &HashSet<&str>, list: &'static str) -> anyhow::Result<Vec<Arc<Entry>>> {
    let mut out = Vec::new();
    for (line, cols) in rows(path, text, &ENTRY_HEADER)? {
        let [word, category, rule, suggestion] = <[String; 4]>::try_from(cols).expect("padded to four");
        if !known.contains(category.as_str()) {
            bail!("{path}:{line}: unknown category {category:?}");
        }
        let chars = normalize_word(&word).chars().count();
        ensure!(chars > 0, "{path}:{line}: word is empty after normalization");
        ensure!(chars <= MAX_PATTERN_CHARS, "{path}:{line}: word is longer than {MAX_PATTERN_CHARS} characters");
        let non_empty = |s: String| if s.is_empty() { None } else { Some(s) };
        out.push(Arc::new(Entry { word, category, rule: non_empty(rule), suggestion: non_empty(suggestion), list }));
    }
    Ok(out)
}

fn check_unique(scope: &str, entries: &[Arc<Entry>]) -> anyhow::Result<()> {
    let mut seen = HashSet::new();
    for entry in entries {
        ensure!(seen.insert(normalize_word(&entry.word)), "{scope}: {:?} is listed twice", entry.word);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_lexicon_parses_and_is_sound() {
        let lexicon = Lexicon::builtin().unwrap();
        assert!(lexicon.common.len() > 150, "{}", lexicon.common.len());
        for platform in Platform::ALL {
            assert!(!lexicon.platforms[platform.index()].is_empty(), "{platform:?} has no extra list");
        }
        assert!(lexicon.version.starts_with("builtin.") && lexicon.version.len() == "builtin.".len() + 8);
        // Law-derived categories always cite their rule.
        for entry in &lexicon.common {
            assert!(entry.rule.is_some(), "{} has no rule", entry.word);
        }
        let words: HashSet<&str> = lexicon.common.iter().map(|e| e.word.as_str()).collect();
        for word in ["最佳", "第一品牌", "国家级", "顶级", "极品", "绝对", "100%", "治愈", "保本", "零风险", "开光"]
        {
            assert!(words.contains(word), "{word}");
        }
        let absolute = lexicon.common.iter().find(|e| e.word == "最佳").unwrap();
        assert_eq!(absolute.category, "极限用语");
        assert_eq!(absolute.rule.as_deref(), Some("广告法第九条第三项"));
    }

    #[test]
    fn format_errors_name_file_and_line() {
        let known: HashSet<&str> = ["极限用语"].into_iter().collect();
        let error = entries("x.tsv", "# c\nword\tcategory\trule\tsuggestion\n最佳\t没有这类\n", &known, "common")
            .unwrap_err()
            .to_string();
        assert!(error.contains("x.tsv:3") && error.contains("没有这类"), "{error}");
        let error = entries("x.tsv", "word\tcategory\n", &known, "common").unwrap_err().to_string();
        assert!(error.contains("header"), "{error}");
        let error = entries("x.tsv", "word\tcategory\trule\tsuggestion\n - \t极限用语\n", &known, "common")
            .unwrap_err()
            .to_string();
        assert!(error.contains("empty after normalization"), "{error}");
        let parsed = entries("x.tsv", "word\tcategory\trule\tsuggestion\n最佳\t极限用语\n", &known, "common").unwrap();
        assert_eq!(parsed[0].rule, None);
        assert_eq!(parsed[0].suggestion, None);
    }
}
