//! Deterministic benchmark corpus generator: realistic pi and Atomic session files.
//!
//! ```text
//! cargo run --release --example gen_corpus -- --sessions 10000 --seed 1 --out /tmp/corpus
//! cargo run --release --example gen_corpus -- --sessions 0 --big-session 1024 --out /tmp/big
//! cargo run --release --example gen_corpus -- --sessions 0 --linear-session 1000 --out /tmp/long
//! ```
//!
//! Layout (both roots are "agent dirs", like `~/.pi/agent/sessions` and `~/.atomic/agent/sessions`):
//!
//! ```text
//! DIR/pi-agent/sessions/--<cwd with / as ->--/<ISO timestamp>_<uuid v7>.jsonl      (~85 %)
//! DIR/atomic-agent/sessions/--<cwd with / as ->--/<ISO timestamp>_<uuid v7>.jsonl  (~15 %)
//! ```
//!
//! Shape, modelled on the real files in `/work/shared/fixtures`: median ~100 entries and ~200 KB
//! per session, a heavy tail (a few percent of sessions at 2-8 MB), tool outputs up to 50 KB, some
//! base64 images (a few KB to ~100 KB), thinking blocks, branches (with and without
//! `branch_summary`), compactions (pi summaries, Atomic `verbatim-lines`), renames
//! (`session_info`), labels set and cleared, model / thinking changes, `bashExecution`, `custom`
//! and `custom_message` entries, forks (`parentSession` = absolute path of another generated file),
//! Atomic `session_summary` and internal workflow sessions.
//!
//! Output is a pure function of `--seed`, `--sessions`, `--big-session`, `--linear-session` and the absolute path of
//! `--out` (which appears in `parentSession`): a small splitmix64 PRNG, a fixed base time of
//! 2026-01-01T00:00:00Z plus seeded offsets, and one independent PRNG stream per session, so the
//! files can be written in parallel and still come out byte-identical.
#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::error::Error;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Parser;
use rayon::prelude::*;
use serde_json::{Map, Value, json};

type Result<T> = std::result::Result<T, Box<dyn Error + Send + Sync>>;

/// 2026-01-01T00:00:00Z in Unix milliseconds.
const BASE_MS: i64 = 1_767_225_600_000;
const DAY_MS: i64 = 86_400_000;
/// Sessions start within this many days after `BASE_MS` (Jan to end of Nov 2026).
const SPAN_DAYS: i64 = 333;
const MAX_TOOL_OUTPUT: usize = 50_000;

#[derive(Parser, Debug)]
#[command(about = "Write a deterministic corpus of pi / Atomic session files")]
struct Args {
    /// Number of sessions to write (pi and Atomic together)
    #[arg(long, default_value_t = 1000)]
    sessions: usize,
    /// PRNG seed; the same seed gives the same files
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output directory (gets `pi-agent/sessions` and `atomic-agent/sessions`)
    #[arg(long)]
    out: PathBuf,
    /// Also write one extra pi session of roughly this many MiB
    #[arg(long, value_name = "MB")]
    big_session: Option<u64>,
    /// Also write one pi session of roughly this many MiB shaped as pi writes a long-running
    /// one: a single linear branch (no branches, no compactions), thinking with long
    /// signatures, text, bash/read/edit/write calls and results of at most 120 lines
    #[arg(long, value_name = "MB")]
    linear_session: Option<u64>,
    /// Number of project folders (cwds)
    #[arg(long, default_value_t = 40)]
    projects: usize,
}

// =============================================================================================
// PRNG: splitmix64
// =============================================================================================

