use super::*;
use crate::analysis::graph::nodes::NodeFields;

/// A node of every field, each at the edge of its slot or beyond it.
fn wide(value: u64, level: i64) -> NodeFields {
    NodeFields {
        id: u64::MAX,
        node_type: Some(NodeType::BufferAllocate),
        type_name: "x".into(),
        name: "ttnn.add".into(),
        stacking_level: Some(level),
        aborted: true,
        abort_reason: Some("Out of Memory".into()),
        size: Some(u64::MAX),
        address: Some(0),
        buffer_type: Some(BufferType::Trace),
        buffer_type_code: true,
        max_size_per_bank: Some(value),
        num_cores: Some(value),
        page_size: Some(value),
        globally_allocated: true,
        layout: Some("INTERLEAVED".into()),
        core_range_set: Some("{[0-0 - 7-6]}".into()),
        device_id: Some(value),
        tensor_id: Some(value),
        shape: Some("Shape([1, 32])".into()),
        memory_config: Some("L1".into()),
        input_tensors: vec![4, 5],
        connections: vec![value],
    }
}

#[test]
fn a_node_is_40_bytes() {
    assert_eq!(std::mem::size_of::<GraphNode>(), 40);
}

/// Whatever the values, a node gives back exactly the fields it was built from.
#[test]
fn every_field_comes_back_as_given() {
    let values = [0, 1, 0xffff, 0x1_0000, 0xffff_ffff, 0x1_0000_0000, u64::MAX];
    let levels = [0, -1, 1, 63, 64, -64, -65, 127, i64::from(i16::MIN), 40_000, i64::MIN, i64::MAX];
    for (value, level) in values.into_iter().flat_map(|v| levels.map(|l| (v, l))) {
        let fields = wide(value, level);
        let node = GraphNode::from(fields.clone());
        assert_eq!(node.fields(), fields, "{value} {level}");
        assert_eq!((node.device_id(), node.stacking_level()), (Some(value), Some(level)));
    }
    for connections in [vec![], vec![7], vec![7, 8, 9]] {
        let fields = NodeFields { connections: connections.clone(), ..NodeFields::default() };
        assert_eq!(GraphNode::from(fields).connections().collect::<Vec<_>>(), connections);
    }
    for id in [0, 7, 0xffff_ffff, 0x1_0000_0000, u64::MAX] {
        let fields = NodeFields { id, connections: vec![id], ..NodeFields::default() };
        assert_eq!(GraphNode::from(fields.clone()).fields(), fields);
    }
    // A tensor node's tensor id is at home; beside a page size it is kept out of line.
    for page_size in [None, Some(2048)] {
        let fields = NodeFields { tensor_id: Some(12), page_size, ..NodeFields::default() };
        assert_eq!(GraphNode::from(fields.clone()).fields(), fields);
    }
    let empty = GraphNode::from(NodeFields::default());
    assert_eq!(empty.fields(), NodeFields::default());
    assert_eq!(empty, GraphNode::default());
}

/// Every node type and buffer type is kept, and the setters change only their field.
#[test]
fn types_and_setters() {
    for node_type in NodeType::ALL.map(Some).into_iter().chain([None]) {
        let node = GraphNode::from(NodeFields { node_type, ..NodeFields::default() });
        assert_eq!(node.node_type(), node_type);
        assert!(NodeType::ALL.iter().all(|&t| node.is(t) == (node_type == Some(t))));
    }
    let mut node = GraphNode::from(wide(5, 2));
    node.set_device_id(Some(1 << 40));
    assert_eq!(node.device_id(), Some(1 << 40));
    node.set_buffer_type(Some(BufferType::L1Small));
    let mut want = wide(5, 2);
    want.device_id = Some(1 << 40);
    want.buffer_type = Some(BufferType::L1Small);
    assert_eq!(node.fields(), want);
    node.set_device_id(Some(3));
    node.set_buffer_type(None);
    want.device_id = Some(3);
    want.buffer_type = None;
    assert_eq!((node.fields(), node), (want.clone(), GraphNode::from(want)));
}
