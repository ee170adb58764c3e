//! The platforms a banned-word check can target (spec 4.6: "platform name or
//! number"; the numbers are spec 4.12's: 0 articles, 1 shortvideo,
//! 3 lifestyle, 6 videosite). Each selects its extra word list
//! (`ops/lexicon/platforms/<name>.tsv`).

use mediaops_proto::error::ServiceError;
use mediaops_proto::excerpt::excerpt;

/// A target platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Platform {
    /// Official-account articles (公众号).
    Articles,
    /// Short video (抖音).
    Shortvideo,
    /// Lifestyle notes (小红书).
    Lifestyle,
    /// Long-video site (B站).
    Videosite,
}

impl Platform {
    /// Every platform, in spec-number order.
    pub const ALL: [Platform; 4] = [Platform::Articles, Platform::Shortvideo, Platform::Lifestyle, Platform::Videosite];

    /// The platform token of spec 1, e.g. `articles`.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Articles => "articles",
            Platform::Shortvideo => "shortvideo",
            Platform::Lifestyle => "lifestyle",
            Platform::Videosite => "videosite",
        }
    }

    /// The spec 4.12 number.
    pub fn number(self) -> u8 {
        match self {
            Platform::Articles => 0,
            Platform::Shortvideo => 1,
            Platform::Lifestyle => 3,
            Platform::Videosite => 6,
        }
    }

    /// Position in [`Platform::ALL`].
    pub fn index(self) -> usize {
        match self {
            Platform::Articles => 0,
            Platform::Shortvideo => 1,
            Platform::Lifestyle => 2,
            Platform::Videosite => 3,
        }
    }

    /// Accepted spellings besides the name and the number (compared after
    /// trimming and ASCII lower-casing).
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Platform::Articles => &["公众号", "微信公众号", "公众平台", "微信", "文章", "wechat", "mp"],
            Platform::Shortvideo => &["抖音", "短视频", "douyin"],
            Platform::Lifestyle => &["小红书", "笔记", "红书", "xiaohongshu", "xhs", "rednote"],
            Platform::Videosite => &["b站", "哔哩哔哩", "长视频", "bilibili"],
        }
    }

    /// Reads a platform given as name, number or alias.
    ///
    /// # Errors
    /// 400 `invalid_input` naming `field`, listing the accepted values.
    pub fn parse(value: &str, field: &str) -> Result<Platform, ServiceError> {
        let wanted = value.trim().to_ascii_lowercase();
        Platform::ALL
            .into_iter()
            .find(|p| wanted == p.name() || wanted == p.number().to_string() || p.aliases().contains(&wanted.as_str()))
            .ok_or_else(|| {
                let accepted: Vec<String> = Platform::ALL
                    .iter()
                    .map(|p| format!("{} ({}, {})", p.name(), p.number(), p.aliases()[0]))
                    .collect();
                ServiceError::invalid_field(
                    field,
                    format!("unknown platform {}; use a name or number: {}", excerpt(value), accepted.join(", ")),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_numbers_and_aliases() {
        let table = [
            ("articles", Platform::Articles),
            ("0", Platform::Articles),
            (" 公众号 ", Platform::Articles),
            ("WeChat", Platform::Articles),
            ("1", Platform::Shortvideo),
            ("抖音", Platform::Shortvideo),
            ("短视频", Platform::Shortvideo),
            ("ShortVideo", Platform::Shortvideo),
            ("3", Platform::Lifestyle),
            ("小红书", Platform::Lifestyle),
            ("笔记", Platform::Lifestyle),
            ("6", Platform::Videosite),
            ("B站", Platform::Videosite),
            ("长视频", Platform::Videosite),
            ("videosite", Platform::Videosite),
        ];
        for (input, expected) in table {
            assert_eq!(Platform::parse(input, "platform").unwrap(), expected, "{input}");
        }
    }

    #[test]
    fn unknown_platform_names_the_field() {
        for input in ["2", "weibo", "", "articles2"] {
            let error = Platform::parse(input, "platform").unwrap_err();
            assert_eq!(error.field.as_deref(), Some("platform"));
            assert!(error.message.contains("articles (0, 公众号)"), "{}", error.message);
        }
    }
}
