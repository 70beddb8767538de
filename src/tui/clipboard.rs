//! The clipboard: the system's (the `arboard` crate: X11, macOS, Windows) and, where that
//! cannot be reached or would be the wrong machine's, the terminal's by OSC 52
//! (`ESC ] 52 ; c ; BASE64 BEL`), which terminals (and tmux with `set-clipboard on`) put on
//! the clipboard of the machine the user sits at. Over SSH OSC 52 comes first: the system
//! clipboard there is the remote host's.

use std::io::Write;

use base64::Engine as _;

use crate::app::handoff::CopyRequest;
use crate::app::handoff_text::{COPY_CAP, human_size};

/// The OSC 52 sequence that puts `text` on the clipboard (`c`).
pub(crate) fn osc52(text: &str) -> String {
    format!(
        "\u{1b}]52;c;{}\u{7}",
        base64::engine::general_purpose::STANDARD.encode(text)
    )
}

/// Whether grove runs in an SSH session (`SSH_TTY` or `SSH_CONNECTION` set).
pub(crate) fn over_ssh(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    ["SSH_TTY", "SSH_CONNECTION"]
        .iter()
        .any(|k| var(k).is_some_and(|v| !v.is_empty()))
}

/// How the text went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Via {
    System,
    /// OSC 52, with why the system clipboard was not used.
    Osc52(Osc52Reason),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Osc52Reason {
    Ssh,
    /// The system clipboard failed (no display, …).
    NoSystem,
}

/// The status line after a copy: "Copied the entry text, cut to 100 KB of 2.3 MB (OSC 52)".
pub(crate) fn copied_message(req: &CopyRequest, via: &Via) -> String {
    let how = match via {
        Via::System => "system clipboard",
        Via::Osc52(Osc52Reason::Ssh) => "OSC 52, over SSH",
        Via::Osc52(Osc52Reason::NoSystem) => "OSC 52; no system clipboard",
    };
    let cut = match req.cut_from {
        Some(before) => format!(
            ", cut to {} of {}",
            human_size(COPY_CAP),
            human_size(before)
        ),
        None => String::new(),
    };
    format!("Copied {}{cut} ({how})", req.what.label())
}

/// The system clipboard, kept for the run: on X11 the copied text is served by the process
/// that owns it, so it lives as long as grove (or a clipboard manager takes it over).
#[derive(Default)]
pub(crate) struct Clipboard {
    system: Option<arboard::Clipboard>,
}

impl Clipboard {
    /// Puts `req`'s text on the clipboard, writing OSC 52 to `terminal` when the system
    /// clipboard is not used. Fails only when the terminal cannot be written either.
    pub(crate) fn copy(
        &mut self,
        req: &CopyRequest,
        ssh: bool,
        terminal: Option<&mut dyn Write>,
    ) -> Result<Via, String> {
        let reason = if ssh {
            Osc52Reason::Ssh
        } else {
            match self.system_copy(&req.text) {
                Ok(()) => return Ok(Via::System),
                Err(_) => Osc52Reason::NoSystem,
            }
        };
        let Some(w) = terminal else {
            return Err("no system clipboard and no terminal to send OSC 52 to".into());
        };
        w.write_all(osc52(&req.text).as_bytes())
            .and_then(|()| w.flush())
            .map_err(|e| format!("cannot write to the terminal: {e}"))?;
        Ok(Via::Osc52(reason))
    }

    fn system_copy(&mut self, text: &str) -> Result<(), arboard::Error> {
        if self.system.is_none() {
            self.system = Some(arboard::Clipboard::new()?);
        }
        match self.system.as_mut() {
            Some(c) => c.set_text(text),
            None => Err(arboard::Error::ClipboardNotSupported),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::handoff::CopyWhat;

    #[test]
    fn osc52_is_base64_between_the_introducer_and_bel() {
        assert_eq!(osc52("hi"), "\u{1b}]52;c;aGk=\u{7}");
        // Escapes in the text travel encoded: nothing in the sequence reaches the terminal raw.
        let seq = osc52("a\u{1b}]0;x\u{7}é");
        let body = &seq["\u{1b}]52;c;".len()..seq.len() - 1];
        assert!(
            body.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
        );
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(body)
            .unwrap();
        assert_eq!(decoded, "a\u{1b}]0;x\u{7}é".as_bytes());
    }

    #[test]
    fn ssh_is_either_variable_set_and_not_empty() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        assert!(over_ssh(env(&[("SSH_TTY", "/dev/pts/3")])));
        assert!(over_ssh(env(&[("SSH_CONNECTION", "1.2.3.4 5 6.7.8.9 22")])));
        assert!(!over_ssh(env(&[("SSH_TTY", "")])));
        assert!(!over_ssh(env(&[])));
    }

    #[test]
    fn over_ssh_the_copy_is_osc52_on_the_terminal() {
        let req = CopyRequest {
            what: CopyWhat::SessionId,
            text: "abc".into(),
            cut_from: None,
        };
        let mut out = Vec::new();
        let via = Clipboard::default()
            .copy(&req, true, Some(&mut out))
            .unwrap();
        assert_eq!(via, Via::Osc52(Osc52Reason::Ssh));
        assert_eq!(out, osc52("abc").into_bytes());
        assert_eq!(
            copied_message(&req, &via),
            "Copied the session id (OSC 52, over SSH)"
        );
        assert!(Clipboard::default().copy(&req, true, None).is_err());
    }

    #[test]
    fn a_cut_copy_says_so() {
        let req = CopyRequest {
            what: CopyWhat::EntryText,
            text: "x".repeat(COPY_CAP),
            cut_from: Some(2_345_678),
        };
        assert_eq!(
            copied_message(&req, &Via::Osc52(Osc52Reason::NoSystem)),
            "Copied the entry text, cut to 100 KB of 2.3 MB (OSC 52; no system clipboard)"
        );
        assert_eq!(
            copied_message(&req, &Via::System),
            "Copied the entry text, cut to 100 KB of 2.3 MB (system clipboard)"
        );
    }
}
