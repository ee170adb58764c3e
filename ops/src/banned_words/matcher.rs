//! Finding lexicon words in a text with an Aho-Corasick automaton (the
//! `aho-corasick` crate) over the normalized words and allow phrases
//! (docs/banned-words.md "Matching").
//!
//! The text is normalized and searched in one pass: each original character
//! is mapped by [`Normalizer::map`] (separators are skipped) and the bytes of
//! its normalized form are fed to the automaton through the crate's
//! [`Automaton`] interface, so the normalized text is never materialized and
//! every match is known at once in original character offsets.
//!
//! Most characters never reach the automaton. A character that occurs in
//! no word cannot be part of a match and sends the automaton back to its
//! start state; from the start state only a character that begins a word
//! can lead anywhere. A tight loop (`skip`) runs over the bytes while the
//! automaton rests in its start state and stops only where the last two kept
//! characters may be the first two of a word (a hashed set of those pairs)
//! or where normalization yields a character of some word; the general loop
//! takes over from there until the automaton is back at its start. The
//! randomized test `search_agrees_with_a_plain_reading_of_the_rules` checks
//! the whole against a direct reading of the rules.
//!
//! Rules applied to the raw matches, in order:
//! 1. a hit lying inside an occurrence of an allow phrase is dropped, except
//!    that a built-in allow phrase never hides a word the account added;
//! 2. a word that starts (ends) with an ASCII letter or digit must not have
//!    one right before (after) it, unless a separator stands between, so
//!    `vx` is found in `加vx` and `di vx` but not in `divx`;
//! 3. a hit inside a longer hit of the same category is not reported
//!    (`加vx` hides `vx`); overlapping hits otherwise all stay.

use std::sync::Arc;

use aho_corasick::automaton::Automaton;
use aho_corasick::{Anchored, MatchKind, dfa, nfa};

use super::lexicon::Entry;
pub use super::lexicon::MAX_PATTERN_CHARS;
use super::normalize::{Normalizer, normalize_word};

/// Total pattern bytes up to which the automaton is a DFA (fastest search;
/// about 1 MiB for the built-in lexicon, 2 MiB at this limit); larger sets
/// (long account lists) use a contiguous NFA, a few times smaller.
const DFA_MAX_PATTERN_BYTES: usize = 12 * 1024;

/// Who an allow phrase belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllowScope {
    /// Built in: hides built-in words only.
    Builtin,
    /// The account's: hides every word.
    Account,
}

/// One hit: the entry and the original characters it covers.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Index of the first original character (Unicode scalar values).
    pub start: usize,
    /// Index one past the last original character.
    pub end: usize,
    /// The lexicon entry matched.
    pub entry: Arc<Entry>,
}

#[derive(Debug)]
struct Pattern {
    entry: Option<Arc<Entry>>,
    allow: Option<AllowScope>,
    /// Length in normalized characters.
    chars: usize,
    ascii_start: bool,
    ascii_end: bool,
}

#[derive(Debug)]
enum Engine {
    Dfa(dfa::DFA),
    Nfa(nfa::contiguous::NFA),
}

/// A compiled set of words and allow phrases.
#[derive(Debug)]
pub struct Matcher {
    engine: Option<Engine>,
    patterns: Vec<Pattern>,
    alphabet: Alphabet,
}

/// Per-character facts the search needs, in one byte per BMP code point
/// (64 KiB, one load per character): see the `Alphabet::*` flags.
/// Characters above U+FFFF go through the normalizer and two small sets.
///
/// They let the search skip the automaton where it cannot move: a
/// character in no word sends it back to the start state, and from the
/// start state a character that begins no word leaves it there. The
/// search's tight loop goes further with `pairs`: a match of two or more
/// characters starts with one of the words' first two characters, so it
/// only stops where the last two kept characters are such a pair.
#[derive(Debug)]
struct Alphabet {
    bmp: Box<[u8; 0x10000]>,
    /// A hashed bit set of the words' (first, second) normalized characters
    /// (`pair_bit`); a false positive only costs a detour through the
    /// general loop.
    pairs: Box<[u64; PAIR_WORDS]>,
    astral_in_words: std::collections::HashSet<char>,
    astral_first: std::collections::HashSet<char>,
}

