//! Numbers in a performance report's cells, read as tt-perf-report (pandas) and the web app
//! (JavaScript) read them: the longest numeric prefix.

/// Reads a number as JavaScript's `parseFloat` does: the longest numeric prefix after leading
/// whitespace (`"12.5 us"` → 12.5, `"abc"` → none).
pub(crate) fn parse_float_prefix(text: &str) -> Option<f64> {
    let s = text.trim_start();
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    if s[i..].starts_with("Infinity") {
        let value = f64::INFINITY;
        return Some(if b.first() == Some(&b'-') { -value } else { value });
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut mantissa_digits = i - digits_start;
    if i < b.len() && b[i] == b'.' {
        let dot = i;
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        mantissa_digits += i - dot - 1;
    }
    if mantissa_digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exponent_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exponent_start {
            i = j;
        }
    }
    s[..i].parse().ok()
}

/// Reads an integer as JavaScript's `parseInt` does (base 10): optional sign, leading digits.
pub(crate) fn parse_int_prefix(text: &str) -> Option<i64> {
    let s = text.trim_start();
    let (sign, rest) = match s.as_bytes().first() {
        Some(b'-') => (-1, &s[1..]),
        Some(b'+') => (1, &s[1..]),
        _ => (1, s),
    };
    let end = rest.bytes().position(|c| !c.is_ascii_digit()).unwrap_or(rest.len());
    rest[..end].parse::<i64>().ok().map(|v| sign * v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_like_javascript() {
        assert_eq!(parse_float_prefix(" 12.5 us"), Some(12.5));
        assert_eq!(parse_float_prefix("1e3x"), Some(1000.0));
        assert_eq!(parse_float_prefix("1e"), Some(1.0));
        assert_eq!(parse_float_prefix(".5"), Some(0.5));
        assert_eq!(parse_float_prefix("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float_prefix("abc"), None);
        assert_eq!(parse_float_prefix(""), None);
        assert_eq!(parse_float_prefix("."), None);
        assert_eq!(parse_int_prefix("64.9"), Some(64));
        assert_eq!(parse_int_prefix(" -3x"), Some(-3));
        assert_eq!(parse_int_prefix(""), None);
        assert_eq!(parse_int_prefix("x1"), None);
    }
}
