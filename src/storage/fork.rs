//! Forking: a new session file holding the path from the root to one entry
//! (`createBranchedSession` semantics, as pi 1.6.0 does it: labels re-chained so nothing is
//! orphaned).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::model::entry::{EntryKind, JsonMap, format_iso_ms};

use super::append::{WriteError, fresh_id, new_session_uuid, now_ms};
use super::read::load_session;

/// Where a fork was written.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Forked {
    pub path: PathBuf,
    pub id: String,
    pub leaf_id: Option<String>,
}

/// The file name pi gives a session: `<timestamp with : and . as ->_<id>.jsonl`.
pub fn session_file_name(timestamp: &str, id: &str) -> String {
    format!("{}_{id}.jsonl", timestamp.replace([':', '.'], "-"))
}

/// Writes a new session in the same folder as `source` holding the path to `at` (default:
/// the leaf). Never overwrites a file; the new file appears whole (written under no name,
/// synced, then linked into place) or not at all.
pub fn fork_session(source: &Path, at: Option<&str>) -> Result<Forked, WriteError> {
    let session = load_session(source)?;
    let p = || source.to_path_buf();
    let Some(header) = &session.parsed.header else {
        return Err(WriteError::NoHeader { path: p() });
    };
    let entries = session.entries();
    let target = match at {
        Some(id) => session
            .tree
            .index_of(id)
            .ok_or_else(|| WriteError::UnknownEntry {
                path: p(),
                id: id.to_owned(),
            })?,
        None => session.tree.leaf.ok_or_else(|| WriteError::UnknownEntry {
            path: p(),
            id: "(leaf)".into(),
        })?,
    };
    let path = session.tree.path_to(target);
    let now = now_ms();
    let timestamp = format_iso_ms(now);
    let id = new_session_uuid(now);

    let mut h = JsonMap::new();
    h.insert("type".into(), json!("session"));
    h.insert("version".into(), json!(3));
    h.insert("id".into(), json!(id));
    h.insert("timestamp".into(), json!(timestamp));
    h.insert("cwd".into(), json!(header.cwd));
    let abs_source = std::fs::canonicalize(source).unwrap_or_else(|_| source.to_path_buf());
    h.insert("parentSession".into(), json!(abs_source.to_string_lossy()));
    if header.workflow().is_some() {
        // A valid Atomic workflow classification is inherited by its branches.
        for k in ["internal", "workflow"] {
            if let Some(v) = header.raw.get(k) {
                h.insert(k.into(), v.clone());
            }
        }
    }
    let mut lines = vec![Value::Object(h)];

    // Path entries minus labels; parents re-chained over removed labels.
    let mut remap: HashMap<&str, Option<String>> = HashMap::new();
    let mut prev: Option<String> = None;
    let mut kept_ids: Vec<&str> = Vec::new();
    for &i in &path {
        let e = &entries[i];
        if e.kind == EntryKind::Label {
            remap.insert(e.id.as_str(), None);
            continue;
        }
        let mut raw = e.raw().clone();
        if e.parent_id.is_some() || prev.is_some() {
            raw.insert(
                "parentId".into(),
                prev.clone().map_or(Value::Null, Value::String),
            );
        }
        prev = Some(e.id.clone());
        kept_ids.push(e.id.as_str());
        lines.push(Value::Object(raw));
    }
    // A compaction whose first kept entry was a removed label keeps from the next entry.
    let path_ids: Vec<&str> = path.iter().map(|&i| entries[i].id.as_str()).collect();
    for line in lines.iter_mut().skip(1) {
        let Some(obj) = line.as_object_mut() else {
            continue;
        };
        let Some(first) = obj.get("firstKeptEntryId").and_then(Value::as_str) else {
            continue;
        };
        if remap.contains_key(first) {
            let next = path_ids
                .iter()
                .skip_while(|x| **x != first)
                .find(|x| !remap.contains_key(**x))
                .map(|s| s.to_string());
            obj.insert(
                "firstKeptEntryId".into(),
                next.map_or(Value::Null, Value::String),
            );
        }
    }
    // Labels whose target is on the path, chained after the last entry, keeping their time.
    let mut taken: Vec<String> = kept_ids.iter().map(|s| s.to_string()).collect();
    let mut label_lines = Vec::new();
    let mut targets: Vec<(&str, &crate::model::tree::Label)> = session
        .tree
        .labels
        .iter()
        .filter(|(t, _)| kept_ids.contains(&t.as_str()))
        .map(|(t, l)| (t.as_str(), l))
        .collect();
    targets.sort_by_key(|(t, _)| path_ids.iter().position(|x| x == t));
    for (target, label) in targets {
        let set: std::collections::HashSet<&str> = taken.iter().map(String::as_str).collect();
        let lid = fresh_id(&set);
        label_lines.push(json!({
            "type": "label",
            "id": lid,
            "parentId": prev,
            "timestamp": label.timestamp,
            "targetId": target,
            "label": label.text,
        }));
        prev = Some(lid.clone());
        taken.push(lid);
    }
    lines.extend(label_lines);

    let mut text = String::new();
    for l in &lines {
        text.push_str(&serde_json::to_string(l).unwrap_or_default());
        text.push('\n');
    }
    let dir = source.parent().unwrap_or(Path::new("."));
    let out = dir.join(session_file_name(&timestamp, &id));
    // Whole or not at all: a killed fork leaves no partial session to be listed.
    super::safe_fs::write_new_file(&out, &mut |w| w.write_all(text.as_bytes())).map_err(|e| {
        WriteError::Io {
            path: e.path,
            source: e.source,
        }
    })?;
    Ok(Forked {
        path: out,
        id,
        leaf_id: prev,
    })
}
