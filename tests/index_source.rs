//! The browser lists through the index: on the second launch every unchanged session arrives in
//! the first batch, without reading a session file, and its search text follows (read from the
//! index after the rows were sent, so they show at once).

use std::sync::{Arc, Mutex};

use grove::app::event::ScanUpdate;
use grove::app::source::{IndexSource, SessionSource};
use grove::app::state::SessionRecord;
use grove::storage::demo::{copy_dir, demo_source};
use grove::storage::index::Index;
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
    assert!(second.iter().all(|r| r.prepared.as_str().is_empty()));
    assert!(
        texts
            .iter()
            .any(|r| r.prepared.as_str().contains("rust-analyzer")),
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
    let (kinds, third, _) = scan(&source(&corpus, &cache));
    assert_eq!(
        kinds,
        vec![
            ("found", n),
            ("sessions", n - 1),
            ("texts", n - 1),
            ("sessions", 1),
            ("done", 0)
        ]
    );
    assert!(
        third
            .iter()
            .any(|r| r.info.name.as_deref() == Some("renamed"))
    );
}
