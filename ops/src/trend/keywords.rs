//! Words of hot-list titles and the keyword scoring of `trend/hot-keywords`
//! (spec 4.11; docs/trends.md "Keywords").
//!
//! **Cutting.** A title is cut with jieba in search mode by
//! [`mediaops_store::text::index_terms`] (the store's index rules: lower-cased,
//! punctuation and single CJK characters dropped, letters and digits only).
//! Stop words ([`stop_words`], `data/stopwords.txt`), numbers and dates
//! (`2024`, `6月`, `10万`) and single Latin letters are removed. What is
//! left are the title's **terms**, shown in the title's own letter case.
//! Search mode keeps a long word and its parts (`高考作文` gives 高考, 作文
//! and 高考作文), so one story cut two ways still shares words.
//!
//! **Scoring** (TF-IDF against a background corpus): a document is one
//! distinct (list, title) pair; the window's documents are the foreground,
//! every document of the covered three weeks ([`mediaops_store::rules::window`]) the
//! background. For keyword `k`:
//!
//! ```text
//! score(k) = df_window(k) × idf(k) × (1 + 0.5 × (lists(k) − 1))
//! idf(k)   = ln((N_background + 1) / (df_background(k) + 1)) + 1
//! ```
//!
//! `df` counts documents holding `k`, `lists(k)` the distinct lists it
//! appears on in the window: a word many titles of the window use, that is
//! rare in the three weeks, on several lists, ranks first. Ties: more
//! documents, then the keyword's text.
//!
//! **Parts of longer words.** A term that is part of a longer term of the
//! same titles (人民 in 中华人民共和国) is dropped when the longer term is in
//! at least [`SUBSUMED`] of the documents it is in: it never stands on its
//! own. 高考 stays beside 高考作文 when other titles say 高考 alone.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use mediaops_connectors::hotlists::Source;

/// The stop-word file, one word a line (`#` comments, several words on a
/// line separated by spaces).
const STOP_WORDS_FILE: &str = include_str!("data/stopwords.txt");

/// Share of a term's documents a longer term holding it must be in for the
/// shorter one to be dropped (module docs).
pub const SUBSUMED: f64 = 0.8;

/// Unit characters that make a number a date or a count (`6月`, `10万`),
/// not a keyword.
const NUMBER_UNITS: &str = "年月日号时分秒岁万亿元个次天人名级米斤度届期集";

/// The stop words, parsed once.
pub fn stop_words() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        STOP_WORDS_FILE
            .lines()
            .map(|line| line.split('#').next().unwrap_or(""))
            .flat_map(str::split_whitespace)
            .collect()
    })
}

/// Whether `term` (already lower-cased, letters and digits) is a keyword
/// candidate: not a stop word, not a number or dated count, not one Latin
/// letter.
fn is_content_word(term: &str) -> bool {
    if stop_words().contains(term) {
        return false;
    }
    let mut chars = term.chars();
    let (first, count) = (chars.next(), term.chars().count());
    if count == 1 && first.is_some_and(|c| c.is_ascii()) {
        return false;
    }
    let digits = term.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        let rest: Vec<char> = term.chars().skip(digits).collect();
        if rest.is_empty() || (rest.len() == 1 && NUMBER_UNITS.contains(rest[0])) {
            return false;
        }
    }
    true
}

/// The words of one title (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TitleTerms {
    /// Search-mode terms without stop words, lower-cased, deduplicated, in
    /// order.
    pub terms: Vec<String>,
    /// Each term as spelled in the title (`TheShy` for `theshy`).
    pub display: Vec<String>,
    /// `(i, j)`: `terms[i]` is part of the longer `terms[j]`.
    pub inside: Vec<(usize, usize)>,
}

impl TitleTerms {
    /// Cuts `title`.
    pub fn of(title: &str) -> TitleTerms {
        let terms: Vec<String> =
            mediaops_store::text::index_terms(title).into_iter().filter(|t| is_content_word(t)).collect();
        let lower = title.to_lowercase();
        let display = terms.iter().map(|t| display_form(title, &lower, t)).collect();
        let mut inside = Vec::new();
        for (i, part) in terms.iter().enumerate() {
            for (j, whole) in terms.iter().enumerate() {
                if whole.len() > part.len() && whole.contains(part.as_str()) {
                    inside.push((i, j));
                }
            }
        }
        TitleTerms { terms, display, inside }
    }
}

