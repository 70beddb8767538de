//! Signals while the browser runs: SIGTERM, SIGHUP, SIGINT (sent from outside: raw mode turns
//! Ctrl+C into a key) and SIGQUIT end it cleanly; SIGTSTP suspends it, SIGCONT resumes it. They
//! arrive on the event loop's channel like everything else, so the loop restores the terminal.
//! While a launched agent runs, grove behaves as a shell does for its job: it stops with it
//! and ignores the keyboard's interrupts (the agent gets them).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP};
use signal_hook::iterator::{Handle, Signals};

use super::terminal;

/// A signal for the event loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Signal {
    /// End the browser; exit with `128 + signal number` as a shell reports it.
    Quit(i32),
    /// SIGTSTP: restore the terminal and stop.
    Suspend,
    /// SIGCONT: enter the browser's modes again and redraw.
    Continue,
}

/// How long the loop has to end after a terminating signal before the signal thread restores
/// the terminal and exits on its own (a loop stuck in a long computation still lets go).
const GRACE: Duration = Duration::from_secs(5);

/// The running signal thread; [`Listener::hand_over`] when an agent is launched.
pub(crate) struct Listener {
    handle: Handle,
    thread: Option<JoinHandle<()>>,
    child_running: Arc<AtomicBool>,
}

/// Starts listening; `send` forwards a signal to the event loop (false once the loop is gone).
pub(crate) fn listen(send: impl Fn(Signal) -> bool + Send + 'static) -> std::io::Result<Listener> {
    let mut signals = Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGCONT])?;
    let handle = signals.handle();
    let child_running = Arc::new(AtomicBool::new(false));
    let child = Arc::clone(&child_running);
    let quits = Arc::new(AtomicU32::new(0));
    let thread = std::thread::spawn(move || {
        for sig in signals.forever() {
            if child.load(Ordering::SeqCst) {
                while_child_runs(sig);
                continue;
            }
            let delivered = match sig {
                SIGTSTP => send(Signal::Suspend),
                SIGCONT => send(Signal::Continue),
                _ => {
                    let first = quits.fetch_add(1, Ordering::SeqCst) == 0;
                    if !first {
                        // A second one: the user means it.
                        exit_now(sig);
                    }
                    std::thread::spawn(move || {
                        std::thread::sleep(GRACE);
                        exit_now(sig);
                    });
                    send(Signal::Quit(sig))
                }
            };
            if !delivered {
                // The loop is gone (grove is on its way out): act as the default would.
                while_child_runs(sig);
            }
        }
    });
    Ok(Listener {
        handle,
        thread: Some(thread),
        child_running,
    })
}

/// Restores the terminal and exits with the signal's shell status.
fn exit_now(sig: i32) -> ! {
    terminal::restore();
    std::process::exit(128 + sig)
}

/// A shell's behaviour while its job runs: stop with the job, end on a hangup or a
/// termination, leave the keyboard's interrupts to the job.
fn while_child_runs(sig: i32) {
    match sig {
        SIGTSTP | SIGTERM | SIGHUP => {
            let _ = signal_hook::low_level::emulate_default_handler(sig);
        }
        _ => {}
    }
}

impl Listener {
    /// The browser is over and an agent takes the terminal: from now on signals act as they
    /// would on a shell waiting for its job.
    pub(crate) fn hand_over(&self) {
        self.child_running.store(true, Ordering::SeqCst);
    }

    /// The flag [`Listener::hand_over`] sets, to set and clear around a child that runs while
    /// the browser waits (a pager, an editor: [`super::external`]).
    pub(crate) fn child_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.child_running)
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.handle.close();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