/// Size of the pair bit set, in 64-bit words (2^15 bits, 4 KiB: it shares
/// the L1 cache with the busy part of the flags table).
const PAIR_WORDS: usize = 1 << (PAIR_BITS - 6);
const PAIR_BITS: u32 = 15;

impl Alphabet {
    /// Occurs in some normalized word or phrase.
    const IN_WORDS: u8 = 1;
    /// Begins some normalized word or phrase.
    const FIRST: u8 = 2;
    /// An ASCII letter or digit.
    const ALPHANUMERIC: u8 = 4;
    /// Normalization changes or drops it (see [`Normalizer::map`]).
    const CHANGED: u8 = 8;
    /// Normalization drops it.
    const SEPARATOR: u8 = 16;
    /// The tight loop hands it to the general loop: normalization changes
    /// it into a character of some word, or its normalized form is a whole
    /// word.
    const HOT: u8 = 32;

    fn new(texts: &[String]) -> Alphabet {
        let normalizer = Normalizer::get();
        let normalized: Vec<Option<char>> =
            (0..0x10000u32).map(|cp| char::from_u32(cp).and_then(|c| normalizer.map(c))).collect();
        let mut bmp: Vec<u8> = (0..0x10000u32)
            .map(|cp| {
                let changed = match normalized[cp as usize] {
                    Some(n) if n as u32 == cp => 0,
                    Some(_) => Self::CHANGED,
                    None => Self::CHANGED | Self::SEPARATOR,
                };
                let alphanumeric = if cp < 0x80 && (cp as u8).is_ascii_alphanumeric() { Self::ALPHANUMERIC } else { 0 };
                changed | alphanumeric
            })
            .collect();
        let mut astral_in_words = std::collections::HashSet::new();
        let mut astral_first = std::collections::HashSet::new();
        let mut pairs = Box::new([0u64; PAIR_WORDS]);
        let mut singles = std::collections::HashSet::new();
        for text in texts {
            let mut chars = text.chars();
            match (chars.next(), chars.next()) {
                (Some(first), Some(second)) => {
                    let bit = pair_bit(first as u32, second as u32);
                    pairs[bit / 64] |= 1 << (bit % 64);
                }
                (Some(only), None) => {
                    singles.insert(only);
                }
                _ => {}
            }
            for (i, c) in text.chars().enumerate() {
                let flags = if i == 0 { Self::IN_WORDS | Self::FIRST } else { Self::IN_WORDS };
                if let Some(slot) = bmp.get_mut(c as usize) {
                    *slot |= flags;
                } else {
                    astral_in_words.insert(c);
                    if i == 0 {
                        astral_first.insert(c);
                    }
                }
            }
        }
        for cp in 0..0x10000usize {
            let Some(n) = normalized[cp] else { continue };
            let into_words = n as usize != cp && bmp.get(n as usize).is_none_or(|f| f & Self::IN_WORDS != 0);
            if into_words || singles.contains(&n) {
                bmp[cp] |= Self::HOT;
            }
        }
        let bmp: Box<[u8; 0x10000]> = bmp.into_boxed_slice().try_into().unwrap_or_else(|_| Box::new([0; 0x10000]));
        Alphabet { bmp, pairs, astral_in_words, astral_first }
    }

    /// Whether `(first, second)` may be the first two characters of a word.
    #[inline]
    fn may_begin(&self, first: u32, second: u32) -> bool {
        let bit = pair_bit(first, second);
        (self.pairs[bit / 64] >> (bit % 64)) & 1 != 0
    }

    /// The flags of a normalized character.
    #[inline]
    fn of_normalized(&self, c: char) -> u8 {
        match self.bmp.get(c as usize) {
            Some(flags) => flags & (Self::IN_WORDS | Self::FIRST | Self::ALPHANUMERIC),
            None => {
                let in_words = if self.astral_in_words.contains(&c) { Self::IN_WORDS } else { 0 };
                let first = if self.astral_first.contains(&c) { Self::FIRST } else { 0 };
                in_words | first
            }
        }
    }
}

