//! The `devices` table: one row per device of the rank, the last row winning for a repeated id
//! (docs/rules/reference.md §1.3.6), and what the memory rules need of it.

use crate::analysis::memory::DeviceFacts;
use crate::report::database::Schema;
use crate::report::database::uint;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, params};

/// One `devices` row (the last row wins for a repeated id).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Device {
    /// `device_id`.
    pub(crate) device_id: u64,
    /// `num_x_cores` × `num_y_cores` grid.
    pub(crate) num_x_cores: u64,
    /// Rows of cores.
    pub(crate) num_y_cores: u64,
    /// `worker_l1_size`.
    pub(crate) worker_l1_size: u64,
    /// `l1_num_banks`.
    pub(crate) l1_num_banks: u64,
    /// `l1_bank_size`.
    pub(crate) l1_bank_size: u64,
    /// `total_l1_memory`.
    pub(crate) total_l1_memory: u64,
    /// `cb_limit`.
    pub(crate) cb_limit: u64,
    /// `address_at_first_l1_cb_buffer`: where the L1 allocator's region starts; none when the
    /// report's era lacks the column or stores NULL.
    pub address_at_first_l1_cb_buffer: Option<u64>,
    /// `num_x_compute_cores` × `num_y_compute_cores`: the worker grid (0 when not recorded).
    pub(crate) compute_grid: (u64, u64),
}

impl Device {
    /// What the memory rules need of the row.
    pub(crate) fn facts(&self) -> DeviceFacts {
        DeviceFacts {
            device_id: self.device_id,
            l1_start: self.address_at_first_l1_cb_buffer,
            l1_bank_size: self.l1_bank_size,
            worker_l1_size: self.worker_l1_size,
            l1_num_banks: self.l1_num_banks,
        }
    }
}

/// The `devices` rows of a rank, the last row winning for a repeated id.
pub(super) fn read_devices(conn: &Connection, schema: &Schema, rank: u32) -> rusqlite::Result<Vec<Device>> {
    if !schema.has_table("devices") {
        return Ok(Vec::new());
    }
    let wanted = [
        ("device_id", "0"),
        ("num_x_cores", "0"),
        ("num_y_cores", "0"),
        ("worker_l1_size", "0"),
        ("l1_num_banks", "0"),
        ("l1_bank_size", "0"),
        ("total_l1_memory", "0"),
        ("cb_limit", "0"),
        ("address_at_first_l1_cb_buffer", "NULL"),
        ("num_x_compute_cores", "0"),
        ("num_y_compute_cores", "0"),
    ];
    let columns = schema.select_list("devices", &wanted);
    let filter = schema.rank_filter("devices");
    let mut stmt = conn.prepare(&format!("SELECT {columns} FROM devices WHERE {filter} ORDER BY rowid"))?;
    let mut by_id: Vec<Device> = Vec::new();
    let mut rows = stmt.query(params![rank])?;
    while let Some(r) = rows.next()? {
        let v = |i: usize| uint(r.get_ref_unwrap(i));
        let device = Device {
            device_id: v(0),
            num_x_cores: v(1),
            num_y_cores: v(2),
            worker_l1_size: v(3),
            l1_num_banks: v(4),
            l1_bank_size: v(5),
            total_l1_memory: v(6),
            cb_limit: v(7),
            address_at_first_l1_cb_buffer: match r.get_ref_unwrap(8) {
                ValueRef::Null => None,
                value => Some(uint(value)),
            },
            compute_grid: (v(9), v(10)),
        };
        match by_id.iter_mut().find(|d| d.device_id == device.device_id) {
            Some(existing) => *existing = device,
            None => by_id.push(device),
        }
    }
    Ok(by_id)
}
