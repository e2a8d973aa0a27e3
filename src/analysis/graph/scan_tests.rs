use super::super::json::RawNode;
use super::super::scalars::NodeScalars;
use super::*;
use crate::analysis::graph::nodes::{GraphNode, NodeReader};
use crate::analysis::graph::normalise::{normalise, normalise_scalars};
use proptest::prelude::*;

/// What the typed reader makes of a text: the node normalised, `Err(true)` when the text ends
/// too soon, `Err(false)` when it refuses it.
fn typed(text: &str) -> Result<GraphNode, bool> {
    match serde_json::from_str::<RawNode<'_>>(text) {
        Ok(node) => Ok(normalise(0, &node, &mut NodeReader::default())),
        Err(e) => Err(e.is_eof()),
    }
}

/// What the hand reader makes of it, on the same terms; none when it leaves it.
fn scanned(text: &str) -> Option<Result<GraphNode, bool>> {
    let mut reader = NodeReader::default();
    let NodeReader { inputs, links, .. } = &mut reader;
    let mut node = NodeScalars::default();
    match scan_node(text, &mut node, inputs, links) {
        Scanned::Node(length) => {
            assert_eq!(length, text.trim_end().len(), "{text}");
            Some(Ok(normalise_scalars(0, &node, &mut reader)))
        }
        Scanned::Cut => Some(Err(true)),
        Scanned::Unsure => None,
    }
}

/// Nodes as ttnn writes them, and some it might.
const READ: [&str; 11] = [
    r#"{"counter":0,"node_type":"capture_start","params":null,"connections":[1],"stacking_level":0}"#,
    r#"{"counter":1,"node_type":"function_start","params":{"inputs":"1","name":"ttnn.matmul"},"arguments":[],"input_tensors":[2],"connections":[3,903007],"stacking_level":1}"#,
    r#"{"counter":453923,"node_type":"buffer_allocate","params":{"address":409874688,"buffer_type":0,"device_id":0,"layout":"INTERLEAVED","max_size_per_bank":2048,"num_cores":0,"page_size":2048,"size":24576,"type":"DRAM"},"connections":[453922],"stacking_level":2}"#,
    r#"{"counter":2,"node_type":"tensor","params":{"shape":"Shape([1, 1, 1024, 1024])","tensor_id":1},"connections":[],"stacking_level":1}"#,
    r#"{"id":"7","node_type":"function_end","params":{"name":"é ttnn::add","aborted":true,"abort_reason":"Out of Memory"}}"#,
    r#" { "counter" : "3" ,	"params" : { "size" : "24576" , "aborted" : "true" , "x" : [ 1 , { "a" : [ ] , "b" : { } } , null , false ] } ,
        "connections" : [ "4" , 5 , null , true , [ 6 ] , { } ] , "input_tensors" : null } "#,
    r#"{"node_type":"buffer","params":{"size":18446744073709551,"device_id":9999999999999999999,"globally_allocated":1}}"#,
    r#"{"node_type":{"a":1},"id":[1,2],"counter":false,"stacking_level":"x","params":{"name":["a"],"layout":{"b":"c"}}}"#,
    "{}",
    r#"{"params":{"sizes":1,"size_":2,"names":"a","nam":"b","typed":3,"abort_reasons":"c","core_range":"d","p":{}}}"#,
    r#"{"stacking":1,"count":2,"i":3,"connection":[4],"param":{},"params":{"globally_allocated":"1","memory_config":"MemoryConfig(x)","abort_reason":"r","aborted":false,"num_cores":64,"page_size":32,"max_size_per_bank":7}}"#,
];

/// Nodes the hand reader leaves to the typed one, read or refused by it.
const LEFT: [&str; 19] = [
    r#"{"counter":-1}"#,
    r#"{"counter":1.5}"#,
    r#"{"counter":1e3}"#,
    r#"{"counter":01}"#,
    r#"{"counter":12345678901234567890}"#,
    r#"{"params":{"name":"a\"b"}}"#,
    r#"{"params":{"x":"\u0041"}}"#,
    r#"{"counter":1,"counter":2}"#,
    r#"{"params":{"size":1,"size":2}}"#,
    r#"{"params":{"core_range_set":"{[0-0 - 7-6]}"}}"#,
    r#"{"params":["ttnn.add"]}"#,
    r#"{"params":"oops"}"#,
    r#"{"connections":5}"#,
    r#"{"counter":1,}"#,
    r#"{"counter":tru}"#,
    r#"{"counter" 1}"#,
    "{\"params\":{\"name\":\"a\tb\"}}",
    r#"{"c\u006funter":1}"#,
    r#"{"params":{"si\u007ae":1}}"#,
];