/// The bit of a character pair in [`Alphabet::pairs`].
#[inline]
fn pair_bit(first: u32, second: u32) -> usize {
    // Multiplicative hashing of the 64-bit key: the top 15 bits.
    let key = (u64::from(first) << 32) | u64::from(second);
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - PAIR_BITS)) as usize
}

impl Matcher {
    /// Compiles `entries` (in priority order: of two entries with the same
    /// normalized form the first is kept) and allow phrases. Words that
    /// normalize to nothing or to more than [`MAX_PATTERN_CHARS`] characters
    /// are skipped.
    pub fn build<'a>(
        entries: impl IntoIterator<Item = Arc<Entry>>,
        allow: impl IntoIterator<Item = (&'a str, AllowScope)>,
    ) -> anyhow::Result<Matcher> {
        let mut index = std::collections::HashMap::<String, usize>::new();
        let mut texts: Vec<String> = Vec::new();
        let mut patterns: Vec<Pattern> = Vec::new();
        let mut slot = |text: String, patterns: &mut Vec<Pattern>| -> Option<usize> {
            let chars = text.chars().count();
            if chars == 0 || chars > MAX_PATTERN_CHARS {
                return None;
            }
            Some(*index.entry(text.clone()).or_insert_with(|| {
                let ascii_start = text.chars().next().is_some_and(|c| c.is_ascii_alphanumeric());
                let ascii_end = text.chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric());
                texts.push(text);
                patterns.push(Pattern { entry: None, allow: None, chars, ascii_start, ascii_end });
                patterns.len() - 1
            }))
        };
        for entry in entries {
            if let Some(i) = slot(normalize_word(&entry.word), &mut patterns) {
                patterns[i].entry.get_or_insert(entry);
            }
        }
        for (phrase, scope) in allow {
            if let Some(i) = slot(normalize_word(phrase), &mut patterns) {
                let allow = &mut patterns[i].allow;
                if *allow != Some(AllowScope::Account) {
                    *allow = Some(scope);
                }
            }
        }
        let alphabet = Alphabet::new(&texts);
        let engine = if texts.is_empty() {
            None
        } else if texts.iter().map(String::len).sum::<usize>() <= DFA_MAX_PATTERN_BYTES {
            Some(Engine::Dfa(dfa::DFA::builder().match_kind(MatchKind::Standard).prefilter(false).build(&texts)?))
        } else {
            Some(Engine::Nfa(
                nfa::contiguous::NFA::builder().match_kind(MatchKind::Standard).prefilter(false).build(&texts)?,
            ))
        };
        Ok(Matcher { engine, patterns, alphabet })
    }

    /// Number of distinct normalized words and phrases.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Whether nothing was compiled.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

/// What the search remembers of each of the last normalized characters
/// that occur in some word (the only ones a match can cover).
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    /// Original character index.
    original: u32,
    /// The normalized character before it is an ASCII letter or digit, with
    /// no separator dropped in between (the left word-boundary test).
    glued_to_alphanumeric: bool,
}

/// Ring of the last [`RING`] normalized characters (a power of two above
/// [`MAX_PATTERN_CHARS`], so a whole match fits).
const RING: usize = 64;

/// A match, in original character offsets.
#[derive(Debug)]
struct Candidate {
    start: usize,
    end: usize,
    pattern: usize,
}

/// Finds every hit of `matcher` in `text` (see the module docs), sorted by
/// start, longer hits first.
pub fn scan(text: &str, matcher: &Matcher) -> Vec<Hit> {
    match &matcher.engine {
        None => Vec::new(),
        Some(Engine::Dfa(dfa)) => scan_with(text, matcher, dfa),
        Some(Engine::Nfa(nfa)) => scan_with(text, matcher, nfa),
    }
}

