//! Renders the real UI on ratatui's TestBackend from the demo sessions and writes each screen
//! as an SVG (colours included) to `screenshots/`:
//!
//! ```sh
//! cargo run --example screenshots
//! ```
//!
//! "Now" is fixed at 2026-11-30T12:00:00Z so the ages match the demo's story.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use grove::app::bookmark_screen::Loaded;
use grove::app::bookmarks::collect_bookmarks;
use grove::app::event::{Effect, Event, ScanUpdate};
use grove::app::keymap::Keymap;
use grove::app::marks::{OrgEffect, OrgEvent};
use grove::app::matcher::execute_search;
use grove::app::preview::load_preview;
use grove::app::state::{AppState, Liveness, Options, Scope, SessionRecord};
use grove::app::theme::Palette;
use grove::app::trash_state::TrashRow;
use grove::app::update::{start, update};
use grove::storage::demo::demo_source;
use grove::storage::read::scan_info;
use grove::storage::roots::{SessionRoot, find_session_files};
use grove::storage::stats::report_over;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier};

const NOW: i64 = 1_796_040_000_000;
const WIDTH: u16 = 140;
const HEIGHT: u16 = 36;

fn main() -> std::io::Result<()> {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("screenshots");
    std::fs::create_dir_all(&out)?;
    let records = demo_records();
    let key = |c: KeyCode| Event::Key(KeyEvent::new(c, KeyModifiers::NONE));
    let ctrl = |c: char| Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
    let alt = |c: KeyCode| Event::Key(KeyEvent::new(c, KeyModifiers::ALT));
    let typed = |s: &str| s.chars().map(|c| key(KeyCode::Char(c))).collect::<Vec<_>>();

    let shots: Vec<(&str, Vec<Event>)> = vec![
        (
            "picker",
            vec![key(KeyCode::Down), key(KeyCode::Down), key(KeyCode::Down)],
        ),
        ("search", typed("\"bytes pipeline\"")),
        ("search-hit", {
            // Enter on a content match: the view opens on the entry that holds the hit.
            let mut v = typed("lossy");
            v.push(key(KeyCode::Enter));
            v
        }),
        (
            "threaded",
            // Alt+→ opens the folded family: the fork under its parent session.
            vec![
                key(KeyCode::Down),
                key(KeyCode::Down),
                key(KeyCode::Down),
                key(KeyCode::Down),
                alt(KeyCode::Right),
                key(KeyCode::Down),
            ],
        ),
        ("rename", {
            let mut v = vec![key(KeyCode::Down), key(KeyCode::Down), ctrl('r')];
            v.extend(typed(" (shipped)"));
            v
        }),
        ("delete", vec![key(KeyCode::Down), ctrl('d')]),
        ("help", vec![key(KeyCode::Char('?'))]),
        (
            "session",
            vec![key(KeyCode::Down), key(KeyCode::Down), key(KeyCode::Enter)],
        ),
        ("branches", {
            // The PR review session branches after the review message.
            let mut v = typed("\"PR #42\"");
            v.push(key(KeyCode::Enter));
            v.extend([key(KeyCode::Up), key(KeyCode::Up), key(KeyCode::Up)]);
            v
        }),
        ("transcript", {
            // The tern session's rendered transcript: Markdown, an edit as a diff, commands.
            let mut v = typed("\"bytes pipeline\"");
            v.push(key(KeyCode::Enter));
            v.push(key(KeyCode::Tab));
            v.extend((0..40).map(|_| key(KeyCode::Char('k'))));
            v
        }),
        ("zoomed", {
            // `z`: the transcript full-screen.
            let mut v = typed("\"bytes pipeline\"");
            v.push(key(KeyCode::Enter));
            v.push(key(KeyCode::Tab));
            v.push(key(KeyCode::Char('z')));
            v.extend((0..30).map(|_| key(KeyCode::Char('k'))));
            v
        }),
        ("stats", {
            // Alt+S: the listed sessions' usage, by model.
            vec![
                alt(KeyCode::Char('s')),
                key(KeyCode::Tab),
                key(KeyCode::Tab),
            ]
        }),
        ("bookmarks", vec![alt(KeyCode::Char('b'))]),
        ("trash", vec![alt(KeyCode::Char('t'))]),
        ("organise", {
            // Two sessions pinned (Alt+P), two marked (Space) for one bulk action.
            let mut v = vec![key(KeyCode::Down), alt(KeyCode::Char('p'))];
            v.extend([
                key(KeyCode::Down),
                key(KeyCode::Down),
                alt(KeyCode::Char('p')),
            ]);
            v.extend([key(KeyCode::Down), key(KeyCode::Down)]);
            v.extend([key(KeyCode::Char(' ')), key(KeyCode::Char(' '))]);
            v
        }),
        ("archived", {
            // Alt+A archives; Alt+H twice: the archived view, which can bring them back.
            let mut v = vec![key(KeyCode::End), alt(KeyCode::Char('a'))];
            v.extend([key(KeyCode::Up), alt(KeyCode::Char('a'))]);
            v.extend([alt(KeyCode::Char('h')), alt(KeyCode::Char('h'))]);
            v
        }),
        ("families", {
            // Families start folded: the parent row counts its hidden forks (`▸ 1`).
            vec![
                key(KeyCode::Down),
                key(KeyCode::Down),
                key(KeyCode::Down),
                key(KeyCode::Down),
            ]
        }),
        ("handoff", {
            // `y` in the view: copy the entry, id, path or resume command, or open a pager.
            let mut v = typed("\"bytes pipeline\"");
            v.push(key(KeyCode::Enter));
            v.push(key(KeyCode::Char('y')));
            v
        }),
        ("resume-offer", {
            // `r` on an entry the session does not resume at: check it out first?
            let mut v = typed("\"PR #42\"");
            v.push(key(KeyCode::Enter));
            v.extend([key(KeyCode::Up), key(KeyCode::Up), key(KeyCode::Up)]);
            v.push(key(KeyCode::Char('r')));
            v
        }),
    ];
    for (name, events) in shots {
        let state = build(&records, events);
        let buffer = render(&state);
        let path = out.join(format!("{name}.svg"));
        std::fs::write(&path, to_svg(&buffer))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn demo_records() -> Vec<Arc<SessionRecord>> {
    let src = demo_source();
    let roots = [
        SessionRoot {
            path: src.join("pi-agent/sessions"),
            agent: Some(grove::model::context::Dialect::Pi),
        },
        SessionRoot {
            path: src.join("atomic-agent/sessions"),
            agent: Some(grove::model::context::Dialect::Atomic),
        },
    ];
    let (files, _) = find_session_files(&roots);
    files
        .iter()
        .filter_map(|f| scan_info(&f.path, f.agent).ok())
        .map(|mut info| {
            // Show paths as an installed agent would have them.
            for (demo, shown) in SHOWN_ROOTS {
                if let Ok(rest) = info.path.strip_prefix(src.join(demo)) {
                    info.path = Path::new(shown).join(rest);
                    break;
                }
            }
            Arc::new(SessionRecord::without_fs(info, false))
        })
        .collect()
}

/// Feeds the scan and the events, answering searches and previews like the event loop does.
fn build(records: &[Arc<SessionRecord>], events: Vec<Event>) -> AppState {
    let options = Options {
        home: Some("/home/demo".into()),
        ..Options::default()
    };
    let mut state = AppState::new(options, Keymap::default(), Palette::default());
    state.viewport = (WIDTH, HEIGHT);
    state.picker.scope = Scope::All;
    let generation = {
        start(&mut state);
        state.picker.loading.generation
    };
    let mut queue = vec![
        Event::ScanResult {
            generation,
            update: ScanUpdate::Found(records.len()),
        },
        Event::ScanResult {
            generation,
            update: ScanUpdate::Sessions(records.to_vec()),
        },
        Event::ScanResult {
            generation,
            update: ScanUpdate::Done,
        },
    ];
    queue.extend(events);
    queue.reverse();
    while let Some(event) = queue.pop() {
        for effect in update(&mut state, event) {
            match effect {
                Effect::RunSearch(req) => queue.push(Event::SearchResult {
                    generation: req.generation,
                    matches: execute_search(&req, &|| false).unwrap_or_default(),
                }),
                Effect::FindHits { path, query } => {
                    let real = real_path(&path);
                    queue.push(Event::HitsFound {
                        result: grove::app::preview_hits::find_preview_hits(&real, &query, &|| {
                            false
                        }),
                        path,
                        query: query.as_str().to_owned(),
                    });
                }
                Effect::LoadPreview { path, agent } => {
                    let real = real_path(&path);
                    queue.push(Event::PreviewLoaded {
                        path,
                        result: load_preview(&real, agent).map(Arc::new),
                    });
                }
                Effect::OpenSession {
                    record,
                    path,
                    agent,
                    viewport,
                    home,
                    search,
                } => {
                    let real = real_path(&path);
                    let mut result = grove::app::session_view::SessionViewState::open(
                        &real, agent, viewport, home,
                    );
                    if let (Ok(view), Some(search)) = (&mut result, search) {
                        view.open_search(search);
                    }
                    queue.push(Event::SessionOpened {
                        record,
                        path: path.clone(),
                        result,
                    });
                    queue.push(Event::PreviewLoaded {
                        path,
                        result: load_preview(&real, agent).map(Arc::new),
                    });
                }
                Effect::LoadStats(req) => {
                    let sessions: Vec<_> = req
                        .sessions
                        .iter()
                        .map(|(p, meta)| (real_path(p), meta.clone()))
                        .collect();
                    let (report, _) = report_over(&sessions, req.by, None, &|| false);
                    queue.push(Event::StatsReady {
                        generation: req.generation,
                        report: Box::new(report),
                    });
                }
                Effect::Organise(OrgEffect::LoadBookmarks { sessions }) => {
                    let infos: Vec<_> = sessions
                        .iter()
                        .map(|r| {
                            let mut info = r.info.clone();
                            info.path = real_path(&info.path);
                            info
                        })
                        .collect();
                    let refs: Vec<_> = infos.iter().collect();
                    let (mut bookmarks, problems) = collect_bookmarks(&refs, &|| false);
                    for b in &mut bookmarks {
                        b.session_path = shown_path(&b.session_path);
                    }
                    queue.push(Event::Organise(OrgEvent::Bookmarks(Loaded {
                        bookmarks: Ok(bookmarks),
                        problems: problems.len(),
                    })));
                }
                Effect::ListTrash { generation } => queue.push(Event::TrashListed {
                    generation,
                    result: Ok(trash_rows(records)),
                }),
                Effect::CheckLive { record, .. } => queue.push(Event::LiveChecked {
                    record,
                    liveness: Liveness::Idle.into(),
                }),
                _ => {}
            }
        }
    }
    state
}

/// The demo's session folders, and where an installed agent keeps them (what is shown).
const SHOWN_ROOTS: [(&str, &str); 2] = [
    ("pi-agent/sessions", "/home/demo/.pi/agent/sessions"),
    ("atomic-agent/sessions", "/home/demo/.atomic/agent/sessions"),
];

fn real_path(shown: &Path) -> PathBuf {
    for (demo, root) in SHOWN_ROOTS {
        if let Ok(rest) = shown.strip_prefix(root) {
            return demo_source().join(demo).join(rest);
        }
    }
    shown.to_path_buf()
}

fn shown_path(real: &Path) -> PathBuf {
    let src = demo_source();
    for (demo, root) in SHOWN_ROOTS {
        if let Ok(rest) = real.strip_prefix(src.join(demo)) {
            return Path::new(root).join(rest);
        }
    }
    real.to_path_buf()
}

/// The trash as the trash view lists it: two demo sessions deleted yesterday and last week.
fn trash_rows(records: &[Arc<SessionRecord>]) -> Vec<TrashRow> {
    records
        .iter()
        .rev()
        .take(3)
        .enumerate()
        .map(|(i, r)| TrashRow {
            name: r
                .info
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            original: r.info.path.clone(),
            deleted_s: Some(NOW / 1000 - 3_600 * [5, 30, 170][i]),
            backups: usize::from(i == 1),
        })
        .collect()
}

fn render(state: &AppState) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).expect("backend");
    terminal
        .draw(|f| grove::ui::draw(f, state, NOW))
        .expect("draw");
    terminal.backend().buffer().clone()
}

