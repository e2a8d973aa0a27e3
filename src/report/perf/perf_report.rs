//! The device performance report: a profiler report folder or an `ops_perf_results*.csv` file,
//! with the device log's first line when present (docs/rules/reference.md §8.1, docs/rules/formats.md §4.1, §4.6).

use super::perf_csv::{ParsedCsv, PerfData, check_header, parse_csv};
use crate::analysis::perf::flags::max_cores;
use crate::analysis::perf::report_rows::{PerfRow, RowOptions, build_rows, device_count};
use crate::analysis::sanitize::sanitize_line;
use crate::report::error::ReportError;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The profiler's default report root, relative to the run's working directory.
pub(crate) const DEFAULT_PERF_ROOT: &str = "generated/profiler/reports";

/// The device log next to the ops CSV.
pub(crate) const DEVICE_LOG: &str = "profile_log_device.csv";

/// The embedded demo performance report's label (`fixtures/demo-perf/`).
pub const DEMO_PERF_PATH: &str = "demo-perf/ops_perf_results_2026_11_29_10_12_00.csv";
/// The embedded demo performance report: the same run as the demo memory report.
static DEMO_CSV: &[u8] = include_bytes!("../../../fixtures/demo-perf/ops_perf_results_2026_11_29_10_12_00.csv");
/// The embedded demo report's device log.
static DEMO_DEVICE_LOG: &str = include_str!("../../../fixtures/demo-perf/profile_log_device.csv");

/// The first line of `profile_log_device.csv`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DeviceLog {
    /// `ARCH`, e.g. `wormhole_b0`.
    pub arch: Option<String>,
    /// `CHIP_FREQ[MHz]`.
    pub(crate) chip_freq_mhz: Option<f64>,
    /// `Max Compute Cores` (newer files).
    pub max_compute_cores: Option<u64>,
}

impl DeviceLog {
    /// Parses `ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000, Max Compute Cores: 64`.
    pub fn parse(first_line: &str) -> Self {
        let mut log = Self::default();
        for part in first_line.split(',') {
            let Some((key, value)) = part.split_once(':') else { continue };
            let value = value.trim();
            match key.trim() {
                "ARCH" if !value.is_empty() => log.arch = Some(sanitize_line(value)),
                "CHIP_FREQ[MHz]" => log.chip_freq_mhz = value.parse().ok(),
                "Max Compute Cores" => log.max_compute_cores = value.parse().ok(),
                _ => {}
            }
        }
        log
    }
}

/// An opened performance report.
#[derive(Debug, Clone, PartialEq)]
pub struct PerfReport {
    /// The CSV read.
    pub path: PathBuf,
    /// The device log, when the folder has one.
    pub device_log: Option<DeviceLog>,
    /// The parsed rows.
    pub data: PerfData,
    /// Data rows in the CSV.
    pub data_rows: usize,
    /// Data rows with missing or extra cells (tolerated).
    pub ragged_rows: usize,
}

impl PerfReport {
    /// Opens a profiler report folder (the newest `ops_perf_results*.csv` in it) or a CSV file.
    pub fn open(path: &Path) -> Result<Self, ReportError> {
        let (csv, folder) = locate_csv(path)?;
        let file = File::open(&csv).map_err(|e| ReportError::new(format!("cannot read ({e})"), &csv))?;
        let parsed = parse_csv(file, &csv)?;
        Ok(Self::from_parsed(csv, read_device_log(&folder), parsed))
    }

    /// Checks what can be checked without reading the rows: the CSV is there, readable, and its
    /// header is a perf report's. Returns the CSV's path.
    pub fn check(path: &Path) -> Result<PathBuf, ReportError> {
        let (csv, _) = locate_csv(path)?;
        let file = File::open(&csv).map_err(|e| ReportError::new(format!("cannot read ({e})"), &csv))?;
        check_header(file, &csv)?;
        Ok(csv)
    }

    /// Reads a CSV held in memory (the embedded demo); `label` names it.
    pub fn from_bytes(bytes: &[u8], label: &Path, device_log: Option<DeviceLog>) -> Result<Self, ReportError> {
        Ok(Self::from_parsed(label.to_path_buf(), device_log, parse_csv(bytes, label)?))
    }

