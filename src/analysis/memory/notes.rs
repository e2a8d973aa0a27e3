//! What the memory rules set aside, each said in one line (issue 8 §7): bad records give a
//! partial picture and a note, never a panic and never a wrong `exact`.

use crate::analysis::format::{counted, format_address};

/// One thing set aside while building a picture of memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryNote {
    /// `buffers` rows or graph allocations with a missing, zero or negative address or size.
    BadBuffers {
        /// How many.
        count: usize,
        /// Where they came from: `buffers rows` or `graph allocations`.
        source: &'static str,
    },
    /// Buffers that overlap another; the picture counts the shared bytes once.
    Overlap {
        /// How many buffers overlap one before them.
        count: usize,
        /// The first overlapping address.
        address: u64,
    },
    /// Buffers lying (partly) outside the region; the picture leaves that part out.
    OutsideRegion {
        /// How many.
        count: usize,
        /// The region's start.
        start: u64,
        /// The region's end.
        end: u64,
    },
    /// Graph frees of addresses that were not live.
    UnknownFrees {
        /// How many.
        count: usize,
        /// The first such address.
        address: u64,
    },
    /// Graph frees that name no address and connect to no allocation.
    FreesWithoutAddress {
        /// How many.
        count: usize,
    },
    /// The operation's captured graph could not be read.
    InvalidGraph {
        /// Why.
        reason: String,
    },
    /// A snapshot too large to read whole.
    SnapshotCut {
        /// Whose snapshot.
        operation_id: u64,
        /// How many rows were read.
        kept: usize,
    },
    /// Captured graphs the graph-only replay could not read.
    InvalidGraphs {
        /// How many.
        count: usize,
    },
    /// `captured_graph` rows out of operation order: they were replayed in table order.
    GraphsOutOfOrder,
    /// The mesh-id rule (docs/rules/memory.md §2): the device found has no `buffers` row up to the
    /// operation, and the only device that has rows is read for it.
    MeshDevice {
        /// The device the graph (or the first input) named.
        found: u64,
        /// The device read instead.
        chosen: u64,
    },
    /// Operations between the earlier snapshot and N wrote no `buffers` rows for the device; their
    /// graphs freed some of the snapshot's buffers, left out.
    FreedSince {
        /// The snapshot's operation.
        snapshot: u64,
        /// How many of its buffers.
        count: usize,
    },
    /// Other mesh devices hold live buffers at the failure (docs/rules/memory.md §2): a submesh's allocator
    /// does not see its parent's or a sibling's buffers, which may lie on the same chips.
    OtherMeshDevices {
        /// Their ids.
        devices: Vec<u64>,
    },
    /// The search for an earlier snapshot of the device stopped before the start of the table.
    EarlierSearchStopped {
        /// How many `buffers` rows were looked at.
        rows: usize,
    },
    /// A tensor read where its producer's captured graph placed it, not where the tables record
    /// it (docs/rules/memory.md §4: the graph wins).
    PlacedByGraph {
        /// The tensor.
        tensor_id: u64,
        /// Its producer.
        operation_id: u64,
        /// Where the graph placed it.
        address: u64,
        /// `tensors.address`, none when NULL.
        recorded: Option<u64>,
    },
}

