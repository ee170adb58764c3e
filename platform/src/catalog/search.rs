//! Skill search relevance (docs/catalog.md "Skill search").
//!
//! The query is segmented with jieba (search mode, [`mediaops_store::text::terms`]); single CJK characters are
//! dropped unless the query is one character. Each term scores, once per
//! place it is found: title 3, slug 2, tags 2, category 2, summary or hero
//! description 1. A query equal to the title adds 5. `matchScore` is the sum;
//! `matchReasons` says which places matched which term.

use mediaops_proto::mediaops::catalog::v1::SkillEntry;

/// Score and reasons of one skill for the query's terms.
pub fn score(entry: &SkillEntry, query: &str, terms: &[String]) -> (f64, Vec<String>) {
    let mut score = 0.0;
    let mut reasons = Vec::new();
    let title = entry.title.to_lowercase();
    if !query.trim().is_empty() && title == query.trim().to_lowercase() {
        score += 5.0;
        reasons.push("标题完全匹配".to_owned());
    }
    for term in terms {
        let places: [(&str, f64, bool); 5] = [
            ("标题", 3.0, title.contains(term.as_str())),
            ("标识", 2.0, entry.slug.contains(term.as_str())),
            ("标签", 2.0, entry.tags.iter().any(|t| t.to_lowercase().contains(term.as_str()))),
            ("分类", 2.0, entry.category.contains(term.as_str())),
            (
                "简介",
                1.0,
                entry.summary.to_lowercase().contains(term.as_str())
                    || entry.hero_description.to_lowercase().contains(term.as_str()),
            ),
        ];
        for (place, weight, hit) in places {
            if hit {
                score += weight;
                reasons.push(format!("{place}包含“{term}”"));
            }
        }
    }
    (score, reasons)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mediaops_store::text::terms;

    #[test]
    fn terms_are_segmented_and_deduplicated() {
        let t = terms("热点 雷达 热点");
        assert_eq!(t, vec!["热点".to_owned(), "雷达".to_owned()]);
        assert!(terms("，。 ").is_empty());
    }

    #[test]
    fn title_hits_outweigh_summary_hits() {
        let in_title = SkillEntry { title: "趋势雷达".into(), slug: "trend-radar".into(), ..Default::default() };
        let in_summary = SkillEntry { title: "别的".into(), summary: "看趋势".into(), ..Default::default() };
        let t = terms("趋势");
        let (a, reasons) = score(&in_title, "趋势", &t);
        let (b, _) = score(&in_summary, "趋势", &t);
        assert!(a > b && b > 0.0);
        assert_eq!(reasons, vec!["标题包含“趋势”"]);
    }
}
