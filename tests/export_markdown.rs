//! The Markdown export renders: a demo session's export, run through a Markdown renderer
//! (`pulldown-cmark` to HTML), has its headings, the assistant's lists and code, and lets no
//! raw HTML or live dangerous link through; hostile sessions stay inert.

use std::path::{Path, PathBuf};

use grove::model::context::{Dialect, LeafChoice, build_context};
use grove::model::export::to_markdown;
use grove::model::parse::ParsedSession;
use grove::model::tree::Session;
use pulldown_cmark::{Options, Parser, html};
use serde_json::json;

fn export(bytes: &[u8]) -> String {
    let session = Session::new(ParsedSession::from_bytes(bytes));
    let ctx = build_context(&session, LeafChoice::Current, Dialect::Pi);
    to_markdown(&session, &ctx)
}

fn render(md: &str) -> String {
    let mut out = String::new();
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    html::push_html(&mut out, Parser::new_ext(md, options));
    out
}

/// The tags a renderer makes from Markdown itself; anything else came from raw HTML.
const MARKDOWN_TAGS: &[&str] = &[
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "ul",
    "ol",
    "li",
    "code",
    "pre",
    "strong",
    "em",
    "a",
    "blockquote",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "hr",
    "br",
    "del",
    "input",
];

fn assert_no_raw_html(html: &str) {
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        let name: String = rest
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        assert!(
            MARKDOWN_TAGS.contains(&name.to_ascii_lowercase().as_str()),
            "raw HTML <{name}> passed through: …{}…",
            &rest[..rest.len().min(80)]
        );
    }
    for href in html.split("href=\"").skip(1) {
        let url = href.split('"').next().unwrap_or("").to_ascii_lowercase();
        assert!(
            url.starts_with("http://") || url.starts_with("https://") || !url.contains(':'),
            "a live link to {url}"
        );
    }
    assert!(!html.contains("<img"), "an image a reader would fetch");
}

fn demo_sessions() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn demo_session_export_renders_as_markdown() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "assets/demo/pi-agent/sessions/--home-demo-code-tidewater--/2026-11-04T11-26-40-775Z_01a1a64f-a887-726b-9d1c-7b88cd9d3d51.jsonl",
    );
    let md = export(&std::fs::read(path).unwrap());
    let html = render(&md);
    // Title from the session name, one heading per message.
    assert!(
        html.starts_with("<h1>Nightly load: duplicate station + bidi spoof</h1>"),
        "{html}"
    );
    assert!(html.contains("<h2>User</h2>"));
    assert!(html.contains("<h2>Assistant (claude-sonnet-4-5)</h2>"));
    assert!(html.contains("<h2>Tool result: bash</h2>"));
    // The assistant's list, emphasis and inline code are Markdown, not a text block.
    assert!(
        html.contains("<ol>\n<li><strong>Duplicate key</strong>: station <code>8518750</code>"),
        "{html}"
    );
    assert!(html.contains("<em>bidi control characters</em>"));
    // Tool calls in fenced blocks of their language.
    assert!(
        html.contains("<pre><code class=\"language-diff\">@@ -1,2 +1,6 @@"),
        "{html}"
    );
    assert!(html.contains("<pre><code class=\"language-console\">$ grep -n"));
    assert!(html.contains("<strong>Tool call:</strong> read tidewater/load.py lines 20–44"));
    // Thinking is kept when it says something.
    assert!(html.contains("<p><strong>Thinking</strong></p>"));
    // The bidi override in the user's paste is shown, not applied.
    assert!(!md.contains('\u{202E}') && md.contains("<U+202E>"));
    assert_no_raw_html(&html);
}

#[test]
fn every_demo_session_exports_clean_markdown() {
    let sessions = demo_sessions();
    assert!(sessions.len() >= 10, "{sessions:?}");
    for p in sessions {
        let md = export(&std::fs::read(&p).unwrap());
        assert!(md.starts_with("# "), "{}", p.display());
        let html = render(&md);
        assert_eq!(html.matches("<h1>").count(), 1, "{}", p.display());
        assert_no_raw_html(&html);
    }
}

fn line(v: serde_json::Value) -> String {
    format!("{v}\n")
}

#[test]
fn hostile_markdown_stays_inert() {
    let evil = "# Heading\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[click](javascript:alert(3)) ![t](http://tracker.example/p.png) [r][d] <javascript:alert(5)>\n\n[d]: javascript:alert(4)\n\n```\nunclosed \x1b]52;c;eA==\x07\n";
    let mut file = line(
        json!({"type":"session","version":3,"id":"h1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}),
    );
    file += &line(
        json!({"type":"message","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",
        "message":{"role":"user","content": evil,"timestamp":1}}),
    );
    file += &line(
        json!({"type":"message","id":"a2","parentId":"a1","timestamp":"2025-01-01T00:00:02.000Z",
        "message":{"role":"assistant","content":[
            {"type":"thinking","thinking":""},
            {"type":"text","text": evil},
            {"type":"toolCall","id":"t1","name":"write","arguments":{"path":"x.html","content":"<script>alert(6)</script>\n````\n"}}
        ],"model":"m<b>","stopReason":"toolUse","timestamp":2}}),
    );
    file += &line(
        json!({"type":"message","id":"a3","parentId":"a2","timestamp":"2025-01-01T00:00:03.000Z",
        "message":{"role":"toolResult","toolCallId":"t1","toolName":"write","content":[{"type":"text","text":"```\n<script>x</script>"}],"isError":false,"timestamp":3}}),
    );
    file += &line(
        json!({"type":"message","id":"a4","parentId":"a3","timestamp":"2025-01-01T00:00:04.000Z",
        "message":{"role":"user","content":"last words","timestamp":4}}),
    );
    let md = export(file.as_bytes());
    assert!(!md.contains('\x1b') && md.contains("^[]52"));
    // Empty thinking is left out.
    assert!(!md.contains("**Thinking**"), "{md}");
    // Title from the first message when the session has no name.
    assert!(md.starts_with("# \\# Heading\n"), "{md}");
    let html = render(&md);
    assert_no_raw_html(&html);
    // Nothing swallowed the rest of the document: every message heading is a heading.
    assert_eq!(html.matches("<h2>").count(), 4, "{html}");
    assert!(html.contains("<p>last words</p>"), "{html}");
    // Session headings sit below the export's own.
    assert!(html.contains("<h4>Heading</h4>"), "{html}");
    assert!(
        html.contains("javascript:alert(3)"),
        "the link's text is kept, as text"
    );
}
