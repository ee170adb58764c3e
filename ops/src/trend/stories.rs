//! The same story across lists (`trend-radar`, spec 4.14; docs/trends.md
//! "Stories and heat"): items (one per list and title, [`super::entries`],
//! or a rising work) are merged by title similarity over segmented words,
//! and each story's heat combines rank, frequency and hot value.
//!
//! **Similarity** of two titles compares their term sets
//! ([`super::keywords::TitleTerms::terms`]): with `s` shared terms, they
//! are the same story when
//!
//! - the two sets are equal (`欧洲杯` on two lists), or
//! - `s ≥ 2` and Jaccard `s / |A ∪ B| ≥ 0.5` (two wordings of one headline:
//!   `U19国足胜韩国夺冠` / `国足U19夺冠`), or
//! - `s ≥ 3` and `s / min(|A|, |B|) ≥ 0.8` (a short headline inside a long
//!   question: `比亚迪高管回怼余承东` / `余承东称…比亚迪高管回怼…如何看`).
//!
//! Items are taken strongest first; each joins the story holding its most
//! similar member (single linkage), or starts a new one.
//!
//! **Heat.** An item's score is
//!
//! ```text
//! rank_score = (51 − min(rank, 50)) / 50                      1.0 for rank 1
//! hot_score  = hot / (highest hot of that list in the window)  when the list gives one
//! base       = rank_score, or (rank_score + hot_score) / 2 with a hot value
//! item       = base × (1 + ln(captures))                       captures = times seen
//! ```
//!
//! and a story's heat is `round(1000 × Σ over its lists of the best item
//! score on that list)`: a story high on several lists, for long, is
//! hottest. Its title is its strongest item's.

use std::collections::HashMap;
use std::sync::Arc;

use super::keywords::TitleTerms;

/// Ranks below this count as this rank.
pub const RANK_DEPTH: i64 = 50;

/// Jaccard threshold of the first similarity rule.
pub const JACCARD: f64 = 0.5;

/// Containment threshold of the second rule.
pub const CONTAINMENT: f64 = 0.8;

/// One item to merge.
#[derive(Debug, Clone)]
pub struct StoryItem {
    /// Where it is hot: a list name (`weibo`) or a platform token of rising
    /// works (`lifestyle`).
    pub origin: &'static str,
    /// The title as listed.
    pub title: String,
    /// 1-based.
    pub rank: i64,
    /// Times seen (captures) in the window, at least 1.
    pub captures: u32,
    /// The list's heat figure, when it gives one.
    pub hot: Option<i64>,
    /// The title's segmented terms, which stories are merged by.
    pub terms: Arc<TitleTerms>,
}

/// A merged story.
#[derive(Debug, Clone, PartialEq)]
pub struct Story {
    /// The title of its strongest item.
    pub title: String,
    /// The trend-radar heat (docs/trends.md "Stories and heat"): higher is hotter.
    pub heat: i64,
    /// Its origins, hottest first.
    pub origins: Vec<&'static str>,
    /// Its items (indexes into the merged slice), strongest first.
    pub members: Vec<usize>,
}

/// Whether two term sets are one story (module docs): their Jaccard
/// similarity when they are, else `None`.
pub fn similar(a: &[String], b: &[String]) -> Option<f64> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let shared = a.iter().filter(|t| b.contains(t)).count();
    let union = a.len() + b.len() - shared;
    let jaccard = shared as f64 / union as f64;
    let containment = shared as f64 / a.len().min(b.len()) as f64;
    let equal = shared == a.len() && a.len() == b.len();
    (equal || (shared >= 2 && jaccard >= JACCARD) || (shared >= 3 && containment >= CONTAINMENT)).then_some(jaccard)
}

/// Item scores (module docs), in item order.
fn item_scores(items: &[StoryItem]) -> Vec<f64> {
    let mut top_hot: HashMap<&str, i64> = HashMap::new();
    for item in items {
        if let Some(hot) = item.hot {
            let top = top_hot.entry(item.origin).or_insert(0);
            *top = (*top).max(hot);
        }
    }
    items
        .iter()
        .map(|item| {
            let rank_score = (RANK_DEPTH + 1 - item.rank.clamp(1, RANK_DEPTH)) as f64 / RANK_DEPTH as f64;
            let top = top_hot.get(item.origin).copied().unwrap_or(0);
            let base = match item.hot {
                Some(hot) if top > 0 => (rank_score + hot.max(0) as f64 / top as f64) / 2.0,
                _ => rank_score,
            };
            base * (1.0 + f64::from(item.captures.max(1)).ln())
        })
        .collect()
}

