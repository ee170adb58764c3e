//! jq filters of vendor mappings (docs/vendors.md), compiled once at start
//! and run per call by jaq (`jaq-core` + `jaq-std` + `jaq-json`), the Rust
//! jq implementation. Values cross between serde_json and jaq as JSON text.

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data, unwrap_valr};
use jaq_json::Val;

type Compiled = jaq_core::Filter<data::JustLut<Val>>;

/// One compiled jq filter with its source text (share it in an `Arc`).
pub struct JqFilter {
    code: String,
    compiled: Compiled,
}

impl std::fmt::Debug for JqFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("JqFilter").field(&self.code).finish()
    }
}

impl JqFilter {
    /// Parses and compiles `code` with jq's standard library.
    ///
    /// # Errors
    /// The parse or compile errors, as text (a mapping refused at start).
    pub fn compile(code: &str) -> Result<JqFilter, String> {
        let defs = jaq_core::defs().chain(jaq_std::defs()).chain(jaq_json::defs());
        let funs = jaq_core::funs().chain(jaq_std::funs()).chain(jaq_json::funs());
        let arena = Arena::default();
        let program = File { code, path: () };
        let modules = Loader::new(defs).load(&arena, program).map_err(|errors| describe(&errors))?;
        let compiled = Compiler::default().with_funs(funs).compile(modules).map_err(|errors| describe(&errors))?;
        Ok(JqFilter { code: code.to_owned(), compiled })
    }

    /// The filter's source text.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// Runs the filter on `input` and returns its single output.
    ///
    /// # Errors
    /// A jq runtime error, no output, or more than one output.
    pub fn run(&self, input: &serde_json::Value) -> Result<serde_json::Value, String> {
        let input = jaq_json::read::parse_single(input.to_string().as_bytes()).map_err(|e| format!("input: {e:?}"))?;
        let ctx = Ctx::<data::JustLut<Val>>::new(&self.compiled.lut, Vars::new([]));
        let mut outputs = self.compiled.id.run((ctx, input)).map(unwrap_valr);
        let first = match outputs.next() {
            None => return Err("the filter gave no output".to_owned()),
            Some(Err(e)) => return Err(format!("jq error: {e}")),
            Some(Ok(value)) => value,
        };
        if outputs.next().is_some() {
            return Err("the filter gave more than one output; wrap it in [...] to collect a list".to_owned());
        }
        serde_json::from_str(&first.to_string()).map_err(|e| format!("the filter's output is not JSON: {e}"))
    }
}

fn describe<E: std::fmt::Debug>(errors: &[E]) -> String {
    errors.iter().map(|e| format!("{e:?}")).collect::<Vec<_>>().join("; ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn maps_a_reply_with_the_standard_library() {
        let filter = JqFilter::compile(
            r#"{items: [.data.list[] | {title: .desc, likeCount: (.stats.digg // 0)}], total: (.data.list | length)}"#,
        )
        .unwrap();
        let reply = json!({"data": {"list": [{"desc": "露营", "stats": {"digg": 12}}, {"desc": "徒步", "stats": {}}]}});
        assert_eq!(
            filter.run(&reply).unwrap(),
            json!({"items": [{"title": "露营", "likeCount": 12}, {"title": "徒步", "likeCount": 0}], "total": 2})
        );
    }

    #[test]
    fn errors_are_text() {
        assert!(JqFilter::compile("{items: [.data[] |").is_err());
        assert!(JqFilter::compile("no_such_function(1)").is_err());
        let many = JqFilter::compile(".[]").unwrap();
        assert!(many.run(&json!([1, 2])).unwrap_err().contains("more than one"));
        assert!(many.run(&json!([])).unwrap_err().contains("no output"));
        let failing = JqFilter::compile(r#"error("boom")"#).unwrap();
        assert!(failing.run(&json!(null)).unwrap_err().contains("boom"));
    }
}
