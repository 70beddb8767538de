//! Text formatting shared by the views and the layout math: ages, dates, counts, wrapping and
//! cutting to a width.

use std::borrow::Cow;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::model::entry::format_iso_ms;

use crate::text::sanitize::{sanitize_multiline, truncate_width};

/// pi's age format: `now`, `5m`, `3h`, `2d`, `1w`, `4mo`, `1y`.
pub(crate) fn format_age(now_ms: i64, then_ms: i64) -> String {
    let diff = (now_ms - then_ms).max(0);
    let mins = diff / 60_000;
    let hours = diff / 3_600_000;
    let days = diff / 86_400_000;
    if mins < 1 {
        "now".into()
    } else if mins < 60 {
        format!("{mins}m")
    } else if hours < 24 {
        format!("{hours}h")
    } else if days < 7 {
        format!("{days}d")
    } else if days < 30 {
        format!("{}w", days / 7)
    } else if days < 365 {
        format!("{}mo", days / 30)
    } else {
        format!("{}y", days / 365)
    }
}

/// `2026-11-30 12:00` (UTC).
pub(crate) fn format_date(ms: i64) -> String {
    let iso = format_iso_ms(ms);
    match iso.get(..16) {
        Some(s) => format!("{} UTC", s.replace('T', " ")),
        None => iso,
    }
}

pub use crate::text::paths::shorten_home;

/// Keeps the end of `s` within `max` columns, starting with `…` when cut (paths read best from
/// the end).
pub(crate) fn truncate_left(s: &str, max: usize) -> Cow<'_, str> {
    if s.width() <= max {
        return Cow::Borrowed(s);
    }
    if max == 0 {
        return Cow::Borrowed("");
    }
    let mut used = 1;
    let mut start = s.len();
    for (i, c) in s.char_indices().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > max {
            break;
        }
        used += w;
        start = i;
    }
    Cow::Owned(format!("…{}", &s[start..]))
}

/// `950`, `12.3k`, `4.1M`.
pub(crate) fn human_count(n: u64) -> String {
    if n < 1000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        format!("{:.1}M", n as f64 / 1_000_000.0)
    }
}

/// Sanitizes multi-line text and wraps it to `width` columns (words kept whole when they fit).
pub(crate) fn wrap_text(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let clean = sanitize_multiline(text, 4);
    let mut out = Vec::new();
    for line in clean.split('\n') {
        let line = line.trim_end();
        if line.is_empty() {
            out.push(String::new());
            continue;
        }
        let mut cur = String::new();
        let mut cur_w = 0;
        for word in line.split_inclusive(' ') {
            let w = word.width();
            if cur_w + w.saturating_sub(usize::from(word.ends_with(' '))) <= width {
                cur.push_str(word);
                cur_w += w;
                continue;
            }
            if !cur.is_empty() {
                out.push(cur.trim_end().to_owned());
                cur = String::new();
            }
            // A word longer than the line is cut hard, each piece measured once (measuring
            // the rest of a 1 MB word for every piece was quadratic).
            let mut rest = word;
            loop {
                let piece = truncate_hard(rest, width);
                if piece.len() == rest.len() {
                    break;
                }
                out.push(piece.to_owned());
                rest = &rest[piece.len()..];
            }
            cur.push_str(rest);
            cur_w = rest.width();
        }
        let last = cur.trim_end();
        if !last.is_empty() {
            out.push(last.to_owned());
        }
    }
    out
}

/// The longest prefix of `s` within `width` columns (at least one char).
fn truncate_hard(s: &str, width: usize) -> &str {
    let mut used = 0;
    let mut end = 0;
    for (i, c) in s.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > width && end > 0 {
            break;
        }
        used += w;
        end = i + c.len_utf8();
    }
    &s[..end]
}

/// One line of untrusted text, sanitized and cut to `max` columns.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    // Only what can be shown is sanitized and measured.
    let text = crate::text::clip::clip_to_cells(text.trim_start(), max.saturating_add(1));
    let clean = crate::text::sanitize::sanitize_line(text);
    truncate_width(clean.trim(), max).into_owned()
}

/// An error message with the reason first: `PATH: reason` (how storage errors read) becomes
/// `reason (file name)`, so a long path does not push the reason off the screen.
pub(crate) fn reason_first(message: &str, path: &std::path::Path) -> String {
    let prefix = format!("{}: ", path.display());
    match message.strip_prefix(&prefix) {
        Some(reason) => {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string());
            format!("{reason} ({name})")
        }
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_come_before_paths() {
        let p = std::path::Path::new("/home/al/.pi/agent/sessions/--x--/2026-01-01_abc.jsonl");
        assert_eq!(
            reason_first(&format!("{}: Permission denied", p.display()), p),
            "Permission denied (2026-01-01_abc.jsonl)"
        );
        assert_eq!(reason_first("other", p), "other");
    }

    #[test]
    fn ages_like_pi() {
        let now = 1_000_000_000_000;
        let cases = [
            (0, "now"),
            (59_999, "now"),
            (60_000, "1m"),
            (3_600_000, "1h"),
            (86_400_000 * 2, "2d"),
            (86_400_000 * 8, "1w"),
            (86_400_000 * 40, "1mo"),
            (86_400_000 * 400, "1y"),
        ];
        for (ago, want) in cases {
            assert_eq!(format_age(now, now - ago), want, "{ago}");
        }
        assert_eq!(format_age(now, now + 5000), "now");
    }

    #[test]
    fn paths_and_wrap() {
        assert_eq!(shorten_home("/home/u/x", Some("/home/u")), "~/x");
        assert_eq!(
            shorten_home("/home/user/x", Some("/home/u")),
            "/home/user/x"
        );
        assert_eq!(truncate_left("/home/demo/code/tern", 10), "…code/tern");
        assert_eq!(
            wrap_text("hello wide world\nnext", 11),
            vec!["hello wide", "world", "next"]
        );
        assert_eq!(wrap_text("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap_text("a\u{1b}[31m", 20), vec!["a^[[31m"]);
    }
}
