//! The comparison machinery shared by `differential_pi.rs` and `differential_atomic.rs`: a
//! program's oracle (what its own library reports for each fixture file) is compared field by
//! field with grove, and every difference must be on that test's allow-list.
#![allow(dead_code)]

pub use compare::compare_file;
mod compare;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use grove::model::context::{Dialect, LeafChoice, SessionContext, build_context};
use grove::model::info::SessionInfo;
use grove::model::parse::repair_lone_surrogates;
use grove::model::tree::Session;
use grove::storage::read::{ReadError, load_session, scan_info};
use grove::storage::scan::sort_by_modified;
use serde_json::Value;
use sha2::{Digest, Sha256};

pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// One deliberate difference: a file, a field, and why grove does not do what the program does.
pub struct Allowed {
    pub file: &'static str,
    pub field: &'static str,
    pub reason: &'static str,
}

/// What differs between the programs compared: where their fixtures and oracle live and the
/// shape of their listing.
pub struct Program {
    /// The program's name in failure messages and in `docs/differences.md`.
    pub name: &'static str,
    /// The sessions root under `tests/fixtures`.
    pub sessions: &'static str,
    /// The oracle folder under `tests/fixtures`.
    pub oracle: &'static str,
    pub dialect: Dialect,
    /// The oracle's complete listing in `list.json`, and the field its presence is reported as.
    pub list_key: &'static str,
    pub listed_field: &'static str,
    /// The key of `list(cwd, dir)` under each folder of `perDir`.
    pub per_dir_key: &'static str,
    /// Listing fields beyond pi's, from the oracle's listing entry and grove's.
    pub extra_list_fields: fn(&Value, &SessionInfo) -> Vec<ListField>,
}

/// A listing field: its name, the oracle's value and grove's.
pub type ListField = (&'static str, Value, Value);

pub fn sha16(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // The oracle quotes text with lone surrogates (`"\ud83d"`), which serde_json refuses.
    let text = repair_lone_surrogates(&text).unwrap_or(text);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A difference between grove and the oracle.
#[derive(Debug)]
pub struct Diff {
    pub file: String,
    pub field: String,
    pub oracle: String,
    pub grove: String,
}

#[derive(Default)]
pub struct Diffs(pub Vec<Diff>);

impl Diffs {
    pub fn check<T: PartialEq + std::fmt::Debug>(
        &mut self,
        file: &str,
        field: &str,
        oracle: T,
        grove: T,
    ) {
        if oracle != grove {
            self.0.push(Diff {
                file: file.to_owned(),
                field: field.to_owned(),
                oracle: short(&format!("{oracle:?}")),
                grove: short(&format!("{grove:?}")),
            });
        }
    }
}

pub fn short(s: &str) -> String {
    if s.chars().count() > 400 {
        let head: String = s.chars().take(400).collect();
        format!("{head}…")
    } else {
        s.to_owned()
    }
}

pub fn file_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// All `*.jsonl` files one level under the sessions root, as `<S>/<folder>/<file>`.
pub fn session_files(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    for dir in fs::read_dir(root).expect("root").flatten() {
        for f in fs::read_dir(dir.path()).expect("dir").flatten() {
            let p = f.path();
            if p.extension().and_then(|e| e.to_str()) == Some("jsonl") {
                let key = format!(
                    "<S>/{}/{}",
                    dir.file_name().to_string_lossy(),
                    f.file_name().to_string_lossy()
                );
                out.insert(key, p);
            }
        }
    }
    out
}

pub fn opt_str(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

/// The listing fields in the oracle's terms.
pub fn list_fields(info: &SessionInfo) -> Vec<(&'static str, Value)> {
    let text = &info.all_messages_text;
    vec![
        ("id", Value::from(info.id.clone())),
        ("cwd", Value::from(info.cwd.clone())),
        ("name", info.name.clone().map_or(Value::Null, Value::from)),
        (
            "parentSessionPath",
            info.parent_session_path
                .clone()
                .map_or(Value::Null, Value::from),
        ),
        // pi stringifies an unparseable header time as "Invalid Date"; grove has none.
        (
            "created",
            Value::from(info.created_iso().unwrap_or_else(|| "Invalid Date".into())),
        ),
        ("modified", Value::from(info.modified_iso())),
        ("messageCount", Value::from(info.message_count)),
        ("firstMessage", Value::from(info.first_message.clone())),
        (
            "allMessagesTextLength",
            Value::from(text.encode_utf16().count()),
        ),
        ("allMessagesTextSha", Value::from(sha16(text.as_bytes()))),
    ]
}

/// Maps oracle ids to grove ids by position in file order (identity except for v1 files,
/// whose ids pi generates at random): comparing trees by structure, not by id.
pub fn id_map(oracle: &Value, session: &Session) -> HashMap<String, String> {
    let mut map = HashMap::new();
    if let Some(entries) = oracle["entries"].as_array() {
        for (o, g) in entries.iter().zip(session.entries()) {
            if let Some(id) = o[0].as_str() {
                map.insert(id.to_owned(), g.id.clone());
            }
        }
    }
    map
}

pub fn map_strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

pub fn map_id(map: &HashMap<String, String>, id: &str) -> String {
    map.get(id).cloned().unwrap_or_else(|| id.to_owned())
}

pub fn map_ids(map: &HashMap<String, String>, v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|s| map_id(map, s))
                .collect()
        })
        .unwrap_or_default()
}

