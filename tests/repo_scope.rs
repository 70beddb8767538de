//! The repository scope: sessions whose cwd lies in the current folder's git repository,
//! worktrees included, in `grove list --repo` and as the picker's middle scope (Tab). Real
//! repositories: `git init` and `git worktree add` in a temporary folder.

mod common;

#[path = "picker_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use grove::app::state::{Scope, SessionRecord};
use ratatui::crossterm::event::KeyCode;
use serde_json::Value;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .expect("git is installed");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

struct Repo {
    _tmp: tempfile::TempDir,
    main: PathBuf,
    sub: PathBuf,
    worktree: PathBuf,
    other: PathBuf,
}

fn repo() -> Repo {
    let tmp = tempfile::tempdir().expect("tempdir");
    let main = tmp.path().join("app");
    let sub = main.join("crates/core");
    std::fs::create_dir_all(&sub).expect("mkdir");
    git(&main, &["init", "-q", "-b", "main"]);
    git(&main, &["commit", "-q", "--allow-empty", "-m", "first"]);
    git(
        &main,
        &["worktree", "add", "-q", "-b", "fix-ci", "../app-fix"],
    );
    let worktree = tmp.path().join("app-fix");
    let other = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&other).expect("mkdir");
    Repo {
        _tmp: tmp,
        main,
        sub,
        worktree,
        other,
    }
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn sessions_root(r: &Repo, root: &Path) {
    for (id, cwd) in [
        ("11111111-0000-4000-8000-000000000001", &r.main),
        ("22222222-0000-4000-8000-000000000002", &r.sub),
        ("33333333-0000-4000-8000-000000000003", &r.worktree),
        ("44444444-0000-4000-8000-000000000004", &r.other),
    ] {
        let lines = [
            common::header(id, &s(cwd)),
            common::message("a1", None, "user", &format!("work in {id}")),
        ];
        common::write_file(root, &format!("{id}.jsonl"), common::jsonl(&lines));
    }
}

fn listed_ids(sandbox: &Path, root: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["--no-cache", "list"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = common::grove(sandbox, root, &all);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v: Value = serde_json::from_str(&common::stdout(&out)).expect("json");
    let mut ids: Vec<String> = v
        .as_array()
        .expect("array")
        .iter()
        .map(|s| s["id"].as_str().expect("id")[..1].to_owned())
        .collect();
    ids.sort();
    ids
}

#[test]
fn list_repo_finds_every_worktree_of_the_repository() {
    let r = repo();
    let sandbox = tempfile::tempdir().expect("tempdir");
    let root = sandbox.path().join("sessions");
    std::fs::create_dir_all(&root).expect("mkdir");
    sessions_root(&r, &root);
    let main = s(&r.main);
    let wt = s(&r.worktree);
    let other = s(&r.other);
    assert_eq!(
        listed_ids(sandbox.path(), &root, &["--repo", "--cwd", &main]),
        ["1", "2", "3"]
    );
    // From the worktree: the same repository.
    assert_eq!(
        listed_ids(sandbox.path(), &root, &["--repo", "--cwd", &wt]),
        ["1", "2", "3"]
    );
    // This folder only, as before.
    assert_eq!(listed_ids(sandbox.path(), &root, &["--cwd", &main]), ["1"]);
    // A folder outside any repository is an error, not an empty list.
    let out = common::grove(
        sandbox.path(),
        &root,
        &["--no-cache", "list", "--repo", "--cwd", &other],
    );
    assert!(!out.status.success());
    assert!(common::stderr(&out).contains("not in a git repository"));
}

fn record(id: &str, title: &str, cwd: &Path, current: &Path) -> Arc<SessionRecord> {
    let info = support::info(id, title, &s(cwd), support::DAY, 4);
    Arc::new(SessionRecord::new(info, Some(current)))
}

#[test]
fn tab_goes_from_the_folder_to_the_repository_to_all() {
    let r = repo();
    let records = vec![
        record("aaaa0001", "in the main checkout", &r.main, &r.main),
        record("aaaa0002", "in a subfolder", &r.sub, &r.main),
        record("aaaa0003", "on the fix-ci worktree", &r.worktree, &r.main),
        record("aaaa0004", "somewhere else", &r.other, &r.main),
    ];
    let mut h = support::Harness::new(100, 12);
    h.state.picker.current_repo = grove::storage::repo::repo_of(&s(&r.main));
    h.load(records);
    h.take_effects();
    assert_eq!(h.state.picker.scope, Scope::Current);
    assert_eq!(h.titles(), ["in the main checkout"]);
    h.key(KeyCode::Tab);
    assert_eq!(h.state.picker.scope, Scope::Repo);
    let mut titles = h.titles();
    titles.sort();
    assert_eq!(
        titles,
        [
            "in a subfolder",
            "in the main checkout",
            "on the fix-ci worktree"
        ]
    );
    let screen = h.render();
    assert!(screen.contains("◉ Repo"), "{screen}");
    assert!(screen.contains("[fix-ci]"), "{screen}");
    assert!(screen.contains("[main]"), "{screen}");
    h.key(KeyCode::Tab);
    assert_eq!(h.state.picker.scope, Scope::All);
    assert_eq!(h.titles().len(), 4);
    h.key(KeyCode::Tab);
    assert_eq!(h.state.picker.scope, Scope::Current);
    // Outside a repository Tab skips the repository scope.
    h.state.picker.current_repo = None;
    h.key(KeyCode::Tab);
    assert_eq!(h.state.picker.scope, Scope::All);
}
