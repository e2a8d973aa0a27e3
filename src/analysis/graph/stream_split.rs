//! A long captured graph read in two parts at once (docs/rules/reference.md §3.1): the text's
//! second half from the first node that starts in it, on a worker, while the first half is
//! read here. Where the second part starts is a guess made from a few bytes — `}` `,` `{`,
//! which a string's text may also hold — so it is only taken when the stream that read the
//! first part ends exactly before a node there (`GraphStream::join`); else that stream reads
//! on and the worker's nodes are dropped. Either way the nodes are those of one stream reading
//! the whole text (tested).

/// Where a second part may start: the first `{` at or after `from` that follows `}` and `,`
/// (whitespace between them allowed), as between two nodes of the graph's array; none in
/// `bytes`.
pub(crate) fn node_start_after(bytes: &[u8], from: usize) -> Option<usize> {
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let mut at = from;
    while let Some(found) = bytes.get(at..)?.iter().position(|&b| b == b'{') {
        let start = at + found;
        let mut before = bytes[..start].iter().rev().skip_while(|b| blank(b));
        if before.next() == Some(&b',') && before.find(|b| !blank(b)) == Some(&b'}') {
            return Some(start);
        }
        at = start + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::graph::nodes::{GraphNode, parse_graph};
    use crate::analysis::graph::stream::GraphStream;

    /// The text read in two parts split at the first node start after `from`, each in pieces
    /// of `size` bytes, as the report's reader does; the first part read on when the join fails.
    fn read_in_two(text: &str, from: usize, size: usize) -> Option<Vec<GraphNode>> {
        read_in_two_joined(text, from, size).0
    }

    /// [`read_in_two`], and whether the two parts were joined.
    fn read_in_two_joined(text: &str, from: usize, size: usize) -> (Option<Vec<GraphNode>>, bool) {
        let bytes = text.as_bytes();
        let Some(split) = node_start_after(bytes, from) else {
            return (streamed(GraphStream::new(), bytes, size), false);
        };
        let mut first = GraphStream::new();
        for piece in bytes[..split].chunks(size) {
            first.feed(piece);
        }
        let rest = streamed(GraphStream::from_node(), &bytes[split..], size);
        let first = match rest {
            Some(rest) => match first.join(rest) {
                Ok(nodes) => return (Some(nodes), true),
                Err(first) => *first,
            },
            None => first,
        };
        (streamed(first, &bytes[split..], size), false)
    }

    fn streamed(mut stream: GraphStream, bytes: &[u8], size: usize) -> Option<Vec<GraphNode>> {
        for piece in bytes.chunks(size) {
            if !stream.feed(piece) {
                return None;
            }
        }
        stream.finish()
    }

    #[test]
    fn a_node_start_follows_a_closing_brace_and_a_comma() {
        let text = br#"[{"counter":0}, {"counter":1,"params":{"a":"},{"}},{"counter":2}]"#;
        let second = text.windows(2).position(|w| w == b" {").unwrap() + 1;
        assert_eq!(node_start_after(text, 0), Some(second));
        // The `},{` inside a string is found too: only the join can tell it is not a node's start.
        let inside = text.windows(3).position(|w| w == b"},{").unwrap() + 2;
        assert_eq!(node_start_after(text, second + 1), Some(inside));
        assert_eq!(node_start_after(text, text.len()), None);
        assert_eq!(node_start_after(b"[1, 2, {}]", 0), None);
    }

    #[test]
    fn read_in_two_parts_from_any_split_the_nodes_are_the_whole_text_s() {
        let tricky =
            r#"{"counter":9,"node_type":"function_start","params":{"name":"x},{\"counter\":1}"},"connections":[1,2]}"#;
        let nested = r#"{"counter":10,"node_type":"buffer","params":{"list":[{"a":1}, {"counter":2}]}}"#;
        let plain = |n: usize| {
            format!(
                r#"{{"counter":{n},"node_type":"buffer_allocate","params":{{"address":"{}","size":2048,"type":"L1","layout":"INTERLEAVED","device_id":0}},"connections":[{}]}}"#,
                1024 * n,
                n + 1
            )
        };
        let nodes: Vec<String> =
            (0..40).map(plain).chain([tricky.to_string(), nested.to_string()]).chain((11..30).map(plain)).collect();
        let text = format!("[\n{}\n]", nodes.join(",\n  "));
        let whole = parse_graph(&text).unwrap();
        let mut joined = 0;
        for from in (0..text.len()).step_by(7) {
            for size in [5, 64, 1 << 20] {
                let (nodes, join) = read_in_two_joined(&text, from, size);
                assert_eq!(nodes.as_ref(), Some(&whole), "split after {from}, pieces of {size}");
                joined += usize::from(join);
            }
        }
        // Most splits land between nodes and are joined; the one in the string is not.
        assert!(joined > text.len() / 7 * 3 / 2, "{joined} joined");
        let in_string = text.find(r#"x},{"#).unwrap();
        assert_eq!(node_start_after(text.as_bytes(), in_string), Some(in_string + 3));
        assert!(!read_in_two_joined(&text, in_string, 64).1);
    }

    #[test]
    fn a_second_part_whose_ids_are_positions_is_read_again_by_the_first_stream() {
        // No `counter`: each id is the node's position in the whole text, not in the second part.
        let text = format!("[{}]", vec![r#"{"node_type":"tensor","params":{"tensor_id":"1"}}"#; 20].join(","));
        let whole = parse_graph(&text).unwrap();
        assert_eq!(whole[15].id(), 15);
        for from in [1, 100, text.len() / 2, text.len() - 60] {
            assert_eq!(read_in_two(&text, from, 16).as_ref(), Some(&whole), "split after {from}");
        }
    }

    #[test]
    fn a_text_the_stream_refuses_is_refused_whichever_part_holds_the_fault() {
        for text in [
            r#"[{"counter":1},{"counter":2},]"#,
            r#"[{"counter":1} ,{"counter":2} {"counter":3}]"#,
            r#"[{"counter":1},{"counter":2}"#,
        ] {
            for from in 0..text.len() {
                assert_eq!(read_in_two(text, from, 4), None, "{text:?} split after {from}");
            }
        }
    }
}