/// pi's folder name for a cwd (`getDefaultSessionDir`).
pub fn default_folder(cwd: &str) -> String {
    let trimmed = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", trimmed.replace(['/', '\\', ':'], "-"))
}

pub fn key_of(root: &Path, p: &Path) -> String {
    let rel = p.strip_prefix(root).unwrap_or(p);
    format!("<S>/{}", rel.to_string_lossy())
}

/// Copies a program's sessions to a temp dir, giving each file (named `<folder>/<file>`) the
/// mtime `mtime` says: git does not keep mtimes, and listing fields can fall back to them.
pub fn copy_sessions(
    program: &Program,
    mtime: impl Fn(&str) -> SystemTime,
) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = Path::new(FIXTURES).join(program.sessions);
    let dst = tmp.path().join("sessions");
    for dir in fs::read_dir(&src).expect("sessions").flatten() {
        let target = dst.join(dir.file_name());
        fs::create_dir_all(&target).expect("mkdir");
        for f in fs::read_dir(dir.path()).expect("folder").flatten() {
            let to = target.join(f.file_name());
            fs::copy(f.path(), &to).expect("copy");
            let rel = format!(
                "{}/{}",
                dir.file_name().to_string_lossy(),
                f.file_name().to_string_lossy()
            );
            fs::File::options()
                .write(true)
                .open(&to)
                .and_then(|h| h.set_modified(mtime(&rel)))
                .expect("set mtime");
        }
    }
    (tmp, dst)
}

pub struct Run {
    pub diffs: Diffs,
    /// grove's listing of every file (Ok or the error), by `<S>/…` key.
    pub listing: BTreeMap<String, Result<SessionInfo, String>>,
}

