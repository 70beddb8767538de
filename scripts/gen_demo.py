#!/usr/bin/env python3
"""Regenerate the demo session set under assets/demo/.

    python3 scripts/gen_demo.py            # writes assets/demo/{pi-agent,atomic-agent}/sessions/...

The output is deterministic (ids, uuids and tool-call ids are derived from hashes, the clock is
fixed per session), so re-running the script produces byte-identical files. The committed .jsonl
files are what the app and its screenshots use; this script only exists to regenerate them.

Shapes follow the real pi / Atomic writers (see /work/shared/reference and the fixtures):
header line, then entries with 8-hex ids and parentId links, ISO timestamps on entries and Unix-ms
timestamps inside messages, JSON serialised like JavaScript's JSON.stringify (compact, raw UTF-8).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import hashlib
import json
import re
import shutil
import struct
import sys
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "assets" / "demo"

# Absolute agent dirs the demo files pretend to live in (parentSession paths use these).
AGENT_DIRS = {
    "pi": ("pi-agent", "/home/demo/.pi/agent/sessions"),
    "atomic": ("atomic-agent", "/home/demo/.atomic/agent/sessions"),
}

# USD per million tokens: input, output, cacheRead, cacheWrite
PRICES = {
    "claude-sonnet-4-5": (3.0, 15.0, 0.30, 3.75),
    "claude-opus-4-1": (15.0, 75.0, 1.50, 18.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.10, 1.25),
    "gpt-5-codex": (1.25, 10.0, 0.125, 0.0),
}
APIS = {"anthropic": "anthropic-messages", "openai": "openai-responses"}


def h(*parts: object) -> bytes:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()


def parse_iso(s: str) -> int:
    t = dt.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.timezone.utc)
    return int(t.timestamp() * 1000)


def iso(ms: int) -> str:
    t = dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def uuid7(ms: int, seed: str) -> str:
    r = h("uuid", seed)
    b = bytearray(ms.to_bytes(6, "big") + r[:10])
    b[6] = 0x70 | (b[6] & 0x0F)
    b[8] = 0x80 | (b[8] & 0x3F)
    x = b.hex()
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"


_EXP_NUMBER = re.compile(r"([:,\[])(-?\d+(?:\.\d+)?e-\d+)(?=[,}\]])")


def dumps(obj: object) -> str:
    # Same bytes as JSON.stringify for our data: compact, non-ASCII kept raw, controls escaped, and
    # small floats written positionally (JS only switches to exponent notation below 1e-6).
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return _EXP_NUMBER.sub(lambda m: m.group(1) + format(decimal.Decimal(m.group(2)), "f"), text)


def tiny_png() -> str:
    """A real 32x20 PNG: a fake 'mobile screenshot' with a header bar and an overflowing button."""
    w, hgt = 32, 20
    rows = []
    for y in range(hgt):
        row = bytearray([0])
        for x in range(w):
            if y < 4:
                px = (37, 99, 235)  # header bar
            elif 12 <= y <= 15 and 6 <= x:
                px = (220, 38, 38) if x >= 28 else (16, 185, 129)  # button running off the edge
            elif 7 <= y <= 9 and 3 <= x <= 26:
                px = (203, 213, 225)  # input field
            else:
                px = (248, 250, 252)
            row += bytes(px)
        rows.append(bytes(row))
    raw = b"".join(rows)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, hgt, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode()


class Session:
    """Builds one session file entry by entry, the way SessionManager appends them."""

    def __init__(
        self,
        agent: str,
        project: str,
        start: str,
        *,
        model: tuple[str, str] = ("anthropic", "claude-sonnet-4-5"),
        thinking: str | None = "medium",
        parent: "Session | None" = None,
        workflow: dict | None = None,
        settings: bool = True,
    ) -> None:
        self.agent = agent
        self.project = project
        self.cwd = f"/home/demo/code/{project}"
        self.ms = parse_iso(start)
        self.uuid = uuid7(self.ms, f"{agent}/{project}/{start}")
        self.entries: list[dict] = []
        self.by_id: dict[str, dict] = {}
        self.leaf: str | None = None
        self.n = 0
        self.provider, self.model = model
        self.context = 6200  # tokens in context, grows as the conversation does
        self.header: dict = {
            "type": "session",
            "version": 3,
            "id": self.uuid,
            "timestamp": iso(self.ms),
            "cwd": self.cwd,
        }
        if parent is not None:
            self.header["parentSession"] = parent.abs_path()
        if workflow is not None:
            self.header["internal"] = True
            self.header["workflow"] = workflow
        self.ms += 1
        if settings:
            self.model_change(*model, dt_s=0.001)
            if thinking is not None:
                self.thinking_level(thinking, dt_s=0.001)

    # ---- paths -------------------------------------------------------------------------------
    def folder(self) -> str:
        return "--" + self.cwd.lstrip("/").replace("/", "-") + "--"

    def filename(self) -> str:
        return self.header["timestamp"].replace(":", "-").replace(".", "-") + "_" + self.uuid + ".jsonl"

    def abs_path(self) -> str:
        return f"{AGENT_DIRS[self.agent][1]}/{self.folder()}/{self.filename()}"

    # ---- primitives --------------------------------------------------------------------------
    def tick(self, secs: float) -> None:
        jitter = h("tick", self.uuid, self.n)[0] * 3  # 0..765 ms, deterministic
        self.ms += int(secs * 1000) + (jitter if secs >= 1 else 0)

    def new_id(self) -> str:
        while True:
            self.n += 1
            cand = h("id", self.uuid, self.n).hex()[:8]
            if cand not in self.by_id:
                return cand

    def append(self, type_: str, fields: dict, dt_s: float = 1.0, custom_order: bool = False) -> str:
        self.tick(dt_s)
        eid = self.new_id()
        base = {"type": type_, "id": eid, "parentId": self.leaf, "timestamp": iso(self.ms)}
        if custom_order:  # pi/Atomic write custom entries with the payload before the base fields
            e = {"type": type_, **fields, "id": eid, "parentId": self.leaf, "timestamp": iso(self.ms)}
        else:
            e = {**base, **fields}
        self.entries.append(e)
        self.by_id[eid] = e
        self.leaf = eid
        return eid

    def branch(self, entry_id: str) -> None:
        """Move the leaf back to an earlier entry (the next append becomes its second child)."""
        assert entry_id in self.by_id
        self.leaf = entry_id

    # ---- entry kinds -------------------------------------------------------------------------
    def model_change(self, provider: str, model: str, dt_s: float = 2.0) -> str:
        self.provider, self.model = provider, model
        return self.append("model_change", {"provider": provider, "modelId": model}, dt_s)

    def thinking_level(self, level: str, dt_s: float = 2.0) -> str:
        return self.append("thinking_level_change", {"thinkingLevel": level}, dt_s)

    def user(self, content: str | list, dt_s: float = 40.0) -> str:
        self.context += len(str(content)) // 4 + 20
        self.tick(dt_s)
        return self.append(
            "message", {"message": {"role": "user", "content": content, "timestamp": self.ms + 1}}, 0.001
        )

    def call(self, name: str, **args: object) -> dict:
        r = h("call", self.uuid, self.n, name, len(self.entries))
        if self.provider == "openai":
            cid = "call_" + r.hex()[:24]
        else:
            alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
            cid = "toolu_01" + "".join(alphabet[b % 62] for b in r[:22])
        return {"type": "toolCall", "id": cid, "name": name, "arguments": args}

    def usage(self, out_tokens: int) -> dict:
        p_in, p_out, p_cr, p_cw = PRICES[self.model]
        cache_read = int(self.context * 0.85)
        fresh = self.context - cache_read
        cache_write = fresh if self.provider == "anthropic" else 0
        inp = 0 if self.provider == "anthropic" else fresh
        if self.provider == "anthropic":
            inp = 3 + (h("in", self.uuid, self.n)[0] % 9)
        cost = {
            "input": inp * p_in / 1e6,
            "output": out_tokens * p_out / 1e6,
            "cacheRead": cache_read * p_cr / 1e6,
            "cacheWrite": cache_write * p_cw / 1e6,
        }
        cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
        return {
            "input": inp,
            "output": out_tokens,
            "cacheRead": cache_read,
            "cacheWrite": cache_write,
            "totalTokens": inp + out_tokens + cache_read + cache_write,
            "cost": cost,
        }

    def assistant(
        self,
        *blocks: dict | str,
        thinking: str | None = None,
        dt_s: float = 12.0,
        stop: str | None = None,
        error: str | None = None,
    ) -> str:
        content: list[dict] = []
        if thinking:
            sig = base64.b64encode(b"".join(h("sig", thinking, i) for i in range(6))).decode()
            content.append({"type": "thinking", "thinking": thinking, "thinkingSignature": sig})
        for b in blocks:
            content.append({"type": "text", "text": b} if isinstance(b, str) else b)
        has_call = any(b["type"] == "toolCall" for b in content)
        out = sum(len(dumps(b)) for b in content) // 4 + 30
        self.context += out
        self.tick(dt_s)
        msg = {
            "role": "assistant",
            "content": content,
            "api": APIS[self.provider],
            "provider": self.provider,
            "model": self.model,
            "usage": self.usage(out),
            "stopReason": stop or ("toolUse" if has_call else "stop"),
            "timestamp": self.ms,
        }
        if error:
            msg["errorMessage"] = error
        return self.append("message", {"message": msg}, 0.001)

    def result(self, call: dict, text: str, *, error: bool = False, details: dict | None = None,
               dt_s: float = 2.0) -> str:
        self.context += len(text) // 4 + 10
        self.tick(dt_s)
        msg = {
            "role": "toolResult",
            "toolCallId": call["id"],
            "toolName": call["name"],
            "content": [{"type": "text", "text": text}],
            "isError": error,
            "timestamp": self.ms,
        }
        if details is not None:
            msg["details"] = details
        return self.append("message", {"message": msg}, 0.001)

    def step(self, text: str | None, call: dict, output: str, *, thinking: str | None = None,
             error: bool = False, details: dict | None = None, dt_s: float = 10.0) -> str:
        """One assistant turn with a single tool call, followed by its result."""
        blocks = ([text] if text else []) + [call]
        self.assistant(*blocks, thinking=thinking, dt_s=dt_s)
        return self.result(call, output, error=error, details=details)

    def edit(self, text: str | None, path: str, old: str, new: str, first_line: int,
             thinking: str | None = None) -> str:
        c = self.call("edit", path=path, edits=[{"oldText": old, "newText": new}])
        diff = f"--- a/{path}\n+++ b/{path}\n@@ -{first_line},{old.count(chr(10)) + 1} " \
               f"+{first_line},{new.count(chr(10)) + 1} @@\n" + \
               "".join(f"-{line}\n" for line in old.split("\n")) + \
               "".join(f"+{line}\n" for line in new.split("\n"))
        return self.step(text, c, f"Successfully replaced text in {path}.", thinking=thinking,
                         details={"diff": diff, "firstChangedLine": first_line})

    def bash_execution(self, command: str, output: str, exit_code: int, dt_s: float = 20.0,
                       exclude: bool = False) -> str:
        self.tick(dt_s)
        msg = {
            "role": "bashExecution",
            "command": command,
            "output": output,
            "exitCode": exit_code,
            "cancelled": False,
            "truncated": False,
            "timestamp": self.ms,
        }
        if exclude:
            msg["excludeFromContext"] = True
        return self.append("message", {"message": msg}, 0.001)

    def label(self, target: str, label: str | None, dt_s: float = 6.0) -> str:
        assert target in self.by_id
        fields: dict = {"targetId": target}
        if label is not None:  # a cleared label is written without the key (undefined in JS)
            fields["label"] = label
        return self.append("label", fields, dt_s)

    def name(self, name: str, dt_s: float = 5.0) -> str:
        return self.append("session_info", {"name": name}, dt_s)

    def custom(self, custom_type: str, data: dict, dt_s: float = 0.5) -> str:
        return self.append("custom", {"customType": custom_type, "data": data}, dt_s, custom_order=True)

    def custom_message(self, custom_type: str, content: str | list, display: bool = True,
                       details: dict | None = None, dt_s: float = 1.0) -> str:
        fields: dict = {"customType": custom_type, "content": content, "display": display}
        if details is not None:
            fields["details"] = details
        return self.append("custom_message", fields, dt_s, custom_order=True)

    def compaction(self, summary: str, first_kept: str | None, tokens_before: int,
                   details: dict, dt_s: float = 25.0, usage_out: int | None = None) -> str:
        fields: dict = {"summary": summary, "firstKeptEntryId": first_kept, "tokensBefore": tokens_before,
                        "details": details}
        if usage_out is not None:
            ctx, self.context = self.context, tokens_before
            fields["usage"] = self.usage(usage_out)
            self.context = ctx
        e = self.append("compaction", fields, dt_s)
        self.context = max(4000, self.context // 4)
        return e

    def branch_summary(self, from_id: str, summary: str, details: dict, dt_s: float = 20.0) -> str:
        self.branch(from_id)
        return self.append("branch_summary", {"fromId": from_id, "summary": summary, "details": details},
                           dt_s)

    def session_summary(self, summary: str, dt_s: float = 4.0, usage_out: int = 60) -> str:
        last = next(e for e in reversed(self.entries)
                    if e["type"] == "message" and e["message"]["role"] in ("user", "assistant"))
        return self.append("session_summary", {"summary": summary, "summarizedThroughId": last["id"],
                                               "usage": self.usage(usage_out)}, dt_s)

    def fork_from(self, parent: "Session", upto: str) -> None:
        """Copy the parent's path root..upto (labels dropped, parents re-chained, labels re-added)."""
        path = []
        cur: str | None = upto
        while cur is not None:
            path.append(parent.by_id[cur])
            cur = parent.by_id[cur]["parentId"]
        path.reverse()
        kept_ids = {e["id"] for e in path if e["type"] != "label"}
        prev = None
        for e in path:
            if e["type"] == "label":
                continue
            copy = json.loads(dumps(e))
            copy["parentId"] = prev
            self.entries.append(copy)
            self.by_id[copy["id"]] = copy
            prev = copy["id"]
        self.leaf = prev
        labels: dict[str, str] = {}
        for e in parent.entries:
            if e["type"] == "label" and e["targetId"] in kept_ids:
                if e.get("label"):
                    labels[e["targetId"]] = e["label"]
                else:
                    labels.pop(e["targetId"], None)
        for target, lab in labels.items():
            self.label(target, lab, dt_s=0.001)

    # ---- output ------------------------------------------------------------------------------
    def validate(self) -> None:
        seen: set[str] = set()
        for e in self.entries:
            assert len(e["id"]) == 8 and all(c in "0123456789abcdef" for c in e["id"]), e["id"]
            assert e["id"] not in seen, e["id"]
            assert e["parentId"] is None or e["parentId"] in seen, (self.filename(), e)
            seen.add(e["id"])
        assert 6 <= len(self.entries) <= 60, (self.filename(), len(self.entries))

    def write(self) -> Path:
        self.validate()
        d = OUT / AGENT_DIRS[self.agent][0] / "sessions" / self.folder()
        d.mkdir(parents=True, exist_ok=True)
        p = d / self.filename()
        with open(p, "w", encoding="utf-8", newline="\n") as f:
            f.write(dumps(self.header) + "\n")
            for e in self.entries:
                f.write(dumps(e) + "\n")
        return p


