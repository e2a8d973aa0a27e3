//! The common captured-graph node read by hand (docs/rules/formats.md §3): an object of plain
//! keys, strings without escapes, non-negative integers, booleans, nulls and lists, as ttnn
//! writes nearly every node. A failure's graph may be 200 MB of such nodes, where the typed
//! reader (`json.rs`) spends most of its time matching keys and visiting values. Whatever this
//! reader is not sure to read exactly as the typed reader would — an escape, a negative or
//! decimal number, a duplicate key, a `core_range_set`, anything malformed — it leaves to that
//! reader ([`Scanned::Unsure`]); what it reads is the typed reader's node (tested against it).
//! A key the rules read is recognised in the text itself, quotes included ([`node_key`]); any
//! other is read as a string, and its value checked and dropped.

use super::scalars::{NodeScalars, Scalar, node_key, param_key};

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
    /// The next byte that is not whitespace (most often the one at `at`).
    #[inline]
    fn next(&mut self) -> Read<u8> {
        match self.text.as_bytes().get(self.at) {
            Some(&byte) if byte > b' ' => Ok(byte),
            _ => self.skip_whitespace(),
        }
    }

    fn skip_whitespace(&mut self) -> Read<u8> {
        loop {
            match self.text.as_bytes().get(self.at).copied().ok_or(Stop::Cut)? {
                b' ' | b'\n' | b'\t' | b'\r' => self.at += 1,
                next => return Ok(next),
            }
        }
    }

    fn expect(&mut self, byte: u8) -> Read<()> {
        if self.next()? != byte {
            return Err(Stop::Unsure);
        }
        self.at += 1;
        Ok(())
    }

    /// The text from `at` on.
    fn rest(&self) -> &'a [u8] {
        self.text.as_bytes().get(self.at..).unwrap_or_default()
    }

    /// A string without escapes or control characters, at `"`.
    #[inline(always)]
    fn string(&mut self) -> Read<&'a str> {
        let start = self.at + 1;
        let end = string_end(self.text.as_bytes(), start).ok_or(Stop::Cut)?;
        if self.text.as_bytes().get(end) != Some(&b'"') {
            return Err(Stop::Unsure);
        }
        self.at = end + 1;
        // Both ends are ASCII bytes of the text: character boundaries.
        self.text.get(start..end).ok_or(Stop::Unsure)
    }

    /// A key other than the known ones (at its `"`), and the colon after it.
    fn other_key(&mut self) -> Read<&'a str> {
        let key = self.string()?;
        self.expect(b':')?;
        Ok(key)
    }

    /// A known key (`quoted`, found at `at` by [`node_key`] or [`param_key`]) and the colon.
    fn known_key(&mut self, quoted: usize) -> Read<()> {
        self.at += quoted;
        self.expect(b':')
    }

    /// A non-negative integer of at most 19 digits, without a leading zero: always a `u64`.
    #[inline(always)]
    fn integer(&mut self) -> Read<u64> {
        let rest = self.rest();
        // Up to eight digits at once; a longer number goes on one digit at a time.
        let (mut value, mut digits) =
            rest.first_chunk().map_or((0, 0), |word| leading_digits(u64::from_le_bytes(*word)));
        let next = loop {
            match rest.get(digits) {
                Some(&digit @ b'0'..=b'9') if digits < 19 => {
                    value = value * 10 + u64::from(digit - b'0');
                    digits += 1;
                }
                Some(&next) => break next,
                None => return Err(Stop::Cut),
            }
        };
        let leading_zero = digits > 1 && rest[0] == b'0';
        if digits == 0 || leading_zero || matches!(next, b'0'..=b'9' | b'.' | b'e' | b'E') {
            return Err(Stop::Unsure);
        }
        self.at += digits;
        Ok(value)
    }

    fn literal(&mut self, word: &str) -> Read<()> {
        let rest = self.rest();
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
    #[inline(always)]
    fn scalar(&mut self, out: &mut Option<Scalar<'a>>) -> Read<()> {
        *out = Some(match self.next()? {
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
        match self.next()? {
            b'n' => return self.literal("null"),
            b'[' => self.at += 1,
            _ => return Err(Stop::Unsure),
        }
        if self.next()? == b']' {
            self.at += 1;
            return Ok(());
        }
        loop {
            // Nearly every item is an integer, read as `scalar` would read it.
            let number = match self.next()? {
                b'0'..=b'9' => Some(self.integer()?),
                _ => {
                    let mut item = None;
                    self.scalar(&mut item)?;
                    item.and_then(Scalar::as_u64)
                }
            };
            match (number, list) {
                (Some(number), List::Inputs) => self.inputs.push(number),
                (Some(number), List::Links) => self.links.push(number),
                (None, _) => {}
            }
            match self.next()? {
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
        match self.next()? {
            b'[' => {
                self.at += 1;
                if self.next()? == b']' {
                    self.at += 1;
                    return Ok(());
                }
                loop {
                    self.skip(depth + 1)?;
                    match self.next()? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Ok(());
                        }
                        _ => return Err(Stop::Unsure),
                    }
                }
            }
            b'{' => self.object(|scan| {
                scan.other_key()?;
                scan.skip(depth + 1)
            }),
            _ => self.scalar(&mut None),
        }
    }

    /// An object, each member read by `member` from its key's `"`.
    fn object(&mut self, mut member: impl FnMut(&mut Self) -> Read<()>) -> Read<()> {
        self.expect(b'{')?;
        if self.next()? == b'}' {
            self.at += 1;
            return Ok(());
        }
        loop {
            if self.next()? != b'"' {
                return Err(Stop::Unsure);
            }
            member(self)?;
            match self.next()? {
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
        self.object(|scan| {
            let Some((key_bit, quoted)) = node_key(scan.rest()) else {
                scan.other_key()?;
                return scan.skip(0);
            };
            scan.known_key(quoted)?;
            seen.first(key_bit)?;
            match key_bit {
                0 => scan.scalar(&mut node.id),
                1 => scan.scalar(&mut node.counter),
                2 => scan.scalar(&mut node.node_type),
                3 => scan.scalar(&mut node.stacking_level),
                4 => scan.list(List::Inputs),
                5 => scan.list(List::Links),
                _ => scan.params(&mut node.params),
            }
        })
    }

    /// `params`: an object, or `null` (none), into `params` (by [`Param`](super::scalars::Param)).
    fn params(&mut self, params: &mut [Option<Scalar<'a>>; 16]) -> Read<()> {
        if self.next()? == b'n' {
            return self.literal("null");
        }
        let mut seen = Seen::default();
        self.object(|scan| {
            let Some((param, quoted)) = param_key(scan.rest()) else {
                // Its three forms are the typed reader's to tell apart.
                if scan.other_key()? == "core_range_set" {
                    return Err(Stop::Unsure);
                }
                return scan.skip(0);
            };
            scan.known_key(quoted)?;
            seen.first(param as u32)?;
            scan.scalar(&mut params[param as usize])
        })
    }
}

/// The value of the decimal digits `word`'s bytes begin with (in the text's order), and how many
/// there are. A byte is a digit when its high half is 3 both as it is and plus 6; a carry out
/// of a byte plus 6 comes only from a byte that is not a digit, and goes upwards, past it.
fn leading_digits(word: u64) -> (u64, usize) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let not_three = |word: u64| (word & (ONES * 0xf0)) ^ (ONES * 0x30);
    let others = not_three(word) | not_three(word.wrapping_add(ONES * 6));
    let digits = others.trailing_zeros() as usize / 8;
    if digits == 0 {
        return (0, 0);
    }
    // The digits moved to the top bytes (zeros before them), then combined in pairs, fours, eights.
    let values = (word << (8 * (8 - digits))) & (ONES * 0x0f);
    let pairs = (values.wrapping_mul((10 << 8) | 1) >> 8) & 0x00ff_00ff_00ff_00ff;
    let fours = (pairs.wrapping_mul((100 << 16) | 1) >> 16) & 0x0000_ffff_0000_ffff;
    (fours.wrapping_mul((10_000 << 32) | 1) >> 32, digits)
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
    let text = bytes.get(start..)?;
    let (words, tail) = text.as_chunks::<8>();
    for (i, word) in words.iter().enumerate() {
        let word = u64::from_le_bytes(*word);
        let hits =
            below(word ^ (ONES * u64::from(b'"')), 1) | below(word ^ (ONES * u64::from(b'\\')), 1) | below(word, 0x20);
        if hits != 0 {
            return Some(start + i * 8 + hits.trailing_zeros() as usize / 8);
        }
    }
    let at = start + words.len() * 8;
    tail.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).map(|p| at + p)
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
