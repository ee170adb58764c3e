//! The topic classifier behind the AI feeds (`*-ai-feed`) and the 短剧
//! feeds (`*-playlet-feed`, `multi/playlet-feed`) (docs/store.md "Topics").
//!
//! Method: a work's text is scored against a small lexicon per topic.
//! Latin terms (`ai`, `chatgpt`, `aigc`) are matched as whole segmented
//! words, so `AI绘画` counts and `MAIN` does not; Chinese terms are matched
//! as substrings of the lower-cased text, so a term jieba would cut apart
//! (`短剧`) still counts. Each distinct term found adds its weight (strong
//! terms 3, supporting terms 1) times the field's weight (title and tags 2,
//! description 1). A work belongs to a topic when its score reaches
//! [`THRESHOLD`] (6): one strong term in the title is enough; a strong term
//! only in the description needs support from another term.
//!
//! The result is written into the full-text index as a marker term
//! ([`Topic::marker`]) when the work is stored, so a feed is an indexed
//! query (keyword terms AND the marker), not a scan.

/// Score a work needs to belong to a topic.
pub const THRESHOLD: u32 = 6;

/// A content topic with its own feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topic {
    /// AI: models, tools, AI-made content.
    Ai,
    /// 短剧 (short dramas, playlets).
    Playlet,
}

impl Topic {
    /// Every topic.
    pub const ALL: [Topic; 2] = [Topic::Ai, Topic::Playlet];

    /// The index term that marks a work of this topic (letters only, so
    /// both full-text backends keep it whole).
    pub fn marker(self) -> &'static str {
        match self {
            Topic::Ai => "zztopicai",
            Topic::Playlet => "zztopicplaylet",
        }
    }

    /// (term, weight) pairs; Latin terms are lower case.
    fn lexicon(self) -> &'static [(&'static str, u32)] {
        match self {
            Topic::Ai => &[
                ("ai", 3),
                ("aigc", 3),
                ("人工智能", 3),
                ("大模型", 3),
                ("chatgpt", 3),
                ("gpt", 3),
                ("deepseek", 3),
                ("midjourney", 3),
                ("stable diffusion", 3),
                ("sora", 3),
                ("文心一言", 3),
                ("通义千问", 3),
                ("kimi", 3),
                ("豆包", 1),
                ("智能体", 3),
                ("生成式", 3),
                ("机器学习", 3),
                ("深度学习", 3),
                ("神经网络", 3),
                ("llm", 3),
                ("agent", 1),
                ("算法", 1),
                ("智能", 1),
                ("机器人", 1),
                ("数字人", 3),
                ("提示词", 3),
                ("prompt", 3),
                ("模型", 1),
                ("自动化", 1),
            ],
            Topic::Playlet => &[
                ("短剧", 3),
                ("微短剧", 3),
                ("竖屏剧", 3),
                ("网络短剧", 3),
                ("付费短剧", 3),
                ("霸总", 3),
                ("霸道总裁", 3),
                ("赘婿", 3),
                ("战神", 1),
                ("重生", 1),
                ("逆袭", 1),
                ("甜宠", 1),
                ("追剧", 1),
                ("剧集", 1),
                ("爽剧", 3),
                ("集合集", 1),
                ("全集", 1),
                ("小剧场", 1),
                ("番外", 1),
            ],
        }
    }

    /// The topic's score for a text in one field of weight `field_weight`,
    /// counting only terms not already in `seen`.
    fn score_field(self, text: &str, words: &[String], field_weight: u32, seen: &mut Vec<&'static str>) -> u32 {
        let mut score = 0;
        for &(term, weight) in self.lexicon() {
            if seen.contains(&term) {
                continue;
            }
            let found = if term.is_ascii() {
                if term.contains(' ') { text.contains(term) } else { words.iter().any(|w| w == term) }
            } else {
                text.contains(term)
            };
            if found {
                seen.push(term);
                score += weight * field_weight;
            }
        }
        score
    }

    /// The work's score for this topic (see the module docs).
    pub fn score(self, title: &str, description: Option<&str>, tags: &[String]) -> u32 {
        let mut seen = Vec::new();
        let mut score = 0;
        let heads = [title.to_owned(), tags.join(" ")];
        for (text, weight) in heads.iter().map(|t| (t.as_str(), 2)).chain(description.map(|d| (d, 1))) {
            let lower = text.to_lowercase();
            let words = crate::text::index_terms(&lower);
            score += self.score_field(&lower, &words, weight, &mut seen);
        }
        score
    }
}

/// The topics a work belongs to.
pub fn classify(title: &str, description: Option<&str>, tags: &[String]) -> Vec<Topic> {
    Topic::ALL.into_iter().filter(|topic| topic.score(title, description, tags) >= THRESHOLD).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strong_terms_in_the_title_classify_and_substrings_of_words_do_not() {
        assert_eq!(classify("AI绘画入门：三分钟出图", None, &[]), vec![Topic::Ai]);
        assert_eq!(classify("用 DeepSeek 写周报", None, &[]), vec![Topic::Ai]);
        assert_eq!(classify("MAIN STREET 探店", None, &[]), vec![]);
        assert_eq!(classify("霸总短剧第 3 集", None, &[]), vec![Topic::Playlet]);
        assert_eq!(classify("今日份露营", Some("带了新帐篷"), &["露营".into()]), vec![]);
    }

    #[test]
    fn a_description_needs_support() {
        assert_eq!(classify("周末随拍", Some("顺便聊聊 AI"), &[]), vec![]);
        assert_eq!(classify("周末随拍", Some("AI 算法 修图"), &[]), vec![]);
        assert_eq!(classify("周末随拍", Some("AI 大模型修图"), &[]), vec![Topic::Ai]);
        assert_eq!(classify("周末随拍", None, &["短剧".into()]), vec![Topic::Playlet]);
    }
}
