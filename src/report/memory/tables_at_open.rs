//! The rows read when a report opens (docs/rules/reference.md §1–§2): its schema version, the
//! operations and the error rows of the rank, and which failures asked for a sharded output.
//! A watched report reads the rows added since with the same readers (`watch.rs`).

use super::memory_report::MemoryReport;
use crate::analysis::int_hash::IntMap;
use crate::analysis::messages::failure::parse_allocation_failure;
use crate::analysis::model::{ErrorRecord, Operation};
use crate::analysis::sanitize::{sanitize_line, sanitize_text};
use crate::report::database::{float, int, opt_uint, text, uint};
use rusqlite::params;
use rusqlite::types::ValueRef;
use std::sync::Arc;

impl MemoryReport {
    /// `report_metadata.schema_version`, when recorded.
    pub(super) fn read_schema_version(&self) -> rusqlite::Result<Option<String>> {
        if !self.store.schema.has_column("report_metadata", "key")
            || !self.store.schema.has_column("report_metadata", "value")
        {
            return Ok(None);
        }
        let mut stmt = self.store.conn.prepare("SELECT value FROM report_metadata WHERE key = 'schema_version'")?;
        let mut rows = stmt.query([])?;
        Ok(rows.next()?.map(|r| sanitize_line(&text(r.get_ref_unwrap(0)))))
    }

    /// Operations of the rank stored past a rowid, in id order; whether the table already stored
    /// them so; and whether it holds rows of another rank (read in the same pass: the rows of
    /// every rank are read and those of others dropped).
    pub(super) fn read_operations(&self, after_rowid: i64) -> rusqlite::Result<(Vec<Operation>, bool, bool)> {
        let columns = self
            .store
            .schema
            .select_list("operations", &[("operation_id", "0"), ("name", "''"), ("duration", "NULL"), ("rank", "0")]);
        // Table order, then a stable sort by id: cheap when the table is already in id order.
        let sql = format!("SELECT {columns} FROM operations WHERE rowid > ?1");
        let mut stmt = self.store.conn.prepare(&sql)?;
        // A run names its operations with a few dozen names: each is sanitised once.
        let mut names: IntMap<Vec<u8>, Arc<str>> = IntMap::default();
        let mut name = |value: ValueRef<'_>| match value {
            ValueRef::Text(raw) => match names.get(raw) {
                Some(name) => name.clone(),
                None => names.entry(raw.to_vec()).or_insert_with(|| sanitize_line(&text(value)).into()).clone(),
            },
            other => sanitize_line(&text(other)).into(),
        };
        let rows = stmt.query_map(params![after_rowid], |r| {
            Ok(Operation {
                id: uint(r.get_ref(0)?),
                name: name(r.get_ref(1)?),
                duration: float(r.get_ref(2)?),
                rank: int(r.get_ref(3)?) as u32,
                error: None,
                recorded: true,
            })
        })?;
        let mut operations = rows.collect::<rusqlite::Result<Vec<_>>>()?;
        let before = operations.len();
        operations.retain(|o| o.rank == self.store.rank);
        let other_ranks = operations.len() < before;
        // The per-operation tables are written by the same loop as `operations`: when this one
        // is out of id order, theirs may be too, and lookups must not trust rowid order.
        let in_order = operations.is_sorted_by_key(|o| o.id);
        operations.sort_by_key(|o| o.id);
        Ok((operations, in_order, other_ranks))
    }

    /// Error rows of the rank, and of rank 0 for the fallback, stored past a rowid, in table order.
    pub(super) fn read_errors(&self, after_rowid: i64) -> rusqlite::Result<Vec<ErrorRecord>> {
        if !self.store.schema.has_table("errors") {
            return Ok(Vec::new());
        }
        let columns = self.store.schema.select_list(
            "errors",
            &[
                ("operation_id", "0"),
                ("operation_name", "''"),
                ("error_type", "''"),
                ("error_message", "NULL"),
                ("stack_trace", "''"),
                ("timestamp", "''"),
                ("rank", "0"),
            ],
        );
        let filter = if self.store.schema.has_column("errors", "rank") { "rank = ?1 OR rank = 0" } else { "(1 OR ?1)" };
        let sql = format!("SELECT {columns} FROM errors WHERE ({filter}) AND rowid > ?2 ORDER BY rowid");
        let mut stmt = self.store.conn.prepare(&sql)?;
        let rows = stmt.query_map(params![self.store.rank, after_rowid], |r| {
            // The raw message is parsed before sanitising; only sanitised text is kept.
            let raw = match r.get_ref(3)? {
                rusqlite::types::ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
                _ => None,
            };
            let failure = raw.as_deref().and_then(parse_allocation_failure).map(|mut f| {
                f.figures.core_range = f.figures.core_range.map(|c| sanitize_line(&c));
                f
            });
            Ok(ErrorRecord {
                operation_id: opt_uint(r.get_ref(0)?),
                operation_name: sanitize_line(&text(r.get_ref(1)?)),
                error_type: sanitize_line(&text(r.get_ref(2)?)),
                message: sanitize_text(raw.as_deref().unwrap_or("")),
                stack_trace: sanitize_text(&text(r.get_ref(4)?)),
                timestamp: sanitize_line(&text(r.get_ref(5)?)),
                rank: int(r.get_ref(6)?) as u32,
                failure,
                attached: false,
                log: None,
            })
        })?;
        rows.collect()
    }

    /// Marks the L1 allocation failures whose operation asked for a sharded output (its
    /// `memory_config` argument): a sharded buffer is not confined to the interleaved region, so
    /// its reason carries no caveat about it. One query for the operations with such an error.
    pub(super) fn mark_sharded_requests(&mut self) -> rusqlite::Result<()> {
        let wanted: Vec<u64> = self
            .operations
            .iter()
            .filter(|o| o.error.and_then(|e| self.errors[e].failure.as_ref()).is_some_and(|f| !f.sharded))
            .map(|o| o.id)
            .collect();
        if wanted.is_empty() {
            return Ok(());
        }
        let configs = self.store.texts_by_operation_named("operation_arguments", "memory_config", &wanted)?;
        for o in self.operations.iter().filter(|o| o.error.is_some()) {
            let sharded = configs.get(&o.id).is_some_and(|v| v.iter().any(|(_, t)| t.contains("_SHARDED")));
            if let (true, Some(e)) = (sharded, o.error)
                && let Some(f) = self.errors[e].failure.as_mut()
            {
                f.sharded = true;
            }
        }
        Ok(())
    }
}
