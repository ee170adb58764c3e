//! What the chat model is asked and how its reply is read
//! (docs/web-search.md "Prompt and citations").
//!
//! The search hits are numbered from 1 in the order the search backend
//! ranked them; `references[n-1]` is hit `n`, and the model cites it as
//! `[n]` in the text. The model ends its reply with a line `延伸问题：`
//! followed by follow-up questions, one per line starting with `- `; they
//! become the first `suggestions`, the search backend's own suggestions
//! follow.

use super::chat::Message;
use super::searxng::Hit;

/// The line that starts the follow-up questions in the model's reply.
pub const FOLLOW_UP_MARKER: &str = "延伸问题";

/// Most suggestions returned.
pub const MAX_SUGGESTIONS: usize = 6;

/// Longest snippet of a hit given to the model, in characters.
const SNIPPET_CHARS: usize = 500;

/// The system instruction.
pub const SYSTEM: &str = "你是联网搜索助手。只依据用户消息中给出的编号搜索结果回答问题，\
不要编造结果里没有的事实；结果不足以回答时直接说明。\
用问题所用的语言作答（中文问题用简体中文），条理清楚、简洁。\
每句用到某条结果的话，在句末用方括号标注它的编号，如 [1] 或 [2][3]，只能使用给出的编号。\
正文之后另起一行写“延伸问题：”，再写 3 个用户可能接着问的问题，每行以“- ”开头。";

/// The conversation for `query` over `hits`.
pub fn messages(query: &str, hits: &[Hit]) -> Vec<Message> {
    let mut user = format!("问题：{query}\n\n搜索结果：\n");
    for (i, hit) in hits.iter().enumerate() {
        let snippet: String = hit.content.trim().chars().take(SNIPPET_CHARS).collect();
        user.push_str(&format!("\n[{}] {}\n链接：{}\n", i + 1, hit.title.trim(), hit.url));
        if !snippet.is_empty() {
            user.push_str(&format!("摘要：{snippet}\n"));
        }
    }
    vec![Message { role: "system", content: SYSTEM.to_owned() }, Message { role: "user", content: user }]
}

/// The model's reply split into the answer and its follow-up questions.
pub fn split_reply(reply: &str) -> (String, Vec<String>) {
    let lines: Vec<&str> = reply.lines().collect();
    let marker = lines.iter().rposition(|line| {
        let line = line.trim().trim_start_matches(['#', '*', ' ']);
        line.starts_with(FOLLOW_UP_MARKER)
    });
    let Some(at) = marker else { return (reply.trim().to_owned(), Vec::new()) };
    let questions = lines[at + 1..]
        .iter()
        .map(|line| line.trim())
        .filter_map(|line| {
            let item = line
                .strip_prefix("- ")
                .or_else(|| line.strip_prefix("* "))
                .or_else(|| line.strip_prefix("• "))
                .or_else(|| strip_number(line))?;
            let item = item.trim();
            (!item.is_empty()).then(|| item.to_owned())
        })
        .collect();
    (lines[..at].join("\n").trim().to_owned(), questions)
}

/// `content` without citations of numbers no reference has (`[0]`, or
/// above `references`): a model that invents a source does not get to
/// point at nothing.
pub fn drop_unknown_citations(content: &str, references: usize) -> String {
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let cited = (digits > 0 && after[digits..].starts_with(']')).then(|| after[..digits].parse::<usize>().ok());
        match cited {
            Some(Some(n)) if (1..=references).contains(&n) => {
                out.push_str(&rest[open..open + digits + 2]);
                rest = &after[digits + 1..];
            }
            Some(_) => rest = &after[digits + 1..],
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `1. x`, `1、x`, `1) x` → `x`.
fn strip_number(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches(|c: char| c.is_ascii_digit());
    (rest.len() < line.len()).then_some(())?;
    rest.strip_prefix('.').or_else(|| rest.strip_prefix('、')).or_else(|| rest.strip_prefix(')'))
}

/// Follow-up questions first, then the search backend's suggestions,
/// without repeats, at most [`MAX_SUGGESTIONS`].
pub fn suggestions(follow_ups: Vec<String>, searched: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in follow_ups.into_iter().chain(searched.iter().map(|s| s.trim().to_owned())) {
        if !item.is_empty() && !out.contains(&item) && out.len() < MAX_SUGGESTIONS {
            out.push(item);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reply_is_split_at_the_last_follow_up_marker() {
        let reply = "露营需要帐篷 [1]，也要睡袋 [2]。\n\n延伸问题：\n- 冬季露营怎么保暖？\n2. 新手买什么帐篷？\n\n";
        let (content, questions) = split_reply(reply);
        assert_eq!(content, "露营需要帐篷 [1]，也要睡袋 [2]。");
        assert_eq!(questions, ["冬季露营怎么保暖？", "新手买什么帐篷？"]);
        let (content, questions) = split_reply("只有正文 [1]");
        assert_eq!((content.as_str(), questions.len()), ("只有正文 [1]", 0));
        let (_, questions) = split_reply("正文\n**延伸问题：**\n* 问题一");
        assert_eq!(questions, ["问题一"]);
    }

    #[test]
    fn hits_are_numbered_from_one_in_order() {
        let hit =
            |t: &str, u: &str| Hit { title: t.into(), url: u.into(), content: "摘要".into(), engine: "bing".into() };
        let m = messages("露营装备", &[hit("甲", "https://a.example/"), hit("乙", "https://b.example/")]);
        assert_eq!(m[0].role, "system");
        assert!(m[1].content.starts_with("问题：露营装备"));
        let first = m[1].content.find("[1] 甲\n链接：https://a.example/").unwrap();
        let second = m[1].content.find("[2] 乙\n链接：https://b.example/").unwrap();
        assert!(first < second);
    }

    #[test]
    fn citations_of_missing_references_are_dropped() {
        assert_eq!(
            drop_unknown_citations("甲 [1]，乙 [4][2]，丙 [0]。[见] [x] [", 3),
            "甲 [1]，乙 [2]，丙 。[见] [x] ["
        );
        assert_eq!(drop_unknown_citations("[99999999999999999999999]", 3), "");
    }

    #[test]
    fn suggestions_merge_without_repeats() {
        let merged = suggestions(vec!["a".into(), "b".into()], &["b".into(), " ".into(), "c".into()]);
        assert_eq!(merged, ["a", "b", "c"]);
    }
}
