//! Lists of ids in SQL: how long an `IN (…)` list may be, how it is written, when a list is
//! too long to write (the table is read once instead), and ids read by index ranges.

use super::database::rowid_range;
use rusqlite::Connection;
use std::collections::BTreeSet;

/// How many values go into one `IN (…)` list.
pub(crate) const IN_LIST_CHUNK: usize = 500;

/// Integers written as an SQL `IN (…)` list body: `1,2,3`.
pub(crate) fn id_list(values: impl IntoIterator<Item = u64>) -> String {
    values.into_iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")
}

/// Ids apart by at most this are read by one range of an index ([`id_runs`]).
const RUN_GAP: u64 = 4;

/// Ascending ids in runs `(first, last)` of neighbours no more than [`RUN_GAP`] apart: each run
/// read by one range of an index, a few rows not asked for skipped, rather than a look-up each.
pub(crate) fn id_runs(ids: &BTreeSet<u64>) -> Vec<(u64, u64)> {
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &id in ids {
        match runs.last_mut() {
            Some(run) if id - run.1 <= RUN_GAP => run.1 = id,
            _ => runs.push((id, id)),
        }
    }
    runs
}

/// Whether a list of `wanted` keys is long against `table`'s rows (at least half as many as its
/// rowids span): then reading the table once and keeping the keys in Rust costs less than
/// writing the list as SQL — preparing an `IN` list of 150 000 ids took longer than reading
/// the 2 000 rows it looked up (docs/performance.md, issue 29).
pub(crate) fn long_list(conn: &Connection, table: &str, wanted: usize) -> rusqlite::Result<bool> {
    if wanted <= IN_LIST_CHUNK {
        return Ok(false);
    }
    let span = rowid_range(conn, table)?.map_or(0, |(first, last)| last.saturating_sub(first).saturating_add(1));
    Ok(usize::try_from(span).unwrap_or(usize::MAX) <= wanted.saturating_mul(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbouring_ids_are_read_in_runs() {
        let ids: BTreeSet<u64> = [3, 4, 8, 13, 14, 100, u64::MAX].into_iter().collect();
        assert_eq!(id_runs(&ids), vec![(3, 8), (13, 14), (100, 100), (u64::MAX, u64::MAX)]);
        assert_eq!(id_runs(&BTreeSet::new()), vec![]);
    }
}
