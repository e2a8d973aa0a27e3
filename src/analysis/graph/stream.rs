//! A captured graph parsed as its text arrives, piece by piece (docs/rules/reference.md §3.1): a
//! failure's graph may be one text of 200 MB, which is neither held whole nor read into a list
//! of raw nodes first. Each node is normalised as soon as its JSON is complete, and only the
//! unread end of the last piece is kept. Anything this reader does not accept exactly — bytes
//! that are not UTF-8, text that is not an array, a node the fast reader refuses — gives up
//! ([`GraphStream::finish`] is none): the caller then parses the whole text with
//! [`parse_graph`](super::nodes::parse_graph), which decides. When it accepts, the nodes are
//! those `parse_graph` gives (tested).

use super::json::RawNode;
use super::nodes::{GraphNode, NodeReader};
use super::normalise::{normalise, normalise_scalars};
use super::scalars::NodeScalars;
use super::scan::{Scanned, scan_node};

/// Where the reader is in the array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the `[`.
    Open,
    /// After the `[`: a node or the `]`.
    First,
    /// A node is next.
    Node,
    /// After a node: a `,` or the `]`.
    Separator,
    /// After the `]`: whitespace only.
    Closed,
    /// Given up: the whole text decides.
    Refused,
}

/// A captured graph's nodes, read from its text's pieces in order.
#[derive(Debug)]
pub(crate) struct GraphStream {
    /// The bytes given and not read yet (a node cut by the end of a piece, at most).
    unread: Vec<u8>,
    state: State,
    nodes: Vec<GraphNode>,
    reader: NodeReader,
}

impl Default for GraphStream {
    fn default() -> Self {
        Self::new()
    }
}

impl GraphStream {
    /// Nothing read yet.
    pub(crate) fn new() -> Self {
        Self { unread: Vec::new(), state: State::Open, nodes: Vec::new(), reader: NodeReader::default() }
    }

    /// Reads the next piece of the text; false once the reader has given up (the rest of the
    /// text need not be read).
    pub(crate) fn feed(&mut self, mut piece: &[u8]) -> bool {
        // A node cut by the end of the last piece is completed from this one's first bytes
        // (at least as many again each time, so that a long node is read again but a few
        // times); the rest of the piece is read where it lies, not copied.
        let mut take = self.unread.len().max(1 << 12);
        while !self.unread.is_empty() && !piece.is_empty() && self.state != State::Refused {
            let (cut, added) = (self.unread.len(), take.min(piece.len()));
            self.unread.extend_from_slice(&piece[..added]);
            let read = self.read(false);
            if read >= cut {
                // What is left unread is the end of what was added: read it in the piece.
                piece = &piece[read - cut..];
                self.unread.clear();
            } else {
                piece = &piece[added..];
                take *= 2;
            }
        }
        if !piece.is_empty() && self.state != State::Refused {
            let read = read_text(piece, false, &mut self.state, &mut self.nodes, &mut self.reader);
            self.unread.extend_from_slice(&piece[read..]);
        }
        self.state != State::Refused
    }

    /// A stream over the rest of a text from the start of one of its nodes (after the `,` that
    /// ends the node before): it reads what [`Self::new`] reads from there, but for positions
    /// (`stream_split.rs`).
    pub(crate) fn from_node() -> Self {
        Self { state: State::Node, ..Self::new() }
    }

    /// Whether the text given so far ends exactly where a node is next (after the `,` before it).
    pub(crate) fn before_node(&self) -> bool {
        self.state == State::Node && self.unread.is_empty()
    }

    /// The nodes read so far, continued by `rest`, when the text given ends before a node and
    /// `rest` holds the nodes a [`Self::from_node`] stream read from there to the end; else
    /// the stream back, to be given the rest itself. A node of `rest` whose id could be its
    /// position there (no `id` or `counter` of its own) refuses the join: here it is later.
    pub(crate) fn join(mut self, rest: Vec<GraphNode>) -> Result<Vec<GraphNode>, Box<Self>> {
        if !self.before_node() || rest.iter().enumerate().any(|(i, node)| node.id() == i as u64) {
            return Err(Box::new(self));
        }
        self.nodes.reserve_exact(rest.len());
        self.nodes.extend(rest);
        Ok(self.nodes)
    }