#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// An independent stream for `(seed, stream)`.
    fn derive(seed: u64, stream: u64) -> Self {
        let mut r = Rng(seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next_u64();
        r
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)`; `n` must be > 0.
    fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `[lo, hi]`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    fn normal(&mut self) -> f64 {
        let u1 = self.unit().max(1e-12);
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Log-normal with the given median and shape.
    fn lognormal(&mut self, median: f64, sigma: f64) -> f64 {
        median * (sigma * self.normal()).exp()
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    fn hex(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n);
        while s.len() < n {
            let v = self.next_u64();
            for i in 0..16 {
                if s.len() == n {
                    break;
                }
                s.push(char::from(
                    b"0123456789abcdef"[((v >> (i * 4)) & 0xF) as usize],
                ));
            }
        }
        s
    }

    fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        (0..n)
            .map(|_| char::from(A[self.below(62) as usize]))
            .collect()
    }

    fn base64(&mut self, n: usize) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut s = String::with_capacity(n);
        while s.len() < n {
            let v = self.next_u64();
            for i in 0..10 {
                if s.len() == n {
                    break;
                }
                s.push(char::from(A[((v >> (i * 6)) & 63) as usize]));
            }
        }
        s
    }

    /// A version-7 UUID whose time field is `ms`.
    fn uuid_v7(&mut self, ms: i64) -> String {
        let r = self.hex(20);
        format!(
            "{:08x}-{:04x}-7{}-{:x}{}-{}",
            (ms >> 16) as u32,
            (ms & 0xFFFF) as u16,
            &r[0..3],
            8 + (self.below(4) as u8),
            &r[3..6],
            &r[6..18]
        )
    }
}

// =============================================================================================
// Time formatting (no clock: everything derives from BASE_MS)
// =============================================================================================

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `2026-03-04T05:06:07.089Z`
fn iso(ms: i64) -> String {
    let (days, rem) = (ms.div_euclid(DAY_MS), ms.rem_euclid(DAY_MS));
    let (y, mo, d) = civil_from_days(days);
    let (h, mi, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
}

// =============================================================================================
// Vocabulary
// =============================================================================================

const PROJECT_WORDS: &[&str] = &[
    "atlas",
    "beacon",
    "cinder",
    "delta",
    "ember",
    "fjord",
    "garnet",
    "harbor",
    "iris",
    "juniper",
    "kestrel",
    "lumen",
    "meridian",
    "nimbus",
    "orchid",
    "pylon",
    "quartz",
    "raven",
    "sable",
    "tundra",
    "umber",
    "vertex",
    "willow",
    "xenon",
    "yarrow",
    "zephyr",
    "api",
    "web",
    "cli",
    "core",
    "infra",
    "ml",
    "pipeline",
    "dashboard",
    "sdk",
    "worker",
    "gateway",
    "docs",
];
const ORGS: &[&str] = &["acme", "initech", "globex", "umbrella", "hooli"];
const LANGS: &[Lang] = &[Lang::Rust, Lang::Ts, Lang::Python, Lang::Go];

#[derive(Clone, Copy, PartialEq)]
enum Lang {
    Rust,
    Ts,
    Python,
    Go,
}

impl Lang {
    fn files(self) -> &'static [&'static str] {
        match self {
            Lang::Rust => &[
                "src/main.rs",
                "src/lib.rs",
                "src/config.rs",
                "src/parser/mod.rs",
                "src/parser/lexer.rs",
                "src/storage/index.rs",
                "src/ui/list.rs",
                "src/error.rs",
                "tests/integration.rs",
                "Cargo.toml",
            ],
            Lang::Ts => &[
                "src/index.ts",
                "src/server.ts",
                "src/routes/users.ts",
                "src/db/schema.ts",
                "src/components/Table.tsx",
                "src/hooks/useSession.ts",
                "src/utils/date.ts",
                "test/routes.test.ts",
                "package.json",
                "vite.config.ts",
            ],
            Lang::Python => &[
                "app/main.py",
                "app/models.py",
                "app/api/routes.py",
                "pipeline/extract.py",
                "pipeline/transform.py",
                "pipeline/load.py",
                "tests/test_transform.py",
                "pyproject.toml",
                "scripts/backfill.py",
                "app/settings.py",
            ],
            Lang::Go => &[
                "cmd/server/main.go",
                "internal/api/handler.go",
                "internal/store/postgres.go",
                "internal/auth/jwt.go",
                "internal/queue/worker.go",
                "pkg/retry/retry.go",
                "go.mod",
                "internal/api/handler_test.go",
                "Makefile",
                "internal/config/config.go",
            ],
        }
    }

    fn test_cmd(self) -> &'static str {
        match self {
            Lang::Rust => "cargo test",
            Lang::Ts => "npm test -- --run",
            Lang::Python => "pytest -q",
            Lang::Go => "go test ./...",
        }
    }

    fn build_cmd(self) -> &'static str {
        match self {
            Lang::Rust => "cargo clippy --all-targets -- -D warnings",
            Lang::Ts => "npx tsc --noEmit",
            Lang::Python => "ruff check . && mypy app",
            Lang::Go => "go vet ./... && staticcheck ./...",
        }
    }

    fn code_lines(self) -> &'static [&'static str] {
        match self {
            Lang::Rust => &[
                "use std::collections::HashMap;",
                "pub fn parse_entry(line: &str) -> Result<Entry, ParseError> {",
                "    let value: serde_json::Value = serde_json::from_str(line)?;",
                "    match value.get(\"type\").and_then(|t| t.as_str()) {",
                "        Some(\"message\") => Ok(Entry::Message(Message::from_value(value)?)),",
                "        _ => Err(ParseError::UnknownType),",
                "    }",
                "}",
                "#[derive(Debug, Clone, PartialEq, Eq)]",
                "pub struct Config {",
                "    pub root: PathBuf,",
                "    pub max_depth: usize,",
                "impl Index {",
                "    pub fn insert(&mut self, key: String, offset: u64) {",
                "        self.entries.entry(key).or_default().push(offset);",
                "    for (i, line) in reader.lines().enumerate() {",
                "        let line = line.with_context(|| format!(\"reading line {}\", i + 1))?;",
                "    Ok(())",
                "#[cfg(test)]",
                "mod tests {",
                "    #[test]",
                "    fn parses_empty_input() {",
                "        assert_eq!(parse(\"\").unwrap(), Vec::new());",
                "    let mut buf = Vec::with_capacity(64 * 1024);",
                "    // TODO: handle the legacy v1 format",
            ],
            Lang::Ts => &[
                "import { readFile } from \"node:fs/promises\";",
                "export async function loadSessions(dir: string): Promise<Session[]> {",
                "  const files = await readdir(dir, { withFileTypes: true });",
                "  return files.filter((f) => f.isFile() && f.name.endsWith(\".jsonl\"));",
                "}",
                "export interface User {",
                "  id: string;",
                "  email: string;",
                "  createdAt: Date;",
                "const router = Router();",
                "router.get(\"/:id\", requireAuth, async (req, res) => {",
                "  const user = await db.user.findUnique({ where: { id: req.params.id } });",
                "  if (!user) return res.status(404).json({ error: \"not found\" });",
                "  res.json(user);",
                "});",
                "  const [state, setState] = useState<Row[]>([]);",
                "  useEffect(() => {",
                "  }, [query]);",
                "describe(\"parseDate\", () => {",
                "  it(\"handles ISO strings\", () => {",
                "    expect(parseDate(\"2026-01-02\")).toEqual(new Date(Date.UTC(2026, 0, 2)));",
                "  // eslint-disable-next-line @typescript-eslint/no-explicit-any",
            ],
            Lang::Python => &[
                "from __future__ import annotations",
                "import polars as pl",
                "def transform(df: pl.DataFrame) -> pl.DataFrame:",
                "    \"\"\"Normalise column names and drop duplicate rows.\"\"\"",
                "    df = df.rename({c: c.strip().lower() for c in df.columns})",
                "    return df.unique(subset=[\"id\"], keep=\"first\")",
                "class Settings(BaseSettings):",
                "    database_url: str = \"postgresql://localhost/app\"",
                "    batch_size: int = 500",
                "@router.get(\"/items/{item_id}\")",
                "async def read_item(item_id: int, db: Session = Depends(get_db)):",
                "    item = db.get(Item, item_id)",
                "    if item is None:",
                "        raise HTTPException(status_code=404)",
                "def test_transform_drops_duplicates():",
                "    assert transform(df).height == 2",
                "    for batch in chunked(rows, settings.batch_size):",
                "        logger.info(\"loaded %d rows\", len(batch))",
            ],
            Lang::Go => &[
                "package api",
                "func (h *Handler) GetUser(w http.ResponseWriter, r *http.Request) {",
                "\tid := chi.URLParam(r, \"id\")",
                "\tuser, err := h.store.User(r.Context(), id)",
                "\tif err != nil {",
                "\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)",
                "\t\treturn",
                "\t}",
                "\tjson.NewEncoder(w).Encode(user)",
                "}",
                "type Worker struct {",
                "\tqueue  <-chan Job",
                "\tlogger *slog.Logger",
                "func TestRetry(t *testing.T) {",
                "\tif got := Backoff(3); got != 4*time.Second {",
                "\t\tt.Fatalf(\"Backoff(3) = %v, want 4s\", got)",
                "\tctx, cancel := context.WithTimeout(ctx, 5*time.Second)",
                "\tdefer cancel()",
            ],
        }
    }
}

const USER_ASKS: &[&str] = &[
    "Can you look into why {test} fails on CI but passes locally?",
    "Add a {flag} option to the CLI and document it in the README.",
    "Refactor {file} so the parsing logic is separate from the I/O.",
    "The {func} function is way too slow on large inputs. Profile it and make it faster.",
    "Write tests for {func}, including the edge cases around empty input.",
    "Please review the changes in {file} and point out anything risky.",
    "Why does {cmd} print a warning about unused imports?",
    "Upgrade the dependencies and fix whatever breaks.",
    "There's a race condition somewhere in {file}, the test is flaky. Find it.",
    "Rename {func} to something clearer and update all call sites.",
    "Implement pagination for the list endpoint, cursor based, 50 items per page.",
    "Explain what {func} does, I didn't write it.",
    "Fix the off-by-one in {func}, the last element is always dropped.",
    "Set up a GitHub Actions workflow that runs {cmd} on every push.",
    "Can you make the error messages in {file} more helpful?",
    "ok, continue",
    "Looks good. Commit it with a sensible message.",
    "No, revert that last change, it broke the build.",
    "Try a different approach: keep the old API but deprecate it.",
    "Great, now run the whole test suite.",
];

const ASSISTANT_SAYS: &[&str] = &[
    "Let me start by reading {file} to see how {func} is structured.",
    "I'll run the tests first to reproduce the failure.",
    "The problem is in {func}: it assumes the input is sorted, but {file} passes it unsorted data.",
    "That fixed the failing test. Running the full suite to make sure nothing else broke.",
    "I've updated {file}. The change is small: {func} now returns early on empty input.",
    "The build is green now. Summary of the changes:\n\n- moved parsing into {func}\n- added tests for the edge cases\n- updated the README",
    "There are two options here. The simpler one is to add a guard in {func}; the cleaner one is to change the type so the invalid state can't be represented.",
    "Found it: the lock is released before the write completes, so two workers can interleave.",
    "I'll check how {func} is used elsewhere before renaming it.",
    "Done. `{cmd}` passes and the warning is gone.",
    "The slow part is the repeated allocation in the inner loop. Reusing one buffer should help a lot.",
    "Let me search the codebase for other call sites.",
    "This needs a migration as well, otherwise existing rows will fail validation.",
];

const THOUGHTS: &[&str] = &[
    "The user wants {func} changed. First I should understand the current behaviour and the callers.",
    "The test output shows an assertion failure, not a panic, so the logic is wrong rather than the setup.",
    "If I change the signature of {func}, every caller in {file} has to change too. Maybe add a wrapper instead.",
    "Timing suggests the hot path is the JSON parsing. Could skip lines that can't match before parsing.",
    "Two approaches: patch the symptom in {file}, or fix the invariant at construction. The second is safer.",
    "The CI runs on a different timezone; the date handling in {func} probably uses local time.",
];

const FUNCS: &[&str] = &[
    "parse_entry",
    "load_config",
    "build_index",
    "render_row",
    "normalize",
    "handleRequest",
    "fetchPage",
    "retry_with_backoff",
    "merge_branches",
    "compute_totals",
    "flush",
    "resolvePath",
];
const FLAGS: &[&str] = &[
    "--json",
    "--since",
    "--dry-run",
    "--verbose",
    "--limit",
    "--no-color",
    "--watch",
];
const MODELS: &[(&str, &str, f64, f64, f64, f64)] = &[
    // provider, model, $/M input, output, cacheRead, cacheWrite
    ("anthropic", "claude-sonnet-4-5", 3.0, 15.0, 0.30, 3.75),
    ("anthropic", "claude-sonnet-4-5", 3.0, 15.0, 0.30, 3.75),
    ("anthropic", "claude-opus-4-1", 15.0, 75.0, 1.50, 18.75),
    ("anthropic", "claude-haiku-4-5", 1.0, 5.0, 0.10, 1.25),
    ("openai", "gpt-5-codex", 1.25, 10.0, 0.125, 0.0),
    ("openai", "gpt-5", 1.25, 10.0, 0.125, 0.0),
    ("google", "gemini-2.5-pro", 1.25, 10.0, 0.31, 0.0),
];
const THINKING_LEVELS: &[&str] = &["off", "minimal", "low", "medium", "high"];
const LABELS: &[&str] = &[
    "checkpoint",
    "good state",
    "before refactor",
    "TODO review",
    "works",
    "v2 approach",
    "bug repro",
];

const LOG_LINES: &[&str] = &[
    "   Compiling {func} v0.{n}.0",
    "warning: unused variable: `entry`",
    "  --> {file}:{n}:9",
    "test {func}::tests::case_{n} ... ok",
    "test {func}::tests::case_{n} ... FAILED",
    "PASS  test/{func}.test.ts ({n} ms)",
    "FAIL  test/{func}.test.ts",
    "    Expected: {n}",
    "    Received: undefined",
    "ok  \tgithub.com/acme/app/internal/{func}\t0.{n}s",
    "--- FAIL: Test{func} (0.00s)",
    "E       AssertionError: assert {n} == 0",
    "tests/test_{func}.py::test_case_{n} PASSED",
    "npm ERR! code ERESOLVE",
    "drwxr-xr-x  5 dev dev 4096 Mar  3 10:12 src",
    "-rw-r--r--  1 dev dev {n} Mar  3 10:12 {file}",
    "{n}a1b2c3 fix: handle empty input in {func}",
    "2026-03-04T10:{n}:00Z INFO request completed status=200 path=/api/items duration_ms={n}",
    "2026-03-04T10:{n}:01Z WARN slow query took {n}ms",
];

// =============================================================================================
// Plan: one cheap sequential pass decides every session's identity, then files are written in
// parallel.
// =============================================================================================

#[derive(Clone, Copy, PartialEq)]
enum Agent {
    Pi,
    Atomic,
}

impl Agent {
    fn dir(self) -> &'static str {
        match self {
            Agent::Pi => "pi-agent",
            Agent::Atomic => "atomic-agent",
        }
    }
}

struct Project {
    cwd: String,
    folder: String,
    lang: Lang,
}

struct Plan {
    agent: Agent,
    project: usize,
    start_ms: i64,
    uuid: String,
    /// Target number of entries.
    entries: usize,
    /// Median tool output size in bytes for this session.
    output_median: f64,
    fork_of: Option<usize>,
    workflow: Option<(String, String, String)>,
    branchy: bool,
    stream: u64,
}

impl Plan {
    fn file_name(&self) -> String {
        format!(
            "{}_{}.jsonl",
            iso(self.start_ms).replace([':', '.'], "-"),
            self.uuid
        )
    }

    fn path(&self, out: &Path, projects: &[Project]) -> PathBuf {
        out.join(self.agent.dir())
            .join("sessions")
            .join(&projects[self.project].folder)
            .join(self.file_name())
    }
}

fn make_projects(rng: &mut Rng, n: usize) -> Vec<Project> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let a = rng.pick(PROJECT_WORDS);
        let b = rng.pick(PROJECT_WORDS);
        let name = if rng.chance(0.5) {
            (*a).to_string()
        } else {
            format!("{a}-{b}")
        };
        let cwd = match rng.below(10) {
            0..=5 => format!("/home/dev/code/{name}"),
            6..=7 => format!("/home/dev/work/{}/{name}", rng.pick(ORGS)),
            8 => format!("/Users/dev/src/{name}"),
            _ => format!("/home/dev/code/{name}/packages/{}", rng.pick(PROJECT_WORDS)),
        };
        if !seen.insert(cwd.clone()) {
            continue;
        }
        let folder = format!("--{}--", cwd.trim_start_matches('/').replace('/', "-"));
        out.push(Project {
            cwd,
            folder,
            lang: *rng.pick(LANGS),
        });
    }
    out
}

fn make_plans(rng: &mut Rng, n: usize, projects: &[Project]) -> Vec<Plan> {
    let mut plans: Vec<Plan> = Vec::with_capacity(n);
    // A few "hot" projects get most sessions, like real usage.
    let weights: Vec<f64> = (0..projects.len())
        .map(|i| 1.0 / (1.0 + i as f64).powf(0.8))
        .collect();
    let total: f64 = weights.iter().sum();
    for i in 0..n {
        let agent = if rng.chance(0.15) {
            Agent::Atomic
        } else {
            Agent::Pi
        };
        let mut x = rng.unit() * total;
        let mut project = 0;
        for (j, w) in weights.iter().enumerate() {
            if x < *w {
                project = j;
                break;
            }
            x -= w;
        }
        let huge = rng.chance(0.03);
        let entries = if huge {
            rng.range(600, 2200) as usize
        } else {
            rng.lognormal(88.0, 0.75).clamp(6.0, 1200.0) as usize
        };
        let output_median = if huge {
            rng.lognormal(2600.0, 0.3)
        } else {
            rng.lognormal(1400.0, 0.5)
        };
        let mut start_ms = BASE_MS + rng.below((SPAN_DAYS * DAY_MS) as u64) as i64;
        let mut fork_of = None;
        if i > 10 && rng.chance(0.04) {
            // Fork an earlier session of the same agent (usually the same project).
            for _ in 0..8 {
                let p = rng.below(i as u64) as usize;
                if plans[p].agent == agent {
                    fork_of = Some(p);
                    break;
                }
            }
        }
        let mut project_final = project;
        if let Some(p) = fork_of {
            start_ms = plans[p].start_ms + rng.range(600_000, 3 * DAY_MS as u64) as i64;
            if rng.chance(0.8) {
                project_final = plans[p].project;
            }
        }
        let workflow = (agent == Agent::Atomic && rng.chance(0.08)).then(|| {
            let stage = rng
                .pick(&["plan", "implement", "review", "test", "docs"])
                .to_string();
            (
                format!("run-{}", rng.hex(8)),
                format!("stage-{stage}"),
                stage,
            )
        });
        let uuid = rng.uuid_v7(start_ms);
        plans.push(Plan {
            agent,
            project: project_final,
            start_ms,
            uuid,
            entries,
            output_median,
            fork_of,
            workflow,
            branchy: rng.chance(0.12),
            stream: i as u64,
        });
    }
    plans
}

// =============================================================================================
// Session writer
// =============================================================================================

/// Counts bytes written through it.
struct Counting<W: Write> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

struct SessionGen<'a, W: Write> {
    rng: Rng,
    out: Counting<W>,
    agent: Agent,
    project: &'a Project,
    ids: HashSet<String>,
    leaf: Option<String>,
    ms: i64,
    count: usize,
    model: usize,
    thinking: &'static str,
    context_tokens: u64,
    output_median: f64,
    /// (user message id, its parent) on any branch, for branching back.
    user_points: Vec<(String, Option<String>)>,
    /// Recent entry ids on the current path (for labels and compaction targets).
    recent: Vec<String>,
    labelled: Vec<String>,
    last_chat_id: Option<String>,
    named: bool,
    /// A long-running linear session (`--linear-session`): tool outputs of at most
    /// [`LINEAR_MAX_LINES`] lines, thinking on most turns, no branches or compactions.
    linear: bool,
}

/// Lines of a tool output at most, in a `--linear-session` (pi's tools cut theirs too).
const LINEAR_MAX_LINES: usize = 120;

impl<'a, W: Write> SessionGen<'a, W> {
    fn new(
        rng: Rng,
        out: W,
        agent: Agent,
        project: &'a Project,
        start_ms: i64,
        output_median: f64,
    ) -> Self {
        SessionGen {
            rng,
            out: Counting {
                inner: out,
                bytes: 0,
            },
            agent,
            project,
            ids: HashSet::new(),
            leaf: None,
            ms: start_ms,
            count: 0,
            model: 0,
            thinking: "medium",
            context_tokens: 4000,
            output_median,
            user_points: Vec::new(),
            recent: Vec::new(),
            labelled: Vec::new(),
            last_chat_id: None,
            named: false,
            linear: false,
        }
    }

    fn line(&mut self, v: &Value) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, v)?;
        self.out.write_all(b"\n")
    }

    fn advance(&mut self, lo_ms: u64, hi_ms: u64) {
        self.ms += self.rng.range(lo_ms, hi_ms) as i64;
    }

    fn new_id(&mut self) -> String {
        loop {
            let id = self.rng.hex(8);
            if self.ids.insert(id.clone()) {
                return id;
            }
        }
    }

    /// Appends an entry: `type, id, parentId, timestamp, <fields>` (or with the payload first
    /// for `custom` / `custom_message`, as pi writes them).
    fn entry(
        &mut self,
        kind: &str,
        fields: Map<String, Value>,
        payload_first: bool,
    ) -> io::Result<String> {
        let id = self.new_id();
        let mut m = Map::new();
        m.insert("type".into(), Value::from(kind));
        let mut fields = Some(fields);
        if payload_first {
            m.extend(fields.take().into_iter().flatten());
        }
        m.insert("id".into(), Value::from(id.clone()));
        m.insert(
            "parentId".into(),
            self.leaf.clone().map_or(Value::Null, Value::from),
        );
        m.insert("timestamp".into(), Value::from(iso(self.ms)));
        m.extend(fields.into_iter().flatten());
        self.line(&Value::Object(m))?;
        self.leaf = Some(id.clone());
        self.count += 1;
        self.recent.push(id.clone());
        if self.recent.len() > 64 {
            self.recent.drain(..32);
        }
        Ok(id)
    }

    fn fields(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    fn message(&mut self, msg: Value) -> io::Result<String> {
        let mut f = Map::new();
        f.insert("message".into(), msg);
        self.entry("message", f, false)
    }

    // ---- text ------------------------------------------------------------------------------

    fn fill(&mut self, template: &str) -> String {
        let mut s = String::with_capacity(template.len() + 32);
        let mut rest = template;
        while let Some(i) = rest.find('{') {
            s.push_str(&rest[..i]);
            let end = rest[i..].find('}').map_or(rest.len(), |e| i + e);
            let key = &rest[i + 1..end.min(rest.len())];
            match key {
                "file" => s.push_str(self.rng.pick::<&str>(self.project.lang.files())),
                "func" => s.push_str(self.rng.pick::<&str>(FUNCS)),
                "flag" => s.push_str(self.rng.pick::<&str>(FLAGS)),
                "cmd" => s.push_str(self.project.lang.test_cmd()),
                "test" => {
                    s.push_str("test_");
                    s.push_str(self.rng.pick::<&str>(FUNCS));
                }
                "n" => s.push_str(&self.rng.range(1, 999).to_string()),
                other => s.push_str(other),
            }
            rest = if end < rest.len() {
                &rest[end + 1..]
            } else {
                ""
            };
        }
        s.push_str(rest);
        s
    }

    fn prose(&mut self, pool: &[&str], sentences: usize) -> String {
        let mut s = String::new();
        for i in 0..sentences {
            if i > 0 {
                s.push_str(if self.rng.chance(0.25) { "\n\n" } else { " " });
            }
            let t = *self.rng.pick(pool);
            s.push_str(&self.fill(t));
        }
        s
    }

    fn code_block(&mut self, lines: usize) -> String {
        let lang = match self.project.lang {
            Lang::Rust => "rust",
            Lang::Ts => "ts",
            Lang::Python => "python",
            Lang::Go => "go",
        };
        let mut s = format!("```{lang}\n");
        for _ in 0..lines {
            s.push_str(self.rng.pick::<&str>(self.project.lang.code_lines()));
            s.push('\n');
        }
        s.push_str("```");
        s
    }

    /// Realistic tool output of about `target` bytes (capped at 50 KB).
    fn output(&mut self, tool: &str, target: usize) -> String {
        let target = target.clamp(16, MAX_TOOL_OUTPUT);
        let max_lines = if self.linear {
            LINEAR_MAX_LINES
        } else {
            usize::MAX
        };
        let mut s = String::with_capacity(target + 128);
        let mut n = self.rng.range(1, 400);
        let mut lines = 0;
        while s.len() < target && lines < max_lines {
            lines += 1;
            match tool {
                "read" => {
                    let l = *self.rng.pick(self.project.lang.code_lines());
                    s.push_str(&format!("{n:>6}\t{l}\n"));
                    n += 1;
                }
                _ => {
                    let t = *self.rng.pick(LOG_LINES);
                    let l = self.fill(t);
                    s.push_str(&l);
                    s.push('\n');
                }
            }
        }
        if s.len() > MAX_TOOL_OUTPUT {
            let mut cut = MAX_TOOL_OUTPUT;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
        }
        s
    }

    fn image_block(&mut self) -> Value {
        let size = self.rng.lognormal(12_000.0, 0.9).clamp(2_000.0, 100_000.0) as usize;
        let mut data = String::from("iVBORw0KGgoAAAANSUhEUgAA");
        data.push_str(&self.rng.base64(size / 4 * 4 - data.len()));
        json!({"type": "image", "data": data, "mimeType": "image/png"})
    }

    // ---- entries ---------------------------------------------------------------------------

    fn model_change(&mut self) -> io::Result<String> {
        let (provider, model, ..) = MODELS[self.model];
        self.entry(
            "model_change",
            Self::fields(json!({"provider": provider, "modelId": model})),
            false,
        )
    }

    fn thinking_change(&mut self) -> io::Result<String> {
        let level = self.thinking;
        self.entry(
            "thinking_level_change",
            Self::fields(json!({"thinkingLevel": level})),
            false,
        )
    }

    fn usage(&mut self, output: u64) -> Value {
        let (provider, _, p_in, p_out, p_cr, p_cw) = MODELS[self.model];
        let cache_read = self.context_tokens * 85 / 100;
        let fresh = self.context_tokens - cache_read;
        let (input, cache_write) = if provider == "anthropic" {
            (self.rng.range(2, 12), fresh)
        } else {
            (fresh, 0)
        };
        let c_in = input as f64 * p_in / 1e6;
        let c_out = output as f64 * p_out / 1e6;
        let c_cr = cache_read as f64 * p_cr / 1e6;
        let c_cw = cache_write as f64 * p_cw / 1e6;
        json!({
            "input": input, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write,
            "totalTokens": input + output + cache_read + cache_write,
            "cost": {"input": c_in, "output": c_out, "cacheRead": c_cr, "cacheWrite": c_cw,
                     "total": c_in + c_out + c_cr + c_cw}
        })
    }

    fn tool_call_id(&mut self) -> String {
        if MODELS[self.model].0 == "anthropic" {
            format!("toolu_01{}", self.rng.alnum(22))
        } else {
            format!("call_{}", self.rng.hex(24))
        }
    }

    fn user(&mut self) -> io::Result<String> {
        self.advance(5_000, 600_000);
        let sentences = self.rng.range(1, 3) as usize;
        let mut text = self.prose(USER_ASKS, sentences);
        if self.rng.chance(0.08) {
            text.push_str("\n\n");
            let lines = self.rng.range(3, 30) as usize;
            let t = self.output("bash", lines * 60);
            text.push_str(&t);
        }
        let content = if self.rng.chance(0.03) {
            let img = self.image_block();
            json!([{"type": "text", "text": text}, img])
        } else {
            Value::from(text)
        };
        self.context_tokens += 60;
        let parent = self.leaf.clone();
        let ms = self.ms;
        let id = self.message(json!({"role": "user", "content": content, "timestamp": ms}))?;
        self.user_points.push((id.clone(), parent));
        self.last_chat_id = Some(id.clone());
        Ok(id)
    }

    fn assistant(&mut self, calls: Vec<Value>, final_turn: bool) -> io::Result<String> {
        self.advance(2_000, 90_000);
        let mut content = Vec::new();
        let thinks = if self.linear {
            self.rng.chance(0.8)
        } else {
            self.thinking != "off" && self.rng.chance(0.5)
        };
        if thinks {
            let n = self.rng.range(1, 4) as usize;
            let thinking = self.prose(THOUGHTS, n);
            let sig_len = if self.linear {
                self.rng.range(400, 2400)
            } else {
                self.rng.range(200, 1200)
            } as usize;
            let sig = self.rng.base64(sig_len);
            content
                .push(json!({"type": "thinking", "thinking": thinking, "thinkingSignature": sig}));
        }
        if final_turn || self.rng.chance(0.6) {
            let n = if final_turn { self.rng.range(2, 6) } else { 1 } as usize;
            let mut text = self.prose(ASSISTANT_SAYS, n);
            if final_turn && self.rng.chance(0.3) {
                let lines = self.rng.range(4, 25) as usize;
                text.push_str("\n\n");
                let block = self.code_block(lines);
                text.push_str(&block);
            }
            content.push(json!({"type": "text", "text": text}));
        }
        let has_calls = !calls.is_empty();
        content.extend(calls);
        let out_tokens = (serde_json::to_string(&content).map_or(0, |s| s.len()) / 4 + 20) as u64;
        self.context_tokens += out_tokens;
        let usage = self.usage(out_tokens);
        let (provider, model, ..) = MODELS[self.model];
        let api = match provider {
            "anthropic" => "anthropic-messages",
            "openai" => "openai-responses",
            _ => "google-generative-ai",
        };
        let stop = if has_calls {
            "toolUse"
        } else if self.rng.chance(0.01) {
            "aborted"
        } else {
            "stop"
        };
        let ms = self.ms;
        let mut msg = json!({
            "role": "assistant", "content": content, "api": api, "provider": provider, "model": model,
            "usage": usage, "stopReason": stop, "timestamp": ms
        });
        if stop == "aborted" {
            msg["errorMessage"] = Value::from("Request was aborted");
        }
        let id = self.message(msg)?;
        self.last_chat_id = Some(id.clone());
        Ok(id)
    }

    fn output_size(&mut self) -> usize {
        self.rng.lognormal(self.output_median, 1.3) as usize
    }

    /// One assistant message with 1-3 tool calls and their results.
    fn tool_step(&mut self) -> io::Result<()> {
        let n = if self.rng.chance(0.8) {
            1
        } else {
            self.rng.range(2, 3) as usize
        };
        let mut calls = Vec::new();
        let mut results = Vec::new();
        for _ in 0..n {
            let id = self.tool_call_id();
            let file = (*self.rng.pick(self.project.lang.files())).to_string();
            let (name, args, text, details) = match self.rng.below(100) {
                0..=34 => {
                    let size = self.output_size();
                    let out = self.output("read", size);
                    ("read", json!({"path": file}), out, None)
                }
                35..=69 => {
                    let cmd = match self.rng.below(4) {
                        0 => self.project.lang.build_cmd().to_string(),
                        1 => format!(
                            "git diff --stat && git log --oneline -{}",
                            self.rng.range(3, 20)
                        ),
                        2 => format!("rg -n '{}' {}", self.rng.pick(FUNCS), file),
                        _ => self.project.lang.test_cmd().to_string(),
                    };
                    let size = self.output_size();
                    let out = self.output("bash", size);
                    ("bash", json!({"command": cmd, "timeout": 120}), out, None)
                }
                70..=89 => {
                    let old_n = self.rng.range(1, 8) as usize;
                    let new_n = self.rng.range(1, 14) as usize;
                    let old = self.code_block(old_n);
                    let new = self.code_block(new_n);
                    let line = self.rng.range(1, 400);
                    let diff = format!(
                        "--- a/{file}\n+++ b/{file}\n@@ -{line},{old_n} +{line},{new_n} @@\n-{old}\n+{new}\n"
                    );
                    let text = format!("Successfully replaced text in {file}.");
                    let details = json!({"diff": diff, "firstChangedLine": line});
                    (
                        "edit",
                        json!({"path": file, "edits": [{"oldText": old, "newText": new}]}),
                        text,
                        Some(details),
                    )
                }
                _ => {
                    let most = if self.linear { LINEAR_MAX_LINES } else { 1200 };
                    let lines = (self.output_size() / 40).clamp(5, most);
                    let content = self.code_block(lines);
                    let text = format!("Successfully wrote {} bytes to {file}", content.len());
                    (
                        "write",
                        json!({"path": file, "content": content}),
                        text,
                        None,
                    )
                }
            };
            let error = self.rng.chance(0.05);
            calls.push(json!({"type": "toolCall", "id": id, "name": name, "arguments": args}));
            results.push((id, name, text, details, error));
        }
        self.assistant(calls, false)?;
        for (id, name, text, details, error) in results {
            self.advance(100, 30_000);
            self.context_tokens += (text.len() / 4) as u64;
            let ms = self.ms;
            let mut msg = json!({
                "role": "toolResult", "toolCallId": id, "toolName": name,
                "content": [{"type": "text", "text": text}], "isError": error, "timestamp": ms
            });
            if let Some(d) = details {
                msg["details"] = d;
            }
            self.message(msg)?;
        }
        Ok(())
    }

    fn bash_execution(&mut self) -> io::Result<String> {
        self.advance(3_000, 120_000);
        let size = self.output_size() / 2;
        let output = self.output("bash", size);
        let cmd = if self.rng.chance(0.5) {
            self.project.lang.test_cmd()
        } else {
            "git status --short"
        };
        let code = if self.rng.chance(0.7) { 0 } else { 1 };
        let exclude = self.rng.chance(0.2);
        let ms = self.ms;
        let mut msg = json!({
            "role": "bashExecution", "command": cmd, "output": output, "exitCode": code,
            "cancelled": false, "truncated": false, "timestamp": ms
        });
        if exclude {
            msg["excludeFromContext"] = Value::from(true);
        }
        self.message(msg)
    }

    fn label(&mut self) -> io::Result<String> {
        self.advance(1_000, 60_000);
        if !self.labelled.is_empty() && self.rng.chance(0.25) {
            // Clear an earlier label (the key is omitted, as JSON.stringify drops `undefined`).
            let i = self.rng.below(self.labelled.len() as u64) as usize;
            let target = self.labelled.swap_remove(i);
            return self.entry("label", Self::fields(json!({"targetId": target})), false);
        }
        let target = self.rng.pick(&self.recent).clone();
        let label = *self.rng.pick(LABELS);
        self.labelled.push(target.clone());
        self.entry(
            "label",
            Self::fields(json!({"targetId": target, "label": label})),
            false,
        )
    }

    fn session_info(&mut self) -> io::Result<String> {
        self.advance(1_000, 30_000);
        let func = *self.rng.pick(FUNCS);
        let name = match self.rng.below(5) {
            0 => format!("Fix {func}"),
            1 => format!("Refactor {}", self.rng.pick(self.project.lang.files())),
            2 => format!("Add {} flag", self.rng.pick(FLAGS)),
            3 => format!("Perf: {func} on large inputs"),
            _ => format!("Investigate flaky test_{func}"),
        };
        self.named = true;
        self.entry("session_info", Self::fields(json!({"name": name})), false)
    }

    fn custom(&mut self) -> io::Result<String> {
        self.advance(100, 5_000);
        let steps = self.rng.range(1, 6);
        let enabled = self.rng.chance(0.5);
        self.entry(
            "custom",
            Self::fields(
                json!({"customType": "plan-mode", "data": {"enabled": enabled, "steps": steps}}),
            ),
            true,
        )
    }

    fn custom_message(&mut self) -> io::Result<String> {
        self.advance(100, 5_000);
        let failed = self.rng.range(0, 3);
        let text = format!(
            "CI: {failed} check(s) failing on main ({})",
            self.project.lang.test_cmd()
        );
        let display = self.rng.chance(0.8);
        self.entry(
            "custom_message",
            Self::fields(json!({"customType": "ci-status", "content": text, "display": display, "details": {"failed": failed}})),
            true,
        )
    }

    fn compaction(&mut self) -> io::Result<String> {
        self.advance(10_000, 60_000);
        let tokens_before = self.context_tokens.max(50_000);
        let keep = self.user_points.last().map(|(id, _)| id.clone());
        let fields = match self.agent {
            Agent::Pi => {
                let n = self.rng.range(3, 8) as usize;
                let summary = format!(
                    "## Goal\n{}\n\n## Progress\n{}\n\n## Next\n{}",
                    self.prose(USER_ASKS, 1),
                    self.prose(ASSISTANT_SAYS, n),
                    self.prose(ASSISTANT_SAYS, 1)
                );
                let files: Vec<&str> = (0..4)
                    .map(|_| *self.rng.pick(self.project.lang.files()))
                    .collect();
                let out_tokens = self.rng.range(600, 3000);
                let usage = self.usage(out_tokens);
                json!({"summary": summary, "firstKeptEntryId": keep, "tokensBefore": tokens_before,
                       "details": {"readFiles": files, "modifiedFiles": &files[..2]}, "usage": usage})
            }
            Agent::Atomic => {
                let mut summary = String::new();
                let turns = self.rng.range(4, 30);
                for _ in 0..turns {
                    match self.rng.below(4) {
                        0 => summary.push_str(&format!("[User]: {}\n", self.prose(USER_ASKS, 1))),
                        1 => summary
                            .push_str(&format!("[Assistant]: {}\n", self.prose(ASSISTANT_SAYS, 1))),
                        2 => summary.push_str(&format!(
                            "[Assistant tool calls]: bash(command=\"{}\")\n",
                            self.project.lang.test_cmd()
                        )),
                        _ => summary
                            .push_str(&format!("(filtered {} lines)\n", self.rng.range(2, 200))),
                    }
                }
                let before = self.rng.range(200, 3000);
                let deleted = before * self.rng.range(30, 70) / 100;
                let after = tokens_before * (before - deleted) / before;
                let pct =
                    ((tokens_before - after) as f64 * 1000.0 / tokens_before as f64).round() / 10.0;
                let keep = if self.rng.chance(0.1) { None } else { keep };
                json!({"summary": summary.trim_end(), "firstKeptEntryId": keep, "tokensBefore": tokens_before,
                       "details": {"strategy": "verbatim-lines", "promptVersion": 3,
                         "parameters": {"compression_ratio": 0.5, "preserve_recent": 2, "query": self.prose(USER_ASKS, 1)},
                         "stats": {"linesBefore": before, "linesDeleted": deleted, "linesKept": before - deleted,
                                   "rangeCount": self.rng.range(1, 80), "tokensBefore": tokens_before,
                                   "tokensAfter": after, "percentReduction": pct},
                         "rung": "planned"}})
            }
        };
        let id = self.entry("compaction", Self::fields(fields), false)?;
        self.context_tokens /= 4;
        Ok(id)
    }

    /// Go back to an earlier user message's parent and start a second branch there.
    fn branch(&mut self) -> io::Result<()> {
        if self.user_points.len() < 2 {
            return Ok(());
        }
        let i = self.rng.below(self.user_points.len() as u64 - 1) as usize;
        let parent = self.user_points[i].1.clone();
        self.leaf = parent.clone();
        if let (Some(p), true) = (parent, self.rng.chance(0.5)) {
            self.advance(5_000, 120_000);
            let summary = format!(
                "The user explored an alternative approach: {}",
                self.prose(ASSISTANT_SAYS, 2)
            );
            let files: Vec<&str> = (0..2)
                .map(|_| *self.rng.pick(self.project.lang.files()))
                .collect();
            self.entry(
                "branch_summary",
                Self::fields(json!({"fromId": p, "summary": summary, "details": {"readFiles": files, "modifiedFiles": []}})),
                false,
            )?;
        }
        Ok(())
    }

    fn session_summary(&mut self) -> io::Result<()> {
        let Some(through) = self.last_chat_id.clone() else {
            return Ok(());
        };
        self.advance(1_000, 20_000);
        let summary = self.prose(ASSISTANT_SAYS, 2);
        let out_tokens = self.rng.range(20, 120);
        let usage = self.usage(out_tokens);
        self.entry(
            "session_summary",
            Self::fields(
                json!({"summary": summary, "summarizedThroughId": through, "usage": usage}),
            ),
            false,
        )?;
        Ok(())
    }

    /// One user turn: a request, some tool steps, a final answer, and occasional extras.
    fn turn(&mut self, branchy: bool) -> io::Result<()> {
        if self.rng.chance(0.03) {
            self.bash_execution()?;
        }
        self.user()?;
        let steps = (self.rng.lognormal(3.0, 0.8) as usize).min(25);
        for _ in 0..steps {
            self.tool_step()?;
        }
        self.assistant(Vec::new(), true)?;
        // extras
        if self.rng.chance(0.04) {
            self.label()?;
        }
        if !self.named && self.rng.chance(0.15) || self.named && self.rng.chance(0.02) {
            self.session_info()?;
        }
        if self.rng.chance(0.015) {
            self.model = self.rng.below(MODELS.len() as u64) as usize;
            self.model_change()?;
        }
        if self.rng.chance(0.015) {
            self.thinking = *self.rng.pick(THINKING_LEVELS);
            self.thinking_change()?;
        }
        if self.rng.chance(0.02) {
            self.custom()?;
        }
        if self.rng.chance(0.02) {
            self.custom_message()?;
        }
        if !self.linear
            && (self.context_tokens > 160_000 || self.count > 40 && self.rng.chance(0.02))
        {
            self.compaction()?;
        }
        if branchy && self.rng.chance(0.2) {
            self.branch()?;
        }
        Ok(())
    }

    /// Header plus the settings entries pi writes first.
    fn start(&mut self, header: Value) -> io::Result<()> {
        self.line(&header)?;
        self.model = self.rng.below(MODELS.len() as u64) as usize;
        self.thinking = *self.rng.pick(THINKING_LEVELS);
        self.ms += 1;
        self.model_change()?;
        self.ms += 1;
        self.thinking_change()?;
        Ok(())
    }

    fn finish(mut self) -> io::Result<u64> {
        self.out.flush()?;
        Ok(self.out.bytes)
    }
}

