//! Messages, tokens and cost of a session, counted as pi counts them.
//!
//! pi's session totals (`AgentSession.getSessionStats`, and the footer, since 0.81) walk *every*
//! entry of the file, not just the current branch, and add the `usage` of:
//! - every assistant message (attributed to `provider/(responseModel ?? model)`),
//! - every `usage` entry (pi 1.6.0's side work such as cache warming; `provider/model`),
//! - a tool result's nested `usage` and a `compaction`'s or `branch_summary`'s `usage`
//!   (pi's "Tools/summaries" bucket).
//!
//! Tokens are `input`, `output`, `cacheRead` and `cacheWrite` (their sum is the total, not the
//! stored `totalTokens`); cost is `cost.total`. Every `message` entry counts as a message.
//! grove also counts the `usage` of Atomic's `session_summary` entries (generated summaries
//! cost tokens too; Atomic's own totals leave them out), in the same "Tools/summaries" bucket.
//!
//! Where pi would produce `NaN` or throw (a missing or non-numeric field), grove counts zero.
//! A line that is not JSON counts nothing, as in pi. Days are UTC calendar days of the entry's
//! `timestamp` (else the message's, else the header's).

use std::collections::BTreeMap;
use std::io::{self, Read};

use serde::Deserialize;
use serde_json::Value;

use super::entry::{format_iso_ms, parse_iso_ms};
use super::lines::Line;
use super::parse::{LineValue, RawLine, for_each_line, parse_line};

pub mod order;
pub mod outcome;
pub mod report;

/// The bucket of usage that has no model of its own (pi's name for it).
pub const TOOLS_BUCKET: &str = "Tools/summaries";
/// The day of a contribution whose entry has no readable time.
pub const UNKNOWN_DAY: &str = "unknown";

/// Sums of messages, tokens and cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    pub messages: u64,
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub cost: f64,
}

impl Totals {
    pub fn add(&mut self, o: &Totals) {
        self.messages += o.messages;
        self.input = self.input.saturating_add(o.input);
        self.output = self.output.saturating_add(o.output);
        self.cache_read = self.cache_read.saturating_add(o.cache_read);
        self.cache_write = self.cache_write.saturating_add(o.cache_write);
        self.cost += o.cost;
    }

    /// Input, output, cache read and cache write (pi's `tokens.total`).
    pub fn tokens(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write)
    }

    /// Cached share of the prompt tokens, in percent (pi's formula: cache read over input plus
    /// cache read and write); `None` without prompt tokens.
    pub fn cache_hit_rate(&self) -> Option<f64> {
        let prompt = self
            .input
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write);
        (prompt > 0).then(|| self.cache_read as f64 * 100.0 / prompt as f64)
    }

    fn from_usage(u: &Value) -> Totals {
        let n = |k: &str| {
            u.get(k)
                .and_then(Value::as_f64)
                .map_or(0, |f| f.max(0.0) as u64)
        };
        Totals {
            messages: 0,
            input: n("input"),
            output: n("output"),
            cache_read: n("cacheRead"),
            cache_write: n("cacheWrite"),
            cost: u
                .get("cost")
                .and_then(|c| c.get("total"))
                .and_then(Value::as_f64)
                .filter(|c| c.is_finite())
                .unwrap_or(0.0),
        }
    }
}

/// The totals of one session per (UTC day, model); the model is `None` for messages that have
/// none (user messages, tool results, …).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionStats {
    pub buckets: BTreeMap<(String, Option<String>), Totals>,
    /// The last assistant message's `stopReason` and model (file order).
    pub last_stop_reason: Option<String>,
    pub last_model: Option<String>,
}

impl SessionStats {
    pub fn total(&self) -> Totals {
        let mut t = Totals::default();
        for v in self.buckets.values() {
            t.add(v);
        }
        t
    }

    fn add(&mut self, day: &str, model: Option<&str>, t: Totals) {
        let key = (day.to_owned(), model.map(str::to_owned));
        self.buckets.entry(key).or_default().add(&t);
    }
}