# =============================================================================================
# pi: tern — a Rust CLI that tails and filters structured (JSON) logs
# =============================================================================================

TERN_MAIN_RS = """use clap::Parser;

mod filter;
mod reader;

/// Tail and filter JSON logs.
#[derive(Parser, Debug)]
#[command(name = "tern", version)]
struct Args {
    /// Files to read (stdin when empty)
    files: Vec<std::path::PathBuf>,
    /// Only show lines whose `level` is at least this
    #[arg(long, default_value = "info")]
    level: String,
    /// Regex matched against the `msg` field
    #[arg(long)]
    grep: Option<String>,
    /// Keep following the file as it grows
    #[arg(short, long)]
    follow: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let filter = filter::Filter::new(&args.level, args.grep.as_deref())?;
    reader::run(&args.files, &filter, args.follow)
}
"""


def tern_since() -> Session:
    s = Session("pi", "tern", "2026-10-06T08:41:12.304Z")
    s.user("Add a `--since` flag to tern that accepts things like `10m`, `2h`, `1d` and only shows log "
           "lines whose `ts` field is newer than now minus that duration. Keep the dependency footprint small.")
    s.step("Let me look at how the CLI is wired up first.", s.call("read", path="src/main.rs"), TERN_MAIN_RS,
           thinking="I need to see the clap Args struct and where filtering happens before adding a flag. "
                    "humantime is tiny and already a transitive dep of env_logger? Check Cargo.toml too.")
    s.step(None, s.call("bash", command="grep -n humantime Cargo.lock; cargo tree -i humantime 2>&1 | head -5"),
           "124:name = \"humantime\"\nhumantime v2.1.0\n└── env_logger v0.11.5\n    └── tern v0.3.2 (/home/demo/code/tern)")
    s.edit("`humantime` is already in the lock file through env_logger, so depending on it directly costs nothing. "
           "Adding the flag:", "src/main.rs",
           "    /// Keep following the file as it grows\n    #[arg(short, long)]\n    follow: bool,",
           "    /// Keep following the file as it grows\n    #[arg(short, long)]\n    follow: bool,\n"
           "    /// Only show lines newer than this (e.g. 10m, 2h, 1d)\n"
           "    #[arg(long, value_parser = humantime::parse_duration)]\n    since: Option<std::time::Duration>,",
           14)
    s.edit("Now thread it into the filter. The cutoff is computed once at startup so `--follow` keeps a fixed window:",
           "src/filter.rs",
           "pub fn new(level: &str, grep: Option<&str>) -> anyhow::Result<Self> {",
           "pub fn new(level: &str, grep: Option<&str>, since: Option<Duration>) -> anyhow::Result<Self> {\n"
           "    let cutoff = since.map(|d| SystemTime::now() - d);", 22)
    s.step(None, s.call("bash", command="cargo add humantime@2 && cargo test 2>&1 | tail -15", timeout=180),
           "    Updating crates.io index\n      Adding humantime v2.1.0 to dependencies\n"
           "   Compiling tern v0.3.2 (/home/demo/code/tern)\n    Finished `test` profile [unoptimized + debuginfo] "
           "target(s) in 6.41s\n     Running unittests src/main.rs (target/debug/deps/tern-5c1f0e2a9b7d3c41)\n\n"
           "running 14 tests\ntest filter::tests::level_ordering ... ok\ntest filter::tests::grep_matches_msg ... ok\n"
           "test filter::tests::since_drops_old_lines ... ok\ntest filter::tests::since_keeps_lines_without_ts ... ok\n"
           "test reader::tests::follow_handles_truncation ... ok\n\ntest result: ok. 14 passed; 0 failed; 0 ignored; "
           "0 measured; 0 filtered out; finished in 0.02s")
    s.assistant("Done. `tern --since 2h app.log` now keeps only lines whose `ts` is within the last two hours.\n\n"
                "- `--since` is parsed with `humantime::parse_duration` (already in the tree via env_logger).\n"
                "- Lines without a parseable `ts` are **kept**, so plain-text lines mixed into the log don't vanish.\n"
                "- Added two tests: `since_drops_old_lines` and `since_keeps_lines_without_ts`.\n\n"
                "All 14 tests pass.")
    s.user("Perfect, thanks. Can you add it to the README usage section too?")
    s.edit(None, "README.md", "  tern --level warn app.log", "  tern --level warn app.log\n  tern --since 30m --follow app.log", 31)
    s.assistant("Added an example under **Usage**.")
    s.name("tern: --since flag")
    return s


TERN_READER_RS = """use std::io::{BufRead, BufReader};

pub fn run(files: &[PathBuf], filter: &Filter, follow: bool) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    let reader: Box<dyn BufRead> = match files.first() {
        Some(p) => Box::new(BufReader::new(File::open(p)?)),
        None => Box::new(stdin.lock()),
    };
    for line in reader.lines() {
        let line = line.unwrap();
        if let Some(out) = filter.apply(&line) {
            println!("{out}");
        }
    }
    Ok(())
}
"""


