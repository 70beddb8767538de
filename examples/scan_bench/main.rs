//! The listing's line parser, candidate against candidate, doing the cold listing's work: every
//! file of a corpus read and scanned into its listing fields, on all cores.
//!
//! ```text
//! scan_bench METHOD DIR [REPS]   METHOD: read | full | fast | serde | derive | sonic |
//!                                        sonic-derive | sonic-lazy | simd-derive | simd-tape
//! scan_bench check DIR           every method's listing equals the full parse's
//! scan_bench iso-hand|iso-time   the ISO date formatter against the `time` crate's
//! ```
//! Build with `--features bench-candidates` (for `sonic-rs` and `simd-json`). Run each method in its own process
//! under `/usr/bin/time` or `valgrind --tool=callgrind` (`docs/bench.md`, "The JSON scan decided
//! by measurement"): the CPU time and instructions of the process are the figures.
//!
//! * `read`: the files read and their lines found, nothing parsed (the floor);
//! * `full`: every line into a `serde_json::Value` (the reference);
//! * `fast`: the hand-written scanner (`storage::fastscan`), as shipped before;
//! * `serde`: `serde_facts.rs` beside this file (serde_json into borrowed fields, values skipped with
//!   `deserialize_any`, exactly as a `Value` parse validates them);
//! * `derive`: `#[derive(Deserialize)]` structs with borrowed fields, unknown fields skipped
//!   with `IgnoredAny` (checks less than the full parse: measured only);
//! * `sonic`, `sonic-derive`: the same two readers over `sonic-rs`;
//! * `simd-derive`: the derived structs over `simd-json` (simdjson's structure scan, AVX2 or
//!   SSE4.2 chosen at run time; it parses a copy of the line in place);
//! * `simd-tape`: every line into `simd-json`'s tape and nothing more (no facts taken: a floor
//!   for any reader built on it).
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use grove::model::entry::EntryKind;
use grove::model::info::{EntryFacts, MessageFacts, SessionInfo, UsageFacts};
mod serde_facts;
use grove::storage::fastscan::{ParseMode, ScanState, scan_bytes, scan_bytes_with};
use rayon::prelude::*;
use serde::Deserialize;
use serde_facts::{LineFacts, parse_line_facts};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(method), Some(dir)) = (args.first(), args.get(1)) else {
        eprintln!("usage: scan_bench METHOD DIR [REPS]");
        std::process::exit(2);
    };
    let reps: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(1);
    let mut files = Vec::new();
    walk(Path::new(dir), &mut files);
    files.sort();
    if method == "check" {
        check(&files);
        return;
    }
    if let Some(how) = method.strip_prefix("iso-") {
        iso(how);
        return;
    }
    let t = std::time::Instant::now();
    let mut lines = 0usize;
    for _ in 0..reps {
        lines = files
            .par_iter()
            .map(|f| {
                let data = std::fs::read(f).unwrap_or_default();
                match run(method, &data) {
                    Some(state) => std::hint::black_box(state).offset() as usize,
                    None => memchr::memchr_iter(b'\n', &data).count(),
                }
            })
            .sum();
    }
    eprintln!(
        "method={method} files={} reps={reps} wall_ms={:.0} ({lines})",
        files.len(),
        t.elapsed().as_secs_f64() * 1000.0
    );
}

