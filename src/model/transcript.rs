//! Atomic's transcript grammar, used to flatten the kept tail of a verbatim compaction into the
//! boundary message (`[User]: …`, `[Assistant]: …`, `[Assistant tool calls]: name(k=v)`, …).
//!
//! Atomic (commit 6031a92) builds the boundary from the kept entries' context messages in three
//! steps, reproduced here: convert them to provider messages as the agent would send them
//! (custom, bash and branch-summary messages become user turns; hidden and empty ones drop
//! out), repair tool-call pairing (a tool result whose call was compacted away drops out; a tool
//! call left unanswered before the next user turn gets an "interrupted" result), then serialize
//! the sections in "retained" mode: every payload kept, images as separate blocks in place.

use serde_json::{Value, json};

/// The prefix Atomic puts before a verbatim compaction's transcript.
pub const VERBATIM_COMPACTION_PREFIX: &str = "The earlier conversation was compacted. Below is the verbatim transcript of the retained lines; elided spans are marked \"(filtered N lines)\".\n\n";

const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";
const INTERRUPTED_TOOL_RESULT: &str = "Tool execution was interrupted after it started; its result is unavailable. Inspect side effects before deciding whether to retry it.";

/// Content blocks of an Atomic boundary message: prefix and summary, then (after `\n\n` when
/// both are non-empty) the kept messages as a transcript; image blocks of kept messages stay in
/// place between text blocks.
pub fn boundary_content(summary: &str, kept: &[Value]) -> Vec<Value> {
    let tail = serialize_retained(&repair_tool_pairing(to_provider_messages(kept)));
    let mut first = format!("{VERBATIM_COMPACTION_PREFIX}{summary}");
    if !tail.is_empty() && !summary.is_empty() {
        first.push_str("\n\n");
    }
    let mut out = vec![json!({"type": "text", "text": first})];
    for block in tail {
        match (block, out.last_mut()) {
            (Chunk::Text(t), Some(Value::Object(last)))
                if last.get("type").and_then(Value::as_str) == Some("text") =>
            {
                let joined = format!(
                    "{}{t}",
                    last.get("text").and_then(Value::as_str).unwrap_or("")
                );
                last.insert("text".into(), Value::String(joined));
            }
            (Chunk::Text(t), _) => out.push(json!({"type": "text", "text": t})),
            (Chunk::Image(img), _) => out.push(img),
        }
    }
    out
}

/// JavaScript's `String.prototype.trim` also strips U+FEFF, which Rust's `trim` keeps.
fn js_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or("")
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Whether a user-like content block reaches the model: images, non-blank text, and any other
/// typed block.
fn block_is_visible(b: &Value) -> bool {
    match b.get("type").and_then(Value::as_str) {
        Some("image") => true,
        Some("text") => b
            .get("text")
            .and_then(Value::as_str)
            .is_some_and(|t| !js_trim(t).is_empty()),
        Some(t) => !js_trim(t).is_empty(),
        None => false,
    }
}

fn content_is_visible(content: Option<&Value>) -> bool {
    match content {
        Some(Value::String(s)) => !js_trim(s).is_empty(),
        Some(Value::Array(blocks)) => blocks.iter().any(block_is_visible),
        _ => false,
    }
}

fn visible_blocks(content: Option<&Value>) -> Value {
    match content {
        Some(Value::Array(blocks)) => Value::Array(
            blocks
                .iter()
                .filter(|b| block_is_visible(b))
                .cloned()
                .collect(),
        ),
        Some(Value::String(s)) => json!([{"type": "text", "text": s}]),
        _ => json!([]),
    }
}

