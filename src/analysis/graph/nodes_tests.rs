use super::*;
use crate::analysis::graph::normalise::normalise;
use crate::analysis::messages::failure::BufferType;

#[test]
fn integer_and_string_params_read_alike() {
    let newest = r#"[{"counter":8,"node_type":"buffer_allocate","params":{"address":0,"buffer_type":1,"device_id":1,"layout":"INTERLEAVED","max_size_per_bank":20480,"num_cores":0,"page_size":2048,"size":2097152,"type":"L1"},"connections":[7],"stacking_level":3}]"#;
    let oldest = r#"[{"counter":11,"node_type":"buffer_allocate","params":{"address":"1953396066","layout":"INTERLEAVED","size":"24576","type":"L1"},"connections":[10]}]"#;
    let a = &parse_graph(newest).unwrap()[0];
    assert_eq!(
        (a.id(), a.size(), a.address(), a.buffer_type(), a.stacking_level()),
        (8, Some(2097152), Some(0), Some(BufferType::L1), Some(3))
    );
    let b = &parse_graph(oldest).unwrap()[0];
    assert_eq!(
        (b.id(), b.size(), b.address(), b.buffer_type(), b.stacking_level()),
        (11, Some(24576), Some(1953396066), Some(BufferType::L1), None)
    );
    assert_eq!(b.connections().collect::<Vec<_>>(), vec![10]);
}

#[test]
fn id_wins_over_counter() {
    let g = parse_graph(
        r#"[{"id":5,"counter":2,"node_type":"capture_start","params":null},{"node_type":"capture_end","params":{}}]"#,
    )
    .unwrap();
    assert_eq!((g[0].id(), g[1].id()), (5, 1));
}

