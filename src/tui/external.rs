//! Hand-off effects ([`crate::app::handoff`]): the clipboard, and `$PAGER` / `$EDITOR` run on
//! the real terminal. Around a pager or an editor the terminal is handed over as for a
//! suspend (SIGTSTP, see [`super::terminal::suspend`]): raw mode, the alternate screen, mouse
//! and paste reporting off; the input thread parked so it reads none of the child's keys;
//! signals left to the child as a shell leaves them to its job. Then everything is set up
//! again and the screen redrawn whole. The editor gets a temporary copy of the text (read
//! only, deleted after): never the session file.

use std::fs::File;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::app::config::split_command;
use crate::app::event::{Effect, Event};
use crate::app::handoff::{OpenRequest, Program};
use crate::app::handoff_text::{OPEN_CAP, human_size};
use crate::text::sanitize::sanitize_line;

use super::clipboard::{Clipboard, copied_message, over_ssh};
use super::terminal;

/// Lets the event loop stop the input thread from reading the terminal while a child owns it.
#[derive(Default)]
pub(crate) struct InputGate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Default)]
struct GateState {
    paused: bool,
    /// The input thread is waiting in [`InputGate::wait_while_paused`].
    parked: bool,
}

impl InputGate {
    /// Called by the input thread before each read: waits while the gate is paused.
    pub(crate) fn wait_while_paused(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while s.paused {
            s.parked = true;
            self.changed.notify_all();
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.parked = false;
    }

    /// Pauses the input thread and waits (a bounded while: it polls in short steps) until it
    /// is parked. Returns whether it was.
    pub(crate) fn pause(&self) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.paused = true;
        let (s, _) = self
            .changed
            .wait_timeout_while(s, Duration::from_secs(2), |s| !s.parked)
            .unwrap_or_else(|e| e.into_inner());
        s.parked
    }

    pub(crate) fn resume(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.paused = false;
        self.changed.notify_all();
    }
}

/// The command line of a pager or an editor, from the environment: `$PAGER` (else `less`);
/// `$VISUAL`, else `$EDITOR` (else `vi`). Empty values count as unset.
pub(crate) fn command_for(program: Program, var: impl Fn(&str) -> Option<String>) -> Vec<String> {
    let (vars, default): (&[&str], &str) = match program {
        Program::Pager => (&["PAGER"], "less"),
        Program::Editor => (&["VISUAL", "EDITOR"], "vi"),
    };
    vars.iter()
        .filter_map(|v| var(v))
        .map(|c| split_command(&c))
        .find(|words| !words.is_empty())
        .unwrap_or_else(|| vec![default.to_owned()])
}

/// What the loop does after a hand-off effect.
pub(crate) struct Performed {
    /// The status to show (an [`Event::HandedOff`]).
    pub(crate) event: Event,
    /// The terminal was handed over: clear and redraw everything.
    pub(crate) redraw: bool,
}

/// The hand-off runtime: the clipboard kept for the run, the input gate, and the flag that
/// tells the signal thread a child owns the terminal.
pub(crate) struct Handoff {
    clipboard: Clipboard,
    gate: Arc<InputGate>,
    child_running: Arc<AtomicBool>,
}

impl Handoff {
    pub(crate) fn new(gate: Arc<InputGate>, child_running: Arc<AtomicBool>) -> Handoff {
        Handoff {
            clipboard: Clipboard::default(),
            gate,
            child_running,
        }
    }

    /// Performs a [`Effect::Copy`] or [`Effect::OpenExternal`]; `None` for any other effect.
    pub(crate) fn perform(&mut self, effect: Effect) -> Option<Performed> {
        let (text, is_error, redraw) = match effect {
            Effect::Copy(req) => {
                let ssh = over_ssh(|k| std::env::var_os(k));
                let mut writer = terminal::writer();
                let result =
                    self.clipboard
                        .copy(&req, ssh, writer.as_mut().map(|w| w as &mut dyn Write));
                match result {
                    Ok(via) => (copied_message(&req, &via), false, false),
                    Err(e) => (format!("Nothing copied: {e}"), true, false),
                }
            }
            Effect::OpenExternal(req) => {
                let (text, is_error) = self.open(&req);
                (text, is_error, true)
            }
            _ => return None,
        };
        Some(Performed {
            event: Event::HandedOff { text, is_error },
            redraw,
        })
    }

