//! The one table of key bindings, in layers (picker, preview, tree, transcript, text inputs,
//! confirms, help, problems, and global keys over all of them). Dispatch, the footer hints,
//! the help overlay and the README's key tables all read it, so they can never disagree.
//! Users override it from the config file; conflicts are reported, not guessed at.

use std::collections::BTreeMap;

use ratatui::crossterm::event::KeyEvent;

pub use super::actions::{Action, ActionInfo, KeyContext};
pub use super::binding::{Binding, Conditions, When};
pub use super::keyspec::KeySpec;

/// The key table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keymap {
    pub bindings: Vec<Binding>,
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap {
            bindings: super::keymap_defaults::default_bindings(),
        }
    }
}

/// The default key map, built once (for callers without the app's, such as tests).
pub fn default_keymap() -> &'static Keymap {
    static DEFAULT: std::sync::OnceLock<Keymap> = std::sync::OnceLock::new();
    DEFAULT.get_or_init(Keymap::default)
}

impl Keymap {
    /// The action a key triggers in a layer: the global keys first, then the layer's.
    pub(crate) fn lookup(
        &self,
        key: &KeyEvent,
        context: KeyContext,
        cond: Conditions,
    ) -> Option<Action> {
        let spec = KeySpec::from_event(key);
        let find = |ctx: KeyContext| {
            self.bindings
                .iter()
                .find(|b| b.context == ctx && b.key == spec && cond.allow(b.when))
                .map(|b| b.action)
        };
        find(KeyContext::Global).or_else(|| find(context))
    }

    /// The action a key triggers in a layer, without the global keys.
    pub(crate) fn lookup_in(
        &self,
        key: &KeyEvent,
        context: KeyContext,
        cond: Conditions,
    ) -> Option<Action> {
        let spec = KeySpec::from_event(key);
        self.bindings
            .iter()
            .find(|b| b.context == context && b.key == spec && cond.allow(b.when))
            .map(|b| b.action)
    }

    /// The keys bound to an action in a layer, in table order.
    pub fn keys_for(&self, context: KeyContext, action: Action) -> Vec<KeySpec> {
        self.bindings
            .iter()
            .filter(|b| b.context == context && b.action == action)
            .map(|b| b.key)
            .collect()
    }

    /// The first key of an action in a layer (or, failing that, globally), as text; `""`
    /// when unbound.
    pub(crate) fn key_label(&self, context: KeyContext, action: Action) -> String {
        self.keys_for(context, action)
            .into_iter()
            .chain(self.keys_for(KeyContext::Global, action))
            .next()
            .map(|k| k.to_string())
            .unwrap_or_default()
    }

    /// Every key of an action in a layer, as `a / b`.
    pub(crate) fn keys_label(&self, context: KeyContext, action: Action) -> String {
        let keys: Vec<String> = self
            .keys_for(context, action)
            .iter()
            .map(ToString::to_string)
            .collect();
        keys.join(" / ")
    }

