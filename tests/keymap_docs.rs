//! The README's key tables and theme table are what the key map and the palette render, and
//! every default key can be sent by a legacy terminal. `GROVE_UPDATE_README=1 cargo test
//! --test keymap_docs` rewrites the README's generated parts.

use grove::app::keymap::{Action, KeyContext, Keymap};

const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");

/// The text between `<!-- NAME:start -->` and `<!-- NAME:end -->`, and the whole README with
/// it replaced by `new`.
fn section(readme: &str, name: &str, new: &str) -> (String, String) {
    let start = format!("<!-- {name}:start -->\n");
    let end = format!("<!-- {name}:end -->");
    let a = readme.find(&start).expect("start marker") + start.len();
    let b = readme[a..].find(&end).expect("end marker") + a;
    let replaced = format!("{}{new}{}", &readme[..a], &readme[b..]);
    (readme[a..b].to_owned(), replaced)
}

fn check(name: &str, generated: &str) {
    // The two checks may rewrite the same file.
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let readme = std::fs::read_to_string(README).unwrap();
    let (current, replaced) = section(&readme, name, generated);
    if std::env::var_os("GROVE_UPDATE_README").is_some() {
        std::fs::write(README, replaced).unwrap();
        return;
    }
    assert_eq!(
        current, generated,
        "README's {name} section is stale: run GROVE_UPDATE_README=1 cargo test --test keymap_docs"
    );
}

#[test]
fn readme_key_tables_are_the_keymap() {
    check("keys", &Keymap::default().markdown());
}

#[test]
fn readme_theme_table_is_the_palette() {
    check("theme", &grove::app::theme::markdown());
}

#[test]
fn every_default_binding_is_sendable_by_a_legacy_terminal() {
    let km = Keymap::default();
    let bad: Vec<String> = km
        .bindings
        .iter()
        .filter(|b| !b.key.legacy_sendable())
        .map(|b| format!("{} ({}, {:?})", b.key, b.action.name(), b.context))
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
}

#[test]
fn every_action_has_a_default_key_and_a_name() {
    let km = Keymap::default();
    for a in Action::ALL {
        assert_eq!(Action::from_name(a.name()), Some(a));
        assert!(
            KeyContext::ALL
                .iter()
                .any(|c| !km.keys_for(*c, a).is_empty()),
            "{a:?} has no key"
        );
    }
}