def tern_utf8() -> tuple[Session, str]:
    s = Session("pi", "tern", "2026-10-14T13:05:47.918Z", thinking="high")
    s.user("tern panics when a log file has a line that isn't valid UTF-8 (one of our services writes raw "
           "bytes from a C library). Repro: `printf 'ok\\n\\xff\\xfe bad\\n' | cargo run`")
    s.step(None, s.call("bash", command="printf 'ok\\n\\xff\\xfe bad\\n' | cargo run -q 2>&1 | tail -4"),
           "ok\nthread 'main' panicked at src/reader.rs:10:25:\ncalled `Result::unwrap()` on an `Err` value: "
           "Error { kind: InvalidData, message: \"stream did not contain valid UTF-8\" }\n"
           "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
           thinking="Reproduce first. Almost certainly BufRead::lines() returning InvalidData and an unwrap.")
    s.step("Reproduced. The panic comes from `reader.rs:10`:", s.call("read", path="src/reader.rs"), TERN_READER_RS)
    options = s.assistant(
        "`BufRead::lines()` yields `io::Error(InvalidData)` for any non-UTF-8 line and we `unwrap()` it. Two ways out:\n\n"
        "1. **Lossy**: read with `read_until(b'\\n')` and `String::from_utf8_lossy`. Smallest change; bad bytes "
        "become `U+FFFD`.\n"
        "2. **Bytes all the way**: keep lines as `Vec<u8>`, parse JSON with `serde_json::from_slice`, and switch "
        "`--grep` to `regex::bytes::Regex`. More churn, but output is byte-exact.\n\n"
        "Which do you prefer?",
        thinking="Option 1 is a 5-line change. Option 2 touches filter.rs too, but preserves bytes. Let the user pick.")
    s.label(options, "two options")
    s.user("Try the lossy one first, it's less code.")
    lossy = s.edit("Switching the loop to `read_until`:", "src/reader.rs",
                   "    for line in reader.lines() {\n        let line = line.unwrap();",
                   "    let mut buf = Vec::with_capacity(4096);\n    while reader.read_until(b'\\n', &mut buf)? > 0 {\n"
                   "        let line = String::from_utf8_lossy(&buf);", 9)
    s.label(lossy, "lossy attempt")
    s.step(None, s.call("bash", command="printf 'ok\\n\\xff\\xfe bad\\n' | cargo run -q -- --grep 'bad' | od -c | head -3"),
           "0000000   o   k  \\n 357 277 275 357 277 275       b   a   d  \\n\n0000016")
    s.assistant("No more panic, but note the output: the two raw bytes came back as two `U+FFFD` replacement "
                "characters (`357 277 275` ×2). Anyone piping tern into another tool gets different bytes than the "
                "file contains.")
    s.user("Hmm, that's a problem, the ops folks diff tern output against the raw files. Let's go back and do "
           "the bytes version properly.")
    abandoned_tip = s.leaf
    s.label(lossy, None)  # clear the label on the abandoned attempt
    # Go back to the "two options" message and take the other road.
    bs = s.branch_summary(
        options,
        "Tried option 1 (lossy UTF-8): replaced `lines()` with `read_until` + `String::from_utf8_lossy` in "
        "src/reader.rs. The panic was gone, but invalid bytes were printed as U+FFFD, which breaks byte-for-byte "
        "diffs against the source files. The user rejected it in favour of a bytes-based pipeline.",
        {"readFiles": ["src/reader.rs"], "modifiedFiles": ["src/reader.rs"]})
    s.user("Go with option 2: keep lines as bytes end to end.", dt_s=15)
    s.step("Reading the filter to see what needs to change:", s.call("read", path="src/filter.rs", offset=1, limit=60),
           "use regex::Regex;\nuse serde_json::Value;\n\npub struct Filter {\n    min_level: Level,\n"
           "    grep: Option<Regex>,\n}\n\nimpl Filter {\n    pub fn apply(&self, line: &str) -> Option<String> {\n"
           "        let v: Value = serde_json::from_str(line).ok()?;\n        ...\n    }\n}")
    s.edit("Switching the regex to the bytes flavour (same syntax, matches on `&[u8]`):", "src/filter.rs",
           "use regex::Regex;", "use regex::bytes::Regex;", 1)
    s.edit(None, "src/filter.rs",
           "    pub fn apply(&self, line: &str) -> Option<String> {\n        let v: Value = serde_json::from_str(line).ok()?;",
           "    pub fn apply<'a>(&self, line: &'a [u8]) -> Option<&'a [u8]> {\n"
           "        let v: Value = serde_json::from_slice(line).ok()?;", 10)
    s.edit("And the reader writes the original bytes straight to stdout:", "src/reader.rs",
           "    for line in reader.lines() {\n        let line = line.unwrap();\n        if let Some(out) = filter.apply(&line) {\n"
           "            println!(\"{out}\");",
           "    let mut out = std::io::stdout().lock();\n    let mut buf = Vec::with_capacity(4096);\n"
           "    while reader.read_until(b'\\n', &mut buf)? > 0 {\n        if let Some(line) = filter.apply(&buf) {\n"
           "            out.write_all(line)?;", 9)
    s.step(None, s.call("bash", command="cargo test -q 2>&1 | tail -3 && printf 'ok\\n\\xff\\xfe bad\\n' | cargo run -q -- --grep bad | od -c"),
           "test result: ok. 15 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.03s\n\n"
           "0000000 377 376       b   a   d  \\n\n0000007")
    done = s.assistant("Bytes in, bytes out: `\\xff\\xfe bad` is printed unchanged and `--grep` still matches. "
                       "I added `reader::tests::non_utf8_passthrough` covering the repro. 15/15 tests pass.")
    s.label(done, "bytes pipeline ✓")
    s.name("Non-UTF-8 input panic")
    assert abandoned_tip != bs
    return s, done


def tern_bench_fork(parent: Session, upto: str) -> Session:
    s = Session("pi", "tern", "2026-10-15T09:12:03.551Z", thinking="high", parent=parent, settings=False)
    s.fork_from(parent, upto)
    s.user("Forking this to check the performance side. Is the bytes pipeline slower than the old `lines()` loop "
           "on a big file?")
    s.step(None, s.call("bash", command="ls -lh bench/fixtures/ && hyperfine --warmup 2 "
                                        "'git stash -q && cargo build -q --release && ./target/release/tern --level warn bench/fixtures/app-1g.log > /dev/null; git stash pop -q' "
                                        "'./target/release/tern --level warn bench/fixtures/app-1g.log > /dev/null' 2>&1 | tail -12",
                        timeout=900),
           "total 1.1G\n-rw-r--r-- 1 demo demo 1.1G Oct 15 09:13 app-1g.log\n\n"
           "Benchmark 1: lines() (main)\n  Time (mean ± σ):      4.812 s ±  0.061 s\n"
           "Benchmark 2: read_until bytes (branch)\n  Time (mean ± σ):      3.977 s ±  0.044 s\n\nSummary\n"
           "  read_until bytes (branch) ran\n    1.21 ± 0.02 times faster than lines() (main)")
    s.assistant("The bytes version is **~21% faster** on the 1.1 GB fixture (3.98 s vs 4.81 s): reusing one `Vec<u8>` "
                "avoids a `String` allocation per line and skips UTF-8 validation entirely.")
    s.user("Nice. Write that into docs/perf.md so we have it on record.")
    s.step(None, s.call("write", path="docs/perf.md", content=(
        "# Performance notes\n\n## Reading lines as bytes (Oct 2026)\n\n"
        "| version | 1.1 GB `app-1g.log`, `--level warn` |\n|---|---|\n| `lines()` + `String` | 4.81 s ± 0.06 |\n"
        "| `read_until` + reused `Vec<u8>` | 3.98 s ± 0.04 |\n\nMeasured with `hyperfine --warmup 2` on a Ryzen 7 7840U.\n")),
        "Successfully wrote 312 bytes to docs/perf.md")
    s.assistant("Written to `docs/perf.md`.")
    s.name("tern: bytes pipeline benchmark")
    return s


