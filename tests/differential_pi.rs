//! Differential test: grove against what the real pi 1.6.0 library reports for the same files
//! (`tests/fixtures/pi-agent` + `tests/fixtures/pi-oracle`, see `tests/fixtures/README.md`).
//!
//! Every field the oracle records is compared for every fixture file. A difference fails the
//! test unless it is on the allow-list below ([`ALLOWED`]): one entry per file and field, each a
//! deliberate improvement with its reason, mirrored in `docs/differences.md`. An allow-list entry
//! that no longer matches a difference fails too, so the list stays exact. For the files on the
//! allow-list, grove's own values are asserted separately ([`grove_values_where_it_differs`]).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use grove::model::context::{Dialect, LeafChoice, build_context};
use grove::model::entry::format_iso_ms;
use grove::model::info::SessionInfo;
use grove::model::parse::{IssueKind, repair_lone_surrogates};
use grove::model::tree::Session;
use grove::storage::read::{ReadError, load_session, scan_info};
use grove::storage::scan::sort_by_modified;
use serde_json::Value;
use sha2::{Digest, Sha256};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// Files named by the allow-list.
const V1: &str = "2024-11-02T10-00-00-000Z_11111111-1111-4111-8111-111111111111.jsonl";
const V1_EXPLICIT: &str = "2024-11-03T08-00-00-000Z_22222222-2222-4222-8222-222222222222.jsonl";
const V2: &str = "2024-12-01T12-00-00-000Z_33333333-3333-4333-8333-333333333333.jsonl";
const TORN: &str = "2025-01-10T09-00-00-000Z_d1000000-0000-4000-8000-000000000001.jsonl";
const EMPTY: &str = "2025-01-12T09-00-00-000Z_d1000000-0000-4000-8000-000000000003.jsonl";
const NO_HEADER: &str = "2025-01-14T09-00-00-000Z_d1000000-0000-4000-8000-000000000005.jsonl";
const CYCLE: &str = "2025-01-17T10-00-00-000Z_d1000000-0000-4000-8000-000000000016.jsonl";
const MID_UTF8: &str = "2025-01-19T09-00-00-000Z_d1000000-0000-4000-8000-000000000010.jsonl";
const NULL_CONTENT: &str = "2025-01-20T09-00-00-000Z_d1000000-0000-4000-8000-000000000011.jsonl";
const BEFORE_HEADER: &str = "2025-01-23T09-00-00-000Z_d1000000-0000-4000-8000-000000000014.jsonl";
const LONE_SURROGATE: &str = "2025-06-02T20-16-25-752Z_01973249-c898-756e-8318-87fad36592e1.jsonl";
/// Files with a raw U+2028 inside a message line.
const U2028_FILES: [&str; 7] = [
    "2025-06-01T12-11-31-206Z_01972b67-7a06-756e-8318-87c4f0a60323.jsonl",
    "2025-06-01T21-16-14-970Z_01972d5a-30fa-756e-8318-87d959387c58.jsonl",
    "2025-06-02T02-10-34-497Z_01972e67-a781-756e-8318-87df4e26de10.jsonl",
    "2025-06-02T05-08-05-152Z_01972f0a-2ba0-756e-8318-87e09d7ff088.jsonl",
    "2025-06-02T06-28-48-858Z_01972f54-145a-756e-8318-87e5d5291a9b.jsonl",
    "2025-06-02T10-41-58-050Z_0197303b-d922-756e-8318-87e91f895a7b.jsonl",
    "2025-06-02T21-43-48-321Z_01973299-c761-756e-8318-87ff969e65f3.jsonl",
];
const BAD_TIMESTAMP: &str = "2025-01-18T09-00-00-000Z_d1000000-0000-4000-8000-000000000009.jsonl";

/// One deliberate difference: a file, a field, and why grove does not do what pi does.
struct Allowed {
    file: &'static str,
    field: &'static str,
    reason: &'static str,
}

const U2028_REASON: &str = "pi's listing reads lines with Node's readline, which also breaks lines at U+2028, so it skips the message line holding one; grove splits on \\n only and counts it";

/// A U+2028 listing difference (the same reason for each file and field).
const fn u2028(file: &'static str, field: &'static str) -> Allowed {
    Allowed {
        file,
        field,
        reason: U2028_REASON,
    }
}

