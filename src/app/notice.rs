//! Notices: what grove has to tell the user beyond the status of the last key (files that
//! could not be read, problems found while reading the config and the agents' settings). One
//! model for both ways they are shown: a line in the picker's status line, or a box over the
//! screen that takes the keys until dismissed. Both stay until the user dismisses them; grove
//! runs with the defaults for whatever could not be used.

/// How a notice is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoticeKind {
    /// One line in the picker's status line (the first of them, with how many more), until
    /// dismissed with the picker's `dismiss` key.
    Status,
    /// A box over the screen listing its lines; its keys (the `notice` layer) go first.
    Popup,
}

/// One notice (unsanitized: drawn through the sanitizer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub kind: NoticeKind,
    /// The status line's text, or the popup's title.
    pub title: String,
    /// A popup's items, one problem each (empty for a status notice).
    pub lines: Vec<String>,
    /// A popup's line under its items.
    pub note: Option<String>,
}

impl Notice {
    /// A notice for the status line.
    pub fn status(text: impl Into<String>) -> Notice {
        Notice {
            kind: NoticeKind::Status,
            title: text.into(),
            lines: Vec::new(),
            note: None,
        }
    }

    /// The popup for the problems found at start, if there are any.
    pub fn config_problems(problems: Vec<String>) -> Option<Notice> {
        (!problems.is_empty()).then(|| Notice {
            kind: NoticeKind::Popup,
            title: if problems.len() == 1 {
                "Config problem".to_owned()
            } else {
                format!("{} config problems", problems.len())
            },
            lines: problems,
            note: Some("grove runs with the defaults for these".to_owned()),
        })
    }
}

/// The notices not yet dismissed, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notices {
    list: Vec<Notice>,
    /// Lines the popup in front is scrolled down.
    pub scroll: u16,
}

impl Notices {
    pub fn push(&mut self, notice: Notice) {
        self.list.push(notice);
    }

    /// Adds a notice for the status line.
    pub fn push_status(&mut self, text: impl Into<String>) {
        self.push(Notice::status(text));
    }

    /// The popup in front (the oldest), if any: it takes the keys.
    pub fn popup(&self) -> Option<&Notice> {
        self.list.iter().find(|n| n.kind == NoticeKind::Popup)
    }

    /// The status notices, oldest first.
    pub fn status(&self) -> impl Iterator<Item = &Notice> {
        self.list.iter().filter(|n| n.kind == NoticeKind::Status)
    }

    /// The text of the status notice shown (the oldest).
    pub fn first_status(&self) -> Option<&str> {
        self.status().next().map(|n| n.title.as_str())
    }

    pub fn has_status(&self) -> bool {
        self.status().next().is_some()
    }

    /// Dismisses the oldest notice of `kind`; false when there is none.
    pub fn dismiss(&mut self, kind: NoticeKind) -> bool {
        let Some(i) = self.list.iter().position(|n| n.kind == kind) else {
            return false;
        };
        self.list.remove(i);
        if kind == NoticeKind::Popup {
            self.scroll = 0;
        }
        true
    }
}

impl Extend<Notice> for Notices {
    fn extend<I: IntoIterator<Item = Notice>>(&mut self, notices: I) {
        self.list.extend(notices);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn popups_and_status_notices_are_dismissed_apart_oldest_first() {
        let mut n = Notices::default();
        n.push_status("a");
        n.push(Notice::config_problems(vec!["x".into(), "y".into()]).unwrap());
        n.push_status("b");
        assert_eq!(
            n.popup().map(|p| p.title.as_str()),
            Some("2 config problems")
        );
        assert_eq!(n.first_status(), Some("a"));
        n.scroll = 3;
        assert!(n.dismiss(NoticeKind::Popup));
        assert_eq!((n.popup(), n.scroll), (None, 0));
        assert!(!n.dismiss(NoticeKind::Popup));
        assert!(n.dismiss(NoticeKind::Status));
        assert_eq!(n.first_status(), Some("b"));
        assert!(n.dismiss(NoticeKind::Status));
        assert!(!n.has_status());
        assert!(Notice::config_problems(Vec::new()).is_none());
    }
}