/// Compares grove with the program's oracle on every session under `root` (a copy of the
/// program's sessions).
pub fn run(program: &Program, root: &Path) -> Run {
    let oracle_dir = Path::new(FIXTURES).join(program.oracle);
    let list = read_json(&oracle_dir.join("list.json"));
    let index = read_json(&oracle_dir.join("index.json"));
    let files = session_files(root);
    let mut diffs = Diffs::default();

    // Every file the oracle knows about is a fixture, and the other way round.
    let oracle_files: BTreeSet<String> = index
        .as_array()
        .expect("index")
        .iter()
        .map(|e| e["file"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(
        oracle_files,
        files.keys().cloned().collect(),
        "the fixture files and the oracle's index disagree"
    );

    // Listing.
    let mut listing = BTreeMap::new();
    for (key, path) in &files {
        let r = scan_info(path, Some(program.dialect)).map_err(|e| match e {
            ReadError::NoHeader { .. } => "NoHeader".to_owned(),
            other => other.to_string(),
        });
        listing.insert(key.clone(), r);
    }
    let oracle_list = list[program.list_key]
        .as_array()
        .unwrap_or_else(|| panic!("{}", program.list_key));
    let oracle_listed: HashMap<String, &Value> = oracle_list
        .iter()
        .map(|e| (e["path"].as_str().unwrap_or("").to_owned(), e))
        .collect();
    for (key, r) in &listing {
        let name = file_name(key);
        let o = oracle_listed.get(key);
        diffs.check(name, program.listed_field, o.is_some(), r.is_ok());
        if let (Some(o), Ok(info)) = (o, r) {
            for (field, value) in list_fields(info) {
                let oracle = o.get(field).cloned().unwrap_or(Value::Null);
                diffs.check(name, &format!("list.{field}"), oracle, value);
            }
            for (field, oracle, value) in (program.extra_list_fields)(o, info) {
                diffs.check(name, &format!("list.{field}"), oracle, value);
            }
        }
    }
    // Sort order of the whole listing (pi: modified, newest first).
    let mut sorted: Vec<SessionInfo> = listing
        .values()
        .filter_map(|r| r.as_ref().ok().cloned())
        .filter(|i| oracle_listed.contains_key(&key_of(root, &i.path)))
        .collect();
    sort_by_modified(&mut sorted);
    let grove_order: Vec<String> = sorted.iter().map(|i| key_of(root, &i.path)).collect();
    let oracle_order: Vec<String> = oracle_list
        .iter()
        .map(|e| e["path"].as_str().unwrap_or("").to_owned())
        .collect();
    diffs.check("(all)", "listAll.order", oracle_order, grove_order);

    // list(cwd, dir) per folder: the folder's sessions with that header cwd, newest first.
    for (folder, o) in list["perDir"].as_object().expect("perDir") {
        for (cwd_json, lists) in o["list"].as_object().expect("list") {
            let cwd: String = serde_json::from_str(cwd_json).unwrap_or_default();
            if cwd.is_empty() {
                // A header without cwd: pi's list("") resolves "" to its own process cwd, which
                // says nothing about the file; grove reports cwd "" for it.
                continue;
            }
            let mut infos: Vec<SessionInfo> = listing
                .iter()
                .filter(|(k, _)| k.starts_with(&format!("<S>/{folder}/")))
                .filter_map(|(_, r)| r.as_ref().ok().cloned())
                // pi filters by header cwd only when `dir` is not cwd's own default folder.
                .filter(|i| folder == &default_folder(&cwd) || i.cwd == cwd)
                .collect();
            sort_by_modified(&mut infos);
            let grove: Vec<String> = infos
                .iter()
                .map(|i| key_of(root, &i.path))
                .filter(|k| oracle_listed.contains_key(k))
                .collect();
            let oracle: Vec<String> = lists[program.per_dir_key]
                .as_array()
                .map(|a| a.iter().filter_map(opt_str).collect())
                .unwrap_or_default();
            diffs.check(folder, &format!("list({cwd}).order"), oracle, grove);
        }
    }

    // Per file.
    for (key, path) in &files {
        let name = file_name(key);
        let folder = key.split('/').nth(1).unwrap_or("");
        let oracle = read_json(&oracle_dir.join(format!("files/{folder}/{name}.json")));
        let before = fs::read(path).expect("read");
        let session = load_session(path);
        assert_eq!(
            fs::read(path).expect("read"),
            before,
            "{name}: grove changed the file"
        );
        let changed_by_program = oracle["mutatedByOpen"]["changed"]
            .as_bool()
            .unwrap_or(false);
        diffs.check(name, "mutatedByOpen", changed_by_program, false);
        let session = session.unwrap_or_else(|e| panic!("{name}: {e}"));
        let program_opened = oracle["open"]["ok"].as_bool().unwrap_or(false);
        let grove_opened = session.parsed.header.is_some();
        diffs.check(name, "open", program_opened, grove_opened);
        if program_opened && grove_opened {
            compare_file(&mut diffs, name, &oracle, &session, program.dialect);
        }
    }
    Run { diffs, listing }
}

/// Fails on a difference that is not on the allow-list, and on an allow-list entry that no
/// longer matches a difference, so the list stays exact. With `GROVE_PRINT_DIFFERENCES` set,
/// prints the rows of `docs/differences.md`.
pub fn assert_only_allowed(program: &Program, diffs: &Diffs, allowed: &[Allowed]) {
    let mut unexpected = Vec::new();
    let mut used = vec![false; allowed.len()];
    for d in &diffs.0 {
        match allowed
            .iter()
            .position(|a| a.file == d.file && a.field == d.field)
        {
            Some(i) => {
                used[i] = true;
                if std::env::var_os("GROVE_PRINT_DIFFERENCES").is_some() {
                    println!(
                        "| `{}` | `{}` | {} | {} | {} |",
                        d.file,
                        d.field,
                        d.oracle.replace('|', "\\|"),
                        d.grove.replace('|', "\\|"),
                        allowed[i].reason
                    );
                }
            }
            None => unexpected.push(format!(
                "{} {}:\n    {}: {}\n    grove: {}",
                d.file, d.field, program.name, d.oracle, d.grove
            )),
        }
    }
    let stale: Vec<String> = allowed
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(a, _)| format!("{} {}", a.file, a.field))
        .collect();
    assert!(
        unexpected.is_empty() && stale.is_empty(),
        "{} unexpected difference(s):\n{}\n\nallow-list entries that no longer match a difference:\n{}",
        unexpected.len(),
        unexpected.join("\n"),
        stale.join("\n")
    );
}

/// Every allow-list entry has its row in `docs/differences.md`.
pub fn assert_documented(program: &Program, allowed: &[Allowed]) {
    let doc = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/differences.md"))
        .expect("docs/differences.md");
    for a in allowed {
        let row_found = doc.lines().any(|l| {
            l.starts_with('|') && l.contains(a.file) && l.contains(&format!("`{}`", a.field))
        });
        assert!(
            row_found,
            "docs/differences.md has no {} row for {} `{}` ({})",
            program.name, a.file, a.field, a.reason
        );
    }
}

/// A fixture session of the program, loaded from the fixtures themselves (read-only).
pub fn grove_session(program: &Program, name: &str) -> (PathBuf, Session) {
    let root = Path::new(FIXTURES).join(program.sessions);
    let path = session_files(&root)
        .into_iter()
        .find(|(k, _)| file_name(k) == name)
        .map(|(_, p)| p)
        .unwrap_or_else(|| panic!("no fixture {name}"));
    let s = load_session(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    (path, s)
}
