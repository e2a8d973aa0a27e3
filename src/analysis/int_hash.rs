//! A hash for maps keyed by integers (addresses, tensor and node ids, operation ids), where
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

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
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
