//! The event loop: one channel for input, background results and ticks; drain, update, redraw
//! (throttled, only when something changed); effects executed here, slow ones on threads.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use color_eyre::eyre::{Result, WrapErr, eyre};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    self as ct, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste,
    EnableMouseCapture,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

use crate::cli::{GlobalArgs, resolve_roots};
use crate::model::context::Dialect;
use crate::storage::append::{NewEntry, append_entry, now_ms};
use crate::storage::read::scan_info;
use crate::storage::roots::SessionRoot;
use crate::storage::safe_fs::Pin;
use crate::storage::trash::{
    check_in_roots, delete_permanently_pinned, restore, trash_session_pinned,
};
use crate::text::sanitize::{is_clean, sanitize_line};
use crate::ui::theme::{Theme, no_color_env};

use crate::app::config::Config;
use crate::app::event::{Effect, Event, SearchRequest};
use crate::app::keymap::Keymap;
use crate::app::live::check_liveness;
use crate::app::matcher::execute_search;
use crate::app::preview::load_preview;
use crate::app::session_view;
use crate::app::source::{IndexSource, SessionSource};
use crate::app::state::{AppState, Options, Scope, SessionRecord};
use crate::app::update::{TICK_MS, apply, settle, start, update};
use crate::storage::index::Index;

/// At most one frame per this long.
const FRAME: Duration = Duration::from_millis(16);

/// How the browser ended.
enum Exit {
    Code(u8),
    Print(PathBuf),
    PrintLine(String),
    Launch {
        path: PathBuf,
        agent: Dialect,
        cwd: PathBuf,
    },
}

/// Where the UI is drawn: stdout, or the controlling terminal in `--print` mode so stdout
/// stays free for the chosen path (like fzf).
static DRAW_ON_TTY: OnceLock<bool> = OnceLock::new();

fn ui_writer() -> Box<dyn Write + Send> {
    if *DRAW_ON_TTY.get().unwrap_or(&false)
        && let Ok(tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty")
    {
        return Box::new(tty);
    }
    if *DRAW_ON_TTY.get().unwrap_or(&false) {
        return Box::new(io::stderr());
    }
    Box::new(io::stdout())
}

/// Puts the terminal back: safe to call more than once, from the panic hook too.
pub fn restore_terminal() {
    let _ = disable_raw_mode();
    let mut w = ui_writer();
    let _ = execute!(
        w,
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
    let _ = w.flush();
}

/// Restores the terminal when dropped, whatever path leaves the loop.
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

type Term = Terminal<CrosstermBackend<Box<dyn Write + Send>>>;

fn setup_terminal() -> Result<(Term, TerminalGuard)> {
    // Restore before the panic message is printed (color-eyre's hook runs after ours).
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal();
        previous(info);
    }));
    enable_raw_mode().wrap_err("cannot switch the terminal to raw mode")?;
    let guard = TerminalGuard;
    let mut w = ui_writer();
    execute!(
        w,
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    )
    .wrap_err("cannot set up the terminal")?;
    let terminal = Terminal::new(CrosstermBackend::new(ui_writer()))?;
    Ok((terminal, guard))
}

/// Reads terminal input on its own thread until told to stop (so a launched agent gets stdin).
fn spawn_input(tx: Sender<Event>, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            match ct::poll(Duration::from_millis(50)) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) => break,
            }
            let ev = match ct::read() {
                Ok(ct::Event::Key(k)) => Event::Key(k),
                Ok(ct::Event::Mouse(m)) => Event::Mouse(m),
                Ok(ct::Event::Resize(w, h)) => Event::Resize(w, h),
                Ok(ct::Event::Paste(s)) => Event::Paste(s),
                Ok(_) => continue,
                Err(_) => break,
            };
            if tx.send(ev).is_err() {
                break;
            }
        }
    })
}

/// One search at a time, always the newest; a running search stops when a newer one arrives.
fn spawn_search_worker(events: Sender<Event>, latest: Arc<AtomicU64>) -> Sender<SearchRequest> {
    let (tx, rx) = mpsc::channel::<SearchRequest>();
    std::thread::spawn(move || {
        while let Ok(mut req) = rx.recv() {
            while let Ok(newer) = rx.try_recv() {
                req = newer;
            }
            let generation = req.generation;
            if latest.load(Ordering::Relaxed) != generation {
                continue;
            }
            let cancelled = || latest.load(Ordering::Relaxed) != generation;
            if let Some(matches) = execute_search(&req, &cancelled)
                && events
                    .send(Event::SearchResult {
                        generation,
                        matches,
                    })
                    .is_err()
            {
                break;
            }
        }
    });
    tx
}

