//! `grove export`: a branch as Markdown, JSONL or a self-contained HTML page, to standard
//! output or to a new file.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::json;

use super::args::GlobalArgs;
use super::error::{CliError, msg};
use super::json::{escape_inert, to_json};
use super::output::{path_json, report_done, shown_path};
use super::resolve::{leaf_choice, load_for_display, resolve_session};
use crate::model::context::build_context;
use crate::model::export;
use crate::storage::read::detect_agent;
use crate::storage::roots::SessionRoot;
use crate::text::count::counted_s;

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ExportFormat {
    /// Markdown.
    Md,
    /// The branch's lines: a session file pi and Atomic can read.
    Jsonl,
    /// A self-contained page: tree sidebar, filters, search, the rendered branch.
    Html,
}

/// `grove export`'s examples.
pub const EXAMPLES: &str = "\
Examples:
  grove export 01973299 > chat.md                  the current branch as Markdown
  grove export 01973299 --format html -o chat.html a page to open in a browser
  grove export 01973299 --leaf a1b2c3d4 --format jsonl -o branch.jsonl
  grove export 01973299 -o chat.md --force         replace chat.md if it exists";

/// `grove export`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct ExportArgs {
    /// The session: an id or unique id prefix, an exact name, or the path of its file.
    pub session: String,
    /// Export the branch ending at this entry (id or unique id prefix) instead of the leaf's.
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
    /// The format: md (Markdown), jsonl (the branch's lines, a session pi can read) or html.
    #[arg(long, value_enum, default_value = "md")]
    pub format: ExportFormat,
    /// Write to this new file instead of standard output (an existing file is refused
    /// unless --force).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// With --output: replace the file if it exists (whole or not at all; never a session
    /// file).
    #[arg(long, requires = "output")]
    pub force: bool,
    /// With --output: print JSON (`{written: PATH}`) instead of a sentence.
    #[arg(long, requires = "output")]
    pub json: bool,
}

/// `grove export`.
pub fn run(
    global: &GlobalArgs,
    roots: &[SessionRoot],
    args: ExportArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let ExportArgs {
        session,
        leaf,
        format,
        output,
        force,
        json,
    } = args;
    let (path, agent) = resolve_session(roots, &session, global.skip_cache())?;
    let s = load_for_display(&path)?;
    let agent = agent.unwrap_or_else(|| detect_agent(&path, &s, None));
    let ctx = build_context(&s, leaf_choice(&s, leaf.as_deref())?, agent);
    let text = match format {
        ExportFormat::Md => export::to_markdown(&s, &ctx),
        ExportFormat::Jsonl => export::to_jsonl(&s, &ctx),
        ExportFormat::Html => export::html::to_html(&s, &ctx),
    };
    match output {
        Some(file) => {
            let replaced = force && file.symlink_metadata().is_ok();
            if force {
                replace_file(&file, text.as_bytes())?;
            } else {
                write_new_file(&file, text.as_bytes())?;
            }
            let report = if json {
                to_json(&json!({"written": path_json(&file), "replaced": replaced}))
            } else {
                format!(
                    "{} {} to {}.",
                    if replaced { "Replaced" } else { "Exported" },
                    counted_s(text.len() as u64, "byte"),
                    shown_path(&file)
                )
            };
            report_done(
                out,
                &format!("export written to {}", shown_path(&file)),
                &report,
            )?;
        }
        // JSONL on a terminal: C1, bidi and invisible characters as \u escapes (the same
        // JSON), so what is printed is inert. A file gets the lines as stored.
        None => match format {
            ExportFormat::Jsonl => out.write_all(escape_inert(&text).as_bytes())?,
            ExportFormat::Md | ExportFormat::Html => out.write_all(text.as_bytes())?,
        },
    }
    Ok(())
}

/// Writes a new file, whole or not at all (see [`crate::storage::safe_fs::write_new_file`]);
/// refuses to overwrite. The error names the path.
pub fn write_new_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    crate::storage::safe_fs::write_new_file(path, &mut |w| w.write_all(bytes)).map_err(|e| {
        let hint = if e.source.kind() == io::ErrorKind::AlreadyExists {
            " (--force replaces it)"
        } else {
            ""
        };
        msg(format!(
            "{}: {}; no file was created{hint}",
            shown_path(&e.path),
            e.source
        ))
    })
}

/// `--force`: replaces `path` whole (the old file stays if anything fails), but never a
/// session file (grove never rewrites one) nor anything but a regular file.
fn replace_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let shown = shown_path(path);
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            return Err(msg(format!(
                "{shown}: not a regular file; nothing was written"
            )));
        }
        if crate::storage::index::write::header_id(path).is_some() {
            return Err(msg(format!(
                "{shown} is a session file: grove never replaces one; nothing was written"
            )));
        }
    }
    crate::storage::safe_fs::replace_file(path, &mut |w| w.write_all(bytes)).map_err(|e| {
        msg(format!(
            "{}: {}; the file was not changed",
            shown_path(&e.path),
            e.source
        ))
    })
}
