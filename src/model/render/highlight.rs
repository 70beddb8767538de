//! Syntax highlighting as token kinds, with syntect's bundled grammars (pure-Rust regexes).
//!
//! Only the grammar's scopes are used, never a colour theme: each token gets a [`TokenKind`]
//! and the views pick its colour. Highlighting is bounded: a block over [`MAX_LINES`] lines or
//! [`MAX_BYTES`] bytes, or a line the grammar fails on, stays plain from there on.

use std::cell::Cell;
use std::sync::OnceLock;

use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

pub use super::span::TokenKind;
use super::span::{Line, Span, SpanKind};

/// Beyond this many lines a code block is shown plain.
pub const MAX_LINES: usize = 2_000;
/// Beyond this many bytes a code block is shown plain.
pub const MAX_BYTES: usize = 256 * 1024;

thread_local! {
    /// Bytes this thread may still highlight, when a budget is set ([`with_budget`]).
    static BUDGET: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Runs `f` with at most `bytes` of code highlighted on this thread (the rest stays plain):
/// for exports of a whole session, whose cost must follow its size, not its amount of code.
pub fn with_budget<R>(bytes: usize, f: impl FnOnce() -> R) -> R {
    let previous = BUDGET.replace(Some(bytes));
    let out = f();
    BUDGET.set(previous);
    out
}

/// Takes `len` bytes from the budget; false when they are not there.
fn take_budget(len: usize) -> bool {
    BUDGET.with(|b| match b.get() {
        None => true,
        Some(left) if left >= len => {
            b.set(Some(left - len));
            true
        }
        Some(_) => {
            b.set(Some(0));
            false
        }
    })
}

fn syntax_set() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// Scope prefixes in priority order (the innermost scope of a token is looked up first).
fn scope_kinds() -> &'static [(Scope, TokenKind)] {
    static KINDS: OnceLock<Vec<(Scope, TokenKind)>> = OnceLock::new();
    KINDS.get_or_init(|| {
        [
            ("comment", TokenKind::Comment),
            ("string", TokenKind::String),
            ("constant.numeric", TokenKind::Number),
            ("constant.character.escape", TokenKind::String),
            ("constant", TokenKind::Constant),
            ("keyword.operator", TokenKind::Operator),
            ("keyword", TokenKind::Keyword),
            ("storage.type", TokenKind::Keyword),
            ("storage.modifier", TokenKind::Keyword),
            ("storage", TokenKind::Keyword),
            ("entity.name.function", TokenKind::Function),
            ("support.function", TokenKind::Function),
            ("variable.function", TokenKind::Function),
            ("entity.name.type", TokenKind::Type),
            ("entity.name.class", TokenKind::Type),
            ("entity.name.struct", TokenKind::Type),
            ("entity.name.enum", TokenKind::Type),
            ("support.type", TokenKind::Type),
            ("support.class", TokenKind::Type),
            ("entity.name.tag", TokenKind::Meta),
            ("entity.other.attribute-name", TokenKind::Meta),
            ("meta.annotation", TokenKind::Meta),
            ("support.macro", TokenKind::Meta),
            ("variable", TokenKind::Variable),
            ("punctuation.definition.string", TokenKind::String),
            ("punctuation.definition.comment", TokenKind::Comment),
            ("punctuation", TokenKind::Punctuation),
        ]
        .into_iter()
        .filter_map(|(s, k)| Scope::new(s).ok().map(|s| (s, k)))
        .collect()
    })
}

fn kind_of(stack: &ScopeStack) -> TokenKind {
    for scope in stack.as_slice().iter().rev() {
        for (prefix, kind) in scope_kinds() {
            if prefix.is_prefix_of(*scope) {
                return *kind;
            }
        }
    }
    TokenKind::Plain
}

/// The grammar for a fence's info string (`rust`, `py`, `sh`, …).
fn syntax_for_token(lang: &str) -> Option<&'static SyntaxReference> {
    let lang = lang.trim().split([' ', ',', '{']).next().unwrap_or("");
    if lang.is_empty() {
        return None;
    }
    let set = syntax_set();
    let alias = match lang.to_ascii_lowercase().as_str() {
        "ts" | "typescript" | "tsx" | "jsx" => "js".to_owned(),
        "shell" | "zsh" | "console" => "sh".to_owned(),
        "toml" => "ini".to_owned(),
        other => other.to_owned(),
    };
    set.find_syntax_by_token(&alias)
}

/// The grammar for a file path, by extension (or by name, e.g. `Makefile`).
pub fn lang_for_path(path: &str) -> Option<String> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let ext = match name.rsplit_once('.') {
        Some((_, ext)) if !ext.is_empty() => ext,
        _ => name,
    };
    let ext = ext.to_ascii_lowercase();
    if ext.is_empty() || !ext.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some(ext)
}

