//! What an append needs to know about a session file, found by a streaming pass without
//! loading the session: the header's version, whether the file ends with a newline, the last
//! entry's id, an id no entry has, and the target entry (whether it exists and, for a
//! check-out, which entry becomes the leaf). Lines are read one at a time in bounded memory
//! ([`crate::model::lines`]) and dropped: memory stays that of one line, whatever the file's
//! size. Nothing is collected per entry: the target and the fresh id are checked on the fly.
//!
//! The answers are those of a whole load ([`view_of_session`], the reference, also used when
//! the pass cannot decide cheaply: a version 1 file, whose ids pi regenerates; a check-out
//! whose parent comes after it in the file, which a whole load may resolve as a cycle).

use std::collections::HashSet;
use std::fs::File;
use std::path::Path;

use serde_json::Value;

use crate::model::entry::EntryKind;
use crate::model::parse::{Line, LineValue, RawLine, for_each_line_in, header_from, parse_line};
use crate::model::scan::parse_lite;
use crate::model::tree::Session;

use super::read::{ReadError, open_regular};

/// Bytes read at a time.
const CHUNK: usize = 256 << 10;

/// How many fresh ids the pass checks at once: one suffices unless 8-hex ids collide, which
/// for a file of a million entries happens to one draw in 4,000.
pub(crate) const CANDIDATES: usize = 4;

/// What the file says, as an append reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AppendView {
    /// The header's version; `None` when the first object is not a session header.
    pub version: Option<u32>,
    /// Bytes read: the size the write checks the file still has.
    pub bytes: u64,
    pub ends_with_newline: bool,
    /// The id of the last entry (`None` when it has none).
    pub last_id: Option<String>,
    /// An 8-hex id no entry has.
    pub fresh_id: String,
    /// The target, when one was asked for and exists.
    pub target: Option<TargetView>,
}

/// The target entry of a label or a check-out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TargetView {
    /// The entry that becomes the leaf when the target is checked out: as pi's `/tree`, a user
    /// message (or custom message) puts its text back in the editor, so the branch resumes
    /// from its parent (`None`: from the root); any other entry is the leaf itself.
    pub checkout_leaf: Option<String>,
}

/// One entry as the pass sees it.
pub(super) struct Seen<'a> {
    pub is_header: bool,
    pub id: &'a str,
    pub parent_id: Option<&'a str>,
    /// A user message or a custom message.
    pub puts_text_back: bool,
    /// An entry that only annotates (a label, a name, grove's check-out): it adds nothing to
    /// the context, so where the session resumes is above it.
    pub annotates: bool,
    /// A label entry's change: its target, and whether it sets a label (else it clears one).
    pub label: Option<(&'a str, bool)>,
}

/// The target's last occurrence (later duplicates shadow earlier ones, as in pi).
pub(super) struct Found {
    pub ordinal: usize,
    pub parent_id: Option<String>,
    pub puts_text_back: bool,
}

/// Streams `path` for what an append needs (`target`: the entry a label or check-out names;
/// `candidates`: [`CANDIDATES`] distinct fresh ids, the first no entry has is taken).
/// `Ok(None)` when the pass cannot answer as a whole load would: the caller loads the session
/// and asks [`view_of_session`].
pub(crate) fn view_for_append(
    path: &Path,
    target: Option<&str>,
    candidates: [String; CANDIDATES],
) -> Result<Option<AppendView>, ReadError> {
    let mut version = None;
    let mut objects = 0usize;
    let mut entries = 0usize;
    let mut last_id: Option<String> = None;
    let mut taken = [false; CANDIDATES];
    let mut found: Option<Found> = None;
    let (bytes, ends_with_newline) = each_entry(
        path,
        &mut objects,
        |seen| {
            if seen.is_header {
                return;
            }
            entries += 1;
            for (c, t) in candidates.iter().zip(&mut taken) {
                *t |= seen.id == c;
            }
            if target == Some(seen.id) {
                found = Some(Found {
                    ordinal: entries,
                    parent_id: seen.parent_id.map(str::to_owned),
                    puts_text_back: seen.puts_text_back,
                });
            }
            last_id = Some(seen.id.to_owned()).filter(|id| !id.is_empty());
        },
        |first| version = first,
    )?;
    // pi regenerates a version 1 file's ids; a whole load says what grove does with them.
    if version.is_some_and(|v| v < 2) {
        return Ok(None);
    }
    let Some(fresh_id) = candidates
        .into_iter()
        .zip(taken)
        .find(|(_, t)| !t)
        .map(|(c, _)| c)
    else {
        return Ok(None);
    };
    let target = match (found, target) {
        (Some(f), Some(target)) => match checkout_leaf(path, target, f)? {
            Some(checkout_leaf) => Some(TargetView { checkout_leaf }),
            None => return Ok(None),
        },
        _ => None,
    };
    Ok(Some(AppendView {
        version,
        bytes,
        ends_with_newline,
        last_id,
        fresh_id,
        target,
    }))
}

