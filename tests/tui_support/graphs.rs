//! Captured graphs (JSON) of every tree shape docs/rules/reference.md §14.5 names.

fn start(counter: u32, name: &str, level: Option<u32>) -> String {
    let level = level.map(|l| format!(",\"stacking_level\":{l}")).unwrap_or_default();
    format!(
        r#"{{"counter":{counter},"node_type":"function_start","params":{{"name":"{name}","inputs":"2"}},"connections":[]{level}}}"#
    )
}

fn end(counter: u32, name: &str, level: Option<u32>, abort: Option<&str>) -> String {
    let level = level.map(|l| format!(",\"stacking_level\":{l}")).unwrap_or_default();
    let abort = match abort {
        Some("") => r#","aborted":"true""#.to_string(),
        Some(reason) => format!(r#","aborted":"true","abort_reason":"{reason}""#),
        None => String::new(),
    };
    format!(
        r#"{{"counter":{counter},"node_type":"function_end","params":{{"name":"{name}"{abort}}},"connections":[]{level}}}"#
    )
}

fn alloc(counter: u32, size: u64, address: u64, level: Option<u32>) -> String {
    let level = level.map(|l| format!(",\"stacking_level\":{l}")).unwrap_or_default();
    format!(
        r#"{{"counter":{counter},"node_type":"buffer_allocate","params":{{"address":"{address}","size":"{size}","type":"L1","layout":"INTERLEAVED"}},"connections":[]{level}}}"#
    )
}

fn cb(counter: u32, device: u32) -> String {
    format!(
        r#"{{"counter":{counter},"node_type":"circular_buffer_allocate","params":{{"address":0,"core_range_set":"{{[0-0 - 7-7]}}","device_id":{device},"size":32768}},"connections":[],"stacking_level":2}}"#
    )
}

fn cb_dealloc(counter: u32) -> String {
    format!(
        r#"{{"counter":{counter},"node_type":"circular_buffer_deallocate_all","params":{{"device_id":0}},"connections":[],"stacking_level":2}}"#
    )
}

fn graph(nodes: &[String]) -> String {
    let capture_start =
        r#"{"counter":0,"node_type":"capture_start","params":null,"connections":[],"stacking_level":0}"#;
    format!("[{capture_start},{}]", nodes.join(","))
}

/// Newer tt-metal: the device op and its host scope closed by aborted ends.
pub fn aborted_ends() -> String {
    graph(&[
        start(1, "ttnn.matmul", Some(1)),
        start(2, "MatmulDeviceOperation", Some(2)),
        cb_dealloc(3),
        cb(4, 0),
        cb(5, 1),
        alloc(6, 819200, 1474560, Some(2)),
        end(7, "MatmulDeviceOperation", Some(2), Some("Out of Memory")),
        end(8, "ttnn.matmul", Some(1), Some("")),
    ])
}

/// Every scope completed.
pub fn completed() -> String {
    graph(&[
        start(1, "ttnn.add", Some(1)),
        start(2, "BinaryNgDeviceOperation", Some(2)),
        alloc(3, 2048, 1024, Some(2)),
        end(4, "BinaryNgDeviceOperation", Some(2), None),
        end(5, "ttnn.add", Some(1), None),
    ])
}

/// Older tt-metal with stacking levels: the failed scope is closed by the next start at its level.
pub fn stacking_levels() -> String {
    graph(&[
        start(1, "ttnn.conv2d", Some(1)),
        start(2, "HaloDeviceOperation", Some(2)),
        end(3, "HaloDeviceOperation", Some(2), None),
        start(4, "Conv2dDeviceOperation", Some(2)),
        alloc(5, 409600, 2048, Some(2)),
        start(6, "MoveDeviceOperation", Some(2)),
        end(7, "MoveDeviceOperation", Some(2), None),
        end(8, "ttnn.conv2d", Some(1), None),
    ])
}

/// Older tt-metal without stacking levels: what follows the failed scope nests inside it.
pub fn without_levels() -> String {
    graph(&[
        start(1, "ttnn.linear", None),
        start(2, "MatmulDeviceOperation", None),
        alloc(3, 1024, 4096, None),
        start(4, "Tensor::to_device", None),
        end(5, "Tensor::to_device", None, None),
    ])
}

/// A capture that ended with scopes open, on an operation without a recorded error.
pub fn unclosed() -> String {
    graph(&[
        start(1, "ttnn.reshape", Some(1)),
        start(2, "ReshapeDeviceOperation", Some(2)),
        alloc(3, 4096, 8192, Some(2)),
    ])
}
