//! The normalized view of a text that banned-word matching runs on
//! (docs/banned-words.md "Normalization"), with the bookkeeping to map a
//! match back to the original characters.
//!
//! Per character of the original text, in this order:
//! 1. full-width forms U+FF01–U+FF5E become their ASCII twins (`ＶＸ` → `VX`,
//!    `１００％` → `100%`), and U+3000 (ideographic space) a space;
//! 2. case folding: every character whose lower case is one character takes
//!    it (`VX` → `vx`);
//! 3. traditional → simplified by the OpenCC character table
//!    (`TSCharacters`, shipped by the `hanconv` crate), one character for one
//!    (`微信號` → `微信号`);
//! 4. separators are dropped: white space, zero-width and other invisible
//!    format characters, variation selectors, and the symbols people put
//!    between the characters of a word to dodge filters
//!    (`- _ . * # | / \ ~ ^ + = ' " `` ` · • … — ★ ☆ ♥ ♡` and kin), so
//!    `微 信`, `微-信`, `微.信` and `微\u{200B}信` all read `微信`.
//!
//! Sentence punctuation (`，。！？；：、`) and brackets are kept: they end a
//! word, and a hit must not run across them.
//!
//! Every kept character stays one character, so the normalized text has as
//! many characters as the original minus the dropped ones; [`Normalized`]
//! records where characters were dropped, which is all it takes to map a
//! normalized position back to the original one. Positions are counted in
//! Unicode scalar values (Rust `char`s), never in bytes or UTF-16 units.

use std::collections::HashMap;
use std::sync::LazyLock;

/// Marks a separator in the table.
const DROP: u32 = u32::MAX;

/// The normalized form of every BMP code point (a code point, or [`DROP`]),
/// and a bit per code point telling whether that form differs from it: 8 KiB
/// that stay in cache, so an unchanged character (most of a Chinese text)
/// costs one bit test.
struct Tables {
    map: Box<[u32]>,
    changed: Box<[u64]>,
}

impl Tables {
    #[inline]
    fn changes(&self, cp: u32) -> bool {
        (self.changed[(cp >> 6) as usize] >> (cp & 63)) & 1 != 0
    }
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let map = build_bmp_table();
    let mut changed = vec![0u64; 0x10000 / 64].into_boxed_slice();
    for (cp, &to) in map.iter().enumerate() {
        if to != cp as u32 {
            changed[cp / 64] |= 1 << (cp % 64);
        }
    }
    Tables { map, changed }
});

/// Traditional → simplified for code points above U+FFFF (CJK extension B
/// and later); the rest of the OpenCC table lives in [`TABLES`].
static ASTRAL_T2S: LazyLock<HashMap<u32, u32>> =
    LazyLock::new(|| t2s_pairs().filter(|(from, _)| *from > 0xFFFF).collect());

/// Single-character traditional → simplified pairs of OpenCC's
/// `TSCharacters` table (first candidate of each entry).
fn t2s_pairs() -> impl Iterator<Item = (u32, u32)> {
    hanconv::RawDictionary::TSCharacters.iter().filter_map(|(from, to)| {
        let mut from_chars = from.chars();
        let mut to_chars = to.chars();
        match (from_chars.next(), from_chars.next(), to_chars.next(), to_chars.next()) {
            (Some(f), None, Some(t), None) => Some((f as u32, t as u32)),
            _ => None,
        }
    })
}

/// Whether `c` is a separator that normalization drops.
pub fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            // invisible: soft hyphen, combining grapheme joiner, Mongolian
            // vowel separator, zero-width space/joiners, direction marks and
            // embeddings, word joiner and invisible operators, BOM
            '\u{00AD}' | '\u{034F}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}' | '\u{FEFF}'
            // variation selectors (the emoji/text presentation ones included)
            | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' | '\u{E0000}'..='\u{E007F}'
            // ASCII symbols used to break words apart
            | '-' | '_' | '.' | '*' | '#' | '|' | '/' | '\\' | '~' | '^' | '+' | '=' | '\'' | '"' | '`'
            // dots, dashes, quotes, stars and hearts
            | '\u{00B7}' | '\u{2022}' | '\u{2027}' | '\u{30FB}' | '\u{2010}'..='\u{2015}' | '\u{2018}'..='\u{201F}'
            | '\u{2026}' | '\u{301C}' | '\u{2605}' | '\u{2606}' | '\u{2661}' | '\u{2665}' | '\u{2764}'
        )
}

/// Steps 1-3 for one character (no separator handling).
fn fold(c: char) -> char {
    let mut c = c;
    if ('\u{FF01}'..='\u{FF5E}').contains(&c) {
        c = char::from_u32(c as u32 - 0xFEE0).unwrap_or(c);
    } else if c == '\u{3000}' {
        c = ' ';
    }
    let mut lower = c.to_lowercase();
    if let (Some(l), None) = (lower.next(), lower.next()) {
        c = l;
    }
    c
}

fn build_bmp_table() -> Box<[u32]> {
    let mut table: Vec<u32> = (0..0x10000u32)
        .map(|cp| match char::from_u32(cp) {
            Some(c) => fold(c) as u32,
            None => cp, // surrogate code points never occur in a `str`
        })
        .collect();
    for (from, to) in t2s_pairs() {
        if from <= 0xFFFF {
            table[from as usize] = to;
        }
    }
    for cp in 0..0x10000u32 {
        if let Some(c) = char::from_u32(cp)
            && (is_separator(c) || is_separator(char::from_u32(table[cp as usize]).unwrap_or(c)))
        {
            table[cp as usize] = DROP;
        }
    }
    table.into_boxed_slice()
}

