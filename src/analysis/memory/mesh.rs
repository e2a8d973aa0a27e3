//! A mesh is one device in the report (docs/rules/memory.md §2): its shape, named by the failed operation's
//! tensor arguments (`mesh_shape=MeshShape([1, 2])`), says how many chips the failure holds on;
//! another mesh device with live buffers at the failure may share those chips.

use super::inputs::{DeviceFacts, FailureInputs, TensorFacts};
use crate::analysis::messages::failure::BufferType;
use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

/// `mesh_shape=MeshShape([1, 2])` in a printed `ttnn.Tensor`.
static MESH_SHAPE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"mesh_shape=MeshShape\(\[([0-9, ]+)\]\)").expect("the mesh pattern is valid"));

/// The shape of the mesh a failure happened on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshShape {
    /// Its extent along each dimension: `[rows, cols]`.
    pub dims: Vec<u64>,
}

impl MeshShape {
    /// How many chips it spans.
    pub fn chips(&self) -> u64 {
        self.dims.iter().product()
    }

    /// `1×2`.
    pub fn text(&self) -> String {
        self.dims.iter().map(u64::to_string).collect::<Vec<_>>().join("×")
    }
}

/// The mesh shape the first argument naming one gives (the failed operation's tensor
/// arguments); none when none does, or the shape is empty or has a zero.
pub fn mesh_shape<'a>(arguments: impl IntoIterator<Item = &'a str>) -> Option<MeshShape> {
    arguments.into_iter().find_map(|value| {
        let captures = MESH_SHAPE.captures(value)?;
        let dims: Option<Vec<u64>> = captures[1].split(',').map(|d| d.trim().parse().ok()).collect();
        dims.filter(|d| !d.is_empty() && d.iter().all(|&x| x > 0)).map(|dims| MeshShape { dims })
    })
}

/// The other devices with valid `buffers` rows in the snapshot the picture of a failure on
/// `device` rests on (N's own, else S0): other mesh devices with live buffers at the failure.
pub(crate) fn other_devices_with_buffers(inputs: &FailureInputs, device: u64) -> Vec<u64> {
    let rows = match inputs.own_snapshot.iter().any(|r| r.device_id == device) {
        true => &*inputs.own_snapshot,
        false => match &inputs.earlier_snapshot {
            Some(s) => &s.rows,
            None => return Vec::new(),
        },
    };
    let mut others: Vec<u64> =
        rows.iter().filter(|r| r.device_id != device && r.valid().is_some()).map(|r| r.device_id).collect();
    others.sort_unstable();
    others.dedup();
    others
}

/// Whether a report's `devices` rows are one chip's (docs/rules/memory.md §2: a single chip opened as a
/// mesh may leave two alike rows, 0 and 1): none or one row, or two with the same L1 geometry.
pub(crate) fn one_chip(devices: &[DeviceFacts]) -> bool {
    let geometry = |d: &DeviceFacts| (d.l1_start, d.l1_bank_size, d.worker_l1_size, d.l1_num_banks);
    match devices {
        [] | [_] => true,
        [a, b] => geometry(a) == geometry(b),
        _ => false,
    }
}

/// One chip named by two ids (docs/rules/memory.md §2), the one rule: the other id a single chip
/// opened as a mesh (ttnn 0.81) names `device` by — 1 for 0 and 0 for 1 — when the report's
/// `devices` rows are one chip's ([`one_chip`]) and no other id holds buffers in what was read
/// beside `device` (`others`: then the ids are two mesh devices); none otherwise.
pub(crate) fn chip_alias(devices: &[DeviceFacts], device: u64, others: &[u64]) -> Option<u64> {
    let other = match device {
        0 => 1,
        1 => 0,
        _ => return None,
    };
    (one_chip(devices) && others.is_empty()).then_some(other)
}

/// The `devices` row a device is read by: its own, else on a report whose rows are one chip's
/// ([`one_chip`]: a single chip opened as a mesh names itself by an id without a row) the first.
pub(crate) fn chip_row(devices: &[DeviceFacts], device: u64) -> Option<&DeviceFacts> {
    devices.iter().find(|d| d.device_id == device).or_else(|| devices.first().filter(|_| one_chip(devices)))
}

/// The ids other than `device` among the places (device, buffer type) of the rows read.
pub(crate) fn other_ids(places: &[(u64, BufferType)], device: u64) -> Vec<u64> {
    places.iter().map(|(d, _)| *d).filter(|&d| d != device).collect()
}

/// A single chip opened as a mesh names itself by 0 and by 1, and a tensor's placement may carry
/// the chip id while the snapshot carries the mesh id (a tensor whose `tensors.address` is NULL,
/// its place only in `device_tensors`: embedding outputs): on such a report ([`chip_alias`], no
/// other id among `places`), placements on the other id are read as `device`'s.
pub(crate) fn tensors_on_the_chip<'a>(
    tensors: &'a [TensorFacts],
    places: &[(u64, BufferType)],
    devices: &[DeviceFacts],
    device: u64,
) -> Cow<'a, [TensorFacts]> {
    let Some(other) = chip_alias(devices, device, &other_ids(places, device)) else { return Cow::Borrowed(tensors) };
    // Copied only when some placement is on the other id (a failure may look at 150 000 tensors).
    if !tensors.iter().any(|t| t.device_addresses.iter().any(|(d, _)| *d == other)) {
        return Cow::Borrowed(tensors);
    }
    let mut read = tensors.to_vec();
    for t in &mut read {
        for (d, _) in &mut t.device_addresses {
            if *d == other {
                *d = device;
            }
        }
    }
    Cow::Owned(read)
}

