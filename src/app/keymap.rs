//! The one table of key bindings. It drives dispatch in [`super::update`], the footer hints and
//! the help overlay, so the three can never disagree. Users override it from the config file.

use std::collections::BTreeMap;
use std::fmt;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyContext {
    /// The session list.
    Picker,
    /// The full-screen session view.
    View,
}

/// Everything a key can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    Open,
    /// Open the session view even in `--print` mode (where Enter prints the path).
    View,
    Resume,
    ToggleScope,
    CycleSort,
    ToggleNamed,
    TogglePath,
    TogglePreview,
    Rename,
    Delete,
    Undo,
    /// List the files that could not be read as sessions, with the reason.
    Problems,
    Help,
    /// Esc: clears the query, else quits (in the view: back to the list).
    Back,
    Quit,
}

/// What the table says about an action.
pub struct ActionInfo {
    /// The name used in the config file (`[keys] rename = "ctrl+e"`).
    pub name: &'static str,
    /// The short word shown in the footer (`None`: not hinted there).
    pub hint: Option<&'static str>,
    /// One line for the help overlay.
    pub description: &'static str,
    pub contexts: &'static [KeyContext],
}

const PICKER: &[KeyContext] = &[KeyContext::Picker];
const BOTH: &[KeyContext] = &[KeyContext::Picker, KeyContext::View];

impl Action {
    pub const ALL: [Action; 21] = [
        Action::Up,
        Action::Down,
        Action::PageUp,
        Action::PageDown,
        Action::Home,
        Action::End,
        Action::Open,
        Action::View,
        Action::Resume,
        Action::ToggleScope,
        Action::CycleSort,
        Action::ToggleNamed,
        Action::TogglePath,
        Action::TogglePreview,
        Action::Rename,
        Action::Delete,
        Action::Undo,
        Action::Problems,
        Action::Help,
        Action::Back,
        Action::Quit,
    ];

    pub fn info(self) -> ActionInfo {
        let (name, hint, description, contexts) = match self {
            Action::Up => ("up", None, "move up (view: scroll)", BOTH),
            Action::Down => ("down", None, "move down (view: scroll)", BOTH),
            Action::PageUp => ("page-up", None, "one page up", BOTH),
            Action::PageDown => ("page-down", None, "one page down", BOTH),
            Action::Home => ("home", None, "first session (view: top)", BOTH),
            Action::End => ("end", None, "last session (view: bottom)", BOTH),
            Action::Open => ("open", Some("open"), "open the session", PICKER),
            Action::View => (
                "view",
                None,
                "open the session view (also with --print)",
                PICKER,
            ),
            Action::Resume => (
                "resume",
                Some("resume"),
                "resume it in its agent (pi / atomic)",
                BOTH,
            ),
            Action::ToggleScope => (
                "toggle-scope",
                Some("scope"),
                "current folder ↔ all folders",
                PICKER,
            ),
            Action::CycleSort => (
                "cycle-sort",
                Some("sort"),
                "sort: threaded → recent → fuzzy",
                PICKER,
            ),
            Action::ToggleNamed => (
                "toggle-named",
                Some("named"),
                "only named sessions ↔ all",
                PICKER,
            ),
            Action::TogglePath => ("toggle-path", Some("path"), "show the file path", PICKER),
            Action::TogglePreview => (
                "toggle-preview",
                Some("preview"),
                "show or hide the preview pane",
                PICKER,
            ),
            Action::Rename => ("rename", Some("rename"), "rename the session", PICKER),
            Action::Delete => (
                "delete",
                Some("delete"),
                "move to the trash (asks first)",
                PICKER,
            ),
            Action::Undo => (
                "undo",
                Some("undo"),
                "restore the last deleted session",
                PICKER,
            ),
            Action::Problems => (
                "problems",
                None,
                "list the files that could not be read, and why",
                PICKER,
            ),
            Action::Help => ("help", Some("help"), "this help", BOTH),
            Action::Back => (
                "back",
                None,
                "clear the search, else quit (view: back)",
                BOTH,
            ),
            Action::Quit => ("quit", None, "quit", BOTH),
        };
        ActionInfo {
            name,
            hint,
            description,
            contexts,
        }
    }

