//! `grove list --json` prints the same bytes whether the listing comes from a cold scan
//! (`--no-cache`), a scan that fills the index, the index itself (warm), or an index resumed
//! after a session grew.

use std::fs;
use std::io::Write;
use std::path::Path;

mod common;
use common::index::grove_at;

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn list(home: &Path, extra: &[&str]) -> Vec<u8> {
    let list = ["list", "--all", "--include-internal", "--json"];
    grove_at(home, &[extra, &list].concat())
}

#[test]
fn warm_cold_and_resumed_listings_print_the_same_json() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    copy_dir(&fixtures.join("pi-agent"), &home.join("pi-agent"));
    copy_dir(&fixtures.join("atomic-agent"), &home.join("atomic-agent"));
    // A session with text a terminal could act on, escapes, and a torn last line.
    let folder = home.join("pi-agent/sessions/--home-x--");
    fs::create_dir_all(&folder).unwrap();
    let odd = folder.join("2025-06-01T10-00-00-000Z_0197aaaa-0000-7000-8000-0000000000ff.jsonl");
    fs::write(
        &odd,
        concat!(
            r#"{"type":"session","version":3,"id":"0197aaaa-0000-7000-8000-0000000000ff","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/home/x \u202e"}"#,
            "\n",
            r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2025-06-01T10:00:01.000Z","message":{"role":"user","content":"caf\u00e9 \u001b[31m\u200b \ud83d\ude00 \"q\"","timestamp":1748772001000}}"#,
            "\n",
            r#"{"type":"session_info","id":"a2","parentId":"a1","timestamp":"2025-06-01T10:00:02.000Z","name":"n\u0085"}"#,
            "\n",
            r#"{"type":"message","id":"a3","parentId":"a2","message":{"role":"user","con"#,
        ),
    )
    .unwrap();

    let cold = list(home, &["--no-cache"]);
    assert!(
        cold.starts_with(b"[\n  {"),
        "{}",
        String::from_utf8_lossy(&cold)
    );
    assert_eq!(list(home, &[]), cold, "filling the index");
    assert_eq!(list(home, &[]), cold, "warm");

    // The torn line completed, and a message appended: the index resumes the file.
    let mut f = fs::OpenOptions::new().append(true).open(&odd).unwrap();
    f.write_all(
        concat!(
            r#"tent":"done","timestamp":1748772003000}}"#,
            "\n",
            r#"{"type":"message","id":"a4","parentId":"a3","timestamp":"2025-06-01T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"timestamp":1748772004000}}"#,
            "\n"
        )
        .as_bytes(),
    )
    .unwrap();
    drop(f);
    let grown = list(home, &[]);
    assert_ne!(grown, cold);
    assert_eq!(grown, list(home, &["--no-cache"]), "resumed");
    assert_eq!(list(home, &[]), grown, "warm after growth");
}