    /// The graph's nodes once the whole text was given; none when the reader gave up.
    pub(crate) fn finish(mut self) -> Option<Vec<GraphNode>> {
        self.read(true);
        // A long graph's nodes are kept while its failure is answered: not its spare capacity
        // too (up to half again, 6 MB of a 300 000-allocation graph).
        self.nodes.shrink_to_fit();
        (self.state == State::Closed).then_some(self.nodes)
    }

    /// Reads what can be read of `unread` (and drops it): the bytes read.
    fn read(&mut self, end: bool) -> usize {
        let read = read_text(&self.unread, end, &mut self.state, &mut self.nodes, &mut self.reader);
        self.unread.drain(..read);
        read
    }
}

/// Reads what can be read of `bytes` into `nodes`, from and to `state`: the bytes read. At the
/// text's `end`, a node cut off is refused.
fn read_text(bytes: &[u8], end: bool, state: &mut State, nodes: &mut Vec<GraphNode>, reader: &mut NodeReader) -> usize {
    // Checked once for the whole piece; a character cut by its end waits for the next one.
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(e) if e.error_len().is_none() && !end => std::str::from_utf8(&bytes[..e.valid_up_to()]).ok(),
        Err(_) => None,
    };
    let Some(text) = text else {
        *state = State::Refused;
        return 0;
    };
    let mut at = 0;
    while *state != State::Refused {
        at += text.as_bytes()[at..].iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')).count();
        let Some(&next) = text.as_bytes().get(at) else { break };
        match (*state, next) {
            (State::Open, b'[') | (State::Separator, b',') => {
                *state = if *state == State::Open { State::First } else { State::Node };
                at += 1;
            }
            (State::First | State::Separator, b']') => {
                *state = State::Closed;
                at += 1;
            }
            (State::First | State::Node, _) => match read_node(&text[at..], end, nodes, reader) {
                Read::Node(length) => {
                    at += length;
                    *state = State::Separator;
                }
                Read::Cut if !end => break,
                Read::Cut | Read::Refused => *state = State::Refused,
            },
            _ => *state = State::Refused,
        }
    }
    if end && *state != State::Closed {
        *state = State::Refused;
    }
    at
}

/// What reading one node gave.
enum Read {
    /// The node, normalised, and the bytes it took.
    Node(usize),
    /// The text ends inside it: more is needed.
    Cut,
    /// Not a node the fast reader accepts.
    Refused,
}