/// The search's tight loop (kept out of line so its few variables stay in
/// registers): from byte `at` (character `original`), skips characters
/// while none can begin a match, i.e. until a character that normalization
/// turns into one of the words' characters or that is a whole word by
/// itself (`HOT`), or until the last two kept characters may be the first
/// two of a word. Stops before two- and four-byte characters and at the end
/// of the text. Returns the new byte offset and character index, and the
/// last kept character seen (u32::MAX: none) with its byte offset.
#[inline(never)]
fn skip(bytes: &[u8], mut at: usize, mut original: usize, alphabet: &Alphabet) -> (usize, usize, u32, usize) {
    let (mut previous, mut previous_at) = (u32::MAX, at);
    loop {
        let (cp, width) = match bytes[at..] {
            [lead @ 0x00..=0x7F, ..] => (u32::from(lead), 1),
            [lead @ 0xE0..=0xEF, second, third, ..] => {
                let cp = (u32::from(lead & 0x0F) << 12) | (u32::from(second & 0x3F) << 6) | u32::from(third & 0x3F);
                (cp, 3)
            }
            // The end, or a two- or four-byte character: the general loop.
            _ => break,
        };
        let flags = alphabet.bmp[cp as usize & 0xFFFF];
        let separator = flags & Alphabet::SEPARATOR != 0;
        // Non-short-circuit `&` and `|`: one branch per character. A
        // character normalization changes is here only if its form is in
        // no word, so the pair test may take it as written (at worst a
        // false positive).
        if (flags & Alphabet::HOT != 0) | (!separator & alphabet.may_begin(previous, cp)) {
            break;
        }
        // Separators leave the previous kept character in place.
        previous = if separator { previous } else { cp };
        previous_at = if separator { previous_at } else { at };
        at += width;
        original += 1;
    }
    (at, original, previous, previous_at)
}

