//! A row of the index: the freshness key, the listing fields as read and as written, and the
//! hash of a row's fields that tells a damaged row (see [`super::db`]).
//!
//! The listing fields are one `postcard` blob (`sessions.fields`): a warm listing of 10k rows
//! reads one blob a row instead of ~30 typed columns, and decodes it in one pass. The blob holds
//! no searchable text (the texts and tool-call texts are chunks of their own tables) and no scan
//! state (table `states`), so the rows stay a few hundred bytes and a listing reads few pages.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::context::Dialect;
use crate::model::info::{SessionInfo, WorkflowInfo};

/// A file's identity and freshness: all equal means unchanged. ctime is in the key because it
/// cannot be set from user space: a rewrite in place with the same size and a restored mtime
/// still changes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileKey {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
}

impl FileKey {
    pub fn of(meta: &std::fs::Metadata) -> FileKey {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
            FileKey {
                dev: meta.dev(),
                ino: meta.ino(),
                size: meta.len(),
                mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
                ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            }
        }
        #[cfg(not(unix))]
        {
            let t = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i64);
            FileKey {
                dev: 0,
                ino: 0,
                size: meta.len(),
                mtime_ns: t,
                ctime_ns: 0,
            }
        }
    }

    pub fn same_file(&self, other: &FileKey) -> bool {
        self.dev == other.dev && self.ino == other.ino
    }
}

/// One session's row, as read for a listing (the text and state are read separately).
#[derive(Clone, Debug)]
pub struct Row {
    pub id: i64,
    pub key: FileKey,
    pub head_hash: u64,
    pub problem: Option<String>,
    pub detected_agent: Option<Dialect>,
    /// The listing fields (path, agent and text left empty); `None` for a problem row.
    pub info: Option<SessionInfo>,
    /// Bytes of the stored text chunks (the state's text), and the text of a torn last line
    /// that the listing includes but the state does not.
    pub text_len: u64,
    pub torn_text: String,
    /// The same for the tool-call text (table `tools`).
    pub tools_len: u64,
    pub torn_tools: String,
    pub has_state: bool,
    pub resume_offset: u64,
    pub tail_hash: u64,
    /// Whether the row's fields hash to its stored hash (a damaged row does not).
    pub intact: bool,
}

/// What a scan leaves to be written for one file.
pub struct NewRow<'a> {
    pub key: FileKey,
    pub head_hash: u64,
    pub problem: Option<&'a str>,
    pub detected_agent: Option<Dialect>,
    pub info: Option<&'a SessionInfo>,
    pub torn_text: &'a str,
    pub torn_tools: &'a str,
    /// The state without its nodes, the nodes changed since the stored state (for a resumed
    /// file) and all of them.
    pub state: Option<StateParts<'a>>,
    pub resume_offset: u64,
    pub tail_hash: u64,
}

pub struct StateParts<'a> {
    pub rest: &'a [u8],
    pub nodes_changed: &'a [u8],
    /// Serialized only when stored whole (a new row, or chunks folded); `None` when a resume
    /// settled without loading them (see `index::nodes`).
    pub nodes_all: Option<&'a crate::model::info::IdMap>,
}

/// The searchable text and tool-call text of a row that a scan read: all of it for a new row,
/// what the file added for a resumed one (appended as a chunk after the stored ones).
#[derive(Clone, Copy, Default)]
pub struct NewText<'a> {
    pub text: &'a str,
    pub tools: &'a str,
}

/// A stored state: its JSON without nodes, and the node chunks in order.
pub type StoredState = (Vec<u8>, Vec<Vec<u8>>);

pub fn path_bytes(p: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        p.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        p.to_string_lossy().as_bytes().to_vec()
    }
}

/// [`path_bytes`] without a copy where the path's bytes are those stored.
pub(crate) fn path_key(p: &Path) -> Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Cow::Borrowed(p.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        Cow::Owned(path_bytes(p))
    }
}

/// [`path_of`] without a copy where the stored bytes are the path's.
pub(crate) fn stored_path(b: &[u8]) -> Cow<'_, Path> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Cow::Borrowed(Path::new(std::ffi::OsStr::from_bytes(b)))
    }
    #[cfg(not(unix))]
    {
        Cow::Owned(path_of(b.to_vec()))
    }
}

pub fn path_of(b: Vec<u8>) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        PathBuf::from(std::ffi::OsString::from_vec(b))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(&b).into_owned())
    }
}

