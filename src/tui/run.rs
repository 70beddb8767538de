//! The browser's runtime: set up the terminal, listen for signals, run the event loop (one
//! channel for input, background results, signals and ticks; drain, update, redraw throttled
//! and only when something changed), then restore the terminal and act on how it ended.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use color_eyre::eyre::{Result, WrapErr, eyre};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event as ct;

use crate::app::theme::no_color_env;
use crate::model::context::Dialect;
use crate::storage::append::now_ms;
use crate::storage::roots::SessionRoot;
use crate::text::sanitize::{is_clean, sanitize_line};

use crate::app::config::Config;
use crate::app::event::Event;
use crate::app::launch::{BrowserArgs, Setup};
use crate::app::notice::Notice;
use crate::app::source::{IndexSource, SessionSource};
use crate::app::state::{AppState, Options, Scope};
use crate::app::update::{TICK_MS, apply, settle, start, update};
use crate::storage::index::Index;

pub use super::delete::{delete_session, delete_session_pinned};
use super::effects::{Exit, Msg, Runner};
use super::external::{Handoff, InputGate};
use super::signals::{self, Signal};
use super::terminal;
use crate::app::event::Effect;

/// At most one frame per this long.
const FRAME: Duration = Duration::from_millis(16);

/// Puts the terminal back if the browser set it up (and only then: a browser that failed to
/// start writes nothing). Safe to call more than once.
pub fn restore_terminal() {
    terminal::restore();
}

type Term = Terminal<CrosstermBackend<Box<dyn Write + Send>>>;

fn setup_terminal() -> Result<(Term, terminal::Guard)> {
    terminal::install_panic_hook();
    let writer = terminal::writer().ok_or_else(|| eyre!("cannot open the terminal"))?;
    terminal::enter().wrap_err("cannot set up the terminal")?;
    let guard = terminal::Guard;
    let terminal = Terminal::new(CrosstermBackend::new(writer))?;
    Ok((terminal, guard))
}

/// Reads terminal input on its own thread until told to stop (so a launched agent gets stdin).
fn spawn_input(tx: Sender<Msg>, stop: Arc<AtomicBool>, gate: Arc<InputGate>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            // A pager or an editor owns the terminal: read nothing of its input.
            gate.wait_while_paused();
            match ct::poll(Duration::from_millis(50)) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) => {
                    let _ = tx.send(Msg::InputClosed);
                    break;
                }
            }
            let ev = match ct::read() {
                Ok(ct::Event::Key(k)) => Event::Key(k),
                Ok(ct::Event::Mouse(m)) => Event::Mouse(m),
                Ok(ct::Event::Resize(w, h)) => Event::Resize(w, h),
                Ok(ct::Event::Paste(s)) => Event::Paste(s),
                Ok(_) => continue,
                Err(_) => {
                    let _ = tx.send(Msg::InputClosed);
                    break;
                }
            };
            if tx.send(Msg::App(ev)).is_err() {
                break;
            }
        }
    })
}

