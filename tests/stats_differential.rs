//! `grove stats --json` against an independent sum over the raw files: this test reads every
//! listed session's JSONL itself with serde_json and adds up, per day, project and model, what
//! pi's `getSessionStats` adds (assistant messages, `usage` entries, tool results', compactions'
//! and branch summaries' `usage`; plus Atomic's `session_summary` usage, as grove documents).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{grove, stdout};
use serde_json::Value;

#[derive(Default, Debug, Clone, Copy, PartialEq)]
struct Sum {
    messages: u64,
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    cost: f64,
}

impl Sum {
    fn add_usage(&mut self, u: &Value) {
        let n = |k: &str| u[k].as_u64().unwrap_or(0);
        self.input += n("input");
        self.output += n("output");
        self.cache_read += n("cacheRead");
        self.cache_write += n("cacheWrite");
        self.cost += u["cost"]["total"].as_f64().unwrap_or(0.0);
    }
}

type Sums = BTreeMap<String, Sum>;

fn utc_day(ts: &str) -> Option<String> {
    use time::format_description::well_known::Rfc3339;
    let t = time::OffsetDateTime::parse(ts, &Rfc3339).ok()?;
    let t = t.to_offset(time::UtcOffset::UTC);
    Some(format!(
        "{:04}-{:02}-{:02}",
        t.year(),
        u8::from(t.month()),
        t.day()
    ))
}

