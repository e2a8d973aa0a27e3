//! The walk back of the recent tenants (`recent.rs`) as it stands between questions: what it
//! has seen and where its next window lies, kept with the report per operation.

use super::tensor_index::Placement;
use crate::analysis::int_hash::IntMap;
use std::collections::BTreeSet;

/// The first window, in operations.
const FIRST_WINDOW: usize = 64;

/// The walk's windows of operations (by index), newest first, each twice the one before.
pub(super) struct Windows {
    /// The last operation of the next window; none once the first operation was read.
    pub(super) next: Option<usize>,
    pub(super) width: usize,
    /// Operations read so far.
    pub(super) walked: usize,
}

impl Windows {
    /// The next window, `(lo, hi)`.
    pub(super) fn next(&mut self) -> Option<(usize, usize)> {
        let hi = self.next?;
        let lo = (hi + 1).saturating_sub(self.width);
        self.next = lo.checked_sub(1);
        self.width *= 2;
        self.walked += hi + 1 - lo;
        Some((lo, hi))
    }
}

/// What the walk back has seen: each tensor's link rows (operation, output), the placement of
/// each tensor they named, and the tensors named while only tensors asked for by id were waited
/// for, not placed yet.
#[derive(Default)]
pub(super) struct Seen {
    pub(super) uses: IntMap<u64, Vec<(u64, bool)>>,
    pub(super) placed: IntMap<u64, Placement>,
    pub(super) unplaced: BTreeSet<u64>,
}

/// A walk back from one operation, kept with the report between questions about it: the memory
/// at a failure, its device, each fix's tensors ask at the same operation, and each question
/// goes on from where the last one stopped instead of reading the same windows again.
pub(crate) struct Walk {
    /// The operation (index) walked back from.
    pub(super) n: usize,
    pub(super) seen: Seen,
    pub(super) windows: Windows,
}

impl Walk {
    pub(super) fn new(n: usize) -> Self {
        Self { n, seen: Seen::default(), windows: Windows { next: Some(n), width: FIRST_WINDOW, walked: 0 } }
    }
}

impl std::fmt::Debug for Walk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Walk").field("n", &self.n).field("walked", &self.windows.walked).finish_non_exhaustive()
    }
}

impl Seen {
    /// Whether the walk saw the tensor's production (an `output_tensors` row).
    pub(super) fn produced(&self, id: u64) -> bool {
        self.uses.get(&id).is_some_and(|uses| uses.iter().any(|&(_, output)| output))
    }
}
