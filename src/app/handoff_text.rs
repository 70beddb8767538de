//! The text the hand-off passes on ([`super::handoff`]): an entry's text, the branch's
//! transcript, the resume command, made safe (no control characters from the session) and
//! bounded (the clipboard by OSC 52 has limits in terminals). Pure functions, no I/O.

use std::path::Path;

use serde_json::Value;

use crate::model::context::Dialect;
use crate::model::entry::{Entry, EntryKind};
use crate::text::sanitize::{is_clean, sanitize_multiline};

/// At most this many bytes go to the clipboard: terminals cap what OSC 52 may carry (xterm's
/// default is about 100 KB of base64, tmux's buffer limits are similar), and a clipboard of
/// megabytes is not what anyone meant to copy.
pub const COPY_CAP: usize = 100 * 1000;

/// At most this many bytes go to a pager or an editor (a whole branch of a long session).
pub const OPEN_CAP: usize = 16 * 1000 * 1000;

/// Text cut to at most `cap` bytes at a character boundary, and its length before when it was
/// cut.
pub fn cap_text(mut text: String, cap: usize) -> (String, Option<usize>) {
    if text.len() <= cap {
        return (text, None);
    }
    let before = text.len();
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    (text, Some(before))
}

/// Session text made inert for a terminal, a clipboard or an editor: every control, bidi and
/// invisible character shown as [`sanitize_multiline`] shows it (`^[`, `<U+202E>`), except
/// that newlines and tabs stay (code pasted elsewhere keeps its indentation).
pub fn sanitize_for_handoff(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, part) in text.split('\t').enumerate() {
        if i > 0 {
            out.push('\t');
        }
        out.push_str(&sanitize_multiline(part, 1));
    }
    out
}

/// A size in bytes for a status line: `812 B`, `100 KB`, `2.3 MB`.
pub fn human_size(bytes: usize) -> String {
    match bytes {
        b if b < 1000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{} KB", b / 1000),
        b => format!("{:.1} MB", b as f64 / 1e6),
    }
}

/// A word quoted for a POSIX shell: as it is when it holds only safe characters, else in
/// single quotes.
pub fn shell_quote(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:@%+=,-~".contains(c))
        && !word.starts_with('~');
    if safe {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Text that may be copied as it is (an id, a path, a command): refused when it is not
/// UTF-8 or holds control or invisible characters, as `--print` refuses such a path, since
/// an escaped one would name another file.
pub fn exact_text(what: &str, text: Option<&str>) -> Result<String, String> {
    match text {
        None => Err(format!("{what} is not valid UTF-8")),
        Some("") => Err(format!("{what} is empty")),
        Some(t) if !is_clean(t) => Err(format!("{what} holds control or invisible characters")),
        Some(t) => Ok(t.to_owned()),
    }
}

/// The command that resumes a session, for a shell: `cd FOLDER && AGENT…`, with the agent's
/// command from the config (`[agents]`, `{path}` replaced) as `r` runs it.
pub fn resume_command(
    template: &str,
    path: &Path,
    cwd: &str,
    agent: Dialect,
) -> Result<String, String> {
    let path = exact_text("the session's path", path.to_str())?;
    let words: Vec<String> = super::config::split_command(template)
        .into_iter()
        .map(|w| w.replace("{path}", &path))
        .collect();
    if words.is_empty() {
        return Err(format!("the {agent} command in the config is empty"));
    }
    let command = words
        .iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ");
    if cwd.is_empty() {
        return Ok(command);
    }
    let cwd = exact_text("the session's folder", Some(cwd))?;
    Ok(format!("cd {} && {command}", shell_quote(&cwd)))
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The `text` blocks of a content (a string or blocks), joined by `sep`; `None` without any.
fn text_blocks(content: Option<&Value>, sep: &str) -> Option<String> {
    match content? {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .map(|b| str_of(b, "text"))
                .filter(|t| !t.trim().is_empty())
                .collect();
            (!texts.is_empty()).then(|| texts.join(sep))
        }
        _ => None,
    }
}

/// An entry's text as a reader wants it, not yet sanitized: a message's words as written
/// (an assistant turn without any, its tool calls as the Markdown export shows them), a tool
/// result's output, a command with its output, a summary's text; `None` for an entry without
/// text of its own (a model change, a label), for which the caller shows its row.
pub fn entry_text(entry: &Entry) -> Option<String> {
    let raw = entry.raw();
    let text = match entry.kind {
        EntryKind::Message => {
            let m = raw.get("message")?;
            match str_of(m, "role") {
                "user" | "assistant" | "custom" => text_blocks(m.get("content"), "\n\n")
                    .or_else(|| Some(crate::model::export::markdown::message_body(m))),
                "toolResult" => text_blocks(m.get("content"), "\n"),
                "bashExecution" => {
                    let output = str_of(m, "output").trim_end_matches('\n');
                    let mut t = format!("$ {}", str_of(m, "command"));
                    if !output.is_empty() {
                        t.push('\n');
                        t.push_str(output);
                    }
                    Some(t)
                }
                "branchSummary" | "compactionSummary" => Some(str_of(m, "summary").to_owned()),
                _ => Some(crate::model::export::markdown::message_body(m)),
            }
        }
        EntryKind::Compaction | EntryKind::BranchSummary => raw
            .get("summary")
            .and_then(Value::as_str)
            .map(str::to_owned),
        EntryKind::CustomMessage => text_blocks(raw.get("content"), "\n\n"),
        _ => None,
    };
    text.filter(|t| !t.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_cuts_at_a_character_boundary_and_says_from_what() {
        assert_eq!(cap_text("abc".into(), 3), ("abc".into(), None));
        let (t, before) = cap_text("aé".repeat(10), 4);
        assert_eq!((t.as_str(), before), ("aéa", Some(30)));
        let big = "x".repeat(COPY_CAP + 5);
        let (t, before) = cap_text(big, COPY_CAP);
        assert_eq!((t.len(), before), (COPY_CAP, Some(COPY_CAP + 5)));
    }

    #[test]
    fn sanitizing_keeps_lines_and_tabs_and_escapes_the_rest() {
        let s = sanitize_for_handoff("a\tb\n\u{1b}]52;c;AAAA\u{7}\r\n\u{202e}x\u{9b}");
        assert_eq!(s, "a\tb\n^[]52;c;AAAA^G\n<U+202E>x<U+009B>");
        assert!(!s.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_quote("/a/b-c_d.jsonl"), "/a/b-c_d.jsonl");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote("$(x)"), "'$(x)'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("~/x"), "'~/x'");
    }

    #[test]
    fn the_resume_command_is_the_configured_agent_in_the_session_folder() {
        let p = Path::new("/s/a b.jsonl");
        assert_eq!(
            resume_command("pi --session {path}", p, "/home/u/my app", Dialect::Pi),
            Ok("cd '/home/u/my app' && pi --session '/s/a b.jsonl'".to_owned())
        );
        assert_eq!(
            resume_command("pi --session {path}", p, "", Dialect::Pi),
            Ok("pi --session '/s/a b.jsonl'".to_owned())
        );
        assert!(resume_command("", p, "/x", Dialect::Pi).is_err());
        let bad = Path::new("/s/a\nrm -rf x.jsonl");
        assert!(resume_command("pi --session {path}", bad, "/x", Dialect::Pi).is_err());
        assert!(resume_command("pi {path}", p, "/x\u{1b}[2J", Dialect::Pi).is_err());
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_size(812), "812 B");
        assert_eq!(human_size(100_000), "100 KB");
        assert_eq!(human_size(2_345_678), "2.3 MB");
    }
}