/// Reads the node at the start of `text` into `nodes`, normalised. A node that ends exactly
/// where `text` ends is taken as cut off unless nothing follows (`complete`): a number could go
/// on in the next piece.
fn read_node(text: &str, complete: bool, nodes: &mut Vec<GraphNode>, reader: &mut NodeReader) -> Read {
    // Nearly every node is one the hand reader is sure of; any other is the typed reader's.
    let NodeReader { inputs, links, .. } = reader;
    let mut node = NodeScalars::default();
    match text.starts_with('{').then(|| scan_node(text, &mut node, inputs, links)) {
        Some(Scanned::Node(length)) if length == text.len() && !complete => return Read::Cut,
        Some(Scanned::Node(length)) => {
            nodes.push(normalise_scalars(nodes.len(), &node, reader));
            return Read::Node(length);
        }
        Some(Scanned::Cut) if !complete => return Read::Cut,
        _ => {}
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<RawNode<'_>>();
    match stream.next() {
        Some(Ok(_)) if stream.byte_offset() == text.len() && !complete => Read::Cut,
        Some(Ok(node)) => {
            nodes.push(normalise(nodes.len(), &node, reader));
            Read::Node(stream.byte_offset())
        }
        Some(Err(e)) if e.is_eof() => Read::Cut,
        None => Read::Cut,
        Some(Err(_)) => Read::Refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::graph::nodes::parse_graph;

    /// The text given in pieces of `size` bytes.
    fn streamed(text: &str, size: usize) -> Option<Vec<GraphNode>> {
        let mut stream = GraphStream::new();
        for piece in text.as_bytes().chunks(size.max(1)) {
            if !stream.feed(piece) {
                return None;
            }
        }
        stream.finish()
    }

    const GRAPH: &str = r#" [ {"counter":0,"node_type":"capture_start","params":{}},
        {"counter":1,"node_type":"function_start","params":{"name":"ttnn::add é"},"connections":[2,3]} ,
        {"counter":2,"node_type":"buffer_allocate","params":{"address":"1024","size":2048,"type":"L1","layout":"INTERLEAVED","device_id":0},"connections":[3]},
        {"id":7,"node_type":"tensor","params":{"tensor_id":"12","shape":"Shape([1, 32])"}},
        {"counter":4,"node_type":"function_end","params":{"name":"ttnn::add é","aborted":"true"}},
        {"counter":5,"node_type":"capture_end","params":{}} ]
    "#;

    #[test]
    fn every_piece_size_gives_the_nodes_the_whole_text_gives() {
        let whole = parse_graph(GRAPH).unwrap();
        assert_eq!(whole.len(), 6);
        for size in [1, 2, 3, 7, 64, GRAPH.len()] {
            assert_eq!(streamed(GRAPH, size).as_ref(), Some(&whole), "pieces of {size} bytes");
        }
    }

    #[test]
    fn nodes_longer_than_a_piece_or_cut_anywhere_in_a_long_one_are_read_whole() {
        let links = (0..4000).map(|n| n.to_string()).collect::<Vec<_>>().join(",");
        let long = format!(r#"{{"counter":1,"node_type":"function_start","connections":[{links}]}}"#);
        let short = r#"{"counter":2,"node_type":"buffer","params":{"size":64,"layout":"é"}}"#;
        let text = format!("[{long},{},{long},{short}]", [short; 300].join(","));
        let whole = parse_graph(&text).unwrap();
        assert_eq!(whole.len(), 303);
        for size in [100, 4095, 4097, 9000, 20_000, 30_001, text.len() - 1] {
            assert_eq!(streamed(&text, size).as_ref(), Some(&whole), "pieces of {size} bytes");
        }
    }

    #[test]
    fn an_empty_array_is_no_nodes() {
        assert_eq!(streamed(" [ ] ", 1), Some(Vec::new()));
    }

    #[test]
    fn what_the_fast_reader_would_not_accept_is_left_to_the_whole_text() {
        let refused = [
            "",
            "   ",
            "{}",
            "[",
            r#"[{"counter":1},]"#,
            r#"[{"counter":1}"#,
            r#"[{"counter":1}] x"#,
            r#"[{"counter":1} {"counter":2}]"#,
            "[1, 2]",
            r#"[{"counter":1,"counter":2}]"#,
        ];
        for text in refused {
            for size in [1, 3, 100] {
                assert_eq!(streamed(text, size), None, "{text:?} in pieces of {size}");
            }
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_left_to_the_whole_text() {
        let mut stream = GraphStream::new();
        assert!(stream.feed(b"[{\"counter\":1,\"params\":{\"name\":\"a"));
        assert!(!stream.feed(b"\xff\"}}]"));
        assert_eq!(stream.finish(), None);
    }

    #[test]
    fn a_character_cut_between_pieces_waits_for_its_end() {
        let text = r#"[{"node_type":"function_start","params":{"name":"é"}}]"#;
        let cut = text.find('é').unwrap() + 1;
        let mut stream = GraphStream::new();
        assert!(stream.feed(&text.as_bytes()[..cut]));
        assert!(stream.feed(&text.as_bytes()[cut..]));
        assert_eq!(stream.finish().unwrap()[0].name(), "é");
    }
}