/// The search. Two loops share the work:
///
/// - [`skip`] runs while the automaton sits in its start state with no
///   candidate waiting, up to the first place a match may begin;
/// - the general loop takes one character at a time from there: normalizes
///   it, keeps the word-boundary bookkeeping, and feeds the automaton the
///   characters that can extend or begin a match, until the automaton is
///   back at its start.
fn scan_with<A: Automaton>(text: &str, matcher: &Matcher, automaton: &A) -> Vec<Hit> {
    let Ok(start) = automaton.start_state(Anchored::No) else {
        return Vec::new(); // every automaton here is built for unanchored search
    };
    let mut state = start;
    let patterns = &matcher.patterns;
    let alphabet = &matcher.alphabet;
    let normalizer = Normalizer::get();
    let bytes = text.as_bytes();
    // Characters fed to the automaton since the text began, and what the
    // last RING of them were.
    let mut fed = 0usize;
    let mut ring = [Seen::default(); RING];
    let mut candidates: Vec<Candidate> = Vec::new();
    // Allow-phrase occurrences, in original offsets.
    let mut allowed: Vec<(usize, usize, AllowScope)> = Vec::new();
    // Candidates whose last character is an ASCII letter or digit, waiting
    // for the next character to tell whether a word boundary follows.
    let mut waiting: Vec<Candidate> = Vec::new();
    // A separator was dropped since the last kept character.
    let mut after_separator = false;
    // The last kept character is an ASCII letter or digit.
    let mut last_alphanumeric = false;
    let mut utf8 = [0u8; 4];
    // Byte offset and original character index of the next character.
    let (mut at, mut original) = (0usize, 0usize);
    loop {
        if state == start && waiting.is_empty() {
            let from = (at, original);
            let (previous, previous_at);
            (at, original, previous, previous_at) = skip(bytes, at, original, alphabet);
            // Go back to the last kept character if a word may begin there.
            let previous_begins = alphabet
                .bmp
                .get(previous as usize)
                .is_some_and(|f| f & (Alphabet::FIRST | Alphabet::CHANGED) == Alphabet::FIRST);
            if previous_begins && previous_at < at {
                original -= text[previous_at..at].chars().count();
                at = previous_at;
            }
            debug_assert!(at >= from.0 && original >= from.1, "the tight loop never moves back");
            // The character before `at` sets the boundary bookkeeping.
            if let Some(before) = text[..at].chars().next_back() {
                match normalizer.map(before) {
                    None => after_separator = true,
                    Some(kept) => {
                        after_separator = false;
                        last_alphanumeric = kept.is_ascii_alphanumeric();
                    }
                }
            }
        }
        let Some(c) = text[at..].chars().next() else { break };
        let encoded = &bytes[at..at + c.len_utf8()];
        at += encoded.len();
        let this = original;
        original += 1;

        let mut flags = alphabet.bmp.get(c as usize).copied().unwrap_or(Alphabet::CHANGED);
        let mut normalized = c;
        if flags & Alphabet::CHANGED != 0 {
            let Some(n) = normalizer.map(c) else {
                after_separator = true;
                continue;
            };
            normalized = n;
            flags = alphabet.of_normalized(n);
        }
        let ascii_alphanumeric = flags & Alphabet::ALPHANUMERIC != 0;
        if !waiting.is_empty() {
            let boundary = after_separator || !ascii_alphanumeric;
            candidates.extend(waiting.drain(..).filter(|_| boundary));
        }
        let glued_to_alphanumeric = last_alphanumeric && !after_separator;
        last_alphanumeric = ascii_alphanumeric;
        after_separator = false;
        if flags & Alphabet::IN_WORDS == 0 {
            state = start;
            continue;
        }
        // From the start state: a character that begins no word stays
        // there; so does an ASCII letter or digit inside a run of them,
        // since a word starting there would fail the boundary rule.
        if state == start && (flags & Alphabet::FIRST == 0 || (ascii_alphanumeric && glued_to_alphanumeric)) {
            continue;
        }
        // Fed characters since the last return to the start state are
        // consecutive kept characters, so a match of n characters covers
        // the last n fed.
        ring[fed % RING] = Seen { original: this as u32, glued_to_alphanumeric };
        fed += 1;
        let normalized_bytes = if normalized == c { encoded } else { normalized.encode_utf8(&mut utf8).as_bytes() };
        for &byte in normalized_bytes {
            state = automaton.next_state(Anchored::No, state, byte);
        }
        // Patterns are whole characters, so a match can only end here.
        if !(automaton.is_special(state) && automaton.is_match(state)) {
            continue;
        }
        for i in 0..automaton.match_len(state) {
            let id = automaton.match_pattern(state, i).as_usize();
            let pattern = &patterns[id];
            let head = ring[(fed - pattern.chars) % RING];
            let (start, end) = (head.original as usize, this + 1);
            if let Some(scope) = pattern.allow {
                allowed.push((start, end, scope));
            }
            if pattern.entry.is_none() || (pattern.ascii_start && head.glued_to_alphanumeric) {
                continue;
            }
            let candidate = Candidate { start, end, pattern: id };
            if pattern.ascii_end {
                waiting.push(candidate);
            } else {
                candidates.push(candidate);
            }
        }
    }
    candidates.append(&mut waiting);
    finish(candidates, allowed, patterns)
}

/// Applies the allow phrases, sorts, and hides nested hits of one category.
/// Containment is tested in original offsets, which keep the order of the
/// normalized characters.
fn finish(candidates: Vec<Candidate>, allowed: Vec<(usize, usize, AllowScope)>, patterns: &[Pattern]) -> Vec<Hit> {
    let every = AllowSpans::new(allowed.iter().map(|a| (a.0, a.1)).collect());
    let account = AllowSpans::new(allowed.iter().filter(|a| a.2 == AllowScope::Account).map(|a| (a.0, a.1)).collect());
    let mut hits: Vec<Hit> = candidates
        .into_iter()
        .filter_map(|c| {
            let entry = patterns[c.pattern].entry.as_ref()?;
            let spans = if entry.list == "account" { &account } else { &every };
            (!spans.cover(c.start, c.end)).then(|| Hit { start: c.start, end: c.end, entry: entry.clone() })
        })
        .collect();
    hits.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));

    // Nested hits of one category: keep the outer one. Sorted by start, a
    // hit is inside an earlier kept hit of its category iff that category's
    // furthest end so far reaches past it.
    let mut furthest: Vec<(&str, usize)> = Vec::new();
    let mut kept = Vec::with_capacity(hits.len());
    for hit in &hits {
        let category = hit.entry.category.as_str();
        match furthest.iter_mut().find(|(c, _)| *c == category) {
            Some((_, end)) if *end >= hit.end => continue,
            Some((_, end)) => *end = hit.end,
            None => furthest.push((category, hit.end)),
        }
        kept.push(hit.clone());
    }
    kept
}