    pub fn from_name(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.info().name == name)
    }
}

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

    pub const fn ctrl(c: char) -> Self {
        Self::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    /// The spec of a pressed key, normalised so that `?` matches whether or not the terminal
    /// reports Shift with it.
    pub fn from_event(key: &KeyEvent) -> Self {
        let mut modifiers =
            key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match key.code {
            KeyCode::Char(c) => {
                modifiers.remove(KeyModifiers::SHIFT);
                if modifiers.contains(KeyModifiers::CONTROL) {
                    KeyCode::Char(c.to_ascii_lowercase())
                } else {
                    KeyCode::Char(c)
                }
            }
            KeyCode::BackTab => {
                modifiers.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            other => other,
        };
        KeySpec { code, modifiers }
    }

    /// Parses `ctrl+s`, `alt+enter`, `f1`, `pageup`, `?`, `tab` (case-insensitive names).
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
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "backspace" => KeyCode::Backspace,
            "delete" | "del" => KeyCode::Delete,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
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
        let ev = KeyEvent::new(code, modifiers);
        Ok(KeySpec::from_event(&ev))
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

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub key: KeySpec,
    pub action: Action,
    /// Only when the search query is empty (so `?` can still be typed into a query).
    pub query_empty_only: bool,
}

/// The key table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keymap {
    pub bindings: Vec<Binding>,
}

impl Default for Keymap {
    fn default() -> Self {
        use KeyCode as K;
        let b = |key: KeySpec, action: Action| Binding {
            key,
            action,
            query_empty_only: false,
        };
        let bindings = vec![
            b(KeySpec::plain(K::Up), Action::Up),
            b(KeySpec::plain(K::Down), Action::Down),
            b(KeySpec::plain(K::PageUp), Action::PageUp),
            b(KeySpec::plain(K::PageDown), Action::PageDown),
            b(KeySpec::plain(K::Home), Action::Home),
            b(KeySpec::plain(K::End), Action::End),
            b(KeySpec::plain(K::Enter), Action::Open),
            b(KeySpec::ctrl('v'), Action::View),
            b(KeySpec::ctrl('o'), Action::Resume),
            b(KeySpec::plain(K::Tab), Action::ToggleScope),
            b(KeySpec::ctrl('s'), Action::CycleSort),
            b(KeySpec::ctrl('n'), Action::ToggleNamed),
            b(KeySpec::ctrl('p'), Action::TogglePath),
            b(KeySpec::ctrl('t'), Action::TogglePreview),
            b(KeySpec::ctrl('r'), Action::Rename),
            b(KeySpec::ctrl('d'), Action::Delete),
            // pi's non-invasive delete: only while the query is empty (else it edits the query).
            Binding {
                key: KeySpec::new(K::Backspace, KeyModifiers::CONTROL),
                action: Action::Delete,
                query_empty_only: true,
            },
            b(KeySpec::ctrl('z'), Action::Undo),
            b(KeySpec::ctrl('e'), Action::Problems),
            b(KeySpec::plain(K::F(1)), Action::Help),
            Binding {
                key: KeySpec::plain(K::Char('?')),
                action: Action::Help,
                query_empty_only: true,
            },
            b(KeySpec::plain(K::Esc), Action::Back),
            b(KeySpec::ctrl('c'), Action::Quit),
        ];
        Keymap { bindings }
    }
}

impl Keymap {
    /// The action bound to a key in a context, if any.
    pub fn lookup(&self, key: &KeyEvent, context: KeyContext, query_empty: bool) -> Option<Action> {
        let spec = KeySpec::from_event(key);
        self.bindings
            .iter()
            .filter(|b| b.key == spec && (query_empty || !b.query_empty_only))
            .map(|b| b.action)
            .find(|a| a.info().contexts.contains(&context))
    }

    /// The keys bound to an action, in table order.
    pub fn keys_for(&self, action: Action) -> impl Iterator<Item = &KeySpec> {
        self.bindings
            .iter()
            .filter(move |b| b.action == action)
            .map(|b| &b.key)
    }

