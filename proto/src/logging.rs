//! The log every mediaops process writes: `RUST_LOG` filter (default
//! `info`), to stderr so stdout stays for a command's output, never in
//! colour (tracing-subscriber is built without its styling, whose code ran
//! on every line even when off: docs/performance.md), one JSON object a line with
//! `MEDIAOPS_LOG_FORMAT=json`, and no line longer than [`MAX_LINE_BYTES`]
//! (one 3.9 MB input once made a 4.1 MB log line). Values
//! a log line carries are already cut at their source ([`crate::excerpt`]);
//! this is the last guard. The runtime's workers write their lines in
//! batches ([`crate::log_buffer`]).

use std::io::{self, Write};

/// Bytes of one log line at most; a longer line is cut at a character
/// boundary and ends with `… (<total> bytes)`, or in JSON becomes
/// `{"truncated":true,"bytes":<total>,"line":"<its start>"}`.
pub const MAX_LINE_BYTES: usize = 2_048;

/// The variable choosing the log format: `text` (the default) or `json`.
pub const FORMAT_VARIABLE: &str = "MEDIAOPS_LOG_FORMAT";

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `tracing`'s human-readable lines.
    Text,
    /// One JSON object a line: `timestamp`, `level`, `target`, `message`
    /// and the event's fields at the top level.
    Json,
}

impl Format {
    /// The format [`FORMAT_VARIABLE`] names; text when it is unset or unknown.
    pub fn from_env() -> Format {
        std::env::var(FORMAT_VARIABLE).ok().and_then(|v| Format::from_name(&v)).unwrap_or(Format::Text)
    }

