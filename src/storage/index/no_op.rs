//! Whether a check-out or a label removal would change nothing, told from the index and a few
//! positioned reads instead of a pass over the whole file (see [`crate::storage::no_op_scan`],
//! whose answers these are, and which stays the fallback).
//!
//! With a current index row (checked against the file as a write checks it, see
//! [`super::write::prepare`]):
//! - where the session resumes: the last entry, read back from the end, and up past the
//!   annotations it ends with (labels, names, grove's check-outs), each parent found at its
//!   last occurrence ([`super::write::locate`]: the entry offsets, else a search back from
//!   the end, which costs the bytes after it);
//! - where a check-out of the target makes it resume: the target's line, and for a user
//!   message its parent's;
//! - whether the target has a label: from the labels the row's stored scan state keeps (the
//!   last label entry naming each id), without reading the file.
//!
//! Anything a whole load might answer otherwise (a parent after its child in the file, which
//! it may resolve as a cycle; a line that names the id but is not its entry; a long run of
//! annotations) declines with `None`, and the caller takes the streaming pass.

use super::ids::IndexedIds;
use super::write::{CheckedFile, IndexedSession, last_entry, locate};
use crate::model::entry::{Entry, EntryKind};
use crate::storage::append_scan::CHECKOUT_TYPE;

/// Steps up from the last entry past annotations before declining.
const MAX_STEPS: usize = 64;

/// An entry found in the file, and where its line starts.
type Located = (u64, Entry);

/// The write whose effect is asked about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoOpWrite {
    /// A check-out of the target: does the session already resume where it would?
    Checkout,
    /// Clearing the target's label: has it none?
    ClearLabel,
}

/// Whether `write` to `target` would change nothing, in the session as [`super::write::prepare`]d (with its
/// entry offsets); `None` when only the streaming pass or a whole load can tell, or for an
/// empty target (the id of entries without one, which the index does not keep).
pub(crate) fn changes_nothing(
    session: &IndexedSession,
    target: &str,
    write: NoOpWrite,
) -> Option<bool> {
    if target.is_empty() {
        return None;
    }
    let (ids, f) = (&session.ids, &session.file);
    match write {
        NoOpWrite::Checkout => checkout_changes_nothing(ids, f, target),
        NoOpWrite::ClearLabel => Some(clearing_changes_nothing(ids, target)),
    }
}

/// Whether a check-out of `target` makes the session resume where it already does.
fn checkout_changes_nothing(ids: &IndexedIds, f: &CheckedFile, target: &str) -> Option<bool> {
    if !ids.ids.contains(target) {
        // No such entry: the write reports it.
        return Some(false);
    }
    let resumes_from = resume_point(ids, f)?;
    let destination = checkout_destination(ids, f, target)?;
    Some(destination == resumes_from)
}

/// Whether the target has no label to clear: from the labels the stored scan state keeps (the
/// last label entry naming each id decides, in file order). An id no entry has has no label
/// to clear, as in a whole load, even when a label entry names it.
fn clearing_changes_nothing(ids: &IndexedIds, target: &str) -> bool {
    !ids.ids.contains(target) || !ids.labelled.contains(target)
}

/// An entry that only annotates: it adds nothing to the context.
fn annotates(e: &Entry) -> bool {
    matches!(e.kind, EntryKind::Label | EntryKind::SessionInfo)
        || (e.kind == EntryKind::Custom && e.str_field("customType") == Some(CHECKOUT_TYPE))
}

/// The parent of `child` (at `child_at`) at its last occurrence: `Some(None)` for a root (no
/// parent, itself, or an id no entry has), `None` when it comes after the child in the file
/// or its line cannot be told apart.
fn parent_of(
    ids: &IndexedIds,
    f: &CheckedFile,
    child: &Entry,
    child_at: u64,
) -> Option<Option<Located>> {
    let parent = match child.parent_id.as_deref() {
        Some(p) if p != child.id => p,
        _ => return Some(None),
    };
    if !ids.ids.contains(parent) {
        return Some(None);
    }
    let (at, e) = locate(f, ids, parent).ok()??;
    (at < child_at).then_some(Some((at, e)))
}

/// Where the session resumes: the id of the last entry, above the annotations it ends with.
/// `Some(None)`: before the first entry.
fn resume_point(ids: &IndexedIds, f: &CheckedFile) -> Option<Option<String>> {
    let last = last_entry(&f.file, f.header_end, ids.key.size, |_| true, |_| true).ok()?;
    let Some(mut cur) = last else {
        return Some(None);
    };
    for _ in 0..MAX_STEPS {
        let (at, e) = &cur;
        // An entry without an id, or one the index does not know: the index is behind.
        if e.id.is_empty() || !ids.ids.contains(&e.id) {
            return None;
        }
        if !annotates(e) {
            return Some(Some(e.id.clone()));
        }
        match parent_of(ids, f, e, *at)? {
            Some(parent) => cur = parent,
            None => return Some(None),
        }
    }
    None
}

/// Where a check-out of `target` makes the session resume: the entry, or for a user message
/// (or custom message) its parent, as pi's /tree. `Some(None)`: before the first entry.
fn checkout_destination(ids: &IndexedIds, f: &CheckedFile, target: &str) -> Option<Option<String>> {
    let (at, e) = locate(f, ids, target).ok()??;
    if e.role() == Some("user") || e.kind == EntryKind::CustomMessage {
        Some(parent_of(ids, f, &e, at)?.map(|(_, p)| p.id))
    } else {
        Some(Some(e.id))
    }
}