/// Distinct prefix matches kept to count them; past this many, further matching entries are
/// counted without being kept (the count is then one of entries, not ids).
const MAX_MATCHES: usize = 10_000;

/// Resolves an entry id or unique id prefix given on the command line by a streaming pass, as
/// a whole load would: `Ok(Ok(id))`, or `Ok(Err(n))` when `n` entries match (0 or several);
/// `None` when the file has no session header (the caller says why, as it does for a load).
pub(crate) fn resolve_prefix(
    path: &Path,
    arg: &str,
) -> Result<Option<Result<String, usize>>, ReadError> {
    let mut version = None;
    let mut objects = 0usize;
    let mut exact = false;
    let mut matches: HashSet<String> = HashSet::new();
    let mut overflow = 0usize;
    each_entry(
        path,
        &mut objects,
        |seen| {
            if seen.is_header {
                return;
            }
            exact |= seen.id == arg;
            if !seen.id.is_empty() && seen.id.starts_with(arg) && !matches.contains(seen.id) {
                if matches.len() < MAX_MATCHES {
                    matches.insert(seen.id.to_owned());
                } else {
                    overflow += 1;
                }
            }
        },
        |first| version = first,
    )?;
    if version.is_none() {
        return Ok(None);
    }
    Ok(Some(if exact {
        Ok(arg.to_owned())
    } else if matches.len() == 1 && overflow == 0 {
        Ok(matches.into_iter().next().unwrap_or_default())
    } else {
        Err(matches.len() + overflow)
    }))
}

/// The leaf a check-out of `target` makes; `None` when only a whole load can tell (its parent
/// comes after it in the file: maybe a cycle, which the tree breaks at its earliest member).
pub(super) fn checkout_leaf(
    path: &Path,
    target: &str,
    f: Found,
) -> Result<Option<Option<String>>, ReadError> {
    if !f.puts_text_back {
        return Ok(Some(Some(target.to_owned())));
    }
    let parent = match f.parent_id {
        Some(p) if p != target => p,
        // No parent, or itself: a root.
        _ => return Ok(Some(None)),
    };
    // Where the parent's last occurrence is: a second pass, taken only for this case.
    let mut last = None;
    let mut ordinal = 0usize;
    let mut objects = 0usize;
    each_entry(
        path,
        &mut objects,
        |seen| {
            if !seen.is_header {
                ordinal += 1;
                if seen.id == parent {
                    last = Some(ordinal);
                }
            }
        },
        |_| {},
    )?;
    Ok(match last {
        // An unknown parent: the target is shown as a root.
        None => Some(None),
        Some(at) if at < f.ordinal => Some(Some(parent)),
        Some(_) => None,
    })
}

