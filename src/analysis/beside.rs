//! The sentences of docs/rules/reference.md §13.5 and of a report without stack traces, shared by print mode
//! and the terminal UI: an operation the report did not record, what a log beside the report
//! adds to an operation, and where to get the model's line.

use super::model::{ErrorRecord, LogPlace};

/// What follows the name of an operation the report did not record, on screen and in print.
pub const NOT_RECORDED: &str = "(not recorded)";

/// The callout of an operation the report did not record, without a log: why there is no
/// message, and how to add it.
pub const NO_MESSAGE_RECORDED: &str =
    "This ttnn release records no allocator message for a failed operation: give the run's log with --log to add it.";

/// What a report without stack traces says once, and how to get the model's line.
pub const NO_STACK_TRACES: &str = "This report records no stack traces, so no line of the model is named: turn Python stack traces on when recording (README, \"Recording a report\"), or give the run's log with --log, whose traceback has the line.";

/// The callout of an operation the report did not record when the log beside the report has no
/// allocation failure of its name.
pub fn no_message_in_log(path: &str, name: &str) -> String {
    format!(
        "This ttnn release records no allocator message for a failed operation, and the log {path} has no allocation failure of {name}."
    )
}

/// What an operation's callout adds after the failure (docs/rules/reference.md §13.5): where the log beside
/// the report shows it; for an operation the report did not record whose failure no log gave,
/// why it has no message (`log_path`: the log given, sanitised); none otherwise.
pub fn operation_note(error: &ErrorRecord, recorded: bool, name: &str, log_path: Option<&str>) -> Option<String> {
    if let Some(place) = &error.log {
        return Some(log_sentence(place));
    }
    if recorded || error.failure.is_some() {
        return None;
    }
    Some(match log_path {
        Some(path) => no_message_in_log(path, name),
        None => NO_MESSAGE_RECORDED.to_string(),
    })
}

/// Where the log shows an operation's failure: `In the log: line 39 of run.log (also on line
/// 42), at model/block.py:111, test test_model.`; when the report recorded no message, the
/// sentence says the message is the log's.
pub fn log_sentence(place: &LogPlace) -> String {
    let mut where_ = format!("line {} of {}", place.line, place.path);
    match place.also_at.as_slice() {
        [] => {}
        [one] => where_.push_str(&format!(" (also on line {one})")),
        many => {
            let list: Vec<String> = many.iter().map(u64::to_string).collect();
            where_.push_str(&format!(" (also on lines {})", list.join(", ")));
        }
    }
    if let Some(source) = &place.source {
        where_.push_str(&format!(", at {source}"));
    }
    if let Some(test) = &place.test {
        where_.push_str(&format!(", test {test}"));
    }
    match place.message_from_log {
        true => format!(
            "The message is the log's (this ttnn release records no allocator message for a failed operation): {where_}."
        ),
        false => format!("In the log: {where_}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(also_at: Vec<u64>, message_from_log: bool) -> LogPlace {
        LogPlace {
            path: "run.log".into(),
            line: 39,
            also_at,
            source: Some("model/block.py:111".into()),
            test: Some("test_model".into()),
            message_from_log,
        }
    }

    #[test]
    fn where_the_log_shows_a_failure() {
        assert_eq!(
            log_sentence(&place(vec![], false)),
            "In the log: line 39 of run.log, at model/block.py:111, test test_model."
        );
        assert_eq!(
            log_sentence(&place(vec![42], true)),
            "The message is the log's (this ttnn release records no allocator message for a failed operation): line 39 of run.log (also on line 42), at model/block.py:111, test test_model."
        );
        let bare = LogPlace { source: None, test: None, ..place(vec![42, 50], false) };
        assert_eq!(log_sentence(&bare), "In the log: line 39 of run.log (also on lines 42, 50).");
        assert_eq!(
            no_message_in_log("run.log", "ttnn.add"),
            "This ttnn release records no allocator message for a failed operation, and the log run.log has no allocation failure of ttnn.add."
        );
    }
}
