//! A session file written line by line in a temp dir, the way pi's and Atomic's
//! `SessionManager` would have written it: shared by the reference tests of both programs.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use grove::model::entry::format_iso_ms;
use grove::model::tree::Session;
use grove::storage::read::load_session;
use serde_json::{Value, json};

pub struct Builder {
    _dir: tempfile::TempDir,
    pub path: PathBuf,
    pub lines: Vec<Value>,
    last: Option<String>,
    /// Seconds after `t0` of the last entry: each entry is one second after the one before.
    clock: i64,
    t0: i64,
}

impl Builder {
    /// A file named `file_name` holding `header`, whose entries start one second after `t0`
    /// (Unix milliseconds).
    pub fn create(file_name: &str, t0: i64, header: Value) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(file_name);
        Builder {
            _dir: dir,
            path,
            lines: vec![header],
            last: None,
            clock: 0,
            t0,
        }
    }

    /// The `timestamp` (Unix ms) of the next entry, for the message inside it.
    fn next_ms(&self) -> i64 {
        self.t0 + (self.clock + 1) * 1000
    }

    /// Appends an entry with `parentId` = the current leaf; returns its id.
    pub fn push(&mut self, id: &str, entry: Value) -> String {
        let parent = self.last.clone();
        self.push_at(id, parent.as_deref(), entry)
    }

    /// Appends an entry under an explicit parent (pi's `branch()` then append).
    pub fn push_at(&mut self, id: &str, parent: Option<&str>, mut entry: Value) -> String {
        let ms = self.next_ms();
        self.clock += 1;
        let obj = entry.as_object_mut().expect("object");
        let mut full = serde_json::Map::new();
        full.insert(
            "type".into(),
            obj.remove("type").unwrap_or(json!("message")),
        );
        full.insert("id".into(), json!(id));
        full.insert("parentId".into(), parent.map_or(Value::Null, |p| json!(p)));
        full.insert("timestamp".into(), json!(format_iso_ms(ms)));
        full.extend(std::mem::take(obj));
        self.lines.push(Value::Object(full));
        self.last = Some(id.to_owned());
        id.to_owned()
    }

    pub fn message(&mut self, id: &str, message: Value) -> String {
        self.push(id, json!({"type":"message","message":message}))
    }

    pub fn user(&mut self, id: &str, text: &str) -> String {
        let ms = self.next_ms();
        self.message(id, json!({"role":"user","content":text,"timestamp":ms}))
    }

    pub fn assistant(&mut self, id: &str, text: &str) -> String {
        self.assistant_with(id, text, "anthropic", "claude")
    }

    pub fn assistant_with(&mut self, id: &str, text: &str, provider: &str, model: &str) -> String {
        let ms = self.next_ms();
        self.message(
            id,
            json!({"role":"assistant","content":[{"type":"text","text":text}],"provider":provider,"model":model,"stopReason":"stop","timestamp":ms}),
        )
    }

    /// An Atomic verbatim compaction (`details.strategy` = `verbatim-lines`).
    pub fn verbatim(&mut self, id: &str, summary: &str, first_kept: Option<&str>) -> String {
        self.push(
            id,
            json!({"type":"compaction","summary":summary,"firstKeptEntryId":first_kept,"tokensBefore":1000,"details":{"strategy":"verbatim-lines","promptVersion":3}}),
        )
    }

    pub fn write(&self) -> &Path {
        let mut text = String::new();
        for l in &self.lines {
            text.push_str(&serde_json::to_string(l).expect("JSON"));
            text.push('\n');
        }
        fs::write(&self.path, text).expect("write");
        &self.path
    }

    pub fn load(&self) -> Session {
        load_session(self.write()).expect("load")
    }
}
