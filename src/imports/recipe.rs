//! Import recipes (docs/data-sources.md "Recipes"): a file format described
//! by one TOML file in `src/imports/recipes/`, compiled in. A recipe says how
//! the file is read (`json` or `csv`), recognises the format by its content
//! (`recognize`), lists its rows (`rows`), computes what the rows share
//! (`context`) and turns each row into records of the store's JSONL schema
//! (`records`, docs/store.md "jsonl"). The filters are jq, run by the jaq
//! engine the vendor mappings use ([`JqFilter`]); the helpers of
//! `recipes/prelude.jq` (`count`, `text`, `epoch_time`, `wall_time`,
//! `query_param`, `id_time`) are defined for every filter.
//!
//! The runner lives in the root crate because the store crate sits below the
//! vendor connectors, which own the jq engine (the layer rule of
//! `core-service/tests/module_graph.rs`).

use std::path::Path;
use std::sync::LazyLock;

use mediaops_connectors::vendors::filter::JqFilter;
use mediaops_store::ContentStore;
use mediaops_store::import::{ImportReport, RowWriter, jsonl};
use serde::Deserialize;
use serde_json::{Value, json};

use super::document::{self, Content, Document};

/// The helpers every filter of a recipe can use.
const PRELUDE: &str = include_str!("recipes/prelude.jq");

/// Every recipe's file, by name, in the order `import auto` tries them.
pub const RECIPE_FILES: &[(&str, &str)] = &[
    ("douyin-web-posts", include_str!("recipes/douyin-web-posts.toml")),
    ("douyin-web-comments", include_str!("recipes/douyin-web-comments.toml")),
    ("xhs-creator-snapshot", include_str!("recipes/xhs-creator-snapshot.toml")),
    ("wechat-articles", include_str!("recipes/wechat-articles.toml")),
    ("wechat-comments", include_str!("recipes/wechat-comments.toml")),
    ("kuaishou-comments-csv", include_str!("recipes/kuaishou-comments-csv.toml")),
];

/// How a recipe's files are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Read {
    /// One JSON document per file.
    Json,
    /// A CSV file with a header row; `doc` is the array of rows as objects.
    Csv,
}

/// A recipe file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecipeFile {
    name: String,
    platform: String,
    description: String,
    read: Read,
    recognize: String,
    rows: Option<String>,
    context: Option<String>,
    records: String,
}

/// One compiled recipe.
#[derive(Debug)]
pub struct Recipe {
    /// The format's name (`mediaops import <name>`).
    pub name: String,
    /// The platform token its records are on.
    pub platform: String,
    /// What the files hold, one line.
    pub description: String,
    /// How the files are read.
    pub read: Read,
    /// jq over `{doc, file}`: `true` when the file is this format.
    recognize: JqFilter,
    /// jq over `{doc, file}` giving the array of rows (default: `.doc`).
    rows: Option<JqFilter>,
    /// jq over `{doc, file}` giving what every row sees as `.context`.
    context: Option<JqFilter>,
    /// jq over `{row, index, file, context}` giving the row's records.
    records: JqFilter,
}

fn compile(recipe: &str, part: &str, code: &str) -> Result<JqFilter, String> {
    JqFilter::compile(&format!("{PRELUDE}\n{code}")).map_err(|e| format!("recipe {recipe}: {part}: {e}"))
}

impl Recipe {
    /// Parses and compiles one recipe file.
    ///
    /// # Errors
    /// The TOML does not parse, has unknown keys, or a filter does not
    /// compile (each message names the recipe and the part).
    pub fn parse(text: &str) -> Result<Recipe, String> {
        let file: RecipeFile = toml::from_str(text).map_err(|e| format!("recipe: {e}"))?;
        let name = file.name;
        Ok(Recipe {
            recognize: compile(&name, "recognize", &file.recognize)?,
            rows: file.rows.as_deref().map(|c| compile(&name, "rows", c)).transpose()?,
            context: file.context.as_deref().map(|c| compile(&name, "context", c)).transpose()?,
            records: compile(&name, "records", &file.records)?,
            platform: file.platform,
            description: file.description,
            read: file.read,
            name,
        })
    }

