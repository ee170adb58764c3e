//! Golden-style tests of the whole render: every real Markdown document of
//! `../shared/data/markdown/` and a document of our own that holds every
//! construct, in each of the 14 built-in themes. The assertions are the
//! output rules of spec 4.15, checked on the HTML itself.

use std::collections::HashSet;
use std::path::PathBuf;

use super::html_tags;
use super::sanitize::ALLOWED_TAGS;
use super::{Look, Rendered, render};
use crate::articles::render::highlight::code_theme;
use crate::articles::themes::builtin::{self, BUILTIN, BuiltinTheme};

/// Every construct the renderer handles, plus hostile raw HTML.
const CONSTRUCTS: &str = r#"---
title: front matter
---

# 构造大全

第一段有**粗体**、*斜体*、~~删除线~~、==高亮==、++下划线++和`行内代码`。
中文软换行
不应产生空格，English soft
break keeps one.

## 链接

外链[阮一峰的网络日志](https://www.ruanyifeng.com/blog/ "博客")和[同一外链](https://www.ruanyifeng.com/blog/)，
公众号文章[推荐阅读](https://mp.weixin.qq.com/s/abc123)，
文字即网址 [https://example.com/page](https://example.com/page)，裸网址 https://example.org/bare ，
尖括号 <https://weibo.com/easy>，邮件 [写信](mailto:hi@example.com)，
相对链接[上一篇](../prev.md)，锚点[跳转](#intro)，脚本[点我](javascript:alert(1))，
实体编码脚本[点我](&#106;avascript:alert(2))。

## 脚注

正文引用脚注[^note]，再引用一次[^note]，另一个脚注[^2]，然后再来一个外链[GitHub](https://github.com)。

[^note]: 这是脚注内容，含链接 [Rust](https://www.rust-lang.org)。
[^2]: 第二个脚注。

## 提示块

> [!NOTE]
> 说明内容。

> [!TIP]
> 提示内容。

> [!IMPORTANT] 自定义标题
> 重要内容。

> [!WARNING]
> 警告内容。

> [!CAUTION]
> 注意内容。

## 引用与列表

> 引用第一层
>
> > 引用第二层

- 无序一
  1. 有序嵌套
  2. 第二项
- 无序二

- [ ] 未完成任务
- [x] 已完成任务

## 表格

| 左对齐 | 居中 | 右对齐 |
|:-------|:----:|-------:|
| `a` | **b** | 3 |
| 中文 | [表内链接](https://example.net/t) | 4.5 |

## 代码

```rust
fn main() {
    println!("你好, {}", "世界");
}
```

```python
def add(a, b):
    return a + b  # 注释
```

```cj
main() { println("未知语言") }
```

```
无语言代码块
```

## 图片

![远程图片](https://cdn.example.com/a.png "图片标题")

![只有替代文字](https://cdn.example.com/b.png)

![本地图片](./images/local.png)

[![带链接的图片](https://cdn.example.com/c.png)](https://example.com/landing)

行内图片 ![icon](https://cdn.example.com/icon.png) 在文字中。

### 三级标题

#### 四级标题

##### 五级标题

###### 六级标题

硬换行在这里  
下一行。

---

## 原始 HTML

<p onclick="steal()" style="color: red; position: fixed">带事件的段落</p>

<script>alert('x')</script>

<a href="javascript:alert(3)">坏链接</a> <img src="https://cdn.example.com/d.png" onerror="alert(4)">
<iframe src="https://evil.example"></iframe>
<center>居中</center> <kbd>Ctrl</kbd>+<kbd>C</kbd> H<sub>2</sub>O x<sup>2</sup>
<div style="background: url(javascript:alert(5))">背景</div>
"#;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/markdown")
}

/// Every Markdown document of the shared data, by file name.
fn real_documents() -> Vec<(String, String)> {
    let mut documents: Vec<(String, String)> = std::fs::read_dir(data_dir())
        .expect("../shared/data/markdown exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| (path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&path).unwrap()))
        .collect();
    documents.sort();
    assert!(documents.len() >= 13, "expected the 13 articles and the README");
    documents
}

fn look(theme: &BuiltinTheme) -> Look<'static> {
    Look { css: theme.full_css(), code_theme: code_theme(theme.code_theme) }
}

fn neutral() -> Look<'static> {
    look(builtin::find("neutral").unwrap())
}

/// The output rules that hold for every document in every theme.
fn assert_clean(html: &str, context: &str) {
    let lower = html.to_ascii_lowercase();
    // Markup only: text may quote `class="…"` or `javascript:` (escaped, in code).
    for forbidden in ["<style", "<script", "<iframe", "<link", "<meta"] {
        assert!(!lower.contains(forbidden), "{context}: {forbidden} in output");
    }
    let scan = html_tags::scan(html);
    assert!(!scan.start_tags.is_empty(), "{context}: no elements");
    assert_eq!(scan.comments, 0, "{context}: comments left");
    for tag in &scan.start_tags {
        assert!(ALLOWED_TAGS.contains(&tag.name.as_str()), "{context}: <{}> is not allowed", tag.name);
        assert!(
            tag.attr("style").is_some_and(|s| !s.trim().is_empty()),
            "{context}: <{}> has no style ({:?})",
            tag.name,
            tag.attrs
        );
        for (name, value) in &tag.attrs {
            assert!(!name.starts_with("on"), "{context}: event handler {name} on <{}>", tag.name);
            assert!(name != "id" && name != "class", "{context}: {name} on <{}>", tag.name);
            let value = value.to_ascii_lowercase();
            if name == "href" || name == "src" {
                let kind = mediaops_connectors::wechat::urls::classify(&value);
                assert!(
                    !matches!(
                        kind,
                        mediaops_connectors::wechat::urls::UrlKind::Script
                            | mediaops_connectors::wechat::urls::UrlKind::Data
                    ),
                    "{context}: {value}"
                );
            }
            for bad in ["javascript:", "vbscript:", "expression(", "url(", "behavior"] {
                assert!(!value.contains(bad), "{context}: {bad} in {name} of <{}>", tag.name);
            }
        }
    }
    assert_eq!(html.matches("<section").count(), html.matches("</section>").count(), "{context}: unbalanced");
    assert_numbering(html, context);
}

/// Reference marks `[n]` in `<sup>` appear first in the order 1, 2, 3, …
/// (a mark may repeat an earlier number); the list at the end has exactly
/// the entries 1..=n in order. Returns n.
fn assert_numbering(html: &str, context: &str) -> u32 {
    let list_start = html.find("[1]</span>").unwrap_or(html.len());
    let mut highest = 0;
    for piece in html.split("</sup>") {
        let Some(open) = piece.rfind(">[") else { continue };
        let Ok(number) = piece[open + 2..].trim_end_matches(']').parse::<u32>() else { continue };
        assert!(number <= highest + 1, "{context}: mark [{number}] after [{highest}]");
        highest = highest.max(number);
    }
    let listed: Vec<u32> = html[list_start.saturating_sub(1)..]
        .split("]</span>")
        .filter_map(|piece| piece.rsplit(">[").next()?.parse().ok())
        .collect();
    assert_eq!(listed, (1..=highest).collect::<Vec<_>>(), "{context}: reference list");
    highest
}

/// The style attribute of the element whose content starts right before `text`.
fn style_before<'h>(html: &'h str, text: &str) -> &'h str {
    let at = html.find(text).unwrap_or_else(|| panic!("{text} not in output"));
    let tag_start = html[..at].rfind('<').unwrap();
    let tag = &html[tag_start..at];
    tag.split("style=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or_default()
}

fn rendered(markdown: &str, title: Option<&str>) -> Rendered {
    render(markdown, title, neutral()).expect("renders")
}

#[test]
fn every_real_document_renders_clean_in_every_theme() {
    for (name, markdown) in real_documents() {
        let mut outputs = HashSet::new();
        for theme in BUILTIN {
            let out =
                render(&markdown, Some("标题"), look(theme)).unwrap_or_else(|e| panic!("{name} {}: {e}", theme.id));
            assert_clean(&out.html, &format!("{name} in {}", theme.id));
            assert!(out.html.contains(">标题</h1>"), "{name}: the title is the H1");
            outputs.insert(out.html);
        }
        assert_eq!(outputs.len(), BUILTIN.len(), "{name}: every theme looks different");
    }
}

#[test]
fn our_constructs_render_in_every_theme() {
    for theme in BUILTIN {
        let out = render(CONSTRUCTS, Some("构造测试"), look(theme)).unwrap();
        let context = format!("constructs in {}", theme.id);
        assert_clean(&out.html, &context);
        assert!(style_before(&out.html, "居中</th>").contains("text-align: center"), "{context}: column alignment");
        assert!(style_before(&out.html, "4.5</td>").contains("text-align: right"), "{context}: column alignment");
        let html = &out.html;
        for expected in [
            ">构造测试</h1>",
            "<strong",
            "<em",
            "<del",
            "<mark",
            "<ins",
            "<code",
            "<blockquote",
            "<ol",
            "<ul",
            "<table",
            "<pre",
            "<figure",
            "<figcaption",
            "<hr",
            "<h6",
            "<kbd",
            "<sub",
            "☑",
            "☐",
            ">说明</p>",
            ">提示</p>",
            ">自定义标题</p>",
            ">警告</p>",
            ">注意</p>",
        ] {
            assert!(html.contains(expected), "{context}: {expected} missing");
        }
    }
}

#[test]
fn links_become_numbered_references() {
    let out = rendered(CONSTRUCTS, None);
    let html = &out.html;
    assert_eq!(assert_numbering(html, "constructs"), 8);
    // 1 blog (twice, same URL), 2 mail, 3 footnote note (twice), 4 footnote
    // 2, 5 GitHub, 6 table link, 7 linked image; 8 the link inside the text
    // of footnote 3, numbered after the body's marks.
    let list = &html[html.find("[1]</span>").unwrap()..];
    for (number, text) in [
        (1, "阮一峰的网络日志: </span><span"),
        (2, "写信: </span><span"),
        (3, "这是脚注内容，含链接 <span"),
        (5, "GitHub: </span><span"),
        (7, "带链接的图片: </span><span"),
    ] {
        let entry = format!("[{number}]</span>");
        let at = list.find(&entry).unwrap_or_else(|| panic!("entry {number}"));
        let entry_end = at + list[at..].find("</section>").unwrap();
        assert!(list[at..entry_end].contains(text), "entry {number}: {}", &list[at..entry_end]);
    }
    for url in [
        "https://www.ruanyifeng.com/blog/",
        ">hi@example.com<",
        "https://github.com",
        "https://example.com/landing",
        "https://www.rust-lang.org",
    ] {
        assert!(list.contains(url), "{url} listed");
    }
    assert!(html.contains("阮一峰的网络日志</span><sup"), "link text then mark");
    assert!(!html.contains("href=\"https://www.ruanyifeng.com"), "external links are not links");
    assert!(html.contains("<a href=\"https://mp.weixin.qq.com/s/abc123\""), "WeChat links stay");
    let url_text = "<span style=\"font-size: inherit;word-break: break-all;\">https://example.com/page</span>，";
    assert!(html.contains(&format!("文字即网址 {url_text}")), "text = URL → plain text");
    assert!(html.contains(">https://example.org/bare</span>"), "bare URL → plain text");
    assert!(!list.contains("example.com/page") && !list.contains("example.org/bare") && !list.contains("weibo.com"));
    assert!(html.contains("相对链接上一篇") && html.contains("锚点跳转") && html.contains("脚本点我"), "kept as text");
    assert!(list.contains("这是脚注内容") && list.contains("第二个脚注"));
    assert!(html.contains("中文软换行不应产生空格") && html.contains("English soft\nbreak"), "soft breaks");
    for warning in [
        "relative link \"../prev.md\" kept as text (it has no address outside its site)",
        "in-page link \"#intro\" kept as text (WeChat has no anchors)",
        "removed the javascript:/vbscript: link target of \"点我\" (2 times)",
        "YAML front matter is not article text: left out",
    ] {
        assert!(out.warnings.iter().any(|w| w == warning), "missing {warning:?} in {:#?}", out.warnings);
    }
}

#[test]
fn images_keep_src_and_get_captions() {
    let out = rendered(CONSTRUCTS, None);
    let html = &out.html;
    assert!(html.contains("src=\"https://cdn.example.com/a.png\" alt=\"远程图片\" title=\"图片标题\""));
    assert!(html.contains(">图片标题</figcaption>"), "the title is the caption");
    assert!(html.contains(">只有替代文字</figcaption>"), "else the alt text");
    assert!(html.contains("src=\"./images/local.png\""), "local src kept");
    assert!(html.contains(">带链接的图片<sup"), "a linked image's caption carries its mark");
    assert!(html.contains("行内图片 <img") && html.contains("src=\"https://cdn.example.com/icon.png\""));
    let local = "image \"./images/local.png\" is a local file: upload it first with POST /api/articles/media/upload";
    assert!(out.warnings.iter().any(|w| w.starts_with(local)), "{:#?}", out.warnings);
}

#[test]
fn raw_html_is_sanitized_and_reported() {
    let out = rendered(CONSTRUCTS, None);
    let html = &out.html;
    for gone in ["steal", "alert", "onerror", "position", "evil.example", "<center", "背景\u{0}"] {
        assert!(!html.contains(gone), "{gone} survived");
    }
    assert!(html.contains("带事件的段落") && html.contains("居中") && html.contains(">坏链接</a>"));
    assert!(style_before(html, "带事件的段落").contains("color: red"), "allowed author style kept");
    for warning in [
        "raw HTML: removed the event handler onclick on <p>",
        "raw HTML: removed the CSS property position on <p>",
        "raw HTML: removed the <script> element and its content",
        "raw HTML: removed a javascript:/vbscript: URL in <a href>",
        "raw HTML: removed the event handler onerror on <img>",
        "raw HTML: removed the <iframe> element and its content",
        "raw HTML: removed the <center> tag (its content is kept)",
        "raw HTML: removed an unsafe style attribute on <div> (URL, expression or escape)",
    ] {
        assert!(out.warnings.iter().any(|w| w == warning), "missing {warning:?} in {:#?}", out.warnings);
    }
}

#[test]
fn hostile_markdown_is_neutralized() {
    for markdown in [
        "[x](javascript:alert(1)) ![y](javascript:alert(2)) ![z](data:image/png;base64,AAAA)",
        "<a href=\"&#106;avascript:alert(1)\">a</a><img src=x onerror=alert(1)//>",
        "<svg onload=alert(1)><circle/></svg><math><mi>x</mi></math><object data=x></object>",
        "<p style=\"behavior: url(x.htc)\">b</p><p style=\"width: expr\\65ssion(alert(1))\">c</p>",
        "<style>p{color:red}</style><link rel=stylesheet href=x.css><meta http-equiv=refresh content=0>",
        "<form action=x><input value=1><button>go</button></form><textarea>t</textarea>",
        "``` js\n</code></pre><script>alert(1)</script>\n```",
        "<scr<script>ipt>alert(1)</script>",
    ] {
        let out = rendered(markdown, None);
        assert_clean(&out.html, markdown);
        let lower = out.html.to_ascii_lowercase();
        for bad in ["alert(", "<svg", "<math", "<object", "<link", "<meta", "<form", "<input", "behavior", "expr"] {
            if bad == "alert(" && markdown.starts_with("```") {
                continue; // shown as code text, escaped
            }
            assert!(!lower.contains(bad), "{bad} survived {markdown:?}: {}", out.html);
        }
        assert!(!out.warnings.is_empty() || markdown.starts_with("```"), "{markdown:?}: no warning");
    }
}

#[test]
fn code_is_highlighted_with_inline_colours() {
    let out = rendered(CONSTRUCTS, None);
    let html = &out.html;
    let pre = html.find("<pre").unwrap();
    let block = &html[pre..pre + html[pre..].find("</pre>").unwrap()];
    assert!(block.contains("color: #a71d5d") || block.contains("color: #"), "{block}");
    assert!(block.matches("<span").count() > 5, "{block}");
    assert!(block.contains("<br"), "lines are <br>-separated");
    assert!(out.warnings.iter().any(|w| w == "no highlighting for code language \"cj\": shown without colours"));
}

#[test]
fn title_replaces_a_repeated_first_heading() {
    let out = rendered("# 我的文章\n\n正文", Some("我的文章"));
    assert_eq!(out.html.matches("<h1").count(), 1);
    assert!(out.warnings.contains(&"the first heading repeats the title: left out (the title is the H1)".to_owned()));
    let out = rendered("# 另一个标题\n\n正文", Some("我的文章"));
    assert_eq!(out.html.matches("<h1").count(), 2);
    let out = rendered("正文", None);
    assert!(!out.html.contains("<h1") && out.warnings.is_empty());
}

#[test]
fn real_documents_specifics() {
    let documents: std::collections::HashMap<_, _> = real_documents().into_iter().collect();
    let doc = |name: &str| rendered(&documents[name], None);

    let hash_map = doc("10-gold-miner-hash-map-analysis.md");
    let footnotes_and_links = assert_numbering(&hash_map.html, "10");
    assert!(footnotes_and_links > 7, "7 footnotes and the external links");

    let es = doc("03-advanced-java-es-write-query-search.md");
    assert!(es.warnings.iter().any(|w| w.starts_with("image \"./images/es-write.png\" is a local file")));
    let essay = doc("11-easychen-one-person-businesses.md");
    assert!(essay.warnings.iter().any(|w| w.starts_with("image \"qrcode.jpeg\" is a local file")));

    let sample = doc("01-doocs-md-sample.md");
    assert!(sample.html.contains("<a href=\"https://mp.weixin.qq.com/"), "推荐阅读 links stay links");
    assert!(sample.html.contains(">上线前必读</p>"), "alert with its own title");

    let hello = doc("06-hellogithub-114.md");
    assert!(hello.warnings.iter().any(|w| w.starts_with("raw HTML: removed the attribute align on <p> (")));
    assert!(hello.html.matches("<img").count() >= 38, "raw HTML images kept");

    let spec = doc("08-javaguide-spec-coding.md");
    assert!(spec.html.matches('☐').count() >= 6, "task list items");
    assert!(spec.warnings.contains(&"YAML front matter is not article text: left out".to_owned()));

    let two_sum = doc("02-doocs-leetcode-0001-two-sum.md");
    assert_eq!(two_sum.html.matches("<pre").count(), 16 + 3, "16 code blocks and 3 raw HTML <pre> examples");
}

#[test]
fn nesting_beyond_the_limit_is_refused_not_crashed() {
    let deep = format!("{}x", "> ".repeat(500));
    assert!(matches!(render(&deep, None, neutral()), Err(super::RenderError::TooDeep(_))));
    let lists = (0..300).map(|i| format!("{}- x\n", "  ".repeat(i))).collect::<String>();
    let _ = render(&lists, None, neutral());
    let brackets = "[".repeat(50_000) + &"*a*".repeat(10_000);
    assert_clean(&rendered(&brackets, None).html, "brackets");
    let html_nesting = "<div>".repeat(10_000);
    assert!(matches!(render(&html_nesting, None, neutral()), Err(super::RenderError::TooDeep(_))));
    let fine = "<div>".repeat(150);
    assert_clean(&rendered(&fine, None).html, "150 divs");
    // Unclosed paragraphs count as written but are closed by the parser.
    let paragraphs = "<p>x".repeat(600);
    assert_clean(&rendered(&paragraphs, None).html, "600 unclosed paragraphs");
}

/// Writes every theme's render of one real document and of the constructs
/// to `$MEDIAOPS_RENDER_DUMP/<theme>.html` (a tool for looking at themes in
/// a browser): `MEDIAOPS_RENDER_DUMP=/tmp/render cargo test -p core-service dump_pages -- --ignored`.
#[test]
#[ignore]
fn dump_pages() {
    let dir = PathBuf::from(std::env::var("MEDIAOPS_RENDER_DUMP").expect("MEDIAOPS_RENDER_DUMP is set"));
    std::fs::create_dir_all(&dir).unwrap();
    let documents: std::collections::HashMap<_, _> = real_documents().into_iter().collect();
    let source = std::env::var("MEDIAOPS_RENDER_DOC").unwrap_or_else(|_| "01-doocs-md-sample.md".into());
    for theme in BUILTIN {
        let article = render(&documents[&source], Some("探索 Markdown 的奇妙世界"), look(theme)).unwrap();
        let constructs = render(CONSTRUCTS, Some("构造大全"), look(theme)).unwrap();
        let page = format!(
            "<!doctype html><meta charset=utf-8><body style=\"margin:0;background:#fff\">\
             <div style=\"max-width:677px;margin:0 auto;padding:20px 16px\">{}<hr>{}</div>",
            article.html, constructs.html
        );
        std::fs::write(dir.join(format!("{}.html", theme.id)), page).unwrap();
    }
}