/// The fields of an entry line the totals read; everything else is skipped unparsed.
#[derive(Deserialize, Default)]
struct StatLine {
    #[serde(rename = "type", default)]
    kind: Option<Value>,
    #[serde(default)]
    timestamp: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    provider: Option<Value>,
    #[serde(default)]
    model: Option<Value>,
    #[serde(default)]
    message: Option<StatMessage>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct StatMessage {
    #[serde(default)]
    role: Option<Value>,
    #[serde(default)]
    timestamp: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    provider: Option<Value>,
    #[serde(default)]
    model: Option<Value>,
    #[serde(default)]
    response_model: Option<Value>,
    #[serde(default)]
    stop_reason: Option<Value>,
}

fn as_str(v: &Option<Value>) -> Option<&str> {
    v.as_ref().and_then(Value::as_str)
}

/// `provider/model`, or what of it is there.
fn model_key(provider: Option<&str>, model: Option<&str>) -> String {
    match (provider, model) {
        (Some(p), Some(m)) => format!("{p}/{m}"),
        (None, Some(m)) => m.to_owned(),
        (Some(p), None) => format!("{p}/?"),
        (None, None) => "(unknown model)".to_owned(),
    }
}

fn day_of_ms(ms: i64) -> String {
    format_iso_ms(ms)
        .get(..10)
        .unwrap_or(UNKNOWN_DAY)
        .to_owned()
}

/// Folds the lines of one session file into [`SessionStats`].
#[derive(Default)]
pub struct StatsReader {
    header_day: Option<String>,
    stats: SessionStats,
}

impl StatsReader {
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one line (as split by [`for_each_line`]).
    pub fn line(&mut self, raw: &RawLine<'_>) {
        let mut bytes = raw.bytes;
        if raw.offset == 0 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let parsed = match serde_json::from_slice::<StatLine>(bytes) {
            Ok(l) => Some(l),
            // A non-object `message`, invalid UTF-8, a lone surrogate: the full parse repairs
            // what pi's reader accepts, and a `message` that is not an object reads as none.
            Err(_) => match parse_line(raw) {
                LineValue::Object(mut map, _) => {
                    if map.get("message").is_some_and(|m| !m.is_object()) {
                        map.remove("message");
                    }
                    serde_json::from_value::<StatLine>(Value::Object(map)).ok()
                }
                LineValue::Blank | LineValue::Bad(_) => None,
            },
        };
        if let Some(l) = parsed {
            self.entry(&l);
        }
    }

    fn entry(&mut self, l: &StatLine) {
        let kind = as_str(&l.kind).unwrap_or("");
        let entry_ms = as_str(&l.timestamp).and_then(parse_iso_ms);
        if kind == "session" {
            if self.header_day.is_none() {
                self.header_day = Some(entry_ms.map_or_else(|| UNKNOWN_DAY.to_owned(), day_of_ms));
            }
            return;
        }
        let msg_ms = l
            .message
            .as_ref()
            .and_then(|m| m.timestamp.as_ref())
            .and_then(Value::as_f64)
            .filter(|f| f.is_finite())
            .map(|f| f as i64);
        let day = match entry_ms.or(if kind == "message" { msg_ms } else { None }) {
            Some(ms) => day_of_ms(ms),
            None => self
                .header_day
                .clone()
                .unwrap_or_else(|| UNKNOWN_DAY.to_owned()),
        };
        let usage =
            |u: &Option<Value>| u.as_ref().filter(|u| u.is_object()).map(Totals::from_usage);
        match kind {
            "usage" => {
                if let Some(t) = usage(&l.usage) {
                    let key = model_key(as_str(&l.provider), as_str(&l.model));
                    self.stats.add(&day, Some(&key), t);
                }
            }
            "compaction" | "branch_summary" | "session_summary" => {
                if let Some(t) = usage(&l.usage) {
                    self.stats.add(&day, Some(TOOLS_BUCKET), t);
                }
            }
            "message" => {
                let one = Totals {
                    messages: 1,
                    ..Totals::default()
                };
                let Some(m) = &l.message else {
                    self.stats.add(&day, None, one);
                    return;
                };
                match as_str(&m.role) {
                    Some("assistant") => {
                        let model = as_str(&m.response_model).or(as_str(&m.model));
                        let key = model_key(as_str(&m.provider), model);
                        let mut t = usage(&m.usage).unwrap_or_default();
                        t.messages = 1;
                        self.stats.add(&day, Some(&key), t);
                        self.stats.last_stop_reason = as_str(&m.stop_reason).map(str::to_owned);
                        self.stats.last_model = model.map(str::to_owned);
                    }
                    Some("toolResult") => {
                        self.stats.add(&day, None, one);
                        if let Some(t) = usage(&m.usage) {
                            self.stats.add(&day, Some(TOOLS_BUCKET), t);
                        }
                    }
                    _ => self.stats.add(&day, None, one),
                }
            }
            _ => {}
        }
    }