    /// Whether `document` is this recipe's format (a filter error is a no).
    pub fn recognizes(&self, document: &Document) -> bool {
        let fits =
            matches!((&document.content, self.read), (Content::Json(_), Read::Json) | (Content::Csv(_), Read::Csv));
        let Some(doc) = document.doc().filter(|_| fits) else { return false };
        self.recognize.run(&json!({"doc": doc, "file": document.file})).is_ok_and(|v| v == Value::Bool(true))
    }

    /// The rows of `document`, each with its number in the file (CSV: its
    /// line; JSON: its 1-based position), and the context they share.
    ///
    /// # Errors
    /// A file of another kind, or a failing `rows` or `context` filter.
    fn rows(&self, document: &Document) -> Result<(Vec<(u64, Value)>, Value), String> {
        let doc = document.doc().ok_or_else(|| format!("not {}", self.description))?;
        let input = json!({"doc": doc, "file": document.file});
        let context = match &self.context {
            Some(filter) => filter.run(&input).map_err(|e| format!("context: {e}"))?,
            None => Value::Null,
        };
        let rows = match (&self.rows, &document.content) {
            (None, Content::Csv(rows)) => rows.clone(),
            (filter, _) => {
                let rows = match filter {
                    Some(filter) => filter.run(&input).map_err(|e| format!("rows: {e}"))?,
                    None => doc,
                };
                let Value::Array(rows) = rows else { return Err("rows: not an array".into()) };
                rows.into_iter().enumerate().map(|(i, row)| (i as u64 + 1, row)).collect()
            }
        };
        Ok((rows, context))
    }

    /// The records of one row.
    fn records(&self, row: Value, index: usize, file: &Value, context: &Value) -> Result<Vec<Value>, String> {
        let input = json!({"row": row, "index": index, "file": file, "context": context});
        match self.records.run(&input)? {
            Value::Array(records) => Ok(records),
            other => Err(format!("records: the filter gave {other}, not an array")),
        }
    }

    /// How many rows `path` holds, for a progress bar (0 when unreadable).
    pub fn count_rows(&self, path: &Path) -> u64 {
        document::read(path).ok().and_then(|d| self.rows(&d).ok()).map_or(0, |(rows, _)| rows.len() as u64)
    }

    /// Imports one file: each row's records through one [`RowWriter`]; a row
    /// whose filter fails or whose records the schema refuses is rejected
    /// with the reason. A file that cannot be read is refused whole (row 0).
    pub async fn import_file(&self, store: &dyn ContentStore, path: &Path, on_row: &mut dyn FnMut()) -> ImportReport {
        let mut writer = RowWriter::new(store, path, on_row);
        let read = document::read(path).and_then(|d| {
            let (rows, context) = self.rows(&d)?;
            Ok((d, rows, context))
        });
        match read {
            Ok((document, rows, context)) => {
                for (index, (number, row)) in rows.into_iter().enumerate() {
                    let records = self.records(row, index, &document.file, &context).and_then(|values| {
                        values.into_iter().map(jsonl::parse_value).collect::<Result<Vec<_>, String>>()
                    });
                    writer.row(number, records).await;
                }
            }
            Err(reason) => writer.refuse_file(reason),
        }
        writer.finish().await
    }
}

static RECIPES: LazyLock<Result<Vec<Recipe>, String>> =
    LazyLock::new(|| RECIPE_FILES.iter().map(|(_, text)| Recipe::parse(text)).collect());

/// Every compiled recipe, in [`RECIPE_FILES`] order.
///
/// # Errors
/// A recipe that does not compile (a defect, caught by the unit tests).
pub fn recipes() -> Result<&'static [Recipe], String> {
    RECIPES.as_ref().map(Vec::as_slice).map_err(Clone::clone)
}

