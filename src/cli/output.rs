//! Output that cannot lie or panic: paths in JSON without loss, and a report that says the
//! write is done when only printing the result failed (exit statuses: [`super::error`]).

use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use base64::Engine as _;
use serde_json::{Value, json};

use super::error::{CliError, msg};

/// A path in JSON: a string when it is UTF-8, otherwise an object
/// `{"lossy": "<the name with U+FFFD for bad bytes>", "bytesBase64": "<the raw bytes>"}`,
/// so every path is represented exactly and JSON output never fails on a file name.
pub fn path_json(p: &Path) -> Value {
    match p.to_str() {
        Some(s) => Value::String(s.to_owned()),
        None => json!({
            "lossy": p.to_string_lossy(),
            "bytesBase64": base64::engine::general_purpose::STANDARD.encode(p.as_os_str().as_bytes()),
        }),
    }
}

/// A list of paths as [`path_json`] values.
pub fn paths_json<'a>(paths: impl IntoIterator<Item = &'a std::path::PathBuf>) -> Value {
    Value::Array(paths.into_iter().map(|p| path_json(p)).collect())
}

/// `serialize_with` for a path field: the form of [`path_json`].
pub fn serialize_path<S: serde::Serializer>(p: &&Path, s: S) -> Result<S::Ok, S::Error> {
    match p.to_str() {
        Some(text) => s.serialize_str(text),
        None => serde::Serialize::serialize(&path_json(p), s),
    }
}

/// Prints the report of a change that is already made. A failure to print becomes
/// [`CliError::DoneButOutputFailed`], which says the change is done.
pub fn report_done(out: &mut dyn Write, done: &str, report: &str) -> Result<(), CliError> {
    writeln!(out, "{report}")
        .and_then(|()| out.flush())
        .map_err(|source| CliError::DoneButOutputFailed {
            done: done.to_owned(),
            source,
        })
}

/// Says on stderr what another writer did meanwhile and what grove did about it.
pub fn print_note(note: Option<&str>) {
    if let Some(n) = note {
        let _ = writeln!(
            io::stderr().lock(),
            "grove: note: {}",
            crate::text::sanitize::sanitize_line(n)
        );
    }
}

/// Loads a session to write to it: a file that is not a session (no header) is refused with
/// why, naming what a link points to, rather than "no entry".
pub fn load_for_write(path: &Path) -> Result<crate::model::tree::Session, CliError> {
    let s = crate::storage::read::load_session(path)?;
    if s.parsed.header.is_some() {
        return Ok(s);
    }
    let shown = crate::text::sanitize::sanitize_path(&path.to_string_lossy()).into_owned();
    Err(match std::fs::read_link(path) {
        Ok(target) => msg(format!(
            "{shown}: a link to {}, which is not a session file (no session header on its first line); nothing was written",
            crate::text::sanitize::sanitize_path(&target.to_string_lossy())
        )),
        Err(_) => msg(format!(
            "{shown}: not a session file (no session header on its first line); nothing was written"
        )),
    })
}

pub fn shown_path(p: &Path) -> String {
    crate::text::sanitize::sanitize_path(&p.to_string_lossy()).into_owned()
}

/// The home folder, shown as `~` at the start of paths.
pub fn home_dir() -> Option<String> {
    directories::BaseDirs::new().map(|d| d.home_dir().to_string_lossy().into_owned())
}
