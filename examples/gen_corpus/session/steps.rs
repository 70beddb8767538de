//! The session writer's larger steps: tool calls, branches, compactions, turns.

use super::*;

impl<W: Write> SessionGen<'_, W> {
    /// One assistant message with 1-3 tool calls and their results.
    pub(crate) fn tool_step(&mut self) -> io::Result<()> {
        let n = if self.rng.chance(0.8) {
            1
        } else {
            self.rng.range(2, 3) as usize
        };
        let mut calls = Vec::new();
        let mut results = Vec::new();
        for _ in 0..n {
            let id = self.tool_call_id();
            let file = (*self.rng.pick(self.project.lang.files())).to_string();
            let (name, args, text, details) = match self.rng.below(100) {
                0..=34 => {
                    let size = self.output_size();
                    let out = self.output("read", size);
                    ("read", json!({"path": file}), out, None)
                }
                35..=69 => {
                    let cmd = match self.rng.below(4) {
                        0 => self.project.lang.build_cmd().to_string(),
                        1 => format!(
                            "git diff --stat && git log --oneline -{}",
                            self.rng.range(3, 20)
                        ),
                        2 => format!("rg -n '{}' {}", self.rng.pick(FUNCS), file),
                        _ => self.project.lang.test_cmd().to_string(),
                    };
                    let size = self.output_size();
                    let out = self.output("bash", size);
                    ("bash", json!({"command": cmd, "timeout": 120}), out, None)
                }
                70..=89 => {
                    let old_n = self.rng.range(1, 8) as usize;
                    let new_n = self.rng.range(1, 14) as usize;
                    let old = self.code_block(old_n);
                    let new = self.code_block(new_n);
                    let line = self.rng.range(1, 400);
                    let diff = format!(
                        "--- a/{file}\n+++ b/{file}\n@@ -{line},{old_n} +{line},{new_n} @@\n-{old}\n+{new}\n"
                    );
                    let text = format!("Successfully replaced text in {file}.");
                    let details = json!({"diff": diff, "firstChangedLine": line});
                    (
                        "edit",
                        json!({"path": file, "edits": [{"oldText": old, "newText": new}]}),
                        text,
                        Some(details),
                    )
                }
                _ => {
                    let most = if self.linear { LINEAR_MAX_LINES } else { 1200 };
                    let lines = (self.output_size() / 40).clamp(5, most);
                    let content = self.code_block(lines);
                    let text = format!("Successfully wrote {} bytes to {file}", content.len());
                    (
                        "write",
                        json!({"path": file, "content": content}),
                        text,
                        None,
                    )
                }
            };
            let error = self.rng.chance(0.05);
            calls.push(json!({"type": "toolCall", "id": id, "name": name, "arguments": args}));
            results.push((id, name, text, details, error));
        }
        self.assistant(calls, false)?;
        for (id, name, text, details, error) in results {
            self.advance(100, 30_000);
            self.context_tokens += (text.len() / 4) as u64;
            let ms = self.ms;
            let mut msg = json!({
                "role": "toolResult", "toolCallId": id, "toolName": name,
                "content": [{"type": "text", "text": text}], "isError": error, "timestamp": ms
            });
            if let Some(d) = details {
                msg["details"] = d;
            }
            self.message(msg)?;
        }
        Ok(())
    }

    pub(crate) fn bash_execution(&mut self) -> io::Result<String> {
        self.advance(3_000, 120_000);
        let size = self.output_size() / 2;
        let output = self.output("bash", size);
        let cmd = if self.rng.chance(0.5) {
            self.project.lang.test_cmd()
        } else {
            "git status --short"
        };
        let code = if self.rng.chance(0.7) { 0 } else { 1 };
        let exclude = self.rng.chance(0.2);
        let ms = self.ms;
        let mut msg = json!({
            "role": "bashExecution", "command": cmd, "output": output, "exitCode": code,
            "cancelled": false, "truncated": false, "timestamp": ms
        });
        if exclude {
            msg["excludeFromContext"] = Value::from(true);
        }
        self.message(msg)
    }

    pub(crate) fn label(&mut self) -> io::Result<String> {
        self.advance(1_000, 60_000);
        if !self.labelled.is_empty() && self.rng.chance(0.25) {
            // Clear an earlier label (the key is omitted, as JSON.stringify drops `undefined`).
            let i = self.rng.below(self.labelled.len() as u64) as usize;
            let target = self.labelled.swap_remove(i);
            return self.entry("label", Self::fields(json!({"targetId": target})), false);
        }
        let target = self.rng.pick(&self.recent).clone();
        let label = *self.rng.pick(LABELS);
        self.labelled.push(target.clone());
        self.entry(
            "label",
            Self::fields(json!({"targetId": target, "label": label})),
            false,
        )
    }

    pub(crate) fn session_info(&mut self) -> io::Result<String> {
        self.advance(1_000, 30_000);
        let func = *self.rng.pick(FUNCS);
        let name = match self.rng.below(5) {
            0 => format!("Fix {func}"),
            1 => format!("Refactor {}", self.rng.pick(self.project.lang.files())),
            2 => format!("Add {} flag", self.rng.pick(FLAGS)),
            3 => format!("Perf: {func} on large inputs"),
            _ => format!("Investigate flaky test_{func}"),
        };
        self.named = true;
        self.entry("session_info", Self::fields(json!({"name": name})), false)
    }

    pub(crate) fn custom(&mut self) -> io::Result<String> {
        self.advance(100, 5_000);
        let steps = self.rng.range(1, 6);
        let enabled = self.rng.chance(0.5);
        self.entry(
            "custom",
            Self::fields(
                json!({"customType": "plan-mode", "data": {"enabled": enabled, "steps": steps}}),
            ),
            true,
        )
    }

    pub(crate) fn custom_message(&mut self) -> io::Result<String> {
        self.advance(100, 5_000);
        let failed = self.rng.range(0, 3);
        let text = format!(
            "CI: {failed} check(s) failing on main ({})",
            self.project.lang.test_cmd()
        );
        let display = self.rng.chance(0.8);
        self.entry(
            "custom_message",
            Self::fields(json!({"customType": "ci-status", "content": text, "display": display, "details": {"failed": failed}})),
            true,
        )
    }

    pub(crate) fn compaction(&mut self) -> io::Result<String> {
        self.advance(10_000, 60_000);
        let tokens_before = self.context_tokens.max(50_000);
        let keep = self.user_points.last().map(|(id, _)| id.clone());
        let fields = match self.agent {
            Agent::Pi => {
                let n = self.rng.range(3, 8) as usize;
                let summary = format!(
                    "## Goal\n{}\n\n## Progress\n{}\n\n## Next\n{}",
                    self.prose(USER_ASKS, 1),
                    self.prose(ASSISTANT_SAYS, n),
                    self.prose(ASSISTANT_SAYS, 1)
                );
                let files: Vec<&str> = (0..4)
                    .map(|_| *self.rng.pick(self.project.lang.files()))
                    .collect();
                let out_tokens = self.rng.range(600, 3000);
                let usage = self.usage(out_tokens);
                json!({"summary": summary, "firstKeptEntryId": keep, "tokensBefore": tokens_before,
                       "details": {"readFiles": files, "modifiedFiles": &files[..2]}, "usage": usage})
            }
            Agent::Atomic => {
                let mut summary = String::new();
                let turns = self.rng.range(4, 30);
                for _ in 0..turns {
                    match self.rng.below(4) {
                        0 => summary.push_str(&format!("[User]: {}\n", self.prose(USER_ASKS, 1))),
                        1 => summary
                            .push_str(&format!("[Assistant]: {}\n", self.prose(ASSISTANT_SAYS, 1))),
                        2 => summary.push_str(&format!(
                            "[Assistant tool calls]: bash(command=\"{}\")\n",
                            self.project.lang.test_cmd()
                        )),
                        _ => summary
                            .push_str(&format!("(filtered {} lines)\n", self.rng.range(2, 200))),
                    }
                }
                let before = self.rng.range(200, 3000);
                let deleted = before * self.rng.range(30, 70) / 100;
                let after = tokens_before * (before - deleted) / before;
                let pct =
                    ((tokens_before - after) as f64 * 1000.0 / tokens_before as f64).round() / 10.0;
                let keep = if self.rng.chance(0.1) { None } else { keep };
                json!({"summary": summary.trim_end(), "firstKeptEntryId": keep, "tokensBefore": tokens_before,
                       "details": {"strategy": "verbatim-lines", "promptVersion": 3,
                         "parameters": {"compression_ratio": 0.5, "preserve_recent": 2, "query": self.prose(USER_ASKS, 1)},
                         "stats": {"linesBefore": before, "linesDeleted": deleted, "linesKept": before - deleted,
                                   "rangeCount": self.rng.range(1, 80), "tokensBefore": tokens_before,
                                   "tokensAfter": after, "percentReduction": pct},
                         "rung": "planned"}})
            }
        };
        let id = self.entry("compaction", Self::fields(fields), false)?;
        self.context_tokens /= 4;
        Ok(id)
    }

    /// Go back to an earlier user message's parent and start a second branch there.
    pub(crate) fn branch(&mut self) -> io::Result<()> {
        if self.user_points.len() < 2 {
            return Ok(());
        }
        let i = self.rng.below(self.user_points.len() as u64 - 1) as usize;
        let parent = self.user_points[i].1.clone();
        self.leaf = parent.clone();
        if let (Some(p), true) = (parent, self.rng.chance(0.5)) {
            self.advance(5_000, 120_000);
            let summary = format!(
                "The user explored an alternative approach: {}",
                self.prose(ASSISTANT_SAYS, 2)
            );
            let files: Vec<&str> = (0..2)
                .map(|_| *self.rng.pick(self.project.lang.files()))
                .collect();
            self.entry(
                "branch_summary",
                Self::fields(json!({"fromId": p, "summary": summary, "details": {"readFiles": files, "modifiedFiles": []}})),
                false,
            )?;
        }
        Ok(())
    }

    pub(crate) fn session_summary(&mut self) -> io::Result<()> {
        let Some(through) = self.last_chat_id.clone() else {
            return Ok(());
        };
        self.advance(1_000, 20_000);
        let summary = self.prose(ASSISTANT_SAYS, 2);
        let out_tokens = self.rng.range(20, 120);
        let usage = self.usage(out_tokens);
        self.entry(
            "session_summary",
            Self::fields(
                json!({"summary": summary, "summarizedThroughId": through, "usage": usage}),
            ),
            false,
        )?;
        Ok(())
    }

    /// One user turn: a request, some tool steps, a final answer, and occasional extras.
    pub(crate) fn turn(&mut self, branchy: bool) -> io::Result<()> {
        if self.rng.chance(0.03) {
            self.bash_execution()?;
        }
        self.user()?;
        let steps = (self.rng.lognormal(3.0, 0.8) as usize).min(25);
        for _ in 0..steps {
            self.tool_step()?;
        }
        self.assistant(Vec::new(), true)?;
        // extras
        if self.rng.chance(0.04) {
            self.label()?;
        }
        if !self.named && self.rng.chance(0.15) || self.named && self.rng.chance(0.02) {
            self.session_info()?;
        }
        if self.rng.chance(0.015) {
            self.model = self.rng.below(MODELS.len() as u64) as usize;
            self.model_change()?;
        }
        if self.rng.chance(0.015) {
            self.thinking = *self.rng.pick(THINKING_LEVELS);
            self.thinking_change()?;
        }
        if self.rng.chance(0.02) {
            self.custom()?;
        }
        if self.rng.chance(0.02) {
            self.custom_message()?;
        }
        if !self.linear
            && (self.context_tokens > 160_000 || self.count > 40 && self.rng.chance(0.02))
        {
            self.compaction()?;
        }
        if branchy && self.rng.chance(0.2) {
            self.branch()?;
        }
        Ok(())
    }

    /// Header plus the settings entries pi writes first.
    pub(crate) fn start(&mut self, header: Value) -> io::Result<()> {
        self.line(&header)?;
        self.model = self.rng.below(MODELS.len() as u64) as usize;
        self.thinking = *self.rng.pick(THINKING_LEVELS);
        self.ms += 1;
        self.model_change()?;
        self.ms += 1;
        self.thinking_change()?;
        Ok(())
    }

    pub(crate) fn finish(mut self) -> io::Result<u64> {
        self.out.flush()?;
        Ok(self.out.bytes)
    }
}
