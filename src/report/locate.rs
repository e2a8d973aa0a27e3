//! Finding the report to open: a folder, a database file, TT-NN's default report root, or the
//! embedded demo; and the report's display name from its config file.

use super::error::ReportError;
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
    locate_report(argument).map(|found| found.source)
}

/// A report found for a `REPORT` argument, with the folder it was chosen in when it is the newest
/// of the report folders there (no argument: TT-NN's default root; or a folder of reports).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The report.
    pub source: ReportSource,
    /// The folder it is the newest report of, when it was chosen among others.
    pub newest_in: Option<PathBuf>,
}

impl Located {
    /// The line that says which report was chosen, e.g. `note: opening the newest report in
    /// generated/ttnn/reports: resnet_nov29_1000`; none for a report named directly.
    pub fn note(&self) -> Option<String> {
        let (Some(root), ReportSource::File { folder, database }) = (&self.newest_in, &self.source) else {
            return None;
        };
        let root = crate::analysis::sanitize::sanitize_line(&root.display().to_string());
        Some(format!("note: opening the newest report in {root}: {}", folder_name(folder, database)))
    }
}

/// Resolves a `REPORT` argument as [`resolve_report`] does, saying whether the report was the
/// newest of a folder's report folders. A folder without `db.sqlite` that holds report folders
/// (`generated/ttnn/reports`) opens the newest of them, as no argument does.
pub fn locate_report(argument: Option<&Path>) -> Result<Located, ReportError> {
    let Some(path) = argument else {
        let root = Path::new(DEFAULT_REPORT_ROOT);
        return Ok(Located { source: newest_report(root)?, newest_in: Some(root.to_path_buf()) });
    };
    let metadata = super::error::path_metadata(path)?;
    if !metadata.is_dir() {
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        return Ok(Located { source: ReportSource::File { database: path.to_path_buf(), folder }, newest_in: None });
    }
    let database = path.join(DATABASE);
    if database.is_file() {
        return Ok(Located { source: ReportSource::File { database, folder: path.to_path_buf() }, newest_in: None });
    }
    match newest_report_folder(path) {
        Some(folder) => Ok(Located {
            source: ReportSource::File { database: folder.join(DATABASE), folder },
            newest_in: Some(path.to_path_buf()),
        }),
        None => Err(ReportError::new("no db.sqlite in this folder, nor a report folder", path)
            .hint("pass a TT-NN report folder or its db.sqlite, or try --demo")),
    }
}

/// A report's database file name.
pub(crate) const DATABASE: &str = "db.sqlite";

/// The newest report (by its database's modification time) among the folders of `root`.
pub(crate) fn newest_report(root: &Path) -> Result<ReportSource, ReportError> {
    let none = || {
        ReportError::new("no report given and none found", root)
            .hint("pass a report folder or db.sqlite, e.g. `ttnn-tui generated/ttnn/reports/<name>`, or run `ttnn-tui --demo`")
    };
    let folder = newest_report_folder(root).ok_or_else(none)?;
    Ok(ReportSource::File { database: folder.join(DATABASE), folder })
}

/// The newest folder (by its database's modification time) holding a `db.sqlite` in `root`.
pub(crate) fn newest_report_folder(root: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(root).ok()?;
    let newest = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join(DATABASE).is_file())
        .filter_map(|p| {
            let modified = std::fs::metadata(p.join(DATABASE)).and_then(|m| m.modified()).ok()?;
            Some((modified, p))
        })
        .max();
    newest.map(|(_, folder)| folder)
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