    /// Runs the pager or the editor on the text with the terminal handed over; the status.
    fn open(&mut self, req: &OpenRequest) -> (String, bool) {
        let argv = command_for(req.program, |v| std::env::var(v).ok());
        let name = sanitize_line(&argv[0]).into_owned();
        let kind = match req.program {
            Program::Pager => "pager",
            Program::Editor => "editor",
        };
        // The editor's copy: a fresh private file, read only, removed when this returns.
        let temp = match req.program {
            Program::Editor => match temp_copy(req) {
                Ok(t) => Some(t),
                Err(e) => return (format!("Cannot write the copy for the editor: {e}"), true),
            },
            Program::Pager => None,
        };
        // Past its bound the reader is in a poll that ends in 50 ms: go on regardless.
        let _ = self.gate.pause();
        self.child_running.store(true, Ordering::SeqCst);
        terminal::restore();
        let result = run_child(&argv, req, temp.as_ref().map(|t| t.path()));
        let entered = terminal::resume();
        self.child_running.store(false, Ordering::SeqCst);
        self.gate.resume();
        if let Err(e) = entered {
            return (format!("Cannot set up the terminal again: {e}"), true);
        }
        let cut = match req.cut_from {
            Some(before) => format!(
                " (cut to {} of {})",
                human_size(OPEN_CAP),
                human_size(before)
            ),
            None => String::new(),
        };
        let what = req.what.label();
        match result {
            Ok(status) if status.success() => {
                let text = match req.program {
                    Program::Pager => format!("Showed {what} in {name}{cut}"),
                    Program::Editor => format!(
                        "Showed a copy of {what} in {name}{cut}; the copy is deleted, the session untouched"
                    ),
                };
                (text, false)
            }
            Ok(status) => (format!("The {kind} {name} ended with {status}"), true),
            Err(e) => (
                format!(
                    "Cannot start the {kind} `{name}`: {e} (set ${})",
                    match req.program {
                        Program::Pager => "PAGER",
                        Program::Editor => "EDITOR",
                    }
                ),
                true,
            ),
        }
    }
}

/// The terminal for a child's standard streams: `/dev/tty` when grove draws there (its own
/// stdout is then a pipe for `--print`, which a pager must not write into).
fn tty_stdio() -> Option<(Stdio, Stdio)> {
    if terminal::choose_target().ok()? != terminal::Target::Tty {
        return None;
    }
    let out = File::options().write(true).open("/dev/tty").ok()?;
    let err = out.try_clone().ok()?;
    Some((Stdio::from(out), Stdio::from(err)))
}

fn run_child(
    argv: &[String],
    req: &OpenRequest,
    file: Option<&std::path::Path>,
) -> std::io::Result<std::process::ExitStatus> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| std::io::Error::other("empty command"))?;
    let mut cmd = Command::new(program);
    cmd.args(args);
    if let Some((out, err)) = tty_stdio() {
        cmd.stdout(out).stderr(err);
    }
    match file {
        Some(path) => {
            cmd.arg(path);
            if let Ok(tty) = File::options().read(true).write(true).open("/dev/tty") {
                cmd.stdin(tty);
            }
            cmd.status()
        }
        None => {
            cmd.stdin(Stdio::piped());
            let mut child = cmd.spawn()?;
            let writer = child.stdin.take().map(|mut stdin| {
                let text = req.text.clone();
                // A pager quit early closes the pipe: not an error.
                std::thread::spawn(move || {
                    let _ = stdin.write_all(text.as_bytes());
                })
            });
            let status = child.wait();
            if let Some(w) = writer {
                let _ = w.join();
            }
            status
        }
    }
}

fn temp_copy(req: &OpenRequest) -> std::io::Result<tempfile::NamedTempFile> {
    let (prefix, suffix) = match req.file_name.rsplit_once('.') {
        Some((stem, ext)) => (format!("{stem}-"), format!(".{ext}")),
        None => (format!("{}-", req.file_name), String::new()),
    };
    let mut file = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(&suffix)
        .tempfile()?;
    file.write_all(req.text.as_bytes())?;
    file.flush()?;
    let mut perms = file.as_file().metadata()?.permissions();
    perms.set_readonly(true);
    file.as_file().set_permissions(perms)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commands_come_from_the_environment_with_defaults() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert_eq!(command_for(Program::Pager, env(&[])), vec!["less"]);
        assert_eq!(
            command_for(Program::Pager, env(&[("PAGER", "less -R")])),
            vec!["less", "-R"]
        );
        assert_eq!(
            command_for(Program::Pager, env(&[("PAGER", " ")])),
            vec!["less"]
        );
        assert_eq!(command_for(Program::Editor, env(&[])), vec!["vi"]);
        assert_eq!(
            command_for(
                Program::Editor,
                env(&[("EDITOR", "nano"), ("VISUAL", "code --wait")])
            ),
            vec!["code", "--wait"]
        );
        assert_eq!(
            command_for(Program::Editor, env(&[("EDITOR", "'my editor' -x")])),
            vec!["my editor", "-x"]
        );
    }

    #[test]
    fn the_gate_parks_the_reader_until_resumed() {
        let gate = Arc::new(InputGate::default());
        let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let reader = {
            let (gate, reads, stop) = (gate.clone(), reads.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    gate.wait_while_paused();
                    reads.fetch_add(1, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        };
        assert!(gate.pause());
        let at_pause = reads.load(Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(reads.load(Ordering::SeqCst), at_pause, "read while paused");
        gate.resume();
        stop.store(true, Ordering::SeqCst);
        reader.join().unwrap();
    }

    #[test]
    fn the_editor_copy_is_read_only_and_gone_after() {
        let req = OpenRequest {
            program: Program::Editor,
            what: crate::app::handoff::OpenWhat::Entry,
            text: "hello".into(),
            cut_from: None,
            file_name: "grove-abc-entry-e1.md".into(),
        };
        let file = temp_copy(&req).unwrap();
        let path = file.path().to_path_buf();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "hello");
        assert!(std::fs::metadata(&path).unwrap().permissions().readonly());
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("grove-abc-entry-e1-") && name.ends_with(".md"),
            "{name}"
        );
        drop(file);
        assert!(!path.exists());
    }
}
