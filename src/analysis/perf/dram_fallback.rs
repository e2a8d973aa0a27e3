//! Likely DRAM fallbacks inferred from the memory report: an L1 request answered with DRAM
//! outputs, or a same-named retry in DRAM after an L1 allocation failure (docs/rules/reference.md §11.3).

use crate::analysis::messages::failure::{AllocationFailure, BufferType, FailureKind};
use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

/// A tensor given to or returned by an operation, as the memory report records it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TensorPlacement {
    /// Where its buffer lives.
    pub buffer_type: Option<BufferType>,
    /// The shape as printed: `Shape([1, 1, 32, 64])` or `torch.Size([1, 32])`.
    pub shape: Option<String>,
    /// (device id, address) on every device where the address is known.
    pub addresses: Vec<(u64, u64)>,
}

/// What the detection needs of one operation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FallbackOperation {
    /// `operation_id`.
    pub(crate) id: u64,
    /// The operation's name.
    pub(crate) name: String,
    /// Its arguments: name and printed value.
    pub(crate) arguments: Vec<(String, String)>,
    /// Input tensors.
    pub(crate) inputs: Vec<TensorPlacement>,
    /// Output tensors.
    pub(crate) outputs: Vec<TensorPlacement>,
    /// The allocation failure of its attached error.
    pub(crate) failure: Option<AllocationFailure>,
}

/// Which signal raised the flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FallbackSignal {
    /// Every memory config asked for L1 (this type), yet outputs are in DRAM.
    RequestedL1(BufferType),
    /// A same-named retry of an operation that failed to allocate L1.
    RetryAfterFailure {
        /// The failed operation's id.
        operation_id: u64,
        /// The failed operation's name.
        name: String,
    },
}

/// A likely DRAM fallback of one operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DramFallback {
    /// What raised it.
    pub(crate) signal: FallbackSignal,
    /// DRAM outputs that are not views of a DRAM input.
    pub(crate) dram_outputs: usize,
    /// All outputs.
    pub(crate) outputs: usize,
}

impl DramFallback {
    /// The flag's detail text.
    pub fn detail(&self) -> String {
        let (d, n) = (self.dram_outputs, self.outputs);
        match &self.signal {
            FallbackSignal::RequestedL1(t) => format!("Requested {}; {d} of {n} outputs in DRAM.", t.label()),
            FallbackSignal::RetryAfterFailure { operation_id, name } => format!(
                "Retries operation {operation_id} ({name}), which failed to allocate L1; {d} of {n} outputs in DRAM."
            ),
        }
    }
}

static MEMORY_CONFIG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:tt::tt_metal::)?MemoryConfig\((.*)\)\s*$").expect("valid regex"));
static BUFFER_TYPE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"buffer_type=BufferType::([A-Z0-9_]+)").expect("valid regex"));
static SHAPE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:Shape|torch\.Size)\(\[([^\]]*)\]\)").expect("valid regex"));

/// The buffer types of the memory-config arguments (names without `intermediate`); an unreadable
/// buffer type is `None`.
fn memory_config_types(arguments: &[(String, String)]) -> Vec<Option<BufferType>> {
    arguments
        .iter()
        .filter(|(name, _)| !name.contains("intermediate"))
        .filter_map(|(_, value)| {
            let inner = MEMORY_CONFIG.captures(value)?;
            Some(BUFFER_TYPE.captures(&inner[1]).and_then(|c| BufferType::from_token(&c[1])))
        })
        .collect()
}

fn is_l1(t: Option<BufferType>) -> bool {
    matches!(t, Some(BufferType::L1 | BufferType::L1Small))
}

/// The requested L1 type: the first memory config's type when there is one and all ask for L1.
pub(crate) fn requested_l1(arguments: &[(String, String)]) -> Option<BufferType> {
    let types = memory_config_types(arguments);
    (!types.is_empty() && types.iter().all(|&t| is_l1(t))).then(|| types[0]).flatten()
}

/// The element count of a printed shape.
fn element_count(shape: &str) -> Option<u128> {
    let dims = SHAPE.captures(shape)?;
    dims[1]
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .try_fold(1u128, |n, d| Some(n * d.parse::<u128>().ok()?))
}

/// True when an output is a view of an input: equal element counts, and no address information
/// on either or the same address on every device both have.
fn is_view(output: &TensorPlacement, input: &TensorPlacement) -> bool {
    let counts = (output.shape.as_deref().and_then(element_count), input.shape.as_deref().and_then(element_count));
    let (Some(a), Some(b)) = counts else { return false };
    if a != b {
        return false;
    }
    if output.addresses.is_empty() || input.addresses.is_empty() {
        return true;
    }
    output
        .addresses
        .iter()
        .all(|(device, address)| input.addresses.iter().filter(|(d, _)| d == device).all(|(_, a)| a == address))
}

/// (d, n): DRAM outputs that are not views of a DRAM input, and all outputs; none when any output
/// is in L1 or no output qualifies.
pub(crate) fn dram_outputs(op: &FallbackOperation) -> Option<(usize, usize)> {
    if op.outputs.iter().any(|o| is_l1(o.buffer_type)) {
        return None;
    }
    let dram_inputs: Vec<&TensorPlacement> =
        op.inputs.iter().filter(|i| i.buffer_type == Some(BufferType::Dram)).collect();
    let d = op
        .outputs
        .iter()
        .filter(|o| o.buffer_type == Some(BufferType::Dram))
        .filter(|o| !dram_inputs.iter().any(|i| is_view(o, i)))
        .count();
    (d > 0).then_some((d, op.outputs.len()))
}

/// True when an operation failed to allocate L1 (signal 2's trigger).
fn failed_l1(op: &FallbackOperation) -> bool {
    let Some(failure) = &op.failure else { return false };
    match failure.kind {
        FailureKind::BankOutOfMemory | FailureKind::BankOutOfMemoryWithDependencies => {
            is_l1(failure.figures.buffer_type) && !memory_config_types(&op.arguments).contains(&Some(BufferType::Dram))
        }
        // A circular buffer larger than its L1 buffer (beyond the reference) fails in L1 like
        // kinds 3 and 4.
        FailureKind::CircularBuffersBeyondL1
        | FailureKind::CircularBuffersClash
        | FailureKind::CircularBufferExceedsItsBuffer => requested_l1(&op.arguments).is_some(),
    }
}

/// The likely DRAM fallbacks of the operations (in id order), by operation id.
pub fn detect_dram_fallbacks(operations: &[FallbackOperation]) -> HashMap<u64, DramFallback> {
    let mut found = HashMap::new();
    for op in operations {
        if let (Some(requested), Some((d, n))) = (requested_l1(&op.arguments), dram_outputs(op)) {
            let signal = FallbackSignal::RequestedL1(requested);
            found.insert(op.id, DramFallback { signal, dram_outputs: d, outputs: n });
        }
    }
    for (i, op) in operations.iter().enumerate().filter(|(_, op)| failed_l1(op)) {
        let retry = operations.iter().skip(i + 1).take(3).find(|o| o.name == op.name);
        if let Some(retry) = retry
            && let Some((d, n)) = dram_outputs(retry)
        {
            let signal = FallbackSignal::RetryAfterFailure { operation_id: op.id, name: op.name.clone() };
            found.insert(retry.id, DramFallback { signal, dram_outputs: d, outputs: n });
        }
    }
    found
}

#[cfg(test)]
#[path = "dram_fallback_tests.rs"]
mod tests;
