//! `grove export`: a branch as Markdown, JSONL or a self-contained HTML page, to standard
//! output or to a new file.

use std::io::Write;
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

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ExportFormat {
    Md,
    Jsonl,
    /// A self-contained page: tree sidebar, filters, search, the rendered branch.
    Html,
}

/// `grove export`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct ExportArgs {
    pub session: String,
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
    #[arg(long, value_enum, default_value = "md")]
    pub format: ExportFormat,
    /// Write to this file instead of standard output (never overwrites).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
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
            write_new_file(&file, text.as_bytes())?;
            report_done(
                out,
                &format!("export written to {}", shown_path(&file)),
                &to_json(&json!({"written": path_json(&file)})),
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
        msg(format!(
            "{}: {}; no file was created",
            shown_path(&e.path),
            e.source
        ))
    })
}