impl MemoryNote {
    /// The note as one line; `hex` selects hexadecimal addresses.
    pub fn text(&self, hex: bool) -> String {
        let at = |a: u64| format_address(Some(a), hex);
        match self {
            Self::BadBuffers { count, source } => {
                let what = counted(*count, source.trim_end_matches('s'), source);
                format!("{what} with a missing, zero or negative address or size set aside")
            }
            Self::Overlap { count, address } => format!(
                "{} overlap{} at {}; the picture counts {} once",
                counted(count + 1, "buffer", "buffers"),
                if *count + 1 == 1 { "s" } else { "" },
                at(*address),
                if *count + 1 == 2 { "them" } else { "the shared bytes" }
            ),
            Self::OutsideRegion { count, start, end } => format!(
                "{} outside the region {}–{}; the picture leaves {} out",
                counted(*count, "buffer lies", "buffers lie"),
                at(*start),
                at(*end),
                if *count == 1 { "it" } else { "them" }
            ),
            Self::UnknownFrees { count, address } => {
                format!(
                    "{} never allocated (first at {}) set aside",
                    counted(*count, "free of an address", "frees of addresses"),
                    at(*address)
                )
            }
            Self::FreesWithoutAddress { count } => {
                format!("{} with no address set aside", counted(*count, "graph free", "graph frees"))
            }
            Self::InvalidGraph { reason } => format!("the captured graph was set aside: {reason}"),
            Self::InvalidGraphs { count } => {
                format!(
                    "{} could not be read and {} left out of the replay",
                    counted(*count, "captured graph", "captured graphs"),
                    if *count == 1 { "was" } else { "were" }
                )
            }
            Self::GraphsOutOfOrder => {
                "captured graphs are stored out of operation order; they were replayed in table order".into()
            }
            Self::SnapshotCut { operation_id, kept } => {
                format!("operation {operation_id}'s snapshot is too large: only its first {kept} rows were read")
            }
            Self::MeshDevice { found, chosen } => format!(
                "device {found} has no buffers rows up to this operation; read as device {chosen}, the only device that has them (a single chip opened as a mesh)"
            ),
            Self::FreedSince { snapshot, count } => format!(
                "{} of the snapshot after operation {snapshot} freed by the graphs of the operations after it, which wrote no buffers rows (nothing left live), left out",
                counted(*count, "buffer", "buffers")
            ),
            Self::OtherMeshDevices { devices } => {
                let ids: Vec<String> = devices.iter().map(u64::to_string).collect();
                let (which, have) = if ids.len() == 1 { ("mesh device", "has") } else { ("mesh devices", "have") };
                format!(
                    "{which} {} also {have} live buffers at the failure; they may share these chips, and this mesh's allocator does not see them",
                    ids.join(", ")
                )
            }
            Self::EarlierSearchStopped { rows } => format!(
                "no earlier snapshot of the device in the {rows} buffers rows before the operation; looked no further"
            ),
            Self::PlacedByGraph { tensor_id, operation_id, address, recorded } => format!(
                "tensor {tensor_id} is read at {}, where operation {operation_id}'s captured graph placed it ({})",
                at(*address),
                match recorded {
                    Some(r) => format!("the tensors table records {}", at(*r)),
                    None => "the tensors table records no address".into(),
                }
            ),
        }
    }
}

/// Counts things to set aside and reports them as one note.
#[derive(Debug, Clone, Default)]
pub(super) struct Tally {
    count: usize,
    first: Option<u64>,
}

impl Tally {
    /// Counts one, remembering the first address.
    pub(super) fn add(&mut self, address: u64) {
        self.count += 1;
        self.first.get_or_insert(address);
    }

    /// Counts one without an address.
    pub(super) fn bump(&mut self) {
        self.count += 1;
    }

    /// The note, when anything was counted.
    pub(super) fn note(&self, make: impl FnOnce(usize, u64) -> MemoryNote) -> Option<MemoryNote> {
        (self.count > 0).then(|| make(self.count, self.first.unwrap_or(0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_read_as_one_line_each() {
        assert_eq!(
            MemoryNote::Overlap { count: 1, address: 0x1F000 }.text(true),
            "2 buffers overlap at 0x1F000; the picture counts them once"
        );
        assert_eq!(
            MemoryNote::Overlap { count: 2, address: 4096 }.text(false),
            "3 buffers overlap at 4096; the picture counts the shared bytes once"
        );
        assert_eq!(
            MemoryNote::BadBuffers { count: 1, source: "buffers rows" }.text(false),
            "1 buffers row with a missing, zero or negative address or size set aside"
        );
        assert_eq!(
            MemoryNote::OutsideRegion { count: 2, start: 101440, end: 1466368 }.text(true),
            "2 buffers lie outside the region 0x18C40–0x166000; the picture leaves them out"
        );
        assert_eq!(
            MemoryNote::UnknownFrees { count: 1, address: 4096 }.text(false),
            "1 free of an address never allocated (first at 4096) set aside"
        );
        assert_eq!(MemoryNote::FreesWithoutAddress { count: 3 }.text(false), "3 graph frees with no address set aside");
    }
}
