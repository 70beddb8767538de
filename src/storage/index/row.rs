//! A row of the index: the freshness key, the listing fields as read and as written, and the
//! hash of a row's fields that tells a damaged row (see [`super::db`]).

use std::path::{Path, PathBuf};

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
    /// The state without its nodes, the nodes changed since the stored state (for a resumed
    /// file) and all of them.
    pub state: Option<StateParts<'a>>,
    pub resume_offset: u64,
    pub tail_hash: u64,
}

pub struct StateParts<'a> {
    pub rest: &'a [u8],
    pub nodes_changed: &'a [u8],
    /// Serialized only when stored whole (a new row, or chunks folded).
    pub nodes_all: &'a serde_json::Map<String, serde_json::Value>,
}

/// How the text and nodes of a row are written.
pub enum TextWrite<'a> {
    /// Replace every chunk with this text.
    Replace(&'a str),
    /// Append a chunk after the stored ones (a resumed file), whose stored text had this length.
    Append(&'a str),
}

/// A stored state: its JSON without nodes, and the node chunks in order.
pub type StoredState = (Vec<u8>, Vec<Vec<u8>>);

pub(crate) fn agent_code(a: Dialect) -> i64 {
    match a {
        Dialect::Pi => 0,
        Dialect::Atomic => 1,
    }
}

pub(crate) fn agent_of(code: Option<i64>) -> Option<Dialect> {
    match code? {
        0 => Some(Dialect::Pi),
        1 => Some(Dialect::Atomic),
        _ => None,
    }
}

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

pub(crate) fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(PathBuf, Row)> {
    let path_raw = r.get_ref(1)?.as_blob()?;
    let path = path_of(path_raw.to_vec());
    let key = FileKey {
        dev: r.get::<_, i64>(2)? as u64,
        ino: r.get::<_, i64>(3)? as u64,
        size: r.get::<_, i64>(4)? as u64,
        mtime_ns: r.get(5)?,
        ctime_ns: r.get(6)?,
    };
    let info_id: Option<String> = r.get(9)?;
    let info = match info_id {
        None => None,
        Some(id) => Some(SessionInfo {
            path: PathBuf::new(),
            id,
            cwd: r.get(10)?,
            name: r.get(11)?,
            parent_session_path: r.get(12)?,
            created_ms: r.get(13)?,
            modified_ms: r.get(14)?,
            message_count: r.get::<_, i64>(15)? as u64,
            first_message: r.get(16)?,
            agent: Dialect::Pi,
            version: r.get::<_, i64>(17)? as u32,
            bytes: key.size,
            entry_count: r.get::<_, i64>(18)? as u64,
            leaf_count: r.get::<_, i64>(19)? as u64,
            label_count: r.get::<_, i64>(20)? as u64,
            has_name: r.get(21)?,
            internal: false,
            workflow: r
                .get::<_, Option<String>>(22)?
                .and_then(|w| serde_json::from_str::<WorkflowInfo>(&w).ok()),
            summary: r.get(23)?,
            total_tokens: r.get::<_, i64>(24)? as u64,
            cost: r.get(25)?,
            last_stop_reason: r.get(36)?,
            model: r.get(37)?,
            parse_issues: r.get::<_, i64>(26)? as u64,
            first_issue: r.get(27)?,
            all_messages_text: String::new(),
            tool_text: r.get(35)?,
        }),
    };
    let info = info.map(|mut i| {
        i.internal = i.workflow.is_some();
        i
    });
    Ok((
        path,
        Row {
            id: r.get(0)?,
            key,
            head_hash: r.get::<_, i64>(7)? as u64,
            problem: r.get(8)?,
            detected_agent: agent_of(r.get(28)?),
            info,
            text_len: r.get::<_, i64>(29)? as u64,
            torn_text: r.get(30)?,
            has_state: r.get(31)?,
            resume_offset: r.get::<_, i64>(32)? as u64,
            tail_hash: r.get::<_, i64>(33)? as u64,
            intact: false,
        },
    ))
    .map(|(path, mut row)| {
        let agent = row.detected_agent.map(agent_code);
        let want = row_hash(
            &path_bytes(&path),
            &row.key,
            row.head_hash,
            row.problem.as_deref(),
            agent,
            row.info.as_ref(),
            row.text_len as i64,
            &row.torn_text,
            row.has_state,
            row.resume_offset,
            row.tail_hash,
        );
        row.intact = r.get::<_, i64>(34).is_ok_and(|h| h as u64 == want);
        (path, row)
    })
}

pub(crate) const SELECT_ROWS: &str =
    "SELECT id, path, dev, ino, size, mtime_ns, ctime_ns, head_hash,
    problem, info_id, cwd, name, parent_session_path, created_ms, modified_ms, message_count,
    first_message, version, entry_count, leaf_count, label_count, has_name, workflow, summary,
    total_tokens, cost, parse_issues, first_issue, detected_agent, text_len, torn_text,
    state IS NOT NULL, resume_offset, tail_hash, row_hash, tool_text, last_stop_reason, model
    FROM sessions";

/// The hash of a row's fields, stored with it: a row damaged on disk (a flipped bit in a
/// name, a count) reads as not intact and is rescanned.
#[allow(clippy::too_many_arguments)]
pub(crate) fn row_hash(
    path: &[u8],
    key: &FileKey,
    head_hash: u64,
    problem: Option<&str>,
    agent: Option<i64>,
    info: Option<&SessionInfo>,
    text_len: i64,
    torn_text: &str,
    has_state: bool,
    resume_offset: u64,
    tail_hash: u64,
) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = foldhash::quality::FixedState::with_seed(0x0067_726f_7665).build_hasher();
    (path, key.dev, key.ino, key.size, key.mtime_ns, key.ctime_ns).hash(&mut h);
    (head_hash, problem, agent, text_len, torn_text, has_state).hash(&mut h);
    (resume_offset, tail_hash).hash(&mut h);
    if let Some(i) = info {
        (
            &i.id,
            &i.cwd,
            &i.name,
            &i.parent_session_path,
            i.created_ms,
            i.modified_ms,
        )
            .hash(&mut h);
        (
            i.message_count,
            &i.first_message,
            i.version,
            i.entry_count,
            i.leaf_count,
        )
            .hash(&mut h);
        (
            i.label_count,
            i.has_name,
            &i.summary,
            i.total_tokens,
            i.cost.to_bits(),
        )
            .hash(&mut h);
        (i.parse_issues, &i.first_issue, &i.tool_text).hash(&mut h);
        (&i.last_stop_reason, &i.model).hash(&mut h);
        if let Some(w) = &i.workflow {
            (&w.run_id, &w.stage_id, &w.stage_name).hash(&mut h);
        }
    }
    h.finish()
}
