//! The HTML export in a real browser: headless Chromium (Debian's `chromium`, installed by
//! `.ci/run`) opens the page with `#selftest=QUERY`, the page tries each filter and the search
//! and writes what it saw into the DOM, and `--dump-dom` hands that back. Checked: the sidebar
//! lists the entries, filters change the count, the search finds an entry and clicking it
//! shows its branch, no request leaves the page (DNS is mapped to nothing and the page's
//! resource timings stay empty, no CSP violation), and hostile text (`<script>`,
//! `javascript:` links, raw HTML, escape sequences) stays inert text.
//!
//! Without Chromium the test fails under `CI=true` and is skipped (with a message) otherwise.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::{Value, json};

fn find_chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

fn chromium_or_skip() -> Option<PathBuf> {
    match find_chromium() {
        Some(p) => Some(p),
        None if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("chromium is not installed: .ci/run installs Debian's `chromium` package")
        }
        None => {
            eprintln!("SKIPPED: chromium not installed (apt-get install chromium)");
            None
        }
    }
}

/// The DOM of `page` after its scripts ran, opened with `fragment`.
fn dump_dom(chromium: &Path, page: &Path, fragment: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions",
        "--no-first-run",
        "--no-default-browser-check",
        // Any host name resolves to nothing: a request that tried to leave would fail, and
        // still show up in the page's resource timings.
        "--host-resolver-rules=MAP * ~NOTFOUND",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .arg("--dump-dom")
    .arg(format!("file://{}#{fragment}", page.display()));
    let out = output_within(cmd, 180, "chromium --dump-dom");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("DOM is UTF-8")
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The page's self-test report.
fn report(dom: &str) -> Value {
    let start = dom
        .find("<pre id=\"selftest\">")
        .unwrap_or_else(|| panic!("no self-test output in:\n{dom}"))
        + "<pre id=\"selftest\">".len();
    let end = start + dom[start..].find("</pre>").unwrap();
    serde_json::from_str(&unescape(&dom[start..end])).expect("self-test JSON")
}

fn line(v: Value) -> String {
    format!("{v}\n")
}

fn msg(id: &str, parent: Option<&str>, message: Value) -> String {
    line(json!({"type": "message", "id": id, "parentId": parent,
        "timestamp": "2025-01-01T00:00:01.000Z", "message": message}))
}

/// A branched session full of hostile text; its leaf is on the `beta` branch.
fn hostile_session() -> String {
    let mut s = line(
        json!({"type":"session","version":3,"id":"hostile-html","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w<script>window.__pwned='cwd'</script>"}),
    );
    s += &msg(
        "u1",
        None,
        json!({"role":"user","timestamp":1,
        "content":"Plan the <script>window.__pwned='user'</script> release \x1b]52;c;eA==\x07 and \x1b[2J clear"}),
    );
    s += &msg(
        "a1",
        Some("u1"),
        json!({"role":"assistant","timestamp":2,"model":"m</title>","stopReason":"toolUse","content":[
        {"type":"thinking","thinking":"<img src=x onerror=\"window.__pwned='thinking'\">"},
        {"type":"text","text":"Sure: [click me](javascript:window.__pwned='link') ![x](http://tracker.example/p.png) <img src=\"http://tracker.example/q.png\" onerror=\"window.__pwned='img'\">\n\n```html\n</script><script>window.__pwned='code'</script>\n```\n\n<link rel=stylesheet href=http://evil.example/s.css>"},
        {"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"echo '<iframe src=http://evil.example>'"}}]}),
    );
    s += &msg(
        "r1",
        Some("a1"),
        json!({"role":"toolResult","toolCallId":"t1","toolName":"bash","isError":false,"timestamp":3,
        "content":[{"type":"text","text":"<iframe src=http://evil.example></iframe>\n\u{202E}txt.exe"}]}),
    );
    s += &msg(
        "u2",
        Some("r1"),
        json!({"role":"user","timestamp":4,"content":"first branch needle-alpha"}),
    );
    s += &msg(
        "u3",
        Some("r1"),
        json!({"role":"user","timestamp":5,"content":"second branch needle-beta"}),
    );
    s += &msg(
        "a3",
        Some("u3"),
        json!({"role":"assistant","timestamp":6,"model":"m","stopReason":"stop",
        "content":[{"type":"text","text":"answer on beta"}]}),
    );
    s += &line(
        json!({"type":"label","id":"l1","parentId":"a3","timestamp":"2025-01-01T00:00:07.000Z",
        "targetId":"u2","label":"keep <b>this</b>"}),
    );
    s += &line(
        json!({"type":"session_info","id":"n1","parentId":"l1","timestamp":"2025-01-01T00:00:08.000Z",
        "name":"</title><script>window.__pwned='title'</script>"}),
    );
    s
}

fn export_html(sandbox: &Path, root: &Path, session: &Path, out: &Path) {
    let o = grove(
        sandbox,
        root,
        &[
            "export",
            session.to_str().unwrap(),
            "--format",
            "html",
            "-o",
            out.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(o.status.success(), "export failed: {}", stderr(&o));
}

#[test]
fn hostile_branched_session_in_chromium() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let (dir, root, folder) = session_root();
    let session = write_file(&folder, "hostile.jsonl", hostile_session());
    let page = dir.path().join("hostile.html");
    export_html(dir.path(), &root, &session, &page);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src &#39;none&#39;"
    ));
    assert!(!html.contains('\x1b'));

    let dom = dump_dom(&chromium, &page, "selftest=needle-alpha");
    let r = report(&dom);
    // The sidebar lists the entries (default filter: no label / name entries).
    let rows: Vec<&str> = r["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(rows.len(), 6, "{rows:#?}");
    for text in [
        "Plan the <script>",
        "needle-alpha",
        "needle-beta",
        "answer on beta",
        "[bash: echo",
    ] {
        assert!(
            rows.iter().any(|row| row.contains(text)),
            "{text} not in {rows:#?}"
        );
    }
    assert!(
        rows.iter()
            .any(|row| row.contains("[keep <b>this</b>] user: first")),
        "{rows:#?}"
    );
    // Each filter gives its own count.
    let f = &r["filters"];
    assert_eq!(
        (
            f["default"].as_u64(),
            f["no-tools"].as_u64(),
            f["user-only"].as_u64(),
            f["labeled-only"].as_u64()
        ),
        (Some(6), Some(5), Some(3), Some(1)),
        "{f}"
    );
    assert!(f["all"].as_u64().unwrap() > 6, "{f}");
    assert_eq!(r["counts"]["user-only"], "3 entries");
    // The search finds the entry, and choosing it shows its branch, not the other one.
    assert_eq!(r["hits"], json!(["u2"]));
    assert_eq!(r["shown"], json!(["u1", "a1", "r1", "u2"]));
    // Nothing left the page, nothing ran, nothing was turned into an element.
    assert_eq!(r["resources"], json!([]), "requests left the page");
    assert_eq!(
        r["violations"],
        json!([]),
        "the page tried something its policy forbids"
    );
    assert_eq!(r["pwned"], Value::Null, "session script ran");
    assert_eq!(r["scripts"], 2, "only the page's own two scripts");
    assert_eq!(
        (
            r["images"].as_u64(),
            r["iframes"].as_u64(),
            r["liveLinks"].as_u64()
        ),
        (Some(0), Some(0), Some(0))
    );
    assert_eq!(
        r["title"],
        "</title><script>window.__pwned='title'</script> · grove"
    );
    // The dumped DOM: hostile markup only as text, escape sequences visible.
    assert!(!dom.contains('\x1b') && !dom.contains('\u{202E}'));
    assert!(
        dom.contains("^[]52;c;eA==^G")
            && dom.contains("^[[2J")
            && dom.contains("&lt;U+202E&gt;txt.exe")
    );
    // (Text nodes keep their quotes, so `onerror="` may appear as text; elements cannot.)
    for element in ["<img", "<iframe", "<link rel", "href=\"javascript"] {
        assert!(!dom.contains(element), "{element} in the DOM");
    }
    assert!(
        dom.contains("click me (javascript:window.__pwned='link')")
            || dom
                .contains("click me</span><span class=\"url\"> (javascript:window.__pwned='link')")
    );
}

#[test]
fn demo_session_in_chromium() {
    let Some(chromium) = chromium_or_skip() else {
        return;
    };
    let (dir, root, _) = session_root();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "assets/demo/pi-agent/sessions/--home-demo-code-tidewater--/2026-11-04T11-26-40-775Z_01a1a64f-a887-726b-9d1c-7b88cd9d3d51.jsonl",
    );
    let page = dir.path().join("demo.html");
    export_html(dir.path(), &root, &demo, &page);
    // Never overwrites.
    let again = grove(
        dir.path(),
        &root,
        &[
            "export",
            demo.to_str().unwrap(),
            "--format",
            "html",
            "-o",
            page.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(!again.status.success());
    let dom = dump_dom(&chromium, &page, "selftest=pytest");
    let r = report(&dom);
    assert_eq!(r["filters"]["default"], 11, "{r}");
    assert_eq!(r["filters"]["user-only"], 2, "{r}");
    assert_eq!(r["hits"], json!(["1c4e679a"]), "{r}");
    assert_eq!(r["resources"], json!([]));
    assert_eq!(r["violations"], json!([]));
    // Rendered like the TUI: the edit is a diff, the list is a list, thinking is folded.
    assert!(
        dom.contains("<span class=\"add\">+    bad = df.filter("),
        "no diff"
    );
    assert!(dom.contains("<span class=\"mk\">1. </span><span class=\"tx b\">Duplicate key</span>"));
    assert!(dom.contains("<details class=\"fold\"><summary>thinking (1 line)</summary>"));
}