fn header(plan: &Plan, project: &Project, parent_path: Option<String>) -> Value {
    let mut h = json!({"type": "session", "version": 3, "id": plan.uuid, "timestamp": iso(plan.start_ms), "cwd": project.cwd});
    if let Some(p) = parent_path {
        h["parentSession"] = Value::from(p);
    }
    if let Some((run, stage_id, stage)) = &plan.workflow {
        h["internal"] = Value::from(true);
        h["workflow"] = json!({"runId": run, "stageId": stage_id, "stageName": stage});
    }
    h
}

fn write_session(
    seed: u64,
    plan: &Plan,
    out: &Path,
    projects: &[Project],
    plans: &[Plan],
) -> Result<u64> {
    let project = &projects[plan.project];
    let path = plan.path(out, projects);
    let file = File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let parent_path = plan
        .fork_of
        .map(|p| plans[p].path(out, projects).display().to_string());
    let rng = Rng::derive(seed, plan.stream + 1);
    let mut g = SessionGen::new(
        rng,
        BufWriter::with_capacity(256 * 1024, file),
        plan.agent,
        project,
        plan.start_ms,
        plan.output_median,
    );
    g.start(header(plan, project, parent_path))?;
    while g.count < plan.entries {
        g.turn(plan.branchy)?;
    }
    if plan.agent == Agent::Atomic && g.rng.chance(0.4) {
        g.session_summary()?;
    }
    Ok(g.finish()?)
}