#[test]
fn aborted_only_for_true_or_the_string_true() {
    let end = |aborted: &str| {
        let text = format!(r#"[{{"node_type":"function_end","params":{{"name":"X","aborted":{aborted}}}}}]"#);
        parse_graph(&text).unwrap()[0].aborted()
    };
    assert!(end("true"));
    assert!(end("\"true\""));
    assert!(!end("\"True\""));
    assert!(!end("\"false\""));
    assert!(!end("1"));
    assert!(!end("false"));
}

#[test]
fn abort_reason_when_not_blank() {
    let reason = |r: &str| {
        let text =
            format!(r#"[{{"node_type":"function_end","params":{{"name":"X","aborted":"true","abort_reason":{r}}}}}]"#);
        parse_graph(&text).unwrap()[0].abort_reason().map(str::to_owned)
    };
    assert_eq!(reason("\"Out of Memory\"").as_deref(), Some("Out of Memory"));
    assert_eq!(reason("\"  \""), None);
    assert_eq!(reason("7"), None);
}

#[test]
fn unknown_and_nameless_nodes_are_kept() {
    let g = parse_graph(
        r#"[{"node_type":"dataflow_buffer_allocate","params":{"size":"4"}},{"node_type":"function_start"}]"#,
    )
    .unwrap();
    assert_eq!(g[0].node_type(), Some(NodeType::Other));
    assert_eq!(g[0].type_name(), "dataflow_buffer_allocate");
    assert_eq!(g[1].name(), "");
}

/// The fast reader and the generic one give the same nodes for every graph both accept.
#[test]
fn fast_and_generic_readers_agree() {
    let texts = [
        r#"[{"counter":0,"node_type":"capture_start","params":null,"connections":[1],"stacking_level":0}]"#,
        r#"[{"counter":"3","node_type":"function_start","params":{"inputs":"2","name":"Conv2d\u001b[1m"},"input_tensors":["4",5,-1,2.5,"x"],"connections":[],"stacking_level":"2"}]"#,
        r#"[{"id":9,"counter":1,"node_type":"function_end","params":{"name":"X","aborted":true,"abort_reason":"Out of Memory"},"stacking_level":-1}]"#,
        r#"[{"node_type":"function_end","params":{"name":"X","aborted":"true","abort_reason":"  "}}]"#,
        r#"[{"node_type":"buffer_allocate","params":{"address":18446744073709551615,"size":1.5e3,"buffer_type":3,"type":"DRAM","layout":"INTERLEAVED","device_id":"0"}}]"#,
        r#"[{"node_type":"circular_buffer_allocate","params":{"address":"101440","size":"32768","core_range_set":"{[0-0 - 10-9]}","globally_allocated":"1"},"extra":{"a":[1,{"b":2}]}}]"#,
        r#"[{"node_type":"tensor","params":{"tensor_id":13,"shape":"Shape([1, 1, 2048, 512])","device_tensors":"[{\"address\":1}]"}},{"node_type":7,"params":{}}]"#,
        r#"[{"node_type":"function_start","params":{"name":{"nested":true}},"stacking_level":null,"connections":null}]"#,
    ];
    for text in texts {
        let fast: Vec<GraphNode> = read_nodes(text)
            .unwrap_or_else(|| panic!("fast reader refused {text}"))
            .iter()
            .enumerate()
            .map(|(i, n)| normalise(i, n, &mut NodeReader::default()))
            .collect();
        assert_eq!(Ok(fast), parse_generic(text, &mut NodeReader::default()), "{text}");
    }
    // Refused by the fast reader, decided by the generic one.
    for text in [r#"[{"node_type":"function_start","params":"oops"}]"#, r#"[{"id":1,"id":2,"node_type":"x"}]"#] {
        assert!(read_nodes(text).is_none(), "{text}");
        assert!(parse_graph(text).is_ok(), "{text}");
    }
}

/// `parse_scopes` gives exactly the scope fields `parse_graph` gives, on both readers' paths.
#[test]
fn scope_parsing_keeps_the_scope_fields() {
    let texts = [
        r#"[{"counter":0,"node_type":"capture_start","params":null},{"counter":1,"node_type":"function_start","params":{"name":"ttnn.add","inputs":"2"},"stacking_level":1},{"id":7,"counter":2,"node_type":"function_end","params":{"name":"ttnn.add","aborted":"true","abort_reason":"Out of Memory"},"stacking_level":"1"},{"node_type":"buffer_allocate","params":{"size":"4"}}]"#,
        r#"[{"node_type":"function_start","params":"oops"},{"id":1,"id":2,"node_type":"function_end","params":{"name":"X","aborted":true}}]"#,
    ];
    for text in texts {
        let full: Vec<GraphNode> = parse_graph(text).unwrap().into_iter().map(scope_fields).collect();
        assert_eq!(parse_scopes(text).unwrap(), full, "{text}");
    }
    assert!(parse_scopes("[{").is_err());
}

#[test]
fn invalid_graphs_are_errors_and_empty_text_is_no_nodes() {
    assert!(parse_graph("[{").unwrap_err().to_string().starts_with("invalid captured graph JSON"));
    assert_eq!(parse_graph("{}").unwrap_err().to_string(), "captured graph is not a JSON array");
    assert!(parse_graph("[1]").is_err());
    assert!(parse_graph("").unwrap().is_empty());
    assert!(parse_graph("  ").unwrap().is_empty());
}

/// `parse_buffers` keeps the buffer fields and drops the rest.
#[test]
fn buffer_parsing_keeps_the_buffer_fields() {
    let text = r#"[{"counter":0,"node_type":"function_start","params":{"name":"ttnn.add"},"stacking_level":1},{"counter":1,"node_type":"buffer_allocate","params":{"address":1024,"buffer_type":3,"device_id":1,"layout":"INTERLEAVED","max_size_per_bank":2048,"num_cores":0,"page_size":2048,"size":24576,"type":"L1"},"connections":[2],"stacking_level":2},{"counter":2,"node_type":"buffer_deallocate","params":{"size":"24576","type":"DRAM"},"connections":[7]}]"#;
    let nodes = parse_buffers(text).unwrap();
    assert_eq!(
        (nodes[0].node_type(), nodes[0].name(), nodes[0].stacking_level()),
        (Some(NodeType::FunctionStart), "", None)
    );
    let a = &nodes[1];
    assert_eq!(
        (
            a.id(),
            a.address(),
            a.size(),
            a.buffer_type(),
            a.buffer_type_code(),
            a.device_id(),
            a.max_size_per_bank(),
            a.num_cores()
        ),
        (1, Some(1024), Some(24576), Some(BufferType::L1Small), true, Some(1), Some(2048), Some(0))
    );
    assert_eq!((a.layout(), a.connections().collect(), a.stacking_level()), (Some("INTERLEAVED"), vec![2], None));
    let d = &nodes[2];
    assert_eq!(
        (d.address(), d.size(), d.buffer_type(), d.buffer_type_code(), d.connections().collect()),
        (None, Some(24576), Some(BufferType::Dram), false, vec![7])
    );
    assert!(parse_buffers("[{").is_err());
    assert!(parse_buffers(" ").unwrap().is_empty());
}

#[test]
fn buffer_type_code_max_size_cores_and_global_circular_buffers() {
    let g = parse_graph(
        r#"[{"node_type":"buffer_allocate","params":{"buffer_type":3,"type":"L1","max_size_per_bank":"448","num_cores":"62"}},{"node_type":"buffer_allocate","params":{"type":"L1"}},{"node_type":"circular_buffer_allocate","params":{"globally_allocated":"1"}},{"node_type":"circular_buffer_allocate","params":{"globally_allocated":1}},{"node_type":"circular_buffer_allocate","params":{"globally_allocated":true}},{"node_type":"circular_buffer_allocate","params":{"globally_allocated":"0"}}]"#,
    )
    .unwrap();
    assert_eq!((g[0].buffer_type(), g[0].buffer_type_code()), (Some(BufferType::L1Small), true));
    assert_eq!((g[0].max_size_per_bank(), g[0].num_cores()), (Some(448), Some(62)));
    assert_eq!((g[1].buffer_type(), g[1].buffer_type_code()), (Some(BufferType::L1), false));
    let global: Vec<bool> = g[2..].iter().map(|n| n.globally_allocated()).collect();
    assert_eq!(global, [true, true, true, false]);
}

/// Issue 27 §3: a circular buffer's `core_range_set` in each of the three forms ttnn writes reads
/// as the same cores, by either reader; the JSON form is shown in the string form.
#[test]
fn core_range_sets_of_every_form() {
    let node = |set: &str| {
        format!(
            r#"[{{"node_type":"circular_buffer_allocate","params":{{"address":"101440","size":"32768","core_range_set":{set}}}}}]"#
        )
    };
    let grid = CoreRange { start: (0, 0), end: (7, 6) };
    for (set, shown) in [
        (r#""{[0-0 - 7-6]}""#, "{[0-0 - 7-6]}"),
        (r#"[{"start": {"x": 0, "y": 0}, "end": {"x": 7, "y": 6}}]"#, "{[0-0 - 7-6]}"),
        (r#""[(x=0,y=0) - (x=7,y=6)]""#, "[(x=0,y=0) - (x=7,y=6)]"),
    ] {
        let text = node(set);
        // The fast reader, and the generic one (an unknown extra key makes the fast one decline).
        let generic = text.replacen("\"params\"", "\"extra\":{\"a\":[1]},\"params\"", 1);
        for graph in [parse_graph(&text).unwrap(), parse_graph(&generic).unwrap()] {
            assert_eq!(graph[0].core_range_set(), Some(shown), "{set}");
            assert_eq!(graph[0].core_ranges(), Some(vec![grid]), "{set}");
        }
    }
}