/// Atomic's `bashExecutionToText`.
fn bash_text(m: &Value) -> String {
    let mut text = format!("Ran `{}`\n", str_of(m, "command"));
    let output = str_of(m, "output");
    if output.is_empty() {
        text.push_str("(no output)");
    } else {
        text.push_str(&format!("```\n{output}\n```"));
    }
    if m.get("cancelled").and_then(Value::as_bool) == Some(true) {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = m.get("exitCode").filter(|c| c.is_number())
        && code.as_f64() != Some(0.0)
    {
        text.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    let full = str_of(m, "fullOutputPath");
    if m.get("truncated").and_then(Value::as_bool) == Some(true) && !full.is_empty() {
        text.push_str(&format!("\n\n[Output truncated. Full output: {full}]"));
    }
    text
}

fn user_message(content: Value) -> Value {
    json!({"role": "user", "content": content})
}

/// Atomic's `convertToLlm` (minus what does not change the transcript text).
fn to_provider_messages(messages: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for m in messages {
        let excluded = m.get("excludeFromContext") == Some(&Value::Bool(true));
        match role(m) {
            "bashExecution" if !excluded => {
                out.push(user_message(
                    json!([{"type": "text", "text": bash_text(m)}]),
                ));
            }
            "custom" if !excluded && content_is_visible(m.get("content")) => {
                out.push(user_message(visible_blocks(m.get("content"))));
            }
            "branchSummary" if !str_of(m, "summary").is_empty() => {
                let text = format!(
                    "{BRANCH_SUMMARY_PREFIX}{}{BRANCH_SUMMARY_SUFFIX}",
                    str_of(m, "summary")
                );
                out.push(user_message(json!([{"type": "text", "text": text}])));
            }
            "user" if content_is_visible(m.get("content")) => {
                let mut u = m.clone();
                if let (Some(Value::Array(_)), Value::Object(o)) = (m.get("content"), &mut u) {
                    o.insert("content".into(), visible_blocks(m.get("content")));
                }
                out.push(u);
            }
            "assistant" | "toolResult" | "system" => out.push(m.clone()),
            _ => {}
        }
    }
    out
}

/// `(id, name)` of an assistant message's tool calls.
fn tool_calls(m: &Value) -> Vec<(String, String)> {
    m.get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
        .filter_map(|b| {
            Some((
                b.get("id")?.as_str()?.to_owned(),
                b.get("name")?.as_str()?.to_owned(),
            ))
        })
        .collect()
}

/// Whether a provider message opens a user turn (closing any pending tool batch).
fn starts_user_turn(m: &Value) -> bool {
    role(m) == "user"
}

/// Atomic's `repairOrphanToolResults` (without closing a trailing unanswered batch): keeps the
/// first result for each announced tool call, drops orphans, and inserts an "interrupted" result
/// for calls of a `toolUse` turn still unanswered when the next user turn starts.
fn repair_tool_pairing(messages: Vec<Value>) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    let mut allowed: Option<Vec<String>> = None;
    let mut answered: Vec<String> = Vec::new();
    let mut pending: Vec<(String, String)> = Vec::new();
    let flush = |out: &mut Vec<Value>,
                 allowed: &mut Option<Vec<String>>,
                 answered: &mut Vec<String>,
                 pending: &mut Vec<(String, String)>| {
        for (id, name) in pending.drain(..) {
            if answered.contains(&id) {
                continue;
            }
            out.push(json!({
                "role": "toolResult",
                "toolCallId": id,
                "toolName": name,
                "content": [{"type": "text", "text": INTERRUPTED_TOOL_RESULT}],
                "isError": true,
            }));
        }
        *allowed = None;
        answered.clear();
    };
    for m in messages {
        match role(&m) {
            "system" => out.push(m),
            "assistant" => {
                flush(&mut out, &mut allowed, &mut answered, &mut pending);
                let calls = tool_calls(&m);
                if m.get("stopReason").and_then(Value::as_str) == Some("toolUse") {
                    pending = calls.clone();
                }
                allowed = Some(calls.into_iter().map(|(id, _)| id).collect());
                out.push(m);
            }
            "toolResult" => {
                let id = str_of(&m, "toolCallId").to_owned();
                let ok = !id.is_empty()
                    && allowed.as_ref().is_some_and(|a| a.contains(&id))
                    && !answered.contains(&id);
                if ok {
                    answered.push(id);
                    out.push(m);
                }
            }
            _ => {
                if starts_user_turn(&m) {
                    flush(&mut out, &mut allowed, &mut answered, &mut pending);
                }
                out.push(m);
            }
        }
    }
    out
}

/// A piece of the serialized transcript.
enum Chunk {
    Text(String),
    Image(Value),
}

fn append_text(chunks: &mut Vec<Chunk>, text: &str) {
    if text.is_empty() {
        return;
    }
    match chunks.last_mut() {
        Some(Chunk::Text(t)) => t.push_str(text),
        _ => chunks.push(Chunk::Text(text.to_owned())),
    }
}

fn has_content(chunks: &[Chunk]) -> bool {
    chunks.iter().any(|c| match c {
        Chunk::Text(t) => !t.is_empty(),
        Chunk::Image(_) => true,
    })
}

/// User or tool-result content in retained mode: text blocks concatenated, an image after a
/// line break as its own block, one trailing line break dropped.
fn content_chunks(content: Option<&Value>) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    match content {
        Some(Value::String(s)) => append_text(&mut chunks, s),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => append_text(&mut chunks, str_of(b, "text")),
                    Some("image") => {
                        if !chunks.is_empty() {
                            append_text(&mut chunks, "\n");
                        }
                        chunks.push(Chunk::Image(b.clone()));
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    if let Some(Chunk::Text(t)) = chunks.last_mut()
        && t.ends_with('\n')
    {
        t.pop();
    }
    chunks
}

fn push_section(out: &mut Vec<Chunk>, header: &str, section: Vec<Chunk>) {
    if !has_content(&section) {
        return;
    }
    let sep = if out.is_empty() { "" } else { "\n\n" };
    append_text(out, &format!("{sep}{header}"));
    for c in section {
        match c {
            Chunk::Text(t) => append_text(out, &t),
            Chunk::Image(i) => out.push(Chunk::Image(i)),
        }
    }
}

fn text_section(text: String) -> Vec<Chunk> {
    vec![Chunk::Text(text)]
}

/// Serializes provider messages in the section grammar, retained mode.
fn serialize_retained(messages: &[Value]) -> Vec<Chunk> {
    let mut out = Vec::new();
    for m in messages {
        match role(m) {
            "user" => push_section(&mut out, "[User]: ", content_chunks(m.get("content"))),
            "toolResult" => push_section(
                &mut out,
                "[Tool result]: ",
                content_chunks(m.get("content")),
            ),
            "assistant" => {
                let mut text: Vec<&str> = Vec::new();
                let mut thinking: Vec<&str> = Vec::new();
                let mut calls: Vec<String> = Vec::new();
                for b in m
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => text.push(str_of(b, "text")),
                        Some("thinking") => thinking.push(str_of(b, "thinking")),
                        // Atomic turns raw redacted thinking into an empty thinking block.
                        Some("redacted_thinking")
                            if b.get("data").is_some_and(Value::is_string) =>
                        {
                            thinking.push("")
                        }
                        Some("toolCall") => calls.push(tool_call_text(b)),
                        _ => {}
                    }
                }
                if !thinking.is_empty() {
                    push_section(
                        &mut out,
                        "[Assistant thinking]: ",
                        text_section(thinking.join("\n")),
                    );
                }
                if !text.is_empty() {
                    push_section(&mut out, "[Assistant]: ", text_section(text.join("\n")));
                }
                if !calls.is_empty() {
                    push_section(
                        &mut out,
                        "[Assistant tool calls]: ",
                        text_section(calls.join("; ")),
                    );
                }
            }
            _ => {}
        }
    }
    out
}

