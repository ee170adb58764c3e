//! The 14 built-in themes (spec 4.15). Each is a CSS file of ours under
//! `ops/themes/`, compiled into the binary, applied over the shared
//! `base.css` (which gives every element an article may contain a style, so
//! a theme only states its design). Ids are stable: clients store them.

use std::collections::HashMap;
use std::sync::LazyLock;

use two_face::theme::EmbeddedThemeName;

/// One built-in theme.
#[derive(Debug)]
pub struct BuiltinTheme {
    /// Stable id, `[a-z]+`.
    pub id: &'static str,
    /// Display name (Chinese).
    pub name: &'static str,
    /// One sentence (Chinese) on the look and the articles it suits, shown
    /// in the theme list.
    pub description: &'static str,
    /// Colours of highlighted code.
    pub code_theme: EmbeddedThemeName,
    /// The theme's own rules (without the base).
    pub css: &'static str,
}

/// Styles for every allowed element; every theme and custom theme is applied over it.
pub const BASE_CSS: &str = include_str!("../../../themes/base.css");

/// The theme used when neither the request nor the account names one.
pub const SERVICE_DEFAULT: &str = "neutral";

macro_rules! theme {
    ($id:literal, $name:literal, $description:literal, $code:ident) => {
        BuiltinTheme {
            id: $id,
            name: $name,
            description: $description,
            code_theme: EmbeddedThemeName::$code,
            css: include_str!(concat!("../../../themes/", $id, ".css")),
        }
    };
}

/// Every built-in theme, in the order the theme list shows them.
pub const BUILTIN: &[BuiltinTheme] = &[
    theme!("neutral", "中性", "黑灰正文、蓝色点缀，克制耐读，适合大多数文章（服务默认主题）。", Github),
    theme!("minimal", "极简", "大量留白与细线分隔，几乎不用颜色，让文字本身说话。", InspiredGithub),
    theme!("magazine", "杂志", "衬线大标题、朱红点缀与引文装饰，像翻阅一本纸质杂志。", InspiredGithub),
    theme!("classic", "经典", "公众号常见的绿色系排版，标题色块醒目，层次分明。", Github),
    theme!("elegant", "雅致", "宋体正文、暖米底色与金棕点缀，适合随笔、书评与人文长文。", SolarizedLight),
    theme!("tech", "科技", "蓝色主调、深色代码块与清晰的层级，适合技术文章与教程。", OneHalfDark),
    theme!("ink", "水墨", "黑白灰为主、朱砂红点睛，宋体标题，留白如水墨。", ColdarkCold),
    theme!("warm", "暖阳", "橙色暖调、圆角卡片，亲切活泼，适合生活方式与品牌故事。", MonokaiExtendedLight),
    theme!("forest", "森林", "墨绿与浅绿，清新自然，适合户外、健康与环保主题。", OneHalfLight),
    theme!("ocean", "海蓝", "深海蓝标题与浅蓝色块，沉稳清爽，适合商业与行业分析。", Nord),
    theme!("sakura", "樱粉", "柔和粉色与圆润细节，温柔轻盈，适合情感、美妆与生活类文章。", CatppuccinLatte),
    theme!("academic", "学术", "衬线标题、严谨表格与规整引文，适合研究报告与读书笔记。", Github),
    theme!("bold", "醒目", "黑底白字标题块与亮黄高亮，观点鲜明，适合评论与观点文章。", MonokaiExtended),
    theme!("retro", "复古", "牛皮纸色调与打字机式标题，怀旧温暖，适合故事与回忆。", GruvboxLight),
];

static FULL_CSS: LazyLock<HashMap<&'static str, String>> =
    LazyLock::new(|| BUILTIN.iter().map(|theme| (theme.id, format!("{BASE_CSS}\n{}", theme.css))).collect());

/// The built-in theme `id`.
pub fn find(id: &str) -> Option<&'static BuiltinTheme> {
    BUILTIN.iter().find(|theme| theme.id == id)
}

/// The service default theme.
pub fn service_default() -> &'static BuiltinTheme {
    find(SERVICE_DEFAULT).expect("the service default theme is built in")
}

impl BuiltinTheme {
    /// Base CSS followed by the theme's CSS.
    pub fn full_css(&self) -> &'static str {
        FULL_CSS.get(self.id).map(String::as_str).expect("every built-in theme has its full CSS")
    }
}

/// The ids of every built-in theme, comma-separated (for error messages).
pub fn ids() -> String {
    BUILTIN.iter().map(|t| t.id).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fourteen_distinct_themes_with_the_spec_ids() {
        assert_eq!(BUILTIN.len(), 14);
        let ids: std::collections::HashSet<_> = BUILTIN.iter().map(|t| t.id).collect();
        assert_eq!(ids.len(), 14);
        for id in ["magazine", "minimal", "neutral"] {
            assert!(find(id).is_some(), "{id}");
        }
        for theme in BUILTIN {
            assert!(theme.id.bytes().all(|b| b.is_ascii_lowercase()), "{}", theme.id);
            assert!(!theme.name.is_empty() && !theme.description.is_empty() && theme.css.len() > 500, "{}", theme.id);
        }
        assert_eq!(service_default().id, "neutral");
    }
}