    pub fn finish(self) -> SessionStats {
        self.stats
    }
}

/// The stats of a whole session file, streamed line by line in bounded memory (a line over
/// [`super::lines::MAX_LINE_BYTES`] is skipped, as everywhere in grove).
pub fn read_stats<R: Read>(reader: R) -> io::Result<SessionStats> {
    let mut r = StatsReader::new();
    for_each_line(reader, 0, 0, |line| {
        if let Line::Whole(raw) = line {
            r.line(&raw);
        }
    })?;
    Ok(r.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(text: &str) -> SessionStats {
        read_stats(text.as_bytes()).expect("in memory")
    }

    const U: &str = r#"{"input":10,"output":5,"cacheRead":80,"cacheWrite":5,"totalTokens":100,"cost":{"total":0.5}}"#;

    #[test]
    fn counts_what_pi_counts_and_skips_the_rest() {
        let text = format!(
            concat!(
                r#"{{"type":"session","id":"s","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/p"}}"#,
                "\n",
                r#"{{"type":"message","id":"a","timestamp":"2025-06-01T10:00:01.000Z","message":{{"role":"user","content":"hi"}}}}"#,
                "\n",
                r#"{{"type":"message","id":"b","timestamp":"2025-06-02T10:00:01.000Z","message":{{"role":"assistant","provider":"openai","model":"m","usage":{u},"stopReason":"stop"}}}}"#,
                "\n",
                r#"{{"type":"usage","id":"c","timestamp":"2025-06-02T10:00:02.000Z","provider":"openai","model":"w","usage":{u}}}"#,
                "\n",
                r#"{{"type":"compaction","id":"d","timestamp":"2025-06-02T10:00:03.000Z","usage":{u},"retainedTail":[{{"role":"assistant","usage":{u}}}]}}"#,
                "\n",
                r#"{{"type":"custom","id":"e","usage":{u}}}"#,
                "\n",
                "not json\n",
                r#"{{"type":"message","id":"f","message":"text"}}"#,
            ),
            u = U
        );
        let s = stats(&text);
        let t = s.total();
        assert_eq!(
            (t.messages, t.input, t.output, t.cache_read, t.cache_write),
            (3, 30, 15, 240, 15)
        );
        assert!((t.cost - 1.5).abs() < 1e-12);
        assert_eq!(t.tokens(), 300);
        assert_eq!(t.cache_hit_rate(), Some(240.0 * 100.0 / 285.0));
        let keys: Vec<_> = s.buckets.keys().cloned().collect();
        let k = |d: &str, m: Option<&str>| (d.to_owned(), m.map(str::to_owned));
        assert_eq!(
            keys,
            vec![
                k("2025-06-01", None),
                k("2025-06-02", Some("Tools/summaries")),
                k("2025-06-02", Some("openai/m")),
                k("2025-06-02", Some("openai/w")),
            ]
        );
        assert_eq!(s.last_stop_reason.as_deref(), Some("stop"));
        assert_eq!(s.last_model.as_deref(), Some("m"));
    }

    #[test]
    fn bad_numbers_count_zero_and_response_model_wins() {
        let s = stats(concat!(
            r#"{"type":"session","id":"s","timestamp":"bad","cwd":"/p"}"#,
            "\n",
            r#"{"type":"message","id":"b","message":{"role":"assistant","provider":"p","model":"m","responseModel":"r","usage":{"input":"many","output":-3,"cost":{"total":"x"}}}}"#,
        ));
        let t = s.total();
        assert_eq!((t.messages, t.tokens(), t.cost), (1, 0, 0.0));
        let key = ("unknown".to_owned(), Some("p/r".to_owned()));
        assert!(s.buckets.contains_key(&key), "{:?}", s.buckets);
    }
}
