//! A small allocator simulation: a scripted model runs on simulated devices — tensors allocated
//! top-down in L1's `[A, A+B)` and bottom-up in DRAM, produced and consumed by operations,
//! freed by `ttnn.deallocate`, buffers allocated or freed between operations outside any
//! record — until an operation fails to allocate. It records what TT-NN records in each writer
//! era of docs/rules/memory.md §1 (post-operation snapshots, graphs with allocations, frees and the
//! unwinding, tensors and their producers and consumers, the allocator's figures in the
//! message) and keeps the truth at the failure, which tests compare with what the library
//! rebuilds from the written report.
//!
//! ```ignore
//! let mut sim = Sim::new(Era::DecoratorWithErrors, Options::default(), 1);
//! sim.weight("w", 0, BufferType::L1, 65536);
//! sim.run(SimOp::new("ttnn.matmul", "MatmulDeviceOperation").input("w").output("y", BufferType::L1, 131072));
//! sim.fail(SimOp::new("ttnn.conv2d", "Conv2dDeviceOperation").input("y").output("z", BufferType::L1, 1_000_000));
//! let truth = sim.truth.clone().unwrap();
//! sim.report().write_to(dir);
//! ```

mod alloc;
mod late;
mod log;
mod record;
mod truth;
mod write;

pub use alloc::Allocator;
#[allow(unused_imports)]
pub use late::{LateTruth, SummaryTruth};
#[allow(unused_imports)]
pub use record::{Era, Mesh, Options};

use super::rows::{Device, ErrorRow, Op};
use super::schema::BufferType;
use std::collections::HashMap;

/// Bank size of the simulated DRAM: what tt-metal 0.81's DRAM allocator manages on a Wormhole
/// (the bank size its messages give).
pub const DRAM_BANK: u64 = 1_072_693_184;
/// The lowest DRAM address the simulated allocator places: tt-metal 0.81 reserves what lies
/// below (docs/rules/memory.md §1), and the allocator's region starts here.
pub const DRAM_BASE: u64 = 1_048_640;
/// Banks of each buffer type.
pub const L1_BANKS: u64 = 64;
pub const DRAM_BANKS: u64 = 12;

/// One operation of the script.
#[derive(Clone, Debug, Default)]
pub struct SimOp {
    pub name: String,
    pub device_op: String,
    pub device: u64,
    pub inputs: Vec<String>,
    /// Buffers the device operation allocates and frees before it ends.
    pub temps: Vec<(BufferType, u64)>,
    /// Tensors it produces: name, buffer type, bytes per bank.
    pub outputs: Vec<(String, BufferType, u64)>,
    /// Input tensors it frees on its way out.
    pub frees: Vec<String>,
    /// Its program's circular buffers, bytes per core, placed from the start of L1's region.
    pub cbs: Vec<u64>,
}

impl SimOp {
    pub fn new(name: &str, device_op: &str) -> Self {
        SimOp { name: name.into(), device_op: device_op.into(), ..SimOp::default() }
    }
    pub fn on(mut self, device: u64) -> Self {
        self.device = device;
        self
    }
    pub fn input(mut self, name: &str) -> Self {
        self.inputs.push(name.into());
        self
    }
    pub fn temp(mut self, buffer_type: BufferType, per_bank: u64) -> Self {
        self.temps.push((buffer_type, per_bank));
        self
    }
    pub fn output(mut self, name: &str, buffer_type: BufferType, per_bank: u64) -> Self {
        self.outputs.push((name.into(), buffer_type, per_bank));
        self
    }
    pub fn free(mut self, name: &str) -> Self {
        self.frees.push(name.into());
        self
    }
    pub fn cbs(mut self, sizes: &[u64]) -> Self {
        self.cbs.extend_from_slice(sizes);
        self
    }
}

/// A tensor of the run.
#[derive(Clone, Debug)]
pub struct SimTensor {
    pub id: u64,
    pub name: String,
    pub device: u64,
    pub buffer_type: BufferType,
    pub address: u64,
    pub per_bank: u64,
    pub producer: Option<u64>,
    pub consumers: Vec<u64>,
    pub live: bool,
    /// The last operation that read it (not a deallocation).
    pub last_use: Option<u64>,
    /// The operation at whose start it was already freed: a `ttnn.deallocate`, the operation
    /// that freed it on its way out, or the next one after a free outside any record.
    pub freed_at: Option<u64>,
}

