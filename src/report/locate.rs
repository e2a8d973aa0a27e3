//! Finding the report to open: a folder, a database file, TT-NN's default report root, or the
//! embedded demo; and the report's display name from its config file.

use super::ReportError;
use std::path::{Path, PathBuf};

/// TT-NN's default report root, relative to the run's working directory.
pub(crate) const DEFAULT_REPORT_ROOT: &str = "generated/ttnn/reports";

/// Where a memory report comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportSource {
    /// A `db.sqlite` on disk, with its report folder.
    File {
        /// The database file.
        database: PathBuf,
        /// The folder holding it (and `config.json`).
        folder: PathBuf,
    },
    /// The demo report embedded in the binary.
    Demo,
}

impl ReportSource {
    /// The path shown to the user: the database file, or `demo`.
    pub fn display_path(&self) -> String {
        match self {
            Self::File { database, .. } => database.display().to_string(),
            Self::Demo => "demo".to_string(),
        }
    }
}

/// Resolves a `REPORT` argument, or the newest report under `./generated/ttnn/reports/` when none.
pub fn resolve_report(argument: Option<&Path>) -> Result<ReportSource, ReportError> {
    match argument {
        Some(path) => resolve_path(path),
        None => newest_report(Path::new(DEFAULT_REPORT_ROOT)),
    }
}

fn resolve_path(path: &Path) -> Result<ReportSource, ReportError> {
    let metadata = super::path_metadata(path)?;
    if metadata.is_dir() {
        let database = path.join("db.sqlite");
        if !database.is_file() {
            return Err(ReportError::new("no db.sqlite in this folder", path)
                .hint("pass a TT-NN report folder or its db.sqlite, or try --demo"));
        }
        return Ok(ReportSource::File { database, folder: path.to_path_buf() });
    }
    let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok(ReportSource::File { database: path.to_path_buf(), folder })
}

/// The newest folder (by modification time) holding a `db.sqlite` under `root`.
pub(crate) fn newest_report(root: &Path) -> Result<ReportSource, ReportError> {
    let none = || {
        ReportError::new("no report given and none found", root)
            .hint("pass a report folder or db.sqlite, e.g. `ttnn-tui generated/ttnn/reports/<name>`, or run `ttnn-tui --demo`")
    };
    let entries = std::fs::read_dir(root).map_err(|_| none())?;
    let newest = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("db.sqlite").is_file())
        .filter_map(|p| {
            let modified = std::fs::metadata(p.join("db.sqlite")).and_then(|m| m.modified()).ok()?;
            Some((modified, p))
        })
        .max();
    let (_, folder) = newest.ok_or_else(none)?;
    Ok(ReportSource::File { database: folder.join("db.sqlite"), folder })
}

/// The report's name: `report_name` from `config.json`, else from the rank's
/// `config_{rank+1}_of_{world}.json`; none when neither gives one.
pub(crate) fn report_name_from_folder(folder: &Path, rank: u32) -> Option<String> {
    let plain = folder.join("config.json");
    let config = if plain.is_file() {
        Some(plain)
    } else {
        let prefix = format!("config_{}_of_", rank + 1);
        std::fs::read_dir(folder).ok()?.filter_map(Result::ok).map(|e| e.path()).find(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.strip_prefix(&prefix)
                    .and_then(|rest| rest.strip_suffix(".json"))
                    .is_some_and(|world| !world.is_empty() && world.bytes().all(|b| b.is_ascii_digit()))
            })
        })
    }?;
    report_name_from_config(&std::fs::read_to_string(config).ok()?)
}

/// `report_name` of a config file's JSON text.
pub(crate) fn report_name_from_config(json: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    let name = value.get("report_name")?.as_str()?;
    (!name.trim().is_empty()).then(|| crate::analysis::sanitize::sanitize_line(name))
}

/// The display name of a report without a config name: its folder's name, else its file's.
pub(crate) fn folder_name(folder: &Path, database: &Path) -> String {
    let name = folder.file_name().or_else(|| database.file_name()).map(|n| n.to_string_lossy().into_owned());
    crate::analysis::sanitize::sanitize_line(&name.unwrap_or_else(|| database.display().to_string()))
}
