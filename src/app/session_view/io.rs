//! The session view's only I/O: loading a session into a view, and the writes its effects ask
//! for (labels, check-outs, forks, exports). Safe to run on a worker thread.

use std::path::{Path, PathBuf};

use ratatui::layout::Rect;

use crate::model::context::Dialect;

use super::state::SessionViewState;
use super::types::{ExportFailure, Outcome, ViewEffect};

impl SessionViewState {
    /// Loads a session and lays out its view (tree rows, the first transcript): the slow part
    /// of opening a large session, run off the UI thread.
    pub fn open(
        path: &std::path::Path,
        agent: Dialect,
        viewport: Rect,
        home: Option<String>,
    ) -> Result<Box<SessionViewState>, String> {
        let session = crate::storage::read::load_session(path).map_err(|e| e.to_string())?;
        let view = SessionViewState::new(path.to_owned(), session, agent, viewport).with_home(home);
        Ok(Box::new(view))
    }
}

/// Performs a file-writing effect (the only I/O of the view); `None` for effects the loop
/// handles itself (resume, close, notifications). Safe to run on a worker thread.
pub fn execute(effect: &ViewEffect) -> Option<Outcome> {
    execute_pinned(effect, None)
}

/// [`execute`], writing labels and check-outs only if the file and its folder are still those
/// pinned in `pin` when the view was opened.
pub fn execute_pinned(
    effect: &ViewEffect,
    pin: Option<&crate::storage::safe_fs::Pin>,
) -> Option<Outcome> {
    use crate::storage::append::{NewEntry, OsSink, append_entry_full, now_ms};
    let append_entry =
        |path: &Path, entry| append_entry_full(path, entry, &mut OsSink, now_ms(), pin);
    use crate::storage::fork::fork_session;
    use crate::storage::read::load_session;
    let reload = |path: &Path| load_session(path).map_err(|e| e.to_string());
    match effect {
        ViewEffect::AppendLabel {
            path,
            target_id,
            label,
        } => Some(Outcome::Labeled(
            append_entry(
                path,
                NewEntry::Label {
                    target_id: target_id.clone(),
                    label: label.clone(),
                },
            )
            .map_err(|e| e.to_string())
            .and_then(|_| reload(path)),
        )),
        ViewEffect::Checkout { path, target_id } => Some(Outcome::CheckedOut(
            append_entry(
                path,
                NewEntry::Checkout {
                    target_id: target_id.clone(),
                },
            )
            .map_err(|e| e.to_string())
            .and_then(|_| reload(path)),
        )),
        ViewEffect::Fork { path, at_id } => Some(Outcome::Forked(
            fork_session(path, Some(at_id))
                .map(|f| f.path)
                .map_err(|e| e.to_string()),
        )),
        ViewEffect::Export {
            file,
            contents,
            overwrite,
        } => Some(Outcome::Exported(write_export(file, contents, *overwrite))),
        _ => None,
    }
}

/// Writes an export; refuses to replace an existing file unless `overwrite`.
pub fn write_export(
    file: &Path,
    contents: &str,
    overwrite: bool,
) -> Result<PathBuf, ExportFailure> {
    // Whole or not at all, as `grove export -o` (see `storage::safe_fs`).
    let mut fill = |w: &mut dyn std::io::Write| w.write_all(contents.as_bytes());
    let result = if overwrite {
        crate::storage::safe_fs::replace_file(file, &mut fill)
    } else {
        crate::storage::safe_fs::write_new_file(file, &mut fill)
    };
    match result {
        // The full path, for the report.
        Ok(()) => Ok(std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf())),
        Err(e) if e.source.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(ExportFailure::Exists(file.to_path_buf()))
        }
        Err(e) => Err(ExportFailure::Other(format!(
            "{}: {}",
            file.display(),
            e.source
        ))),
    }
}
