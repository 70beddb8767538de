//! Whether a check-out or a label removal would change nothing, told without loading the
//! session: a check-out to the entry the session already resumes from, clearing the label of
//! an entry that has none. One streaming pass ([`super::append_scan`]'s, in the memory of one
//! line) finds the target's last occurrence and label, and keeps the file's last few entries:
//! where the session resumes is its leaf, or above the annotations (labels, names, grove's
//! check-outs) it ends with, which are nearly always among those last entries (else one more
//! pass per step finds the parent).
//!
//! The answers are those of a whole load ([`no_op_of_session`], the reference, also used when
//! the pass declines: a version 1 file, whose ids pi regenerates; a parent after its child in
//! the file, which a whole load may resolve as a cycle; a very long run of annotations).

use std::collections::VecDeque;
use std::path::Path;

use crate::model::entry::EntryKind;
use crate::model::tree::Session;

use super::append_scan::{CHECKOUT_TYPE, Found, checkout_leaf, each_entry};
use super::read::ReadError;

/// The last entries kept for the walk up from the leaf.
const TAIL: usize = 32;
/// Passes the walk may take for parents older than the tail before it declines.
const MAX_PASSES: usize = 3;

/// What tells a no-op write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NoOpView {
    /// The id of the entry the session resumes from: its leaf, above the entries that only
    /// annotate. `None`: before the first entry.
    pub resumes_from: Option<String>,
    /// The target, when it exists.
    pub target: Option<NoOpTarget>,
}

/// The target entry of a check-out or a label removal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NoOpTarget {
    /// Where a check-out of it makes the session resume (see
    /// [`super::append_scan::TargetView`]).
    pub checkout_leaf: Option<String>,
    /// Whether it has a label.
    pub labelled: bool,
}

impl NoOpView {
    /// A check-out of the target makes the session resume where it already does.
    pub(crate) fn checkout_changes_nothing(&self) -> bool {
        self.target
            .as_ref()
            .is_some_and(|t| t.checkout_leaf == self.resumes_from)
    }

    /// The target has no label to clear.
    pub(crate) fn clearing_changes_nothing(&self) -> bool {
        !self.target.as_ref().is_some_and(|t| t.labelled)
    }
}

/// One of the last entries.
#[derive(Clone, Debug)]
struct Tail {
    ordinal: usize,
    id: String,
    parent_id: Option<String>,
    annotates: bool,
}

/// Streams `path` for what tells a no-op write to `target`. `Ok(None)` when the pass cannot
/// answer as a whole load would: the caller loads the session and asks [`no_op_of_session`].
pub(crate) fn no_op_view(path: &Path, target: &str) -> Result<Option<NoOpView>, ReadError> {
    let mut version = None;
    let mut objects = 0usize;
    let mut entries = 0usize;
    let mut found: Option<Found> = None;
    let mut labelled = false;
    let mut tail: VecDeque<Tail> = VecDeque::with_capacity(TAIL);
    each_entry(
        path,
        &mut objects,
        |seen| {
            if seen.is_header {
                return;
            }
            entries += 1;
            if seen.id == target {
                found = Some(Found {
                    ordinal: entries,
                    parent_id: seen.parent_id.map(str::to_owned),
                    puts_text_back: seen.puts_text_back,
                });
            }
            if let Some((t, sets)) = seen.label
                && t == target
            {
                labelled = sets;
            }
            // The oldest kept entry's strings are reused for the newest.
            let mut slot = match tail.len() {
                TAIL => tail.pop_front(),
                _ => None,
            }
            .unwrap_or(Tail {
                ordinal: 0,
                id: String::new(),
                parent_id: None,
                annotates: false,
            });
            slot.ordinal = entries;
            slot.id.clear();
            slot.id.push_str(seen.id);
            slot.parent_id = seen.parent_id.map(str::to_owned);
            slot.annotates = seen.annotates;
            tail.push_back(slot);
        },
        |first| version = first,
    )?;
    // No header: the write refuses, as a load says. Version 1: pi regenerates the ids.
    if version.is_none_or(|v| v < 2) {
        return Ok(None);
    }
    let target = match found {
        Some(f) => match checkout_leaf(path, target, f)? {
            Some(checkout_leaf) => Some(NoOpTarget {
                checkout_leaf,
                labelled,
            }),
            None => return Ok(None),
        },
        None => None,
    };
    Ok(resume_point(path, &tail)?.map(|resumes_from| NoOpView {
        resumes_from,
        target,
    }))
}

/// Where the session resumes: up from the last entry past the annotations. `None` when only a
/// whole load can tell (a parent after its child; too many passes).
fn resume_point(path: &Path, tail: &VecDeque<Tail>) -> Result<Option<Option<String>>, ReadError> {
    let Some(mut cur) = tail.back().cloned() else {
        return Ok(Some(None));
    };
    let mut passes = 0;
    loop {
        if !cur.annotates {
            return Ok(Some(Some(cur.id)));
        }
        let parent = match cur.parent_id.as_deref() {
            Some(p) if p != cur.id => p.to_owned(),
            // No parent, or itself: a root, before which nothing resumes.
            _ => return Ok(Some(None)),
        };
        // The parent's last occurrence: among the last entries if it is there (no later one
        // exists), else found by a pass.
        let next = match tail.iter().rev().find(|t| t.id == parent) {
            Some(t) => Some(t.clone()),
            None if passes < MAX_PASSES => {
                passes += 1;
                last_occurrence(path, &parent)?
            }
            None => return Ok(None),
        };
        match next {
            // An unknown parent: the entry is a root.
            None => return Ok(Some(None)),
            Some(n) if n.ordinal < cur.ordinal => cur = n,
            Some(_) => return Ok(None),
        }
    }
}

