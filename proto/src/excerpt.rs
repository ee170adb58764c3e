//! How a client's value may appear in an error message or a log line: a
//! short, escaped prefix with the total length, never the whole value
//! (a 100,000-character value echoed into `grpc-message`
//! broke the gateway's HTTP/2 connection for every other caller).

use std::borrow::Cow;
use std::fmt;

/// Characters of a value that a message shows at most.
pub const SHOWN_CHARS: usize = 48;

/// Characters an error message keeps at most, whatever it echoes
/// ([`cap_message`]); the gRPC status and the envelope carry no more.
pub const MESSAGE_CHARS: usize = 512;

/// A value as messages show it: quoted and escaped like `{:?}`, cut to
/// [`SHOWN_CHARS`] characters with the total added, e.g.
/// `"aaaa…" (100000 characters)`.
#[derive(Debug, Clone, Copy)]
pub struct Excerpt<'a>(pub &'a str);

/// [`Excerpt`] of `value`.
pub fn excerpt(value: &str) -> Excerpt<'_> {
    Excerpt(value)
}

impl fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(SHOWN_CHARS) {
            None => write!(f, "{:?}", self.0),
            Some((cut, _)) => {
                let shown = format!("{:?}", &self.0[..cut]);
                let total = self.0.chars().count();
                write!(f, "{}…\" ({total} characters)", &shown[..shown.len() - 1])
            }
        }
    }
}

/// `message` cut to [`MESSAGE_CHARS`] characters ([`shorten`]), so no
/// error can carry a whole input.
pub fn cap_message(message: &str) -> Cow<'_, str> {
    shorten(message, MESSAGE_CHARS)
}

/// `value` as it is when it has at most `chars` characters, else its first
/// `chars` characters, `…` and the total: `aaaa… (100000 characters)`.
pub fn shorten(value: &str, chars: usize) -> Cow<'_, str> {
    match value.char_indices().nth(chars) {
        None => value.into(),
        Some((cut, _)) => format!("{}… ({} characters)", &value[..cut], value.chars().count()).into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_values_are_quoted_and_escaped() {
        assert_eq!(excerpt("露营").to_string(), "\"露营\"");
        assert_eq!(excerpt("a\u{0}b\n").to_string(), "\"a\\0b\\n\"");
    }

    #[test]
    fn long_values_are_cut_with_their_length() {
        let long = "é".repeat(100_000);
        let shown = excerpt(&long).to_string();
        assert!(shown.starts_with("\"éé"), "{shown}");
        assert!(shown.ends_with("…\" (100000 characters)"), "{shown}");
        assert_eq!(shown.chars().filter(|c| *c == 'é').count(), SHOWN_CHARS);
    }

    #[test]
    fn messages_are_capped() {
        assert_eq!(cap_message("short"), "short");
        let capped = cap_message(&"x".repeat(10_000)).into_owned();
        assert!(capped.len() < MESSAGE_CHARS + 40, "{}", capped.len());
        assert!(capped.ends_with("… (10000 characters)"));
    }
}