/// Formats 10 million timestamps: `iso-hand` with grove's formatter, `iso-time` with the
/// `time` crate's `format` and a format description.
fn iso(how: &str) {
    use time::macros::format_description;
    let format =
        format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");
    let t = std::time::Instant::now();
    let mut total = 0usize;
    for i in 0..10_000_000i64 {
        let ms = 1_700_000_000_000 + i * 7_919_993;
        let s = if how == "hand" {
            grove::model::entry::format_iso_ms(ms)
        } else {
            time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
                .ok()
                .and_then(|t| t.format(format).ok())
                .unwrap_or_default()
        };
        total += std::hint::black_box(s).len();
    }
    eprintln!(
        "iso-{how}: {total} bytes, {:.0} ns each",
        t.elapsed().as_nanos() as f64 / 1e7
    );
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

fn finish(state: ScanState) -> Option<SessionInfo> {
    state.finish(Path::new("x"), None, 0, 0).ok()
}

fn check(files: &[PathBuf]) {
    let methods = [
        "fast",
        "serde",
        "derive",
        "sonic",
        "sonic-derive",
        "sonic-lazy",
        "simd-derive",
    ];
    let bad: Vec<String> = files
        .par_iter()
        .flat_map_iter(|f| {
            let data = std::fs::read(f).unwrap_or_default();
            let full = run("full", &data).and_then(finish);
            methods
                .iter()
                .filter(|m| run(m, &data).and_then(finish) != full)
                .map(|m| format!("{m}: {}", f.display()))
                .collect::<Vec<_>>()
        })
        .collect();
    for b in &bad {
        println!("differs: {b}");
    }
    println!("checked {} files, {} differences", files.len(), bad.len());
}

fn run(method: &str, data: &[u8]) -> Option<ScanState> {
    Some(match method {
        "read" => return None,
        "full" => scan_bytes(data, ParseMode::Full),
        "fast" => scan_bytes(data, ParseMode::Fast),
        "serde" => scan_bytes_with(data, &mut |b, take| take_line(parse_line_facts(b), take)),
        "sonic" => scan_bytes_with(data, &mut |b, take| {
            take_line(sonic_rs::from_slice::<LineFacts>(b).ok(), take)
        }),
        "sonic-lazy" => scan_bytes_with(data, &mut sonic_lazy),
        "derive" => scan_bytes_with(data, &mut |b, take| {
            let line = simdutf8::basic::from_utf8(b)
                .ok()
                .and_then(|s| serde_json::from_str::<DLine>(s).ok());
            take_derived(line, take)
        }),
        "sonic-derive" => scan_bytes_with(data, &mut |b, take| {
            take_derived(sonic_rs::from_slice::<DLine>(b).ok(), take)
        }),
        "simd-derive" => {
            let (mut copy, mut buffers) = (Vec::new(), simd_json::Buffers::default());
            scan_bytes_with(data, &mut |b, take| {
                copy.clear();
                copy.extend_from_slice(b);
                let line =
                    simd_json::serde::from_slice_with_buffers::<DLine>(&mut copy, &mut buffers);
                take_derived(line.ok(), take)
            })
        }
        "simd-tape" => {
            let (mut copy, mut buffers) = (Vec::new(), simd_json::Buffers::default());
            scan_bytes_with(data, &mut |b, _take| {
                copy.clear();
                copy.extend_from_slice(b);
                let tape = simd_json::to_tape_with_buffers(&mut copy, &mut buffers);
                std::hint::black_box(tape.map(|t| t.0.len()).unwrap_or(0));
                true
            })
        }
        other => {
            eprintln!("unknown method {other}");
            std::process::exit(2)
        }
    })
}

type Take<'t> = &'t mut dyn FnMut(&EntryFacts<'_>, bool);

/// Adds a tool call's line to a message's tool lines (one a line, empty ones left out), as the
/// fast path joins them.
fn push_tool_line(tools: &mut Option<String>, line: String) {
    if line.is_empty() {
        return;
    }
    match tools {
        Some(all) => {
            all.push('\n');
            all.push_str(&line);
        }
        None => *tools = Some(line),
    }
}

fn take_line(line: Option<LineFacts<'_>>, take: Take<'_>) -> bool {
    let Some(line) = line else { return false };
    take(&line.facts(), line.ty.as_deref() == Some("session"));
    true
}

// ---------------------------------------------------------------------------------------------
// Candidate (a): derived structs, unknown fields skipped with `IgnoredAny`.

#[derive(Deserialize)]
struct DLine<'a> {
    #[serde(rename = "type", borrow)]
    ty: Option<&'a str>,
    #[serde(borrow)]
    id: Option<&'a str>,
    #[serde(rename = "parentId", borrow)]
    parent_id: Option<&'a str>,
    #[serde(borrow)]
    timestamp: Option<&'a str>,
    #[serde(borrow)]
    message: Option<DMessage<'a>>,
    #[serde(borrow)]
    name: Option<&'a str>,
    #[serde(rename = "targetId", borrow)]
    target_id: Option<&'a str>,
    #[serde(borrow)]
    label: Option<&'a str>,
    usage: Option<DUsage>,
    #[serde(borrow)]
    details: Option<DDetails<'a>>,
    #[serde(borrow)]
    summary: Option<&'a str>,
    #[serde(rename = "summarizedThroughId", borrow)]
    summarized_through_id: Option<&'a str>,
}

#[derive(Deserialize)]
struct DMessage<'a> {
    #[serde(borrow)]
    role: Option<&'a str>,
    timestamp: Option<f64>,
    usage: Option<DUsage>,
    #[serde(borrow)]
    content: Option<DContent<'a>>,
    #[serde(rename = "stopReason", borrow)]
    stop_reason: Option<&'a str>,
    #[serde(borrow)]
    model: Option<&'a str>,
    #[serde(rename = "responseModel", borrow)]
    response_model: Option<&'a str>,
}

