//! The terminal the browser draws on: where it is (stdout, or `/dev/tty` when stdout is a pipe
//! or a file), entering and leaving raw mode and the alternate screen, suspend and resume, and
//! the panic hook. Every escape code goes to that terminal, never to a pipe or a file.

use std::io::{self, IsTerminal, Write};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::crossterm::cursor::Show;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
    supports_keyboard_enhancement,
};

/// Where the browser draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// stdout is the terminal.
    Stdout,
    /// stdout is a pipe or a file: draw on the controlling terminal (like fzf), so stdout
    /// carries only what the browser prints on purpose (`--print`).
    Tty,
}

/// Why the browser cannot draw.
#[derive(Debug, thiserror::Error)]
#[error(
    "the browser needs a terminal: stdout is not one and /dev/tty cannot be opened ({0}); \
     use a subcommand such as `grove list` in scripts"
)]
pub struct NoTerminal(#[source] io::Error);

static TARGET: OnceLock<Target> = OnceLock::new();
/// Set while the terminal is in the browser's modes (raw, alternate screen, mouse, paste).
static ENTERED: AtomicBool = AtomicBool::new(false);
/// Keyboard enhancement was pushed and must be popped.
static ENHANCED: AtomicBool = AtomicBool::new(false);
/// Whether the terminal answered the keyboard enhancement query (asked once).
static SUPPORTS_ENHANCEMENT: OnceLock<bool> = OnceLock::new();
/// A panic happened (on any thread): the event loop stops at its next turn.
static PANICKED: AtomicBool = AtomicBool::new(false);

/// Decides where to draw (once per process): stdout when it is a terminal, else `/dev/tty`.
pub(crate) fn choose_target() -> Result<Target, NoTerminal> {
    if let Some(t) = TARGET.get() {
        return Ok(*t);
    }
    let target = if io::stdout().is_terminal() {
        Target::Stdout
    } else {
        open_tty().map_err(NoTerminal)?;
        Target::Tty
    };
    Ok(*TARGET.get_or_init(|| target))
}

fn open_tty() -> io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
}

/// A writer on the terminal the browser draws on. `None` before [`choose_target`], or when the
/// terminal went away: nothing is then written anywhere.
pub(crate) fn writer() -> Option<Box<dyn Write + Send>> {
    match TARGET.get()? {
        Target::Stdout => Some(Box::new(io::stdout())),
        Target::Tty => open_tty()
            .ok()
            .map(|f| Box::new(f) as Box<dyn Write + Send>),
    }
}

/// Whether the browser captures the mouse (`mouse = false` in the config leaves the terminal
/// its own selection).
static MOUSE: AtomicBool = AtomicBool::new(true);

/// Sets whether [`enter`] turns mouse reporting on.
pub(crate) fn set_mouse(capture: bool) {
    MOUSE.store(capture, Ordering::SeqCst);
}

/// Puts the terminal into the browser's modes: raw mode, the alternate screen, mouse
/// reporting (unless turned off), bracketed paste, and keyboard enhancement where the
/// terminal supports it.
pub(crate) fn enter() -> io::Result<()> {
    let Some(mut w) = writer() else {
        return Err(io::Error::other("no terminal to draw on"));
    };
    enable_raw_mode()?;
    ENTERED.store(true, Ordering::SeqCst);
    execute!(w, EnterAlternateScreen, EnableBracketedPaste)?;
    if MOUSE.load(Ordering::SeqCst) {
        execute!(w, EnableMouseCapture)?;
    }
    // The query writes to stdout when it cannot write to /dev/tty (crossterm opens it
    // read-only), so it is asked only when stdout is the terminal. Asked once: a terminal
    // that does not answer costs a timeout.
    let supported = *SUPPORTS_ENHANCEMENT.get_or_init(|| {
        TARGET.get() == Some(&Target::Stdout) && supports_keyboard_enhancement().unwrap_or(false)
    });
    if supported {
        execute!(
            w,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
        ENHANCED.store(true, Ordering::SeqCst);
    }
    w.flush()
}

/// Puts the terminal back as it was: keyboard enhancement popped, bracketed paste and mouse
/// reporting off, the alternate screen left, the cursor shown, raw mode off. Does nothing when
/// the browser never set it up (a browser that failed to start writes nothing); safe to call
/// more than once and from any thread (the panic hook, the signal thread).
pub fn restore() {
    if !ENTERED.swap(false, Ordering::SeqCst) {
        return;
    }
    if let Some(mut w) = writer() {
        if ENHANCED.swap(false, Ordering::SeqCst) {
            let _ = execute!(w, PopKeyboardEnhancementFlags);
        }
        let _ = execute!(
            w,
            DisableBracketedPaste,
            DisableMouseCapture,
            LeaveAlternateScreen,
            Show
        );
        let _ = w.flush();
    }
    let _ = disable_raw_mode();
}

/// SIGTSTP: restore the terminal, then stop for real (the shell takes over); returns once
/// continued, with the terminal in the browser's modes again.
pub(crate) fn suspend() -> io::Result<()> {
    restore();
    // The default action of SIGTSTP is replaced by grove's handler: stop with SIGSTOP.
    signal_hook::low_level::raise(signal_hook::consts::SIGSTOP)?;
    resume()
}

/// SIGCONT (after a stop grove did not see, e.g. SIGSTOP, the shell may have put the terminal
/// back in cooked mode): enter the browser's modes again. The caller redraws everything.
pub(crate) fn resume() -> io::Result<()> {
    if ENTERED.load(Ordering::SeqCst) {
        // Leave first so raw mode is set up from the terminal's cooked settings (crossterm
        // keeps the settings it found at the first `enable_raw_mode` to restore at the end).
        restore();
    }
    enter()
}

/// Whether a panic happened since the browser started.
pub(crate) fn panicked() -> bool {
    PANICKED.load(Ordering::SeqCst)
}

/// Restores the terminal before any panic message is printed (the message then lands on a
/// usable terminal), and tells the event loop to stop. Installed once.
pub(crate) fn install_panic_hook() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICKED.store(true, Ordering::SeqCst);
            restore();
            previous(info);
        }));
    });
}

/// Restores the terminal when dropped, whatever path leaves the browser.
pub(crate) struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}
