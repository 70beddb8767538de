//! One key with its modifiers (`ctrl+o`): parsing the config's notation, showing it (the
//! same notation everywhere), normalising what terminals report, and whether a legacy
//! terminal (tmux, plain xterm) can send it at all.

use std::fmt;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key with its modifiers, e.g. `ctrl+s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeySpec {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

impl KeySpec {
    pub const fn new(code: KeyCode, modifiers: KeyModifiers) -> Self {
        KeySpec { code, modifiers }
    }

    pub const fn plain(code: KeyCode) -> Self {
        Self::new(code, KeyModifiers::NONE)
    }

    pub const fn ch(c: char) -> Self {
        Self::plain(KeyCode::Char(c))
    }

    pub const fn ctrl(c: char) -> Self {
        Self::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    pub const fn alt(c: char) -> Self {
        Self::new(KeyCode::Char(c), KeyModifiers::ALT)
    }

    /// The spec of a pressed key, normalised: a printable character matches whether or not
    /// the terminal reports Shift with it (`?`, `L`); with Ctrl or Alt, an upper-case letter
    /// is the lower-case one with Shift (`ctrl+shift+o` arrives as `O` or `o`); Shift+Tab is
    /// `shift+tab` however it is reported.
    pub(crate) fn from_event(key: &KeyEvent) -> Self {
        let mut modifiers =
            key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match key.code {
            KeyCode::Char(c) if modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
                if c.is_uppercase() {
                    modifiers |= KeyModifiers::SHIFT;
                }
                KeyCode::Char(c.to_ascii_lowercase())
            }
            KeyCode::Char(c) => {
                modifiers.remove(KeyModifiers::SHIFT);
                KeyCode::Char(c)
            }
            KeyCode::BackTab => {
                modifiers.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            other => other,
        };
        KeySpec { code, modifiers }
    }

    /// Parses `ctrl+s`, `alt+enter`, `f1`, `pgup`, `?`, `tab`, `shift+tab` (names are
    /// case-insensitive; a single character is taken as it is, so `G` is not `g`).
    pub fn parse(s: &str) -> Result<KeySpec, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err("empty key".into());
        }
        let mut modifiers = KeyModifiers::NONE;
        let mut rest = s;
        loop {
            let lower = rest.to_ascii_lowercase();
            let Some((m, tail)) = lower.split_once('+').filter(|(_, t)| !t.is_empty()) else {
                break;
            };
            match m {
                "ctrl" | "control" | "c" => modifiers |= KeyModifiers::CONTROL,
                "alt" | "meta" | "m" => modifiers |= KeyModifiers::ALT,
                "shift" | "s" => modifiers |= KeyModifiers::SHIFT,
                _ => return Err(format!("unknown modifier `{m}` in `{s}`")),
            }
            rest = &rest[rest.len() - tail.len()..];
        }
        let lower = rest.to_ascii_lowercase();
        let code = match lower.as_str() {
            "enter" | "return" => KeyCode::Enter,
            "esc" | "escape" => KeyCode::Esc,
            "tab" if modifiers.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "backspace" => KeyCode::Backspace,
            "delete" | "del" => KeyCode::Delete,
            "up" | "↑" => KeyCode::Up,
            "down" | "↓" => KeyCode::Down,
            "left" | "←" => KeyCode::Left,
            "right" | "→" => KeyCode::Right,
            "pageup" | "pgup" => KeyCode::PageUp,
            "pagedown" | "pgdn" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "space" => KeyCode::Char(' '),
            f if f.starts_with('f')
                && f.len() > 1
                && f[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                let n: u8 = f[1..].parse().map_err(|_| format!("bad key `{s}`"))?;
                KeyCode::F(n)
            }
            _ => {
                let mut chars = rest.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => KeyCode::Char(c),
                    _ => return Err(format!("unknown key `{s}`")),
                }
            }
        };
        Ok(KeySpec::from_event(&KeyEvent::new(code, modifiers)))
    }

    /// Whether a terminal without keyboard enhancements (tmux, plain xterm) can send this key
    /// so that it arrives as itself: Ctrl+Backspace, Ctrl+Shift+letter, Ctrl+Enter and the
    /// like arrive as other keys or not at all there.
    pub fn legacy_sendable(&self) -> bool {
        use KeyCode as K;
        let ctrl = self.modifiers.contains(KeyModifiers::CONTROL);
        let alt = self.modifiers.contains(KeyModifiers::ALT);
        let shift = self.modifiers.contains(KeyModifiers::SHIFT);
        match self.code {
            // xterm encodes any modifiers on these (`CSI 1;5D`).
            K::Up
            | K::Down
            | K::Left
            | K::Right
            | K::Home
            | K::End
            | K::PageUp
            | K::PageDown
            | K::Delete
            | K::Insert
            | K::F(_) => true,
            K::BackTab => !ctrl && !alt,
            // Alt is an ESC prefix on the plain byte.
            K::Enter | K::Tab | K::Backspace | K::Esc => !ctrl && !shift,
            K::Char(c) if ctrl => {
                !shift
                    && ((c.is_ascii_lowercase() && c != 'i' && c != 'm')
                        || matches!(c, ' ' | '4'..='7'))
            }
            K::Char(_) => !shift,
            _ => false,
        }
    }
}

impl fmt::Display for KeySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            f.write_str("ctrl+")?;
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            f.write_str("alt+")?;
        }
        if self.modifiers.contains(KeyModifiers::SHIFT) {
            f.write_str("shift+")?;
        }
        match self.code {
            KeyCode::Enter => f.write_str("enter"),
            KeyCode::Esc => f.write_str("esc"),
            KeyCode::Tab => f.write_str("tab"),
            KeyCode::BackTab => f.write_str("shift+tab"),
            KeyCode::Backspace => f.write_str("backspace"),
            KeyCode::Delete => f.write_str("delete"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::PageUp => f.write_str("pgup"),
            KeyCode::PageDown => f.write_str("pgdn"),
            KeyCode::Home => f.write_str("home"),
            KeyCode::End => f.write_str("end"),
            KeyCode::F(n) => write!(f, "f{n}"),
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            other => write!(f, "{other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display_round_trip() {
        for s in [
            "ctrl+s",
            "enter",
            "f1",
            "?",
            "alt+enter",
            "pgup",
            "tab",
            "shift+tab",
            "ctrl+←",
            "G",
            "alt+l",
        ] {
            let k = KeySpec::parse(s).unwrap();
            assert_eq!(KeySpec::parse(&k.to_string()).unwrap(), k, "{s}");
        }
        assert_eq!(KeySpec::parse("CTRL+s").unwrap(), KeySpec::ctrl('s'));
        assert!(KeySpec::parse("hyper+x").is_err());
        assert_eq!(KeySpec::parse("+").unwrap(), KeySpec::ch('+'));
        assert_ne!(KeySpec::parse("G").unwrap(), KeySpec::parse("g").unwrap());
    }

    #[test]
    fn terminals_reports_are_normalised() {
        let shifted = KeyEvent::new(KeyCode::Char('L'), KeyModifiers::SHIFT);
        assert_eq!(KeySpec::from_event(&shifted), KeySpec::ch('L'));
        let cso = KeyEvent::new(KeyCode::Char('O'), KeyModifiers::CONTROL);
        assert_eq!(
            KeySpec::from_event(&cso),
            KeySpec::new(
                KeyCode::Char('o'),
                KeyModifiers::CONTROL | KeyModifiers::SHIFT
            )
        );
    }

    #[test]
    fn legacy_terminals_cannot_send_everything() {
        for bad in [
            "ctrl+backspace",
            "ctrl+shift+o",
            "ctrl+enter",
            "ctrl+i",
            "ctrl+.",
        ] {
            assert!(!KeySpec::parse(bad).unwrap().legacy_sendable(), "{bad}");
        }
        for good in [
            "ctrl+o",
            "alt+o",
            "ctrl+←",
            "shift+tab",
            "f1",
            "?",
            "G",
            "ctrl+h",
        ] {
            assert!(KeySpec::parse(good).unwrap().legacy_sendable(), "{good}");
        }
    }
}
