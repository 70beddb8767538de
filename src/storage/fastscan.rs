//! The listing scan: one streaming pass over a session file that feeds [`InfoBuilder`], each
//! line read by the model's fast parser ([`crate::model::scan`]) and, when it gives up, by the
//! full parse. Lines are read in bounded memory ([`crate::model::lines`]).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::open::{ReadError, mtime_ms, open_regular};
use crate::model::context::Dialect;
use crate::model::info::{EntryFacts, InfoBuilder, SessionInfo};
use crate::model::parse::{
    Line, LineValue, LongLine, RawLine, entry_from, for_each_line_in, header_from, parse_line,
};
use crate::model::scan::{LiteEntry, parse_lite_into};

/// Which line parser to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseMode {
    /// Fast path with full-parse fallback (the default).
    Fast,
    /// Every line parsed into a `serde_json::Value` (the reference).
    Full,
}

/// Everything a scan has accumulated after some prefix of a file: enough to finish the listing
/// fields, or to continue reading from `offset` when the file grows.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScanState {
    builder: InfoBuilder,
    issues: u64,
    first_issue: Option<String>,
    objects: u64,
    header_seen: bool,
    /// Lines consumed (the next line's number is `lines + 1`).
    lines: usize,
    /// Byte offset just past the last `\n`-terminated line consumed.
    offset: u64,
}

impl ScanState {
    /// Byte offset at which a resumed scan continues.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The agent the content points to: Atomic when it holds Atomic-only records.
    pub fn detected_agent(&self) -> Dialect {
        if self.builder.has_atomic_markers() {
            Dialect::Atomic
        } else {
            Dialect::Pi
        }
    }

    /// The text gathered so far.
    pub fn builder_text(&self) -> &str {
        self.builder.text()
    }

    /// Takes the text out (an index stores it once, as the listing's text).
    pub fn take_builder_text(&mut self) -> String {
        self.builder.take_text()
    }

    /// The accumulated fields (an index takes the ids and tool text out to store them apart).
    pub fn builder_mut(&mut self) -> &mut InfoBuilder {
        &mut self.builder
    }

    /// Puts back the text taken with [`ScanState::take_builder_text`].
    pub fn restore_builder_text(&mut self, text: String) {
        self.builder.restore_text(text);
    }

    fn any_line(&mut self, line: &Line<'_>, mode: ParseMode) {
        match line {
            Line::Whole(l) => self.line(l, mode),
            Line::TooLong(l) => self.too_long(l),
        }
    }

    /// A line too long to read: a problem of the file, like a line that does not parse.
    fn too_long(&mut self, line: &LongLine) {
        self.issues += 1;
        let issue = line.issue();
        self.first_issue
            .get_or_insert_with(|| format!("line {}: {}", issue.line, issue.message));
    }

    fn line(&mut self, line: &RawLine<'_>, mode: ParseMode) {
        let mut entry = LiteEntry::default();
        if mode == ParseMode::Fast
            && self.objects > 0
            && parse_lite_into(line.bytes, &mut entry, self.builder.gather())
        {
            self.objects += 1;
            if entry.ty.as_deref() == Some("session") {
                self.issues += 1;
            } else {
                self.builder.facts(&entry.facts());
            }
            return;
        }
        self.line_full(line);
    }

    /// [`ScanState::line`] with another fast reader: `lite(bytes, take)` calls
    /// `take(facts, is_header)` and returns true when it took the line.
    fn line_with(&mut self, line: &RawLine<'_>, lite: LiteReader<'_>) {
        if self.objects > 0 {
            let mut took = None;
            if lite(line.bytes, &mut |facts, is_header| {
                took = Some(is_header);
                if !is_header {
                    self.builder.facts(facts);
                }
            }) {
                self.objects += 1;
                if took == Some(true) {
                    self.issues += 1;
                }
                return;
            }
        }
        self.line_full(line);
    }

    fn line_full(&mut self, line: &RawLine<'_>) {
        match parse_line(line) {
            LineValue::Blank => {}
            LineValue::Bad(issue) => {
                self.issues += 1;
                self.first_issue
                    .get_or_insert_with(|| format!("line {}: {}", issue.line, issue.message));
            }
            LineValue::Object(map, repaired) => {
                if repaired.is_some() {
                    self.issues += 1;
                }
                self.objects += 1;
                if self.objects == 1 {
                    match header_from(map, line.number) {
                        Ok(h) => {
                            self.builder.header(&h);
                            self.header_seen = true;
                        }
                        Err(map) => self.builder.entry(&entry_from(map, line.number)),
                    }
                } else if map.get("type").and_then(|t| t.as_str()) == Some("session") {
                    self.issues += 1;
                } else {
                    self.builder.entry(&entry_from(map, line.number));
                }
            }
        }
    }