def tern_release() -> Session:
    s = Session("pi", "tern", "2026-11-27T15:20:44.120Z")
    s.name("release prep")
    s.user("Let's get 0.4.0 out. Check what's changed since v0.3.2 and draft the CHANGELOG entry.")
    s.step(None, s.call("bash", command="git log --oneline v0.3.2..HEAD"),
           "9c1e4d2 reader: keep lines as bytes end to end\n41b7aa0 filter: regex::bytes for --grep\n"
           "e08f3c5 add --since flag (humantime)\n7d2f911 README: --since example\n"
           "b3a0c6e deps: bump clap to 4.6\n2f9e118 ci: test on windows-latest\n"
           "c4d1e07 fix --follow when the file is truncated", thinking=None)
    s.step("Reading the current changelog to match its style:", s.call("read", path="CHANGELOG.md", limit=30),
           "# Changelog\n\n## 0.3.2 — 2026-08-30\n\n### Fixed\n- `--follow` no longer spins at 100% CPU on "
           "macOS when the file is idle.\n\n## 0.3.1 — 2026-08-02\n...")
    s.edit("Drafted:", "CHANGELOG.md", "# Changelog\n",
           "# Changelog\n\n## 0.4.0 — unreleased\n\n### Added\n- `--since <duration>` (e.g. `10m`, `2h`).\n\n"
           "### Changed\n- Lines are processed as raw bytes: non-UTF-8 input no longer panics and is printed "
           "unchanged. ~20% faster on large files.\n\n### Fixed\n- `--follow` handles truncated files (logrotate "
           "`copytruncate`).\n", 1)
    s.user("Good. Bump the version and run the full CI script locally.")
    s.edit(None, "Cargo.toml", 'version = "0.3.2"', 'version = "0.4.0"', 3)
    s.step(None, s.call("bash", command="./ci/check.sh 2>&1 | tail -20", timeout=600),
           "==> cargo fmt --check\n==> cargo clippy --all-targets -- -D warnings\nerror: this `if` has identical blocks\n"
           "  --> src/filter.rs:48:9\n   |\n48 | /         if lvl >= self.min_level {\n49 | |             true\n"
           "50 | |         } else {\n51 | |             true\n52 | |         }\n   | |_________^\n   |\n"
           "   = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#if_same_then_else\n"
           "error: could not compile `tern` (bin \"tern\") due to 1 previous error\nci/check.sh: clippy failed\n\nCommand exited with code 1",
           error=True)
    s.step("Clippy caught a real bug: both arms return `true`, so `--level` never filters anything out! Let me look.",
           s.call("read", path="src/filter.rs", offset=40, limit=20),
           "40    fn level_ok(&self, v: &Value) -> bool {\n41        let Some(lvl) = v.get(\"level\").and_then(Level::from_json) else {\n"
           "42            return true; // lines without a level always pass\n43        };\n...\n48        if lvl >= self.min_level {\n"
           "49            true\n50        } else {\n51            true\n52        }\n53    }",
           thinking="The else branch should be false. This must have slipped in with the bytes refactor. "
                    "Why didn't the level_ordering test catch it? It only tests Level's Ord impl, not Filter.")
    s.edit("The `else` arm should be `false`; it slipped in during the bytes refactor. The existing "
           "`level_ordering` test only checks `Level`'s `Ord`, not the filter, so I'm adding a test as well.",
           "src/filter.rs", "        if lvl >= self.min_level {\n            true\n        } else {\n            true\n        }",
           "        lvl >= self.min_level", 48)
    s.step(None, s.call("bash", command="./ci/check.sh 2>&1 | tail -6", timeout=600),
           "==> cargo test\ntest result: ok. 16 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n"
           "==> cargo test --release\ntest result: ok. 16 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n"
           "==> cargo deny check\nadvisories ok, bans ok, licenses ok, sources ok\nall checks passed ✔")
    s.assistant("CI is green. I added that fix to the CHANGELOG under **Fixed** (`--level` was ignored on "
                "unreleased main only, so no user impact).")
    s.name("Release 0.4.0")
    s.user("Let's also cross-compile for the release targets before tagging. Switch to Opus for this, the "
           "release workflow is fiddly.")
    s.model_change("anthropic", "claude-opus-4-1")
    s.thinking_level("high")
    keep = s.user("Here's the current workflow: .github/workflows/release.yml. Make it build "
                  "x86_64/aarch64 for linux-musl, macOS, and windows-msvc, and attach tarballs + sha256 sums.", dt_s=10)
    s.step(None, s.call("read", path=".github/workflows/release.yml"),
           "name: release\non:\n  push:\n    tags: ['v*']\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n"
           "      - uses: actions/checkout@v4\n      - run: cargo build --release\n      - uses: softprops/action-gh-release@v2\n"
           "        with:\n          files: target/release/tern",
           thinking="Matrix over (target, os). musl targets need cross or musl-tools; aarch64-linux-musl is easiest "
                    "with cross. macOS runners are arm64 now so x86_64-apple-darwin needs the target added. "
                    "Windows: zip not tar. Then a final job to compute SHA256SUMS.")
    s.step("Rewriting it as a build matrix plus a publish job:", s.call("write", path=".github/workflows/release.yml", content=(
        "name: release\non:\n  push:\n    tags: ['v*']\npermissions:\n  contents: write\njobs:\n  build:\n"
        "    strategy:\n      matrix:\n        include:\n"
        "          - { target: x86_64-unknown-linux-musl,  os: ubuntu-latest,  cross: true }\n"
        "          - { target: aarch64-unknown-linux-musl, os: ubuntu-latest,  cross: true }\n"
        "          - { target: x86_64-apple-darwin,        os: macos-latest }\n"
        "          - { target: aarch64-apple-darwin,       os: macos-latest }\n"
        "          - { target: x86_64-pc-windows-msvc,     os: windows-latest }\n"
        "    runs-on: ${{ matrix.os }}\n    steps:\n      - uses: actions/checkout@v4\n"
        "      - uses: dtolnay/rust-toolchain@stable\n        with: { targets: '${{ matrix.target }}' }\n"
        "      - run: cargo install cross --locked\n        if: matrix.cross\n"
        "      - run: ${{ matrix.cross && 'cross' || 'cargo' }} build --release --locked --target ${{ matrix.target }}\n"
        "      - run: ./ci/package.sh ${{ matrix.target }}\n        shell: bash\n"
        "      - uses: actions/upload-artifact@v4\n        with: { name: 'tern-${{ matrix.target }}', path: dist/* }\n"
        "  publish:\n    needs: build\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/download-artifact@v4\n        with: { path: dist, merge-multiple: true }\n"
        "      - run: cd dist && sha256sum * > SHA256SUMS\n      - uses: softprops/action-gh-release@v2\n"
        "        with: { files: 'dist/*' }\n")), "Successfully wrote 1487 bytes to .github/workflows/release.yml")
    s.step(None, s.call("write", path="ci/package.sh", content=(
        "#!/usr/bin/env bash\nset -euo pipefail\ntarget=$1\nversion=${GITHUB_REF_NAME#v}\nmkdir -p dist\n"
        "bin=target/$target/release/tern\n[[ $target == *windows* ]] && bin=$bin.exe\n"
        "name=tern-$version-$target\nmkdir -p \"$name\" && cp \"$bin\" README.md LICENSE \"$name/\"\n"
        "if [[ $target == *windows* ]]; then 7z a \"dist/$name.zip\" \"$name\" >/dev/null\n"
        "else tar czf \"dist/$name.tar.gz\" \"$name\"; fi\n")), "Successfully wrote 402 bytes to ci/package.sh")
    s.step(None, s.call("bash", command="chmod +x ci/package.sh && actionlint .github/workflows/release.yml && echo ok"),
           "ok")
    s.compaction(
        "## Goal\nShip tern 0.4.0: changelog, version bump, green CI, cross-platform release artifacts.\n\n"
        "## Progress\n- CHANGELOG.md has a 0.4.0 entry (Added `--since`; Changed: bytes pipeline, ~20% faster; "
        "Fixed: `--follow` on truncation, `--level` being ignored).\n- Cargo.toml bumped to 0.4.0.\n"
        "- Fixed clippy `if_same_then_else` in src/filter.rs:48 (the `else` arm returned `true`, so `--level` never "
        "filtered); added `filter::tests::level_filters_lines`.\n- ./ci/check.sh passes (fmt, clippy, tests, cargo deny).\n"
        "- .github/workflows/release.yml rewritten as a 5-target matrix (linux-musl x86_64/aarch64 via cross, "
        "macOS x86_64/aarch64, windows-msvc) plus a publish job that writes SHA256SUMS; ci/package.sh builds "
        "tar.gz/zip archives. actionlint is clean.\n\n## Next\n- Dry-run the workflow on a pre-release tag.\n- Tag v0.4.0.",
        keep, 148_212,
        {"readFiles": ["CHANGELOG.md", "src/filter.rs", ".github/workflows/release.yml"],
         "modifiedFiles": ["CHANGELOG.md", "Cargo.toml", "src/filter.rs", ".github/workflows/release.yml", "ci/package.sh"]},
        usage_out=1184)
    s.user("Push a v0.4.0-rc.1 tag so we can watch the workflow run.", dt_s=120)
    s.step(None, s.call("bash", command="git tag -a v0.4.0-rc.1 -m 'tern 0.4.0-rc.1' && git push origin v0.4.0-rc.1 "
                                        "&& gh run watch --exit-status $(gh run list -w release -L1 --json databaseId -q '.[0].databaseId')",
                        timeout=1800),
           "To github.com:demo/tern.git\n * [new tag]         v0.4.0-rc.1 -> v0.4.0-rc.1\n"
           "✓ build (x86_64-unknown-linux-musl) in 2m11s\n✓ build (aarch64-unknown-linux-musl) in 3m48s\n"
           "✓ build (x86_64-apple-darwin) in 1m52s\n✓ build (aarch64-apple-darwin) in 1m31s\n"
           "✓ build (x86_64-pc-windows-msvc) in 2m40s\n✓ publish in 24s\n\n✓ release v0.4.0-rc.1 completed successfully",
           dt_s=5)
    s.assistant("The rc run is green: 5 builds + publish. The draft release has the five archives and `SHA256SUMS`. "
                "Ready to tag `v0.4.0` whenever you are.")
    s.user("Ship it.")
    s.step(None, s.call("bash", command="git tag -a v0.4.0 -m 'tern 0.4.0' && git push origin v0.4.0"),
           "To github.com:demo/tern.git\n * [new tag]         v0.4.0 -> v0.4.0")
    s.assistant("Tagged and pushed `v0.4.0`; the release workflow is running.")
    s.name("Release 0.4.0 + cross-compiled artifacts")
    return s


# =============================================================================================
# pi: shelfie — a small web app (React + Express) to track the books you own and lend out
# =============================================================================================

def shelfie_mobile_login() -> Session:
    s = Session("pi", "shelfie", "2026-10-09T17:32:09.011Z", thinking="low")
    s.user([
        {"type": "text", "text": "The login form is broken on small screens, the Sign in button runs off the "
                                 "right edge (screenshot from an iPhone SE, 375px wide):"},
        {"type": "image", "data": tiny_png(), "mimeType": "image/png"},
    ])
    s.step("I can see the button overflowing its card. Let me find the styles.",
           s.call("bash", command="grep -rn 'login' web/src --include=*.tsx --include=*.css -l"),
           "web/src/pages/Login.tsx\nweb/src/pages/Login.module.css")
    s.step(None, s.call("read", path="web/src/pages/Login.module.css"),
           ".card {\n  width: 420px;\n  margin: 10vh auto;\n  padding: 2rem;\n}\n\n.actions {\n  display: flex;\n"
           "  gap: 1rem;\n}\n\n.actions button {\n  min-width: 180px;\n}\n")
    s.edit("The card has a fixed `width: 420px` and the buttons a `min-width: 180px`, so below ~430px it can only "
           "overflow. Making the card fluid and letting the actions wrap:", "web/src/pages/Login.module.css",
           ".card {\n  width: 420px;", ".card {\n  width: min(420px, 100% - 2rem);", 1)
    s.edit(None, "web/src/pages/Login.module.css", ".actions {\n  display: flex;\n  gap: 1rem;\n}",
           ".actions {\n  display: flex;\n  flex-wrap: wrap;\n  gap: 1rem;\n}", 7)
    s.step(None, s.call("bash", command="cd web && npx playwright test login.spec.ts --project=mobile-safari 2>&1 | tail -4"),
           "Running 3 tests using 1 worker\n  ✓  1 [mobile-safari] › login.spec.ts:5:1 › renders form (812ms)\n"
           "  ✓  2 [mobile-safari] › login.spec.ts:14:1 › button fits the viewport (640ms)\n"
           "  ✓  3 [mobile-safari] › login.spec.ts:22:1 › shows error on bad password (1.1s)\n\n  3 passed (4.2s)")
    s.assistant("Fixed. The card is now `min(420px, 100% - 2rem)` wide and the actions wrap, so on a 375px screen the "
                "button drops under *Forgot password?* instead of overflowing. I added a `button fits the viewport` "
                "check to the mobile Playwright project.")
    return s


