//! Single lines of tens of MB: bounded memory and a clear message.

use super::*;

fn huge_line_session(dir: &Path, mb: usize) -> PathBuf {
    let path = dir.join("huge.jsonl");
    let mut f = std::io::BufWriter::new(fs::File::create(&path).unwrap());
    use std::io::Write;
    writeln!(f, "{}", header("huge", "/w")).unwrap();
    write!(
        f,
        "{{\"type\":\"message\",\"id\":\"hhhhhhhh\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\""
    )
    .unwrap();
    let chunk = "0123456789abcdef".repeat(64 * 1024); // 1 MiB
    for _ in 0..mb {
        f.write_all(chunk.as_bytes()).unwrap();
    }
    writeln!(f, "\"}}}}").unwrap();
    writeln!(f, "{}", entry("after000", Some("hhhhhhhh"))).unwrap();
    f.flush().unwrap();
    path
}

/// Peak resident memory of a child in KiB, via GNU time, when available.
fn peak_rss_kib(cmd: Command) -> Option<(Output, u64)> {
    if !Path::new("/usr/bin/time").exists() {
        return None;
    }
    let prog = cmd.get_program().to_owned();
    let args: Vec<_> = cmd.get_args().map(|a| a.to_owned()).collect();
    let mut t = Command::new("/usr/bin/time");
    t.arg("-f").arg("GROVE_PEAK_RSS=%M").arg(prog).args(args);
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => t.env(k, v),
            None => t.env_remove(k),
        };
    }
    let out = output_within(t, 300, "huge line");
    let text = stderr(&out);
    let kib = text
        .lines()
        .find_map(|l| l.strip_prefix("GROVE_PEAK_RSS="))?
        .trim()
        .parse()
        .ok()?;
    Some((out, kib))
}

fn huge_line(mb: usize) {
    let (dir, root, folder) = session_root();
    let path = huge_line_session(&folder, mb);
    write_file(&folder, "good.jsonl", small_session("good-neighbour", "/w"));
    let s = load_session(&path).unwrap();
    assert_eq!(s.entries().len(), 2);
    drop(s);
    let info = scan_info(&path, None).unwrap();
    assert_eq!(info.message_count, 2);
    let c = Case {
        dir,
        root,
        path: path.clone(),
    };
    for args in [
        vec!["show", path.to_str().unwrap()],
        vec!["context", path.to_str().unwrap()],
    ] {
        let out = cli(&c, &args);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(out.stdout.len() < 64 * 1024, "printed the whole line");
    }
    neighbour_still_lists(&c);
    let mut cmd = grove_cmd(c.dir.path());
    cmd.arg("--session-dir")
        .arg(&c.root)
        .args(["context", path.to_str().unwrap()]);
    if let Some((out, kib)) = peak_rss_kib(cmd) {
        assert!(out.status.success(), "{}", stderr(&out));
        let mib = kib / 1024;
        eprintln!("peak RSS for `context` on a {mb} MiB line: {mib} MiB");
        // The line is held a few times (bytes, parsed string, context copy); never unbounded.
        assert!(mib < (mb as u64) * 6 + 64, "{mib} MiB for a {mb} MiB line");
    }
}

#[test]
fn single_20mb_line() {
    huge_line(20);
}

/// Nearly the 64 MiB line cap (`tests/bounded_lines.rs` covers lines past it); slow in debug
/// builds, run with `cargo test -- --ignored`.
#[test]
#[ignore]
fn single_60mb_line() {
    huge_line(60);
}