/// Loads previews, newest request first; skipped ones are reported so they can be re-asked.
fn spawn_preview_worker(events: Sender<Event>) -> Sender<(PathBuf, Dialect)> {
    let (tx, rx) = mpsc::channel::<(PathBuf, Dialect)>();
    std::thread::spawn(move || {
        while let Ok(mut req) = rx.recv() {
            while let Ok(newer) = rx.try_recv() {
                let _ = events.send(Event::PreviewCancelled { path: req.0 });
                req = newer;
            }
            let (path, agent) = req;
            let result = load_preview(&path, agent).map(Arc::new);
            if events.send(Event::PreviewLoaded { path, result }).is_err() {
                break;
            }
        }
    });
    tx
}

/// A file write for the write worker; its event (if any) goes back to the loop.
type WriteJob = Box<dyn FnOnce() -> Option<Event> + Send>;

/// Runs the writes (appends, forks, exports, trash moves) one at a time, in the order asked:
/// an append chains to the file's last entry, so two appends running at once could both
/// take the same parent.
fn spawn_write_worker(events: Sender<Event>) -> Sender<WriteJob> {
    let (tx, rx) = mpsc::channel::<WriteJob>();
    std::thread::spawn(move || {
        while let Ok(job) = rx.recv() {
            if let Some(event) = job()
                && events.send(event).is_err()
            {
                break;
            }
        }
    });
    tx
}

fn background(tx: &Sender<Event>, job: impl FnOnce() -> Event + Send + 'static) {
    let tx = tx.clone();
    std::thread::spawn(move || {
        let _ = tx.send(job());
    });
}

struct Runner {
    tx: Sender<Event>,
    source: Arc<dyn SessionSource>,
    search_tx: Sender<SearchRequest>,
    search_latest: Arc<AtomicU64>,
    preview_tx: Sender<(PathBuf, Dialect)>,
    write_tx: Sender<WriteJob>,
    current_dir: Option<PathBuf>,
    /// What each session was (folder and file identity) when it was chosen for deletion
    /// (Ctrl+D) or opened in the view: the delete, label or check-out refuses if that changed.
    pins: Arc<std::sync::Mutex<std::collections::HashMap<PathBuf, Pin>>>,
    /// What deletes are checked against.
    roots: Arc<[SessionRoot]>,
}

impl Runner {
    fn write(&self, job: impl FnOnce() -> Option<Event> + Send + 'static) {
        let _ = self.write_tx.send(Box::new(job));
    }

