//! What the preview pane shows about a session beyond its listing fields: the model, labels
//! and the last exchanges of the active branch. Loading reads the file, so it runs off the UI
//! thread.

use std::path::Path;

use serde_json::Value;

use crate::model::context::{Dialect, LeafChoice, plan_context};
use crate::model::entry::content_text;
use crate::storage::read::{SlimMode, load_session_cancellable, mtime_ms, open_regular};

/// At most this many messages of the active branch are kept.
pub(crate) const MAX_MESSAGES: usize = 400;
/// Each message's text is cut at this many bytes.
pub(crate) const MAX_TEXT: usize = 4000;

/// One message of the active branch, reduced to a role and displayable (unsanitized) text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreviewMessage {
    /// `user`, `assistant`, `tool`, or another role name.
    pub role: String,
    pub text: String,
}

/// The loaded part of a preview.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Preview {
    /// `provider/model` the branch ends on.
    pub model: Option<String>,
    pub thinking_level: String,
    /// Label texts, sorted.
    pub labels: Vec<String>,
    /// Messages on the active branch (all of them, before the cut to [`MAX_MESSAGES`]).
    pub branch_messages: usize,
    /// The last messages of the active branch, oldest first.
    pub messages: Vec<PreviewMessage>,
    /// File modification time, ms.
    pub file_mtime_ms: i64,
}

/// Loads the preview of the session at `path`.
pub fn load_preview(path: &Path, agent: Dialect) -> Result<Preview, String> {
    load_preview_cancellable(path, agent, &|| false)
}

/// [`load_preview`] whose read of the file stops once `cancelled` returns true.
pub fn load_preview_cancellable(
    path: &Path,
    agent: Dialect,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<Preview, String> {
    let session =
        load_session_cancellable(path, SlimMode::Auto, cancelled).map_err(|e| e.to_string())?;
    // Planned: only the last messages are made (read back), not the whole branch.
    let ctx = plan_context(&session, LeafChoice::Current, agent);
    let mut labels: Vec<String> = session
        .tree
        .labels
        .values()
        .map(|l| l.text.clone())
        .collect();
    labels.sort();
    let start = ctx.messages.len().saturating_sub(MAX_MESSAGES);
    let messages = (start..ctx.messages.len())
        .filter_map(|k| reduce_message(&ctx.message(&session, k).0?))
        .collect();
    let file_mtime_ms = open_regular(path).map(|(_, m)| mtime_ms(&m)).unwrap_or(0);
    Ok(Preview {
        model: ctx.model.map(|m| format!("{}/{}", m.provider, m.model_id)),
        thinking_level: ctx.thinking_level,
        labels,
        branch_messages: ctx.messages.len(),
        messages,
        file_mtime_ms,
    })
}

/// Reduces an agent message to a role and a short text.
pub(crate) fn reduce_message(message: &Value) -> Option<PreviewMessage> {
    let role = message.get("role").and_then(Value::as_str).unwrap_or("");
    let content = message.get("content");
    let mut text = match role {
        "assistant" => assistant_text(content),
        "toolResult" => {
            let name = message
                .get("toolName")
                .and_then(Value::as_str)
                .unwrap_or("tool");
            let body = content_text(content).unwrap_or_default();
            let first = body.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let failed = message.get("isError").and_then(Value::as_bool) == Some(true);
            format!("{name}{}: {first}", if failed { " (error)" } else { "" })
        }
        "bashExecution" => {
            let cmd = message.get("command").and_then(Value::as_str).unwrap_or("");
            format!("$ {cmd}")
        }
        _ => content_text(content)
            .or_else(|| {
                message
                    .get("summary")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_default(),
    };
    if text.len() > MAX_TEXT {
        let mut cut = MAX_TEXT;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    let role = match role {
        "toolResult" => "tool",
        "compactionSummary" => "compaction summary",
        "branchSummary" => "branch summary",
        "bashExecution" => "shell",
        "" => "message",
        r => r,
    };
    Some(PreviewMessage {
        role: role.to_owned(),
        text,
    })
}

fn assistant_text(content: Option<&Value>) -> String {
    let Some(Value::Array(blocks)) = content else {
        return content_text(content).unwrap_or_default();
    };
    let mut parts: Vec<String> = Vec::new();
    for b in blocks {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = b.get("text").and_then(Value::as_str)
                    && !t.trim().is_empty()
                {
                    parts.push(t.to_owned());
                }
            }
            Some("toolCall") => {
                let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                parts.push(format!("→ {name}"));
            }
            _ => {}
        }
    }
    parts.join("\n")
}
