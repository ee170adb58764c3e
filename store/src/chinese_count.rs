//! Counts as Chinese platforms print them: `1.2万`, `3.4亿`, `924 万热度`,
//! `10万+`, `1,234`, `1w`, `2.5k`. The one parser for the whole service
//! (imports, hot lists, upstream answers): every count that arrives as text
//! goes through [`parse_count`] or [`parse_count_strict`].
//!
//! Rules, in order:
//! 1. Spaces (ASCII and full-width), thousands separators (`,` `，`) and a
//!    leading `约` or `~` are ignored.
//! 2. Blank, `-`, `--` and `—` mean "not known" (`None`), never 0.
//! 3. A decimal number, then at most one unit: `万` `w` `W` (10⁴), `亿`
//!    (10⁸), `千` `k` `K` (10³), `百万` `m` `M` (10⁶), `万亿` (10¹²).
//! 4. Then an optional `+` (a lower bound such as `10万+` counts as its
//!    bound) and any trailing words that contain no ASCII letter or digit
//!    (`热度`, `次播放`, `赞`).
//!
//! The value is exact for the digits given (`1.2万` is 12,000, not 11,999)
//! and rounded half up when a unit leaves a fraction (`1.23456万` is 12,346).

/// The count `text` stands for; `None` when it is blank or unreadable.
///
/// ```
/// use mediaops_store::chinese_count::parse_count;
/// assert_eq!(parse_count("1.2万"), Some(12_000));
/// assert_eq!(parse_count("3.4亿"), Some(340_000_000));
/// assert_eq!(parse_count("924 万热度"), Some(9_240_000));
/// assert_eq!(parse_count("10万+"), Some(100_000));
/// assert_eq!(parse_count("1,234"), Some(1_234));
/// assert_eq!(parse_count("1w"), Some(10_000));
/// assert_eq!(parse_count("2.5k"), Some(2_500));
/// assert_eq!(parse_count("42"), Some(42));
/// assert_eq!(parse_count(""), None);
/// assert_eq!(parse_count("-"), None);
/// assert_eq!(parse_count("many"), None);
/// ```
pub fn parse_count(text: &str) -> Option<i64> {
    parse_count_strict(text).ok().flatten()
}

/// As [`parse_count`], but tells "not known" (`Ok(None)`: blank, `-`) from
/// text that is not a count (`Err` with the reason), for importers that
/// reject a row with a bad count instead of dropping the value.
///
/// ```
/// use mediaops_store::chinese_count::parse_count_strict;
/// assert_eq!(parse_count_strict("1.2万"), Ok(Some(12_000)));
/// assert_eq!(parse_count_strict(" - "), Ok(None));
/// assert!(parse_count_strict("12abc").is_err());
/// ```
///
/// # Errors
/// Text that does not follow the module's rules, a negative number, or a
/// value beyond `i64`.
pub fn parse_count_strict(text: &str) -> Result<Option<i64>, String> {
    let cleaned: String = text.chars().filter(|c| !c.is_whitespace() && !matches!(c, ',' | '，')).collect();
    let body = cleaned.trim_start_matches(['约', '~']);
    if matches!(body, "" | "-" | "--" | "—") {
        return Ok(None);
    }
    let not_a_count = || format!("{text:?} is not a count");
    let number_len = body.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(body.len());
    let (number, rest) = body.split_at(number_len);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() || fraction.contains('.') {
        return Err(not_a_count());
    }
    let (scale, rest) = unit(rest);
    let rest = rest.strip_prefix('+').unwrap_or(rest);
    if rest.chars().any(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-') {
        return Err(not_a_count());
    }
    let too_large = || format!("{text:?} is too large");
    // value = (whole + fraction / 10^len) * scale, in integers.
    let digits: i128 = format!("{whole}{fraction}").parse().map_err(|_| too_large())?;
    let divisor = 10_i128.checked_pow(fraction.len() as u32).ok_or_else(too_large)?;
    let scaled = digits.checked_mul(scale).ok_or_else(too_large)?;
    let value = (scaled + divisor / 2) / divisor;
    i64::try_from(value).map(Some).map_err(|_| too_large())
}

/// The unit at the start of `rest` and what follows it.
fn unit(rest: &str) -> (i128, &str) {
    const UNITS: [(&str, i128); 9] = [
        ("万亿", 1_000_000_000_000),
        ("百万", 1_000_000),
        ("万", 10_000),
        ("亿", 100_000_000),
        ("千", 1_000),
        ("w", 10_000),
        ("W", 10_000),
        ("k", 1_000),
        ("K", 1_000),
    ];
    for (name, scale) in UNITS {
        if let Some(after) = rest.strip_prefix(name) {
            return (scale, after);
        }
    }
    for name in ["m", "M"] {
        if let Some(after) = rest.strip_prefix(name) {
            return (1_000_000, after);
        }
    }
    (1, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_scale_exactly() {
        let cases = [
            ("1.2万", 12_000),
            ("3.4亿", 340_000_000),
            ("924 万热度", 9_240_000),
            ("10万+", 100_000),
            ("1,234", 1_234),
            ("1，234，567", 1_234_567),
            ("1w", 10_000),
            ("1.5W", 15_000),
            ("2.5k", 2_500),
            ("3K", 3_000),
            ("2千", 2_000),
            ("1.1百万", 1_100_000),
            ("2M", 2_000_000),
            ("1.5万亿", 1_500_000_000_000),
            ("0", 0),
            ("42", 42),
            ("  7  ", 7),
            ("999+", 999),
            ("约3.5万", 35_000),
            ("1.23456万", 12_346),
            ("0.5", 1),
            ("12万次播放", 120_000),
            ("3.4亿 热度", 340_000_000),
        ];
        for (text, want) in cases {
            assert_eq!(parse_count(text), Some(want), "{text}");
        }
    }

    #[test]
    fn blanks_are_unknown_and_garbage_is_an_error() {
        for blank in ["", " ", "-", "--", "—", " - "] {
            assert_eq!(parse_count_strict(blank), Ok(None), "{blank:?}");
        }
        for bad in ["many", "12abc", "1.2.3", "万", ".5万", "-5", "1万w", "1e5", "None", "12 34x"] {
            assert!(parse_count_strict(bad).is_err(), "{bad:?}");
            assert_eq!(parse_count(bad), None, "{bad:?}");
        }
        assert!(parse_count_strict("99999999999亿").unwrap_err().contains("too large"));
        assert_eq!(parse_count("9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_count("9223372036854775808"), None);
    }
}
