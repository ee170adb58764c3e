//! The log every mediaops process writes: `RUST_LOG` filter (default
//! `info`), to stderr so stdout stays for a command's output, and no line
//! longer than [`MAX_LINE_BYTES`] (issue 21 item 7: one 3.9 MB input once
//! made a 4.1 MB log line). Values a log line carries are already cut at
//! their source ([`crate::excerpt`]); this is the last guard.

use std::io::{self, Write};

/// Bytes of one log line at most; a longer line is cut at a character
/// boundary and ends with `… (<total> bytes)`.
pub const MAX_LINE_BYTES: usize = 2_048;

/// Installs the process's subscriber. Call once, first thing in `main`.
pub fn init() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(|| CappedLines(io::stderr()))
        .with_ansi(io::IsTerminal::is_terminal(&io::stderr()))
        .init();
}

/// A writer that cuts every write (the formatter writes one event per
/// call) to [`MAX_LINE_BYTES`].
pub struct CappedLines<W>(pub W);

impl<W: Write> Write for CappedLines<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.len() <= MAX_LINE_BYTES {
            self.0.write_all(buf)?;
            return Ok(buf.len());
        }
        let mut cut = MAX_LINE_BYTES;
        // Back up to a UTF-8 character boundary.
        while cut > 0 && (buf[cut] & 0b1100_0000) == 0b1000_0000 {
            cut -= 1;
        }
        self.0.write_all(&buf[..cut])?;
        writeln!(self.0, "… ({} bytes)", buf.len())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_at_a_character_with_their_length() {
        let mut out = CappedLines(Vec::new());
        let line = format!("keyword={}\n", "露".repeat(1_000_000));
        assert_eq!(out.write(line.as_bytes()).unwrap(), line.len());
        let written = String::from_utf8(out.0).expect("cut at a character boundary");
        assert!(written.len() <= MAX_LINE_BYTES + 40, "{}", written.len());
        assert!(written.ends_with(&format!("… ({} bytes)\n", line.len())), "{}", &written[written.len() - 40..]);
        let mut out = CappedLines(Vec::new());
        out.write_all(b"short\n").unwrap();
        assert_eq!(out.0, b"short\n");
    }
}