/// `key` as spelled in `title` (`TheShy` for `theshy`) when lower-casing
/// kept the title's byte offsets; else `key`.
fn display_form(title: &str, lower: &str, key: &str) -> String {
    if lower.len() == title.len()
        && let Some(at) = lower.find(key)
        && let Some(original) = title.get(at..at + key.len())
    {
        return original.to_owned();
    }
    key.to_owned()
}

/// Cut titles, shared by every request (hot-list titles repeat from capture
/// to capture, so most are cut once). Bounded: emptied when it reaches its
/// capacity.
pub struct TermCache {
    capacity: usize,
    map: Mutex<HashMap<String, Arc<TitleTerms>>>,
}

impl TermCache {
    /// A cache of at most `capacity` titles.
    pub fn new(capacity: usize) -> TermCache {
        TermCache { capacity, map: Mutex::new(HashMap::new()) }
    }

    /// The words of each title, in order; titles not seen before are cut
    /// outside the lock.
    pub fn terms_of<'a>(&self, titles: impl IntoIterator<Item = &'a str>) -> Vec<Arc<TitleTerms>> {
        let titles: Vec<&str> = titles.into_iter().collect();
        let mut found = self.cached(&titles);
        let missing: Vec<String> = missing(&found, &titles);
        let cut = missing.into_iter().map(|title| (Arc::new(TitleTerms::of(&title)), title)).collect();
        self.keep(&mut found, cut)
    }

    /// [`TermCache::terms_of`] for an async path: when the titles not seen
    /// before hold more than [`mediaops_store::offload::INLINE_BYTES`] (a corpus of
    /// a day's hot lists at its first read), they are cut on the blocking
    /// pool.
    pub async fn terms_of_async<'a>(&self, titles: impl IntoIterator<Item = &'a str>) -> Vec<Arc<TitleTerms>> {
        let titles: Vec<&str> = titles.into_iter().collect();
        let mut found = self.cached(&titles);
        let missing: Vec<String> = missing(&found, &titles);
        let bytes = missing.iter().map(String::len).sum();
        let cut = mediaops_store::offload::cpu(bytes, move || {
            missing.into_iter().map(|title| (Arc::new(TitleTerms::of(&title)), title)).collect()
        })
        .await;
        self.keep(&mut found, cut)
    }

    /// The cached words of each title, `None` where not cut yet.
    fn cached(&self, titles: &[&str]) -> Vec<Option<Arc<TitleTerms>>> {
        let map = self.map.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        titles.iter().map(|t| map.get(*t).cloned()).collect()
    }

    /// Fills the empty slots of `found`, in order, with the freshly `cut`
    /// titles (one per empty slot) and caches them.
    fn keep(&self, found: &mut [Option<Arc<TitleTerms>>], cut: Vec<(Arc<TitleTerms>, String)>) -> Vec<Arc<TitleTerms>> {
        let mut cut = cut.into_iter();
        let mut fresh = Vec::new();
        for slot in found.iter_mut().filter(|slot| slot.is_none()) {
            if let Some((terms, title)) = cut.next() {
                *slot = Some(terms.clone());
                fresh.push((title, terms));
            }
        }
        if !fresh.is_empty() {
            let mut map = self.map.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if map.len() + fresh.len() > self.capacity {
                map.clear();
            }
            map.extend(fresh);
        }
        found.iter_mut().map(|t| t.take().unwrap_or_default()).collect()
    }
}

/// The titles of the empty slots of `found`, in order (a title repeated in
/// one request is cut once per slot, as before the cache knew it).
fn missing(found: &[Option<Arc<TitleTerms>>], titles: &[&str]) -> Vec<String> {
    found.iter().zip(titles).filter(|(slot, _)| slot.is_none()).map(|(_, title)| (*title).to_owned()).collect()
}

/// Whether a title is about a keyword (`trending-hub-keyword`,
/// `trend-radar`, `cn-last30days`): the title contains the keyword
/// (ignoring letter case), or holds every content word of it (so `国足 夺冠`
/// finds `U19国足胜韩国夺冠`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeywordFilter {
    lower: String,
    terms: Vec<String>,
}

impl KeywordFilter {
    /// `None` for a blank keyword.
    pub fn new(keyword: &str) -> Option<KeywordFilter> {
        let keyword = keyword.trim();
        (!keyword.is_empty())
            .then(|| KeywordFilter { lower: keyword.to_lowercase(), terms: TitleTerms::of(keyword).terms })
    }

