//! The seven public hot lists the collectors read (design
//! HOTLISTS.md). [`Source::name`] is the stable name stored as
//! `HotListEntry.source` (`weibo`, `douyin`, `bilibili`, `kuaishou`, `zhihu`,
//! `toutiao`, `baidu`): the trend operations and the archive import rely on
//! it, so it never changes. [`Source::display_name`] is the list's Chinese
//! name (spec 4.11 `trending-hub-keyword`: "platform (list name)") and
//! [`Source::kind`] the kind of list the spec names (microblog, short-video,
//! video-site, clip, Q&A, headline, search-engine).

use std::fmt;

/// One public hot list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// Weibo realtime hot search (微博热搜).
    Weibo,
    /// Douyin hot search (抖音热榜).
    Douyin,
    /// Bilibili ranking / popular (B站热门).
    Bilibili,
    /// Kuaishou hot rank (快手热榜).
    Kuaishou,
    /// Zhihu hot list (知乎热榜).
    Zhihu,
    /// Toutiao hot board (今日头条热榜).
    Toutiao,
    /// Baidu realtime hot search (百度热搜).
    Baidu,
}

/// The kind of list a source is, as the spec groups hot lists
/// (`trending-hub-keyword`: "microblog, short-video, video-site, clip, Q&A,
/// headline and search-engine hot lists").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceKind {
    /// Microblog hot searches (`microblog`: Weibo).
    Microblog,
    /// Short-video hot boards (`short-video`: Douyin).
    ShortVideo,
    /// Video-site popular lists (`video-site`: Bilibili).
    VideoSite,
    /// Clip-app hot boards (`clip`: Kuaishou).
    Clip,
    /// Q&A hot lists (`qa`: Zhihu).
    QuestionAnswer,
    /// Headline (news) hot boards (`headline`: Toutiao).
    Headline,
    /// Search-engine hot searches (`search-engine`: Baidu).
    SearchEngine,
}

impl SourceKind {
    /// Stable token: `microblog`, `short-video`, `video-site`, `clip`, `qa`,
    /// `headline`, `search-engine`.
    pub fn name(self) -> &'static str {
        match self {
            SourceKind::Microblog => "microblog",
            SourceKind::ShortVideo => "short-video",
            SourceKind::VideoSite => "video-site",
            SourceKind::Clip => "clip",
            SourceKind::QuestionAnswer => "qa",
            SourceKind::Headline => "headline",
            SourceKind::SearchEngine => "search-engine",
        }
    }
}

impl Source {
    /// Every source, in the spec's order of kinds.
    pub const ALL: [Source; 7] = [
        Source::Weibo,
        Source::Douyin,
        Source::Bilibili,
        Source::Kuaishou,
        Source::Zhihu,
        Source::Toutiao,
        Source::Baidu,
    ];

    /// The stable name stored as `HotListEntry.source`.
    pub fn name(self) -> &'static str {
        match self {
            Source::Weibo => "weibo",
            Source::Douyin => "douyin",
            Source::Bilibili => "bilibili",
            Source::Kuaishou => "kuaishou",
            Source::Zhihu => "zhihu",
            Source::Toutiao => "toutiao",
            Source::Baidu => "baidu",
        }
    }

    /// The list's name as users know it.
    pub fn display_name(self) -> &'static str {
        match self {
            Source::Weibo => "微博热搜",
            Source::Douyin => "抖音热榜",
            Source::Bilibili => "B站热门",
            Source::Kuaishou => "快手热榜",
            Source::Zhihu => "知乎热榜",
            Source::Toutiao => "今日头条热榜",
            Source::Baidu => "百度热搜",
        }
    }

    /// The kind of list the source is, as the spec groups hot lists.
    pub fn kind(self) -> SourceKind {
        match self {
            Source::Weibo => SourceKind::Microblog,
            Source::Douyin => SourceKind::ShortVideo,
            Source::Bilibili => SourceKind::VideoSite,
            Source::Kuaishou => SourceKind::Clip,
            Source::Zhihu => SourceKind::QuestionAnswer,
            Source::Toutiao => SourceKind::Headline,
            Source::Baidu => SourceKind::SearchEngine,
        }
    }

    /// The source with this stable name (exact, lower case).
    pub fn from_name(name: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The public endpoint read by default (HOTLISTS.md); config may replace
    /// it (`hotlists.<source>.base_url`).
    pub fn default_url(self) -> &'static str {
        match self {
            Source::Weibo => "https://weibo.com/ajax/side/hotSearch",
            Source::Douyin => {
                "https://www.douyin.com/aweme/v1/web/hot/search/list/?device_platform=webapp&aid=6383&channel=channel_pc_web&detail_list=1"
            }
            Source::Bilibili => "https://api.bilibili.com/x/web-interface/ranking/v2?rid=0&type=all",
            Source::Kuaishou => "https://www.kuaishou.com/?isHome=1",
            Source::Zhihu => "https://api.zhihu.com/topstory/hot-lists/total?limit=50",
            Source::Toutiao => "https://www.toutiao.com/hot-event/hot-board/?origin=toutiao_pc",
            Source::Baidu => "https://top.baidu.com/board?tab=realtime",
        }
    }

    /// Headers sent by default besides the collector's `User-Agent`
    /// (HOTLISTS.md: Weibo wants its own `Referer`); config headers are
    /// added after these and win.
    pub fn default_headers(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Source::Weibo => &[("referer", "https://weibo.com/")],
            Source::Bilibili => &[("referer", "https://www.bilibili.com/")],
            _ => &[],
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_stable_unique_and_round_trip() {
        let names: Vec<&str> = Source::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names, ["weibo", "douyin", "bilibili", "kuaishou", "zhihu", "toutiao", "baidu"]);
        for source in Source::ALL {
            assert_eq!(Source::from_name(source.name()), Some(source));
        }
        assert_eq!(Source::from_name("Weibo"), None);
        let kinds: std::collections::HashSet<&str> = Source::ALL.iter().map(|s| s.kind().name()).collect();
        assert_eq!(kinds.len(), 7, "one source per kind");
        assert_eq!(Source::Zhihu.kind().name(), "qa");
        assert_eq!(Source::Weibo.display_name(), "微博热搜");
    }
}