    /// The agent of the session (the root's, else from its records), or why it is no session.
    fn agent_or_error(&self, path: &Path, agent: Option<Dialect>) -> Result<Dialect, ReadError> {
        if !self.header_seen {
            return Err(ReadError::NoHeader {
                path: path.to_path_buf(),
            });
        }
        Ok(agent.unwrap_or(if self.builder.has_atomic_markers() {
            Dialect::Atomic
        } else {
            Dialect::Pi
        }))
    }

    /// [`ScanState::finish`] without consuming the state (copies the text).
    pub fn snapshot(
        &self,
        path: &Path,
        agent: Option<Dialect>,
        bytes: u64,
        mtime_ms: i64,
    ) -> Result<SessionInfo, ReadError> {
        let agent = self.agent_or_error(path, agent)?;
        self.builder
            .snapshot(
                path.to_path_buf(),
                agent,
                bytes,
                mtime_ms,
                self.issues,
                self.first_issue.clone(),
            )
            .ok_or(ReadError::NoHeader {
                path: path.to_path_buf(),
            })
    }

    /// The listing fields of the file scanned so far.
    pub fn finish(
        self,
        path: &Path,
        agent: Option<Dialect>,
        bytes: u64,
        mtime_ms: i64,
    ) -> Result<SessionInfo, ReadError> {
        let agent = self.agent_or_error(path, agent)?;
        self.builder
            .finish(
                path.to_path_buf(),
                agent,
                bytes,
                mtime_ms,
                self.issues,
                self.first_issue,
            )
            .ok_or(ReadError::NoHeader {
                path: path.to_path_buf(),
            })
    }
}

/// What one scan produced.
#[derive(Debug)]
pub struct Scanned {
    pub info: Result<SessionInfo, ReadError>,
    /// State after the last complete line (a torn last line is left for the next scan).
    pub state: ScanState,
    /// Bytes read in this scan (from `state.offset` of the resumed state, or 0).
    pub bytes_read: u64,
    /// Metadata taken before reading.
    pub meta: std::fs::Metadata,
    /// The agent the content points to (used when the root does not decide it).
    pub detected_agent: Dialect,
    /// Whether `state` kept its text: only when a torn last line made the listing's text
    /// differ; otherwise the text was moved into `info` and must be restored from it
    /// ([`ScanState::restore_builder_text`]) before resuming.
    pub state_has_text: bool,
}

/// Scans a file from the start, or from `resume` (a state saved by an earlier scan of the same
/// file's prefix). Only I/O errors (and "not a regular file") are errors; content problems are
/// counted in the listing.
pub fn scan(
    path: &Path,
    agent: Option<Dialect>,
    mode: ParseMode,
    resume: Option<ScanState>,
) -> Result<Scanned, ReadError> {
    scan_with(path, agent, mode, resume, Texts::Gather, &mut |_, _| {})
}

/// Whether a scan gathers the message text and tool-call text (the listing's searchable
/// text): a listing that neither searches nor stores it skips copying it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Texts {
    Gather,
    Skip,
}

/// [`scan`], handing `on_line` each complete line read (its offset and bytes); with
/// [`Texts::Skip`] the listing's text and tool text stay empty.
pub fn scan_with(
    path: &Path,
    agent: Option<Dialect>,
    mode: ParseMode,
    resume: Option<ScanState>,
    texts: Texts,
    on_line: &mut dyn FnMut(u64, &[u8]),
) -> Result<Scanned, ReadError> {
    let (mut file, meta) = open_regular(path)?;
    let io_err = |e| ReadError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let mut state = resume.unwrap_or_default();
    if state.offset == 0 {
        // pi writes ~2 KB an entry; the guess is capped (a file of a few huge lines would
        // otherwise reserve for entries it does not have).
        let guess = meta.len() / BYTES_PER_ENTRY_GUESS;
        state
            .builder
            .reserve_nodes(usize::try_from(guess.min(MAX_RESERVED_IDS)).unwrap_or(0));
    }
    if texts == Texts::Skip {
        state.builder.skip_text();
    }
    if state.offset > 0 {
        file.seek(SeekFrom::Start(state.offset)).map_err(io_err)?;
    }
    // `tail` is the state including a torn last line, which `state` must not contain.
    let mut tail: Option<ScanState> = None;
    // Up to the size taken before reading: bytes appended meanwhile are the next listing's
    // (the row's key is this size), and the read that would find the end is not made.
    let rest = meta.len().saturating_sub(state.offset);
    let bytes_read = read_lines((&mut file).take(rest), state.offset, state.lines, |line| {
        let (number, offset, len, terminated) = match &line {
            Line::Whole(l) => (l.number, l.offset, l.bytes.len() as u64, l.terminated),
            Line::TooLong(l) => (l.number, l.offset, l.bytes, l.terminated),
        };
        if terminated {
            if let Line::Whole(l) = &line {
                on_line(l.offset, l.bytes);
            }
            state.any_line(&line, mode);
            state.lines = number;
            state.offset = offset + len + 1;
        } else {
            let mut t = state.clone();
            t.any_line(&line, mode);
            tail = Some(t);
        }
    })
    .map_err(io_err)?;
    let detected_agent = tail.as_ref().unwrap_or(&state).detected_agent();
    let state_has_text = tail.is_some();
    let info = match tail {
        Some(t) => t.finish(path, agent, meta.len(), mtime_ms(&meta)),
        None => {
            // The listing's text is the state's: move it rather than copy it.
            let text = state.take_builder_text();
            state
                .snapshot(path, agent, meta.len(), mtime_ms(&meta))
                .map(|mut info| {
                    info.all_messages_text = text;
                    info
                })
        }
    };
    Ok(Scanned {
        info,
        state,
        bytes_read,
        meta,
        detected_agent,
        state_has_text,
    })
}