def shelfie_pagination() -> Session:
    s = Session("pi", "shelfie", "2026-10-21T10:02:55.407Z")
    s.custom("plan-mode", {"enabled": True, "steps": ["cursor pagination in API", "update client", "tests"]})
    s.user("/api/books returns every book at once and the Library page takes 3s for users with 2k+ books. "
           "Add cursor-based pagination (limit + cursor), newest first.")
    s.step(None, s.call("read", path="server/src/routes/books.ts"),
           "router.get('/', requireUser, async (req, res) => {\n  const books = await db.book.findMany({\n"
           "    where: { ownerId: req.user.id },\n    orderBy: { addedAt: 'desc' },\n  });\n  res.json(books);\n});",
           thinking="Prisma supports cursor pagination natively (cursor + skip: 1). Use (addedAt, id) ordering so the "
                    "cursor is stable when two books share a timestamp.")
    s.edit("Using Prisma's cursor pagination, ordered by `(addedAt, id)` so ties are stable:",
           "server/src/routes/books.ts",
           "  const books = await db.book.findMany({\n    where: { ownerId: req.user.id },\n    orderBy: { addedAt: 'desc' },\n"
           "  });\n  res.json(books);",
           "  const limit = Math.min(Number(req.query.limit) || 50, 200);\n  const cursor = req.query.cursor as string | undefined;\n"
           "  const books = await db.book.findMany({\n    where: { ownerId: req.user.id },\n"
           "    orderBy: [{ addedAt: 'desc' }, { id: 'desc' }],\n    take: limit + 1,\n"
           "    ...(cursor && { cursor: { id: cursor }, skip: 1 }),\n  });\n"
           "  const next = books.length > limit ? books[limit - 1].id : null;\n"
           "  res.json({ items: books.slice(0, limit), next });", 12)
    s.edit("And the client now loads pages as you scroll:", "web/src/api/books.ts",
           "export const listBooks = () => get<Book[]>('/api/books');",
           "export const listBooks = (cursor?: string) =>\n"
           "  get<{ items: Book[]; next: string | null }>(`/api/books?limit=50${cursor ? `&cursor=${cursor}` : ''}`);", 4)
    s.assistant("API and client are updated. The Library page uses `useInfiniteQuery` with `getNextPageParam: p => p.next`. "
                "Want me to run the test suite?")
    s.user("I'll run it myself.", dt_s=20)
    s.bash_execution("npm test --workspace server",
                     "> server@1.8.0 test\n> vitest run\n\n ✓ src/routes/auth.test.ts (6 tests) 212ms\n"
                     " ❯ src/routes/books.test.ts (5 tests | 1 failed) 341ms\n   × GET /api/books returns the user's books\n"
                     "     → expected { items: [ …(3) ], next: null } to have length 3\n\n Test Files  1 failed | 4 passed (5)\n"
                     "      Tests  1 failed | 23 passed (24)", 1, dt_s=35)
    s.user("One test still expects the old array shape.", dt_s=8)
    s.edit("Updating it for the `{ items, next }` envelope and adding a test that walks two pages:",
           "server/src/routes/books.test.ts", "    expect(res.body).toHaveLength(3);",
           "    expect(res.body.items).toHaveLength(3);\n    expect(res.body.next).toBeNull();", 27)
    s.step(None, s.call("bash", command="npm test --workspace server 2>&1 | tail -3"),
           " Test Files  5 passed (5)\n      Tests  25 passed (25)\n   Duration  1.92s")
    s.custom_message("ci-status",
                     "CI on branch `books-pagination`: ✓ lint  ✓ server tests  ✗ e2e (library.spec.ts: timeout waiting for "
                     "'[data-testid=book-row]:nth-child(60)')",
                     details={"runId": 11832044107, "branch": "books-pagination", "failed": ["e2e"]})
    s.step("CI's e2e job scrolls to the 60th row, which now needs a second page. The scroll sentinel is probably not "
           "being observed in the headless viewport.",
           s.call("read", path="web/src/pages/Library.tsx", offset=30, limit=20),
           "30  const sentinel = useRef<HTMLDivElement>(null);\n31  useEffect(() => {\n"
           "32    const io = new IntersectionObserver(([e]) => e.isIntersecting && fetchNextPage(), { rootMargin: '0px' });\n"
           "33    if (sentinel.current) io.observe(sentinel.current);\n34    return () => io.disconnect();\n35  }, []);")
    s.edit("The effect has an empty dependency array, so it captures the first `fetchNextPage`, and `rootMargin: 0` "
           "only fires once the sentinel is fully on screen. Fixing both:", "web/src/pages/Library.tsx",
           "{ rootMargin: '0px' });", "{ rootMargin: '600px' });", 32)
    s.edit(None, "web/src/pages/Library.tsx", "  }, []);", "  }, [fetchNextPage]);", 35)
    s.step(None, s.call("bash", command="cd web && npx playwright test library.spec.ts 2>&1 | tail -2", timeout=240),
           "  4 passed (9.8s)")
    s.custom("plan-mode", {"enabled": False, "steps": []})
    s.assistant("All green locally: 25 server tests and 4 e2e. Pages load 50 books at a time and prefetch 600px "
                "before the end of the list. The Library page's first paint drops from ~3s to ~180ms for the 2k-book account.")
    s.name("Books API pagination")
    return s


def shelfie_vite() -> Session:
    s = Session("pi", "shelfie", "2026-11-12T14:47:30.882Z", thinking="medium")
    s.user("Upgrade the web app from Vite 5 to Vite 6 and fix whatever breaks.")
    s.step(None, s.call("bash", command="cd web && npm i -D vite@6 @vitejs/plugin-react@5 && npm run build 2>&1 | tail -12",
                        timeout=300),
           "added 3 packages, changed 9 packages in 6s\n\n> web@1.8.0 build\n> tsc -b && vite build\n\n"
           "vite v6.3.2 building for production...\n✗ Build failed in 812ms\n"
           "error during build:\n[vite:css] [sass] Deprecation: The legacy JS API is deprecated and will be removed in "
           "Dart Sass 2.0.0.\nfile: /home/demo/code/shelfie/web/src/styles/theme.scss\n"
           "Error: `css.preprocessorOptions.scss.api: 'legacy'` is no longer supported\n\nCommand exited with code 1",
           error=True)
    s.step(None, s.call("read", path="web/vite.config.ts"),
           "export default defineConfig({\n  plugins: [react()],\n  css: {\n    preprocessorOptions: {\n"
           "      scss: { api: 'legacy', additionalData: `@import \"@/styles/vars\";` },\n    },\n  },\n});")
    s.edit("Vite 6 only supports the modern Sass API, and `@import` is deprecated there too. Switching to "
           "`@use`:", "web/vite.config.ts",
           "      scss: { api: 'legacy', additionalData: `@import \"@/styles/vars\";` },",
           "      scss: { additionalData: `@use \"@/styles/vars\" as *;` },", 5)
    s.step(None, s.call("bash", command="cd web && npm run build 2>&1 | tail -6"),
           "vite v6.3.2 building for production...\n✓ 412 modules transformed.\n"
           "dist/index.html                   0.61 kB │ gzip:  0.37 kB\ndist/assets/index-Cq3kX0aP.css   18.20 kB │ gzip:  4.11 kB\n"
           "dist/assets/index-B7d1yNfe.js   241.87 kB │ gzip: 78.02 kB\n✓ built in 3.18s")
    s.user("Build works. Let me switch models and have Codex double-check the dev server config, it always finds "
           "something.")
    s.model_change("openai", "gpt-5-codex")
    s.step(None, s.call("bash", command="cd web && timeout 20 npx vite --port 5173 --strictPort 2>&1 | head -8"),
           "\n  VITE v6.3.2  ready in 402 ms\n\n  ➜  Local:   http://localhost:5173/\n  ➜  Network: use --host to expose\n"
           "11:48:02 PM [vite] (client) warning: `server.proxy['/api'].ws` is set but the target does not speak "
           "WebSocket; requests may hang",
           thinking="The dev server starts but warns about the proxy. Look at server.proxy.")
    s.edit("The `/api` proxy has `ws: true`, but the Express API has no WebSocket endpoint; only `/api/live` does. "
           "Scoping it:", "web/vite.config.ts",
           "  server: {\n    proxy: { '/api': { target: 'http://localhost:3001', ws: true } },\n  },",
           "  server: {\n    proxy: {\n      '/api/live': { target: 'ws://localhost:3001', ws: true },\n"
           "      '/api': { target: 'http://localhost:3001' },\n    },\n  },", 10)
    s.assistant("Vite 6 build and dev server are both clean now:\n\n1. Sass: dropped `api: 'legacy'`, `@import` → `@use … as *`.\n"
                "2. Dev proxy: WebSocket forwarding limited to `/api/live`.\n\nBundle size is unchanged (78 kB gzip).")
    return s


def shelfie_useeffect() -> Session:
    s = Session("pi", "shelfie", "2026-11-29T21:14:02.640Z", model=("anthropic", "claude-haiku-4-5"), thinking="off")
    s.user("Quick question: React keeps warning `React Hook useEffect has a missing dependency: 'loadShelf'` in "
           "Shelf.tsx. Is it safe to just add it?")
    s.step(None, s.call("read", path="web/src/pages/Shelf.tsx", offset=12, limit=14),
           "12  const loadShelf = async () => {\n13    setShelf(await getShelf(id));\n14  };\n15\n"
           "16  useEffect(() => {\n17    loadShelf();\n18  }, [id]);")
    s.assistant("Not as-is: `loadShelf` is recreated on every render, so adding it to the deps would re-run the "
                "effect on **every** render (and refetch in a loop, since it sets state).\n\nMove the function into the "
                "effect instead, so the only real dependency is `id`:\n\n```tsx\nuseEffect(() => {\n"
                "  let cancelled = false;\n  getShelf(id).then(s => { if (!cancelled) setShelf(s); });\n"
                "  return () => { cancelled = true; };\n}, [id]);\n```\n\nThe `cancelled` flag also fixes a race when "
                "you switch shelves quickly.")
    s.user("Makes sense, thanks!")
    s.assistant("👍")
    return s


# =============================================================================================
# pi: tidewater — a Python data pipeline that pulls NOAA tide readings into Parquet / DuckDB
# =============================================================================================