/// One big pi session: bushy (`linear == false`, `--big-session`) or one long linear branch
/// (`--linear-session`).
fn write_big_session(seed: u64, mb: u64, out: &Path, linear: bool) -> Result<(PathBuf, u64)> {
    let project = Project {
        cwd: "/home/dev/code/monorepo".into(),
        folder: "--home-dev-code-monorepo--".into(),
        lang: Lang::Ts,
    };
    let mut rng = Rng::derive(seed, if linear { u64::MAX - 2 } else { u64::MAX });
    let start_ms = BASE_MS + if linear { 331 } else { 330 } * DAY_MS;
    let plan = Plan {
        agent: Agent::Pi,
        project: 0,
        start_ms,
        uuid: rng.uuid_v7(start_ms),
        entries: 0,
        output_median: 4000.0,
        fork_of: None,
        workflow: None,
        branchy: !linear,
        stream: u64::MAX - 1,
    };
    let projects = [project];
    let path = plan.path(out, &projects);
    fs::create_dir_all(path.parent().ok_or("no parent dir")?)?;
    let file = File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    // A long-running session's outputs mostly reach the 120-line cut: about 200k entries
    // per GB, as in the sessions pi users report.
    let output_median = if linear { 12_000.0 } else { 4000.0 };
    let mut g = SessionGen::new(
        rng,
        BufWriter::with_capacity(1 << 20, file),
        Agent::Pi,
        &projects[0],
        start_ms,
        output_median,
    );
    g.linear = linear;
    g.start(header(&plan, &projects[0], None))?;
    let target = mb * 1024 * 1024;
    while g.out.bytes < target {
        g.turn(!linear)?;
    }
    Ok((path, g.finish()?))
}

