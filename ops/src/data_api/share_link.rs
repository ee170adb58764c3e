//! Share links of every platform (spec 4.6 `parse-content-detail`;
//! docs/data/tool.md): the link inside a share text, which platform a link
//! belongs to, the work ids it carries, and whether it is a short link that
//! only a redirect resolves. Pure functions: following a short link is
//! [`mediaops_connectors::share_link::resolve_short`]'s.
//!
//! The id forms reuse each platform module's own link readers
//! ([`super::lifestyle::note_id_of`], [`super::shortvideo::video_id_of`],
//! [`super::videosite::bv_id_of`], [`super::microblog::post_of_url`]).

use url::Url;

use super::links::{query_param, segment_after};
use super::{lifestyle, microblog, shortvideo, videosite};

/// What a link was recognized as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recognized {
    /// A work link: the platform token and the ids to look the work up by,
    /// most specific first (any id form the store keeps may match).
    Work {
        /// The platform token.
        platform: &'static str,
        /// Work ids, most specific first.
        ids: Vec<String>,
    },
    /// A short link of `platform`: follow its redirects, then recognize
    /// where it leads.
    Short {
        /// The platform token.
        platform: &'static str,
    },
    /// A link on `platform`'s hosts without a work id; `looked_for` lists
    /// the forms that would have had one.
    NoWork {
        /// The platform token.
        platform: &'static str,
        /// The work link forms of the platform, for the message.
        looked_for: &'static str,
    },
    /// A host of no platform we cover.
    Unknown {
        /// The link's host (empty when it has none).
        host: String,
    },
}

/// One platform's hosts and link forms.
struct Platform {
    token: &'static str,
    /// Domains (subdomains included) of its full links.
    domains: &'static [&'static str],
    /// Whether a link is a short link (checked first).
    short: fn(&str, &Url) -> bool,
    /// The work ids in a full link.
    work: fn(&str) -> Vec<String>,
    /// The work link forms, for messages.
    looked_for: &'static str,
}

/// Whether `host` is `domain` or one of its subdomains.
fn on(host: &str, domain: &str) -> bool {
    host == domain || host.strip_suffix(domain).is_some_and(|p| p.ends_with('.'))
}

fn first_segment_is(url: &Url, segment: &str) -> bool {
    url.path_segments().and_then(|mut s| s.next()) == Some(segment)
}

const PLATFORMS: &[Platform] = &[
    Platform {
        token: "lifestyle",
        domains: &["xiaohongshu.com", "xhslink.com"],
        short: |host, _| on(host, "xhslink.com"),
        work: |link| lifestyle::note_id_of(link, "url").into_iter().collect(),
        looked_for: "xiaohongshu.com/explore/<noteId>, /discovery/item/<noteId>, xhslink.com short links",
    },
    Platform {
        token: "shortvideo",
        domains: &["douyin.com", "iesdouyin.com"],
        short: |host, _| host == "v.douyin.com",
        work: |link| shortvideo::video_id_of(link, "url").into_iter().collect(),
        looked_for: "douyin.com/video/<id>, /note/<id>, ?modal_id=<id>, iesdouyin.com/share/video/<id>, v.douyin.com short links",
    },
    Platform {
        token: "clipapp",
        domains: &["kuaishou.com", "gifshow.com", "chenzhongtech.com", "kuaishouapp.com"],
        short: |host, url| host == "v.kuaishou.com" || (on(host, "kuaishou.com") && first_segment_is(url, "f")),
        work: |link| {
            ["kuaishou.com", "gifshow.com", "chenzhongtech.com", "kuaishouapp.com"]
                .iter()
                .find_map(|domain| {
                    segment_after(link, domain, &["short-video"])
                        .or_else(|| segment_after(link, domain, &["photo"]))
                        .or_else(|| query_param(link, domain, "photoId"))
                })
                .map(str::to_owned)
                .into_iter()
                .collect()
        },
        looked_for: "kuaishou.com/short-video/<photoId>, /fw/photo/<photoId>, ?photoId=<photoId>, v.kuaishou.com short links",
    },
    Platform {
        token: "videosite",
        domains: &["bilibili.com", "b23.tv", "bili2233.cn"],
        short: |host, _| on(host, "b23.tv") || on(host, "bili2233.cn"),
        work: |link| {
            if let Some(bv) = videosite::bv_id_of(link, "url").ok().filter(|_| link.contains("/video/")) {
                return vec![bv];
            }
            // `…/video/av170001`: the aid, kept as the work's `workId`.
            let aid = segment_after(link, "bilibili.com", &["video"])
                .and_then(|s| s.strip_prefix("av").or_else(|| s.strip_prefix("AV")))
                .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
            aid.map(|d| vec![d.to_owned(), format!("av{d}")]).unwrap_or_default()
        },
        looked_for: "bilibili.com/video/BV<id>, /video/av<aid>, b23.tv short links",
    },
    Platform {
        token: "articles",
        domains: &["mp.weixin.qq.com"],
        short: |_, _| false,
        work: |link| {
            let token = segment_after(link, "mp.weixin.qq.com", &["s"]);
            let sn = query_param(link, "mp.weixin.qq.com", "sn");
            token.into_iter().chain(sn).filter(|s| !s.is_empty()).map(str::to_owned).collect()
        },
        looked_for: "mp.weixin.qq.com/s/<id> or /s?__biz=…&sn=<sn>",
    },
    Platform {
        token: "microblog",
        domains: &["weibo.com", "weibo.cn", "t.cn"],
        short: |host, _| host == "t.cn",
        work: |link| {
            let Ok(code) = microblog::post_of_url(link) else { return Vec::new() };
            let mid = microblog::mid_of_code(&code).filter(|_| !code.chars().all(|c| c.is_ascii_digit()));
            std::iter::once(code).chain(mid).collect()
        },
        looked_for: "weibo.com/<uid>/<postCode>, m.weibo.cn/detail/<mid>, m.weibo.cn/status/<postCode>, t.cn short links",
    },
    Platform {
        token: "intlshort",
        domains: &["tiktok.com"],
        short: |host, url| host == "vm.tiktok.com" || host == "vt.tiktok.com" || first_segment_is(url, "t"),
        work: |link| segment_after(link, "tiktok.com", &["video"]).map(str::to_owned).into_iter().collect(),
        looked_for: "tiktok.com/@<handle>/video/<id>, vm.tiktok.com short links",
    },
    Platform {
        token: "channels",
        domains: &["channels.weixin.qq.com"],
        short: |_, _| false,
        work: |_| Vec::new(),
        looked_for: "nothing: video-channel links carry no public work id; use the channels operations",
    },
];

