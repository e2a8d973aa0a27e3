//! A log beside a report (docs/rules/reference.md §13.5): which report operation each failure of the log
//! belongs to. First the operation whose error is the same failure (same kind and figures): the
//! log then only says where it was seen. Else the operation that started and never completed,
//! recorded or not, of the same name: it takes the last failure of that name in the log.

use super::findings::LogFailure;
use crate::analysis::messages::failure::AllocationFailure;
use crate::analysis::sanitize::sanitize_line;

/// What a report's operation with an error offers a log failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JoinTarget<'a> {
    /// The operation's name.
    pub(crate) name: &'a str,
    /// The allocation failure its error records.
    pub(crate) failure: Option<&'a AllocationFailure>,
    /// Its error says it started and never completed (`incomplete_operation`).
    pub(crate) incomplete: bool,
}

/// The same failure: same kind and figures (a core range compared as the report keeps it,
/// sanitised); whether either was recognised beyond the reference does not matter (a log may
/// wrap what the report stored on one line).
pub(crate) fn same_failure(a: &AllocationFailure, b: &AllocationFailure) -> bool {
    let range = |f: &AllocationFailure| f.figures.core_range.as_deref().map(sanitize_line);
    let figures =
        |f: &AllocationFailure| crate::analysis::messages::failure::Figures { core_range: None, ..f.figures.clone() };
    a.kind == b.kind && figures(a) == figures(b) && range(a) == range(b)
}

/// For each log failure, the target it joins (an index into `targets`), none when none does.
/// Each target takes at most one log failure.
pub(crate) fn join_failures(failures: &[LogFailure], targets: &[JoinTarget<'_>]) -> Vec<Option<usize>> {
    let mut joined: Vec<Option<usize>> = vec![None; failures.len()];
    let mut taken = vec![false; targets.len()];
    for (f, slot) in failures.iter().zip(&mut joined) {
        let same: Vec<usize> = (0..targets.len())
            .filter(|&t| !taken[t] && targets[t].failure.is_some_and(|r| same_failure(r, &f.failure)))
            .collect();
        let named = same.iter().copied().find(|&t| f.operation_name.as_deref() == Some(targets[t].name));
        if let Some(t) = named.or(same.first().copied()) {
            taken[t] = true;
            *slot = Some(t);
        }
    }
    for (t, target) in targets.iter().enumerate() {
        if taken[t] || !target.incomplete || target.failure.is_some() {
            continue;
        }
        let last = (0..failures.len())
            .rev()
            .find(|&k| joined[k].is_none() && failures[k].operation_name.as_deref() == Some(target.name));
        if let Some(k) = last {
            taken[t] = true;
            joined[k] = Some(t);
        }
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::messages::failure::parse_allocation_failure;

    const OOM: &str = "Out of Memory: Not enough space to allocate 8388608 B L1 buffer across 64 banks, where each bank needs to store 131072 B, but bank size is 1393312 B (allocated: 1310720 B, free: 82592 B, largest free block: 82592 B)";
    const OTHER: &str = "Out of Memory: Not enough space to allocate 4194304 B L1 buffer across 64 banks, where each bank needs to store 65536 B, but bank size is 1393312 B (allocated: 1343488 B, free: 49824 B, largest free block: 49824 B)";

    fn failure(message: &str, name: Option<&str>, line: u64) -> LogFailure {
        LogFailure {
            line,
            also_at: Vec::new(),
            operation_name: name.map(String::from),
            source: None,
            test: None,
            message: message.to_string(),
            failure: parse_allocation_failure(message).unwrap(),
        }
    }

    #[test]
    fn the_same_failure_joins_its_operation_whatever_the_names() {
        let recorded = parse_allocation_failure(OOM).unwrap();
        let targets = [
            JoinTarget { name: "ttnn.matmul", failure: None, incomplete: false },
            JoinTarget { name: "ttnn.add", failure: Some(&recorded), incomplete: false },
        ];
        // Wrapped by a terminal: beyond the reference, but the same kind and figures.
        let wrapped = OOM.replace("across 64", "across\n64");
        let log = [failure(&wrapped, None, 3), failure(OTHER, Some("ttnn.add"), 9)];
        assert!(log[0].failure.beyond_reference);
        assert_eq!(join_failures(&log, &targets), vec![Some(1), None]);
    }

    /// The operation that never completed takes the last failure of its name; a failure that
    /// names another operation, or none, joins nothing.
    #[test]
    fn an_incomplete_operation_takes_the_last_failure_of_its_name() {
        let targets = [JoinTarget { name: "ttnn.add", failure: None, incomplete: true }];
        let log = [
            failure(OOM, Some("ttnn.add"), 3),
            failure(OTHER, Some("ttnn.add"), 9),
            failure(OOM, Some("ttnn.matmul"), 12),
            failure(OTHER, None, 15),
        ];
        assert_eq!(join_failures(&log, &targets), vec![None, Some(0), None, None]);
        let complete = [JoinTarget { name: "ttnn.add", failure: None, incomplete: false }];
        assert_eq!(join_failures(&log, &complete), vec![None; 4]);
    }

    /// Two operations with the same failure each take one log failure; a recorded failure is
    /// joined before an incomplete operation is looked for.
    #[test]
    fn each_operation_takes_one_failure() {
        let recorded = parse_allocation_failure(OOM).unwrap();
        let targets = [
            JoinTarget { name: "ttnn.add", failure: Some(&recorded), incomplete: false },
            JoinTarget { name: "ttnn.add", failure: Some(&recorded), incomplete: false },
            JoinTarget { name: "ttnn.add", failure: None, incomplete: true },
        ];
        let log =
            [failure(OOM, Some("ttnn.add"), 1), failure(OOM, Some("ttnn.add"), 5), failure(OOM, Some("ttnn.add"), 8)];
        assert_eq!(join_failures(&log, &targets), vec![Some(0), Some(1), Some(2)]);
    }
}