def tidewater_backfill() -> Session:
    s = Session("pi", "tidewater", "2026-10-27T07:55:18.230Z", thinking="medium")
    s.user("We need a backfill job: fetch 6-minute water levels for every station in stations.csv from "
           "2019-01-01 to 2024-12-31 and write them to data/raw/water_level/station=<id>/year=<yyyy>/part.parquet. "
           "The NOAA API only allows 31 days per request.")
    s.step(None, s.call("bash", command="head -5 stations.csv && wc -l stations.csv && ls tidewater/"),
           "station_id,name,state,lat,lon\n8443970,Boston,MA,42.3539,-71.0503\n8518750,The Battery,NY,40.7006,-74.0142\n"
           "8545240,Philadelphia,PA,39.9333,-75.1417\n8574680,Baltimore,MD,39.2667,-76.5783\n212 stations.csv\n"
           "__init__.py\nclient.py\nschema.py\nload.py")
    s.step(None, s.call("read", path="tidewater/client.py"),
           "import httpx\n\nBASE = \"https://api.tidesandcurrents.noaa.gov/api/prod/datagetter\"\n\n"
           "def water_level(station: str, begin: str, end: str) -> list[dict]:\n"
           "    r = httpx.get(BASE, params={\"product\": \"water_level\", \"station\": station, \"begin_date\": begin,\n"
           "        \"end_date\": end, \"datum\": \"MLLW\", \"units\": \"metric\", \"time_zone\": \"gmt\", \"format\": \"json\"},\n"
           "        timeout=30)\n    r.raise_for_status()\n    return r.json().get(\"data\", [])\n",
           thinking="211 stations × 6 years × 12 months = ~15k requests. Need concurrency with a limit, retries, "
                    "and resumability (skip partitions that already exist).")
    s.step("211 stations × 72 monthly windows ≈ 15,200 requests, so the job has to be resumable and polite. Writing "
           "`tidewater/backfill.py`:", s.call("write", path="tidewater/backfill.py", content=(
               "\"\"\"Backfill 6-minute water levels into partitioned Parquet.\"\"\"\nfrom __future__ import annotations\n\n"
               "import asyncio\nimport datetime as dt\nfrom pathlib import Path\n\nimport httpx\nimport polars as pl\n"
               "from tenacity import retry, stop_after_attempt, wait_exponential_jitter\n\nfrom .schema import WATER_LEVEL\n\n"
               "OUT = Path(\"data/raw/water_level\")\nSEM = asyncio.Semaphore(8)\n\n\n"
               "def windows(year: int):\n    d = dt.date(year, 1, 1)\n    while d.year == year:\n"
               "        end = min(d + dt.timedelta(days=30), dt.date(year, 12, 31))\n        yield d, end\n"
               "        d = end + dt.timedelta(days=1)\n\n\n@retry(stop=stop_after_attempt(5), wait=wait_exponential_jitter(1, 30))\n"
               "async def fetch(client: httpx.AsyncClient, station: str, begin: dt.date, end: dt.date) -> list[dict]:\n"
               "    async with SEM:\n        r = await client.get(\"\", params={...})\n        r.raise_for_status()\n"
               "        return r.json().get(\"data\", [])\n\n\nasync def backfill_year(client, station: str, year: int) -> int:\n"
               "    part = OUT / f\"station={station}\" / f\"year={year}\" / \"part.parquet\"\n    if part.exists():\n"
               "        return 0\n    rows = [r for b, e in windows(year) for r in await fetch(client, station, b, e)]\n"
               "    df = pl.DataFrame(rows, schema=WATER_LEVEL)\n    part.parent.mkdir(parents=True, exist_ok=True)\n"
               "    df.write_parquet(part.with_suffix(\".tmp\"))\n    part.with_suffix(\".tmp\").rename(part)\n    return df.height\n")),
           "Successfully wrote 1694 bytes to tidewater/backfill.py")
    s.step("Dry run on two stations for one year first:",
           s.call("bash", command="python -m tidewater.backfill --stations 8443970,8518750 --years 2024 --progress",
                  timeout=600),
           "backfill: 2 stations × 1 years = 2 partitions (0 already done)\n"
           "[████████████████████████████████████████] 24/24 requests  00:41\n"
           "station=8443970 year=2024: 87,780 rows\nstation=8518750 year=2024: 87,812 rows\ndone in 41.3s")
    s.assistant("Works: ~87.8k rows per station-year (6-minute cadence ≈ 87,840, so only a few gaps). At 8 parallel "
                "requests the full backfill is ~15.2k requests ≈ 45 min. Partitions are written to a `.tmp` file and "
                "renamed, so an interrupted run can simply be restarted.")
    s.user("Start the full run in the background and log to logs/backfill.log.")
    s.step(None, s.call("bash", command="mkdir -p logs && nohup python -m tidewater.backfill --all > logs/backfill.log 2>&1 & echo $!"),
           "48213")
    s.assistant("Running as PID 48213. `tail -f logs/backfill.log` to follow it.")
    s.name("Backfill 2019–2024 water levels")
    return s


def tidewater_dedupe() -> Session:
    s = Session("pi", "tidewater", "2026-11-04T11:26:40.775Z", thinking="medium")
    s.user("The nightly load into DuckDB died. Here's the end of the log, copied straight from the terminal:\n\n"
           "```\n2026-11-04 03:12:09 INFO  loading station=8443970 rows=87780\n"
           "2026-11-04 03:12:11 \u001b[31mERROR\u001b[0m Constraint Error: duplicate key \"8518750\" violates primary key "
           "constraint in stations\n2026-11-04 03:12:11 \u001b[1;33mWARN\u001b[0m  vendor row: name=\"The Battery "
           "\u202eKROY WEN\u202c\" source=vendor_drop/stations_2026-11.csv\n```\n\n"
           "Also, what's going on with that station name? It looks reversed in my terminal.")
    s.step(None, s.call("bash", command="grep -n '8518750' vendor_drop/stations_2026-11.csv | cat -A | cut -c1-120"),
           "3:8518750,The Battery,NY,40.7006,-74.0142$\n"
           "97:8518750,The Battery M-bM-^@M-.KROY WENM-bM-^@M-,,NY,40.7006,-74.0142$",
           thinking="Two issues: (1) the vendor file now lists 8518750 twice → PK violation; (2) the second row's name "
                    "contains U+202E RIGHT-TO-LEFT OVERRIDE (e2 80 ae = M-bM-^@M-.) and U+202C POP DIRECTIONAL "
                    "FORMATTING, which makes 'KROY WEN' render as 'NEW YORK'. That is a classic bidi spoof.")
    s.assistant("Two separate problems:\n\n1. **Duplicate key**: station `8518750` appears twice in this month's vendor "
                "drop (lines 3 and 97), and `stations.station_id` is the primary key.\n2. **The weird name**: line 97 "
                "contains invisible Unicode *bidi control characters*: `U+202E` (RIGHT-TO-LEFT OVERRIDE) before "
                "`KROY WEN` and `U+202C` (POP DIRECTIONAL FORMATTING) after it. Your terminal renders `KROY WEN` "
                "right-to-left, so it *looks* like `NEW YORK`, but the stored bytes are reversed text with control "
                "characters. Your log also has raw ANSI colour codes (`ESC[31m`) because the logger colours levels "
                "even when writing to a file.\n\nI'd dedupe on `station_id` (keeping the first row) and reject "
                "rows with control / bidi characters instead of loading them silently.")
    s.user("Agreed on both. And make the logger stop writing colour codes to files.")
    s.step(None, s.call("read", path="tidewater/load.py", offset=20, limit=25),
           "20 def load_stations(con: duckdb.DuckDBPyConnection, csv: Path) -> None:\n"
           "21     df = pl.read_csv(csv, schema=STATIONS)\n22     con.execute(\"INSERT INTO stations SELECT * FROM df\")\n")
    s.edit("Adding a validation step before the insert:", "tidewater/load.py",
           "    df = pl.read_csv(csv, schema=STATIONS)\n    con.execute(\"INSERT INTO stations SELECT * FROM df\")",
           "    df = pl.read_csv(csv, schema=STATIONS)\n"
           "    bad = df.filter(pl.col(\"name\").str.contains(r\"[\\p{Cc}\\p{Cf}]\"))\n"
           "    for row in bad.iter_rows(named=True):\n"
           "        log.warning(\"rejecting station %s: control/format characters in name %r\", row[\"station_id\"], row[\"name\"])\n"
           "    df = df.join(bad, on=\"station_id\", how=\"anti\").unique(\"station_id\", keep=\"first\", maintain_order=True)\n"
           "    con.execute(\"INSERT OR REPLACE INTO stations SELECT * FROM df\")", 21)
    s.edit("`%r` logs the name with escapes (`'The Battery \\u202eKROY WEN\\u202c'`) so the warning can't be "
           "spoofed either. Now the logger:", "tidewater/log.py",
           "handler.setFormatter(ColorFormatter(FMT))",
           "handler.setFormatter(ColorFormatter(FMT) if handler.stream.isatty() else logging.Formatter(FMT))", 14)
    s.step(None, s.call("bash", command="python -m pytest -q tests/test_load.py 2>&1 | tail -3 && "
                                        "python -m tidewater.load --only stations vendor_drop/stations_2026-11.csv 2>&1 | tail -2"),
           "......                                                                   [100%]\n6 passed in 0.84s\n"
           "2026-11-04 11:31:52 WARNING rejecting station 8518750: control/format characters in name "
           "'The Battery \\u202eKROY WEN\\u202c'\n2026-11-04 11:31:52 INFO    stations: 210 rows loaded (1 rejected, 1 duplicate dropped)")
    s.assistant("Fixed:\n- Rows whose `name` contains control or format characters (`\\p{Cc}`, `\\p{Cf}`, which "
                "covers ANSI escapes and bidi overrides) are rejected with an escaped warning.\n"
                "- Duplicates are dropped, keeping the first row, and the insert is idempotent (`INSERT OR REPLACE`).\n"
                "- The logger only colours output when writing to a TTY.\n\nI'd also report the bad row to the vendor.")
    s.name("Nightly load: duplicate station + bidi spoof")
    return s


def tidewater_resume_fork(parent: Session) -> Session:
    # /fork from the first user message: a fresh session that only records its parent.
    s = Session("pi", "tidewater", "2026-11-18T16:03:27.019Z", thinking="medium", parent=parent)
    s.user("The backfill from the other session stopped at 2022 when my laptop went to sleep. Resume it, but "
           "only for the missing partitions, and tell me what's missing first.")
    s.step(None, s.call("bash", command="python - <<'EOF'\nfrom pathlib import Path\nimport csv\n"
                                        "ids=[r['station_id'] for r in csv.DictReader(open('stations.csv'))]\n"
                                        "missing=[(i,y) for i in ids for y in range(2019,2025) if not "
                                        "Path(f'data/raw/water_level/station={i}/year={y}/part.parquet').exists()]\n"
                                        "print(len(missing)); print(sorted({y for _,y in missing}))\nEOF"),
           "498\n[2022, 2023, 2024]")
    s.assistant("498 of 1,266 partitions are missing, all in 2022–2024. The job skips finished partitions, so a "
                "plain restart resumes exactly there.")
    s.user("Go.")
    s.step(None, s.call("bash", command="python -m tidewater.backfill --all --years 2022-2024 --progress 2>&1 | tail -3",
                        timeout=3600),
           "backfill: 211 stations × 3 years = 633 partitions (135 already done)\n"
           "[████████████████████████████████████████] 5976/5976 requests  18:42\ndone in 1122.6s")
    s.assistant("Backfill complete: all 1,266 station-years are on disk (18m 42s for the remaining 498).")
    return s


# =============================================================================================
# pi: dotfiles
# =============================================================================================

def dotfiles_nvim() -> Session:
    s = Session("pi", "dotfiles", "2026-11-30T09:48:51.337Z", thinking="low")
    s.user("Set up rust-analyzer in my neovim config (lazy.nvim + nvim-lspconfig). Use clippy for check-on-save.")
    s.step(None, s.call("read", path="nvim/lua/plugins/lsp.lua"),
           "return {\n  \"neovim/nvim-lspconfig\",\n  config = function()\n    local lsp = require(\"lspconfig\")\n"
           "    lsp.lua_ls.setup({})\n    lsp.pyright.setup({})\n  end,\n}\n")
    s.edit(None, "nvim/lua/plugins/lsp.lua", "    lsp.pyright.setup({})",
           "    lsp.pyright.setup({})\n    lsp.rust_analyzer.setup({\n      settings = {\n        [\"rust-analyzer\"] = {\n"
           "          check = { command = \"clippy\" },\n          cargo = { allFeatures = true },\n        },\n      },\n    })", 6)
    s.step(None, s.call("bash", command="command -v rust-analyzer || rustup component add rust-analyzer"),
           "info: downloading component 'rust-analyzer'\ninfo: installing component 'rust-analyzer'")
    s.assistant("rust-analyzer is installed and configured with `check.command = \"clippy\"`. Restart neovim "
                "and open a Rust file; `:LspInfo` should list `rust_analyzer` as attached.")
    s.thinking_level("off")
    s.user("Works. Also map `<leader>ca` to code actions.")
    s.edit(None, "nvim/lua/config/keymaps.lua", "-- LSP",
           "-- LSP\nvim.keymap.set({ \"n\", \"v\" }, \"<leader>ca\", vim.lsp.buf.code_action, { desc = \"Code action\" })", 22)
    s.assistant("Mapped `<leader>ca` in normal and visual mode.")
    return s


