//! A hash for maps keyed by integers (addresses, tensor and node ids, operation ids) or short
//! byte strings (the run's few dozen operation names), where
//! SipHash's resistance to chosen keys buys nothing and its cost shows in every profile.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A hash of integer keys (addresses, node ids) by one multiplication: the maps of a replay
/// hold hundreds of thousands of them, and SipHash's resistance to chosen keys buys nothing here.
/// The product's low bits depend only on the key's low bits, which are all zero in addresses
/// aligned to 2 KiB or more: the table picks a key's bucket from the low bits of the hash, so
/// the hash is the product turned so that its well-mixed high bits come first.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct IntHasher(u64);

impl Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }

    /// Bytes (a short name, a `u32`) eight at a time, then the last few with their count; each
    /// word inverted so that zero bytes are not lost in the zero state.
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.write_u64(!u64::from_le_bytes(word.try_into().expect("eight bytes")));
        }
        let rest = words.remainder();
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        self.write_u64(!u64::from_le_bytes(last) ^ ((rest.len() as u64) << 59));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// A map keyed by integers, hashed by [`IntHasher`].
pub(crate) type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;

/// A set of integers, hashed by [`IntHasher`].
pub(crate) type IntSet<K> = HashSet<K, BuildHasherDefault<IntHasher>>;

#[cfg(test)]
mod tests {
    use super::IntHasher;
    use std::hash::Hasher;

    fn hash(bytes: &[u8]) -> u64 {
        let mut h = IntHasher::default();
        h.write(bytes);
        h.finish()
    }

    #[test]
    fn byte_keys_that_differ_only_in_trailing_zeros_or_length_hash_apart() {
        let keys: Vec<Vec<u8>> =
            (0..=17).map(|n| vec![0u8; n]).chain([b"ttnn.add".to_vec(), b"ttnn.addx".to_vec()]).collect();
        let hashes: std::collections::BTreeSet<u64> = keys.iter().map(|k| hash(k)).collect();
        assert_eq!(hashes.len(), keys.len());
    }
}