/// `line` with every `\\uD800`-`\\uDFFF` escape that is not half of a pair replaced by `\\uFFFD`.
fn without_lone_surrogates(line: &str) -> String {
    let b = line.as_bytes();
    let hex = |at: usize| -> Option<u16> {
        if b.get(at..at + 2)? != b"\\u" {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(b.get(at + 2..at + 6)?).ok()?, 16).ok()
    };
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        match hex(i) {
            Some(0xD800..=0xDBFF) if matches!(hex(i + 6), Some(0xDC00..=0xDFFF)) => {
                out.push_str(&line[i..i + 12]);
                i += 12;
            }
            Some(0xD800..=0xDFFF) => {
                out.push_str("\\ufffd");
                i += 6;
            }
            _ => {
                let c = line[i..].chars().next().expect("char");
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// Adds one file to the three groupings.
fn sum_file(path: &Path, by_day: &mut Sums, by_project: &mut Sums, by_model: &mut Sums) {
    let bytes = std::fs::read(path).expect("read fixture");
    let text = String::from_utf8_lossy(&bytes);
    let mut header_day = "unknown".to_owned();
    let mut cwd = String::new();
    for (i, line) in text.split('\n').enumerate() {
        let line = if i == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        // JSON.parse (pi) accepts lone surrogate escapes; serde_json does not.
        let Ok(v) = serde_json::from_str::<Value>(line)
            .or_else(|_| serde_json::from_str::<Value>(&without_lone_surrogates(line)))
        else {
            continue;
        };
        let ty = v["type"].as_str().unwrap_or("");
        if ty == "session" {
            if cwd.is_empty() {
                cwd = v["cwd"].as_str().unwrap_or("").to_owned();
                header_day = v["timestamp"]
                    .as_str()
                    .and_then(utc_day)
                    .unwrap_or_else(|| "unknown".into());
            }
            continue;
        }
        let msg = &v["message"];
        let day = v["timestamp"]
            .as_str()
            .and_then(utc_day)
            .or_else(|| {
                (ty == "message")
                    .then(|| msg["timestamp"].as_f64())
                    .flatten()
                    .and_then(|ms| {
                        time::OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000).ok()
                    })
                    .map(|t| format!("{:04}-{:02}-{:02}", t.year(), u8::from(t.month()), t.day()))
            })
            .unwrap_or_else(|| header_day.clone());
        let mut add = |model: &str, f: &dyn Fn(&mut Sum)| {
            for (map, key) in [
                (&mut *by_day, day.as_str()),
                (&mut *by_project, cwd.as_str()),
                (&mut *by_model, model),
            ] {
                f(map.entry(key.to_owned()).or_default());
            }
        };
        let model_of = |p: &Value, m: &Value| match (p.as_str(), m.as_str()) {
            (Some(p), Some(m)) => format!("{p}/{m}"),
            (None, Some(m)) => m.to_owned(),
            (Some(p), None) => format!("{p}/?"),
            (None, None) => "(unknown model)".to_owned(),
        };
        match ty {
            "usage" if v["usage"].is_object() => {
                add(&model_of(&v["provider"], &v["model"]), &|s| {
                    s.add_usage(&v["usage"])
                });
            }
            "compaction" | "branch_summary" | "session_summary" if v["usage"].is_object() => {
                add("Tools/summaries", &|s| s.add_usage(&v["usage"]));
            }
            "message" => match msg["role"].as_str() {
                Some("assistant") => {
                    let model = if msg["responseModel"].is_string() {
                        &msg["responseModel"]
                    } else {
                        &msg["model"]
                    };
                    add(&model_of(&msg["provider"], model), &|s| {
                        s.messages += 1;
                        if msg["usage"].is_object() {
                            s.add_usage(&msg["usage"]);
                        }
                    });
                }
                Some("toolResult") => {
                    add("(no model)", &|s| s.messages += 1);
                    if msg["usage"].is_object() {
                        add("Tools/summaries", &|s| s.add_usage(&msg["usage"]));
                    }
                }
                _ => add("(no model)", &|s| s.messages += 1),
            },
            _ => {}
        }
    }
}

fn grove_json(sandbox: &Path, root: &Path, agent: &str, args: &[&str]) -> Value {
    let mut all = vec!["--no-cache", "--agent", agent];
    all.extend_from_slice(args);
    let out = grove(sandbox, root, &all);
    assert!(out.status.success(), "{}", common::stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("json")
}

fn listed_paths(sandbox: &Path, root: &Path, agent: &str) -> Vec<PathBuf> {
    let v = grove_json(
        sandbox,
        root,
        agent,
        &["list", "--all", "--include-internal", "--json"],
    );
    v.as_array()
        .expect("array")
        .iter()
        .map(|s| PathBuf::from(s["path"].as_str().expect("path")))
        .collect()
}

/// The last assistant message's stop reason and model, in file order, read independently.
fn last_turn(path: &Path) -> (Option<String>, Option<String>) {
    let bytes = std::fs::read(path).expect("read fixture");
    let text = String::from_utf8_lossy(&bytes);
    let mut last = (None, None);
    for line in text.split('\n') {
        let Ok(v) = serde_json::from_str::<Value>(line)
            .or_else(|_| serde_json::from_str::<Value>(&without_lone_surrogates(line)))
        else {
            continue;
        };
        let m = &v["message"];
        if v["type"] == "message" && m["role"] == "assistant" {
            let model = m["responseModel"].as_str().or(m["model"].as_str());
            last = (
                m["stopReason"].as_str().map(str::to_owned),
                model.map(str::to_owned),
            );
        }
    }
    last
}

/// `grove list --json` rows carry the last turn's outcome, the model and pi's cost.
fn check_list_rows(sandbox: &Path, root: &Path, agent: &str, by_session: &Value) {
    let rows = grove_json(
        sandbox,
        root,
        agent,
        &["list", "--all", "--include-internal", "--json"],
    );
    let cost_of: BTreeMap<String, f64> = by_session["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| {
            (
                g["path"].as_str().expect("path").to_owned(),
                g["cost"].as_f64().expect("cost"),
            )
        })
        .collect();
    let mut outcomes = 0;
    for r in rows.as_array().expect("rows") {
        let path = r["path"].as_str().expect("path");
        let (stop, model) = last_turn(Path::new(path));
        let want = match stop.as_deref() {
            Some("stop") => Some("done"),
            Some("toolUse") => Some("unfinished"),
            Some("length") => Some("cut off"),
            Some("aborted") => Some("aborted"),
            Some("error") => Some("error"),
            _ => None,
        };
        assert_eq!(r["outcome"].as_str(), want, "{path}");
        assert_eq!(r["model"].as_str(), model.as_deref(), "{path}");
        outcomes += usize::from(want.is_some());
        let cost = cost_of.get(path).copied().unwrap_or(0.0);
        assert!(
            close(r["cost"].as_f64().expect("cost"), cost),
            "{path}: cost"
        );
    }
    assert!(outcomes > 5, "{agent}: outcomes seen");
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn check_grouping(sandbox: &Path, root: &Path, agent: &str, by: &str, want: &Sums) {
    let got = grove_json(sandbox, root, agent, &["stats", "--by", by, "--json"]);
    let mut got_map = Sums::new();
    for g in got["groups"].as_array().expect("groups") {
        let t = &g["tokens"];
        got_map.insert(
            g["key"].as_str().expect("key").to_owned(),
            Sum {
                messages: g["messages"].as_u64().expect("messages"),
                input: t["input"].as_u64().expect("input"),
                output: t["output"].as_u64().expect("output"),
                cache_read: t["cacheRead"].as_u64().expect("cacheRead"),
                cache_write: t["cacheWrite"].as_u64().expect("cacheWrite"),
                cost: g["cost"].as_f64().expect("cost"),
            },
        );
    }
    let keys = |m: &Sums| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&got_map), keys(want), "{agent} by {by}: the groups");
    for (k, w) in want {
        let g = &got_map[k];
        assert_eq!(
            (g.messages, g.input, g.output, g.cache_read, g.cache_write),
            (w.messages, w.input, w.output, w.cache_read, w.cache_write),
            "{agent} by {by}: {k}"
        );
        assert!(
            close(g.cost, w.cost),
            "{agent} by {by}: {k}: cost {} vs {}",
            g.cost,
            w.cost
        );
    }
    // The grand total is the sum of the rows.
    let total = &got["total"];
    let sum_in: u64 = want.values().map(|s| s.input).sum();
    let sum_cost: f64 = want.values().map(|s| s.cost).sum();
    assert_eq!(total["tokens"]["input"].as_u64(), Some(sum_in));
    assert!(close(total["cost"].as_f64().expect("cost"), sum_cost));
}

fn differential(root: &Path, agent: &str) {
    let sandbox = tempfile::tempdir().expect("tempdir");
    let paths = listed_paths(sandbox.path(), root, agent);
    assert!(paths.len() > 10, "{agent}: {} sessions listed", paths.len());
    let (mut day, mut project, mut model) = (Sums::new(), Sums::new(), Sums::new());
    for p in &paths {
        sum_file(p, &mut day, &mut project, &mut model);
    }
    let tokens: u64 = model.values().map(|s| s.input + s.output).sum();
    assert!(tokens > 0, "{agent}: the fixtures carry usage");
    check_grouping(sandbox.path(), root, agent, "day", &day);
    check_grouping(sandbox.path(), root, agent, "project", &project);
    check_grouping(sandbox.path(), root, agent, "model", &model);
    let by_session = grove_json(
        sandbox.path(),
        root,
        agent,
        &["stats", "--by", "session", "--json"],
    );
    check_list_rows(sandbox.path(), root, agent, &by_session);
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

#[test]
fn pi_fixture_totals_equal_an_independent_sum() {
    differential(&fixture("pi-agent/sessions"), "pi");
}

#[test]
fn atomic_fixture_totals_equal_an_independent_sum() {
    differential(&fixture("atomic-agent/sessions"), "atomic");
}

#[test]
fn since_drops_earlier_days_and_bad_dates_are_refused() {
    let sandbox = tempfile::tempdir().expect("tempdir");
    let root = fixture("pi-agent/sessions");
    let all = grove_json(sandbox.path(), &root, "pi", &["stats", "--json"]);
    let days: Vec<String> = all["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| g["key"].as_str().expect("key").to_owned())
        .collect();
    let cut = days[days.len() / 2].clone();
    let since = grove_json(
        sandbox.path(),
        &root,
        "pi",
        &["stats", "--since", &cut, "--json"],
    );
    let kept: Vec<&str> = since["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| g["key"].as_str().expect("key"))
        .collect();
    let want: Vec<&str> = days
        .iter()
        .map(String::as_str)
        .filter(|d| *d != "unknown" && *d >= cut.as_str())
        .collect();
    assert_eq!(kept, want);
    assert_eq!(since["since"], Value::String(cut));
    let bad = grove(
        sandbox.path(),
        &root,
        &["--no-cache", "stats", "--since", "june"],
    );
    assert!(!bad.status.success());
    assert!(
        common::stderr(&bad).contains("YYYY-MM-DD"),
        "{}",
        common::stderr(&bad)
    );
}

#[test]
fn list_sorts_by_created_size_and_cost() {
    let sandbox = tempfile::tempdir().expect("tempdir");
    let root = fixture("pi-agent/sessions");
    for (sort, field) in [("cost", "cost"), ("size", "bytes"), ("created", "created")] {
        let rows = grove_json(
            sandbox.path(),
            &root,
            "pi",
            &["list", "--all", "--sort", sort, "--json"],
        );
        let rows = rows.as_array().expect("rows");
        assert!(rows.len() > 10);
        let keys: Vec<Value> = rows.iter().map(|r| r[field].clone()).collect();
        for w in keys.windows(2) {
            let ordered = match (&w[0], &w[1]) {
                (Value::String(a), Value::String(b)) => a >= b,
                (Value::String(_), Value::Null) | (Value::Null, Value::Null) => true,
                (a, b) => a.as_f64().expect("number") >= b.as_f64().expect("number"),
            };
            assert!(ordered, "--sort {sort}: {} before {}", w[0], w[1]);
        }
    }
}
