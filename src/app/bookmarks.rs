//! Bookmarks: pi calls a label a bookmark. Every labelled entry of every session, with
//! grove's own note and tags (kept in the state database, never in the session file), and
//! the search over them used by the bookmarks screen and `grove bookmarks`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::model::context::Dialect;
use crate::model::entry::{EntryKind, content_text};
use crate::model::info::SessionInfo;
use crate::model::tree::Session;
use crate::storage::read::{SlimMode, load_session_cancellable};
use crate::storage::state::{BookmarkKey, BookmarkMeta};

/// The entry text kept per bookmark (the start of it: enough to recognise it).
const TEXT_CHARS: usize = 240;

/// One labelled entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bookmark {
    pub session_id: String,
    pub session_path: PathBuf,
    pub session_title: String,
    pub session_cwd: String,
    pub agent: Dialect,
    pub entry_id: String,
    pub label: String,
    /// The `timestamp` of the label entry that set it (ISO text, as in the file).
    pub labelled_at: String,
    /// The entry's role (`user`, `assistant`, …) or type.
    pub kind: String,
    /// The start of the entry's text, on one line.
    pub text: String,
    pub note: String,
    pub tags: Vec<String>,
}

impl Bookmark {
    pub fn key(&self) -> BookmarkKey {
        BookmarkKey {
            session_id: self.session_id.clone(),
            entry_id: self.entry_id.clone(),
        }
    }

    /// Whether every word of `query` is in the label, note, tags, entry text or session
    /// title (case-insensitive; `#tag` matches a tag exactly).
    pub fn matches(&self, query: &str) -> bool {
        let hay = format!(
            "{}\n{}\n{}\n{}\n{}",
            self.label,
            self.note,
            self.tags.join(" "),
            self.text,
            self.session_title
        )
        .to_lowercase();
        query.split_whitespace().all(|w| match w.strip_prefix('#') {
            Some(tag) if !tag.is_empty() => self.tags.iter().any(|t| t.eq_ignore_ascii_case(tag)),
            _ => hay.contains(&w.to_lowercase()),
        })
    }
}

/// The labelled entries of one session (labels on entries not in the file are left out:
/// there is nothing to open), in file order.
pub fn session_bookmarks(info: &SessionInfo, session: &Session) -> Vec<Bookmark> {
    let mut out: Vec<Bookmark> = session
        .entries()
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let label = session.tree.label_of(session.entries(), i)?;
            if label.text.is_empty() {
                return None;
            }
            let (kind, text) = match e.kind {
                EntryKind::Message => {
                    let (raw, _) = e.raw_transient();
                    let text = raw
                        .get("message")
                        .and_then(|m| content_text(m.get("content")))
                        .unwrap_or_default();
                    (e.role().unwrap_or("message").to_owned(), text)
                }
                _ => (e.type_name().to_owned(), String::new()),
            };
            Some(Bookmark {
                session_id: info.id.clone(),
                session_path: info.path.clone(),
                session_title: info.title().to_owned(),
                session_cwd: info.cwd.clone(),
                agent: info.agent,
                entry_id: e.id.clone(),
                label: label.text.clone(),
                labelled_at: label.timestamp.clone(),
                kind,
                text: one_line(&text),
                note: String::new(),
                tags: Vec::new(),
            })
        })
        .collect();
    out.shrink_to_fit();
    out
}

fn one_line(text: &str) -> String {
    let mut out: String = text
        .split_whitespace()
        .flat_map(|w| [w, " "])
        .collect::<String>()
        .chars()
        .take(TEXT_CHARS)
        .collect();
    out.truncate(out.trim_end().len());
    out
}

/// Reads the bookmarks of every session that has labels (the listing's label count says
/// which), newest label first. Files that cannot be read are returned with the reason.
pub fn collect_bookmarks(
    sessions: &[&SessionInfo],
    cancelled: &(dyn Fn() -> bool + Sync),
) -> (Vec<Bookmark>, Vec<(PathBuf, String)>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for info in sessions.iter().filter(|s| s.label_count > 0) {
        if cancelled() {
            break;
        }
        match load_session_cancellable(&info.path, SlimMode::Auto, cancelled) {
            Ok(session) => out.extend(session_bookmarks(info, &session)),
            Err(e) => problems.push((info.path.clone(), e.to_string())),
        }
    }
    sort_bookmarks(&mut out);
    (out, problems)
}

/// Newest label first; ties by session path and entry id.
pub fn sort_bookmarks(b: &mut [Bookmark]) {
    b.sort_by(|x, y| {
        y.labelled_at
            .cmp(&x.labelled_at)
            .then_with(|| x.session_path.cmp(&y.session_path))
            .then_with(|| x.entry_id.cmp(&y.entry_id))
    });
}

/// Fills in the notes and tags from the state.
pub fn attach_meta(bookmarks: &mut [Bookmark], meta: &HashMap<BookmarkKey, BookmarkMeta>) {
    for b in bookmarks {
        if let Some(m) = meta.get(&b.key()) {
            b.note = m.note.clone();
            b.tags = m.tags.clone();
        }
    }
}

/// The bookmarks of one file, for a single session (`grove bookmarks note`).
pub fn bookmarks_of(info: &SessionInfo, path: &Path) -> Result<Vec<Bookmark>, String> {
    let session =
        load_session_cancellable(path, SlimMode::Auto, &|| false).map_err(|e| e.to_string())?;
    Ok(session_bookmarks(info, &session))
}