#[test]
fn what_it_reads_is_what_the_typed_reader_reads() {
    for text in READ {
        assert_eq!(scanned(text), Some(typed(text)), "{text}");
        assert!(typed(text).is_ok(), "{text}");
    }
}

#[test]
fn what_it_is_unsure_of_is_left_to_the_typed_reader() {
    for text in LEFT {
        assert_eq!(scanned(text), None, "{text}");
    }
}

/// Every cut of a node is cut to both readers, never a node.
#[test]
fn a_node_cut_anywhere_waits_for_the_rest() {
    for text in READ {
        for cut in (1..text.trim_end().len()).filter(|&c| text.is_char_boundary(c)) {
            let part = &text[..cut];
            assert!(matches!(scanned(part), Some(Err(true)) | None), "{part}");
            if scanned(part).is_some() {
                assert_eq!(typed(part), Err(true), "{part}");
            }
        }
    }
}

/// Pieces of nodes, well and badly formed.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        r#""id":1"#,
        r#""id":"2""#,
        r#""counter":3"#,
        r#""counter":-4"#,
        r#""node_type":"buffer_allocate""#,
        r#""node_type":null"#,
        r#""stacking_level":2"#,
        r#""stacking_level":1.0"#,
        r#""connections":[1,2]"#,
        r#""connections":[]"#,
        r#""connections":null"#,
        r#""connections":[1,]"#,
        r#""input_tensors":["3",[4],{"a":5}]"#,
        r#""params":null"#,
        r#""params":{}"#,
        r#""params":{"address":1024,"size":"2048","type":"L1","layout":"INTERLEAVED"}"#,
        r#""params":{"name":"ttnn.add","aborted":"true","abort_reason":" "}"#,
        r#""params":{"tensor_id":12,"shape":"Shape([1])","memory_config":"MemoryConfig()"}"#,
        r#""params":{"buffer_type":3,"device_id":0,"num_cores":64,"page_size":2048,"max_size_per_bank":99}"#,
        r#""params":{"globally_allocated":true,"x":{"y":[1,{"z":null}]}}"#,
        r#""params":{"name":"a\nb"}"#,
        r#""params":{"size":00}"#,
        r#""extra":[1,2,{"a":"b"}]"#,
        r#""extra":nul"#,
        r#""extra":"#,
        r#"" ":true"#,
        " ",
        ",",
    ])
}

proptest! {
    /// Whatever pieces a node is made of, the hand reader reads it as the typed reader does,
    /// or leaves it.
    #[test]
    fn any_node_is_read_as_the_typed_reader_reads_it(pieces in prop::collection::vec(piece(), 0..8)) {
        let text = format!("{{{}}}", pieces.join(","));
        if let Some(read) = scanned(&text) {
            prop_assert_eq!(read, typed(&text), "{}", text);
        }
    }
}

proptest! {
    /// The end of a string found eight bytes at a time is the first quote, backslash or
    /// control character, found one byte at a time.
    #[test]
    fn a_string_ends_where_one_byte_at_a_time_says(
        bytes in prop::collection::vec(prop::sample::select(vec![b'a', b' ', b'"', b'\\', 0x1f, 0x7f, 0x80, 0xe9, b'!']), 0..40),
        start in 0usize..10,
    ) {
        let start = start.min(bytes.len());
        let slow = bytes[start..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).map(|p| start + p);
        prop_assert_eq!(string_end(&bytes, start), slow);
    }
}

proptest! {
    /// The digits eight bytes begin with, read at once, are those read one byte at a time.
    #[test]
    fn the_leading_digits_of_eight_bytes_are_those_read_one_at_a_time(
        bytes in prop::array::uniform8(prop::sample::select(vec![b'0', b'1', b'5', b'9', b'/', b':', b'*', b',', b']', 0xfa, 0xff, b'a'])),
    ) {
        let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        let value = bytes[..digits].iter().fold(0u64, |v, d| v * 10 + u64::from(d - b'0'));
        prop_assert_eq!(leading_digits(u64::from_le_bytes(bytes)), (value, digits));
    }
}
