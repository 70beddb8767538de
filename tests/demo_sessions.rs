//! The bundled demo set loads cleanly: the screenshots and `--demo` depend on it.

use grove::model::context::{LeafChoice, build_context};
use grove::storage::demo::demo_source;
use grove::storage::read::{detect_agent, load_session};
use grove::storage::roots::{SessionRoot, find_session_files};
use grove::storage::scan::list_sessions;

fn roots() -> Vec<SessionRoot> {
    let src = demo_source();
    vec![
        SessionRoot {
            path: src.join("pi-agent/sessions"),
            agent: Some(grove::model::context::Dialect::Pi),
        },
        SessionRoot {
            path: src.join("atomic-agent/sessions"),
            agent: Some(grove::model::context::Dialect::Atomic),
        },
    ]
}

#[test]
fn every_demo_session_parses_without_issues() {
    let (files, skipped) = find_session_files(&roots());
    assert!(skipped.is_empty(), "{skipped:?}");
    assert!(files.len() >= 15, "only {} demo files", files.len());
    for f in &files {
        let s = load_session(&f.path).unwrap();
        let issues: Vec<_> = s.issues().collect();
        assert!(issues.is_empty(), "{}: {issues:?}", f.path.display());
        let agent = detect_agent(&f.path, &s, f.agent);
        let ctx = build_context(&s, LeafChoice::Current, agent);
        assert!(!ctx.messages.is_empty(), "{}", f.path.display());
    }
}

#[test]
fn demo_listing_has_names_forks_and_workflows() {
    let listing = list_sessions(&roots());
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let s = &listing.sessions;
    assert!(s.iter().any(|s| s.name.is_some()));
    assert!(s.iter().any(|s| s.parent_session_path.is_some()));
    assert!(s.iter().any(|s| s.internal));
    assert!(s.iter().any(|s| s.summary.is_some()));
    assert!(s.iter().any(|s| s.leaf_count > 1));
    assert!(s.iter().any(|s| s.label_count > 0));
}
