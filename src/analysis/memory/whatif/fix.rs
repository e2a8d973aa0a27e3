//! The fixes a what-if replays (docs/rules/memory.md §9.1), as the command line and the agents spell them:
//! `free T@K`, `free T`, `free-buffer A@K`, `free-late`, `to-dram T`, `output-to-dram`,
//! `l1-small-size B`. Ids are those of the report being replayed.

use crate::analysis::memory::peak::parse_type_size;
use crate::analysis::messages::failure::BufferType;
use std::fmt;

/// One change to the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fix {
    /// Tensor `tensor`'s buffer freed right after operation `after`, or after its last use.
    Free {
        /// The tensor.
        tensor: u64,
        /// The operation after which; none for after its last use.
        after: Option<u64>,
    },
    /// The buffer at `address`, live after operation `after`, freed right after it.
    FreeBuffer {
        /// Its address.
        address: u64,
        /// The operation after which.
        after: u64,
    },
    /// Every tensor held past its last use freed at it.
    FreeLate,
    /// The tensor lives in DRAM from its producer on.
    ToDram {
        /// The tensor.
        tensor: u64,
    },
    /// The failing request placed in DRAM.
    OutputToDram,
    /// The device opened with this `l1_small_size`.
    L1SmallSize {
        /// Bytes.
        bytes: u64,
    },
    /// An extra allocation of `bytes` per bank of `buffer_type`, made before the first operation
    /// and kept to the end (docs/true-peak.md, the headroom's fix).
    Reserve {
        /// Its buffer type.
        buffer_type: BufferType,
        /// Bytes per bank.
        bytes: u64,
    },
}

impl fmt::Display for Fix {
    /// The fix as `whatif` takes it, without the leading dashes: `free 8@10`, `free-late`, ….
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Free { tensor, after: Some(k) } => write!(f, "free {tensor}@{k}"),
            Self::Free { tensor, after: None } => write!(f, "free {tensor}"),
            Self::FreeBuffer { address, after } => write!(f, "free-buffer {address}@{after}"),
            Self::FreeLate => f.write_str("free-late"),
            Self::ToDram { tensor } => write!(f, "to-dram {tensor}"),
            Self::OutputToDram => f.write_str("output-to-dram"),
            Self::L1SmallSize { bytes } => write!(f, "l1-small-size {bytes}"),
            Self::Reserve { buffer_type, bytes } => write!(f, "reserve {}={bytes}", buffer_type.token()),
        }
    }
}

impl Fix {
    /// The fix as `ttnn-tui whatif` takes it on its command line: `--free 8@10`, `--free-late`, ….
    pub fn flag(&self) -> String {
        format!("--{self}")
    }
}

/// Why a fix's text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read the fix {text:?}: {why}")]
pub struct FixError {
    /// The text given.
    pub text: String,
    /// What was expected.
    pub why: &'static str,
}

impl Fix {
    /// Reads a fix as the agents' `what_if` tool and the display write it: `free 8@10`,
    /// `free 8`, `free-buffer 1105920@10`, `free-late`, `to-dram 5`, `output-to-dram`,
    /// `l1-small-size 65536` (a leading `--` and `=` for the space are accepted too).
    pub fn parse(text: &str) -> Result<Self, FixError> {
        let trimmed = text.trim().trim_start_matches("--");
        let (name, value) = match trimmed.split_once(['=', ' ']) {
            Some((name, value)) => (name, Some(value.trim())),
            None => (trimmed, None),
        };
        let error = |why| FixError { text: text.to_string(), why };
        let number = |v: &str| v.trim().parse::<u64>().map_err(|_| error("a whole number was expected"));
        let at = |v: &str| -> Result<(u64, Option<u64>), FixError> {
            match v.split_once('@') {
                Some((a, k)) => Ok((number(a)?, Some(number(k)?))),
                None => Ok((number(v)?, None)),
            }
        };
        let needs = |why| value.ok_or_else(|| error(why));
        match name {
            "free" => {
                let (tensor, after) = at(needs("free TENSOR or free TENSOR@OPERATION")?)?;
                Ok(Self::Free { tensor, after })
            }
            "free-buffer" => match at(needs("free-buffer ADDRESS@OPERATION")?)? {
                (address, Some(after)) => Ok(Self::FreeBuffer { address, after }),
                (_, None) => Err(error("free-buffer ADDRESS@OPERATION")),
            },
            "free-late" if value.is_none() => Ok(Self::FreeLate),
            "to-dram" => Ok(Self::ToDram { tensor: number(needs("to-dram TENSOR")?)? }),
            "output-to-dram" if value.is_none() => Ok(Self::OutputToDram),
            "l1-small-size" => Ok(Self::L1SmallSize { bytes: number(needs("l1-small-size BYTES")?)? }),
            "reserve" => {
                let (buffer_type, bytes) = parse_type_size(needs("reserve TYPE=SIZE")?).map_err(error)?;
                Ok(Self::Reserve { buffer_type, bytes })
            }
            "free-late" | "output-to-dram" => Err(error("it takes no value")),
            _ => Err(error(
                "one of free T@K, free T, free-buffer A@K, free-late, to-dram T, output-to-dram, l1-small-size B, reserve TYPE=SIZE",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fix_reads_and_prints_back() {
        for (text, fix) in [
            ("free 8@10", Fix::Free { tensor: 8, after: Some(10) }),
            ("free 8", Fix::Free { tensor: 8, after: None }),
            ("free-buffer 1105920@10", Fix::FreeBuffer { address: 1_105_920, after: 10 }),
            ("free-late", Fix::FreeLate),
            ("to-dram 5", Fix::ToDram { tensor: 5 }),
            ("output-to-dram", Fix::OutputToDram),
            ("l1-small-size 65536", Fix::L1SmallSize { bytes: 65_536 }),
            ("reserve L1=65536", Fix::Reserve { buffer_type: BufferType::L1, bytes: 65_536 }),
        ] {
            assert_eq!(Fix::parse(text), Ok(fix), "{text}");
            assert_eq!(fix.to_string(), text);
            assert_eq!(Fix::parse(&format!("--{}", text.replacen(' ', "=", 1))), Ok(fix), "{text} as a flag");
        }
    }

    #[test]
    fn bad_fixes_say_what_was_expected() {
        let e = Fix::parse("free x@3").unwrap_err();
        assert_eq!(e.to_string(), "cannot read the fix \"free x@3\": a whole number was expected");
        assert_eq!(Fix::parse("free-buffer 12").unwrap_err().why, "free-buffer ADDRESS@OPERATION");
        assert_eq!(Fix::parse("free-late 3").unwrap_err().why, "it takes no value");
        assert!(Fix::parse("shrink 3").unwrap_err().why.starts_with("one of free T@K"));
        assert_eq!(Fix::parse("free").unwrap_err().why, "free TENSOR or free TENSOR@OPERATION");
    }
}