# =============================================================================================
# Atomic sessions
# =============================================================================================

def atomic_ledger_retry() -> Session:
    s = Session("atomic", "ledger-sync", "2026-11-03T09:15:06.402Z", thinking="medium")
    s.user("ledger-sync keeps failing overnight with `429 Too Many Requests` from the bank API and then gives up. "
           "Add proper retry with exponential backoff that honours Retry-After.")
    s.step(None, s.call("bash", command="grep -rn 'http.Client\\|Do(req' --include=*.go internal/ | head"),
           "internal/bank/client.go:41:\tc := &http.Client{Timeout: 20 * time.Second}\n"
           "internal/bank/client.go:88:\tresp, err := c.http.Do(req)",
           thinking="Find the single place requests are sent; wrap it rather than sprinkling retries.")
    s.step(None, s.call("read", path="internal/bank/client.go", offset=80, limit=25),
           "80 func (c *Client) do(ctx context.Context, req *http.Request) (*http.Response, error) {\n"
           "81 \treq = req.WithContext(ctx)\n82 \treq.Header.Set(\"Authorization\", \"Bearer \"+c.token)\n"
           "88 \tresp, err := c.http.Do(req)\n89 \tif err != nil {\n90 \t\treturn nil, err\n91 \t}\n"
           "92 \tif resp.StatusCode >= 400 {\n93 \t\treturn nil, fmt.Errorf(\"bank: %s\", resp.Status)\n94 \t}\n95 \treturn resp, nil\n96 }")
    s.step("Everything goes through `Client.do`, so I'll add the retry loop there. Writing a small backoff helper "
           "first:", s.call("write", path="internal/bank/backoff.go", content=(
               "package bank\n\nimport (\n\t\"math/rand/v2\"\n\t\"net/http\"\n\t\"strconv\"\n\t\"time\"\n)\n\n"
               "// delay returns how long to wait before attempt n (0-based), honouring Retry-After.\n"
               "func delay(n int, resp *http.Response) time.Duration {\n\tif resp != nil {\n"
               "\t\tif s, err := strconv.Atoi(resp.Header.Get(\"Retry-After\")); err == nil && s > 0 {\n"
               "\t\t\treturn time.Duration(s) * time.Second\n\t\t}\n\t}\n"
               "\td := min(time.Duration(1<<n)*500*time.Millisecond, 30*time.Second)\n"
               "\treturn d/2 + rand.N(d/2) // equal jitter\n}\n")), "Wrote internal/bank/backoff.go (412 bytes)")
    s.edit(None, "internal/bank/client.go",
           "\tresp, err := c.http.Do(req)\n\tif err != nil {\n\t\treturn nil, err\n\t}",
           "\tvar resp *http.Response\n\tvar err error\n\tfor attempt := 0; ; attempt++ {\n"
           "\t\tresp, err = c.http.Do(req)\n\t\tif err != nil || !retryable(resp.StatusCode) || attempt == c.maxRetries {\n\t\t\tbreak\n\t\t}\n"
           "\t\tresp.Body.Close()\n\t\tselect {\n\t\tcase <-time.After(delay(attempt, resp)):\n"
           "\t\tcase <-ctx.Done():\n\t\t\treturn nil, ctx.Err()\n\t\t}\n\t}\n\tif err != nil {\n\t\treturn nil, err\n\t}", 88)
    s.step(None, s.call("bash", command="go test ./internal/bank/... 2>&1 | tail -8"),
           "--- FAIL: TestClientRetries429 (0.00s)\n    client_test.go:57: POST body was empty on retry: got \"\", want "
           "\"{\\\"from\\\":\\\"2026-11-01\\\"}\"\nFAIL\nFAIL\tgithub.com/demo/ledger-sync/internal/bank\t0.412s\n\n"
           "Command exited with code 1", error=True)
    first_kept = s.assistant(
        "The retry works, but the POST body is empty on the second attempt: `http.Request.Body` is consumed by the "
        "first `Do`. The fix is `req.GetBody`, which `http.NewRequest` sets for `bytes.Reader`/`strings.Reader` "
        "bodies, to rewind before each retry.",
        thinking="GetBody exists exactly for this (redirects use it). Guard for nil GetBody: then don't retry "
                 "non-idempotent requests with bodies.")
    s.edit(None, "internal/bank/client.go", "\t\tresp.Body.Close()",
           "\t\tresp.Body.Close()\n\t\tif req.Body != nil {\n\t\t\tif req.GetBody == nil {\n\t\t\t\tbreak // cannot replay the body\n"
           "\t\t\t}\n\t\t\tif req.Body, err = req.GetBody(); err != nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n\t\t}", 96)
    s.step(None, s.call("bash", command="go test -race ./... 2>&1 | tail -6"),
           "ok  \tgithub.com/demo/ledger-sync/internal/bank\t1.203s\nok  \tgithub.com/demo/ledger-sync/internal/sync\t0.388s\n"
           "ok  \tgithub.com/demo/ledger-sync/cmd/ledger-sync\t0.051s")
    s.compaction(
        "[User]: ledger-sync keeps failing overnight with `429 Too Many Requests` from the bank API and then gives up. "
        "Add proper retry with exponential backoff that honours Retry-After.\n"
        "[Assistant tool calls]: bash(command=\"grep -rn 'http.Client\\\\|Do(req' --include=*.go internal/ | head\")\n"
        "[Tool result]: internal/bank/client.go:88:\tresp, err := c.http.Do(req)\n(filtered 14 lines)\n"
        "[Assistant]: Everything goes through `Client.do`, so I'll add the retry loop there.\n"
        "[Assistant tool calls]: write(path=\"internal/bank/backoff.go\")\n(filtered 23 lines)\n"
        "[Assistant tool calls]: bash(command=\"go test ./internal/bank/... 2>&1 | tail -8\")\n"
        "[Tool result]: --- FAIL: TestClientRetries429 (0.00s)\n    client_test.go:57: POST body was empty on retry\n"
        "(filtered 2 lines)",
        first_kept, 61_344,
        {"strategy": "verbatim-lines", "promptVersion": 3,
         "parameters": {"compression_ratio": 0.5, "preserve_recent": 4, "query": "retry with backoff on 429"},
         "stats": {"linesBefore": 118, "linesDeleted": 61, "linesKept": 57, "rangeCount": 9, "tokensBefore": 61344,
                   "tokensAfter": 29870, "percentReduction": 51.3},
         "rung": "planned",
         "backupPath": "/home/demo/.atomic/agent/sessions/--home-demo-code-ledger-sync--/"
                       "2026-11-03T09-15-06-402Z_placeholder.jsonl.2026-11-03T09-24-10-000Z.compact.bak"})
    s.user("Also add a metric so we can see how often we're being throttled.", dt_s=90)
    s.edit("Adding a counter labelled by status code, incremented on every retry:", "internal/bank/client.go",
           "\t\tresp.Body.Close()\n", "\t\tretriesTotal.WithLabelValues(strconv.Itoa(resp.StatusCode)).Inc()\n\t\tresp.Body.Close()\n", 95)
    s.step(None, s.call("bash", command="go test -race ./... 2>&1 | tail -3 && go vet ./..."),
           "ok  \tgithub.com/demo/ledger-sync/internal/bank\t1.187s\nok  \tgithub.com/demo/ledger-sync/internal/sync\t0.402s\n"
           "ok  \tgithub.com/demo/ledger-sync/cmd/ledger-sync\t0.049s")
    s.assistant("Done. `bank_client_retries_total{status=\"429\"}` is exported on `/metrics`. Requests now retry up to "
                "5 times (0.5s → 30s with jitter, or `Retry-After` when present), replay POST bodies via "
                "`GetBody`, and stop immediately when the context is cancelled.")
    s.name("Bank API: retry 429 with backoff")
    s.session_summary("Added retry with exponential backoff + Retry-After to the bank client (internal/bank), fixed "
                      "POST body replay via GetBody, and a retries_total metric. All tests pass with -race.")
    return s


def atomic_workflow(stage: str, stage_id: str, start: str) -> Session:
    wf = {"runId": "run-4c9e1a7b", "stageId": stage_id, "stageName": stage}
    s = Session("atomic", "ledger-sync", start, workflow=wf, settings=(stage == "implement"),
                model=("anthropic", "claude-sonnet-4-5"), thinking="high")
    if stage == "plan":
        s.user("[workflow run-4c9e1a7b · stage: plan]\nGoal: make ledger-sync idempotent when a sync run is "
               "restarted halfway. Produce a numbered implementation plan; do not edit files.", dt_s=1)
        s.step(None, s.call("read", path="internal/sync/run.go"),
               "func Run(ctx context.Context, db *sql.DB, bank *bank.Client, since time.Time) error {\n"
               "\ttxs, err := bank.Transactions(ctx, since)\n\t...\n\tfor _, t := range txs {\n"
               "\t\tif _, err := db.ExecContext(ctx, insertTx, t.ID, t.Amount, t.Date); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n"
               "\treturn saveCheckpoint(ctx, db, time.Now())\n}")
        s.step(None, s.call("read", path="internal/sync/checkpoint.go"),
               "func saveCheckpoint(ctx context.Context, db execer, at time.Time) error {\n"
               "\t_, err := db.ExecContext(ctx, `UPDATE sync_state SET checkpoint = $1`, at)\n\treturn err\n}")
        s.assistant("## Plan\n1. Add a unique index on `transactions(bank_id)` (migration 0007).\n"
                    "2. Change `insertTx` to `INSERT … ON CONFLICT (bank_id) DO NOTHING`.\n"
                    "3. Save the checkpoint as the max `t.Date` actually inserted, not `time.Now()`, inside the same DB "
                    "transaction as the inserts.\n4. Test: kill the run after N inserts, restart, assert no duplicates "
                    "and no gaps.",
                    thinking="Restart safety needs two things: inserts must be idempotent and the checkpoint must "
                             "never move past data that wasn't committed.")
        s.custom_message("workflow-handoff", "Stage `plan` finished; output forwarded to stage `implement`.",
                         display=False, details={"runId": "run-4c9e1a7b", "next": "stage-implement"})
    else:
        s.user("[workflow run-4c9e1a7b · stage: implement]\nImplement the plan from the previous stage:\n"
               "1. unique index on transactions(bank_id)\n2. ON CONFLICT DO NOTHING\n"
               "3. checkpoint = max inserted date, same transaction\n4. restart test", dt_s=1)
        s.step(None, s.call("write", path="migrations/0007_transactions_bank_id_unique.sql",
                            content="CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS transactions_bank_id_key\n"
                                    "    ON transactions (bank_id);\n"),
               "Wrote migrations/0007_transactions_bank_id_unique.sql (97 bytes)")
        s.edit(None, "internal/sync/run.go", "INSERT INTO transactions (bank_id, amount, date) VALUES ($1, $2, $3)",
               "INSERT INTO transactions (bank_id, amount, date) VALUES ($1, $2, $3)\n\tON CONFLICT (bank_id) DO NOTHING", 12)
        s.edit(None, "internal/sync/run.go", "\treturn saveCheckpoint(ctx, db, time.Now())",
               "\treturn saveCheckpoint(ctx, tx, maxDate)", 41)
        s.step(None, s.call("bash", command="go test -race -run TestRunRestart -count=3 ./internal/sync/"),
               "ok  \tgithub.com/demo/ledger-sync/internal/sync\t2.911s")
        s.assistant("Implemented all 4 steps. `TestRunRestart` kills the run after 37 of 100 inserts and restarts: "
                    "100 rows, no duplicates, checkpoint = last inserted date (3/3 runs).")
    return s