/// The platform tokens whose links are recognized.
pub fn platforms() -> impl Iterator<Item = &'static str> {
    PLATFORMS.iter().map(|p| p.token)
}

/// The link in a share text ("复制打开抖音… <https://v.douyin.com/iRNBho6/>
/// …"): the first `http://` or `https://` run up to whitespace, a
/// non-ASCII character or a quote, without trailing punctuation. A text
/// without a scheme that is one word holding `.` and `/` is taken as an
/// `https` link (`xhslink.com/a/x`). `None` when there is no link.
pub fn link_in(text: &str) -> Option<String> {
    let text = text.trim();
    let lower = text.to_ascii_lowercase();
    let start = [lower.find("https://"), lower.find("http://")].into_iter().flatten().min();
    let Some(start) = start else {
        let bare = !text.is_empty() && !text.contains(char::is_whitespace) && text.contains('.') && text.contains('/');
        return (bare && text.is_ascii()).then(|| format!("https://{text}"));
    };
    let rest = &text[start..];
    let end = rest
        .find(|c: char| c.is_whitespace() || !c.is_ascii() || matches!(c, '"' | '\'' | '<' | '>' | '`'))
        .unwrap_or(rest.len());
    let link = rest[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']']);
    (link.len() > "https://".len()).then(|| link.to_owned())
}

