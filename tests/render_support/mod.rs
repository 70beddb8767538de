//! A drawn ratatui buffer as text, for the renderer tests' snapshots and messages.
#![allow(dead_code)]

use ratatui::buffer::Buffer;

/// The buffer's rows joined by newlines, every cell's symbol kept (trailing spaces too).
pub fn screen(b: &Buffer) -> String {
    rows(b, false)
}

/// [`screen`] with each row's trailing spaces cut.
pub fn screen_trimmed(b: &Buffer) -> String {
    rows(b, true)
}

fn rows(b: &Buffer, trim: bool) -> String {
    let w = usize::from(b.area.width).max(1);
    b.content
        .chunks(w)
        .map(|row| {
            let s: String = row.iter().map(|c| c.symbol()).collect();
            if trim { s.trim_end().to_owned() } else { s }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