/// The last entry with this id, by a pass.
fn last_occurrence(path: &Path, id: &str) -> Result<Option<Tail>, ReadError> {
    let mut objects = 0usize;
    let mut ordinal = 0usize;
    let mut last = None;
    each_entry(
        path,
        &mut objects,
        |seen| {
            if seen.is_header {
                return;
            }
            ordinal += 1;
            if seen.id == id {
                last = Some(Tail {
                    ordinal,
                    id: id.to_owned(),
                    parent_id: seen.parent_id.map(str::to_owned),
                    annotates: seen.annotates,
                });
            }
        },
        |_| {},
    )?;
    Ok(last)
}

/// The entry a session resumes from: its leaf, above the entries that only annotate (labels,
/// names, grove's check-outs), which add nothing to the context. `None`: before the first entry.
pub(crate) fn resumes_from(s: &Session) -> Option<usize> {
    let entries = s.entries();
    let mut cur = s.tree.leaf;
    let mut steps = 0;
    while let Some(i) = cur {
        let e = &entries[i];
        let annotates = matches!(e.kind, EntryKind::Label | EntryKind::SessionInfo)
            || (e.kind == EntryKind::Custom && e.str_field("customType") == Some(CHECKOUT_TYPE));
        if !annotates || steps > entries.len() {
            return Some(i);
        }
        cur = s.tree.parent[i];
        steps += 1;
    }
    None
}

/// Where a check-out to `target` makes the session resume: the entry, or for a user message
/// (or custom message) its parent, as pi's /tree.
pub(crate) fn checkout_destination(s: &Session, target: usize) -> Option<usize> {
    let e = &s.entries()[target];
    if e.role() == Some("user") || e.kind == EntryKind::CustomMessage {
        s.tree.parent[target]
    } else {
        Some(target)
    }
}

/// The view of a session loaded whole: the reference [`no_op_view`] answers as.
pub(crate) fn no_op_of_session(s: &Session, target: &str) -> NoOpView {
    let entries = s.entries();
    let id = |i: usize| entries[i].id.clone();
    NoOpView {
        resumes_from: resumes_from(s).map(id),
        target: s.tree.index_of(target).map(|t| NoOpTarget {
            checkout_leaf: checkout_destination(s, t).map(id),
            labelled: s.tree.label_of(entries, t).is_some(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::parse::ParsedSession;
    use crate::storage::append_scan::tests::{Rng, messy_session};

    /// The pass answers as the whole load for every target, on messy files (duplicate ids,
    /// cycles, labels set and cleared, names and check-outs at the end); where it declines,
    /// the whole load is the answer.
    #[test]
    fn the_pass_agrees_with_a_whole_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut rng = Rng(11);
        let (mut declined, mut no_ops) = (0, 0);
        for round in 0..400 {
            let text = messy_session(&mut rng);
            std::fs::write(&path, &text).unwrap();
            let session = Session::new(ParsedSession::from_bytes(text.as_bytes()));
            let mut targets: Vec<String> = session.entries().iter().map(|e| e.id.clone()).collect();
            targets.extend(["nope".into(), "s".into()]);
            for target in targets {
                let whole = no_op_of_session(&session, &target);
                match no_op_view(&path, &target).unwrap() {
                    Some(streamed) => {
                        assert_eq!(streamed, whole, "round {round}, {target:?}:\n{text}");
                        no_ops += usize::from(whole.checkout_changes_nothing());
                    }
                    None => declined += 1,
                }
            }
        }
        assert!(declined < 2000, "the pass declined {declined} times");
        assert!(no_ops > 50, "only {no_ops} no-op check-outs were tried");
    }

    /// A leaf under a run of annotations longer than the tail is found by further passes; a
    /// much longer run is left to the whole load.
    #[test]
    fn a_long_run_of_annotations_is_walked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        for (run, walked) in [(TAIL + MAX_PASSES - 1, true), (TAIL + 10, false)] {
            let mut text = String::from("{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n");
            text.push_str("{\"type\":\"message\",\"id\":\"m1\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n");
            text.push_str("{\"type\":\"message\",\"id\":\"m2\",\"parentId\":\"m1\",\"message\":{\"role\":\"assistant\",\"content\":[]}}\n");
            let mut last = "m2".to_owned();
            for k in 0..run {
                let id = format!("l{k}");
                let label = if k % 2 == 0 { "x" } else { "" };
                text.push_str(&format!(
                    "{{\"type\":\"label\",\"id\":\"{id}\",\"parentId\":\"{last}\",\"targetId\":\"m1\",\"label\":\"{label}\"}}\n"
                ));
                last = id;
            }
            std::fs::write(&path, &text).unwrap();
            let session = Session::new(ParsedSession::from_bytes(text.as_bytes()));
            let view = no_op_view(&path, "m2").unwrap();
            assert_eq!(view.is_some(), walked, "a run of {run}");
            let whole = no_op_of_session(&session, "m2");
            assert_eq!(whole.resumes_from.as_deref(), Some("m2"));
            assert!(whole.checkout_changes_nothing());
            if let Some(view) = view {
                assert_eq!(view, whole);
                let m1 = no_op_view(&path, "m1").unwrap().unwrap();
                assert_eq!(m1, no_op_of_session(&session, "m1"));
                assert!(!m1.checkout_changes_nothing(), "m1 resumes from the root");
            }
        }
    }
}