/// What `link` (an absolute link) is.
pub fn recognize(link: &str) -> Recognized {
    let Ok(url) = Url::parse(link) else { return Recognized::Unknown { host: String::new() } };
    let host = url.host_str().unwrap_or_default().trim_end_matches('.').to_ascii_lowercase();
    // Longer domains first, so channels.weixin.qq.com is not taken for
    // another weixin host.
    let platform = PLATFORMS
        .iter()
        .filter_map(|p| p.domains.iter().filter(|d| on(&host, d)).map(|d| (d.len(), p)).max_by_key(|(len, _)| *len))
        .max_by_key(|(len, _)| *len)
        .map(|(_, p)| p);
    let Some(platform) = platform else { return Recognized::Unknown { host } };
    if (platform.short)(&host, &url) {
        return Recognized::Short { platform: platform.token };
    }
    let ids = (platform.work)(link);
    if ids.is_empty() {
        return Recognized::NoWork { platform: platform.token, looked_for: platform.looked_for };
    }
    Recognized::Work { platform: platform.token, ids }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work(platform: &'static str, ids: &[&str]) -> Recognized {
        Recognized::Work { platform, ids: ids.iter().map(|s| s.to_string()).collect() }
    }

    #[test]
    fn links_are_found_in_share_texts() {
        let douyin =
            "3.84 复制打开抖音，看看【小明的作品】夏天的风 # 日常 https://v.douyin.com/iRNBho6/ A@g.Ox 12/05 Jif:/";
        assert_eq!(link_in(douyin).as_deref(), Some("https://v.douyin.com/iRNBho6/"));
        let xhs = "【这家店太好吃了 - 小红书】 😆 abc123 😆 http://xhslink.com/a/AbCdEf，复制本条信息，打开【小红书】App查看精彩内容！";
        assert_eq!(link_in(xhs).as_deref(), Some("http://xhslink.com/a/AbCdEf"));
        assert_eq!(link_in("看这个(https://b23.tv/x1Y2z3).").as_deref(), Some("https://b23.tv/x1Y2z3"));
        assert_eq!(
            link_in("www.bilibili.com/video/BV1GJ411x7h7").as_deref(),
            Some("https://www.bilibili.com/video/BV1GJ411x7h7")
        );
        assert_eq!(link_in("没有链接的一段话"), None);
        assert_eq!(link_in("https://"), None);
    }

    #[test]
    fn every_platform_s_work_links_give_their_ids() {
        let cases = [
            (
                "https://www.xiaohongshu.com/explore/64b7a1f2000000001203c4d5?xsec_token=AB",
                work("lifestyle", &["64b7a1f2000000001203c4d5"]),
            ),
            (
                "https://www.xiaohongshu.com/discovery/item/64b7a1f2000000001203c4d5",
                work("lifestyle", &["64b7a1f2000000001203c4d5"]),
            ),
            ("https://www.douyin.com/video/7301234567890123456", work("shortvideo", &["7301234567890123456"])),
            (
                "https://www.douyin.com/discover?modal_id=7301234567890123456",
                work("shortvideo", &["7301234567890123456"]),
            ),
            (
                "https://www.iesdouyin.com/share/video/7301234567890123456/?region=CN",
                work("shortvideo", &["7301234567890123456"]),
            ),
            ("https://www.kuaishou.com/short-video/3xabc123def456?authorId=3x", work("clipapp", &["3xabc123def456"])),
            ("https://v.m.chenzhongtech.com/fw/photo/3xabc123def456?fid=1", work("clipapp", &["3xabc123def456"])),
            ("https://www.kuaishou.com/profile/3x?photoId=3xabc123def456", work("clipapp", &["3xabc123def456"])),
            (
                "https://www.bilibili.com/video/BV1GJ411x7h7/?p=1&share_source=copy",
                work("videosite", &["BV1GJ411x7h7"]),
            ),
            ("https://m.bilibili.com/video/av170001", work("videosite", &["170001", "av170001"])),
            ("https://mp.weixin.qq.com/s/Xy_Z-12abcDEF", work("articles", &["Xy_Z-12abcDEF"])),
            ("https://mp.weixin.qq.com/s?__biz=MzA&mid=2650&idx=1&sn=9f8e7d", work("articles", &["9f8e7d"])),
            ("https://weibo.com/2803301701/z0JH2lOMb?from=page", work("microblog", &["z0JH2lOMb", "3501756485200075"])),
            ("https://m.weibo.cn/detail/3501756485200075", work("microblog", &["3501756485200075"])),
            (
                "https://www.tiktok.com/@scout2015/video/6718335390845095173",
                work("intlshort", &["6718335390845095173"]),
            ),
        ];
        for (link, expected) in cases {
            assert_eq!(recognize(link), expected, "{link}");
        }
    }

    #[test]
    fn short_links_other_pages_and_other_hosts_are_told_apart() {
        for (link, platform) in [
            ("http://xhslink.com/a/AbCdEf", "lifestyle"),
            ("https://v.douyin.com/iRNBho6/", "shortvideo"),
            ("https://v.kuaishou.com/2xYz9", "clipapp"),
            ("https://www.kuaishou.com/f/X-7aBcD", "clipapp"),
            ("https://b23.tv/x1Y2z3", "videosite"),
            ("http://t.cn/A6abcd", "microblog"),
            ("https://vm.tiktok.com/ZMabc/", "intlshort"),
        ] {
            assert_eq!(recognize(link), Recognized::Short { platform }, "{link}");
        }
        assert!(matches!(
            recognize("https://www.douyin.com/user/MS4wLjAB"),
            Recognized::NoWork { platform: "shortvideo", .. }
        ));
        assert!(matches!(
            recognize("https://www.douyin.com/video/notanumber"),
            Recognized::NoWork { platform: "shortvideo", .. }
        ));
        assert!(matches!(
            recognize("https://space.bilibili.com/123"),
            Recognized::NoWork { platform: "videosite", .. }
        ));
        assert!(matches!(
            recognize("https://channels.weixin.qq.com/x"),
            Recognized::NoWork { platform: "channels", .. }
        ));
        assert_eq!(
            recognize("https://evil-douyin.com/video/1"),
            Recognized::Unknown { host: "evil-douyin.com".into() }
        );
        assert_eq!(recognize("https://www.zhihu.com/question/1"), Recognized::Unknown { host: "www.zhihu.com".into() });
    }
}
