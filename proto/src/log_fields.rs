//! The fields of a text log line ([`crate::logging`]), written as
//! tracing-subscriber's default formatter writes them (`name=value`, a
//! space between fields, strings quoted as `{:?}` quotes them), with one
//! shortcut: a string of printable ASCII without `"` or `\` is its own
//! `{:?}` form between quotes, so it is copied rather than escaped a
//! character at a time through `core::fmt` (request ids, operation keys,
//! paths: most values of every line; docs/performance.md "Plain log
//! fields"). Every other field goes to the default visitor.

use std::fmt;

use tracing::field::{Field, Visit};
use tracing_subscriber::field::{MakeVisitor, VisitFmt, VisitOutput};
use tracing_subscriber::fmt::format::{DefaultVisitor, Writer};

/// The text format's fields (`SubscriberBuilder::fmt_fields`).
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainFields;

impl<'a> MakeVisitor<Writer<'a>> for PlainFields {
    type Visitor = PlainVisitor<'a>;

    fn make_visitor(&self, target: Writer<'a>) -> PlainVisitor<'a> {
        PlainVisitor { writer: target, is_empty: true, result: Ok(()) }
    }
}

/// The visitor of [`PlainFields`]: one line's (or span's) fields.
#[derive(Debug)]
pub struct PlainVisitor<'a> {
    writer: Writer<'a>,
    is_empty: bool,
    result: fmt::Result,
}

impl PlainVisitor<'_> {
    /// Lets the default visitor write one field, after the fields so far.
    fn delegate(&mut self, field: &Field, record: impl FnOnce(&mut DefaultVisitor<'_>, &Field)) {
        if self.result.is_err() {
            return;
        }
        let mut default = DefaultVisitor::new(self.writer.by_ref(), self.is_empty);
        record(&mut default, field);
        self.result = default.finish();
        // The default visitor skips `log.` fields (the `log` crate's
        // metadata) without writing a separator.
        if !field.name().starts_with("log.") {
            self.is_empty = false;
        }
    }
}

impl PlainVisitor<'_> {
    /// Writes `name=<shown>` when the parts of `shown` make the field's
    /// `{:?}` form and the field is an ordinary one; else lets `record` (the
    /// default visitor's method for the field's type) write it.
    fn record_plain(&mut self, field: &Field, shown: &[&str], record: impl FnOnce(&mut DefaultVisitor<'_>, &Field)) {
        let name = field.name();
        if name == "message" || name.starts_with("r#") || name.starts_with("log.") || self.result.is_err() {
            return self.delegate(field, record);
        }
        if !self.is_empty && self.writer.write_char(' ').is_err() {
            self.result = Err(fmt::Error);
            return;
        }
        self.is_empty = false;
        let mut result = self.writer.write_str(name).and_then(|()| self.writer.write_char('='));
        for part in shown {
            result = result.and_then(|()| self.writer.write_str(part));
        }
        self.result = result;
    }
}

/// Whether `{:?}` of `value` is `value` between quotes.
fn needs_no_escape(value: &str) -> bool {
    value.bytes().all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
}

impl Visit for PlainVisitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if !needs_no_escape(value) {
            return self.delegate(field, |default, field| default.record_str(field, value));
        }
        // `{:?}` of such a string is the string between quotes.
        self.record_plain(field, &["\"", value, "\""], |default, field| default.record_str(field, value));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.record_plain(field, &[itoa::Buffer::new().format(value)], |default, field| {
            default.record_i64(field, value)
        });
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.record_plain(field, &[itoa::Buffer::new().format(value)], |default, field| {
            default.record_u64(field, value)
        });
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        let text = if value { "true" } else { "false" };
        self.record_plain(field, &[text], |default, field| default.record_bool(field, value));
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.delegate(field, |default, field| default.record_error(field, value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.delegate(field, |default, field| default.record_debug(field, value));
    }
}

impl VisitOutput<fmt::Result> for PlainVisitor<'_> {
    fn finish(self) -> fmt::Result {
        self.result
    }
}

impl VisitFmt for PlainVisitor<'_> {
    fn writer(&mut self) -> &mut dyn fmt::Write {
        &mut self.writer
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::fmt::format::DefaultFields;

    use super::*;

    /// The lines of `log` under a text subscriber with `fields`.
    fn lines<N>(fields: N, log: impl Fn()) -> String
    where
        N: for<'w> tracing_subscriber::fmt::FormatFields<'w> + Send + Sync + 'static,
    {
        let out = Arc::new(Mutex::new(Vec::new()));
        let sink = out.clone();
        let subscriber = tracing_subscriber::fmt()
            .without_time()
            .fmt_fields(fields)
            .with_writer(move || Sink(sink.clone()))
            .finish();
        tracing::subscriber::with_default(subscriber, log);
        String::from_utf8(out.lock().unwrap().clone()).unwrap()
    }

    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Every kind of field and string: the same bytes as the default.
    #[test]
    fn lines_are_the_default_formatters_bytes() {
        let log = || {
            let span = tracing::info_span!("http", method = %"POST", path = "/api/x", trace_id = tracing::field::Empty);
            span.record("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736");
            let _entered = span.enter();
            let error = std::io::Error::other("disk \"full\"");
            tracing::info!(
                request_id = "886650f8-d004",
                quoted = "say \"hi\"",
                back = "a\\b",
                chinese = "美食 作品",
                tab = "a\tb",
                empty = "",
                points = 4,
                negative = -3,
                count = 7u64,
                big = u64::MAX,
                elapsed_ms = 0.19,
                flag = true,
                shown = %"display me",
                debugged = ?Some("x"),
                error = &error as &(dyn std::error::Error + 'static),
                "ok {}",
                "done"
            );
            tracing::info!("only a message with \"quotes\"");
            tracing::info!(first = "a", "message after a field");
        };
        let ours = lines(PlainFields, log);
        let theirs = lines(DefaultFields::new(), log);
        assert_eq!(ours, theirs);
        assert!(ours.contains(r#"request_id="886650f8-d004" quoted="say \"hi\"" back="a\\b""#), "{ours}");
        assert!(
            ours.contains(r#"http{method=POST path="/api/x" trace_id="4bf92f3577b34da6a3ce929d0e0e4736"}"#),
            "{ours}"
        );
    }
}