#[derive(Deserialize)]
struct DUsage {
    #[serde(rename = "totalTokens")]
    total_tokens: Option<f64>,
    cost: Option<DCost>,
}

#[derive(Deserialize)]
struct DCost {
    total: Option<f64>,
}

#[derive(Deserialize)]
struct DDetails<'a> {
    #[serde(borrow)]
    strategy: Option<&'a str>,
}

#[derive(Deserialize)]
struct DBlock<'a> {
    #[serde(rename = "type", borrow)]
    ty: Option<&'a str>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<DArgs<'a>>,
}

/// A tool call's [`grove::model::search::TOOL_ARG_KEYS`] arguments.
#[derive(Deserialize)]
struct DArgs<'a> {
    #[serde(borrow)]
    command: Option<Cow<'a, str>>,
    #[serde(borrow)]
    path: Option<Cow<'a, str>>,
    #[serde(borrow)]
    file_path: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pattern: Option<Cow<'a, str>>,
}

/// A string, or the text blocks of an array; and the tool lines of its `toolCall` blocks.
struct DContent<'a>(Cow<'a, str>, Option<String>);

impl<'de: 'a, 'a> Deserialize<'de> for DContent<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = DContent<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("content")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(DContent(Cow::Borrowed(s), None))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(DContent(Cow::Owned(s.to_owned()), None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out: Option<Cow<'a, str>> = None;
                let mut tools: Option<String> = None;
                while let Some(b) = seq.next_element::<DBlock<'a>>()? {
                    if b.ty == Some("toolCall") {
                        let a = b.arguments.as_ref();
                        let line = grove::model::search::tool_call_line(
                            b.name.as_deref().unwrap_or(""),
                            [
                                a.and_then(|a| a.command.as_deref()),
                                a.and_then(|a| a.path.as_deref()),
                                a.and_then(|a| a.file_path.as_deref()),
                                a.and_then(|a| a.pattern.as_deref()),
                            ],
                        );
                        push_tool_line(&mut tools, line);
                    }
                    let Some(t) = b.text.filter(|_| b.ty == Some("text")) else {
                        continue;
                    };
                    out = Some(match out.take() {
                        None => t,
                        Some(prev) => Cow::Owned(format!("{prev} {t}")),
                    });
                }
                Ok(DContent(out.unwrap_or(Cow::Borrowed("")), tools))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

fn usage(u: &DUsage) -> UsageFacts {
    UsageFacts {
        total_tokens: u.total_tokens,
        cost_total: u.cost.as_ref().and_then(|c| c.total),
    }
}

fn take_derived(line: Option<DLine<'_>>, take: Take<'_>) -> bool {
    let Some(l) = line else { return false };
    let kind = EntryKind::from_type(l.ty.unwrap_or(""));
    let message = l
        .message
        .as_ref()
        .filter(|_| kind == EntryKind::Message)
        .map(|m| MessageFacts {
            role: m.role,
            timestamp: m.timestamp,
            usage: m.usage.as_ref().map(usage),
            has_content: m.content.is_some(),
            text: m
                .content
                .as_ref()
                .map(|c| &*c.0)
                .filter(|_| matches!(m.role, Some("user" | "assistant"))),
            tools: m.content.as_ref().and_then(|c| c.1.as_deref()),
            stop_reason: m.stop_reason,
            model: m.response_model.or(m.model),
        });
    let mut facts = EntryFacts::new(kind);
    facts.id = l.id.unwrap_or("");
    facts.parent_id = l.parent_id;
    facts.timestamp = l.timestamp;
    facts.message = message;
    facts.name = l.name;
    facts.target_id = l.target_id;
    facts.label = l.label;
    facts.usage = l.usage.as_ref().map(usage);
    facts.strategy = l.details.as_ref().and_then(|d| d.strategy);
    facts.summary = l.summary;
    facts.summarized_through_id = l.summarized_through_id;
    take(&facts, l.ty == Some("session"));
    true
}

// ---------------------------------------------------------------------------------------------
// Candidate (b'): sonic-rs's own lazy API (values skipped by its SIMD skipper, fields read on
// demand).

fn sonic_lazy(b: &[u8], take: Take<'_>) -> bool {
    use sonic_rs::{JsonValueTrait, LazyValue, to_object_iter};
    let Ok(s) = simdutf8::basic::from_utf8(b) else {
        return false;
    };
    let mut fields: [Option<LazyValue<'_>>; 12] = Default::default();
    const KEYS: [&str; 12] = [
        "type",
        "id",
        "parentId",
        "timestamp",
        "message",
        "name",
        "targetId",
        "label",
        "usage",
        "details",
        "summary",
        "summarizedThroughId",
    ];
    for kv in to_object_iter(s) {
        let Ok((k, v)) = kv else { return false };
        if let Some(i) = KEYS.iter().position(|&key| key == k) {
            fields[i] = Some(v);
        }
    }
    let st = |i: usize| fields[i].as_ref().and_then(|v| v.as_str());
    let usage_of = |v: &LazyValue<'_>| UsageFacts {
        total_tokens: v.get("totalTokens").and_then(|t| t.as_f64()),
        cost_total: v
            .get("cost")
            .and_then(|c| c.get("total").and_then(|t| t.as_f64())),
    };
    let ty = st(0);
    let kind = EntryKind::from_type(ty.unwrap_or(""));
    let mut text: Option<String> = None;
    let mut tools: Option<String> = None;
    let (mut stop_reason, mut model): (Option<String>, Option<String>) = (None, None);
    let mut message = None;
    let (mut role_v, mut msg_ts, mut msg_usage, mut has_content) = (None, None, None, false);
    if kind == EntryKind::Message
        && let Some(m) = fields[4].as_ref().filter(|m| m.is_object())
    {
        role_v = m.get("role");
        msg_ts = m.get("timestamp").and_then(|t| t.as_f64());
        msg_usage = m.get("usage").map(|u| usage_of(&u));
        let owned = |k: &str| m.get(k).and_then(|v| v.as_str().map(str::to_owned));
        stop_reason = owned("stopReason");
        model = owned("responseModel").or_else(|| owned("model"));
        if let Some(c) = m.get("content") {
            has_content = true;
            if let Some(s) = c.as_str() {
                text = Some(s.to_owned());
            } else if c.is_array() {
                let mut out = String::new();
                let mut first = true;
                for b in c.into_array_iter().into_iter().flatten().flatten() {
                    let ty = b.get("type");
                    if ty.as_ref().and_then(|t| t.as_str()) == Some("toolCall") {
                        let name = b.get("name");
                        let arguments = b.get("arguments").filter(|a| a.is_object());
                        let args = grove::model::search::TOOL_ARG_KEYS.map(|k| {
                            arguments
                                .as_ref()
                                .and_then(|a| a.get(k))
                                .and_then(|v| v.as_str().map(str::to_owned))
                        });
                        let line = grove::model::search::tool_call_line(
                            name.as_ref().and_then(|n| n.as_str()).unwrap_or(""),
                            [0, 1, 2, 3].map(|i| args[i].as_deref()),
                        );
                        push_tool_line(&mut tools, line);
                    }
                    if ty.as_ref().and_then(|t| t.as_str()) == Some("text")
                        && let Some(t) = b.get("text")
                        && let Some(t) = t.as_str()
                    {
                        if !first {
                            out.push(' ');
                        }
                        out.push_str(t);
                        first = false;
                    }
                }
                text = Some(out);
            }
        }
        message = Some(());
    }
    let role = role_v.as_ref().and_then(|r| r.as_str());
    let mut facts = EntryFacts::new(kind);
    facts.id = st(1).unwrap_or("");
    facts.parent_id = st(2);
    facts.timestamp = st(3);
    facts.message = message.map(|()| MessageFacts {
        role,
        timestamp: msg_ts,
        usage: msg_usage,
        has_content,
        text: text
            .as_deref()
            .filter(|_| matches!(role, Some("user" | "assistant"))),
        tools: tools.as_deref(),
        stop_reason: stop_reason.as_deref(),
        model: model.as_deref(),
    });
    facts.name = st(5);
    facts.target_id = st(6);
    facts.label = st(7);
    facts.usage = fields[8].as_ref().map(usage_of);
    facts.strategy = None;
    let details = fields[9].as_ref().and_then(|d| d.get("strategy"));
    facts.strategy = details.as_ref().and_then(|s| s.as_str());
    facts.summary = st(10);
    facts.summarized_through_id = st(11);
    take(&facts, ty == Some("session"));
    true
}
