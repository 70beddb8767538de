//! End to end, issue 13 "nothing deleted is out of reach": a session (with an Atomic `.bak`
//! beside it) deleted by `grove rm` in one run is listed by the browser's trash view (alt+t)
//! of another, restored byte for byte with its backup after the confirmation, and listed by the
//! picker again. The real binary in tmux, HOME and the XDG folders (the trash) in a temp dir.
//! Under `CI=true` a missing tmux fails the test.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::tmux::{Tmux, quote, sandbox_env, tmux_available};

const PR_FILE: &str = "atomic-agent/sessions/--home-demo-code-tern--/2026-11-10T12-08-19-644Z_01a1c55b-f1bc-7b0a-b4b2-2704dd7911f1.jsonl";

#[test]
fn the_trash_view_restores_a_session_deleted_by_another_run() {
    if !tmux_available("the trash-view end-to-end test") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let sessions = root.join("sessions");
    grove::storage::demo::copy_dir(&grove::storage::demo::demo_source(), &sessions).unwrap();
    let shell_env = sandbox_env(root);
    let pr = sessions.join(PR_FILE);
    let bak = pr.with_file_name(format!(
        "{}.1700000000.bak",
        pr.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&bak, b"atomic backup bytes").unwrap();
    let before = std::fs::read(&pr).unwrap();
    let pi = sessions.join("pi-agent/sessions");
    let atomic = sessions.join("atomic-agent/sessions");
    let env = |c: &mut Command| {
        c.env("HOME", root.join("home"))
            .env("XDG_CONFIG_HOME", root.join("config"))
            .env("XDG_DATA_HOME", root.join("data"))
            .env("XDG_CACHE_HOME", root.join("cache"))
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("ATOMIC_CODING_AGENT_DIR");
    };
    // Another run deletes it.
    let mut rm = Command::new(env!("CARGO_BIN_EXE_grove"));
    env(&mut rm);
    let out = rm
        .arg("--session-dir")
        .arg(&pi)
        .arg("--session-dir")
        .arg(&atomic)
        .args(["rm", "--yes"])
        .arg(&pr)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!pr.exists() && !bak.exists());

    let command = format!(
        "cd {root} && {env} {bin} --session-dir {pi} --session-dir {atomic} --all",
        root = quote(root),
        env = shell_env,
        bin = quote(Path::new(env!("CARGO_BIN_EXE_grove"))),
        pi = quote(&pi),
        atomic = quote(&atomic),
    );
    let tmux = Tmux::start("e2e-trash", 120, 35, &command)
        .with_key_delay(Duration::from_millis(200))
        .with_timeout(Duration::from_secs(60));
    tmux.wait_for("tern: --since flag");
    let listed = tmux.screen();
    assert!(!listed.contains("PR #42 review"), "{listed}");
    tmux.keys(&["M-t"]);
    let screen = tmux.wait_for("Trash · 1 session file");
    assert!(screen.contains("+1 backup"), "{screen}");
    assert!(screen.contains("--home-demo-code-tern--"), "{screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Restore from the trash");
    // Nothing is restored before the confirmation.
    assert!(!pr.exists());
    tmux.keys(&["y"]);
    tmux.wait_for("Restored");
    assert_eq!(
        std::fs::read(&pr).unwrap(),
        before,
        "restored byte for byte"
    );
    assert_eq!(std::fs::read(&bak).unwrap(), b"atomic backup bytes");
    tmux.wait_for("No session files in the trash");
    tmux.keys(&["Escape"]);
    tmux.wait_for("PR #42 review");
    tmux.keys(&["C-c"]);
}
