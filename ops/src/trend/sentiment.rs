//! Lexicon sentiment of Chinese texts (`cn-last30days`, spec 4.14;
//! docs/trends.md "Last 30 days").
//!
//! The lexicon (`data/sentiment.txt`) lists positive words, negative words
//! and negators. In a text, sentiment words are found leftmost-longest
//! (`好消息` before `消息`); a word counts +1 (positive) or −1 (negative),
//! flipped when a negator ends right before it or one character before it
//! (`不满意` is one negative word; `没有成功`, `不太满意` flip). A text
//! with `p` positive and `n` negative hits scores `(p − n) / (p + n)`; a text
//! without hits has no score. Over many texts, with `h` texts that have a
//! score:
//!
//! ```text
//! sentiment = Σ text scores / (h + 1)        in (−1, 1); 0 when h = 0
//! ```
//!
//! (the `+ 1` is one neutral pseudo-text, so a single hit does not give a
//! full ±1). Label: `positive` at [`POSITIVE_AT`] or more, `negative` at
//! [`NEGATIVE_AT`] or less, else `neutral`.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};

/// The lexicon file.
const LEXICON_FILE: &str = include_str!("data/sentiment.txt");

/// Lowest score labelled `positive`.
pub const POSITIVE_AT: f64 = 0.2;

/// Highest score labelled `negative`.
pub const NEGATIVE_AT: f64 = -0.2;

/// The parsed lexicon.
struct Lexicon {
    words: AhoCorasick,
    /// +1 / −1 per pattern of `words`.
    polarity: Vec<i8>,
    negators: Vec<&'static str>,
}

fn lexicon() -> &'static Lexicon {
    static LEXICON: OnceLock<Lexicon> = OnceLock::new();
    LEXICON.get_or_init(|| {
        let (mut patterns, mut polarity, mut negators) = (Vec::new(), Vec::new(), Vec::new());
        for line in LEXICON_FILE.lines().map(|l| l.split('#').next().unwrap_or("").trim()) {
            let mut parts = line.split_whitespace();
            let sign = parts.next();
            for word in parts {
                match sign {
                    Some("+") | Some("-") => {
                        patterns.push(word);
                        polarity.push(if sign == Some("+") { 1 } else { -1 });
                    }
                    Some("!") => negators.push(word),
                    _ => {}
                }
            }
        }
        let words = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .expect("the sentiment lexicon is a valid pattern set");
        Lexicon { words, polarity, negators }
    })
}

/// Whether a negator ends at the end of `before`, or one character before
/// its end.
fn negated(before: &str, negators: &[&str]) -> bool {
    let ends_with_negator = |s: &str| negators.iter().any(|n| s.ends_with(n));
    if ends_with_negator(before) {
        return true;
    }
    let mut chars = before.chars();
    chars.next_back();
    ends_with_negator(chars.as_str())
}

/// The score of one text in [−1, 1]; `None` when it holds no sentiment word.
pub fn text_score(text: &str) -> Option<f64> {
    let lexicon = lexicon();
    let (mut positive, mut negative) = (0u32, 0u32);
    for hit in lexicon.words.find_iter(text) {
        let mut sign = lexicon.polarity[hit.pattern().as_usize()];
        if negated(&text[..hit.start()], &lexicon.negators) {
            sign = -sign;
        }
        if sign > 0 { positive += 1 } else { negative += 1 }
    }
    let hits = positive + negative;
    (hits > 0).then(|| (f64::from(positive) - f64::from(negative)) / f64::from(hits))
}

/// The overall sentiment of `texts` (module docs) and its label.
pub fn sentiment<'a>(texts: impl IntoIterator<Item = &'a str>) -> (f64, &'static str) {
    let (mut sum, mut scored) = (0.0, 0u32);
    for score in texts.into_iter().filter_map(text_score) {
        sum += score;
        scored += 1;
    }
    let score = sum / f64::from(scored + 1);
    (score, label(score))
}

/// `positive`, `neutral` or `negative` for a score.
pub fn label(score: f64) -> &'static str {
    if score >= POSITIVE_AT {
        "positive"
    } else if score <= NEGATIVE_AT {
        "negative"
    } else {
        "neutral"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_count_and_negators_flip() {
        assert_eq!(text_score("U19国足胜韩国夺冠"), Some(1.0));
        assert_eq!(text_score("高速发生车祸多人受伤"), Some(-1.0));
        assert_eq!(text_score("新剧口碑两极：有人点赞有人吐槽"), Some(0.0));
        assert_eq!(text_score("发射没有成功"), Some(-1.0), "negated");
        assert_eq!(text_score("观众不太满意"), Some(-1.0), "a two-character negator");
        assert_eq!(text_score("他不满"), Some(-1.0), "不满 is one negative word");
        assert_eq!(text_score("暑假去贵州"), None, "no single-character words");
    }

    #[test]
    fn overall_scores_are_smoothed_and_labelled() {
        assert_eq!(sentiment(["今天天气"]), (0.0, "neutral"));
        assert_eq!(sentiment(["夺冠"]), (0.5, "positive"));
        let (score, label) = sentiment(["夺冠", "车祸", "车祸", "事故"]);
        assert!((score - (-2.0 / 5.0)).abs() < 1e-9);
        assert_eq!(label, "negative");
        assert_eq!(super::label(0.1), "neutral");
        let (score, _) = sentiment(["成功 成功 成功 成功"; 50]);
        assert!(score < 1.0 && score > 0.97, "always inside (-1, 1)");
    }
}
