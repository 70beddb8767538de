//! End to end in tmux: the hand-off's pager and editor run on the real terminal and grove
//! comes back. `PAGER` and `EDITOR` are small scripts that save what they were given (and the
//! terminal's mode while they ran) and exit; after each, grove's view is on screen again and
//! takes keys one at a time (raw mode is back). The copy goes by OSC 52 (no display here)
//! into tmux's paste buffer. The session file is never handed to the editor, never changed.
//! Under `CI=true` a missing tmux is a failure, not a skip.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

mod common;
use common::tmux::{Tmux, quote, tmux_available};

fn script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

const ANSWER: &str = "HANDOFF answer: pin the cache key\n\tindented line";
const SESSION_ID: &str = "e2e0ff00-1111-7000-8000-000000000001";

fn write_session(dir: &Path) -> PathBuf {
    let lines = [
        serde_json::json!({"type": "session", "version": 3, "id": SESSION_ID,
            "timestamp": "2026-11-28T09:00:00.000Z", "cwd": "/tmp"}),
        serde_json::json!({"type": "message", "id": "u1", "parentId": null,
            "timestamp": "2026-11-28T09:00:01.000Z",
            "message": {"role": "user", "content": "HANDOFF question about the cache"}}),
        serde_json::json!({"type": "message", "id": "a1", "parentId": "u1",
            "timestamp": "2026-11-28T09:00:02.000Z",
            "message": {"role": "assistant", "provider": "anthropic", "model": "m",
                "content": [{"type": "text", "text": ANSWER}], "stopReason": "stop"}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let path = dir.join("2026-11-28T09-00-00-000Z_e2e0ff00.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn pager_and_editor_hand_the_terminal_over_and_back() {
    if !tmux_available("the hand-off end-to-end test") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let sessions = root.join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let session = write_session(&sessions);
    let session_hash = Sha256::digest(std::fs::read(&session).unwrap());
    for d in ["home", "config", "data", "cache"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    // The pager saves its input and the terminal's mode (cooked while it runs).
    let pager = root.join("pager.sh");
    let pager_out = root.join("pager.out");
    script(
        &pager,
        &format!(
            "cat > {out}.tmp; stty -a < /dev/tty > {out}.stty; mv {out}.tmp {out}",
            out = quote(&pager_out)
        ),
    );
    // The editor saves the file it was given, its name and its permissions.
    let editor = root.join("editor.sh");
    let editor_out = root.join("editor.out");
    script(
        &editor,
        &format!(
            "printf '%s' \"$1\" > {out}.path; stat -c %a \"$1\" > {out}.mode; \
             cp \"$1\" {out}.tmp; mv {out}.tmp {out}",
            out = quote(&editor_out)
        ),
    );
    let env = format!(
        "env -u DISPLAY -u WAYLAND_DISPLAY -u SSH_TTY -u SSH_CONNECTION -u VISUAL \
         HOME={home} XDG_CONFIG_HOME={config} XDG_DATA_HOME={data} XDG_CACHE_HOME={cache} \
         GROVE_CONFIG= PAGER={pager} EDITOR={editor}",
        home = quote(root.join("home")),
        config = quote(root.join("config")),
        data = quote(root.join("data")),
        cache = quote(root.join("cache")),
        pager = quote(&pager),
        editor = quote(&editor),
    );
    let exit_file = root.join("exit");
    let command = format!(
        "cd {root} && {env} TERM=xterm-256color {bin} --session-dir {dir} --all; echo $? > {exit}",
        root = quote(root),
        bin = quote(Path::new(env!("CARGO_BIN_EXE_grove"))),
        dir = quote(&sessions),
        exit = quote(&exit_file),
    );
    let tmux = Tmux::start("e2e-handoff", 120, 35, &command);
    // OSC 52 from the application goes into tmux's paste buffers.
    tmux.cmd(&["set-option", "-s", "set-clipboard", "on"]);
    tmux.wait_for("HANDOFF question");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Transcript");
    tmux.wait_for("pin the cache key");

    // o: the selected entry (the answer, the leaf) in the pager.
    tmux.keys(&["o"]);
    tmux.wait_until("the pager to save its input", || pager_out.exists());
    assert_eq!(read(&pager_out), ANSWER);
    let stty = read(&pager_out.with_extension("out.stty"));
    assert!(
        stty.contains(" icanon") && stty.contains(" echo"),
        "the pager ran in raw mode: {stty}"
    );
    let back = tmux.wait_for("Showed the entry in");
    assert!(back.contains("Transcript"), "{back}");
    // Raw mode is back: one key, no Enter, opens the help.
    tmux.keys(&["?"]);
    tmux.wait_for("Session view keys");
    tmux.keys(&["Escape"]);
    tmux.wait_until("the help to close", || {
        !tmux.screen().contains("Session view keys")
    });

    // O: the branch's transcript.
    std::fs::remove_file(&pager_out).unwrap();
    tmux.keys(&["O"]);
    tmux.wait_until("the pager to save the branch", || pager_out.exists());
    let branch = read(&pager_out);
    assert!(branch.contains("## User\n\nHANDOFF question"), "{branch}");
    assert!(branch.contains("pin the cache key"), "{branch}");
    tmux.wait_for("Showed the branch in");

    // y e: a read-only copy of the entry in the editor, never the session file.
    tmux.keys(&["y"]);
    tmux.wait_for("Copy or open");
    tmux.keys(&["e"]);
    tmux.wait_until("the editor to save its file", || editor_out.exists());
    assert_eq!(read(&editor_out), ANSWER);
    let given = PathBuf::from(read(&editor_out.with_extension("out.path")));
    assert_ne!(given, session);
    assert!(!given.starts_with(&sessions), "{}", given.display());
    let mode = read(&editor_out.with_extension("out.mode"));
    assert_eq!(
        mode.trim(),
        "400",
        "the copy is read only, for its owner only"
    );
    tmux.wait_for("Showed a copy of the entry in");
    tmux.wait_until("the copy to be deleted", || !given.exists());
    tmux.keys(&["?"]);
    tmux.wait_for("Session view keys");
    tmux.keys(&["Escape"]);

    // y i: the session id by OSC 52, into tmux's buffer.
    tmux.keys(&["y"]);
    tmux.wait_for("Copy or open");
    tmux.keys(&["i"]);
    tmux.wait_for("Copied the session id (OSC 52");
    let buffer = tmux.cmd(&["show-buffer"]);
    assert_eq!(String::from_utf8_lossy(&buffer.stdout), SESSION_ID);

    tmux.keys(&["C-c"]);
    tmux.wait_until("grove to exit", || exit_file.exists());
    assert_eq!(read(&exit_file).trim(), "0");
    assert_eq!(
        Sha256::digest(std::fs::read(&session).unwrap()),
        session_hash,
        "the session file changed"
    );
}