const CELL_W: f32 = 8.4;
const CELL_H: f32 = 18.0;
const BG: &str = "#1e1e2e";
const FG: &str = "#cdd6f4";

fn hex(color: Color, default: &str) -> String {
    let named = |i: u8| -> &'static str {
        [
            "#45475a", "#f38ba8", "#a6e3a1", "#f9e2af", "#89b4fa", "#f5c2e7", "#94e2d5", "#bac2de",
            "#6c7086", "#f38ba8", "#a6e3a1", "#f9e2af", "#89b4fa", "#f5c2e7", "#94e2d5", "#ffffff",
        ][i as usize]
    };
    match color {
        Color::Reset => default.to_owned(),
        Color::Black => named(0).into(),
        Color::Red => named(1).into(),
        Color::Green => named(2).into(),
        Color::Yellow => named(3).into(),
        Color::Blue => named(4).into(),
        Color::Magenta => named(5).into(),
        Color::Cyan => named(6).into(),
        Color::Gray => named(7).into(),
        Color::DarkGray => named(8).into(),
        Color::LightRed => named(9).into(),
        Color::LightGreen => named(10).into(),
        Color::LightYellow => named(11).into(),
        Color::LightBlue => named(12).into(),
        Color::LightMagenta => named(13).into(),
        Color::LightCyan => named(14).into(),
        Color::White => named(15).into(),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Indexed(i) if i < 16 => named(i).into(),
        Color::Indexed(i) if i >= 232 => {
            let v = 8 + (i - 232) * 10;
            format!("#{v:02x}{v:02x}{v:02x}")
        }
        Color::Indexed(i) => {
            let i = i - 16;
            let level = |n: u8| if n == 0 { 0 } else { 55 + n * 40 };
            format!(
                "#{:02x}{:02x}{:02x}",
                level(i / 36),
                level((i / 6) % 6),
                level(i % 6)
            )
        }
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// One `<rect>` per background run and one `<text>` per run of equally styled cells.
fn to_svg(buf: &Buffer) -> String {
    let area = buf.area;
    let (w, h) = (area.width as f32 * CELL_W, area.height as f32 * CELL_H);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="'JetBrains Mono','DejaVu Sans Mono',Menlo,monospace" font-size="14">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="{BG}"/>"#);
    for y in 0..area.height {
        let mut x = 0;
        while x < area.width {
            let cell = &buf[(x, y)];
            let reversed = cell.modifier.contains(Modifier::REVERSED);
            let (fg, bg) = (hex(cell.fg, FG), hex(cell.bg, BG));
            let (fg, bg) = if reversed { (bg, fg) } else { (fg, bg) };
            let style = (fg.clone(), bg.clone(), cell.modifier);
            let start = x;
            let mut text = String::new();
            while x < area.width {
                let c = &buf[(x, y)];
                let r = c.modifier.contains(Modifier::REVERSED);
                let (f, b) = (hex(c.fg, FG), hex(c.bg, BG));
                let (f, b) = if r { (b, f) } else { (f, b) };
                if (f, b, c.modifier) != style {
                    break;
                }
                text.push_str(c.symbol());
                x += 1;
            }
            let px = start as f32 * CELL_W;
            let py = y as f32 * CELL_H;
            let run_w = (x - start) as f32 * CELL_W;
            if bg != BG {
                let _ = writeln!(
                    svg,
                    r#"<rect x="{px}" y="{py}" width="{run_w}" height="{CELL_H}" fill="{bg}"/>"#
                );
            }
            if !text.trim().is_empty() {
                let mut attrs = String::new();
                if style.2.contains(Modifier::BOLD) {
                    attrs.push_str(r#" font-weight="bold""#);
                }
                if style.2.contains(Modifier::ITALIC) {
                    attrs.push_str(r#" font-style="italic""#);
                }
                if style.2.contains(Modifier::UNDERLINED) {
                    attrs.push_str(r#" text-decoration="underline""#);
                }
                let _ = writeln!(
                    svg,
                    r#"<text x="{px}" y="{}" fill="{fg}" xml:space="preserve" textLength="{run_w}" lengthAdjust="spacingAndGlyphs"{attrs}>{}</text>"#,
                    py + CELL_H * 0.75,
                    escape(&text)
                );
            }
        }
    }
    svg.push_str("</svg>\n");
    svg
}
