//! Untrusted Markdown made safe to paste into a Markdown document, kept as Markdown.
//!
//! The text is sanitized (control characters made visible), then parsed with `pulldown-cmark`
//! and rewritten where a renderer would otherwise do something the session should not get to
//! decide: raw HTML is escaped (`<` becomes `&lt;`, shown literally), links and images whose
//! URL is not `http`, `https`, `mailto` or relative, and every image (a renderer would fetch
//! it), become literal text, as do reference definitions with such URLs; top-level fenced code
//! blocks are re-fenced with a fence no content can close (an unclosed fence would swallow the
//! rest of the document); headings are moved below the export's own (`#` becomes `####`).
//! Everything else is left exactly as written.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::fence::{fence_for, inline_text};
use crate::text::sanitize::sanitize_multiline;

/// How many levels session headings move down (the export uses `#`, `##` and `###`).
const HEADING_SHIFT: u8 = 3;

/// Whether a link target is safe to keep live: web, mail, or relative (no scheme).
pub fn is_safe_url(url: &str) -> bool {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("mailto:")
    {
        return true;
    }
    // A scheme is letters, digits, `+`, `-`, `.` before a `:` that comes before any `/?#`.
    let head = url.split(['/', '?', '#']).next().unwrap_or("");
    !head.contains(':')
}

/// Sanitized, neutralised Markdown; see the module docs.
pub fn safe_markdown(source: &str) -> String {
    let clean = sanitize_multiline(source, 4);
    let clean: &str = &clean;
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let iter = Parser::new_ext(clean, options).into_offset_iter();
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut depth = 0usize;
    // While inside a replaced range, inner events are skipped.
    let mut skip_until = 0usize;
    let mut code: Option<(Range<usize>, String, String)> = None;
    let mut heading: Option<(Range<usize>, u8)> = None;
    let events: Vec<(Event<'_>, Range<usize>)> = iter.collect();
    // Reference definitions are document-wide: one with a dangerous URL is made literal.
    let refdefs = Parser::new_ext(clean, options);
    for (_, def) in refdefs.reference_definitions().iter() {
        if !is_safe_url(&def.dest) && clean.is_char_boundary(def.span.start) {
            let at = clean[def.span.clone()]
                .find('[')
                .map_or(def.span.start, |i| def.span.start + i);
            edits.push((at..at, "\\".into()));
        }
    }
    for (event, range) in events {
        // Inside a replaced range (an End event spans its whole element, so it is not).
        if range.start < skip_until && range.end <= skip_until {
            continue;
        }
        if let Some((_, _, content)) = &mut code {
            match event {
                Event::Text(t) => content.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    if let Some((r, lang, content)) = code.take() {
                        let content = content.strip_suffix('\n').unwrap_or(&content).to_owned();
                        let fence = fence_for(&content);
                        let mut block = format!("{fence}{lang}\n{content}\n{fence}");
                        if clean[r.clone()].ends_with('\n') {
                            block.push('\n');
                        }
                        edits.push((r.clone(), block));
                        skip_until = r.end;
                    }
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) if depth == 0 => {
                let lang: String = info
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '_' | '.'))
                    .collect();
                code = Some((range, lang, String::new()));
                depth += 1;
            }
            Event::Start(Tag::Link { dest_url, .. }) if !is_safe_url(&dest_url) => {
                edits.push((range.clone(), literal(&clean[range.clone()])));
                skip_until = range.end;
            }
            Event::Start(Tag::Image { .. }) => {
                edits.push((range.clone(), literal(&clean[range.clone()])));
                skip_until = range.end;
            }
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some((range, level as u8));
                depth += 1;
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((r, level)) = heading.take() {
                    demote(clean, r, level, &mut edits);
                }
                depth = depth.saturating_sub(1);
            }
            Event::Html(_) | Event::InlineHtml(_) => {
                edits.push((range.clone(), clean[range].replace('<', "&lt;")));
            }
            Event::Start(_) => depth += 1,
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    apply(clean, edits)
}