/// Runs the browser for the command-line options; returns the process exit code.
pub fn run_browser(global: &BrowserArgs) -> Result<ExitCode> {
    // A config that cannot be used is reported in the browser, which starts with the defaults.
    let (config, mut problems) = Config::load_reporting();
    terminal::set_mouse(config.mouse);
    let Setup {
        keymap,
        palette,
        problems: setup_problems,
        columns,
        families_folded,
    } = Setup::from_config(&config, no_color_env());
    problems.extend(setup_problems);
    let roots = global.roots().wrap_err("cannot find the session folders")?;
    // Problems met while finding the roots (an agent's settings.json that is a FIFO, …).
    problems.extend(crate::storage::fsutil::take_problems());
    let current_dir = std::env::current_dir().ok();
    // Before anything is drawn: stdout when it is a terminal, else /dev/tty, else refuse.
    terminal::choose_target()?;

    let home = directories::BaseDirs::new().map(|d| d.home_dir().to_string_lossy().into_owned());
    let options = Options {
        print_mode: global.print,
        searched: crate::app::first_run::searched_summary(&roots, home.as_deref()),
        home,
        enter: config.enter,
        columns,
        agents: crate::app::handoff::AgentCommands {
            pi: config.pi_command.clone(),
            atomic: config.atomic_command.clone(),
        },
        ..Options::default()
    };
    let mut state = AppState::new(options, keymap, palette);
    state.notices.extend(Notice::config_problems(problems));
    state.picker.families.folded_by_default = families_folded;
    state.picker.current_repo = current_dir
        .as_deref()
        .and_then(|d| crate::storage::repo::repo_of(&d.to_string_lossy()));
    // The demo's sessions live in made-up folders: show them all.
    if global.all || global.demo {
        state.picker.scope = Scope::All;
    }
    let delete_roots: Arc<[SessionRoot]> = roots.clone().into();
    // The demo is a fresh temporary copy each run: caching it would only litter the cache.
    let source: Arc<dyn SessionSource> = Arc::new(IndexSource {
        roots,
        current_dir: current_dir.clone(),
        index: std::sync::Mutex::new(Index::open_in_place(global.no_cache || global.demo)),
    });

    let (tx, rx) = mpsc::channel::<Msg>();
    let signal_tx = tx.clone();
    let listener = signals::listen(move |s| signal_tx.send(Msg::Signal(s)).is_ok())
        .wrap_err("cannot listen for signals")?;
    let (mut terminal, guard) = setup_terminal()?;
    let stop = Arc::new(AtomicBool::new(false));
    let gate = Arc::new(InputGate::default());
    let input = spawn_input(tx.clone(), Arc::clone(&stop), Arc::clone(&gate));
    let mut handoff = Handoff::new(gate, listener.child_flag());
    // The lists follow the files: changed paths arrive on the loop's channel.
    let (watch_go, go) = mpsc::channel();
    let watch = super::watch::spawn(source.roots(), tx.clone(), go);
    let mut runner = Runner::new(tx, source, current_dir, delete_roots);
    runner.load_state();
    let size = terminal.size()?;
    state.viewport = (size.width, size.height);
    let mut watch_go = Some(watch_go);
    let result = event_loop(
        &mut terminal,
        &mut state,
        &mut runner,
        &mut handoff,
        &rx,
        &mut watch_go,
    );
    stop.store(true, Ordering::Relaxed);
    watch.stop();
    runner.shut_down();
    let _ = input.join();
    drop(terminal);
    drop(guard);
    let exit = result?;
    // Signals now act as on a shell waiting for its job (the agent, if one is launched).
    listener.hand_over();
    match exit {
        Exit::Code(c) => Ok(ExitCode::from(c)),
        Exit::Print(path) => print_for_scripts(path.to_str()),
        Exit::PrintLine(line) => {
            // The line was made with `Path::display`: U+FFFD marks a path that was not UTF-8.
            print_for_scripts((!line.contains('\u{FFFD}')).then_some(line.as_str()))
        }
        Exit::Launch { path, agent, cwd } => launch(&config, &path, agent, &cwd),
    }
}

/// `--print` output is for scripts (`cd "$(dirname "$(grove --print)")"`), so the path is printed
/// as it is, never escaped: an escaped path would name another file. A path that cannot be printed
/// faithfully and safely (control, bidi or invisible characters, a newline, not UTF-8) is refused
/// with a message on stderr and exit status 2, instead of reaching the terminal raw.
fn print_for_scripts(line: Option<&str>) -> Result<ExitCode> {
    match line {
        Some(line) if is_clean(line) => {
            let mut out = io::stdout().lock();
            match writeln!(out, "{line}").and_then(|()| out.flush()) {
                // The reader went away (`grove --print | head -c 5`): not grove's error.
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
                _ => Ok(ExitCode::SUCCESS),
            }
        }
        Some(line) => {
            eprintln!(
                "grove: not printing the session's path: it contains control or invisible characters: {}",
                sanitize_line(line)
            );
            Ok(ExitCode::from(2))
        }
        None => {
            eprintln!("grove: not printing the session's path: it is not valid UTF-8");
            Ok(ExitCode::from(2))
        }
    }
}