/// The normalized form of one character: `None` when it is a separator.
#[inline]
pub fn normalize_char(c: char) -> Option<char> {
    Normalizer::get().map(c)
}

/// A handle on the normalization tables, for loops that map many
/// characters (saves the lazy-initialization check per character).
#[derive(Clone, Copy)]
pub struct Normalizer {
    tables: &'static Tables,
}

impl Normalizer {
    /// The tables, built on first use.
    pub fn get() -> Normalizer {
        Normalizer { tables: &TABLES }
    }

    /// The normalized form of `c`: `None` when it is a separator.
    #[inline]
    pub fn map(self, c: char) -> Option<char> {
        let cp = c as u32;
        if cp > 0xFFFF {
            return astral(c);
        }
        if !self.tables.changes(cp) {
            return Some(c);
        }
        let t = self.tables.map[cp as usize];
        if t == DROP { None } else { char::from_u32(t) }
    }
}

#[cold]
fn astral(c: char) -> Option<char> {
    if is_separator(c) {
        return None;
    }
    Some(ASTRAL_T2S.get(&(c as u32)).and_then(|&t| char::from_u32(t)).unwrap_or(c))
}

/// A normalized text and the record of dropped characters.
#[derive(Debug, Clone, Default)]
pub struct Normalized {
    /// The normalized text (UTF-8).
    pub text: String,
    /// For every dropped original character, in order, the number of
    /// normalized characters emitted before it.
    drops: Vec<u32>,
}

impl Normalized {
    /// Original character index of the normalized character `k`.
    pub fn original_index(&self, k: usize) -> usize {
        k + self.drops.partition_point(|&before| before as usize <= k)
    }

    /// Whether an original character was dropped right before the
    /// normalized character `k` (i.e. between normalized `k-1` and `k`).
    pub fn dropped_before(&self, k: usize) -> bool {
        self.drops.binary_search(&(k as u32)).is_ok()
    }

    /// How many original characters were dropped.
    pub fn dropped(&self) -> usize {
        self.drops.len()
    }
}

/// Normalizes `text` into a string (see the module docs): the plain
/// reading of the rules that the search's tests compare against. The search
/// itself ([`super::matcher::scan`]) normalizes character by character on
/// the fly. Texts are at most a few megabytes, so counts fit `u32`.
pub fn normalize(text: &str) -> Normalized {
    let normalizer = Normalizer::get();
    let mut out = String::with_capacity(text.len());
    let mut drops = Vec::new();
    let mut emitted: u32 = 0;
    for c in text.chars() {
        match normalizer.map(c) {
            Some(n) => {
                out.push(n);
                emitted += 1;
            }
            None => drops.push(emitted),
        }
    }
    Normalized { text: out, drops }
}

/// The normalized form of a lexicon word or an allow phrase: the same
/// mapping as [`normalize`], without the bookkeeping.
pub fn normalize_word(word: &str) -> String {
    word.chars().filter_map(normalize_char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (original, normalized, original index of every normalized char)
    const CASES: &[(&str, &str, &[usize])] = &[
        ("微信", "微信", &[0, 1]),
        ("微 信", "微信", &[0, 2]),
        ("微-信", "微信", &[0, 2]),
        ("微.信", "微信", &[0, 2]),
        ("微\u{200B}信", "微信", &[0, 2]),
        ("微\u{FEFF}\u{200D}信", "微信", &[0, 3]),
        ("微★信", "微信", &[0, 2]),
        ("加ＶＸ", "加vx", &[0, 1, 2]),
        ("ＮＯ．１", "no1", &[0, 1, 3]),
        ("１００％", "100%", &[0, 1, 2, 3]),
        ("微信號", "微信号", &[0, 1, 2]),
        ("絕對", "绝对", &[0, 1]),
        ("最佳　產品", "最佳产品", &[0, 1, 3, 4]),
        ("😀微信", "😀微信", &[0, 1, 2]),
        ("𠮷 最佳", "𠮷最佳", &[0, 2, 3]),
        ("❤️微\u{FE0F}信", "微信", &[2, 4]),
        ("A，B", "a,b", &[0, 1, 2]),
        ("", "", &[]),
        (" - ", "", &[]),
    ];

    #[test]
    fn table_of_normalizations_and_offsets() {
        for (original, normalized, index) in CASES {
            let n = normalize(original);
            assert_eq!(n.text, *normalized, "{original:?}");
            let mapped: Vec<usize> = (0..n.text.chars().count()).map(|k| n.original_index(k)).collect();
            assert_eq!(mapped, *index, "{original:?}");
            for (k, c) in n.text.chars().enumerate() {
                let orig = original.chars().nth(mapped[k]).unwrap();
                assert_eq!(normalize_char(orig), Some(c), "{original:?} char {k}");
            }
        }
    }

    #[test]
    fn words_normalize_like_text() {
        assert_eq!(normalize_word("加 V"), "加v");
        assert_eq!(normalize_word("NO.1"), "no1");
        assert_eq!(normalize_word("國家級"), "国家级");
        assert_eq!(normalize_word("Ｔｏｐ１"), "top1");
    }

    #[test]
    fn sentence_punctuation_and_brackets_stay() {
        for c in ['，', '。', '！', '？', '；', '：', '、', '（', '）', '【', '】', '《', '》', '%', '@'] {
            assert!(normalize_char(c).is_some(), "{c}");
        }
    }

    #[test]
    fn dropped_before_tells_separators_apart() {
        let n = normalize("di vx");
        assert_eq!(n.text, "divx");
        assert!(n.dropped_before(2));
        assert!(!n.dropped_before(3));
        assert_eq!(n.dropped(), 1);
    }
}
