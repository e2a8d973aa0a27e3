//! The `tensor_lifetime` table ttnn's importer writes (0.75 and later, with Python stack traces
//! on) against the list of tensors held past their last use: producer, last use, deallocation and
//! the last use's line, tensor by tensor; where they disagree is said in a note (issue 21 §4).

use super::findings::{Disagreement, LateTensor, LifetimeCheck};

/// One `tensor_lifetime` row, the source lines as `file.py:line` (the file's last component).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TensorLifetime {
    /// `tensor_id`.
    pub tensor_id: u64,
    /// The first operation that listed it as an output.
    pub producer_operation_id: Option<u64>,
    /// The last operation that listed it as an input, deallocations excepted.
    pub last_use_operation_id: Option<u64>,
    /// The first `ttnn.deallocate` that listed it.
    pub deallocate_operation_id: Option<u64>,
    /// The last use's line: the innermost frame of that operation's stack trace.
    pub last_use_source: Option<String>,
}

/// Checks the list against the table; none when no tensor of the list has a row (no table, or
/// an empty one).
pub fn check_lifetimes(late: &[LateTensor], table: &[TensorLifetime]) -> Option<LifetimeCheck> {
    let mut check = LifetimeCheck::default();
    for t in late {
        let Some(row) = table.iter().find(|r| r.tensor_id == t.tensor_id) else { continue };
        check.checked += 1;
        let tensor_id = t.tensor_id;
        if row.producer_operation_id != t.producer_operation_id {
            let (table, list) = (row.producer_operation_id, t.producer_operation_id);
            check.disagreements.push(Disagreement::Producer { tensor_id, table, list });
        }
        if row.last_use_operation_id != Some(t.last_use_operation_id) {
            let (table, list) = (row.last_use_operation_id, t.last_use_operation_id);
            check.disagreements.push(Disagreement::LastUse { tensor_id, table, list });
        }
        if let Some(by) = row.deallocate_operation_id.filter(|&by| by <= t.held_until_operation_id) {
            let held_until = t.held_until_operation_id;
            check.disagreements.push(Disagreement::Deallocated { tensor_id, by, held_until });
        }
        if let (Some(table), Some(list)) = (&row.last_use_source, &t.source)
            && table != list
        {
            check.disagreements.push(Disagreement::Source { tensor_id, table: table.clone(), list: list.clone() });
        }
    }
    (check.checked > 0).then_some(check)
}

fn operation(id: Option<u64>) -> String {
    id.map_or_else(|| "no recorded operation".to_string(), |id| format!("operation {id}"))
}

impl Disagreement {
    /// The note: `tensor_lifetime says tensor 17 was last used by operation 3; this list, by
    /// operation 4.`
    pub fn text(&self) -> String {
        match self {
            Self::Producer { tensor_id, table, list } => format!(
                "tensor_lifetime says tensor {tensor_id} was produced by {}; this list, by {}.",
                operation(*table),
                operation(*list)
            ),
            Self::LastUse { tensor_id, table, list } => format!(
                "tensor_lifetime says tensor {tensor_id} was last used by {}; this list, by operation {list}.",
                operation(*table)
            ),
            Self::Deallocated { tensor_id, by, held_until } => format!(
                "tensor_lifetime says tensor {tensor_id} was deallocated by operation {by}; this list holds it until operation {held_until}."
            ),
            Self::Source { tensor_id, table, list } => {
                format!("tensor_lifetime puts tensor {tensor_id}'s last use at {table}; this list, at {list}.")
            }
        }
    }
}

/// What the check says after the list: that the table agrees, or a note per disagreement.
pub fn lifetime_lines(check: &LifetimeCheck) -> Vec<String> {
    if check.disagreements.is_empty() {
        let tensors = if check.checked == 1 { "tensor".to_string() } else { format!("{} tensors", check.checked) };
        return vec![format!(
            "The report's tensor_lifetime table agrees on the {tensors}: producer, last use, deallocation and line."
        )];
    }
    check.disagreements.iter().map(|d| format!("Note: {}", d.text())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::messages::failure::BufferType;

    fn late(tensor_id: u64, producer: Option<u64>, last_use: u64, held_until: u64, source: &str) -> LateTensor {
        LateTensor {
            device_id: 1,
            buffer_type: BufferType::L1,
            address: 1024,
            size_per_bank: 32768,
            tensor_id,
            shape: None,
            producer_operation_id: producer,
            last_use_operation_id: last_use,
            last_use_operation_name: "ttnn.relu".into(),
            held_until_operation_id: held_until,
            source: Some(source.into()),
            peak_saving_per_bank: 0,
        }
    }

    fn row(
        tensor_id: u64,
        producer: Option<u64>,
        last_use: Option<u64>,
        deallocate: Option<u64>,
        source: &str,
    ) -> TensorLifetime {
        TensorLifetime {
            tensor_id,
            producer_operation_id: producer,
            last_use_operation_id: last_use,
            deallocate_operation_id: deallocate,
            last_use_source: Some(source.into()),
        }
    }

    /// `small_model_lifetime` (ttnn 0.81): tensor 17 produced by 2, last used by 4 at
    /// `record_fixtures.py:310`, held until the failure at 7.
    #[test]
    fn the_table_agrees_or_says_where_not() {
        let list =
            [late(17, Some(2), 4, 7, "record_fixtures.py:310"), late(20, Some(4), 5, 7, "record_fixtures.py:312")];
        let table = [
            row(17, Some(2), Some(4), None, "record_fixtures.py:310"),
            row(20, Some(4), Some(5), None, "record_fixtures.py:312"),
        ];
        let check = check_lifetimes(&list, &table).unwrap();
        assert_eq!(check, LifetimeCheck { checked: 2, disagreements: vec![] });
        assert_eq!(
            lifetime_lines(&check),
            ["The report's tensor_lifetime table agrees on the 2 tensors: producer, last use, deallocation and line."]
        );
        let table = [row(17, None, Some(3), Some(6), "block.py:9")];
        let check = check_lifetimes(&list, &table).unwrap();
        assert_eq!(
            lifetime_lines(&check),
            [
                "Note: tensor_lifetime says tensor 17 was produced by no recorded operation; this list, by operation 2.",
                "Note: tensor_lifetime says tensor 17 was last used by operation 3; this list, by operation 4.",
                "Note: tensor_lifetime says tensor 17 was deallocated by operation 6; this list holds it until operation 7.",
                "Note: tensor_lifetime puts tensor 17's last use at block.py:9; this list, at record_fixtures.py:310.",
            ]
        );
        assert_eq!(check_lifetimes(&list, &[]), None);
    }
}