    /// The demo performance report embedded in the binary, which links with the demo memory report.
    pub fn demo() -> Result<Self, ReportError> {
        let log = DeviceLog::parse(DEMO_DEVICE_LOG.lines().next().unwrap_or(""));
        Self::from_bytes(DEMO_CSV, Path::new(DEMO_PERF_PATH), Some(log))
    }

    fn from_parsed(path: PathBuf, device_log: Option<DeviceLog>, parsed: ParsedCsv) -> Self {
        Self { path, device_log, data: parsed.data, data_rows: parsed.data_rows, ragged_rows: parsed.ragged_rows }
    }

    /// True for a tt-perf-report output (analytic columns present, devices already merged).
    pub fn is_analysed(&self) -> bool {
        matches!(self.data, PerfData::Analysed(_))
    }

    /// The visible rows: merged (the link view) or per device. A tt-perf-report output is
    /// already merged, so both give its rows.
    pub fn rows(&self, merge_devices: bool) -> Vec<PerfRow> {
        match &self.data {
            PerfData::Raw { records, has_host_start } => {
                build_rows(records, RowOptions { merge_devices, sort_by_host_start: *has_host_start })
            }
            PerfData::Analysed(rows) => rows.clone(),
        }
    }

    /// Distinct device ids in the CSV.
    pub fn device_count(&self) -> usize {
        match &self.data {
            PerfData::Raw { records, .. } => device_count(records),
            PerfData::Analysed(rows) => {
                let mut ids: Vec<u64> = rows.iter().filter_map(|r| r.device).collect();
                ids.sort_unstable();
                ids.dedup();
                ids.len()
            }
        }
    }

    /// True when a per-device view differs from the merged one.
    pub fn has_per_device_view(&self) -> bool {
        !self.is_analysed() && self.device_count() > 1
    }

    /// maxCores for the flags, from the device log or the architecture and the rows.
    pub fn max_cores(&self, rows: &[PerfRow]) -> u64 {
        let log = self.device_log.as_ref();
        max_cores(log.and_then(|l| l.max_compute_cores), log.and_then(|l| l.arch.as_deref()), rows)
    }
}

/// The CSV a path names (the newest `ops_perf_results*.csv` of a folder, or the file itself) and
/// the folder its device log would be in.
fn locate_csv(path: &Path) -> Result<(PathBuf, PathBuf), ReportError> {
    let metadata = crate::report::error::path_metadata(path)?;
    if metadata.is_dir() {
        // A folder that cannot be listed says so, rather than seeming to hold no CSV.
        std::fs::read_dir(path).map_err(|e| ReportError::new(format!("cannot read the folder ({e})"), path))?;
        let csv = newest_ops_csv(path).ok_or_else(|| {
            ReportError::new("no ops_perf_results*.csv in this folder", path)
                .hint("pass a profiler report folder (generated/profiler/reports/<date>) or its CSV")
        })?;
        Ok((csv, path.to_path_buf()))
    } else {
        Ok((path.to_path_buf(), path.parent().map(Path::to_path_buf).unwrap_or_default()))
    }
}

/// A performance report to open: a path (folder or CSV), or the demo one in the binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PerfSource {
    /// A profiler report folder or a CSV.
    Path(PathBuf),
    /// The embedded demo performance report.
    Demo,
}

impl PerfSource {
    /// Reads the report.
    pub fn open(&self) -> Result<PerfReport, ReportError> {
        match self {
            Self::Path(path) => PerfReport::open(path),
            Self::Demo => PerfReport::demo(),
        }
    }

    /// The CSV's file name, as shown while it is read.
    pub fn file_name(&self) -> String {
        let path = match self {
            Self::Path(path) => locate_csv(path).map(|(csv, _)| csv).unwrap_or_else(|_| path.clone()),
            Self::Demo => PathBuf::from(DEMO_PERF_PATH),
        };
        file_name_of(&path)
    }
}