/// The listing fields of one file, read streaming without keeping entries.
pub fn scan_info_with(
    path: &Path,
    agent: Option<Dialect>,
    mode: ParseMode,
) -> Result<SessionInfo, ReadError> {
    let (mut file, meta) = open_regular(path)?;
    let mut state = ScanState::default();
    read_lines(&mut file, 0, 0, |line| state.any_line(&line, mode)).map_err(|e| ReadError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    state.finish(path, agent, meta.len(), mtime_ms(&meta))
}

/// The listing scan over bytes in memory, without I/O: measures the line parser alone
/// (`examples/bench_scale.rs parse`).
#[doc(hidden)]
pub fn scan_bytes(data: &[u8], mode: ParseMode) -> ScanState {
    let mut state = ScanState::default();
    let (mut start, mut number) = (0, 0);
    for end in memchr::memchr_iter(b'\n', data) {
        number += 1;
        state.line(
            &RawLine {
                offset: start as u64,
                number,
                bytes: &data[start..end],
                terminated: true,
            },
            mode,
        );
        start = end + 1;
    }
    state
}

/// Another fast line reader, for measurements (see [`scan_bytes_with`]).
pub type LiteReader<'r> = &'r mut dyn FnMut(&[u8], &mut dyn FnMut(&EntryFacts<'_>, bool)) -> bool;

/// [`scan_bytes`] with another fast line reader in place of the model's: the candidates of
/// `examples/scan_bench` do the listing's work through it.
#[doc(hidden)]
pub fn scan_bytes_with(data: &[u8], lite: LiteReader<'_>) -> ScanState {
    let mut state = ScanState::default();
    let (mut start, mut number) = (0, 0);
    for end in memchr::memchr_iter(b'\n', data) {
        number += 1;
        state.line_with(
            &RawLine {
                offset: start as u64,
                number,
                bytes: &data[start..end],
                terminated: true,
            },
            lite,
        );
        start = end + 1;
    }
    state
}

/// A new scan makes room in its id map for one id per this many bytes of the file...
const BYTES_PER_ENTRY_GUESS: u64 = 2048;
/// ... and for at most this many.
const MAX_RESERVED_IDS: u64 = 1 << 16;

/// Files are read in chunks of this size into a per-thread buffer reused from file to file: small
/// enough to stay in the CPU cache between the kernel's copy and the scan (reading whole files
/// into a large buffer made the copy alone cost more than `cat`), large enough for few reads.
const CHUNK: usize = 256 << 10;
/// A buffer grown past this for a long line is given back after the file.
const KEEP_MAX: usize = 4 << 20;

thread_local! {
    static FILE_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`for_each_line_in`] over a reused per-thread buffer (in bounded memory: a line of
/// [`crate::model::parse::MAX_LINE_BYTES`] or more is skipped). Returns the bytes read.
fn read_lines(
    mut file: impl Read,
    start_offset: u64,
    start_line: usize,
    mut f: impl FnMut(Line<'_>),
) -> std::io::Result<u64> {
    FILE_BUF.with(|cell| {
        let mut own = Vec::new();
        let mut shared = cell.try_borrow_mut();
        let buf = match shared {
            Ok(ref mut b) => &mut **b,
            Err(_) => &mut own,
        };
        let result = for_each_line_in(&mut file, buf, CHUNK, start_offset, start_line, &mut f);
        if buf.len() > KEEP_MAX {
            *buf = Vec::new();
        }
        result.map(|(n, _)| n)
    })
}