/// Calls `entry` for every object after the first (the header, whose version goes to
/// `header`), in file order, skipping what a whole load skips (blank and bad lines, lines too
/// long to hold). A later session header is passed with `is_header` set. Returns the bytes
/// read and whether they end with a newline.
pub(super) fn each_entry(
    path: &Path,
    objects: &mut usize,
    mut entry: impl FnMut(&Seen<'_>),
    mut header: impl FnMut(Option<u32>),
) -> Result<(u64, bool), ReadError> {
    let (mut file, _) = open_regular(path)?;
    let mut buf = Vec::new();
    let mut on_line = |line: Line<'_>| {
        let Line::Whole(line) = line else { return };
        // A custom entry is parsed whole: whether it is grove's check-out is in its
        // `customType`, which the lite parse skips.
        let lite = (*objects > 0).then(|| parse_lite(line.bytes)).flatten();
        if let Some(lite) = lite {
            let facts = lite.facts();
            let kind = facts.kind;
            if kind != EntryKind::Custom {
                *objects += 1;
                let role = facts.message.as_ref().and_then(|m| m.role);
                entry(&Seen {
                    is_header: lite.ty.as_deref() == Some("session"),
                    id: facts.id,
                    parent_id: facts.parent_id,
                    puts_text_back: role == Some("user") || kind == EntryKind::CustomMessage,
                    annotates: matches!(kind, EntryKind::Label | EntryKind::SessionInfo),
                    label: label_change(kind, facts.target_id, facts.label),
                });
                return;
            }
        }
        full_line(&line, objects, &mut entry, &mut header);
    };
    for_each_line_in(&mut file as &mut File, &mut buf, CHUNK, 0, 1, &mut on_line).map_err(
        |source| ReadError::Io {
            path: path.to_path_buf(),
            source,
        },
    )
}

/// [`each_entry`]'s full parse of one line.
fn full_line(
    line: &RawLine<'_>,
    objects: &mut usize,
    entry: &mut impl FnMut(&Seen<'_>),
    header: &mut impl FnMut(Option<u32>),
) {
    let LineValue::Object(map, _) = parse_line(line) else {
        return;
    };
    *objects += 1;
    if *objects == 1 {
        match header_from(map, line.number) {
            Ok(h) => return header(Some(h.version)),
            // Not a header: the file has none (the append refuses), yet what follows is read.
            Err(map) => {
                header(None);
                return entry(&seen_of(&map));
            }
        }
    }
    let is_header = map.get("type").and_then(Value::as_str) == Some("session");
    entry(&Seen {
        is_header,
        ..seen_of(&map)
    });
}

fn seen_of(map: &serde_json::Map<String, Value>) -> Seen<'_> {
    fn str_of(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str)
    }
    let kind = EntryKind::from_type(str_of(map.get("type")).unwrap_or(""));
    let role = match kind {
        EntryKind::Message => str_of(map.get("message").and_then(|m| m.get("role"))),
        _ => None,
    };
    let annotates = match kind {
        EntryKind::Label | EntryKind::SessionInfo => true,
        EntryKind::Custom => str_of(map.get("customType")) == Some(CHECKOUT_TYPE),
        _ => false,
    };
    Seen {
        is_header: false,
        id: str_of(map.get("id")).unwrap_or(""),
        parent_id: str_of(map.get("parentId")),
        puts_text_back: role == Some("user") || kind == EntryKind::CustomMessage,
        annotates,
        label: label_change(kind, str_of(map.get("targetId")), str_of(map.get("label"))),
    }
}

/// The `customType` of grove's check-out entries.
pub(super) const CHECKOUT_TYPE: &str = "grove.checkout";

/// A label entry's change, as [`crate::model::entry::Entry::label_change`] reads it: a
/// string target, and a non-empty string label sets it.
fn label_change<'a>(
    kind: EntryKind,
    target: Option<&'a str>,
    label: Option<&str>,
) -> Option<(&'a str, bool)> {
    (kind == EntryKind::Label)
        .then_some(target)
        .flatten()
        .map(|t| (t, label.is_some_and(|l| !l.is_empty())))
}