/// The deliberate differences. Field names: `listed`, `list.<SessionInfo field>`, `open`,
/// `mutatedByOpen`, `leaf`, `name`, `labels`, `tree.roots`, `tree.children`, `branch`,
/// `contextEntries`, `context.model`, `context.thinkingLevel`, `context.messages`.
const ALLOWED: &[Allowed] = &[
    // pi's open() rewrites v1/v2 files to migrate them; grove migrates in memory only.
    Allowed {
        file: V1,
        field: "mutatedByOpen",
        reason: "pi rewrites a v1 file on open to migrate it; grove migrates in memory and never writes",
    },
    Allowed {
        file: V1_EXPLICIT,
        field: "mutatedByOpen",
        reason: "pi rewrites a v1 file on open to migrate it; grove migrates in memory and never writes",
    },
    Allowed {
        file: V2,
        field: "mutatedByOpen",
        reason: "pi rewrites a v2 file on open to migrate it; grove migrates in memory and never writes",
    },
    Allowed {
        file: TORN,
        field: "mutatedByOpen",
        reason: "pi appends a newline after a torn last line on open; grove never writes while reading (its appends refuse a torn tail instead)",
    },
    Allowed {
        file: MID_UTF8,
        field: "mutatedByOpen",
        reason: "pi appends a newline after a torn last line on open; grove never writes while reading",
    },
    Allowed {
        file: EMPTY,
        field: "mutatedByOpen",
        reason: "pi replaces an empty file with a fresh header on open; grove never writes while reading",
    },
    Allowed {
        file: EMPTY,
        field: "open",
        reason: "pi's open() turns an empty file into a session by writing a fresh header; grove reports the file as having no header and leaves it empty",
    },
    // A lone surrogate escape (`\ud83d`) in an assistant message: serde_json refuses it, so grove
    // loads the line with U+FFFD in its place; JSON.stringify keeps the escape, so the sha differs.
    Allowed {
        file: LONE_SURROGATE,
        field: "context.messages[1108fd63]",
        reason: "the message holds an escaped lone surrogate; grove loads it with U+FFFD in its place (pi keeps the unpaired escape), so the message JSON differs in that character",
    },
    // Raw U+2028 inside a message line.
    u2028(U2028_FILES[0], "list.messageCount"),
    u2028(U2028_FILES[0], "list.allMessagesTextLength"),
    u2028(U2028_FILES[0], "list.allMessagesTextSha"),
    u2028(U2028_FILES[1], "list.messageCount"),
    u2028(U2028_FILES[1], "list.allMessagesTextLength"),
    u2028(U2028_FILES[1], "list.allMessagesTextSha"),
    u2028(U2028_FILES[2], "list.messageCount"),
    u2028(U2028_FILES[2], "list.allMessagesTextLength"),
    u2028(U2028_FILES[2], "list.allMessagesTextSha"),
    u2028(U2028_FILES[3], "list.messageCount"),
    u2028(U2028_FILES[3], "list.allMessagesTextLength"),
    u2028(U2028_FILES[3], "list.allMessagesTextSha"),
    u2028(U2028_FILES[4], "list.messageCount"),
    u2028(U2028_FILES[4], "list.allMessagesTextLength"),
    u2028(U2028_FILES[4], "list.allMessagesTextSha"),
    u2028(U2028_FILES[5], "list.messageCount"),
    u2028(U2028_FILES[5], "list.allMessagesTextLength"),
    u2028(U2028_FILES[5], "list.allMessagesTextSha"),
    u2028(U2028_FILES[6], "list.messageCount"),
    u2028(U2028_FILES[6], "list.allMessagesTextLength"),
    u2028(U2028_FILES[6], "list.allMessagesTextSha"),
    // The content:null message: pi's listing throws on it and drops the whole session.
    Allowed {
        file: NULL_CONTENT,
        field: "listed",
        reason: "pi's listing throws on a `content: null` message and hides the whole session; grove lists it",
    },
    // The parentId cycle: pi never returns from getBranch()/buildSessionContext().
    Allowed {
        file: CYCLE,
        field: "tree.roots",
        reason: "pi leaves the cycle members unreachable; grove cuts the cycle at its first member in file order, which becomes a root",
    },
    Allowed {
        file: CYCLE,
        field: "tree.children",
        reason: "pi leaves the cycle members unreachable; grove shows them under the root it made",
    },
    Allowed {
        file: CYCLE,
        field: "branch",
        reason: "pi loops forever on getBranch() (no oracle value); grove returns the path from the cut",
    },
    Allowed {
        file: CYCLE,
        field: "contextEntries",
        reason: "pi loops forever (no oracle value); grove builds the context of the cut path",
    },
    Allowed {
        file: CYCLE,
        field: "context.model",
        reason: "pi runs out of memory building this context (no oracle value); grove builds it",
    },
    Allowed {
        file: CYCLE,
        field: "context.thinkingLevel",
        reason: "pi runs out of memory building this context (no oracle value); grove builds it",
    },
    Allowed {
        file: CYCLE,
        field: "context.messages[c0000001]",
        reason: "pi runs out of memory building this context (no oracle value); grove builds it",
    },
    Allowed {
        file: CYCLE,
        field: "context.messages[c0000002]",
        reason: "pi runs out of memory building this context (no oracle value); grove builds it",
    },
];

