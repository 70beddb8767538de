//! The default key table. Every action has a key a legacy terminal (tmux, plain xterm) can
//! send; keys only enhanced terminals report (Ctrl+Backspace, Ctrl+Shift+O) can be added in
//! the config.

use ratatui::crossterm::event::KeyCode as K;

use super::actions::{Action as A, KeyContext as C};
use super::binding::{Binding, When};
use super::keyspec::KeySpec;

fn key(s: &str) -> KeySpec {
    // The table below is written in the config's notation; a typo is caught by the tests.
    KeySpec::parse(s).unwrap_or(KeySpec::plain(K::Null))
}

/// The default bindings, layer by layer, in the order the footer and help show them.
pub(crate) fn default_bindings() -> Vec<Binding> {
    let mut out = Vec::new();
    let mut add = |contexts: &[C], action: A, keys: &[&str]| {
        for &context in contexts {
            for k in keys {
                let key = key(k);
                out.push(Binding {
                    key,
                    action,
                    context,
                    when: When::for_key(context, &key),
                });
            }
        }
    };
    let view = &[C::Tree, C::Transcript];
    add(&[C::Global], A::Quit, &["ctrl+c"]);
    add(&[C::Global], A::Help, &["f1"]);

    let p = &[C::Picker];
    add(p, A::Up, &["up"]);
    add(p, A::Down, &["down"]);
    add(p, A::PageUp, &["pgup"]);
    add(p, A::PageDown, &["pgdn"]);
    add(p, A::Home, &["home"]);
    add(p, A::End, &["end"]);
    add(p, A::Open, &["enter"]);
    add(p, A::View, &["ctrl+v"]);
    add(p, A::Resume, &["ctrl+o"]);
    add(p, A::ToggleScope, &["tab"]);
    add(p, A::CycleSort, &["ctrl+s"]);
    add(p, A::ToggleNamed, &["ctrl+n"]);
    add(p, A::TogglePath, &["ctrl+p"]);
    add(p, A::TogglePreview, &["ctrl+t"]);
    add(p, A::Rename, &["ctrl+r"]);
    add(p, A::Delete, &["ctrl+d"]);
    add(p, A::Undo, &["ctrl+z"]);
    add(p, A::Problems, &["ctrl+e"]);
    add(p, A::TrashView, &["alt+t"]);
    add(p, A::Help, &["?"]);
    add(p, A::Back, &["esc"]);
    add(p, A::Dismiss, &["ctrl+x"]);
    add(p, A::Mark, &["alt+m", "space"]);
    add(p, A::Pin, &["alt+p"]);
    add(p, A::Archive, &["alt+a"]);
    add(p, A::CycleView, &["alt+h"]);
    add(p, A::Bookmarks, &["alt+b"]);
    add(p, A::Refresh, &["f5", "ctrl+l"]);
    add(p, A::Stats, &["alt+s"]);
    add(p, A::ToggleFamily, &["alt+f"]);
    add(p, A::FoldFamily, &["alt+left"]);
    add(p, A::UnfoldFamily, &["alt+right"]);
    add(p, A::HideChildren, &["alt+c"]);
    add(p, A::Yank, &["alt+y"]);

    let pv = &[C::Preview];
    add(pv, A::Up, &["up", "k"]);
    add(pv, A::Down, &["down", "j"]);
    add(pv, A::PageUp, &["pgup"]);
    add(pv, A::PageDown, &["pgdn", "space"]);
    add(pv, A::Home, &["home", "g"]);
    add(pv, A::End, &["end", "G"]);
    add(pv, A::Resume, &["ctrl+o", "r"]);
    add(pv, A::Help, &["?"]);
    add(pv, A::Back, &["esc"]);
    add(pv, A::Leave, &["q"]);

    add(view, A::Down, &["j", "down"]);
    add(view, A::Up, &["k", "up"]);
    add(view, A::PageDown, &["pgdn", "right", "ctrl+f"]);
    add(view, A::PageUp, &["pgup", "left", "ctrl+b"]);
    add(view, A::Home, &["g", "home"]);
    add(view, A::End, &["G", "end"]);
    add(&[C::Tree], A::Fold, &["ctrl+left", "alt+left"]);
    add(&[C::Tree], A::Unfold, &["ctrl+right", "alt+right"]);
    add(view, A::FilterDefault, &["ctrl+d"]);
    add(view, A::FilterNoTools, &["ctrl+t"]);
    add(view, A::FilterUserOnly, &["ctrl+u"]);
    add(view, A::FilterLabeled, &["ctrl+l"]);
    add(view, A::FilterAll, &["ctrl+a"]);
    add(view, A::NextFilter, &["ctrl+o"]);
    add(view, A::PrevFilter, &["alt+o"]);
    add(view, A::Search, &["/"]);
    add(view, A::NextHit, &["n"]);
    add(view, A::PrevHit, &["N"]);
    add(&[C::Tree], A::SwitchPane, &["tab", "shift+tab", "enter"]);
    add(&[C::Transcript], A::SwitchPane, &["tab", "shift+tab"]);
    add(&[C::Transcript], A::Expand, &["enter", "space"]);
    add(&[C::Transcript], A::ExpandAll, &["x"]);
    add(view, A::Zoom, &["z"]);
    add(view, A::WidenTree, &[">"]);
    add(view, A::NarrowTree, &["<"]);
    add(view, A::Label, &["L"]);
    add(view, A::Checkout, &["c"]);
    add(view, A::Fork, &["f"]);
    add(view, A::Resume, &["r"]);
    add(view, A::Export, &["e"]);
    add(view, A::Refresh, &["f5", "R"]);
    add(view, A::Help, &["?"]);
    add(view, A::Back, &["esc"]);
    add(view, A::Leave, &["q"]);
    // After esc and q, so the footer keeps `esc back` where it is short of room.
    add(view, A::Yank, &["y"]);
    add(view, A::PagerEntry, &["o"]);
    add(view, A::PagerBranch, &["O"]);

    let input = &[C::Input];
    add(input, A::Confirm, &["enter"]);
    add(input, A::Cancel, &["esc"]);
    add(input, A::Up, &["up"]);
    add(input, A::Down, &["down"]);
    add(input, A::PageUp, &["pgup"]);
    add(input, A::PageDown, &["pgdn"]);

    add(&[C::Confirm], A::Yes, &["enter", "y"]);
    add(&[C::Confirm], A::No, &["esc", "n"]);
    add(&[C::Danger], A::DeleteForever, &["y"]);

    let trash = &[C::Trash];
    add(trash, A::Up, &["up", "k"]);
    add(trash, A::Down, &["down", "j"]);
    add(trash, A::PageUp, &["pgup"]);
    add(trash, A::PageDown, &["pgdn"]);
    add(trash, A::Home, &["home", "g"]);
    add(trash, A::End, &["end", "G"]);
    add(trash, A::Restore, &["enter"]);
    add(trash, A::Leave, &["esc", "q"]);

    let b = &[C::Bookmarks];
    add(b, A::Up, &["up"]);
    add(b, A::Down, &["down"]);
    add(b, A::PageUp, &["pgup"]);
    add(b, A::PageDown, &["pgdn"]);
    add(b, A::Open, &["enter"]);
    add(b, A::EditNote, &["ctrl+e"]);
    add(b, A::Back, &["esc"]);

    add(&[C::Stats], A::StatsGroup, &["tab"]);
    let popups = &[C::Help, C::Problems, C::Stats];
    add(popups, A::Down, &["down", "j"]);
    add(popups, A::Up, &["up", "k"]);
    add(popups, A::PageDown, &["pgdn", "space"]);
    add(popups, A::PageUp, &["pgup"]);
    add(popups, A::Leave, &["esc", "q"]);

    // The hand-off popup: the first letter of what is copied; o / e open in the pager /
    // editor, shifted for the whole branch.
    let h = &[C::Handoff];
    add(h, A::CopyText, &["t"]);
    add(h, A::CopyId, &["i"]);
    add(h, A::CopyPath, &["p"]);
    add(h, A::CopyResume, &["r"]);
    add(h, A::PagerEntry, &["o"]);
    add(h, A::PagerBranch, &["O"]);
    add(h, A::EditorEntry, &["e"]);
    add(h, A::EditorBranch, &["E"]);
    add(h, A::Cancel, &["esc", "q"]);

    let notice = &[C::Notice];
    add(notice, A::Dismiss, &["esc", "enter", "q"]);
    add(notice, A::Down, &["down"]);
    add(notice, A::Up, &["up"]);
    add(notice, A::PageDown, &["pgdn"]);
    add(notice, A::PageUp, &["pgup"]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_key_is_written_right_and_legacy_sendable() {
        for b in default_bindings() {
            assert_ne!(b.key.code, K::Null, "{b:?}");
            assert!(b.key.legacy_sendable(), "{} ({:?})", b.key, b.action);
        }
    }
}
