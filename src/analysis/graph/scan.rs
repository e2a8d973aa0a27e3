//! The common captured-graph node read by hand (docs/rules/formats.md §3): an object of plain
//! keys, strings without escapes, non-negative integers, booleans, nulls and lists, as ttnn
//! writes nearly every node. A failure's graph may be 200 MB of such nodes, where the typed
//! reader (`json.rs`) spends most of its time matching keys and visiting values. Whatever this
//! reader is not sure to read exactly as the typed reader would — an escape, a negative or
//! decimal number, a duplicate key, a `core_range_set`, anything malformed — it leaves to that
//! reader ([`Scanned::Unsure`]); what it reads is the typed reader's node (tested against it).

use super::scalars::{NodeScalars, Param, Scalar};

/// What reading the node at the start of a text gave.
pub(super) enum Scanned {
    /// The node, and the bytes it took.
    Node(usize),
    /// The text ends inside the node.
    Cut,
    /// Not a node this reader is sure of: the typed reader decides.
    Unsure,
}

/// Why reading stopped.
enum Stop {
    Cut,
    Unsure,
}

type Read<T> = Result<T, Stop>;

/// Nesting deeper than this inside a skipped value is left to the typed reader (which has a
/// recursion limit of its own).
const MAX_DEPTH: usize = 64;

/// Reads the node at the start of `text` (which must begin with `{`) into `node`; the numbers
/// of its `input_tensors` and `connections` (those of their items `Scalar::as_u64` reads) go to
/// `inputs` and `links`.
pub(super) fn scan_node<'a>(
    text: &'a str,
    node: &mut NodeScalars<'a>,
    inputs: &mut Vec<u64>,
    links: &mut Vec<u64>,
) -> Scanned {
    inputs.clear();
    links.clear();
    *node = NodeScalars::default();
    let mut scan = Scan { text, at: 0, inputs: std::mem::take(inputs), links: std::mem::take(links) };
    let read = scan.node(node);
    (*inputs, *links) = (scan.inputs, scan.links);
    match read {
        Ok(()) => Scanned::Node(scan.at),
        Err(Stop::Cut) => Scanned::Cut,
        Err(Stop::Unsure) => Scanned::Unsure,
    }
}

/// A position in the text being read, and the lists' numbers read so far.
struct Scan<'a> {
    text: &'a str,
    at: usize,
    inputs: Vec<u64>,
    links: Vec<u64>,
}

/// Which list's numbers an item goes to.
#[derive(Clone, Copy)]
enum List {
    Inputs,
    Links,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Read<u8> {
        self.text.as_bytes().get(self.at).copied().ok_or(Stop::Cut)
    }

    fn skip_whitespace(&mut self) -> Read<u8> {
        loop {
            match self.peek()? {
                b' ' | b'\n' | b'\t' | b'\r' => self.at += 1,
                next => return Ok(next),
            }
        }
    }

    fn expect(&mut self, byte: u8) -> Read<()> {
        match self.skip_whitespace()? == byte {
            true => {
                self.at += 1;
                Ok(())
            }
            false => Err(Stop::Unsure),
        }
    }