    /// `(key, action, hint word)` for a layer's footer, in table order, one per action (the
    /// global keys with a hint last); each with its first key that works unconditionally.
    pub(crate) fn hints(&self, context: KeyContext) -> Vec<(String, Action, &'static str)> {
        let mut out: Vec<(String, Action, &'static str)> = Vec::new();
        for ctx in [context, KeyContext::Global] {
            for b in self.bindings.iter().filter(|b| b.context == ctx) {
                let Some(hint) = b.action.info().hint else {
                    continue;
                };
                if out.iter().any(|(_, a, _)| *a == b.action) {
                    continue;
                }
                let key = [context, KeyContext::Global]
                    .into_iter()
                    .flat_map(|c| {
                        self.bindings
                            .iter()
                            .filter(move |x| x.context == c && x.action == b.action)
                    })
                    .find(|x| x.when == When::Always)
                    .map_or(b.key, |x| x.key);
                out.push((key.to_string(), b.action, hint));
            }
        }
        out
    }

    /// `(keys, action, description)` rows of a layer, one per action, in table order.
    pub fn rows(&self, context: KeyContext) -> Vec<(String, Action, &'static str)> {
        let mut seen = Vec::new();
        let mut out = Vec::new();
        for b in self.bindings.iter().filter(|b| b.context == context) {
            if seen.contains(&b.action) {
                continue;
            }
            seen.push(b.action);
            let mut keys = self.keys_label(context, b.action);
            if b.when == When::QueryEmpty {
                keys.push_str(" (empty query)");
            }
            out.push((keys, b.action, b.action.info().description));
        }
        out
    }

    /// `(keys, description)` rows for the help overlay of a layer.
    pub(crate) fn help_rows(&self, context: KeyContext) -> Vec<(String, &'static str)> {
        self.rows(context)
            .into_iter()
            .map(|(k, _, d)| (k, d))
            .collect()
    }

    /// Replaces the keys of the actions named in `overrides`: `action = keys` in every layer
    /// the action has keys in, `layer.action = keys` in one (`tree.label = "alt+l"`).
    /// Returns one message per entry that could not be applied, and per conflict left.
    pub fn apply_overrides(&mut self, overrides: &BTreeMap<String, Vec<String>>) -> Vec<String> {
        let mut problems = Vec::new();
        let defaults = self.clone();
        let mut claimed: std::collections::HashMap<(KeyContext, KeySpec), &str> =
            std::collections::HashMap::new();
        for (name, keys) in overrides {
            let (layer, action_name) = match name.split_once('.') {
                Some((l, a)) => (Some(l), a),
                None => (None, name.as_str()),
            };
            let Some(action) = Action::from_name(action_name) else {
                problems.push(format!("[keys] unknown action `{name}`"));
                continue;
            };
            let contexts: Vec<KeyContext> = match layer {
                Some(l) => match KeyContext::from_name(l) {
                    Some(c) => vec![c],
                    None => {
                        problems.push(format!("[keys] {name}: unknown layer `{l}`"));
                        continue;
                    }
                },
                None => KeyContext::ALL
                    .into_iter()
                    .filter(|c| !defaults.keys_for(*c, action).is_empty())
                    .collect(),
            };
            if contexts.is_empty() {
                problems.push(format!("[keys] {name}: no layer has this action"));
                continue;
            }
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
            for &context in &contexts {
                for key in &parsed {
                    if let Some(other) = claimed.insert((context, *key), name.as_str())
                        && other != name
                    {
                        problems.push(format!(
                            "[keys] {key} is given to both `{other}` and `{name}` ({}); `{name}` wins",
                            context.info().1
                        ));
                    }
                }
                // A key moved to this action leaves its old one in this layer.
                self.bindings.retain(|b| {
                    b.context != context || (b.action != action && !parsed.contains(&b.key))
                });
                for key in &parsed {
                    self.bindings.push(Binding {
                        key: *key,
                        action,
                        context,
                        when: When::for_key(context, key),
                    });
                }
            }
        }
        // An action that lost its last key to another one can no longer be reached.
        for b in &defaults.bindings {
            let named = |n: &String| {
                n == b.action.name() || *n == format!("{}.{}", b.context.name(), b.action.name())
            };
            if self.keys_for(b.context, b.action).is_empty() && !overrides.keys().any(named) {
                let msg = format!(
                    "[keys] `{}` has no key left in {} (its keys went to other actions)",
                    b.action.name(),
                    b.context.info().1
                );
                if !problems.contains(&msg) {
                    problems.push(msg);
                }
            }
        }
        problems.extend(self.conflicts());
        problems
    }

    /// Keys that cannot work as bound: one key for two actions in a layer, or a layer key a
    /// global key hides.
    pub(crate) fn conflicts(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, a) in self.bindings.iter().enumerate() {
            for b in &self.bindings[i + 1..] {
                let same_layer = a.context == b.context;
                let hidden = (a.context == KeyContext::Global) != (b.context == KeyContext::Global);
                if a.key == b.key && a.action != b.action && (same_layer || hidden) {
                    let msg = if same_layer {
                        format!(
                            "[keys] {} is bound to both `{}` and `{}` in {}",
                            a.key,
                            a.action.name(),
                            b.action.name(),
                            a.context.info().1
                        )
                    } else {
                        let (g, l) = if a.context == KeyContext::Global {
                            (a, b)
                        } else {
                            (b, a)
                        };
                        format!(
                            "[keys] {} of `{}` in {} is hidden by the global `{}`",
                            l.key,
                            l.action.name(),
                            l.context.info().1,
                            g.action.name()
                        )
                    };
                    if !out.contains(&msg) {
                        out.push(msg);
                    }
                }
            }
        }
        out
    }