#[cfg(test)]
mod tests {
    use super::super::Index;
    use super::super::write::prepare;
    use super::*;
    use crate::model::parse::ParsedSession;
    use crate::model::tree::Session;
    use crate::storage::append_scan::tests::{Rng, messy_session};
    use crate::storage::no_op_scan::no_op_of_session;

    /// After the header, an entry long enough that the file gets entry offsets.
    fn padded(text: &str) -> String {
        let Some(h) = text.find("{\"type\":\"session\",\"version\"") else {
            return text.to_owned();
        };
        let at = h + text[h..].find('\n').map_or(text.len() - h, |i| i + 1);
        let pad = format!(
            "{{\"type\":\"custom\",\"id\":\"pad\",\"parentId\":null,\"customType\":\"p\",\"data\":\"{}\"}}\n",
            "x".repeat(super::super::offsets::MIN_FILE_BYTES as usize)
        );
        format!("{}{pad}{}", &text[..at], &text[at..])
    }

    /// Both answers are a whole load's for every target of messy files (duplicate ids,
    /// cycles, parents after children, labels set and cleared, annotations at the end), with
    /// and without entry offsets; most are answered without the streaming pass.
    #[test]
    fn the_indexed_answers_are_a_whole_loads() {
        let dir = tempfile::tempdir().unwrap();
        let mut index = Index::open_at(&dir.path().join("cache"));
        let mut rng = Rng(23);
        let (mut asked, mut answered, mut no_ops) = (0, 0, 0);
        for round in 0..200 {
            let mut text = messy_session(&mut rng);
            if round == 0 {
                text = padded(&text);
            }
            // A new file each round: a file rewritten in place within the clock's tick keeps
            // its key, which no session file does.
            let path = dir.path().join(format!("s{round}.jsonl"));
            std::fs::write(&path, &text).unwrap();
            if round == 0 {
                index.refresh(&path, None);
                assert!(index.entry_offsets(&path).is_some(), "no offsets kept");
            }
            let parsed = ParsedSession::from_bytes(text.as_bytes());
            // Older versions (pi regenerates their ids) are left to the whole load.
            let current = parsed.header.as_ref().is_some_and(|h| h.version >= 3);
            let session = Session::new(parsed);
            // The messy entries, and of the padding its first and last.
            let mut targets: Vec<String> = session.entries().iter().map(|e| e.id.clone()).collect();
            if round == 0 {
                // Each question reads the long line in a debug build: a few targets.
                targets.truncate(4);
            }
            targets.extend(["nope".into(), "e0".into()]);
            let indexed = prepare(&mut index, &path, None, true);
            for target in targets {
                let whole = no_op_of_session(&session, &target);
                let case = || {
                    format!(
                        "round {round}, {target:?}:\n{}",
                        &text[text.len().saturating_sub(3000)..]
                    )
                };
                let ask = |w| {
                    indexed
                        .as_ref()
                        .and_then(|s| changes_nothing(s, &target, w))
                };
                let checkout = ask(NoOpWrite::Checkout);
                let clearing = ask(NoOpWrite::ClearLabel);
                if !current {
                    assert_eq!((checkout, clearing), (None, None), "{}", case());
                    continue;
                }
                asked += 2;
                if let Some(got) = checkout {
                    assert_eq!(
                        got,
                        whole.checkout_changes_nothing(),
                        "checkout, {}",
                        case()
                    );
                    answered += 1;
                    no_ops += usize::from(got);
                }
                if let Some(got) = clearing {
                    assert_eq!(
                        got,
                        whole.clearing_changes_nothing(),
                        "clearing, {}",
                        case()
                    );
                    answered += 1;
                }
            }
        }
        assert!(answered * 3 > asked * 2, "answered {answered} of {asked}");
        assert!(no_ops > 30, "only {no_ops} no-op check-outs answered");
    }

    /// Whether a label is set comes from the index, not from the file: a session whose bytes
    /// are overwritten after the check (same length, so a search back from the end would find
    /// no label entry) still answers as its stored scan state says.
    #[test]
    fn clearing_is_answered_without_reading_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut index = Index::open_at(&dir.path().join("cache"));
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/w"}"#;
        let lines = [
            r#"{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"label","id":"l1","parentId":"a1","targetId":"a1","label":"keep"}"#,
            r#"{"type":"label","id":"l2","parentId":"l1","targetId":"gone","label":"x"}"#,
            r#"{"type":"label","id":"l3","parentId":"l2","targetId":"gone","label":""}"#,
            r#"{"type":"label","id":"l4","parentId":"l3","targetId":"ghost","label":"y"}"#,
        ];
        let text = format!("{header}\n{}\n", lines.join("\n"));
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, &text).unwrap();
        index.refresh(&path, None);
        let session = prepare(&mut index, &path, None, false).expect("a current row");
        let blank = format!("{header}\n{}\n", " ".repeat(text.len() - header.len() - 2));
        assert_eq!(blank.len(), text.len());
        std::fs::write(&path, &blank).unwrap();
        let clearing = |t| changes_nothing(&session, t, NoOpWrite::ClearLabel);
        assert_eq!(clearing("a1"), Some(false), "a1 is labelled");
        assert_eq!(
            clearing("gone"),
            Some(true),
            "its last label entry cleared it"
        );
        assert_eq!(clearing("l1"), Some(true), "never labelled");
        // A set label on an id no entry has: nothing to clear, as a whole load says.
        let whole = no_op_of_session(
            &Session::new(ParsedSession::from_bytes(text.as_bytes())),
            "ghost",
        );
        assert!(whole.clearing_changes_nothing());
        assert_eq!(clearing("ghost"), Some(true), "no such entry");
    }
}