    /// Whether `title` (cut as `terms`) is about the keyword.
    pub fn matches(&self, title: &str, terms: &TitleTerms) -> bool {
        title.to_lowercase().contains(&self.lower)
            || (!self.terms.is_empty() && self.terms.iter().all(|t| terms.terms.contains(t)))
    }
}

/// Document frequencies of keywords over a set of documents (the
/// background corpus of the scoring).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Corpus {
    docs: u64,
    df: HashMap<String, u32>,
}

impl Corpus {
    /// The corpus of `docs`, each counted once per keyword it holds.
    pub fn of<'a>(docs: impl IntoIterator<Item = &'a TitleTerms>) -> Corpus {
        let mut corpus = Corpus::default();
        for doc in docs {
            corpus.docs += 1;
            for key in &doc.terms {
                *corpus.df.entry(key.clone()).or_default() += 1;
            }
        }
        corpus
    }

    /// Documents in the corpus.
    pub fn len(&self) -> u64 {
        self.docs
    }

    /// Whether the corpus holds no document.
    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// `ln((N + 1) / (df + 1)) + 1`: never 0, highest for words the corpus
    /// does not hold.
    pub fn idf(&self, key: &str) -> f64 {
        let df = self.df.get(key).copied().unwrap_or(0);
        ((self.docs as f64 + 1.0) / (f64::from(df) + 1.0)).ln() + 1.0
    }
}

/// One scored keyword of a window.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedKeyword {
    /// As first spelled in the window's titles.
    pub keyword: String,
    /// The keyword's weight over the window's titles (docs/trends.md
    /// "Keywords"); higher is hotter.
    pub score: f64,
    /// Documents of the window holding it.
    pub docs: u32,
    /// The lists it appears on, in [`super::numbering::LIST_NUMBERS`] order.
    pub lists: Vec<Source>,
}