def atomic_shelfie_reminders() -> Session:
    s = Session("atomic", "shelfie", "2026-11-25T19:40:33.908Z", thinking="low")
    s.user("Add a daily job that e-mails people when a book they lent out is more than 30 days overdue. We already "
           "have `server/src/mail.ts`.")
    s.step(None, s.call("read", path="server/src/mail.ts"),
           "export async function sendMail(to: string, subject: string, html: string) {\n"
           "  await transport.sendMail({ from: 'Shelfie <hello@shelfie.app>', to, subject, html });\n}")
    s.step(None, s.call("bash", command="grep -n 'model Loan' -A 9 server/prisma/schema.prisma"),
           "41:model Loan {\n42-  id         String    @id @default(cuid())\n43-  book       Book      @relation(fields: [bookId], references: [id])\n"
           "44-  bookId     String\n45-  borrower   String\n46-  lentAt     DateTime  @default(now())\n"
           "47-  returnedAt DateTime?\n48-  remindedAt DateTime?\n49-}")
    job = s.step("`Loan.remindedAt` already exists, so the job can avoid nagging more than once a week:",
                 s.call("write", path="server/src/jobs/overdueReminders.ts", content=(
                     "import { db } from '../db';\nimport { sendMail } from '../mail';\n\nconst DAY = 86_400_000;\n\n"
                     "export async function overdueReminders(now = new Date()) {\n  const loans = await db.loan.findMany({\n"
                     "    where: {\n      returnedAt: null,\n      lentAt: { lt: new Date(+now - 30 * DAY) },\n"
                     "      OR: [{ remindedAt: null }, { remindedAt: { lt: new Date(+now - 7 * DAY) } }],\n    },\n"
                     "    include: { book: { include: { owner: true } } },\n  });\n  for (const loan of loans) {\n"
                     "    await sendMail(loan.book.owner.email, `“${loan.book.title}” is overdue`,\n"
                     "      `<p>You lent <b>${loan.book.title}</b> to ${loan.borrower} on ${loan.lentAt.toDateString()}.</p>`);\n"
                     "    await db.loan.update({ where: { id: loan.id }, data: { remindedAt: now } });\n  }\n"
                     "  return loans.length;\n}\n")), "Wrote server/src/jobs/overdueReminders.ts (822 bytes)")
    s.label(job, "job v1")
    s.user("Don't put the borrower name and title into the HTML unescaped, people type anything into those fields.")
    s.edit("Good catch: both are user input. Escaping them:", "server/src/jobs/overdueReminders.ts",
           "      `<p>You lent <b>${loan.book.title}</b> to ${loan.borrower} on ${loan.lentAt.toDateString()}.</p>`);",
           "      `<p>You lent <b>${esc(loan.book.title)}</b> to ${esc(loan.borrower)} on ${loan.lentAt.toDateString()}.</p>`);", 17)
    s.step(None, s.call("bash", command="npm test --workspace server -- overdueReminders 2>&1 | tail -4"),
           " ✓ src/jobs/overdueReminders.test.ts (4 tests) 96ms\n\n Test Files  1 passed (1)\n      Tests  4 passed (4)")
    final = s.assistant("Registered the job in `server/src/cron.ts` at 08:00 UTC daily. Tests cover: not overdue, "
                        "overdue → mailed once, reminded 3 days ago → skipped, HTML-escaped title and borrower.")
    s.label(final, "ready for review")
    s.name("Overdue loan reminders")
    s.session_summary("Daily cron job mails owners about loans >30 days overdue (weekly at most, via Loan.remindedAt); "
                      "user-supplied fields are HTML-escaped; 4 tests.")
    return s


def atomic_tern_review() -> Session:
    s = Session("atomic", "tern", "2026-11-10T12:08:19.644Z", model=("anthropic", "claude-opus-4-1"), thinking="high")
    s.user("Review PR #42 (\"colour output by level\"). `gh pr diff 42` has the changes.")
    s.step(None, s.call("bash", command="gh pr diff 42 | head -40"),
           "diff --git a/src/output.rs b/src/output.rs\nnew file mode 100644\n--- /dev/null\n+++ b/src/output.rs\n"
           "@@ -0,0 +1,24 @@\n+pub fn paint(level: Level, line: &[u8], out: &mut impl Write) -> io::Result<()> {\n"
           "+    let code = match level { Level::Error => \"31\", Level::Warn => \"33\", _ => \"0\" };\n"
           "+    write!(out, \"\\x1b[{code}m\")?;\n+    out.write_all(line)?;\n+    write!(out, \"\\x1b[0m\")\n+}\n"
           "diff --git a/src/reader.rs b/src/reader.rs\n@@ -14,7 +14,7 @@\n-            out.write_all(line)?;\n"
           "+            output::paint(level, line, &mut out)?;")
    review = s.assistant(
        "Review of #42:\n\n1. **Colours are unconditional.** Piping `tern | grep` or into a file will embed "
        "`ESC[31m` sequences. Needs `--color=auto|always|never`, defaulting to auto (TTY check via "
        "`std::io::IsTerminal`), and should respect `NO_COLOR`.\n2. The reset is written *after* the newline, so the "
        "next line starts with `ESC[0m`. Write the reset before the `\\n`.\n3. `Level::Info => \"0\"` still emits two "
        "escape sequences per line; skip painting entirely for uncoloured levels.\n\nI'd request changes for (1); "
        "(2) and (3) are small.",
        thinking="Biggest issue: unconditional ANSI. tern's whole point is being pipeable, and the bytes-exact "
                 "change last month was specifically for ops diffs. Also check reset placement.")
    s.user("Post that as a review requesting changes.")
    s.step(None, s.call("bash", command="gh pr review 42 --request-changes --body-file /tmp/review-42.md"),
           "✓ Requested changes to pull request demo/tern#42")
    s.assistant("Posted.")
    # Second thought: back to the review and try fixing it directly instead (a second child of `review`).
    s.branch(review)
    s.user("Actually, the author is on vacation. Instead of a review, can you push fixes for all three points onto "
           "the PR branch?", dt_s=300)
    s.step(None, s.call("bash", command="gh pr checkout 42 && git log --oneline -2"),
           "Switched to branch 'color-output'\n3be71f0 colour output by level\n9c1e4d2 reader: keep lines as bytes end to end")
    s.edit(None, "src/output.rs",
           "    let code = match level { Level::Error => \"31\", Level::Warn => \"33\", _ => \"0\" };\n"
           "    write!(out, \"\\x1b[{code}m\")?;\n    out.write_all(line)?;\n    write!(out, \"\\x1b[0m\")",
           "    let code = match (enabled, level) {\n        (true, Level::Error) => \"31\",\n        (true, Level::Warn) => \"33\",\n"
           "        _ => return out.write_all(line),\n    };\n    let (body, nl) = line.strip_suffix(b\"\\n\").map_or((line, &b\"\"[..]), |b| (b, b\"\\n\"));\n"
           "    write!(out, \"\\x1b[{code}m\")?;\n    out.write_all(body)?;\n    out.write_all(b\"\\x1b[0m\")?;\n    out.write_all(nl)", 2)
    s.edit("And the flag, with `auto` honouring `NO_COLOR` and `IsTerminal`:", "src/main.rs",
           "    follow: bool,", "    follow: bool,\n    /// When to colour output\n"
           "    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]\n    color: ColorChoice,", 19)
    s.step(None, s.call("bash", command="cargo test -q 2>&1 | tail -2 && git commit -qam 'output: --color flag, reset before newline' && git push -q && echo pushed"),
           "test result: ok. 19 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.04s\npushed")
    s.assistant("Pushed `output: --color flag, reset before newline` to `color-output`: colours are off when piped or "
                "with `NO_COLOR`, the reset comes before the newline, and plain levels are written untouched. "
                "19/19 tests pass.")
    s.name("PR #42 review: colour output")
    return s


# =============================================================================================

def main() -> int:
    for sub in ("pi-agent", "atomic-agent"):
        shutil.rmtree(OUT / sub, ignore_errors=True)

    sessions: list[Session] = []
    sessions.append(tern_since())
    utf8, utf8_done = tern_utf8()
    sessions.append(utf8)
    sessions.append(tern_bench_fork(utf8, utf8_done))
    sessions.append(tern_release())
    sessions.append(shelfie_mobile_login())
    sessions.append(shelfie_pagination())
    sessions.append(shelfie_vite())
    sessions.append(shelfie_useeffect())
    backfill = tidewater_backfill()
    sessions.append(backfill)
    sessions.append(tidewater_dedupe())
    sessions.append(tidewater_resume_fork(backfill))
    sessions.append(dotfiles_nvim())

    ledger = atomic_ledger_retry()
    # The compaction backup path names the session's own file.
    for e in ledger.entries:
        if e["type"] == "compaction":
            e["details"]["backupPath"] = ledger.abs_path() + ".2026-11-03T09-24-10-000Z.compact.bak"
    sessions.append(ledger)
    sessions.append(atomic_workflow("plan", "stage-plan", "2026-11-20T22:00:04.117Z"))
    sessions.append(atomic_workflow("implement", "stage-implement", "2026-11-20T22:03:41.560Z"))
    sessions.append(atomic_shelfie_reminders())
    sessions.append(atomic_tern_review())

    for s in sessions:
        p = s.write()
        print(f"{len(s.entries):3d} entries  {p.stat().st_size:7d} B  {p.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
