//! Keys while a notice popup is over the screen, through the key map's `notice` layer: its
//! own keys dismiss or scroll it, Ctrl+C quits, and any other key does nothing (the popup
//! covers what it would act on).

use ratatui::crossterm::event::KeyEvent;

use super::event::Effect;
use super::keymap::{Action, Conditions, KeyContext, Keymap};
use super::notice::NoticeKind;
use super::ops::request_quit;
use super::state::AppState;

/// Handles a key while a popup notice is shown; false when none is.
pub fn on_key(state: &mut AppState, key: &KeyEvent, fx: &mut Vec<Effect>) -> bool {
    if state.notices.popup().is_none() {
        return false;
    }
    let any = Conditions { query_empty: true };
    let notices = &mut state.notices;
    match state.keymap.lookup_in(key, KeyContext::Global, any) {
        Some(Action::Quit) => request_quit(state, fx),
        _ => match state.keymap.lookup_in(key, KeyContext::Notice, any) {
            Some(Action::Dismiss) => {
                notices.dismiss(NoticeKind::Popup);
            }
            Some(Action::Up) => notices.scroll = notices.scroll.saturating_sub(1),
            Some(Action::Down) => notices.scroll = notices.scroll.saturating_add(1),
            Some(Action::PageUp) => notices.scroll = notices.scroll.saturating_sub(10),
            Some(Action::PageDown) => notices.scroll = notices.scroll.saturating_add(10),
            _ => {}
        },
    }
    state.dirty = true;
    true
}

/// The popup's footer hints, `(keys, word)`, from the key map (`esc/enter/q dismiss`,
/// `↑↓ scroll`).
pub(crate) fn popup_hints(keymap: &Keymap) -> Vec<(String, String)> {
    let keys: Vec<String> = keymap
        .keys_for(KeyContext::Notice, Action::Dismiss)
        .iter()
        .map(ToString::to_string)
        .collect();
    let scroll = keymap.key_label(KeyContext::Notice, Action::Up)
        + &keymap.key_label(KeyContext::Notice, Action::Down);
    [(keys.join("/"), "dismiss"), (scroll, "scroll")]
        .into_iter()
        .filter(|(k, _)| !k.is_empty())
        .map(|(k, w)| (k, w.to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::notice::Notice;
    use crate::app::state::Options;
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};

    fn state() -> AppState {
        let mut s = AppState::new(
            Options::default(),
            Keymap::default(),
            crate::app::theme::Palette::default(),
        );
        s.notices
            .push(Notice::config_problems(vec!["line 1, column 2: bad".into()]).unwrap());
        s
    }

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn keys_go_to_the_notice_until_it_is_dismissed() {
        let mut s = state();
        let mut fx = Vec::new();
        assert!(on_key(
            &mut s,
            &key(KeyCode::Char('x'), KeyModifiers::NONE),
            &mut fx
        ));
        assert!(s.notices.popup().is_some() && fx.is_empty());
        assert!(on_key(
            &mut s,
            &key(KeyCode::Down, KeyModifiers::NONE),
            &mut fx
        ));
        assert_eq!(s.notices.scroll, 1);
        assert!(on_key(
            &mut s,
            &key(KeyCode::Esc, KeyModifiers::NONE),
            &mut fx
        ));
        assert!(s.notices.popup().is_none());
        assert!(!on_key(
            &mut s,
            &key(KeyCode::Esc, KeyModifiers::NONE),
            &mut fx
        ));
        assert!(Notice::config_problems(Vec::new()).is_none());
    }

    #[test]
    fn ctrl_c_quits_from_the_notice() {
        let mut s = state();
        let mut fx = Vec::new();
        on_key(
            &mut s,
            &key(KeyCode::Char('c'), KeyModifiers::CONTROL),
            &mut fx,
        );
        assert!(matches!(fx.as_slice(), [Effect::Quit { code: 0 }]));
    }

    /// The popup's keys are the key map's: a `[keys] notice.dismiss` override moves them,
    /// and the footer says so.
    #[test]
    fn the_popup_keys_come_from_the_key_map() {
        let mut s = state();
        let problems = s
            .keymap
            .apply_overrides(&std::collections::BTreeMap::from([(
                "notice.dismiss".to_owned(),
                vec!["x".to_owned()],
            )]));
        assert_eq!(problems, Vec::<String>::new());
        fn hints(km: &Keymap) -> Vec<String> {
            popup_hints(km)
                .into_iter()
                .map(|(k, w)| format!("{k} {w}"))
                .collect()
        }
        assert_eq!(hints(&s.keymap), ["x dismiss", "↑↓ scroll"]);
        let mut fx = Vec::new();
        on_key(&mut s, &key(KeyCode::Esc, KeyModifiers::NONE), &mut fx);
        assert!(s.notices.popup().is_some(), "esc no longer dismisses");
        on_key(
            &mut s,
            &key(KeyCode::Char('x'), KeyModifiers::NONE),
            &mut fx,
        );
        assert!(s.notices.popup().is_none());
        assert_eq!(
            hints(&Keymap::default()),
            ["esc/enter/q dismiss", "↑↓ scroll"]
        );
    }
}