    /// Executes one effect; `Some` ends the loop.
    fn execute(&self, effect: Effect) -> Option<Exit> {
        match effect {
            Effect::StartScan { generation } => {
                let source = Arc::clone(&self.source);
                let tx = self.tx.clone();
                std::thread::spawn(move || {
                    source.scan(&mut |update| {
                        tx.send(Event::ScanResult { generation, update }).is_ok()
                    });
                });
            }
            Effect::RunSearch(req) => {
                self.search_latest.store(req.generation, Ordering::Relaxed);
                let _ = self.search_tx.send(req);
            }
            Effect::LoadPreview { path, agent } => {
                let _ = self.preview_tx.send((path, agent));
            }
            Effect::OpenSession {
                record,
                path,
                agent,
                viewport,
                home,
            } => {
                let _ = self.preview_tx.send((path.clone(), agent));
                let pins = Arc::clone(&self.pins);
                background(&self.tx, move || {
                    // What the view shows is what its labels and check-outs may write to.
                    if let (Ok(pin), Ok(mut pins)) = (Pin::of(&path), pins.lock()) {
                        pins.insert(path.clone(), pin);
                    }
                    Event::SessionOpened {
                        record,
                        result: session_view::SessionViewState::open(&path, agent, viewport, home),
                        path,
                    }
                });
            }
            Effect::View { session, effect } => {
                let pin = self.pins.lock().ok().and_then(|p| p.get(&session).copied());
                self.write(move || {
                    session_view::execute_pinned(&effect, pin.as_ref()).map(|outcome| {
                        Event::ViewDone {
                            path: session,
                            outcome: Box::new(outcome),
                        }
                    })
                })
            }
            Effect::RefreshRecord { path, agent } => {
                let current_dir = self.current_dir.clone();
                background(&self.tx, move || Event::RecordRefreshed {
                    result: scan_info(&path, agent)
                        .map(|info| Arc::new(SessionRecord::new(info, current_dir.as_deref())))
                        .map_err(|e| e.to_string()),
                    path,
                });
            }
            Effect::PrintLine(line) => return Some(Exit::PrintLine(line)),
            Effect::Discard(view) => {
                std::thread::spawn(move || drop(view));
            }
            Effect::CheckLive { record, path } => {
                let pins = Arc::clone(&self.pins);
                background(&self.tx, move || {
                    // Ctrl+D: pin what the user is about to confirm.
                    if let (Ok(pin), Ok(mut pins)) = (Pin::of(&path), pins.lock()) {
                        pins.insert(path.clone(), pin);
                    }
                    Event::LiveChecked {
                        record,
                        liveness: check_liveness(&path, SystemTime::now()),
                    }
                })
            }
            Effect::AppendRename { record, path, name } => {
                let current_dir = self.current_dir.clone();
                self.write(move || {
                    Some(Event::Renamed {
                        record,
                        result: rename(&path, name, current_dir.as_deref()),
                    })
                });
            }
            effect @ (Effect::TrashSession { .. } | Effect::DeletePermanently { .. }) => {
                let roots = Arc::clone(&self.roots);
                let pins = Arc::clone(&self.pins);
                self.write(move || {
                    let path = match &effect {
                        Effect::TrashSession { path, .. }
                        | Effect::DeletePermanently { path, .. } => Some(path),
                        _ => None,
                    };
                    let pin = path.and_then(|p| pins.lock().ok()?.get(p).copied());
                    delete_session_pinned(&effect, &roots, pin.as_ref())
                });
            }
            Effect::RestoreTrash(item) => self.write(move || {
                let result = restore(&item.trashed).map_err(|e| e.to_string());
                Some(Event::Restored { item, result })
            }),
            Effect::Print(path) => return Some(Exit::Print(path)),
            Effect::LaunchAgent { path, agent, cwd } => {
                return Some(Exit::Launch { path, agent, cwd });
            }
            Effect::Quit { code } => return Some(Exit::Code(code)),
        }
        None
    }
}

/// Runs a delete effect (to the trash, or permanently after the second confirmation) with the
/// guard `grove rm` uses: only a file grove lists under `roots` is deleted, so a path that left
/// the roots since the scan (a folder swapped for a link, a record from elsewhere) is refused.
/// A refusal ends the delete with an error rather than offering permanent deletion. `None` for
/// any other effect.
pub fn delete_session(effect: &Effect, roots: &[SessionRoot]) -> Option<Event> {
    delete_session_pinned(effect, roots, None)
}

/// [`delete_session`] refusing unless the session's folder and file are still those pinned
/// when Ctrl+D was pressed (checked through an open folder handle at the moment of the
/// delete): a folder swapped for a link in between is never followed.
pub fn delete_session_pinned(
    effect: &Effect,
    roots: &[SessionRoot],
    pin: Option<&Pin>,
) -> Option<Event> {
    let (record, path, permanent) = match effect {
        Effect::TrashSession { record, path } => (*record, path, false),
        Effect::DeletePermanently { record, path } => (*record, path, true),
        _ => return None,
    };
    if let Err(e) = check_in_roots(path, roots) {
        return Some(Event::DeletedPermanently {
            record,
            result: Err(e.to_string()),
        });
    }
    // A session that changed under the dialog is refused too, not offered for deletion for good.
    if let Some(pin) = pin
        && let Err(e) = crate::storage::safe_fs::PinnedDir::open(path, Some(pin))
    {
        return Some(Event::DeletedPermanently {
            record,
            result: Err(e.to_string()),
        });
    }
    Some(if permanent {
        Event::DeletedPermanently {
            record,
            result: delete_permanently_pinned(path, pin)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        }
    } else {
        Event::Trashed {
            record,
            result: trash_session_pinned(path, pin).map_err(|e| e.to_string()),
        }
    })
}

fn rename(
    path: &Path,
    name: String,
    current_dir: Option<&Path>,
) -> Result<Arc<SessionRecord>, String> {
    let before = scan_info(path, None).map_err(|e| e.to_string())?;
    append_entry(path, NewEntry::Rename { name }).map_err(|e| e.to_string())?;
    let info = scan_info(path, Some(before.agent)).map_err(|e| e.to_string())?;
    Ok(Arc::new(SessionRecord::new(info, current_dir)))
}