/// A buffer live at the failure, and who holds it, as the simulation knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TruthBuffer {
    pub address: u64,
    pub size: u64,
    pub tensor: Option<u64>,
    /// Allocated by the failed operation before it failed.
    pub own: bool,
    pub input: bool,
    pub stale: bool,
    pub producer: Option<u64>,
    pub last_use: Option<u64>,
}

/// What was true when the operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truth {
    pub operation_id: u64,
    pub device: u64,
    pub buffer_type: BufferType,
    /// Live buffers of the failure's (device, buffer type) at the failure, by address.
    pub live: Vec<TruthBuffer>,
    pub region: (u64, u64),
    pub allocated: u64,
    pub largest_free: u64,
    /// The request per bank (bank failures).
    pub need: Option<u64>,
    /// The cheapest set of movable buffers (addresses) whose freeing lets the request fit; none
    /// when no such set of up to three buffers exists.
    pub to_free: Option<Vec<u64>>,
    /// Whether the request would have fit with every stale buffer (held past its last use)
    /// freed (bank failures).
    pub fits_if_late_freed: Option<bool>,
    /// Circular-buffer clash: the region end and the live L1 buffers below it.
    pub region_end: Option<u64>,
    pub clashing: Vec<u64>,
}

/// The two allocators of a device.
#[derive(Clone, Debug)]
pub(crate) struct SimDevice {
    pub(crate) row: Device,
    pub(crate) l1: Allocator,
    pub(crate) dram: Allocator,
}

impl SimDevice {
    fn new(id: u64) -> Self {
        let row = Device::wormhole(id as i64);
        let a = row.address_at_first_l1_cb_buffer as u64;
        let l1 = Allocator::top_down(a, a + row.l1_bank_size as u64);
        SimDevice { row, l1, dram: Allocator::bottom_up(DRAM_BASE, DRAM_BASE, DRAM_BASE + DRAM_BANK) }
    }
    pub(crate) fn allocator(&mut self, buffer_type: BufferType) -> &mut Allocator {
        match buffer_type {
            BufferType::Dram => &mut self.dram,
            _ => &mut self.l1,
        }
    }
}

/// The simulation; see the module documentation.
#[derive(Clone, Debug)]
pub struct Sim {
    pub era: Era,
    pub options: Options,
    pub(crate) devices: Vec<SimDevice>,
    pub tensors: Vec<SimTensor>,
    pub(crate) ops: Vec<Op>,
    pub(crate) errors: Vec<ErrorRow>,
    /// Buffers allocated outside any record: name → (device, buffer type, address).
    pub(crate) outside: HashMap<String, (u64, BufferType, u64)>,
    pub truth: Option<Truth>,
    /// The allocator's message of the failure, once an operation failed.
    pub message: Option<String>,
    /// The failed operation, when the era records no `operations` row for it (its name and
    /// inputs, as graph capture's Python calls keep them).
    pub unrecorded: Option<Op>,
    /// Bytes per bank held after each operation with a snapshot, per (table device, buffer type):
    /// `(operation id, device, buffer type, bytes)`.
    pub usage: Vec<(u64, u64, BufferType, u64)>,
    /// A re-run's fix: tensors (by id) freed outside any record right after an operation.
    pub free_after: HashMap<u64, Vec<u64>>,
}

impl Sim {
    pub fn new(era: Era, options: Options, devices: usize) -> Self {
        Sim {
            era,
            options,
            devices: (0..devices as u64).map(SimDevice::new).collect(),
            tensors: Vec::new(),
            ops: Vec::new(),
            errors: Vec::new(),
            outside: HashMap::new(),
            truth: None,
            message: None,
            unrecorded: None,
            usage: Vec::new(),
            free_after: HashMap::new(),
        }
    }

    /// The live tensor called `name`.
    pub fn tensor(&self, name: &str) -> &SimTensor {
        self.tensors.iter().rev().find(|t| t.name == name && t.live).unwrap_or_else(|| panic!("no live tensor {name}"))
    }

