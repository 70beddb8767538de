//! Atomic's transcript grammar, used to flatten the kept tail of a verbatim compaction into the
//! boundary message (`[User]: …`, `[Assistant]: …`, `[Assistant tool calls]: name(k=v)`, …).

use serde_json::{Value, json};

use super::context::VERBATIM_COMPACTION_PREFIX;

/// Content blocks of an Atomic boundary message: prefix, summary, then the kept messages as a
/// transcript; image blocks of kept messages stay in place between text blocks.
pub fn boundary_content(summary: &str, kept: &[Value]) -> Vec<Value> {
    let mut out = Blocks::default();
    out.text.push_str(VERBATIM_COMPACTION_PREFIX);
    out.text.push_str(summary);
    let mut first = true;
    for m in kept {
        let before = out.text.len() + out.blocks.len();
        let mut section = Blocks::default();
        serialize_message(m, &mut section);
        if section.is_empty() {
            continue;
        }
        if first {
            if !summary.is_empty() {
                out.text.push_str("\n\n");
            }
            first = false;
        } else {
            out.text.push_str("\n\n");
        }
        let _ = before;
        out.append(section);
    }
    out.finish()
}

#[derive(Default)]
struct Blocks {
    blocks: Vec<Value>,
    text: String,
}

impl Blocks {
    fn is_empty(&self) -> bool {
        self.blocks.is_empty() && self.text.is_empty()
    }

    fn image(&mut self, img: &Value) {
        if !self.text.is_empty() {
            self.blocks
                .push(json!({"type": "text", "text": std::mem::take(&mut self.text)}));
        }
        self.blocks.push(img.clone());
    }

    fn append(&mut self, other: Blocks) {
        for b in other.blocks {
            if b.get("type").and_then(Value::as_str) == Some("text") {
                self.text
                    .push_str(b.get("text").and_then(Value::as_str).unwrap_or_default());
            } else {
                self.image(&b);
            }
        }
        self.text.push_str(&other.text);
    }

    fn finish(mut self) -> Vec<Value> {
        if !self.text.is_empty() || self.blocks.is_empty() {
            self.blocks.push(json!({"type": "text", "text": self.text}));
        }
        self.blocks
    }
}

fn content_into(label: &str, content: Option<&Value>, out: &mut Blocks) {
    out.text.push_str(label);
    match content {
        Some(Value::String(s)) => out.text.push_str(s),
        Some(Value::Array(blocks)) => {
            let mut first = true;
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if !first {
                            out.text.push('\n');
                        }
                        out.text
                            .push_str(b.get("text").and_then(Value::as_str).unwrap_or_default());
                        first = false;
                    }
                    Some("image") => out.image(b),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn serialize_message(m: &Value, out: &mut Blocks) {
    let role = m.get("role").and_then(Value::as_str).unwrap_or_default();
    match role {
        "user" => content_into("[User]: ", m.get("content"), out),
        "custom" => content_into("[User]: ", m.get("content"), out),
        "toolResult" => content_into("[Tool result]: ", m.get("content"), out),
        "branchSummary" => {
            out.text.push_str("[Branch summary]: ");
            out.text
                .push_str(m.get("summary").and_then(Value::as_str).unwrap_or_default());
        }
        "bashExecution" => {
            if m.get("excludeFromContext") == Some(&Value::Bool(true)) {
                return;
            }
            let cmd = m.get("command").and_then(Value::as_str).unwrap_or_default();
            let output = m.get("output").and_then(Value::as_str).unwrap_or_default();
            out.text
                .push_str(&format!("[User]: Ran `{cmd}`\n```\n{output}\n```"));
        }
        "assistant" => {
            let mut parts: Vec<String> = Vec::new();
            let mut calls: Vec<String> = Vec::new();
            if let Some(Value::Array(blocks)) = m.get("content") {
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("thinking") => {
                            let t = b
                                .get("thinking")
                                .and_then(Value::as_str)
                                .unwrap_or_default();
                            if !t.trim().is_empty() {
                                parts.push(format!("[Assistant thinking]: {t}"));
                            }
                        }
                        Some("text") => {
                            let t = b.get("text").and_then(Value::as_str).unwrap_or_default();
                            if !t.trim().is_empty() {
                                parts.push(format!("[Assistant]: {t}"));
                            }
                        }
                        Some("toolCall") => calls.push(tool_call_text(b)),
                        _ => {}
                    }
                }
            }
            if !calls.is_empty() {
                parts.push(format!("[Assistant tool calls]: {}", calls.join("; ")));
            }
            out.text.push_str(&parts.join("\n\n"));
        }
        _ => {}
    }
}

/// `name(key=<JSON value>, …)`.
pub fn tool_call_text(call: &Value) -> String {
    let name = call.get("name").and_then(Value::as_str).unwrap_or("tool");
    let args = match call.get("arguments") {
        Some(Value::Object(a)) => a
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    };
    format!("{name}({args})")
}