fn human(bytes: u64) -> String {
    const UNITS: &[&str] = &["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

fn main() -> std::result::Result<(), Box<dyn Error + Send + Sync>> {
    let args = Args::parse();
    let started = Instant::now();
    fs::create_dir_all(&args.out)?;
    let out = fs::canonicalize(&args.out)?;

    let mut rng = Rng::new(args.seed);
    let projects = make_projects(&mut rng, args.projects.max(1));
    let plans = make_plans(&mut rng, args.sessions, &projects);

    let mut dirs: Vec<PathBuf> = plans
        .iter()
        .map(|p| {
            out.join(p.agent.dir())
                .join("sessions")
                .join(&projects[p.project].folder)
        })
        .collect();
    dirs.sort();
    dirs.dedup();
    for d in &dirs {
        fs::create_dir_all(d)?;
    }

    let mut sizes = plans
        .par_iter()
        .map(|p| write_session(args.seed, p, &out, &projects, &plans))
        .collect::<Result<Vec<u64>>>()?;

    let mut files = sizes.len();
    let mut total: u64 = sizes.iter().sum();
    if let Some(mb) = args.big_session {
        let (path, bytes) = write_big_session(args.seed, mb, &out, false)?;
        println!("big session: {} ({})", path.display(), human(bytes));
        files += 1;
        total += bytes;
    }
    if let Some(mb) = args.linear_session {
        let (path, bytes) = write_big_session(args.seed, mb, &out, true)?;
        println!("linear session: {} ({})", path.display(), human(bytes));
        files += 1;
        total += bytes;
    }

    sizes.sort_unstable();
    let pct = |q: f64| {
        sizes
            .get(((sizes.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0)
    };
    let atomic = plans.iter().filter(|p| p.agent == Agent::Atomic).count();
    println!(
        "wrote {files} files ({} pi, {atomic} atomic, {} session folders across both roots) to {}",
        plans.len() - atomic,
        dirs.len(),
        out.display()
    );
    println!(
        "total {} | per session: median {} p90 {} p99 {} max {} | elapsed {:.2?}",
        human(total),
        human(pct(0.5)),
        human(pct(0.9)),
        human(pct(0.99)),
        human(sizes.last().copied().unwrap_or(0)),
        started.elapsed()
    );
    Ok(())
}