/// Merges `items` into stories, hottest first (ties: title).
pub fn merge(items: &[StoryItem]) -> Vec<Story> {
    let scores = item_scores(items);
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then_with(|| items[a].title.cmp(&items[b].title)));

    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut by_keyword: HashMap<&str, Vec<usize>> = HashMap::new();
    for &i in &order {
        let keys = &items[i].terms.terms;
        let mut best: Option<(f64, usize)> = None;
        let mut seen = Vec::new();
        for key in keys {
            for &story in by_keyword.get(key.as_str()).into_iter().flatten() {
                if seen.contains(&story) {
                    continue;
                }
                seen.push(story);
                let closest = members[story]
                    .iter()
                    .filter_map(|&m| similar(keys, &items[m].terms.terms))
                    .fold(None, |acc: Option<f64>, s| Some(acc.map_or(s, |a| a.max(s))));
                if let Some(s) = closest
                    && best.is_none_or(|(b, _)| s > b)
                {
                    best = Some((s, story));
                }
            }
        }
        let story = match best {
            Some((_, story)) => story,
            None => {
                members.push(Vec::new());
                members.len() - 1
            }
        };
        members[story].push(i);
        for key in keys {
            let stories = by_keyword.entry(key.as_str()).or_default();
            if !stories.contains(&story) {
                stories.push(story);
            }
        }
    }

    let mut stories: Vec<Story> = members
        .into_iter()
        .map(|m| {
            let mut best_per_origin: Vec<(&'static str, f64)> = Vec::new();
            for &i in &m {
                match best_per_origin.iter_mut().find(|(o, _)| *o == items[i].origin) {
                    Some((_, s)) => *s = s.max(scores[i]),
                    None => best_per_origin.push((items[i].origin, scores[i])),
                }
            }
            best_per_origin.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            let heat = (1000.0 * best_per_origin.iter().map(|(_, s)| s).sum::<f64>()).round() as i64;
            Story {
                title: items[m[0]].title.clone(),
                heat,
                origins: best_per_origin.into_iter().map(|(o, _)| o).collect(),
                members: m,
            }
        })
        .collect();
    stories.sort_by(|a, b| b.heat.cmp(&a.heat).then_with(|| a.title.cmp(&b.title)));
    stories
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(origin: &'static str, title: &str, rank: i64, captures: u32, hot: Option<i64>) -> StoryItem {
        StoryItem { origin, title: title.into(), rank, captures, hot, terms: Arc::new(TitleTerms::of(title)) }
    }

    fn keys(title: &str) -> Vec<String> {
        TitleTerms::of(title).terms
    }

    #[test]
    fn similar_titles_are_one_story_and_others_are_not() {
        assert!(similar(&keys("U19国足胜韩国夺冠"), &keys("国足U19战胜韩国夺冠")).is_some());
        assert!(similar(&keys("U19国足胜韩国夺冠"), &keys("韩国队夺冠")).is_none(), "one shared word is not enough");
        assert!(similar(&keys("刘亦菲新剧口碑"), &keys("佟大为万茜新剧是欢喜冤家")).is_none());
        let long = "余承东称比亚迪卷价格华为卷价值，比亚迪高管回怼技术好产品好价格又好才叫好价值，如何看两人的言论？";
        assert!(similar(&keys("比亚迪高管回怼余承东"), &keys(long)).is_some(), "a short headline inside a question");
        assert!(similar(&[], &keys("国足")).is_none());
        assert_eq!(keys("高考").len(), 1);
        assert_eq!(similar(&keys("高考"), &keys("高考！")), Some(1.0), "one word, the same");
    }

    #[test]
    fn stories_merge_across_lists_and_heat_follows_the_formula() {
        let items = vec![
            item("weibo", "U19国足胜韩国夺冠", 1, 4, Some(2_000_000)),
            item("weibo", "刘亦菲新剧口碑", 2, 1, Some(1_000_000)),
            item("douyin", "国足U19战胜韩国夺冠", 3, 1, None),
            item("douyin", "高考后的小丑时刻", 1, 1, None),
        ];
        let stories = merge(&items);
        assert_eq!(stories.len(), 3);
        let football = &stories[0];
        assert_eq!(football.title, "U19国足胜韩国夺冠");
        assert_eq!(football.origins, ["weibo", "douyin"]);
        assert_eq!(football.members, [0, 2]);
        // weibo: rank 1 (1.0) and the top hot (1.0) → 1.0 × (1 + ln 4); douyin: rank 3 → 0.96.
        let expected = (1000.0 * ((1.0 + 4f64.ln()) + 0.96)).round() as i64;
        assert_eq!(football.heat, expected);
        let star = stories.iter().find(|s| s.title == "刘亦菲新剧口碑").unwrap();
        assert_eq!(star.heat, (1000.0f64 * (0.98 + 0.5) / 2.0).round() as i64, "half the top hot value");
        assert!(stories.windows(2).all(|w| w[0].heat >= w[1].heat));
    }
}
