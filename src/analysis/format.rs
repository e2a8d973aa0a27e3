//! Byte, address and percentage formatting, exactly as the reference prints them (docs/rules/reference.md §6).

/// Unit names of byte sizes, base 1024, capped at TiB.
const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];

/// Formats a byte count or a signed difference of byte counts: `3.13 MiB`, `1,023 B`, `-1,500 B`.
pub fn format_size(value: i128) -> String {
    if value == 0 {
        return "0 B".to_string();
    }
    if value < 0 {
        return format!("-{} B", group_thousands(&value.unsigned_abs().to_string()));
    }
    let value = value as u128;
    // The unit is chosen before rounding: the largest whose size does not exceed the value.
    let mut unit = 0;
    while unit + 1 < UNITS.len() && value >= 1u128 << (10 * (unit + 1)) {
        unit += 1;
    }
    let decimals = if unit < 2 { 0 } else { 2 };
    let scaled = round_half_away(value * 10u128.pow(decimals), 1u128 << (10 * unit));
    format!("{} {}", decimal_text(scaled, decimals), UNITS[unit])
}

/// Formats an unsigned byte count (see [`format_size`]).
pub(crate) fn size(value: u64) -> String {
    format_size(value as i128)
}

/// A whole number with en-US grouping: `150,000`.
pub(crate) fn grouped(value: u64) -> String {
    group_thousands(&value.to_string())
}

/// A count and its noun, `1 row` / `3 rows`.
pub(crate) fn counted(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// Formats an address: decimal, or `0x` + upper-case hex when `hex` is set; `NULL` when absent.
pub fn format_address(address: Option<u64>, hex: bool) -> String {
    match address {
        None => "NULL".to_string(),
        Some(a) if hex => format!("0x{a:X}"),
        Some(a) => a.to_string(),
    }
}

/// Formats a value in percent units with at most two decimals, en-US grouping: `12.35%`.
pub fn format_percent(value: f64) -> String {
    if !value.is_finite() {
        return format!("{value}%");
    }
    // Round the shortest decimal text of the value (what a reader sees), half away from zero.
    let text = format!("{}", value.abs());
    let (int_part, frac_part) = text.split_once('.').unwrap_or((&text, ""));
    let mut digits: Vec<u8> =
        int_part.bytes().chain(frac_part.bytes().chain("00".bytes()).take(2)).map(|b| b - b'0').collect();
    let round_up = frac_part.as_bytes().get(2).is_some_and(|d| *d >= b'5');
    if round_up {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, 1);
                break;
            }
            i -= 1;
            if digits[i] == 9 {
                digits[i] = 0;
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let scaled: u128 = digits.iter().fold(0u128, |acc, d| acc * 10 + u128::from(*d));
    let sign = if value < 0.0 && scaled != 0 { "-" } else { "" };
    format!("{sign}{}%", decimal_text(scaled, 2))
}

/// A tensor's shape as ttnn-tui writes it everywhere (text, tab 4, JSON): TT-NN's
/// `Shape([1, 32, 64])` without the wrapper, `[1, 32, 64]`; any other text as it is.
pub fn bare_shape(shape: &str) -> &str {
    shape.strip_prefix("Shape(").and_then(|s| s.strip_suffix(')')).unwrap_or(shape)
}

/// Divides and rounds half away from zero (both operands non-negative).
fn round_half_away(numerator: u128, denominator: u128) -> u128 {
    (2 * numerator + denominator) / (2 * denominator)
}

/// Renders `scaled / 10^decimals` with thousands separators, dropping trailing zeros.
fn decimal_text(scaled: u128, decimals: u32) -> String {
    let divisor = 10u128.pow(decimals);
    let whole = group_thousands(&(scaled / divisor).to_string());
    let mut fraction = format!("{:0width$}", scaled % divisor, width = decimals as usize);
    while fraction.ends_with('0') {
        fraction.pop();
    }
    if fraction.is_empty() { whole } else { format!("{whole}.{fraction}") }
}

/// Inserts `,` every three digits from the right.
fn group_thousands(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_lose_the_wrapper_only() {
        assert_eq!(bare_shape("Shape([1, 1, 3136, 64])"), "[1, 1, 3136, 64]");
        assert_eq!(bare_shape("[1, 32]"), "[1, 32]");
        assert_eq!(bare_shape("Shape([1, 32]"), "Shape([1, 32]");
        assert_eq!(bare_shape("torch.Size([1, 32])"), "torch.Size([1, 32])");
    }

    /// docs/rules/reference.md §14.4, every row.
    #[test]
    fn byte_vectors() {
        let cases: &[(i128, &str)] = &[
            (0, "0 B"),
            (1023, "1,023 B"),
            (1024, "1 KiB"),
            (2560, "3 KiB"),
            (100864, "99 KiB"),
            (21568, "21 KiB"),
            (1048575, "1,024 KiB"),
            (1048576, "1 MiB"),
            (1073741823, "1,024 MiB"),
            (1099511627775, "1,024 GiB"),
            (1099511627776, "1 TiB"),
            (-1500, "-1,500 B"),
            (3276800, "3.13 MiB"),
            (819200, "800 KiB"),
            (1382720, "1.32 MiB"),
            (382720, "374 KiB"),
            (300000, "293 KiB"),
            (1499136, "1.43 MiB"),
            (1600000, "1.53 MiB"),
            (2000000, "1.91 MiB"),
            (1071821792, "1,022.17 MiB"),
            (4273390016, "3.98 GiB"),
            (1125899906842624, "1,024 TiB"),
        ];
        for (input, expected) in cases {
            assert_eq!(format_size(*input), *expected, "input {input}");
        }
    }

    #[test]
    fn sizes_beyond_javascript_precision_stay_exact() {
        assert_eq!(size(u64::MAX), "16,777,216 TiB");
        assert_eq!(size(1536 * 1024 * 1024), "1.5 GiB");
    }

    #[test]
    fn address_vectors() {
        assert_eq!(format_address(Some(621824), true), "0x97D00");
        assert_eq!(format_address(Some(600256), true), "0x928C0");
        assert_eq!(format_address(Some(621824), false), "621824");
        assert_eq!(format_address(None, false), "NULL");
        // Not truncated to 32 bits (a reference quirk not copied).
        assert_eq!(format_address(Some(0x1_0000_0010), true), "0x100000010");
    }

    #[test]
    fn percent_vectors() {
        assert_eq!(format_percent(45.3), "45.3%");
        assert_eq!(format_percent(12.345), "12.35%");
        assert_eq!(format_percent(1234.5), "1,234.5%");
        assert_eq!(format_percent(12.3), "12.3%");
        assert_eq!(format_percent(99.999), "100%");
        assert_eq!(format_percent(0.0), "0%");
    }
}