/// Allow-phrase occurrences, sorted by start, with the running maximum of
/// their ends, so "is [s, e) inside one of them" is one binary search.
struct AllowSpans {
    spans: Vec<(usize, usize)>,
    reach: Vec<usize>,
}

impl AllowSpans {
    fn new(mut spans: Vec<(usize, usize)>) -> AllowSpans {
        spans.sort_unstable();
        let mut max_end = 0;
        let reach = spans
            .iter()
            .map(|&(_, end)| {
                max_end = max_end.max(end);
                max_end
            })
            .collect();
        AllowSpans { spans, reach }
    }

    fn cover(&self, start: usize, end: usize) -> bool {
        let n = self.spans.partition_point(|&(s, _)| s <= start);
        n > 0 && self.reach[n - 1] >= end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(word: &str, category: &str) -> Arc<Entry> {
        Arc::new(Entry { word: word.into(), category: category.into(), rule: None, suggestion: None, list: "common" })
    }

    fn matcher(words: &[(&str, &str)], allow: &[&str]) -> Matcher {
        Matcher::build(words.iter().map(|(w, c)| entry(w, c)), allow.iter().map(|a| (*a, AllowScope::Builtin))).unwrap()
    }

    fn found(text: &str, m: &Matcher) -> Vec<(usize, usize, String)> {
        scan(text, m).into_iter().map(|h| (h.start, h.end, h.entry.word.clone())).collect()
    }

    #[test]
    fn offsets_are_original_characters() {
        let m = matcher(&[("微信", "站外导流"), ("最佳", "极限用语"), ("vx", "站外导流"), ("國家級", "极限用语")], &[]);
        type Expected<'a> = &'a [(usize, usize, &'a str)];
        let table: &[(&str, Expected)] = &[
            ("加微信", &[(1, 3, "微信")]),
            ("😀微信", &[(1, 3, "微信")]),
            ("𠮷𠮷微 信😀最佳", &[(2, 5, "微信"), (6, 8, "最佳")]),
            ("微-信", &[(0, 3, "微信")]),
            ("微.信", &[(0, 3, "微信")]),
            ("微\u{200B}\u{200B}信", &[(0, 4, "微信")]),
            ("加ＶＸ号", &[(1, 3, "vx")]),
            ("加 V X", &[(2, 5, "vx")]),
            ("最佳 ", &[(0, 2, "最佳")]),
            (" 最佳", &[(1, 3, "最佳")]),
            ("國家級認證", &[(0, 3, "國家級")]),
            ("国家级", &[(0, 3, "國家級")]),
            ("微，信", &[]),
            ("", &[]),
        ];
        for (text, expected) in table {
            let expected: Vec<(usize, usize, String)> =
                expected.iter().map(|(s, e, w)| (*s, *e, w.to_string())).collect();
            assert_eq!(found(text, &m), expected, "{text:?}");
        }
    }

    #[test]
    fn latin_words_need_boundaries() {
        let m = matcher(&[("vx", "站外导流"), ("加v", "站外导流"), ("100%", "极限用语")], &[]);
        assert_eq!(found("divx", &m), vec![]);
        assert_eq!(found("di vx", &m), vec![(3, 5, "vx".to_string())]);
        assert_eq!(found("vx1", &m), vec![]);
        assert_eq!(found("vx 1", &m), vec![(0, 2, "vx".to_string())]);
        assert_eq!(found("VX：abc", &m), vec![(0, 2, "vx".to_string())]);
        assert_eq!(found("加VIP会员", &m), vec![]);
        assert_eq!(found("加V：abc", &m), vec![(0, 2, "加v".to_string())]);
        assert_eq!(found("有效100%", &m), vec![(2, 6, "100%".to_string())]);
        assert_eq!(found("2100%", &m), vec![]);
    }

    #[test]
    fn overlapping_and_nested_hits() {
        let m = matcher(
            &[("全网最低", "极限用语"), ("最低价", "极限用语"), ("低价", "极限用语"), ("价保", "金融承诺")],
            &[],
        );
        // 全网最低 and 最低价 overlap: both stay; 低价 is inside 最低价 (same
        // category): hidden; 价保 overlaps in another category: stays.
        assert_eq!(
            found("全网最低价保", &m),
            vec![(0, 4, "全网最低".into()), (2, 5, "最低价".into()), (4, 6, "价保".into())]
        );
        let m = matcher(&[("加vx", "站外导流"), ("vx", "站外导流"), ("vx", "低俗用语")], &[]);
        assert_eq!(found("加vx", &m), vec![(0, 3, "加vx".into())]);
    }

    #[test]
    fn allow_phrases_hide_hits_inside_them() {
        let m = matcher(&[("最佳", "极限用语"), ("绝对", "极限用语")], &["最佳实践", "绝对"]);
        assert_eq!(found("最佳实践和最佳产品", &m), vec![(5, 7, "最佳".into())]);
        assert_eq!(found("最 佳 实 践", &m), vec![]);
        assert_eq!(found("绝对好用", &m), vec![]);
    }

    #[test]
    fn builtin_allow_phrases_never_hide_account_words() {
        let account = Arc::new(Entry {
            word: "实践".into(),
            category: "自定义".into(),
            rule: None,
            suggestion: None,
            list: "account",
        });
        let m = Matcher::build(
            [account, entry("最佳", "极限用语")],
            [("最佳实践", AllowScope::Builtin), ("最佳", AllowScope::Account)],
        )
        .unwrap();
        // The account allows 最佳 (hides the built-in word); the built-in
        // allow phrase 最佳实践 does not hide the account's 实践.
        let words: Vec<String> = scan("最佳实践", &m).into_iter().map(|h| h.entry.word.clone()).collect();
        assert_eq!(words, vec!["实践"]);
    }

    #[test]
    fn first_entry_wins_among_equal_normal_forms() {
        let m = matcher(&[("加V", "站外导流"), ("加v", "低俗用语")], &[]);
        assert_eq!(m.len(), 1);
        assert_eq!(scan("加v", &m)[0].entry.word, "加V");
    }

    #[test]
    fn large_sets_use_the_nfa_with_the_same_results() {
        let words: Vec<String> = (0..5000).map(|i| format!("词{i:04}号")).collect();
        let m =
            Matcher::build(words.iter().map(|w| entry(w, "自定义")).chain([entry("最佳", "极限用语")]), []).unwrap();
        assert!(matches!(m.engine, Some(Engine::Nfa(_))));
        assert_eq!(found("😀词 0042 号最佳", &m), vec![(1, 9, "词0042号".into()), (9, 11, "最佳".into())]);
    }

    /// The search against a plain reading of the rules over [`normalize`]:
    /// every occurrence of every word in the normalized text, boundary rule,
    /// allow phrases, nested hits; on random texts mixing words, their
    /// variants, separators, emoji, and one-, two-, three- and four-byte
    /// characters.
    #[test]
    fn search_agrees_with_a_plain_reading_of_the_rules() {
        use crate::banned_words::normalize::normalize;

        let words: &[(&str, &str, &str)] = &[
            ("最佳", "极限用语", "common"),
            ("全网最低", "极限用语", "common"),
            ("最低价", "极限用语", "common"),
            ("加vx", "站外导流", "common"),
            ("vx", "站外导流", "common"),
            ("微信", "站外导流", "common"),
            ("國家級", "极限用语", "common"),
            ("100%", "极限用语", "common"),
            ("tmd", "低俗用语", "common"),
            ("操", "低俗用语", "common"),
            ("𠮷野", "自定义", "account"),
            ("实践", "自定义", "account"),
            ("é信", "自定义", "account"),
        ];
        let allow: &[(&str, AllowScope)] = &[("最佳实践", AllowScope::Builtin), ("微信号", AllowScope::Account)];
        let entries: Vec<Arc<Entry>> = words
            .iter()
            .map(|(w, c, l)| {
                Arc::new(Entry { word: (*w).into(), category: (*c).into(), rule: None, suggestion: None, list: l })
            })
            .collect();
        let matcher = Matcher::build(entries.iter().cloned(), allow.iter().copied()).unwrap();

        let alphabet: Vec<char> =
            "最佳全网低价加vxVＸ微信号國家级100%tmdTMD操𠮷野实践é的ab😀，。 -\u{200B}·★".chars().collect();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut total = 0;
        for round in 0..3000 {
            let len = (next() % 24) as usize;
            let text: String = (0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect();

            let n = normalize(&text);
            let chars: Vec<char> = n.text.chars().collect();
            let occurrences = |word: &str| -> Vec<(usize, usize)> {
                let w: Vec<char> = normalize_word(word).chars().collect();
                (0..chars.len()).filter(|&k| chars[k..].starts_with(&w)).map(|k| (k, k + w.len())).collect()
            };
            let original = |k: usize, past: usize| (n.original_index(k), n.original_index(past - 1) + 1);
            let glued = |k: usize| k > 0 && !n.dropped_before(k) && chars[k - 1].is_ascii_alphanumeric();
            let mut expected: Vec<(usize, usize, &str, &str)> = Vec::new();
            for entry in &entries {
                let w: Vec<char> = normalize_word(&entry.word).chars().collect();
                if entries.iter().position(|e| normalize_word(&e.word) == normalize_word(&entry.word))
                    != entries.iter().position(|e| Arc::ptr_eq(e, entry))
                {
                    continue; // a duplicate normal form: the first entry wins
                }
                for (k, past) in occurrences(&entry.word) {
                    if w[0].is_ascii_alphanumeric() && glued(k) {
                        continue;
                    }
                    let after = past < chars.len() && !n.dropped_before(past) && chars[past].is_ascii_alphanumeric();
                    if w[w.len() - 1].is_ascii_alphanumeric() && after {
                        continue;
                    }
                    let (start, end) = original(k, past);
                    let covered = allow.iter().any(|(phrase, scope)| {
                        (entry.list != "account" || *scope == AllowScope::Account)
                            && occurrences(phrase)
                                .into_iter()
                                .map(|(a, b)| original(a, b))
                                .any(|(a, b)| a <= start && end <= b)
                    });
                    if !covered {
                        expected.push((start, end, entry.word.as_str(), entry.category.as_str()));
                    }
                }
            }
            let nested = |h: &(usize, usize, &str, &str)| {
                expected.iter().any(|o| o.3 == h.3 && o.0 <= h.0 && h.1 <= o.1 && (o.0, o.1) != (h.0, h.1))
            };
            let mut expected: Vec<(usize, usize, String)> =
                expected.iter().filter(|h| !nested(h)).map(|h| (h.0, h.1, h.2.to_string())).collect();
            expected.sort();
            expected.dedup();
            let mut found = found(&text, &matcher);
            found.sort();
            assert_eq!(found, expected, "round {round}: {text:?} (normalized {:?})", n.text);
            total += found.len();
        }
        assert!(total > 500, "the random texts hit too rarely to test much: {total}");
    }

    #[test]
    fn long_words_are_skipped() {
        let long = "长".repeat(MAX_PATTERN_CHARS + 1);
        let m = matcher(&[(&long, "自定义")], &[]);
        assert!(m.is_empty());
        assert!(scan(&long, &m).is_empty());
    }
}
