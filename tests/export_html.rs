//! The HTML export without a browser: over the fuzz corpus and a hostile session, the page
//! holds exactly its own two scripts, no session text outside escaping, no control
//! characters, and a policy that forbids anything remote.

mod common;

use std::path::PathBuf;

use grove::model::context::{Dialect, LeafChoice, build_context};
use grove::model::export::html::to_html;
use grove::model::parse::ParsedSession;
use grove::model::tree::Session;
use serde_json::json;

fn page(bytes: &[u8], choice: LeafChoice<'_>) -> String {
    let session = Session::new(ParsedSession::from_bytes(bytes));
    let ctx = build_context(&session, choice, Dialect::Pi);
    to_html(&session, &ctx)
}

fn assert_safe_page(html: &str, what: &str) {
    assert_eq!(html.matches("<script").count(), 2, "{what}: scripts");
    assert_eq!(html.matches("</script").count(), 2, "{what}: script ends");
    assert_eq!(html.matches("<style").count(), 1, "{what}: styles");
    for tag in [
        "<img",
        "<iframe",
        "<link",
        "<object",
        "<embed",
        "<base",
        "<form",
        "<meta http-equiv=\"refresh",
    ] {
        assert!(!html.contains(tag), "{what}: {tag}");
    }
    assert!(html.contains("content=\"default-src &#39;none&#39;; script-src &#39;sha256-"));
    let body = html.replace('\n', "");
    assert!(
        common::first_hostile_char(&body).is_none(),
        "{what}: control characters"
    );
    // The data block is JSON with nothing that could end the element.
    let start = html.find("id=\"grove-data\">").unwrap() + "id=\"grove-data\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    let data: serde_json::Value = serde_json::from_str(&html[start..end]).expect("data is JSON");
    assert!(data["filters"]["default"].is_array());
}

#[test]
fn fuzz_corpus_pages_are_safe() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/parse_session");
    let mut n = 0;
    for f in std::fs::read_dir(dir).unwrap().flatten() {
        let bytes = std::fs::read(f.path()).unwrap();
        for choice in [LeafChoice::Current, LeafChoice::None] {
            assert_safe_page(&page(&bytes, choice), &f.path().display().to_string());
        }
        n += 1;
    }
    assert!(n > 5);
}

#[test]
fn hostile_text_is_escaped_everywhere() {
    let evil = "</script><script>alert(1)</script><!-- \x1b]0;t\x07 \u{202E} ]]> & \"'";
    let mut s = json!({"type":"session","version":3,"id":evil,"timestamp":evil,"cwd":evil})
        .to_string()
        + "\n";
    s += &(json!({"type":"message","id":"u1","parentId":null,"timestamp":evil,
        "message":{"role":"user","content":evil,"timestamp":1}})
    .to_string()
        + "\n");
    s += &(json!({"type":"message","id":evil,"parentId":"u1","timestamp":evil,
        "message":{"role":"assistant","model":evil,"content":[{"type":"text","text":evil},
        {"type":"toolCall","id":"t","name":evil,"arguments":{evil: evil}}]}})
    .to_string()
        + "\n");
    s += &(json!({"type":"label","id":"l1","parentId":evil,"timestamp":evil,"targetId":"u1","label":evil}).to_string() + "\n");
    s += &(json!({"type":"session_info","id":"n1","parentId":"l1","timestamp":evil,"name":evil})
        .to_string()
        + "\n");
    let html = page(s.as_bytes(), LeafChoice::Current);
    assert_safe_page(&html, "hostile");
    assert!(html.contains("&lt;/script&gt;&lt;script&gt;alert(1)"));
    assert!(html.contains("^[]0;t^G") && html.contains("&lt;U+202E&gt;"));
    // A hostile id gets an index anchor, never an attribute break-out.
    assert!(!html.contains("id=\"e-</script"));
}
