//! Helpers of the index tests: a deterministic generator, a folder as a pi root, listings
//! through an index, the entry lines they write, and `grove` run against a corpus.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::SystemTime;

use grove::model::context::Dialect;
use grove::storage::index::{Index, ListOptions, ListStats};
use grove::storage::roots::SessionRoot;
use grove::storage::scan::Listing;

/// splitmix64: a tiny deterministic generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// A word for a JSON string body: plain, accented, wide, emoji, or an escape.
    pub fn word(&mut self) -> &'static str {
        const WORDS: &[&str] = &[
            "parser",
            "cache",
            "tree",
            "render",
            "fix",
            "bug",
            "index",
            "naïve",
            "résumé",
            "日本",
            "emoji😀",
            "quote\\\"",
            "tab\\t",
            "line\\n",
        ];
        WORDS[self.below(WORDS.len() as u64) as usize]
    }

    /// One to `words` words joined by spaces.
    pub fn text(&mut self, words: u64) -> String {
        let n = 1 + self.below(words);
        (0..n).map(|_| self.word()).collect::<Vec<_>>().join(" ")
    }
}

/// `dir` as the one root, of pi sessions.
pub fn roots(dir: &Path) -> Vec<SessionRoot> {
    vec![SessionRoot {
        path: dir.to_path_buf(),
        agent: Some(Dialect::Pi),
    }]
}

/// Lists `dir` through `index`, with text, and its stats.
pub fn list_with(index: &mut Index, dir: &Path) -> (Listing, ListStats) {
    let listing = index.list(&roots(dir), ListOptions { with_text: true }, |_| {});
    (listing, index.stats().clone())
}

/// Lists `dir` through the index in `cache`, opened for this listing.
pub fn list(cache: &Path, dir: &Path) -> (Listing, ListStats) {
    list_with(&mut Index::open_at(cache), dir)
}

#[track_caller]
pub fn assert_same(what: &str, a: &Listing, b: &Listing) {
    assert_eq!(a.sessions.len(), b.sessions.len(), "{what}: session count");
    for (x, y) in a.sessions.iter().zip(&b.sessions) {
        assert_eq!(x, y, "{what}: {}", x.path.display());
    }
    assert_eq!(a.problems, b.problems, "{what}: problems");
}

/// A session header line (no newline).
pub fn header(id: &str) -> String {
    format!(
        r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2025-01-02T03:04:05.000Z","cwd":"/w"}}"#
    )
}

/// A message line with text and usage (no newline).
pub fn message(id: &str, parent: Option<&str>, role: &str, text: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-01-02T03:05:00.000Z","message":{{"role":"{role}","content":[{{"type":"text","text":"{text}"}}],"usage":{{"totalTokens":10,"cost":{{"total":0.01}}}}}}}}"#
    )
}

/// Runs `grove args` with the agents' folders under `home` and its cache in `home/cache`;
/// asserts it succeeded and returns its standard output.
pub fn grove_at(home: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_grove"))
        .args(args)
        .env("PI_CODING_AGENT_DIR", home.join("pi-agent"))
        .env("ATOMIC_CODING_AGENT_DIR", home.join("atomic-agent"))
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env_remove("ATOMIC_CODING_AGENT_SESSION_DIR")
        .env("XDG_CACHE_HOME", home.join("cache"))
        .output()
        .expect("run grove");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Appends `bytes` to the file at `path`.
pub fn append(path: &Path, bytes: &[u8]) {
    fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

/// Sets the file's modification time.
pub fn set_mtime(path: &Path, t: SystemTime) {
    fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}