/// A path's file name as shown, sanitised.
pub(crate) fn file_name_of(path: &Path) -> String {
    path.file_name().map(|n| sanitize_line(&n.to_string_lossy())).unwrap_or_default()
}

/// The device log's first line in a folder, when the file exists.
pub(crate) fn read_device_log(folder: &Path) -> Option<DeviceLog> {
    let text = std::fs::read(folder.join(DEVICE_LOG)).ok()?;
    let text = String::from_utf8_lossy(&text);
    Some(DeviceLog::parse(text.lines().next().unwrap_or("")))
}

/// True for `ops_perf_results.csv` and `ops_perf_results_*.csv`.
pub(crate) fn is_ops_csv_name(name: &str) -> bool {
    name == "ops_perf_results.csv" || (name.starts_with("ops_perf_results_") && name.ends_with(".csv"))
}

/// A file's change time (ctime on Unix), else its modification time.
fn change_time(path: &Path) -> Option<SystemTime> {
    let metadata = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let seconds = u64::try_from(metadata.ctime()).ok()?;
        let nanos = u32::try_from(metadata.ctime_nsec()).ok()?;
        Some(SystemTime::UNIX_EPOCH + std::time::Duration::new(seconds, nanos))
    }
    #[cfg(not(unix))]
    {
        metadata.modified().ok()
    }
}

/// The newest ops CSV of a folder by change time, with that time.
fn newest_ops_csv_with_time(folder: &Path) -> Option<(SystemTime, PathBuf)> {
    std::fs::read_dir(folder)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_name().and_then(|n| n.to_str()).is_some_and(is_ops_csv_name))
        .filter_map(|p| Some((change_time(&p)?, p)))
        .max()
}

/// The newest `ops_perf_results.csv` / `ops_perf_results_*.csv` of a folder by change time.
pub fn newest_ops_csv(folder: &Path) -> Option<PathBuf> {
    newest_ops_csv_with_time(folder).map(|(_, p)| p)
}

/// The newest report folder under `root` (its folders, and their folders for the
/// `<name>/<date>/` layout), judged by its newest ops CSV.
pub fn newest_perf_folder(root: &Path) -> Option<PathBuf> {
    let children = || -> Vec<PathBuf> {
        std::fs::read_dir(root)
            .map(|d| d.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()).collect())
            .unwrap_or_default()
    };
    let mut candidates = Vec::new();
    for child in children() {
        candidates.push(child.clone());
        if let Ok(entries) = std::fs::read_dir(&child) {
            candidates.extend(entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()));
        }
    }
    candidates.into_iter().filter_map(|f| Some((newest_ops_csv_with_time(&f)?.0, f))).max().map(|(_, f)| f)
}

/// The perf report to open when neither REPORT nor `--perf` was given: the newest report folder
/// under `./generated/profiler/reports/`, when there is one. Linking decides whether it belongs
/// to the memory report.
pub fn default_perf_report() -> Option<PathBuf> {
    newest_perf_folder(Path::new(DEFAULT_PERF_ROOT))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_log_first_line() {
        let log = DeviceLog::parse("ARCH: blackhole, CHIP_FREQ[MHz]: 1350, Max Compute Cores: 130");
        assert_eq!(log.arch.as_deref(), Some("blackhole"));
        assert_eq!(log.chip_freq_mhz, Some(1350.0));
        assert_eq!(log.max_compute_cores, Some(130));
        let old = DeviceLog::parse("ARCH: wormhole_b0, CHIP_FREQ[MHz]: 1000");
        assert_eq!(old.max_compute_cores, None);
        assert_eq!(DeviceLog::parse("garbage"), DeviceLog::default());
    }

    #[test]
    fn ops_csv_names() {
        assert!(is_ops_csv_name("ops_perf_results.csv"));
        assert!(is_ops_csv_name("ops_perf_results_2025_09_18_11_39_20.csv"));
        assert!(!is_ops_csv_name("ops_perf_results_2025.csv.bak"));
        assert!(!is_ops_csv_name("ops_perf_results.tsv"));
        assert!(!is_ops_csv_name("profile_log_device.csv"));
    }
}