fn event_loop(
    terminal: &mut Term,
    state: &mut AppState,
    runner: &mut Runner,
    handoff: &mut Handoff,
    rx: &Receiver<Msg>,
    watch_go: &mut Option<Sender<()>>,
) -> Result<Exit> {
    let tick = Duration::from_millis(TICK_MS);
    let mut effects = start(state);
    let mut last_draw: Option<Instant> = None;
    let mut last_tick = Instant::now();
    // SIGCONT follows grove's own stop: the terminal is already set up again.
    let mut resumed = false;
    loop {
        let mut handed_off = Vec::new();
        for effect in effects.drain(..) {
            if matches!(effect, Effect::Copy(_) | Effect::OpenExternal(_)) {
                handed_off.push(effect);
            } else if let Some(exit) = runner.execute(effect) {
                return Ok(exit);
            }
        }
        for effect in handed_off {
            if let Some(done) = handoff.perform(effect) {
                if done.redraw {
                    redraw_all(terminal, state, &mut effects)?;
                }
                effects.extend(apply(state, done.event));
            }
        }
        runner.reconcile(state);
        if terminal::panicked() {
            return Err(eyre!("a background task failed (see the message above)"));
        }
        let since_draw = last_draw.map_or(FRAME, |t| t.elapsed());
        if state.dirty && since_draw >= FRAME {
            terminal.draw(|f| crate::ui::draw(f, state, now_ms()))?;
            state.drawn();
            last_draw = Some(Instant::now());
            // Everything is listed: the watchers may walk the folders now.
            if state.picker.loading.done
                && let Some(go) = watch_go.take()
            {
                let _ = go.send(());
            }
        }
        let until_tick = tick.saturating_sub(last_tick.elapsed());
        let wait = if state.dirty {
            FRAME.saturating_sub(since_draw).min(until_tick)
        } else {
            until_tick
        };
        let first = match rx.recv_timeout(wait) {
            Ok(msg) => Some(msg),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => return Ok(Exit::Code(0)),
        };
        if let Some(msg) = first {
            // Drain what is already queued, but keep drawing under a flood; the search,
            // preview and transcript are asked for once, for where the burst ended.
            let deadline = Instant::now() + FRAME;
            let mut next = Some(msg);
            while let Some(msg) = next.take() {
                match msg {
                    Msg::App(ev) => effects.extend(apply(state, ev)),
                    Msg::Done {
                        job,
                        generation,
                        event,
                    } => {
                        if runner.accept(job, generation) {
                            effects.extend(apply(state, event));
                        }
                    }
                    Msg::Signal(Signal::Quit(sig)) => {
                        return Ok(Exit::Code((128 + sig).clamp(0, 255) as u8));
                    }
                    Msg::InputClosed => return Ok(Exit::Code(1)),
                    Msg::Signal(Signal::Suspend) => {
                        terminal::suspend().wrap_err("cannot set up the terminal again")?;
                        resumed = true;
                        redraw_all(terminal, state, &mut effects)?;
                    }
                    Msg::Signal(Signal::Continue) => {
                        if !std::mem::take(&mut resumed) {
                            terminal::resume().wrap_err("cannot set up the terminal again")?;
                            redraw_all(terminal, state, &mut effects)?;
                        }
                    }
                }
                if Instant::now() < deadline {
                    next = rx.try_recv().ok();
                }
            }
            settle(state, &mut effects);
        }
        if last_tick.elapsed() >= tick {
            last_tick = Instant::now();
            effects.extend(update(state, Event::Tick));
        }
    }
}

/// After a stop: the screen may hold anything and the size may have changed.
fn redraw_all(
    terminal: &mut Term,
    state: &mut AppState,
    effects: &mut Vec<crate::app::event::Effect>,
) -> Result<()> {
    terminal.clear()?;
    let size = terminal.size()?;
    effects.extend(apply(state, Event::Resize(size.width, size.height)));
    state.dirty = true;
    Ok(())
}

/// Runs the session's agent in the session's folder (the terminal is already restored).
fn launch(config: &Config, path: &Path, agent: Dialect, cwd: &Path) -> Result<ExitCode> {
    let argv = config.agent_command(agent, path);
    let Some((program, args)) = argv.split_first() else {
        return Err(eyre!("the {agent} command in the config is empty"));
    };
    let mut cmd = std::process::Command::new(program);
    cmd.args(args);
    if cwd.is_dir() {
        cmd.current_dir(cwd);
    } else {
        eprintln!(
            "grove: the session's folder {} does not exist; starting in the current folder",
            sanitize_line(&cwd.to_string_lossy())
        );
    }
    let status = cmd.status().wrap_err_with(|| {
        format!(
            "cannot start `{}` (set the command under [agents] in the config); the session is {}",
            sanitize_line(program),
            sanitize_line(&path.to_string_lossy())
        )
    })?;
    Ok(ExitCode::from(
        status.code().unwrap_or(1).clamp(0, 255) as u8
    ))
}
