//! The common captured-graph node read by hand (docs/rules/formats.md §3): an object of plain
//! keys, strings without escapes, non-negative integers, booleans, nulls and lists, as ttnn
//! writes nearly every node. A failure's graph may be 200 MB of such nodes, where the typed
//! reader (`json.rs`) spends most of its time matching keys and visiting values. Whatever this
//! reader is not sure to read exactly as the typed reader would — an escape, a negative or
//! decimal number, a duplicate key, a `core_range_set`, anything malformed — it leaves to that
//! reader ([`Scanned::Unsure`]); what it reads is the typed reader's node (tested against it).

use super::json::{Loose, Node, RawParams};
use std::borrow::Cow;

/// A node as read here: its lists' numbers are gathered apart.
pub(super) type ScannedNode<'a> = Node<'a, RawParams<'a>, ()>;

/// What reading the node at the start of a text gave.
pub(super) enum Scanned<'a> {
    /// The node and the bytes it took.
    Node(ScannedNode<'a>, usize),
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

/// Reads the node at the start of `text` (which must begin with `{`); the numbers of its
/// `input_tensors` and `connections` (those of their items `Loose::as_u64` reads) go to `inputs`
/// and `links`.
pub(super) fn scan_node<'a>(text: &'a str, inputs: &mut Vec<u64>, links: &mut Vec<u64>) -> Scanned<'a> {
    inputs.clear();
    links.clear();
    let mut scan = Scan { text, at: 0, inputs: std::mem::take(inputs), links: std::mem::take(links) };
    let read = scan.node();
    (*inputs, *links) = (scan.inputs, scan.links);
    match read {
        Ok(node) => Scanned::Node(node, scan.at),
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
        let length = bytes[self.at..].iter().position(|b| !b.is_ascii_digit()).ok_or(Stop::Cut)?;
        let digits = &bytes[self.at..self.at + length];
        if length == 0 || length > 19 || (length > 1 && digits[0] == b'0') {
            return Err(Stop::Unsure);
        }
        if matches!(bytes[self.at + length], b'.' | b'e' | b'E') {
            return Err(Stop::Unsure);
        }
        self.at += length;
        Ok(digits.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')))
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
    fn loose(&mut self, out: &mut Option<Loose<'a>>) -> Read<()> {
        *out = Some(match self.skip_whitespace()? {
            b'"' => Loose::Str(Cow::Borrowed(self.string()?)),
            b'0'..=b'9' => Loose::U64(self.integer()?),
            b't' => self.literal("true").map(|()| Loose::Bool(true))?,
            b'f' => self.literal("false").map(|()| Loose::Bool(false))?,
            b'n' => return self.literal("null"),
            b'[' | b'{' => self.skip(0).map(|()| Loose::Other)?,
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
            self.loose(&mut item)?;
            if let Some(number) = item.as_ref().and_then(Loose::as_u64) {
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
            _ => self.loose(&mut None),
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

    fn node(&mut self) -> Read<ScannedNode<'a>> {
        let mut node = ScannedNode {
            id: None,
            counter: None,
            node_type: None,
            params: None,
            stacking_level: None,
            input_tensors: None,
            connections: None,
        };
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
                0 => scan.loose(&mut node.id)?,
                1 => scan.loose(&mut node.counter)?,
                2 => scan.loose(&mut node.node_type)?,
                3 => scan.loose(&mut node.stacking_level)?,
                4 => scan.list(List::Inputs)?,
                5 => scan.list(List::Links)?,
                _ => scan.params(&mut node.params)?,
            }
            Ok(())
        })?;
        Ok(node)
    }

    /// `params`: an object, or `null` (none).
    fn params(&mut self, out: &mut Option<RawParams<'a>>) -> Read<()> {
        if self.skip_whitespace()? == b'n' {
            return self.literal("null");
        }
        let params = out.insert(RawParams::default());
        let mut seen = Seen::default();
        self.object(|scan, key| {
            let (key_bit, field) = match key {
                "name" => (0, &mut params.name),
                "aborted" => (1, &mut params.aborted),
                "abort_reason" => (2, &mut params.abort_reason),
                "size" => (3, &mut params.size),
                "address" => (4, &mut params.address),
                "buffer_type" => (5, &mut params.buffer_type),
                "type" => (6, &mut params.type_name),
                "layout" => (7, &mut params.layout),
                "device_id" => (8, &mut params.device_id),
                "tensor_id" => (9, &mut params.tensor_id),
                "shape" => (10, &mut params.shape),
                "memory_config" => (11, &mut params.memory_config),
                "max_size_per_bank" => (12, &mut params.max_size_per_bank),
                "num_cores" => (13, &mut params.num_cores),
                "page_size" => (14, &mut params.page_size),
                "globally_allocated" => (15, &mut params.globally_allocated),
                // Its three forms are the typed reader's to tell apart.
                "core_range_set" => return Err(Stop::Unsure),
                _ => return scan.skip(0),
            };
            seen.first(key_bit)?;
            scan.loose(field)
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