/// `name(key=<JSON value>, …)`.
pub fn tool_call_text(call: &Value) -> String {
    let name = call.get("name").and_then(Value::as_str).unwrap_or("tool");
    let args = match call.get("arguments") {
        Some(Value::Object(a)) => a
            .iter()
            .map(|(k, v)| format!("{k}={}", serde_json::to_string(v).unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    };
    format!("{name}({args})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(blocks: &[Value]) -> String {
        blocks.iter().filter_map(|b| b["text"].as_str()).collect()
    }

    #[test]
    fn kept_tail_follows_the_summary() {
        let kept = vec![
            json!({"role": "user", "content": "kept user"}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "kept answer"}], "stopReason": "stop"}),
        ];
        let c = boundary_content("sum", &kept);
        assert_eq!(
            text_of(&c),
            format!(
                "{VERBATIM_COMPACTION_PREFIX}sum\n\n[User]: kept user\n\n[Assistant]: kept answer"
            )
        );
        // Empty summary: no separator.
        let c = boundary_content("", &kept);
        assert_eq!(
            text_of(&c),
            format!("{VERBATIM_COMPACTION_PREFIX}[User]: kept user\n\n[Assistant]: kept answer")
        );
    }

    #[test]
    fn mid_turn_tail_is_repaired_and_images_stay_in_place() {
        let img = json!({"type": "image", "data": "AAAA", "mimeType": "image/png"});
        let kept = vec![
            json!({"role": "toolResult", "toolCallId": "orphan", "content": [{"type": "text", "text": "dropped"}]}),
            json!({"role": "user", "content": [{"type": "text", "text": "see"}, img, {"type": "text", "text": "this"}]}),
            json!({"role": "assistant", "stopReason": "toolUse", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "old.ts"}}]}),
            json!({"role": "custom", "customType": "x", "content": "after", "display": true}),
        ];
        let c = boundary_content("", &kept);
        assert_eq!(c.len(), 3);
        assert_eq!(c[1], img);
        assert_eq!(
            text_of(&c),
            format!(
                "{VERBATIM_COMPACTION_PREFIX}[User]: see\nthis\n\n[Assistant tool calls]: read(path=\"old.ts\")\n\n[Tool result]: {INTERRUPTED_TOOL_RESULT}\n\n[User]: after"
            )
        );
    }
}