/// The view of a session loaded whole: the reference [`view_for_append`] answers as.
/// `fresh_id` draws an id not in the set it is given.
pub(crate) fn view_of_session(
    session: &Session,
    target: Option<&str>,
    fresh_id: impl FnOnce(&HashSet<&str>) -> String,
) -> AppendView {
    let entries = session.entries();
    let taken: HashSet<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    let target = target.and_then(|t| session.tree.index_of(t)).map(|i| {
        let e = &entries[i];
        let checkout_leaf = if e.role() == Some("user") || e.kind == EntryKind::CustomMessage {
            session.tree.parent[i].map(|p| entries[p].id.clone())
        } else {
            Some(e.id.clone())
        };
        TargetView { checkout_leaf }
    });
    AppendView {
        version: session.parsed.header.as_ref().map(|h| h.version),
        bytes: session.parsed.bytes,
        ends_with_newline: session.parsed.ends_with_newline,
        last_id: entries
            .last()
            .map(|e| e.id.clone())
            .filter(|s| !s.is_empty()),
        fresh_id: fresh_id(&taken),
        target,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::model::parse::ParsedSession;

    /// A small deterministic generator (no dependency for a few numbers).
    pub(crate) struct Rng(pub u64);
    impl Rng {
        pub(crate) fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) as usize) % n.max(1)
        }
    }

    /// A session with what trips a tree: duplicate ids, unknown and self parents, parents
    /// after their children (and so cycles), labels, user and custom messages, a second
    /// header, bad and blank lines, entries without ids; sometimes an old version, no header
    /// or a torn last line.
    pub(crate) fn messy_session(rng: &mut Rng) -> String {
        let version = [3, 3, 3, 2, 1][rng.below(5)];
        let mut s = String::new();
        match rng.below(12) {
            0 => s.push_str("{\"type\":\"message\",\"id\":\"x\"}\n"),
            1 => s.push('\n'),
            _ => {}
        }
        s.push_str(&format!(
            "{{\"type\":\"session\",\"version\":{version},\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00Z\",\"cwd\":\"/w\"}}\n"
        ));
        let n = 1 + rng.below(25);
        let mut last = String::new();
        for i in 0..n {
            let id = format!("{:02x}", rng.below(n + 3));
            let parent = match rng.below(6) {
                0 => "null".to_owned(),
                1 => format!("\"{id}\""),
                2 => "\"nope\"".to_owned(),
                _ => format!("\"{:02x}\"", rng.below(n + 3)),
            };
            let id_field = if rng.below(15) == 0 {
                String::new()
            } else {
                format!("\"id\":\"{id}\",")
            };
            let other = format!("{:02x}", rng.below(n + 3));
            let line = match rng.below(13) {
                0 => format!(
                    "{{\"type\":\"label\",{id_field}\"parentId\":{parent},\"targetId\":\"{id}\",\"label\":\"l\"}}"
                ),
                1 => format!(
                    "{{\"type\":\"custom_message\",{id_field}\"parentId\":{parent},\"content\":\"c\"}}"
                ),
                2 => "not json".to_owned(),
                3 if i > 0 => "{\"type\":\"session\",\"version\":3,\"id\":\"t\"}".to_owned(),
                4 => format!(
                    "{{\"type\":\"message\",{id_field}\"parentId\":{parent},\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"a\\ud800\"}}]}}}}"
                ),
                9 => format!(
                    "{{\"type\":\"label\",{id_field}\"parentId\":{parent},\"targetId\":\"{other}\",\"label\":\"{}\"}}",
                    ["", "m"][rng.below(2)]
                ),
                10 => format!(
                    "{{\"type\":\"session_info\",{id_field}\"parentId\":{parent},\"name\":\"n\"}}"
                ),
                11 => format!(
                    "{{\"type\":\"custom\",{id_field}\"parentId\":{parent},\"customType\":\"{}\",\"data\":{{}}}}",
                    ["grove.checkout", "other"][rng.below(2)]
                ),
                _ => format!(
                    "{{\"type\":\"message\",{id_field}\"parentId\":{parent},\"message\":{{\"role\":\"user\",\"content\":\"u {i}\"}}}}"
                ),
            };
            s.push_str(&line);
            s.push('\n');
            last = id;
        }
        // Annotations at the end, as grove and pi append them (each off the one before).
        for k in 0..rng.below(4) {
            let id = format!("e{k}");
            let target = format!("{:02x}", rng.below(n + 3));
            let line = match rng.below(3) {
                0 => format!(
                    "{{\"type\":\"label\",\"id\":\"{id}\",\"parentId\":\"{last}\",\"targetId\":\"{target}\",\"label\":\"z\"}}"
                ),
                1 => format!(
                    "{{\"type\":\"session_info\",\"id\":\"{id}\",\"parentId\":\"{last}\",\"name\":\"z\"}}"
                ),
                _ => format!(
                    "{{\"type\":\"custom\",\"id\":\"{id}\",\"parentId\":\"{last}\",\"customType\":\"grove.checkout\",\"data\":{{}}}}"
                ),
            };
            s.push_str(&line);
            s.push('\n');
            last = id;
        }
        if rng.below(8) == 0 {
            s.push_str("{\"type\":\"mess");
        }
        s
    }

    /// The streaming pass answers as the whole load for every target, on messy files; where
    /// it declines (a version 1 file, a parent after its child), the whole load is the answer.
    #[test]
    fn the_pass_agrees_with_a_whole_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut rng = Rng(7);
        let mut declined = 0;
        for round in 0..400 {
            let text = messy_session(&mut rng);
            std::fs::write(&path, &text).unwrap();
            let session = Session::new(ParsedSession::from_bytes(text.as_bytes()));
            let mut targets: Vec<Option<String>> = session
                .entries()
                .iter()
                .map(|e| Some(e.id.clone()))
                .collect();
            targets.extend([None, Some("nope".into()), Some("s".into())]);
            for target in targets {
                let target = target.as_deref();
                let candidates = ["c0", "c1", "c2", "c3"].map(String::from);
                let whole = view_of_session(&session, target, |_| "c0".into());
                match view_for_append(&path, target, candidates).unwrap() {
                    Some(streamed) => {
                        assert_eq!(streamed, whole, "round {round}, {target:?}:\n{text}")
                    }
                    None => {
                        declined += 1;
                        let v1 = whole.version.is_some_and(|v| v < 2);
                        assert!(v1 || target.is_some(), "round {round}:\n{text}");
                    }
                }
                let ids: Vec<&str> = session.entries().iter().map(|e| e.id.as_str()).collect();
                if let (Some(arg), Some(_)) = (target, whole.version)
                    && let Some(Ok(id)) = resolve_prefix(&path, arg).unwrap()
                {
                    assert!(ids.contains(&id.as_str()), "{arg} → {id}");
                }
            }
        }
        assert!(declined < 2000, "the pass declined {declined} times");
    }

    /// A fresh id some entry already has is never chosen; the next candidate is.
    #[test]
    fn a_taken_candidate_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(
            &path,
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"c0\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n",
        )
        .unwrap();
        let view = view_for_append(
            &path,
            Some("c0"),
            ["c0", "c1", "c2", "c3"].map(String::from),
        )
        .unwrap()
        .unwrap();
        assert_eq!(view.fresh_id, "c1");
        assert_eq!(view.last_id.as_deref(), Some("c0"));
        // A user message checked out resumes from its parent: here the root.
        assert_eq!(
            view.target,
            Some(TargetView {
                checkout_leaf: None
            })
        );
        let all_taken = ["c0", "c0", "c0", "c0"].map(String::from);
        assert_eq!(view_for_append(&path, None, all_taken).unwrap(), None);
    }

    #[test]
    fn prefixes_resolve_as_a_load_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(
            &path,
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"ab12\",\"parentId\":null}\n{\"type\":\"message\",\"id\":\"ab34\",\"parentId\":\"ab12\"}\n{\"type\":\"message\",\"id\":\"ab12\",\"parentId\":\"ab34\"}\n",
        )
        .unwrap();
        assert_eq!(
            resolve_prefix(&path, "ab1").unwrap(),
            Some(Ok("ab12".into()))
        );
        assert_eq!(resolve_prefix(&path, "ab").unwrap(), Some(Err(2)));
        assert_eq!(resolve_prefix(&path, "zz").unwrap(), Some(Err(0)));
        assert_eq!(
            resolve_prefix(&path, "ab34").unwrap(),
            Some(Ok("ab34".into()))
        );
        std::fs::write(&path, "{\"type\":\"message\",\"id\":\"ab12\"}\n").unwrap();
        assert_eq!(resolve_prefix(&path, "ab").unwrap(), None);
    }
}