    /// The first key of an action, as text (`""` when unbound).
    pub fn key_label(&self, action: Action) -> String {
        self.keys_for(action)
            .next()
            .map(ToString::to_string)
            .unwrap_or_default()
    }

    /// `(keys, hint)` pairs for the footer of a context, in table order.
    pub fn hints(&self, context: KeyContext) -> Vec<(String, &'static str)> {
        let mut seen = Vec::new();
        let mut out = Vec::new();
        for b in &self.bindings {
            let info = b.action.info();
            if let Some(hint) = info.hint
                && info.contexts.contains(&context)
                && !seen.contains(&b.action)
            {
                seen.push(b.action);
                out.push((b.key.to_string(), hint));
            }
        }
        out
    }

    /// `(keys, description)` rows for the help overlay of a context.
    pub fn help_rows(&self, context: KeyContext) -> Vec<(String, &'static str)> {
        Action::ALL
            .into_iter()
            .filter(|a| a.info().contexts.contains(&context))
            .filter_map(|a| {
                let keys: Vec<String> = self.keys_for(a).map(ToString::to_string).collect();
                (!keys.is_empty()).then(|| (keys.join(" / "), a.info().description))
            })
            .collect()
    }

    /// Replaces the keys of the actions named in `overrides` (`action name → keys`).
    /// Returns one message per entry that could not be applied.
    pub fn apply_overrides(&mut self, overrides: &BTreeMap<String, Vec<String>>) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, keys) in overrides {
            let Some(action) = Action::from_name(name) else {
                problems.push(format!("unknown action `{name}` in [keys]"));
                continue;
            };
            let mut parsed = Vec::new();
            for k in keys {
                match KeySpec::parse(k) {
                    Ok(spec) => parsed.push(spec),
                    Err(e) => problems.push(format!("[keys] {name}: {e}")),
                }
            }
            if parsed.is_empty() && !keys.is_empty() {
                continue;
            }
            // A key moved to this action leaves its old action.
            self.bindings
                .retain(|b| b.action != action && !parsed.contains(&b.key));
            for key in parsed {
                self.bindings.push(Binding {
                    key,
                    action,
                    query_empty_only: false,
                });
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display_round_trip() {
        for s in ["ctrl+s", "enter", "f1", "?", "alt+enter", "pgup", "tab"] {
            let k = KeySpec::parse(s).unwrap();
            assert_eq!(KeySpec::parse(&k.to_string()).unwrap(), k, "{s}");
        }
        assert_eq!(KeySpec::parse("Ctrl+S").unwrap(), KeySpec::ctrl('s'));
        assert!(KeySpec::parse("hyper+x").is_err());
        assert_eq!(
            KeySpec::parse("+").unwrap(),
            KeySpec::plain(KeyCode::Char('+'))
        );
    }

    #[test]
    fn question_mark_only_with_empty_query() {
        let km = Keymap::default();
        let q = KeyEvent::new(KeyCode::Char('?'), KeyModifiers::SHIFT);
        assert_eq!(km.lookup(&q, KeyContext::Picker, true), Some(Action::Help));
        assert_eq!(km.lookup(&q, KeyContext::Picker, false), None);
    }

    #[test]
    fn overrides_move_keys() {
        let mut km = Keymap::default();
        let problems = km.apply_overrides(&BTreeMap::from([
            ("rename".to_owned(), vec!["ctrl+e".to_owned()]),
            ("bogus".to_owned(), vec!["x".to_owned()]),
        ]));
        assert_eq!(problems.len(), 1);
        let e = KeyEvent::new(KeyCode::Char('e'), KeyModifiers::CONTROL);
        let r = KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL);
        assert_eq!(
            km.lookup(&e, KeyContext::Picker, true),
            Some(Action::Rename)
        );
        assert_eq!(km.lookup(&r, KeyContext::Picker, true), None);
        assert!(
            km.hints(KeyContext::Picker)
                .contains(&("ctrl+e".to_owned(), "rename"))
        );
    }
}
