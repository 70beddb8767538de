//! Bookmarks on real files: the labels of the demo sessions are found, and Enter on one opens
//! the session view with its entry selected.

#[path = "picker_support/mod.rs"]
mod support;

use std::sync::Arc;

use grove::app::bookmark_screen::Loaded;
use grove::app::bookmarks::collect_bookmarks;
use grove::app::event::Event;
use grove::app::marks::OrgEvent;
use grove::app::session_view::SessionViewState;
use grove::app::state::{Mode, Screen, SessionRecord};
use grove::storage::demo::{copy_dir, demo_source};
use grove::storage::read::{load_session, scan_info};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use support::Harness;

#[test]
fn enter_on_a_bookmark_opens_the_view_on_its_entry() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo_source(), tmp.path()).unwrap();
    let roots: Vec<_> = ["pi-agent/sessions", "atomic-agent/sessions"]
        .iter()
        .map(|p| grove::storage::roots::SessionRoot {
            path: tmp.path().join(p),
            agent: None,
        })
        .collect();
    let (files, _) = grove::storage::roots::find_session_files(&roots);
    let records: Vec<Arc<SessionRecord>> = files
        .iter()
        .map(|f| {
            Arc::new(SessionRecord::new(
                scan_info(&f.path, f.agent).unwrap(),
                None,
            ))
        })
        .collect();
    let infos: Vec<_> = records.iter().map(|r| &r.info).collect();
    let (bookmarks, problems) = collect_bookmarks(&infos, &|| false);
    assert!(problems.is_empty(), "{problems:?}");
    assert!(bookmarks.len() >= 3, "{bookmarks:?}");
    // Every bookmark is a labelled entry of its file, as the file says.
    for b in &bookmarks {
        let s = load_session(&b.session_path).unwrap();
        assert_eq!(s.tree.labels[&b.entry_id].text, b.label);
        assert!(s.tree.index_of(&b.entry_id).is_some());
    }
    // Newest label first.
    assert!(
        bookmarks
            .windows(2)
            .all(|w| w[0].labelled_at >= w[1].labelled_at)
    );

    let mut h = Harness::new(120, 35);
    h.load(records);
    h.take_effects();
    h.send(Event::Key(KeyEvent::new(
        KeyCode::Char('b'),
        KeyModifiers::ALT,
    )));
    let target = bookmarks[1].clone();
    h.send(Event::Organise(OrgEvent::Bookmarks(Loaded {
        bookmarks: Ok(bookmarks),
        problems: 0,
    })));
    h.key(KeyCode::Down);
    h.auto_preview = false;
    h.key(KeyCode::Enter);
    assert_eq!(h.state.mode, Mode::Normal);
    let Screen::Session { record, .. } = h.state.screen else {
        panic!("{:?}", h.state.screen)
    };
    // What the effects runner does for OpenSession.
    let session = load_session(&target.session_path).unwrap();
    let view = SessionViewState::new(
        target.session_path.clone(),
        session,
        target.agent,
        Rect::new(0, 0, 120, 35),
    );
    assert_ne!(
        view.selected_id(),
        Some(target.entry_id.as_str()),
        "the view would open there anyway: pick another bookmark"
    );
    h.send(Event::SessionOpened {
        record,
        path: target.session_path.clone(),
        result: Ok(Box::new(view)),
    });
    let Screen::View { view, .. } = &h.state.screen else {
        panic!("the view did not open")
    };
    assert_eq!(view.selected_id(), Some(target.entry_id.as_str()));
    assert!(h.state.picker.org.open_at.is_none());
}