/// Whether the device read is a single chip as the user's script knows it (issue 30 §4.5): the
/// device has another id by [`chip_alias`] (`others_with_buffers`: the other ids holding buffers
/// in what was read).
pub(crate) fn single_chip(devices: &[DeviceFacts], device: u64, others_with_buffers: &[u64]) -> bool {
    chip_alias(devices, device, others_with_buffers).is_some()
}

/// Whether a report's figures, on the devices `ids`, are one chip's: the single id they name is
/// a single chip's ([`single_chip`]: the others are the figures' other ids); with no figures at
/// all, whether its `devices` rows are one chip's.
pub(crate) fn figures_on_one_chip(devices: &[DeviceFacts], ids: impl Iterator<Item = u64>) -> bool {
    let mut ids: Vec<u64> = ids.collect();
    ids.sort_unstable();
    ids.dedup();
    match ids.split_first() {
        None => one_chip(devices),
        Some((device, others)) => single_chip(devices, *device, others),
    }
}

/// The id text names a device by: 0 for a single chip (the id the user's script opened it
/// with), whatever id the tables give it; the tables' id otherwise.
pub(crate) fn named_device(device: u64, single_chip: bool) -> u64 {
    if single_chip { 0 } else { device }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::memory::{EarlierSnapshot, SnapshotRow};

    #[test]
    fn one_chip_is_one_row_or_two_alike() {
        let wormhole = |id| DeviceFacts {
            device_id: id,
            l1_start: Some(105_824),
            l1_bank_size: 1_393_312,
            worker_l1_size: 1_499_136,
            l1_num_banks: 64,
        };
        let other = DeviceFacts { l1_num_banks: 56, ..wormhole(1) };
        assert!(one_chip(&[]) && one_chip(&[wormhole(0)]) && one_chip(&[wormhole(0), wormhole(1)]));
        assert!(!one_chip(&[wormhole(0), other]));
        assert!(!one_chip(&[wormhole(0), wormhole(1), wormhole(2)]));
    }

    /// One rule for one chip named by two ids (docs/rules/memory.md §2): 0 and 1 only, one chip's
    /// rows, and no other id holding buffers beside it; every caller says only what it read.
    #[test]
    fn one_chip_named_by_two_ids_is_one_rule() {
        let chip = |id| DeviceFacts {
            device_id: id,
            l1_start: Some(105_824),
            l1_bank_size: 1_393_312,
            worker_l1_size: 1_499_136,
            l1_num_banks: 64,
        };
        let one = [chip(0), chip(1)];
        assert_eq!(
            (chip_alias(&one, 0, &[]), chip_alias(&one, 1, &[]), chip_alias(&one, 2, &[])),
            (Some(1), Some(0), None)
        );
        assert_eq!(chip_alias(&one, 0, &[1]), None);
        assert_eq!(chip_alias(&[chip(0), chip(1), chip(2)], 0, &[]), None);
        let places = [(0, BufferType::L1), (0, BufferType::Dram)];
        assert_eq!(other_ids(&places, 0), Vec::<u64>::new());
        assert_eq!(other_ids(&[(0, BufferType::L1), (1, BufferType::L1)], 0), vec![1]);
        assert!(single_chip(&one, 1, &[]) && !single_chip(&one, 1, &[0]));
        // Figures on one id are a single chip's; on two ids, two devices; on none, the rows say.
        assert!(figures_on_one_chip(&one, [1, 1].into_iter()));
        assert!(!figures_on_one_chip(&one, [0, 1].into_iter()));
        assert!(!figures_on_one_chip(&one, [2].into_iter()));
        assert!(figures_on_one_chip(&one, std::iter::empty()));
        assert!(!figures_on_one_chip(&[chip(0), DeviceFacts { l1_num_banks: 56, ..chip(1) }], std::iter::empty()));
    }

    #[test]
    fn the_shape_of_the_first_tensor_argument_that_names_one() {
        let add = "ttnn.Tensor(shape=Shape([1, 1, 2048, 2048]), storage_type=StorageType.DEVICE, tensor_id=2, device_id=2, mesh_shape=MeshShape([1, 2]), mesh_coords=['MeshCoordinate([0, 0])', 'MeshCoordinate([0, 1])'])";
        let shape = mesh_shape(["MemoryConfig(…)", add]).unwrap();
        assert_eq!((shape.dims.clone(), shape.chips(), shape.text()), (vec![1, 2], 2, "1×2".to_string()));
        assert_eq!(mesh_shape(["mesh_shape=MeshShape([2, 4])"]).unwrap().chips(), 8);
        assert_eq!(mesh_shape(["MeshDevice(1x1 grid, 1 devices)", "[1, 1, 32, 32]"]), None);
        assert_eq!(mesh_shape(["mesh_shape=MeshShape([0, 2])", "mesh_shape=MeshShape([])"]), None);
    }

    #[test]
    fn other_devices_with_buffers_in_the_snapshot_used() {
        let row = |device_id, address| SnapshotRow {
            device_id,
            address: Some(address),
            size_per_bank: Some(64),
            ..SnapshotRow::default()
        };
        let earlier = EarlierSnapshot { operation_id: 3, rows: vec![row(2, 1024), row(0, 2048), row(1, 0)] };
        let inputs = FailureInputs { earlier_snapshot: Some(earlier), ..FailureInputs::default() };
        // Device 1's only row is set aside (address 0).
        assert_eq!(other_devices_with_buffers(&inputs, 2), vec![0]);
        let own = FailureInputs { own_snapshot: vec![row(2, 1024)].into(), ..inputs };
        assert_eq!(other_devices_with_buffers(&own, 2), Vec::<u64>::new());
    }
}