    /// The format named by `value` (`text`, `json`, any case).
    pub fn from_name(value: &str) -> Option<Format> {
        match value.to_ascii_lowercase().as_str() {
            "text" => Some(Format::Text),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// A duration as the `elapsed_ms` of a log line: milliseconds rounded to
/// two decimals (10 µs), so a line reads `elapsed_ms=0.19`, not
/// `0.18818900000000002`.
pub fn elapsed_ms(elapsed: std::time::Duration) -> f64 {
    (elapsed.as_secs_f64() * 100_000.0).round() / 100.0
}

/// Installs the process's subscriber. Call once, first thing in `main`. An
/// unknown [`FORMAT_VARIABLE`] value is reported on stderr and the text
/// format is used.
pub fn init() {
    let format = Format::from_env();
    if let Ok(value) = std::env::var(FORMAT_VARIABLE)
        && Format::from_name(&value).is_none()
    {
        eprintln!("{FORMAT_VARIABLE}={value:?} is not one of text, json: logging as text");
    }
    crate::log_buffer::configure();
    let builder = tracing_subscriber::fmt()
        .with_timer(crate::log_time::SecondCachedTime)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(LineWriter { format });
    match format {
        Format::Text => builder.fmt_fields(crate::log_fields::PlainFields).init(),
        // The current span (the gateway's `http{method, path, trace_id}`)
        // as `span`, so every line of a request names its trace.
        Format::Json => builder.json().flatten_event(true).with_current_span(true).with_span_list(false).init(),
    }
}

/// The whole `main` of a mediaops binary: [`init`], the runtime whose
/// workers write their log lines in batches ([`crate::runtime::build`]),
/// `run` on it, and the exit status of its result ([`exit_status`]),
/// reported once the runtime has stopped and its workers wrote their lines.
pub fn run_main<F, E>(run: impl FnOnce() -> F) -> std::process::ExitCode
where
    F: std::future::Future<Output = Result<(), E>>,
    E: std::fmt::Display,
{
    init();
    let runtimes = match crate::runtime::build() {
        Ok(runtimes) => runtimes,
        Err(e) => return exit_status(Err(format!("the async runtime did not start: {e}"))),
    };
    let result = runtimes.block_on(run());
    runtimes.shutdown();
    // With one worker the runtime ran on this thread: its lines wait here.
    crate::log_buffer::flush();
    exit_status(result)
}

/// Ends a `main` whose work failed: the error and its causes on stderr,
/// as one `ERROR` log line in the JSON format (so every stderr line stays
/// JSON), else as `Error: …`; exit status 1.
pub fn exit_status<E: std::fmt::Display>(result: Result<(), E>) -> std::process::ExitCode {
    let Err(error) = result else { return std::process::ExitCode::SUCCESS };
    match Format::from_env() {
        Format::Json => tracing::error!(error = format!("{error:#}"), "failed"),
        Format::Text => eprintln!("Error: {error:#}"),
    }
    std::process::ExitCode::FAILURE
}

/// Makes the writer of one line: capped ([`CappedLines`]) and written to
/// stderr through the thread's buffer ([`crate::log_buffer`]), at once
/// for a WARN or ERROR line.
struct LineWriter {
    format: Format,
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LineWriter {
    type Writer = CappedLines<crate::log_buffer::BufferedStderr>;

    fn make_writer(&'a self) -> Self::Writer {
        CappedLines::new(crate::log_buffer::BufferedStderr { urgent: true }, self.format)
    }

    fn make_writer_for(&'a self, meta: &tracing::Metadata<'_>) -> Self::Writer {
        CappedLines::new(
            crate::log_buffer::BufferedStderr { urgent: *meta.level() <= tracing::Level::WARN },
            self.format,
        )
    }
}

/// A writer that cuts every write (the formatter writes one event per
/// call) to [`MAX_LINE_BYTES`]; in the JSON format a cut line is still one
/// JSON object.
pub struct CappedLines<W> {
    out: W,
    format: Format,
}

impl<W: Write> CappedLines<W> {
    /// Lines of `format` written to `out`.
    pub fn new(out: W, format: Format) -> Self {
        CappedLines { out, format }
    }

    /// What was written to `out`.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// The longest prefix of `buf` of at most `max` bytes that ends at a UTF-8
/// character boundary.
fn cut_at_character(buf: &[u8], max: usize) -> &[u8] {
    let mut cut = max.min(buf.len());
    while cut > 0 && cut < buf.len() && (buf[cut] & 0b1100_0000) == 0b1000_0000 {
        cut -= 1;
    }
    &buf[..cut]
}

/// `text` as the inside of a JSON string, stopping before `max` bytes.
fn json_escaped(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(max);
    for c in text.chars() {
        let escaped = match c {
            '"' => "\\\"".to_owned(),
            '\\' => "\\\\".to_owned(),
            c if (c as u32) < 0x20 => format!("\\u{:04x}", c as u32),
            c => c.to_string(),
        };
        if out.len() + escaped.len() > max {
            break;
        }
        out.push_str(&escaped);
    }
    out
}

impl<W: Write> Write for CappedLines<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.len() <= MAX_LINE_BYTES {
            self.out.write_all(buf)?;
            return Ok(buf.len());
        }
        match self.format {
            Format::Text => {
                self.out.write_all(cut_at_character(buf, MAX_LINE_BYTES))?;
                writeln!(self.out, "… ({} bytes)", buf.len())?;
            }
            Format::Json => {
                let start = String::from_utf8_lossy(cut_at_character(buf, MAX_LINE_BYTES));
                let line = json_escaped(&start, MAX_LINE_BYTES - 64);
                writeln!(self.out, r#"{{"truncated":true,"bytes":{},"line":"{line}"}}"#, buf.len())?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_milliseconds_are_rounded() {
        use std::time::Duration;
        assert_eq!(elapsed_ms(Duration::from_nanos(188_189)), 0.19);
        assert_eq!(elapsed_ms(Duration::from_micros(12_346)), 12.35);
        assert_eq!(elapsed_ms(Duration::from_secs(2)), 2000.0);
        assert_eq!(format!("{}", elapsed_ms(Duration::from_nanos(188_189_000))), "188.19");
    }

    #[test]
    fn long_lines_are_cut_at_a_character_with_their_length() {
        let mut out = CappedLines::new(Vec::new(), Format::Text);
        let line = format!("keyword={}\n", "露".repeat(1_000_000));
        assert_eq!(out.write(line.as_bytes()).unwrap(), line.len());
        let written = String::from_utf8(out.into_inner()).expect("cut at a character boundary");
        assert!(written.len() <= MAX_LINE_BYTES + 40, "{}", written.len());
        assert!(written.ends_with(&format!("… ({} bytes)\n", line.len())), "{}", &written[written.len() - 40..]);
        let mut out = CappedLines::new(Vec::new(), Format::Text);
        out.write_all(b"short\n").unwrap();
        assert_eq!(out.into_inner(), b"short\n");
    }

    #[test]
    fn a_long_json_line_stays_one_json_object() {
        let mut out = CappedLines::new(Vec::new(), Format::Json);
        let line = format!("{{\"level\":\"INFO\",\"keyword\":\"{}\\n\\\"\"}}\n", "露\u{1}".repeat(100_000));
        assert_eq!(out.write(line.as_bytes()).unwrap(), line.len());
        let written = String::from_utf8(out.into_inner()).unwrap();
        assert!(written.len() <= MAX_LINE_BYTES && written.ends_with("\"}\n"), "{}", written.len());
        assert!(
            written.starts_with(&format!("{{\"truncated\":true,\"bytes\":{},\"line\":\"{{\\\"level\\\"", line.len()))
        );
        assert!(!written[..written.len() - 1].contains('\n') && !written.contains('\u{1}'), "{written}");
    }

    #[test]
    fn formats_are_named_text_and_json() {
        assert_eq!(Format::from_name("JSON"), Some(Format::Json));
        assert_eq!(Format::from_name("text"), Some(Format::Text));
        assert_eq!(Format::from_name("yaml"), None);
    }
}
