//! Enter does what the title says: the picker's title and footer name Enter's action, and the
//! config (`[picker] enter = "view" | "resume"`) chooses it; the session view stays on ctrl+v.

#[path = "picker_support/mod.rs"]
mod support;

use grove::app::config::{Config, EnterAction};
use grove::app::event::Effect;
use grove::app::state::{Options, Screen};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use support::{Harness, fixtures};

fn harness(enter: EnterAction) -> Harness {
    let options = Options {
        enter,
        ..Options::default()
    };
    let mut h = Harness::with_options(100, 20, options);
    h.load(fixtures());
    h
}

fn first_and_last_lines(screen: &str) -> (String, String) {
    let lines: Vec<&str> = screen.lines().collect();
    (lines[0].to_owned(), lines[lines.len() - 1].to_owned())
}

#[test]
fn by_default_enter_views_and_the_title_and_footer_say_so() {
    let mut h = harness(Config::default().enter);
    let (title, footer) = first_and_last_lines(&h.render());
    assert!(title.contains("View Session (Current Folder)"), "{title}");
    assert!(footer.contains("enter view"), "{footer}");
    h.auto_preview = false;
    h.key(KeyCode::Enter);
    assert!(matches!(h.state.screen, Screen::Session { .. }));
    assert!(
        h.take_effects()
            .iter()
            .any(|e| matches!(e, Effect::OpenSession { .. }))
    );
}

#[test]
fn enter_resumes_when_the_config_says_so_and_ctrl_v_still_views() {
    let c = Config::parse("[picker]\nenter = \"resume\"").unwrap();
    let mut h = harness(c.enter);
    let (title, footer) = first_and_last_lines(&h.render());
    assert!(title.contains("Resume Session (Current Folder)"), "{title}");
    assert!(footer.contains("enter resume"), "{footer}");
    assert!(footer.contains("ctrl+v view"), "{footer}");
    h.key(KeyCode::Enter);
    assert!(h.state.screen.is_picker());
    let fx = h.take_effects();
    assert!(
        fx.iter().any(|e| matches!(e, Effect::LaunchAgent { .. })),
        "{fx:?}"
    );
    h.auto_preview = false;
    h.send(grove::app::event::Event::Key(KeyEvent::new(
        KeyCode::Char('v'),
        KeyModifiers::CONTROL,
    )));
    assert!(matches!(h.state.screen, Screen::Session { .. }));
}
