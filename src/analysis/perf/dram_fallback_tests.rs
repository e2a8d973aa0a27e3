use super::*;
use crate::analysis::messages::failure::parse_allocation_failure;

const L1_CONFIG: &str =
    "MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::L1,shard_spec=std::nullopt)";
const DRAM_CONFIG: &str =
    "tt::tt_metal::MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,buffer_type=BufferType::DRAM)";
const L1_FAILURE: &str = "Out of Memory: Not enough space to allocate 3276800 B L1 buffer across 4 banks, where each bank needs to store 819200 B, but bank size is only 1382720 B";

fn tensor(buffer_type: BufferType, shape: &str, addresses: &[(u64, u64)]) -> TensorPlacement {
    TensorPlacement { buffer_type: Some(buffer_type), shape: Some(shape.into()), addresses: addresses.to_vec() }
}

fn op(id: u64, name: &str, config: Option<&str>, outputs: Vec<TensorPlacement>) -> FallbackOperation {
    FallbackOperation {
        id,
        name: name.into(),
        arguments: config.map(|c| vec![("memory_config".to_string(), c.to_string())]).unwrap_or_default(),
        outputs,
        ..FallbackOperation::default()
    }
}

#[test]
fn requested_type_needs_every_memory_config_in_l1() {
    let args = |v: &[(&str, &str)]| v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
    assert_eq!(requested_l1(&args(&[("memory_config", L1_CONFIG)])), Some(BufferType::L1));
    assert_eq!(requested_l1(&args(&[("memory_config", L1_CONFIG), ("other", DRAM_CONFIG)])), None);
    // Intermediate configs and non-config values are ignored.
    assert_eq!(
        requested_l1(&args(&[("memory_config", L1_CONFIG), ("intermediate_memory_config", DRAM_CONFIG)])),
        Some(BufferType::L1)
    );
    assert_eq!(requested_l1(&args(&[("dtype", "DataType::BFLOAT16")])), None);
    // An unreadable buffer type does not ask for L1.
    assert_eq!(requested_l1(&args(&[("memory_config", "MemoryConfig(buffer_type=?)")])), None);
    let small = L1_CONFIG.replace("BufferType::L1", "BufferType::L1_SMALL");
    assert_eq!(requested_l1(&args(&[("memory_config", &small)])), Some(BufferType::L1Small));
}

#[test]
fn signal_one_requested_l1_got_dram() {
    let o = op(5, "ttnn.add", Some(L1_CONFIG), vec![tensor(BufferType::Dram, "Shape([1, 32])", &[(0, 100)])]);
    let found = detect_dram_fallbacks(&[o]);
    assert_eq!(found[&5].detail(), "Requested L1; 1 of 1 outputs in DRAM.");
    // Any L1 output clears it.
    let o = op(
        5,
        "ttnn.conv2d",
        Some(L1_CONFIG),
        vec![tensor(BufferType::L1, "Shape([1, 32])", &[]), tensor(BufferType::Dram, "Shape([9])", &[])],
    );
    assert!(detect_dram_fallbacks(&[o]).is_empty());
}

#[test]
fn views_of_a_dram_input_do_not_count() {
    let mut o = op(1, "ttnn.reshape", Some(L1_CONFIG), vec![tensor(BufferType::Dram, "Shape([2, 16])", &[(0, 4096)])]);
    o.inputs = vec![tensor(BufferType::Dram, "torch.Size([32])", &[(0, 4096)])];
    assert_eq!(dram_outputs(&o), None);
    // Another address on the same device: not a view.
    o.inputs[0].addresses = vec![(0, 8192)];
    assert_eq!(dram_outputs(&o), Some((1, 1)));
    // No address information: may be a view.
    o.inputs[0].addresses.clear();
    assert_eq!(dram_outputs(&o), None);
    // Another element count: not a view.
    o.inputs[0].shape = Some("Shape([64])".into());
    assert_eq!(dram_outputs(&o), Some((1, 1)));
}

#[test]
fn signal_two_retry_after_an_l1_failure_wins() {
    let mut failed = op(2, "ttnn.matmul", None, vec![]);
    failed.failure = parse_allocation_failure(L1_FAILURE);
    let between = op(3, "ttnn.add", None, vec![]);
    let retry = op(4, "ttnn.matmul", Some(L1_CONFIG), vec![tensor(BufferType::Dram, "Shape([4])", &[])]);
    let found = detect_dram_fallbacks(&[failed.clone(), between.clone(), retry.clone()]);
    assert_eq!(
        found[&4].detail(),
        "Retries operation 2 (ttnn.matmul), which failed to allocate L1; 1 of 1 outputs in DRAM."
    );
    // Beyond three operations later, no retry is recognised (signal 1 still applies).
    let far: Vec<_> =
        [failed.clone(), between.clone(), between.clone(), between.clone(), retry.clone()].into_iter().collect();
    assert!(matches!(detect_dram_fallbacks(&far)[&4].signal, FallbackSignal::RequestedL1(_)));
    // A failed operation that asked for DRAM is no L1 failure.
    let mut asked_dram = failed.clone();
    asked_dram.arguments = vec![("memory_config".into(), DRAM_CONFIG.into())];
    let mut plain_retry = retry.clone();
    plain_retry.arguments.clear();
    assert!(detect_dram_fallbacks(&[asked_dram, plain_retry.clone()]).is_empty());
    // The retry stayed in L1: nothing flagged.
    let mut stayed = plain_retry;
    stayed.outputs = vec![tensor(BufferType::L1, "Shape([4])", &[])];
    assert!(detect_dram_fallbacks(&[failed, stayed]).is_empty());
}

#[test]
fn a_circular_buffer_larger_than_its_buffer_is_an_l1_failure_when_l1_was_asked_for() {
    // Like kinds 3 and 4: the failed operation must have asked for L1.
    let cb = "Cannot set to globally allocated buffer. Circular buffer size 98304 B exceeds allocated L1 buffer bank size of 81920 B";
    let mut failed = op(2, "ttnn.add", Some(L1_CONFIG), vec![]);
    failed.failure = parse_allocation_failure(cb);
    let mut retry = op(3, "ttnn.add", None, vec![tensor(BufferType::Dram, "Shape([4])", &[])]);
    assert_eq!(
        detect_dram_fallbacks(&[failed.clone(), retry.clone()])[&3].detail(),
        "Retries operation 2 (ttnn.add), which failed to allocate L1; 1 of 1 outputs in DRAM."
    );
    failed.arguments.clear();
    retry.arguments.clear();
    assert!(detect_dram_fallbacks(&[failed, retry]).is_empty());
}