/// The listing fields as stored in `sessions.fields` (postcard: field order is the format;
/// a change of it is a schema change).
#[derive(Serialize, Deserialize)]
pub(crate) struct Fields<'a> {
    head_hash: u64,
    problem: Option<Cow<'a, str>>,
    detected_agent: Option<u8>,
    text_len: u64,
    torn_text: Cow<'a, str>,
    tools_len: u64,
    torn_tools: Cow<'a, str>,
    has_state: bool,
    resume_offset: u64,
    tail_hash: u64,
    info: Option<InfoFields<'a>>,
}

/// The [`SessionInfo`] fields a row keeps (the path, agent and texts come from elsewhere).
#[derive(Serialize, Deserialize)]
struct InfoFields<'a> {
    id: Cow<'a, str>,
    cwd: Cow<'a, str>,
    name: Option<Cow<'a, str>>,
    parent_session_path: Option<Cow<'a, str>>,
    created_ms: Option<i64>,
    modified_ms: i64,
    message_count: u64,
    first_message: Cow<'a, str>,
    version: u32,
    entry_count: u64,
    leaf_count: u64,
    label_count: u64,
    has_name: bool,
    workflow: Option<Cow<'a, WorkflowInfo>>,
    summary: Option<Cow<'a, str>>,
    total_tokens: u64,
    cost: f64,
    last_stop_reason: Option<Cow<'a, str>>,
    model: Option<Cow<'a, str>>,
    parse_issues: u64,
    first_issue: Option<Cow<'a, str>>,
}

fn b(s: &str) -> Cow<'_, str> {
    Cow::Borrowed(s)
}

fn bo(s: &Option<String>) -> Option<Cow<'_, str>> {
    s.as_deref().map(Cow::Borrowed)
}

impl<'a> InfoFields<'a> {
    fn of(i: &'a SessionInfo) -> Self {
        InfoFields {
            id: b(&i.id),
            cwd: b(&i.cwd),
            name: bo(&i.name),
            parent_session_path: bo(&i.parent_session_path),
            created_ms: i.created_ms,
            modified_ms: i.modified_ms,
            message_count: i.message_count,
            first_message: b(&i.first_message),
            version: i.version,
            entry_count: i.entry_count,
            leaf_count: i.leaf_count,
            label_count: i.label_count,
            has_name: i.has_name,
            workflow: i.workflow.as_ref().map(Cow::Borrowed),
            summary: bo(&i.summary),
            total_tokens: i.total_tokens,
            cost: i.cost,
            last_stop_reason: bo(&i.last_stop_reason),
            model: bo(&i.model),
            parse_issues: i.parse_issues,
            first_issue: bo(&i.first_issue),
        }
    }

    /// The listing (path, agent and texts left empty), the decoded strings moved in.
    fn into_info(self, bytes: u64) -> SessionInfo {
        let own = |c: Cow<'_, str>| c.into_owned();
        let workflow = self.workflow.map(Cow::into_owned);
        SessionInfo {
            path: PathBuf::new(),
            id: own(self.id),
            cwd: own(self.cwd),
            name: self.name.map(own),
            parent_session_path: self.parent_session_path.map(own),
            created_ms: self.created_ms,
            modified_ms: self.modified_ms,
            message_count: self.message_count,
            first_message: own(self.first_message),
            agent: Dialect::Pi,
            version: self.version,
            bytes,
            entry_count: self.entry_count,
            leaf_count: self.leaf_count,
            label_count: self.label_count,
            has_name: self.has_name,
            internal: workflow.is_some(),
            workflow,
            summary: self.summary.map(own),
            total_tokens: self.total_tokens,
            cost: self.cost,
            last_stop_reason: self.last_stop_reason.map(own),
            model: self.model.map(own),
            parse_issues: self.parse_issues,
            first_issue: self.first_issue.map(own),
            all_messages_text: String::new(),
            tool_text: String::new(),
        }
    }
}

impl<'a> Fields<'a> {
    /// The fields of a row being written, with its stored chunks' lengths.
    pub(crate) fn of_new(row: &'a NewRow<'a>, text_len: u64, tools_len: u64) -> Self {
        Fields {
            head_hash: row.head_hash,
            problem: row.problem.map(Cow::Borrowed),
            detected_agent: row.detected_agent.map(agent_code),
            text_len,
            torn_text: b(row.torn_text),
            tools_len,
            torn_tools: b(row.torn_tools),
            has_state: row.state.is_some(),
            resume_offset: row.resume_offset,
            tail_hash: row.tail_hash,
            info: row.info.map(InfoFields::of),
        }
    }

