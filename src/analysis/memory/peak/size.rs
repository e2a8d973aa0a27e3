//! `TYPE=SIZE` as `headroom --min` and the fix `reserve TYPE=SIZE` read it: a buffer type
//! (`L1`, `DRAM`, `L1_SMALL`) and bytes, plain or with a unit (`64KiB`, `1.5 MiB`, `2048 B`).

use crate::analysis::messages::failure::BufferType;

/// Reads `TYPE=SIZE`; the error says what was expected.
pub fn parse_type_size(text: &str) -> Result<(BufferType, u64), &'static str> {
    let (t, s) = text.split_once('=').ok_or("TYPE=SIZE, e.g. L1=64KiB")?;
    let buffer_type = match t.trim().to_ascii_uppercase().as_str() {
        "L1" => BufferType::L1,
        "DRAM" => BufferType::Dram,
        "L1_SMALL" | "L1-SMALL" => BufferType::L1Small,
        _ => return Err("a buffer type of L1, DRAM or L1_SMALL"),
    };
    Ok((buffer_type, parse_size(s)?))
}

/// Reads bytes: a whole number, or a number with B, KiB, MiB or GiB (KB, MB, GB and K, M, G
/// mean the same powers of 1024).
pub fn parse_size(text: &str) -> Result<u64, &'static str> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = (&text[..split], text[split..].trim());
    let scale: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err("a size in bytes, or with KiB, MiB or GiB"),
    };
    let value: f64 = number.parse().map_err(|_| "a size in bytes, or with KiB, MiB or GiB")?;
    if !value.is_finite() || value < 0.0 || (scale == 1 && number.contains('.')) {
        return Err("a size in bytes, or with KiB, MiB or GiB");
    }
    Ok((value * scale as f64).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_types_read() {
        assert_eq!(parse_type_size("L1=64KiB"), Ok((BufferType::L1, 65_536)));
        assert_eq!(parse_type_size("dram=1.5 MiB"), Ok((BufferType::Dram, 1_572_864)));
        assert_eq!(parse_type_size("L1_SMALL=4096"), Ok((BufferType::L1Small, 4096)));
        assert_eq!(parse_type_size("L1=2048 B"), Ok((BufferType::L1, 2048)));
        assert_eq!(parse_type_size("L2=1"), Err("a buffer type of L1, DRAM or L1_SMALL"));
        assert_eq!(parse_type_size("L1"), Err("TYPE=SIZE, e.g. L1=64KiB"));
        assert!(parse_type_size("L1=12 parsecs").is_err() && parse_type_size("L1=1.5").is_err());
    }
}
