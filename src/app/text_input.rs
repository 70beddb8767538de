//! A one-line text input with a cursor and readline-style editing.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The text and the cursor (a byte offset on a char boundary).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextInput {
    text: String,
    cursor: usize,
}

/// What a key did to the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// The text changed.
    Changed,
    /// Only the cursor moved.
    Moved,
    /// Not an editing key.
    Ignored,
}

impl TextInput {
    /// An input holding `text`, cursor at the end.
    pub fn with_text(text: &str) -> Self {
        TextInput {
            text: text.to_owned(),
            cursor: text.len(),
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The text before and after the cursor.
    pub(crate) fn split_at_cursor(&self) -> (&str, &str) {
        self.text
            .split_at_checked(self.cursor)
            .unwrap_or((&self.text, ""))
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
    }

    pub fn insert(&mut self, c: char) {
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    fn prev_boundary(&self) -> usize {
        self.text[..self.cursor]
            .char_indices()
            .next_back()
            .map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self) -> usize {
        self.text[self.cursor..]
            .chars()
            .next()
            .map_or(self.cursor, |c| self.cursor + c.len_utf8())
    }

    /// Applies an editing key.
    pub(crate) fn handle_key(&mut self, key: &KeyEvent) -> Edit {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Char('w') if ctrl => self.delete_word_back(),
            // What Backspace sends on many terminals (and Ctrl+Backspace on legacy ones).
            KeyCode::Char('h') if ctrl => {
                self.handle_key(&KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE))
            }
            KeyCode::Backspace if ctrl || alt => self.delete_word_back(),
            KeyCode::Char('u') if ctrl => {
                if self.cursor == 0 {
                    return Edit::Ignored;
                }
                self.text.replace_range(..self.cursor, "");
                self.cursor = 0;
                Edit::Changed
            }
            KeyCode::Char('k') if ctrl => {
                if self.cursor == self.text.len() {
                    return Edit::Ignored;
                }
                self.text.truncate(self.cursor);
                Edit::Changed
            }
            KeyCode::Char('a') if ctrl => {
                self.cursor = 0;
                Edit::Moved
            }
            KeyCode::Char('e') if ctrl => {
                self.cursor = self.text.len();
                Edit::Moved
            }
            KeyCode::Home => {
                self.cursor = 0;
                Edit::Moved
            }
            KeyCode::End => {
                self.cursor = self.text.len();
                Edit::Moved
            }
            // A control character would end up in a name or label written to the file.
            KeyCode::Char(c) if !ctrl && !alt && !c.is_control() => {
                self.insert(c);
                Edit::Changed
            }
            KeyCode::Backspace => {
                if self.cursor == 0 {
                    return Edit::Ignored;
                }
                let p = self.prev_boundary();
                self.text.replace_range(p..self.cursor, "");
                self.cursor = p;
                Edit::Changed
            }
            KeyCode::Delete => {
                if self.cursor == self.text.len() {
                    return Edit::Ignored;
                }
                let n = self.next_boundary();
                self.text.replace_range(self.cursor..n, "");
                Edit::Changed
            }
            KeyCode::Left => {
                self.cursor = self.prev_boundary();
                Edit::Moved
            }
            KeyCode::Right => {
                self.cursor = self.next_boundary();
                Edit::Moved
            }
            _ => Edit::Ignored,
        }
    }

    /// Inserts pasted text: line breaks and tabs become spaces, other control characters
    /// (escape sequences) are dropped.
    pub fn paste(&mut self, s: &str) {
        for c in s.chars() {
            match c {
                '\n' | '\r' | '\t' => self.insert(' '),
                c if c.is_control() => {}
                c => self.insert(c),
            }
        }
    }

    fn delete_word_back(&mut self) -> Edit {
        if self.cursor == 0 {
            return Edit::Ignored;
        }
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end();
        let start = trimmed
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8());
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
        Edit::Changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn editing() {
        let mut t = TextInput::with_text("héllo wörld");
        assert_eq!(t.handle_key(&key(KeyCode::Backspace)), Edit::Changed);
        assert_eq!(t.text(), "héllo wörl");
        t.handle_key(&KeyEvent::new(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!(t.text(), "héllo ");
        // Ctrl+H erases one character, as Backspace.
        t.handle_key(&KeyEvent::new(KeyCode::Char('h'), KeyModifiers::CONTROL));
        assert_eq!(t.text(), "héllo");
        t.handle_key(&key(KeyCode::Char(' ')));
        t.handle_key(&key(KeyCode::Left));
        t.handle_key(&key(KeyCode::Left));
        t.handle_key(&key(KeyCode::Left));
        t.handle_key(&key(KeyCode::Delete));
        assert_eq!(t.text(), "hélo ");
        t.handle_key(&key(KeyCode::Char('l')));
        assert_eq!(t.text(), "héllo ");
        assert_eq!(t.handle_key(&key(KeyCode::F(2))), Edit::Ignored);
        assert_eq!(t.handle_key(&key(KeyCode::Home)), Edit::Moved);
        assert_eq!(t.split_at_cursor(), ("", "héllo "));
        assert_eq!(t.handle_key(&key(KeyCode::Char('\u{1b}'))), Edit::Ignored);
        t.handle_key(&key(KeyCode::End));
        t.paste("a\tb\u{1b}[31m\nc");
        assert_eq!(t.text(), "héllo a b[31m c");
    }
}
