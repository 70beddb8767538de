//! The browser lists through the index: on the second launch every unchanged session arrives in
//! the first batch, without reading a session file, and its search text follows (read from the
//! index after the rows were sent, so they show at once).

use std::sync::{Arc, Mutex};

use grove::app::event::ScanUpdate;
use grove::app::source::{IndexSource, SessionSource};
use grove::app::state::SessionRecord;
use grove::storage::demo::{copy_dir, demo_source};
use grove::storage::index::{Index, ListOptions};
use grove::storage::roots::SessionRoot;

fn source(corpus: &std::path::Path, cache: &std::path::Path) -> IndexSource {
    IndexSource {
        roots: vec![SessionRoot {
            path: corpus.join("pi-agent/sessions"),
            agent: None,
        }],
        current_dir: None,
        index: Mutex::new(Index::open_at(cache)),
    }
}

/// The updates of one scan, as (kind, count) pairs, the sessions as first sent, and those
/// sent again with their text.
type Scan = (
    Vec<(&'static str, usize)>,
    Vec<Arc<SessionRecord>>,
    Vec<Arc<SessionRecord>>,
);

fn scan(src: &IndexSource) -> Scan {
    let mut kinds = Vec::new();
    let mut sessions = Vec::new();
    let mut texts = Vec::new();
    src.scan(&mut |u| {
        match u {
            ScanUpdate::Found(n) => kinds.push(("found", n)),
            ScanUpdate::Sessions(s) => {
                kinds.push(("sessions", s.len()));
                sessions.extend(s);
            }
            ScanUpdate::Texts(t) => {
                kinds.push(("texts", t.len()));
                texts.extend(t);
            }
            ScanUpdate::Failed(f) => kinds.push(("failed", f.len())),
            ScanUpdate::Done => kinds.push(("done", 0)),
        }
        true
    });
    (kinds, sessions, texts)
}

#[test]
fn second_launch_sends_every_session_in_the_first_batch() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    copy_dir(&demo_source(), &corpus).unwrap();
    let cache = tmp.path().join("cache");

    let (_, first, _) = scan(&source(&corpus, &cache));
    let n = first.len();
    assert!(n >= 10);

    let (kinds, second, texts) = scan(&source(&corpus, &cache));
    assert_eq!(
        kinds,
        vec![("found", n), ("sessions", n), ("texts", n), ("done", 0)]
    );
    // The rows went first, without text; the search text came from the index after them.
    assert!(second.iter().all(|r| r.prepared.text().is_empty()));
    assert!(
        texts
            .iter()
            .any(|r| r.prepared.text().contains("rust-analyzer")),
        "no indexed text"
    );

    // A changed file streams in after the cached ones.
    let changed = &second[0].info.path;
    let mut text = std::fs::read_to_string(changed).unwrap();
    text.push_str(
        r#"{"type":"session_info","id":"ffff0001","parentId":null,"timestamp":"2026-11-30T10:00:00.000Z","name":"renamed"}"#,
    );
    text.push('\n');
    std::fs::write(changed, text).unwrap();
    // Its row too comes before any text is read; then every text, its own included (stored
    // by the listing, read back from the index).
    let (kinds, third, texts) = scan(&source(&corpus, &cache));
    assert_eq!(
        kinds,
        vec![
            ("found", n),
            ("sessions", n - 1),
            ("sessions", 1),
            ("texts", n),
            ("done", 0)
        ]
    );
    assert!(third.iter().all(|r| r.prepared.text().is_empty()));
    let renamed = texts
        .iter()
        .find(|r| r.info.name.as_deref() == Some("renamed"))
        .expect("the changed session's text");
    assert!(!renamed.prepared.text().is_empty());
    // Newest first: the first screen's sessions are searchable first.
    let modified: Vec<i64> = texts.iter().map(|r| r.info.modified_ms).collect();
    assert!(modified.windows(2).all(|w| w[0] >= w[1]), "{modified:?}");
}

/// The search text of a session is kept once, in its prepared (lowercased) form, compressed
/// where that is smaller: the listing fields hold none of it, and it reads back whole.
#[test]
fn the_search_text_is_held_once() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    copy_dir(&demo_source(), &corpus).unwrap();
    let cache = tmp.path().join("cache");
    scan(&source(&corpus, &cache));
    let (_, _, texts) = scan(&source(&corpus, &cache));
    let mut index = Index::open_at(&cache);
    let roots = source(&corpus, &cache).roots;
    let listing = index.list(&roots, ListOptions { with_text: true }, |_| {});
    let mut held = 0;
    let mut stored = 0;
    for r in &texts {
        assert!(r.info.all_messages_text.is_empty() && r.info.tool_text.is_empty());
        held += r.prepared.text_capacity();
        let s = listing
            .sessions
            .iter()
            .find(|s| s.path == r.info.path)
            .unwrap();
        let (text, tools) = (
            s.all_messages_text.to_lowercase(),
            s.tool_text.to_lowercase(),
        );
        assert_eq!(r.prepared.text(), text);
        assert_eq!(r.prepared.tools(), tools);
        stored += text.len() + tools.len();
    }
    assert!(stored > 0);
    assert!(held < stored, "held {held} bytes for {stored} of text");
}
