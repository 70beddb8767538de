//! A whole message (an AgentMessage of any role) as blocks.

use serde_json::Value;

use super::markdown::render_markdown;
use super::span::image_placeholder;
use super::span::{Block, BlockKind, Line, SpanKind, plain_lines};
use super::tools::{command_lines, render_tool_call};

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Text and image blocks of user-like content, the text as Markdown.
fn content_blocks(content: Option<&Value>, as_output: Option<bool>) -> Vec<Block> {
    let mut out = Vec::new();
    let push_text = |out: &mut Vec<Block>, text: &str| {
        if text.trim().is_empty() {
            return;
        }
        match as_output {
            Some(is_error) => {
                let kind = if is_error {
                    SpanKind::Error
                } else {
                    SpanKind::Output
                };
                let text = text.strip_suffix('\n').unwrap_or(text);
                out.push(Block::new(
                    BlockKind::ToolOutput { is_error },
                    plain_lines(text, kind),
                ));
            }
            None => out.extend(render_markdown(text)),
        }
    };
    match content {
        Some(Value::String(s)) => push_text(&mut out, s),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => push_text(&mut out, str_of(b, "text")),
                    Some("image") => out.push(Block::new(
                        BlockKind::Text,
                        vec![Line::single(SpanKind::Image, image_placeholder(b))],
                    )),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

/// The blocks of one message: Markdown text, thinking, tool calls, tool output, images.
/// Empty thinking is left out.
pub fn render_message(m: &Value) -> Vec<Block> {
    match str_of(m, "role") {
        "assistant" => {
            let mut out = Vec::new();
            for b in m
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => out.extend(render_markdown(str_of(b, "text"))),
                    Some("thinking") => {
                        let t = str_of(b, "thinking");
                        if !t.trim().is_empty() {
                            out.push(Block::new(
                                BlockKind::Thinking,
                                plain_lines(t.trim_end(), SpanKind::Thinking),
                            ));
                        }
                    }
                    Some("toolCall") => out.push(render_tool_call(b)),
                    Some("image") => out.push(Block::new(
                        BlockKind::Text,
                        vec![Line::single(SpanKind::Image, image_placeholder(b))],
                    )),
                    _ => {}
                }
            }
            let err = str_of(m, "errorMessage");
            if !err.is_empty() {
                out.push(Block::new(
                    BlockKind::Text,
                    plain_lines(err, SpanKind::Error),
                ));
            } else if out.is_empty() && str_of(m, "stopReason") == "aborted" {
                out.push(Block::new(
                    BlockKind::Text,
                    vec![Line::single(SpanKind::Muted, "(aborted)")],
                ));
            }
            out
        }
        "toolResult" => {
            let is_error = m.get("isError").and_then(Value::as_bool) == Some(true);
            content_blocks(m.get("content"), Some(is_error))
        }
        "bashExecution" => {
            let mut out = vec![Block::new(
                BlockKind::ToolCall {
                    name: "bash".into(),
                },
                command_lines(str_of(m, "command"), None),
            )];
            let output = str_of(m, "output");
            if !output.is_empty() {
                let output = output.strip_suffix('\n').unwrap_or(output);
                out.push(Block::new(
                    BlockKind::ToolOutput { is_error: false },
                    plain_lines(output, SpanKind::Output),
                ));
            }
            if let Some(code) = m
                .get("exitCode")
                .and_then(Value::as_i64)
                .filter(|c| *c != 0)
            {
                out.push(Block::new(
                    BlockKind::Text,
                    vec![Line::single(SpanKind::Error, format!("exit code {code}"))],
                ));
            }
            out
        }
        "branchSummary" | "compactionSummary" => render_markdown(str_of(m, "summary")),
        _ => content_blocks(m.get("content"), None),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn assistant_turn_with_thinking_text_and_a_call() {
        let m = json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "  "},
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "Doing **it**"},
            {"type": "toolCall", "name": "bash", "arguments": {"command": "ls"}},
        ]});
        let b = render_message(&m);
        let kinds: Vec<_> = b.iter().map(|b| b.kind.clone()).collect();
        assert_eq!(
            kinds,
            [
                BlockKind::Thinking,
                BlockKind::Text,
                BlockKind::ToolCall {
                    name: "bash".into()
                }
            ]
        );
    }

    #[test]
    fn results_and_images() {
        let r = json!({"role": "toolResult", "isError": true, "content": [
            {"type": "text", "text": "boom\n"},
            {"type": "image", "mimeType": "image/png", "data": "A".repeat(4 * 16 * 1024)},
        ]});
        let b = render_message(&r);
        assert_eq!(b[0].kind, BlockKind::ToolOutput { is_error: true });
        assert_eq!(b[0].lines[0].spans[0].kind, SpanKind::Error);
        assert_eq!(b[1].lines[0].plain(), "[image: image/png, 48 KB]");
    }
}