    /// The id of the newest tensor called `name`, live or not.
    pub fn tensor_id(&self, name: &str) -> u64 {
        self.tensors.iter().rev().find(|t| t.name == name).unwrap_or_else(|| panic!("no tensor {name}")).id
    }

    /// The device id graph buffer nodes carry for device `d`: the mesh's (1) for a single chip
    /// opened as a mesh (docs/rules/memory.md §1), else `d`.
    pub(crate) fn graph_device(&self, d: u64) -> u64 {
        if self.options.mesh.is_some() { 1 } else { d }
    }

    /// The device id the tables (`buffers`, `tensors`) carry for device `d`: for a single chip
    /// opened as a mesh, 0 before a program compiled and 1 after, else `d`.
    pub(crate) fn table_device(&self, d: u64) -> u64 {
        self.options.mesh.map_or(d, |m| m.tables)
    }

    /// A copy of one of device `d`'s allocators, to ask where buffers would go now.
    pub fn allocator_copy(&self, d: u64, buffer_type: BufferType) -> Allocator {
        let device = &self.devices[d as usize];
        if buffer_type == BufferType::Dram { device.dram.clone() } else { device.l1.clone() }
    }

    /// How many devices it simulates.
    pub fn devices_count(&self) -> usize {
        self.devices.len()
    }

    /// How many operations have run (the id of the last one).
    pub fn operations_run(&self) -> u64 {
        self.ops.len() as u64
    }

    /// The address of a buffer allocated outside any record.
    pub fn outside_address(&self, name: &str) -> u64 {
        self.outside[name].2
    }

    /// Allocates a tensor's buffer; none when it does not fit.
    pub(crate) fn new_tensor(
        &mut self,
        name: &str,
        device: u64,
        buffer_type: BufferType,
        per_bank: u64,
    ) -> Option<usize> {
        let address = self.devices[device as usize].allocator(buffer_type).allocate(per_bank)?;
        let id = self.tensors.len() as u64 + 1;
        self.tensors.push(SimTensor {
            id,
            name: name.into(),
            device,
            buffer_type,
            address,
            per_bank,
            producer: None,
            consumers: Vec::new(),
            live: true,
            last_use: None,
            freed_at: None,
        });
        Some(self.tensors.len() - 1)
    }

    /// A tensor placed before the first recorded operation (a weight or an input): recorded in
    /// `tensors` with its address, produced by no recorded operation.
    pub fn weight(&mut self, name: &str, device: u64, buffer_type: BufferType, per_bank: u64) -> u64 {
        let i = self.new_tensor(name, device, buffer_type, per_bank).expect("weights fit");
        self.tensors[i].id
    }

    /// A buffer allocated between operations, in no graph and held by no tensor.
    pub fn outside_alloc(&mut self, name: &str, device: u64, buffer_type: BufferType, per_bank: u64) {
        let address = self.devices[device as usize].allocator(buffer_type).allocate(per_bank).expect("fits");
        self.outside.insert(name.into(), (device, buffer_type, address));
    }

    /// Frees what a re-run's fix frees right after operation `id` (`free_after`), outside any
    /// record, as a `ttnn.deallocate` the script would have had there.
    pub(crate) fn apply_free_after(&mut self, id: u64) {
        for tensor in self.free_after.remove(&id).unwrap_or_default() {
            if let Some(name) = self.tensors.iter().find(|t| t.id == tensor && t.live).map(|t| t.name.clone()) {
                self.outside_free(&name);
            }
        }
    }

    /// Frees, between operations and in no record, a buffer allocated outside or a tensor's.
    pub fn outside_free(&mut self, name: &str) {
        if let Some((device, buffer_type, address)) = self.outside.remove(name) {
            self.devices[device as usize].allocator(buffer_type).free(address);
            return;
        }
        let i = self.tensors.iter().rposition(|t| t.name == name && t.live).expect("a live tensor");
        let next = self.ops.len() as u64 + 1;
        let t = &mut self.tensors[i];
        t.live = false;
        t.freed_at = Some(next);
        let (device, buffer_type, address) = (t.device, t.buffer_type, t.address);
        self.devices[device as usize].allocator(buffer_type).free(address);
    }
}
