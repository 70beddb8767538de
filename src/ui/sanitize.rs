//! Making untrusted text safe to show or print (placeholder until the full sanitizer lands).

use std::borrow::Cow;

/// One-line display form: controls shown `cat -v` style, line breaks and tabs as spaces.
pub fn sanitize_line(s: &str) -> Cow<'_, str> {
    if s.chars().all(|c| !c.is_control() && !is_invisible(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' | '\r' | '\t' | '\u{2028}' | '\u{2029}' => out.push(' '),
            '\x7f' => out.push_str("^?"),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push((b'@' + c as u8) as char);
            }
            c if c.is_control() || is_invisible(c) => out.push_str(&format!("<U+{:04X}>", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}' | '\u{061C}')
}

/// Multi-line display form: keeps `\n`, expands tabs, shows a lone `\r` as `^M`.
pub fn sanitize_multiline(s: &str, tab_width: usize) -> Cow<'_, str> {
    let mut out = String::with_capacity(s.len());
    let mut col = 0usize;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                out.push('\n');
                col = 0;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\t' => {
                let w = tab_width.max(1);
                let n = w - col % w;
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            c => {
                let piece = sanitize_line(c.encode_utf8(&mut [0u8; 4])).into_owned();
                col += piece.chars().count();
                out.push_str(&piece);
            }
        }
    }
    Cow::Owned(out)
}