/// Runs the browser for the command-line options; returns the process exit code.
pub fn run_browser(global: &GlobalArgs) -> Result<ExitCode> {
    let config = Config::load().wrap_err("cannot read the config file")?;
    let mut keymap = Keymap::default();
    let mut problems = keymap.apply_overrides(&config.keys);
    let (theme, theme_problems) = Theme::resolve(no_color_env(), &config.theme);
    problems.extend(theme_problems);
    for p in &problems {
        eprintln!("grove: config: {}", sanitize_line(p));
    }
    let roots = resolve_roots(global).wrap_err("cannot find the session folders")?;
    let current_dir = std::env::current_dir().ok();
    if global.print && !io::stdin().is_terminal() && std::fs::File::open("/dev/tty").is_err() {
        return Err(eyre!("--print needs a terminal to draw on"));
    }
    let _ = DRAW_ON_TTY.set(global.print && !io::stdout().is_terminal());

    let options = Options {
        print_mode: global.print,
        home: directories::BaseDirs::new().map(|d| d.home_dir().to_string_lossy().into_owned()),
        ..Options::default()
    };
    let mut state = AppState::new(options, keymap, theme);
    // The demo's sessions live in made-up folders: show them all.
    if global.all || global.demo {
        state.picker.scope = Scope::All;
    }
    let delete_roots: Arc<[SessionRoot]> = roots.clone().into();
    // The demo is a fresh temporary copy each run: caching it would only litter the cache.
    let source: Arc<dyn SessionSource> = Arc::new(IndexSource {
        roots,
        current_dir: current_dir.clone(),
        index: std::sync::Mutex::new(Index::open(global.no_cache || global.demo)),
    });

    let (mut terminal, guard) = setup_terminal()?;
    let (tx, rx) = mpsc::channel::<Event>();
    let stop = Arc::new(AtomicBool::new(false));
    let input = spawn_input(tx.clone(), Arc::clone(&stop));
    let search_latest = Arc::new(AtomicU64::new(0));
    let runner = Runner {
        search_tx: spawn_search_worker(tx.clone(), Arc::clone(&search_latest)),
        preview_tx: spawn_preview_worker(tx.clone()),
        write_tx: spawn_write_worker(tx.clone()),
        tx,
        source,
        search_latest,
        current_dir,
        roots: delete_roots,
        pins: Arc::default(),
    };
    let size = terminal.size()?;
    state.viewport = (size.width, size.height);
    let result = event_loop(&mut terminal, &mut state, &runner, &rx);
    stop.store(true, Ordering::Relaxed);
    let _ = input.join();
    drop(terminal);
    drop(guard);
    match result? {
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
            writeln!(out, "{line}")?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
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
    runner: &Runner,
    rx: &Receiver<Event>,
) -> Result<Exit> {
    let tick = Duration::from_millis(TICK_MS);
    let mut effects = start(state);
    let mut last_draw: Option<Instant> = None;
    let mut last_tick = Instant::now();
    loop {
        for effect in effects.drain(..) {
            if let Some(exit) = runner.execute(effect) {
                return Ok(exit);
            }
        }
        let since_draw = last_draw.map_or(FRAME, |t| t.elapsed());
        if state.dirty && since_draw >= FRAME {
            terminal.draw(|f| crate::ui::draw(f, state, now_ms()))?;
            state.dirty = false;
            last_draw = Some(Instant::now());
        }
        let until_tick = tick.saturating_sub(last_tick.elapsed());
        let wait = if state.dirty {
            FRAME.saturating_sub(since_draw).min(until_tick)
        } else {
            until_tick
        };
        match rx.recv_timeout(wait) {
            Ok(ev) => {
                effects.extend(apply(state, ev));
                // Drain what is already queued, but keep drawing under a flood; the search,
                // preview and transcript are asked for once, for where the burst ended.
                let deadline = Instant::now() + FRAME;
                while Instant::now() < deadline {
                    match rx.try_recv() {
                        Ok(ev) => effects.extend(apply(state, ev)),
                        Err(_) => break,
                    }
                }
                settle(state, &mut effects);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Ok(Exit::Code(0)),
        }
        if last_tick.elapsed() >= tick {
            last_tick = Instant::now();
            effects.extend(update(state, Event::Tick));
        }
    }
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