/// Highlights `code` (already sanitized, no control characters) as lines of token spans.
pub fn highlight(code: &str, lang: Option<&str>) -> Vec<Line> {
    let plain = |l: &str| Line::single(SpanKind::CodeToken(TokenKind::Plain), l);
    let syntax = lang.and_then(syntax_for_token);
    let Some(syntax) = syntax.filter(|_| code.len() <= MAX_BYTES && take_budget(code.len())) else {
        return code.split('\n').map(plain).collect();
    };
    let set = syntax_set();
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    let mut out = Vec::new();
    let mut failed = false;
    for (n, line) in code.split('\n').enumerate() {
        if failed || n >= MAX_LINES {
            out.push(plain(line));
            continue;
        }
        // The "newlines" grammars expect each line to end with its newline.
        let with_nl = format!("{line}\n");
        let Ok(ops) = state.parse_line(&with_nl, set) else {
            failed = true;
            out.push(plain(line));
            continue;
        };
        let mut spans: Vec<Span> = Vec::new();
        let mut pos = 0;
        let push = |spans: &mut Vec<Span>, text: &str, kind: TokenKind| {
            if text.is_empty() {
                return;
            }
            match spans.last_mut() {
                Some(last) if last.kind == SpanKind::CodeToken(kind) => last.text.push_str(text),
                _ => spans.push(Span::new(SpanKind::CodeToken(kind), text)),
            }
        };
        for (at, op) in ops {
            let at = at.min(line.len());
            if at > pos && line.is_char_boundary(at) && line.is_char_boundary(pos) {
                push(&mut spans, &line[pos..at], kind_of(&stack));
                pos = at;
            }
            if stack.apply(&op).is_err() {
                failed = true;
                break;
            }
        }
        if pos < line.len() {
            push(&mut spans, &line[pos..], kind_of(&stack));
        }
        if spans.is_empty() {
            spans.push(Span::new(SpanKind::CodeToken(TokenKind::Plain), ""));
        }
        out.push(Line::new(spans));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(lines: &[Line]) -> Vec<(String, TokenKind)> {
        lines
            .iter()
            .flat_map(|l| &l.spans)
            .filter_map(|s| match s.kind {
                SpanKind::CodeToken(k) => Some((s.text.trim().to_owned(), k)),
                _ => None,
            })
            .filter(|(t, _)| !t.is_empty())
            .collect()
    }

    #[test]
    fn rust_keywords_strings_and_comments_get_kinds() {
        let lines = highlight("fn main() {\n    let s = \"hi\"; // note\n}", Some("rust"));
        assert_eq!(lines.len(), 3);
        let k = kinds(&lines);
        assert!(k.contains(&("fn".into(), TokenKind::Keyword)), "{k:?}");
        assert!(
            k.iter()
                .any(|(t, kind)| t.contains("hi") && *kind == TokenKind::String)
        );
        assert!(
            k.iter()
                .any(|(t, kind)| t.contains("note") && *kind == TokenKind::Comment)
        );
        // The text is kept exactly.
        assert_eq!(lines[1].plain(), "    let s = \"hi\"; // note");
    }

    #[test]
    fn unknown_or_missing_language_stays_plain() {
        for lang in [None, Some("no-such-language"), Some("")] {
            let lines = highlight("a b\nc", lang);
            assert_eq!(lines.len(), 2);
            assert!(
                kinds(&lines).iter().all(|(_, k)| *k == TokenKind::Plain),
                "{lang:?}"
            );
        }
    }

    #[test]
    fn a_budget_bounds_how_much_is_highlighted() {
        let code = "fn a() {}";
        let highlighted = |lines: &[Line]| kinds(lines).iter().any(|(_, k)| *k != TokenKind::Plain);
        with_budget(code.len() + 3, || {
            assert!(highlighted(&highlight(code, Some("rust"))));
            assert!(!highlighted(&highlight(code, Some("rust"))));
        });
        assert!(highlighted(&highlight(code, Some("rust"))));
    }

    #[test]
    fn languages_from_paths() {
        assert_eq!(lang_for_path("src/main.rs").as_deref(), Some("rs"));
        assert_eq!(lang_for_path("/x/Makefile").as_deref(), Some("makefile"));
        assert_eq!(lang_for_path("a.<b>"), None);
        let lines = highlight("def f(): pass", lang_for_path("x.py").as_deref());
        assert!(kinds(&lines).contains(&("def".into(), TokenKind::Keyword)));
    }
}
