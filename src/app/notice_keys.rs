//! Keys while the start-up notice is over the screen.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::event::Effect;
use super::state::AppState;

/// Handles a key while a notice is shown: Esc, Enter or `q` dismiss it, the arrows scroll it,
/// Ctrl+C quits; any other key does nothing (the notice covers what it would act on).
/// Returns false when no notice is shown.
pub fn on_key(state: &mut AppState, key: &KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let Some(notice) = &mut state.notice else {
        return false;
    };
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Char('c') if ctrl => fx.push(Effect::Quit {
            code: if state.options.print_mode { 130 } else { 0 },
        }),
        KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') => state.notice = None,
        KeyCode::Up => notice.scroll = notice.scroll.saturating_sub(1),
        KeyCode::Down => notice.scroll = notice.scroll.saturating_add(1),
        KeyCode::PageUp => notice.scroll = notice.scroll.saturating_sub(10),
        KeyCode::PageDown => notice.scroll = notice.scroll.saturating_add(10),
        _ => {}
    }
    state.dirty = true;
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::keymap::Keymap;
    use crate::app::notice::Notice;
    use crate::app::state::Options;

    fn state() -> AppState {
        let mut s = AppState::new(
            Options::default(),
            Keymap::default(),
            crate::app::theme::Palette::default(),
        );
        s.notice = Notice::config_problems(vec!["line 1, column 2: bad".into()]);
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
        assert!(s.notice.is_some() && fx.is_empty());
        assert!(on_key(
            &mut s,
            &key(KeyCode::Down, KeyModifiers::NONE),
            &mut fx
        ));
        assert_eq!(s.notice.as_ref().map(|n| n.scroll), Some(1));
        assert!(on_key(
            &mut s,
            &key(KeyCode::Esc, KeyModifiers::NONE),
            &mut fx
        ));
        assert!(s.notice.is_none());
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
}
