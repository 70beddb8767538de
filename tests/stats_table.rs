//! Plain `grove stats` (the text table): its columns line up by display width, so a project
//! whose name is in CJK (two cells a character) does not push its row's numbers right.

mod common;

use unicode_width::UnicodeWidthStr;

#[test]
fn columns_line_up_with_a_wide_cjk_project_name() {
    let (sandbox, root, folder) = common::session_root();
    let wide = "/home/u/日本語のプロジェクト";
    common::write_file(&folder, "a.jsonl", common::small_session("aaaa", wide));
    common::write_file(
        &folder,
        "b.jsonl",
        common::small_session("bbbb", "/home/u/plain"),
    );
    let long = format!("/home/u/{}", "長".repeat(40));
    common::write_file(&folder, "c.jsonl", common::small_session("cccc", &long));
    let out = common::grove(
        sandbox.path(),
        &root,
        &["--no-cache", "stats", "--by", "project"],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = common::stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "a head, three projects, the total:\n{text}");
    assert!(text.contains(wide), "{text}");
    assert!(
        text.contains("長長…"),
        "a long name is cut with an ellipsis:\n{text}"
    );
    // Every row is as wide as the head: the key column takes 44 cells in each, CJK or not.
    let head = lines[0].width();
    for line in &lines {
        assert_eq!(line.width(), head, "misaligned row {line:?} in\n{text}");
    }
}