/// Session text inside a link or image, as literal text.
fn literal(source: &str) -> String {
    source
        .split('\n')
        .map(inline_text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `# x` → `#### x`; a setext heading (`x\n===`) becomes an ATX one.
fn demote(clean: &str, r: Range<usize>, level: u8, edits: &mut Vec<(Range<usize>, String)>) {
    let new_level = (level + HEADING_SHIFT).min(6) as usize;
    let text = &clean[r.clone()];
    let lead = text.len() - text.trim_start_matches(' ').len();
    let hashes = text[lead..].chars().take_while(|&c| c == '#').count();
    if hashes > 0 {
        let at = r.start + lead;
        edits.push((at..at + hashes, "#".repeat(new_level)));
    } else {
        // Setext: the underline is the range's last line.
        let body = text.trim_end_matches('\n');
        if let Some(nl) = body.rfind('\n') {
            let at = r.start + lead;
            edits.push((at..at, format!("{} ", "#".repeat(new_level))));
            edits.push((r.start + nl..r.start + body.len(), String::new()));
        }
    }
}

/// Applies non-overlapping edits (sorted by start; an edit inside an earlier one is dropped).
fn apply(clean: &str, mut edits: Vec<(Range<usize>, String)>) -> String {
    edits.sort_by_key(|(r, _)| (r.start, r.end));
    let mut out = String::with_capacity(clean.len() + 64);
    let mut pos = 0;
    for (r, replacement) in edits {
        if r.start < pos
            || r.end > clean.len()
            || !clean.is_char_boundary(r.start)
            || !clean.is_char_boundary(r.end)
        {
            continue;
        }
        out.push_str(&clean[pos..r.start]);
        out.push_str(&replacement);
        pos = r.end;
    }
    out.push_str(&clean[pos..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(md: &str) -> String {
        let mut out = String::new();
        pulldown_cmark::html::push_html(&mut out, Parser::new_ext(md, Options::ENABLE_TABLES));
        out
    }

    #[test]
    fn markdown_stays_markdown() {
        let src =
            "Some **bold**, a [link](https://x.y) and\n\n- a\n- b\n\n```rust\nfn f() {}\n```\n";
        assert_eq!(safe_markdown(src), src);
    }

    #[test]
    fn raw_html_is_shown_not_run() {
        let out = html(&safe_markdown(
            "<script>alert(1)</script>\n\nhi <img src=x onerror=alert(1)>",
        ));
        assert!(!out.contains("<script") && !out.contains("<img"), "{out}");
        assert!(
            out.contains("&lt;script&gt;") || out.contains("&lt;script>"),
            "{out}"
        );
    }

    #[test]
    fn dangerous_links_images_and_definitions_become_text() {
        let src = "[a](javascript:alert(1)) ![i](http://t.example/p.png) <javascript:x> [r][d]\n\n[d]: javascript:alert(2)\n";
        let out = html(&safe_markdown(src));
        assert!(!out.contains("href=\"javascript"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("javascript:alert(1)"), "{out}");
        // Safe links stay links.
        assert!(
            html(&safe_markdown("[a](https://ok.example)")).contains("href=\"https://ok.example\"")
        );
    }

    #[test]
    fn unclosed_fences_are_closed_and_headings_demoted() {
        let out = safe_markdown("# Top\n\nSub\n---\n\n```sh\nrm -rf /\n");
        assert!(out.starts_with("#### Top\n"), "{out}");
        assert!(out.contains("##### Sub"), "{out}");
        assert!(out.trim_end().ends_with("```"), "{out}");
        let after = format!("{out}\n\n## Next");
        assert!(html(&after).contains("<h2>Next</h2>"), "{}", html(&after));
    }

    #[test]
    fn urls() {
        assert!(is_safe_url("https://a") && is_safe_url("docs/x.md") && is_safe_url("#frag"));
        assert!(!is_safe_url("javascript:alert(1)") && !is_safe_url(" JavaScript:x"));
        assert!(!is_safe_url("data:text/html,x") && !is_safe_url("file:///etc/passwd"));
    }
}