/// The window's keywords by the module's score, best first, at most
/// `limit`. `docs` are the window's distinct (list, title) documents.
pub fn rank_keywords(docs: &[(Source, Arc<TitleTerms>)], background: &Corpus, limit: usize) -> Vec<RankedKeyword> {
    struct Tally<'a> {
        display: &'a str,
        docs: u32,
        lists: Vec<Source>,
        wider: Vec<&'a str>,
    }
    let mut tallies: HashMap<&str, Tally<'_>> = HashMap::new();
    for (source, doc) in docs {
        for (key, display) in doc.terms.iter().zip(&doc.display) {
            let tally =
                tallies.entry(key.as_str()).or_insert_with(|| Tally { display, docs: 0, lists: vec![], wider: vec![] });
            tally.docs += 1;
            if !tally.lists.contains(source) {
                tally.lists.push(*source);
            }
        }
        for &(part, whole) in &doc.inside {
            let (part, whole) = (doc.terms[part].as_str(), doc.terms[whole].as_str());
            if let Some(tally) = tallies.get_mut(part)
                && !tally.wider.contains(&whole)
            {
                tally.wider.push(whole);
            }
        }
    }
    let subsumed = |t: &Tally<'_>| {
        t.wider.iter().any(|w| tallies.get(w).is_some_and(|w| f64::from(w.docs) >= SUBSUMED * f64::from(t.docs)))
    };
    let mut ranked: Vec<RankedKeyword> = tallies
        .iter()
        .filter(|(_, t)| !subsumed(t))
        .map(|(key, t)| {
            let spread = 1.0 + 0.5 * (t.lists.len() as f64 - 1.0);
            let mut lists = t.lists.clone();
            lists.sort_by_key(|s| super::numbering::list_order(*s));
            RankedKeyword {
                keyword: t.display.to_owned(),
                score: f64::from(t.docs) * background.idf(key) * spread,
                docs: t.docs,
                lists,
            }
        })
        .collect();
    ranked
        .sort_by(|a, b| b.score.total_cmp(&a.score).then(b.docs.cmp(&a.docs)).then_with(|| a.keyword.cmp(&b.keyword)));
    ranked.truncate(limit);
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_give_content_words_in_their_spelling() {
        let t = TitleTerms::of("U19国足胜韩国夺冠");
        for word in ["u19", "国足", "韩国", "夺冠"] {
            assert!(t.terms.contains(&word.to_owned()), "{word} in {t:?}");
        }
        assert!(t.display.contains(&"U19".to_owned()), "the title's spelling: {t:?}");
        assert_eq!(t.terms.len(), t.display.len());

        let t = TitleTerms::of("网友热议：2024年6月10日 刘亦菲新剧口碑 回应了什么");
        for dropped in ["网友", "热议", "2024", "2024年", "6月", "10日", "回应", "什么"] {
            assert!(!t.terms.contains(&dropped.to_owned()), "{dropped} in {t:?}");
        }
        assert!(t.terms.contains(&"刘亦菲".to_owned()), "{t:?}");
    }

    #[test]
    fn parts_of_longer_words_are_known() {
        let t = TitleTerms::of("中华人民共和国成立");
        let at = |w: &str| t.terms.iter().position(|x| x == w).unwrap();
        assert!(t.inside.contains(&(at("人民"), at("中华人民共和国"))), "{t:?}");
        assert!(!t.inside.iter().any(|&(part, _)| part == at("中华人民共和国")));
    }

    #[test]
    fn parts_that_never_stand_alone_are_dropped() {
        let doc = |title: &str| Arc::new(TitleTerms::of(title));
        let window = vec![
            (Source::Weibo, doc("中华人民共和国成立")),
            (Source::Weibo, doc("中华人民共和国国庆")),
            (Source::Douyin, doc("人民日报评论")),
        ];
        let background = Corpus::of(window.iter().map(|(_, d)| d.as_ref()));
        let ranked = rank_keywords(&window, &background, 50);
        let words: Vec<&str> = ranked.iter().map(|k| k.keyword.as_str()).collect();
        assert!(words.contains(&"中华人民共和国"), "{words:?}");
        assert!(!words.contains(&"共和国"), "only ever inside the whole word: {words:?}");
        assert!(words.contains(&"人民"), "no one longer word holds it in 80% of its documents: {words:?}");
    }

    #[test]
    fn the_cache_returns_what_cutting_returns() {
        let cache = TermCache::new(2);
        let first = cache.terms_of(["高考作文题目公布", "刘亦菲新剧口碑"]);
        assert_eq!(*first[0], TitleTerms::of("高考作文题目公布"));
        let again = cache.terms_of(["高考作文题目公布", "U19国足胜韩国夺冠"]);
        assert_eq!(*again[0], *first[0]);
        assert_eq!(*again[1], TitleTerms::of("U19国足胜韩国夺冠"), "a full cache is emptied, not wrong");
    }

    #[test]
    fn keyword_filters_take_substrings_and_all_words() {
        let filter = KeywordFilter::new(" 国足 夺冠 ").unwrap();
        let title = "U19国足胜韩国夺冠";
        assert!(filter.matches(title, &TitleTerms::of(title)));
        let other = "国足主帅：来韩国是为了晋级";
        assert!(!filter.matches(other, &TitleTerms::of(other)));
        let exact = KeywordFilter::new("theshy").unwrap();
        assert!(exact.matches("TheShy确定明年复出", &TitleTerms::default()), "letter case is ignored");
        assert!(KeywordFilter::new("  ").is_none());
    }

    #[test]
    fn scores_follow_the_formula() {
        let doc = |title: &str| Arc::new(TitleTerms::of(title));
        let window = vec![
            (Source::Weibo, doc("高考作文题目公布")),
            (Source::Douyin, doc("高考作文怎么写")),
            (Source::Weibo, doc("刘亦菲新剧口碑")),
        ];
        let mut background_docs: Vec<Arc<TitleTerms>> = window.iter().map(|(_, d)| d.clone()).collect();
        for _ in 0..7 {
            background_docs.push(doc("刘亦菲新剧开播"));
        }
        let background = Corpus::of(background_docs.iter().map(|d| d.as_ref()));
        assert_eq!(background.len(), 10);
        let ranked = rank_keywords(&window, &background, 10);
        let exam = ranked.iter().position(|k| k.keyword == "高考").unwrap();
        assert!(exam < 2, "on two titles of two lists: first or second (tied with 作文): {ranked:?}");
        assert_eq!(ranked[exam].docs, 2);
        assert_eq!(ranked[exam].lists, [Source::Douyin, Source::Weibo], "list-number order: douyin is 1, weibo 2");
        let idf = (11.0f64 / 3.0).ln() + 1.0;
        assert!((ranked[exam].score - 2.0 * idf * 1.5).abs() < 1e-9);
        let star = ranked.iter().find(|k| k.keyword == "刘亦菲").unwrap();
        assert!((star.score - ((11.0f64 / 9.0).ln() + 1.0)).abs() < 1e-9, "common in the background: low");
        assert!(ranked.iter().position(|k| k.keyword == "口碑") < ranked.iter().position(|k| k.keyword == "刘亦菲"));
        assert_eq!(rank_keywords(&window, &background, 1).len(), 1);
    }
}