/// The recipe called `name`.
///
/// # Errors
/// No such recipe, or the recipes do not compile.
pub fn recipe(name: &str) -> Result<&'static Recipe, String> {
    recipes()?.iter().find(|r| r.name == name).ok_or_else(|| format!("no import recipe is called {name:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_recipe_compiles_under_its_own_name() {
        let recipes = recipes().unwrap();
        for ((name, _), recipe) in RECIPE_FILES.iter().zip(recipes) {
            assert_eq!(*name, recipe.name);
        }
    }

    fn records_of(recipe: &str, row: Value, context: Value) -> Result<Vec<Value>, String> {
        recipe_named(recipe).records(row, 0, &json!({}), &context)
    }

    fn recipe_named(name: &str) -> &'static Recipe {
        recipe(name).unwrap()
    }

    #[test]
    fn prelude_reads_counts_times_and_links() {
        let filter = compile(
            "test",
            "test",
            r#"[("1,234", " ", "-", 12.0, "74066.00" | count), ("2022/1/9" | wall_time("23:59:59")),
                (1592449898000 | epoch_time), ("6839298761143930116" | id_time),
                ("http://x/s?__biz=Mz==&sn=ab#r" | query_param("__biz"), query_param("sn"), query_param("idx"))]"#,
        )
        .unwrap();
        assert_eq!(
            filter.run(&Value::Null).unwrap(),
            json!([
                1234,
                null,
                null,
                12,
                74066,
                "2022-01-09 23:59:59",
                "2020-06-18T03:11:38Z",
                "2020-06-17T12:52:12Z",
                "Mz==",
                "ab",
                null
            ])
        );
        let bad = compile("test", "test", r#""lots" | count"#).unwrap();
        assert!(bad.run(&Value::Null).unwrap_err().contains("not a count: lots"));
    }

    #[test]
    fn a_wechat_row_keys_the_article_by_its_sn_and_dates_the_snapshot_by_the_file() {
        let row = json!({"文章日期": "2022/1/9", "文章标题": "标题", "文章链接": "http://mp.weixin.qq.com/s?__biz=MzA==&mid=1&idx=2&sn=abc&chksm=x",
                         "文章简介": "", "文章作者": "差评君", "文章封面": "", "是否原创": "是", "文章位置": "2", "是否付费": "否",
                         "阅读数": "53059", "在看数": "67", "点赞数": "249", "留言数": "28"});
        let records =
            records_of("wechat-articles", row, json!({"account": "差评", "capturedAt": "2022-04-16 23:59:59"}))
                .unwrap();
        assert_eq!(
            records[0],
            json!({"type": "account", "platform": "articles", "platformId": "MzA==", "nickname": "差评"})
        );
        assert_eq!(
            (records[1]["platformId"].as_str(), records[1]["publishedAt"].as_str()),
            (Some("abc"), Some("2022-01-09 00:00:00"))
        );
        assert_eq!(records[1]["description"], Value::Null, "a blank 文章简介 is no description");
        assert_eq!(records[2]["views"], 53059);
        assert_eq!(records[2]["capturedAt"], "2022-04-16 23:59:59");
        assert_eq!(records[2]["extra"], json!({"byline": "差评君", "original": true, "position": 2, "paid": false}));
        for record in records {
            jsonl::parse_value(record).unwrap();
        }
        let no_sn = json!({"文章链接": "http://mp.weixin.qq.com/s?__biz=MzA==", "阅读数": "1"});
        assert!(records_of("wechat-articles", no_sn, json!({})).unwrap_err().contains("文章链接 has no sn"));
        let bad_count = json!({"文章链接": "http://mp.weixin.qq.com/s?__biz=MzA==&sn=a", "阅读数": "很多"});
        assert!(records_of("wechat-articles", bad_count, json!({})).unwrap_err().contains("not a count: 很多"));
    }

    #[test]
    fn a_douyin_comment_names_its_parent_only_when_it_is_a_reply() {
        let row = json!({"cid": "2", "aweme_id": "9", "text": "好", "create_time": 1588507153, "digg_count": 3,
                         "reply_id": "0", "user": {"uid": "7", "sec_uid": "MS4w", "nickname": "n"}});
        let records = records_of("douyin-web-comments", row.clone(), Value::Null).unwrap();
        assert_eq!(records[0]["parentId"], Value::Null);
        assert_eq!(records[0]["authorId"], "MS4w");
        assert_eq!(records[0]["publishedAt"], "2020-05-03T11:59:13Z");
        let mut reply = row;
        reply["reply_id"] = json!("1");
        assert_eq!(records_of("douyin-web-comments", reply, Value::Null).unwrap()[0]["parentId"], "1");
    }
}