fn sha16(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // The oracle quotes text with lone surrogates (`"\ud83d"`), which serde_json refuses.
    let text = repair_lone_surrogates(&text).unwrap_or(text);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A difference between grove and the oracle.
#[derive(Debug)]
struct Diff {
    file: String,
    field: String,
    oracle: String,
    grove: String,
}

#[derive(Default)]
struct Diffs(Vec<Diff>);

impl Diffs {
    fn check<T: PartialEq + std::fmt::Debug>(
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

fn short(s: &str) -> String {
    if s.chars().count() > 400 {
        let head: String = s.chars().take(400).collect();
        format!("{head}…")
    } else {
        s.to_owned()
    }
}

fn file_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// Copies the pi sessions to a temp dir with fixed mtimes, so listing fields that fall back to
/// the file mtime are deterministic. pi-agent has no MANIFEST: every file gets a fixed old time
/// except the one whose header time is unparseable, which gets the mtime the oracle saw.
fn sessions_copy(oracle_list: &Value) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = Path::new(FIXTURES).join("pi-agent/sessions");
    let dst = tmp.path().join("sessions");
    let oracle_mtime: HashMap<String, i64> = oracle_list["listAll"]
        .as_array()
        .expect("listAll")
        .iter()
        .map(|e| {
            (
                file_name(e["path"].as_str().unwrap_or("")).to_owned(),
                e["modifiedMs"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    for dir in fs::read_dir(&src).expect("sessions").flatten() {
        let target = dst.join(dir.file_name());
        fs::create_dir_all(&target).expect("mkdir");
        for f in fs::read_dir(dir.path()).expect("folder").flatten() {
            let to = target.join(f.file_name());
            fs::copy(f.path(), &to).expect("copy");
            let name = f.file_name().to_string_lossy().into_owned();
            let ms = if name == BAD_TIMESTAMP {
                oracle_mtime[&name]
            } else {
                946_684_800_000 // 2000-01-01: any use of it shows up as a difference
            };
            let t = SystemTime::UNIX_EPOCH + Duration::from_millis(ms as u64);
            fs::File::options()
                .write(true)
                .open(&to)
                .and_then(|h| h.set_modified(t))
                .expect("set mtime");
        }
    }
    (tmp, dst)
}

/// All `*.jsonl` files one level under the sessions root, as `<S>/<folder>/<file>`.
fn session_files(root: &Path) -> BTreeMap<String, PathBuf> {
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

fn opt_str(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

/// The listing fields in the oracle's terms.
fn list_fields(info: &SessionInfo) -> Vec<(&'static str, Value)> {
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

fn oracle_list_value(e: &Value, key: &str) -> Value {
    e.get(key).cloned().unwrap_or(Value::Null)
}

/// Maps oracle ids to grove ids by position in file order (identity except for v1 files,
/// whose ids pi generates at random): comparing trees by structure, not by id.
fn id_map(oracle: &Value, session: &Session) -> HashMap<String, String> {
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

fn map_id(map: &HashMap<String, String>, id: &str) -> String {
    map.get(id).cloned().unwrap_or_else(|| id.to_owned())
}

fn map_ids(map: &HashMap<String, String>, v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|s| map_id(map, s))
                .collect()
        })
        .unwrap_or_default()
}

/// Compares one file's per-file oracle with grove's session.
fn compare_file(
    diffs: &mut Diffs,
    name: &str,
    oracle: &Value,
    session: &Session,
    dialect: Dialect,
) {
    let entries = session.entries();
    let ids = id_map(oracle, session);
    let id_of = |i: usize| entries[i].id.clone();

    // Entries: [id, parentId, type, role] in file order.
    let oracle_entries: Vec<(String, Option<String>, String, Option<String>)> = oracle["entries"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        map_id(&ids, e[0].as_str().unwrap_or("")),
                        e[1].as_str().map(|p| map_id(&ids, p)),
                        e[2].as_str().unwrap_or("").to_owned(),
                        e.get(3).and_then(Value::as_str).map(str::to_owned),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let grove_entries: Vec<(String, Option<String>, String, Option<String>)> = entries
        .iter()
        .map(|e| {
            (
                e.id.clone(),
                // The oracle writes a missing parentId as "<undefined>" (null stays null).
                match e.raw.get("parentId") {
                    None => Some("<undefined>".to_owned()),
                    Some(_) => e.parent_id.clone(),
                },
                e.type_name().to_owned(),
                e.role().map(str::to_owned),
            )
        })
        .collect();
    diffs.check(name, "entries", oracle_entries, grove_entries);

    diffs.check(
        name,
        "leaf",
        oracle["leafId"].as_str().map(|s| map_id(&ids, s)),
        session.leaf_id().map(str::to_owned),
    );
    diffs.check(
        name,
        "name",
        opt_str(&oracle["sessionName"]),
        session.tree.name.name.clone(),
    );
    if let Some(state) = oracle.get("sessionNameState") {
        diffs.check(
            name,
            "hasName",
            state["hasName"].as_bool().unwrap_or(false),
            session.tree.name.has_name,
        );
    }
    let oracle_labels: BTreeMap<String, String> = oracle["labels"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (map_id(&ids, k), v.as_str().unwrap_or("").to_owned()))
                .collect()
        })
        .unwrap_or_default();
    let grove_labels: BTreeMap<String, String> = session
        .tree
        .labels
        .iter()
        .map(|(k, v)| (k.clone(), v.text.clone()))
        .collect();
    diffs.check(name, "labels", oracle_labels, grove_labels);
    // Label times as the tree reports them.
    if let Some(tree_labels) = oracle["tree"]["labels"].as_object() {
        let o: BTreeMap<String, String> = tree_labels
            .iter()
            .filter_map(|(k, v)| {
                Some((
                    map_id(&ids, k),
                    v.get("labelTimestamp")?.as_str()?.to_owned(),
                ))
            })
            .collect();
        let g: BTreeMap<String, String> = session
            .tree
            .labels
            .iter()
            .filter(|(k, _)| o.contains_key(*k) || session.tree.index_of(k).is_some())
            .filter(|(k, _)| o.contains_key(*k))
            .map(|(k, v)| (k.clone(), v.timestamp.clone()))
            .collect();
        diffs.check(name, "labelTimestamps", o, g);
    }

    // Tree: roots in file order, children in the library's order.
    diffs.check(
        name,
        "tree.roots",
        map_ids(&ids, &oracle["tree"]["roots"]),
        session.tree.roots.iter().map(|&i| id_of(i)).collect(),
    );
    let oracle_children: BTreeMap<String, Vec<String>> = oracle["tree"]["children"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (map_id(&ids, k), map_ids(&ids, v)))
                .filter(|(_, v)| !v.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let grove_children: BTreeMap<String, Vec<String>> = session
        .tree
        .children
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.is_empty())
        .map(|(i, c)| (id_of(i), c.iter().map(|&j| id_of(j)).collect()))
        .collect();
    diffs.check(name, "tree.children", oracle_children, grove_children);

    let leaf = session.tree.leaf;
    let path: Vec<String> = leaf
        .map(|l| session.tree.path_to(l).into_iter().map(id_of).collect())
        .unwrap_or_default();
    diffs.check(name, "branch", map_ids(&ids, &oracle["branch"]), path);

    let ctx = build_context(session, LeafChoice::Current, dialect);
    diffs.check(
        name,
        "contextEntries",
        map_ids(&ids, &oracle["contextEntries"]),
        ctx.entries.iter().map(|&i| id_of(i)).collect(),
    );
    let oc = &oracle["context"];
    let oracle_model = oc["model"]
        .as_object()
        .map(|m| (opt_str(&m["provider"]), opt_str(&m["modelId"])));
    let grove_model = ctx
        .model
        .as_ref()
        .map(|m| (Some(m.provider.clone()), Some(m.model_id.clone())));
    diffs.check(name, "context.model", oracle_model, grove_model);
    diffs.check(
        name,
        "context.thinkingLevel",
        opt_str(&oc["thinkingLevel"]),
        Some(ctx.thinking_level.clone()),
    );
    let oracle_messages: Vec<(String, String, String)> = oc["messages"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| {
                    (
                        m["role"].as_str().unwrap_or("").to_owned(),
                        map_id(&ids, m["sourceEntryId"].as_str().unwrap_or("")),
                        m["sha"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let grove_messages: Vec<(String, String, String)> = ctx
        .messages
        .iter()
        .map(|m| {
            let json = serde_json::to_string(&m.message).unwrap_or_default();
            (
                m.role().to_owned(),
                id_of(m.entry_index),
                sha16(json.as_bytes()),
            )
        })
        .collect();
    // Messages are matched by source entry (and occurrence: a pi compaction gives two), so one
    // message grove deliberately leaves out is one difference, not a shift of all that follow.
    let keyed = |v: &[(String, String, String)]| -> Vec<(String, (String, String))> {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        v.iter()
            .map(|(role, src, sha)| {
                let n = seen.entry(src.as_str()).or_insert(0);
                *n += 1;
                let key = if *n == 1 {
                    src.clone()
                } else {
                    format!("{src}#{n}")
                };
                (key, (role.clone(), sha.clone()))
            })
            .collect()
    };
    let o = keyed(&oracle_messages);
    let g = keyed(&grove_messages);
    let om: HashMap<&str, &(String, String)> = o.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let gm: HashMap<&str, &(String, String)> = g.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let keys: std::collections::BTreeSet<&str> = om.keys().chain(gm.keys()).copied().collect();
    for k in keys {
        diffs.check(
            name,
            &format!("context.messages[{k}]"),
            om.get(k).copied(),
            gm.get(k).copied(),
        );
    }
    let common = |v: &[(String, (String, String))],
                  other: &HashMap<&str, &(String, String)>|
     -> Vec<String> {
        v.iter()
            .map(|(k, _)| k.clone())
            .filter(|k| other.contains_key(k.as_str()))
            .collect()
    };
    diffs.check(
        name,
        "context.messages.order",
        common(&o, &gm),
        common(&g, &om),
    );
}

struct Run {
    diffs: Diffs,
    /// grove's listing of every file (Ok or the error), by `<S>/…` key.
    listing: BTreeMap<String, Result<SessionInfo, String>>,
    _tmp: tempfile::TempDir,
}

fn run() -> Run {
    let oracle_dir = Path::new(FIXTURES).join("pi-oracle");
    let list = read_json(&oracle_dir.join("list.json"));
    let index = read_json(&oracle_dir.join("index.json"));
    let (tmp, root) = sessions_copy(&list);
    let files = session_files(&root);
    let mut diffs = Diffs::default();

    // Every file the oracle knows about is a fixture, and the other way round.
    let oracle_files: Vec<String> = index
        .as_array()
        .expect("index")
        .iter()
        .map(|e| e["file"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(
        oracle_files
            .iter()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>(),
        files.keys().cloned().collect(),
        "the fixture files and the oracle's index disagree"
    );

    // Listing.
    let mut listing = BTreeMap::new();
    for (key, path) in &files {
        let r = scan_info(path, Some(Dialect::Pi)).map_err(|e| match e {
            ReadError::NoHeader { .. } => "NoHeader".to_owned(),
            other => other.to_string(),
        });
        listing.insert(key.clone(), r);
    }
    let oracle_listed: HashMap<String, &Value> = list["listAll"]
        .as_array()
        .expect("listAll")
        .iter()
        .map(|e| (e["path"].as_str().unwrap_or("").to_owned(), e))
        .collect();
    for (key, r) in &listing {
        let name = file_name(key);
        let o = oracle_listed.get(key);
        diffs.check(name, "listed", o.is_some(), r.is_ok());
        if let (Some(o), Ok(info)) = (o, r) {
            for (field, value) in list_fields(info) {
                diffs.check(
                    name,
                    &format!("list.{field}"),
                    oracle_list_value(o, field),
                    value,
                );
            }
        }
    }
    // Sort order of the whole listing (pi: modified, newest first).
    let mut sorted: Vec<SessionInfo> = listing
        .values()
        .filter_map(|r| r.as_ref().ok().cloned())
        .filter(|i| oracle_listed.contains_key(&key_of(&root, &i.path)))
        .collect();
    sort_by_modified(&mut sorted);
    let grove_order: Vec<String> = sorted.iter().map(|i| key_of(&root, &i.path)).collect();
    let oracle_order: Vec<String> = list["listAll"]
        .as_array()
        .expect("listAll")
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
                .map(|i| key_of(&root, &i.path))
                .filter(|k| oracle_listed.contains_key(k))
                .collect();
            let oracle: Vec<String> = lists["withSessionDir"]
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
        let changed_by_pi = oracle["mutatedByOpen"]["changed"]
            .as_bool()
            .unwrap_or(false);
        diffs.check(name, "mutatedByOpen", changed_by_pi, false);
        let session = session.unwrap_or_else(|e| panic!("{name}: {e}"));
        let pi_opened = oracle["open"]["ok"].as_bool().unwrap_or(false);
        let grove_opened = session.parsed.header.is_some();
        diffs.check(name, "open", pi_opened, grove_opened);
        if pi_opened && grove_opened {
            compare_file(&mut diffs, name, &oracle, &session, Dialect::Pi);
        }
    }
    Run {
        diffs,
        listing,
        _tmp: tmp,
    }
}

/// pi's folder name for a cwd (`getDefaultSessionDir`).
fn default_folder(cwd: &str) -> String {
    let trimmed = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", trimmed.replace(['/', '\\', ':'], "-"))
}

fn key_of(root: &Path, p: &Path) -> String {
    let rel = p.strip_prefix(root).unwrap_or(p);
    format!("<S>/{}", rel.to_string_lossy())
}

#[test]
fn grove_agrees_with_pi_1_6_0_on_every_fixture() {
    let run = run();
    let mut unexpected = Vec::new();
    let mut used = vec![false; ALLOWED.len()];
    for d in &run.diffs.0 {
        match ALLOWED
            .iter()
            .position(|a| a.file == d.file && a.field == d.field)
        {
            Some(i) => {
                used[i] = true;
                if std::env::var_os("GROVE_PRINT_DIFFERENCES").is_some() {
                    // The rows of docs/differences.md.
                    println!(
                        "| `{}` | `{}` | {} | {} | {} |",
                        d.file,
                        d.field,
                        d.oracle.replace('|', "\\|"),
                        d.grove.replace('|', "\\|"),
                        ALLOWED[i].reason
                    );
                }
            }
            None => unexpected.push(format!(
                "{} {}:\n    pi:    {}\n    grove: {}",
                d.file, d.field, d.oracle, d.grove
            )),
        }
    }
    let stale: Vec<String> = ALLOWED
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
    let _ = run.listing;
}

#[test]
fn every_allowed_difference_is_documented() {
    let doc = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/differences.md"))
        .expect("docs/differences.md");
    for a in ALLOWED {
        let row_found = doc.lines().any(|l| {
            l.starts_with('|') && l.contains(a.file) && l.contains(&format!("`{}`", a.field))
        });
        assert!(
            row_found,
            "docs/differences.md has no pi row for {} `{}` ({})",
            a.file, a.field, a.reason
        );
    }
}

fn grove_session(name: &str) -> (PathBuf, Session) {
    let root = Path::new(FIXTURES).join("pi-agent/sessions");
    let files = session_files(&root);
    let path = files
        .iter()
        .find(|(k, _)| file_name(k) == name)
        .map(|(_, p)| p.clone())
        .unwrap_or_else(|| panic!("no fixture {name}"));
    let s = load_session(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    (path, s)
}

/// What grove gives where it deliberately differs from pi.
#[test]
fn grove_values_where_it_differs() {
    // The parentId cycle: the cycle is cut at its first member in file order, reported, and the
    // context of the leaf is the two cycle members.
    let (_, s) = grove_session(CYCLE);
    let ids =
        |v: &[usize]| -> Vec<String> { v.iter().map(|&i| s.entries()[i].id.clone()).collect() };
    assert_eq!(ids(&s.tree.roots), ["b0000001", "c0000001"]);
    assert_eq!(s.leaf_id(), Some("c0000002"));
    assert_eq!(
        ids(&s.tree.path_to(s.tree.leaf.unwrap())),
        ["c0000001", "c0000002"]
    );
    assert!(
        s.issues()
            .any(|i| i.kind == IssueKind::Tree && i.message.contains("cycle"))
    );
    let ctx = build_context(&s, LeafChoice::Current, Dialect::Pi);
    let roles: Vec<&str> = ctx.messages.iter().map(|m| m.role()).collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert_eq!(
        ctx.model.as_ref().map(|m| m.model_id.as_str()),
        Some("claude-3-5-sonnet-20241022")
    );

    // content:null: listed, and the message loads (normalised in the context).
    let (path, s) = grove_session(NULL_CONTENT);
    let info = scan_info(&path, Some(Dialect::Pi)).expect("listed");
    assert_eq!(info.message_count, 2);
    assert_eq!(info.first_message, "(no messages)");
    let ctx = build_context(&s, LeafChoice::Current, Dialect::Pi);
    assert_eq!(ctx.messages.len(), 2);
    assert_ne!(ctx.messages[0].message["content"], Value::Null);

    // No header, and a message before the header: reported, never listed.
    for name in [NO_HEADER, BEFORE_HEADER] {
        let (path, s) = grove_session(name);
        assert!(matches!(
            scan_info(&path, Some(Dialect::Pi)),
            Err(ReadError::NoHeader { .. })
        ));
        assert!(s.parsed.header.is_none());
        assert!(s.issues().any(|i| i.kind == IssueKind::NoHeader));
    }
    // Torn last line: loads without it, and says so.
    let (_, s) = grove_session(TORN);
    assert_eq!(s.entries().len(), 3);
    assert!(s.issues().any(|i| i.kind == IssueKind::TornLastLine));
    // Empty file: not listed, not rewritten.
    let (path, s) = grove_session(EMPTY);
    assert!(scan_info(&path, Some(Dialect::Pi)).is_err());
    assert!(s.entries().is_empty());
    assert_eq!(fs::metadata(&path).unwrap().len(), 0);
    // v1 ids are stable across loads (pi's are random).
    let (_, a) = grove_session(V1);
    let (_, b) = grove_session(V1);
    let ids_a: Vec<&str> = a.entries().iter().map(|e| e.id.as_str()).collect();
    let ids_b: Vec<&str> = b.entries().iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids_a, ids_b);
    assert_eq!(a.parsed.migrated_from, Some(1));

    // U+2028: grove counts every message line, and the text keeps the U+2028.
    let list = read_json(&Path::new(FIXTURES).join("pi-oracle/list.json"));
    for name in U2028_FILES {
        let (path, s) = grove_session(name);
        let info = scan_info(&path, Some(Dialect::Pi)).expect("listed");
        let messages = s
            .entries()
            .iter()
            .filter(|e| e.type_name() == "message")
            .count() as u64;
        assert_eq!(info.message_count, messages, "{name}");
        let pi = list["listAll"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["path"].as_str().is_some_and(|p| p.ends_with(name)))
            .unwrap();
        assert_eq!(pi["messageCount"].as_u64(), Some(messages - 1), "{name}");
        assert!(info.all_messages_text.contains('\u{2028}'), "{name}");
    }

    // Lone surrogate: the message loads, carrying U+FFFD, and the repair is reported.
    let (_, s) = grove_session(LONE_SURROGATE);
    let e = s.entry_by_id("1108fd63").expect("the message loads");
    assert!(serde_json::to_string(&e.raw).unwrap().contains('\u{fffd}'));
    assert!(s.issues().any(|i| i.kind == IssueKind::Repaired));
    let _ = format_iso_ms(0);
}