    /// The key tables as Markdown, one per layer (the README's are this text).
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        for context in KeyContext::ALL {
            let rows = self.rows(context);
            if rows.is_empty() {
                continue;
            }
            out.push_str(&format!("#### {}\n\n", context.info().1));
            out.push_str("| Key | Action (`[keys]` name) | What it does |\n|---|---|---|\n");
            for (keys, action, desc) in rows {
                let keys = keys.replace('|', "\\|");
                out.push_str(&format!("| `{keys}` | `{}` | {desc} |\n", action.name()));
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};

    fn ev(spec: &str) -> KeyEvent {
        let k = KeySpec::parse(spec).unwrap();
        KeyEvent::new(k.code, k.modifiers)
    }

    const EMPTY: Conditions = Conditions { query_empty: true };
    const TYPED: Conditions = Conditions { query_empty: false };

    #[test]
    fn question_mark_only_with_empty_query() {
        let km = Keymap::default();
        let q = KeyEvent::new(KeyCode::Char('?'), KeyModifiers::SHIFT);
        assert_eq!(km.lookup(&q, KeyContext::Picker, EMPTY), Some(Action::Help));
        assert_eq!(km.lookup(&q, KeyContext::Picker, TYPED), None);
        assert_eq!(km.lookup(&q, KeyContext::Tree, TYPED), Some(Action::Help));
    }

    #[test]
    fn global_keys_work_in_every_layer() {
        let km = Keymap::default();
        for c in KeyContext::ALL {
            assert_eq!(
                km.lookup(&ev("ctrl+c"), c, TYPED),
                Some(Action::Quit),
                "{c:?}"
            );
            assert_eq!(km.lookup(&ev("f1"), c, TYPED), Some(Action::Help), "{c:?}");
        }
    }

    #[test]
    fn defaults_have_no_conflicts() {
        assert_eq!(Keymap::default().conflicts(), Vec::<String>::new());
    }

    #[test]
    fn overrides_move_keys_in_every_layer_or_one() {
        let mut km = Keymap::default();
        let problems = km.apply_overrides(&BTreeMap::from([
            ("rename".to_owned(), vec!["ctrl+e".to_owned()]),
            ("label".to_owned(), vec!["alt+l".to_owned()]),
            ("tree.fork".to_owned(), vec!["alt+f".to_owned()]),
            ("bogus".to_owned(), vec!["x".to_owned()]),
        ]));
        assert_eq!(
            problems,
            vec![
                "[keys] unknown action `bogus`".to_owned(),
                "[keys] `problems` has no key left in Session list (its keys went to other actions)"
                    .to_owned()
            ]
        );
        assert_eq!(
            km.lookup(&ev("ctrl+e"), KeyContext::Picker, EMPTY),
            Some(Action::Rename)
        );
        assert_eq!(km.lookup(&ev("ctrl+r"), KeyContext::Picker, EMPTY), None);
        for c in [KeyContext::Tree, KeyContext::Transcript] {
            assert_eq!(km.lookup(&ev("alt+l"), c, EMPTY), Some(Action::Label));
            assert_eq!(km.lookup(&ev("L"), c, EMPTY), None);
        }
        assert_eq!(
            km.lookup(&ev("alt+f"), KeyContext::Tree, EMPTY),
            Some(Action::Fork)
        );
        assert_eq!(
            km.lookup(&ev("f"), KeyContext::Transcript, EMPTY),
            Some(Action::Fork)
        );
        assert!(km.hints(KeyContext::Picker).contains(&(
            "ctrl+e".to_owned(),
            Action::Rename,
            "rename"
        )));
    }

    #[test]
    fn conflicting_overrides_are_reported() {
        let mut km = Keymap::default();
        let problems = km.apply_overrides(&BTreeMap::from([
            ("fork".to_owned(), vec!["x".to_owned()]),
            ("label".to_owned(), vec!["x".to_owned()]),
            ("tree.export".to_owned(), vec!["ctrl+c".to_owned()]),
        ]));
        assert!(
            problems
                .iter()
                .any(|p| p.contains("given to both `fork` and `label`")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("hidden by the global `quit`")),
            "{problems:?}"
        );
    }
}