    /// A string without escapes or control characters, at `"`.
    fn string(&mut self) -> Read<&'a str> {
        let bytes = self.text.as_bytes();
        let start = self.at + 1;
        let end = string_end(bytes, start).ok_or(Stop::Cut)?;
        if bytes[end] != b'"' {
            return Err(Stop::Unsure);
        }
        self.at = end + 1;
        // Both ends are ASCII bytes of the text: character boundaries.
        self.text.get(start..end).ok_or(Stop::Unsure)
    }

    /// A non-negative integer of at most 19 digits, without a leading zero: always a `u64`.
    fn integer(&mut self) -> Read<u64> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let mut value = 0u64;
        let mut at = start;
        let next = loop {
            match bytes.get(at) {
                Some(&digit @ b'0'..=b'9') if at - start < 19 => {
                    value = value * 10 + u64::from(digit - b'0');
                    at += 1;
                }
                Some(&next) => break next,
                None => return Err(Stop::Cut),
            }
        };
        let leading_zero = at - start > 1 && bytes[start] == b'0';
        if at == start || leading_zero || matches!(next, b'0'..=b'9' | b'.' | b'e' | b'E') {
            return Err(Stop::Unsure);
        }
        self.at = at;
        Ok(value)
    }

    fn literal(&mut self, word: &str) -> Read<()> {
        let rest = &self.text.as_bytes()[self.at..];
        if rest.starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(())
        } else if word.as_bytes().starts_with(rest) {
            Err(Stop::Cut)
        } else {
            Err(Stop::Unsure)
        }
    }

    /// A scalar as the typed reader reads it, into `out`; `null` is none, a list or an object
    /// `Other`.
    fn scalar(&mut self, out: &mut Option<Scalar<'a>>) -> Read<()> {
        *out = Some(match self.skip_whitespace()? {
            b'"' => Scalar::Str(self.string()?),
            b'0'..=b'9' => Scalar::U64(self.integer()?),
            b't' => self.literal("true").map(|()| Scalar::Bool(true))?,
            b'f' => self.literal("false").map(|()| Scalar::Bool(false))?,
            b'n' => return self.literal("null"),
            b'[' | b'{' => self.skip(0).map(|()| Scalar::Other)?,
            _ => return Err(Stop::Unsure),
        });
        Ok(())
    }

    /// A list of scalars, or `null`: the numbers of its items go to `list`.
    fn list(&mut self, list: List) -> Read<()> {
        match self.skip_whitespace()? {
            b'n' => return self.literal("null"),
            b'[' => self.at += 1,
            _ => return Err(Stop::Unsure),
        }
        if self.skip_whitespace()? == b']' {
            self.at += 1;
            return Ok(());
        }
        loop {
            let mut item = None;
            self.scalar(&mut item)?;
            if let Some(number) = item.and_then(Scalar::as_u64) {
                match list {
                    List::Inputs => self.inputs.push(number),
                    List::Links => self.links.push(number),
                }
            }
            match self.skip_whitespace()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(Stop::Unsure),
            }
        }
    }

    /// Any value, checked and dropped.
    fn skip(&mut self, depth: usize) -> Read<()> {
        if depth > MAX_DEPTH {
            return Err(Stop::Unsure);
        }
        match self.skip_whitespace()? {
            b'[' => {
                self.at += 1;
                if self.skip_whitespace()? == b']' {
                    self.at += 1;
                    return Ok(());
                }
                loop {
                    self.skip(depth + 1)?;
                    match self.skip_whitespace()? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Ok(());
                        }
                        _ => return Err(Stop::Unsure),
                    }
                }
            }
            b'{' => self.object(|scan, _| scan.skip(depth + 1)),
            _ => self.scalar(&mut None),
        }
    }

    /// An object, each value read by `value` given its key.
    fn object(&mut self, mut value: impl FnMut(&mut Self, &'a str) -> Read<()>) -> Read<()> {
        self.expect(b'{')?;
        if self.skip_whitespace()? == b'}' {
            self.at += 1;
            return Ok(());
        }
        loop {
            if self.skip_whitespace()? != b'"' {
                return Err(Stop::Unsure);
            }
            let key = self.string()?;
            self.expect(b':')?;
            value(self, key)?;
            match self.skip_whitespace()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(Stop::Unsure),
            }
        }
    }

    fn node(&mut self, node: &mut NodeScalars<'a>) -> Read<()> {
        let mut seen = Seen::default();
        self.object(|scan, key| {
            let key_bit = match key {
                "id" => 0,
                "counter" => 1,
                "node_type" => 2,
                "stacking_level" => 3,
                "input_tensors" => 4,
                "connections" => 5,
                "params" => 6,
                _ => return scan.skip(0),
            };
            seen.first(key_bit)?;
            match key_bit {
                0 => scan.scalar(&mut node.id)?,
                1 => scan.scalar(&mut node.counter)?,
                2 => scan.scalar(&mut node.node_type)?,
                3 => scan.scalar(&mut node.stacking_level)?,
                4 => scan.list(List::Inputs)?,
                5 => scan.list(List::Links)?,
                _ => scan.params(&mut node.params)?,
            }
            Ok(())
        })
    }

    /// `params`: an object, or `null` (none), into `params` (by [`Param`]).
    fn params(&mut self, params: &mut [Option<Scalar<'a>>; 16]) -> Read<()> {
        if self.skip_whitespace()? == b'n' {
            return self.literal("null");
        }
        let mut seen = Seen::default();
        self.object(|scan, key| {
            let param = match key {
                "name" => Param::Name,
                "aborted" => Param::Aborted,
                "abort_reason" => Param::AbortReason,
                "size" => Param::Size,
                "address" => Param::Address,
                "buffer_type" => Param::BufferType,
                "type" => Param::TypeName,
                "layout" => Param::Layout,
                "device_id" => Param::DeviceId,
                "tensor_id" => Param::TensorId,
                "shape" => Param::Shape,
                "memory_config" => Param::MemoryConfig,
                "max_size_per_bank" => Param::MaxSizePerBank,
                "num_cores" => Param::NumCores,
                "page_size" => Param::PageSize,
                "globally_allocated" => Param::GloballyAllocated,
                // Its three forms are the typed reader's to tell apart.
                "core_range_set" => return Err(Stop::Unsure),
                _ => return scan.skip(0),
            };
            seen.first(param as u32)?;
            scan.scalar(&mut params[param as usize])
        })
    }
}

/// Where the string whose text starts at `start` ends: its closing quote, or the first
/// backslash or control character in it (which the typed reader is left to read); none when
/// the text ends first. Eight bytes are looked at a time: in each, a byte that is a quote, a
/// backslash or below a space sets its high bit in `hits`, and the lowest bit set is the first
/// such byte (the borrows that may set higher bits run only upwards).
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let below = |word: u64, n: u64| word.wrapping_sub(ONES * n) & !word & HIGHS;
    let mut at = start;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().ok()?);
        let hits =
            below(word ^ (ONES * u64::from(b'"')), 1) | below(word ^ (ONES * u64::from(b'\\')), 1) | below(word, 0x20);
        if hits != 0 {
            return Some(at + hits.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    bytes[at..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).map(|p| at + p)
}

/// The known keys of one object read so far, by their bit: a second one is the typed reader's
/// error to give.
#[derive(Default)]
struct Seen(u32);

impl Seen {
    fn first(&mut self, key_bit: u32) -> Read<()> {
        let bit = 1 << key_bit;
        if self.0 & bit != 0 {
            return Err(Stop::Unsure);
        }
        self.0 |= bit;
        Ok(())
    }
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
