//! `pi.loadout` custom entries: the latest valid one in file order is the session's loadout,
//! whatever branch it is on; `grove show` reports it.

use grove::model::parse::ParsedSession;
use grove::model::tree::Session;
use serde_json::json;

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#;

fn custom(id: &str, parent: Option<&str>, data: serde_json::Value) -> String {
    json!({"type":"custom","id":id,"parentId":parent,"timestamp":"2025-01-01T00:00:01.000Z","customType":"pi.loadout","data":data}).to_string()
}

fn user(id: &str, parent: Option<&str>) -> String {
    json!({"type":"message","id":id,"parentId":parent,"timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"hi","timestamp":1}}).to_string()
}

fn session(lines: &[String]) -> Session {
    let text = std::iter::once(HEADER.to_owned())
        .chain(lines.iter().cloned())
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    Session::new(ParsedSession::from_bytes(text.as_bytes()))
}

fn overrides(enabled: bool) -> serde_json::Value {
    json!({"version":1,"overrides":[{"reference":{"type":"skill","origin":"top-level","scope":"user","relativePath":"skills/review/SKILL.md"},"enabled":enabled}]})
}

#[test]
fn latest_valid_loadout_in_file_order_wins_even_off_branch() {
    let s = session(&[
        user("a", None),
        custom("l1", Some("a"), overrides(false)),
        // A second branch from `a`: the loadout on it is later in the file.
        custom("l2", Some("a"), overrides(true)),
        // Invalid payloads are skipped.
        custom("l3", Some("a"), json!({"overrides": "nope"})),
        user("b", Some("l1")),
    ]);
    let loadout = s.loadout().expect("a loadout");
    assert_eq!(loadout["overrides"][0]["enabled"], true);
}

#[test]
fn an_empty_overrides_array_is_a_reset_marker() {
    let s = session(&[
        user("a", None),
        custom("l1", Some("a"), overrides(false)),
        custom("l2", Some("l1"), json!({"version":1,"overrides":[]})),
    ]);
    assert_eq!(s.loadout().unwrap()["overrides"], json!([]));
    assert!(session(&[user("a", None)]).loadout().is_none());
}

#[test]
fn show_reports_the_loadout() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("s.jsonl");
    let lines = [user("a", None), custom("l1", Some("a"), overrides(false))];
    std::fs::write(&path, format!("{HEADER}\n{}\n", lines.join("\n"))).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_grove"))
        .args(["show", path.to_str().unwrap(), "--json"])
        .env("XDG_CACHE_HOME", tmp.path().join("cache"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["loadout"]["overrides"][0]["enabled"], false);
}