    /// The fields of a row as read (for tests that craft rows).
    pub(crate) fn of_row(row: &'a Row) -> Self {
        Fields {
            head_hash: row.head_hash,
            problem: bo(&row.problem),
            detected_agent: row.detected_agent.map(agent_code),
            text_len: row.text_len,
            torn_text: b(&row.torn_text),
            tools_len: row.tools_len,
            torn_tools: b(&row.torn_tools),
            has_state: row.has_state,
            resume_offset: row.resume_offset,
            tail_hash: row.tail_hash,
            info: row.info.as_ref().map(InfoFields::of),
        }
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        // Strings, integers and options only: serializing cannot fail.
        postcard::to_allocvec(self).unwrap_or_default()
    }
}

pub(crate) fn agent_code(a: Dialect) -> u8 {
    match a {
        Dialect::Pi => 0,
        Dialect::Atomic => 1,
    }
}

fn agent_of(code: Option<u8>) -> Option<Dialect> {
    match code? {
        0 => Some(Dialect::Pi),
        1 => Some(Dialect::Atomic),
        _ => None,
    }
}

/// The columns [`read_row`] reads.
pub(crate) const SELECT_ROWS: &str =
    "SELECT id, path, dev, ino, size, mtime_ns, ctime_ns, fields, row_hash FROM sessions";

/// One row of [`SELECT_ROWS`]. A row whose hash or blob does not check out is returned as not
/// intact (it is rescanned), never as an error (which would rebuild the whole cache).
pub(crate) fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(PathBuf, Row)> {
    let path_raw = r.get_ref(1)?.as_blob()?;
    let row = decode_row(r, path_raw)?;
    Ok((path_of(path_raw.to_vec()), row))
}

/// The path of a row of [`SELECT_ROWS`], as stored (borrowed from the row).
pub(crate) fn row_path<'r>(r: &'r rusqlite::Row<'_>) -> rusqlite::Result<&'r [u8]> {
    Ok(r.get_ref(1)?.as_blob()?)
}

/// The id of a row of [`SELECT_ROWS`].
pub(crate) fn row_id(r: &rusqlite::Row<'_>) -> rusqlite::Result<i64> {
    r.get(0)
}

/// [`read_row`] without the path (the caller has it: [`row_path`]).
pub(crate) fn decode_row(r: &rusqlite::Row<'_>, path_raw: &[u8]) -> rusqlite::Result<Row> {
    let key = FileKey {
        dev: r.get::<_, i64>(2)? as u64,
        ino: r.get::<_, i64>(3)? as u64,
        size: r.get::<_, i64>(4)? as u64,
        mtime_ns: r.get(5)?,
        ctime_ns: r.get(6)?,
    };
    let fields = r.get_ref(7)?.as_blob().unwrap_or_default();
    let stored_hash = r.get::<_, i64>(8).ok().map(|h| h as u64);
    let mut row = Row {
        id: r.get(0)?,
        key,
        head_hash: 0,
        problem: None,
        detected_agent: None,
        info: None,
        text_len: 0,
        torn_text: String::new(),
        tools_len: 0,
        torn_tools: String::new(),
        has_state: false,
        resume_offset: 0,
        tail_hash: 0,
        intact: false,
    };
    if stored_hash == Some(row_hash(path_raw, &key, fields))
        && let Ok(f) = postcard::from_bytes::<Fields<'_>>(fields)
    {
        row.head_hash = f.head_hash;
        row.problem = f.problem.map(Cow::into_owned);
        row.detected_agent = agent_of(f.detected_agent);
        row.text_len = f.text_len;
        row.torn_text = f.torn_text.into_owned();
        row.tools_len = f.tools_len;
        row.torn_tools = f.torn_tools.into_owned();
        row.has_state = f.has_state;
        row.resume_offset = f.resume_offset;
        row.tail_hash = f.tail_hash;
        row.info = f.info.map(|i| i.into_info(key.size));
        row.intact = true;
    }
    Ok(row)
}

/// The hash of a row's path, key and fields blob, stored with it: a row damaged on disk (a
/// flipped bit in a name, a count) reads as not intact and is rescanned.
pub(crate) fn row_hash(path: &[u8], key: &FileKey, fields: &[u8]) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = foldhash::quality::FixedState::with_seed(0x0067_726f_7665).build_hasher();
    (path, key.dev, key.ino, key.size, key.mtime_ns, key.ctime_ns).hash(&mut h);
    fields.hash(&mut h);
    h.finish()
}
