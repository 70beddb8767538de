//! The session writer: one entry at a time, as pi and Atomic write them.

use super::*;

mod steps;

/// Counts bytes written through it.
pub(crate) struct Counting<W: Write> {
    pub(crate) inner: W,
    pub(crate) bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

pub(crate) struct SessionGen<'a, W: Write> {
    pub(crate) rng: Rng,
    pub(crate) out: Counting<W>,
    pub(crate) agent: Agent,
    pub(crate) project: &'a Project,
    pub(crate) ids: HashSet<String>,
    pub(crate) leaf: Option<String>,
    pub(crate) ms: i64,
    pub(crate) count: usize,
    pub(crate) model: usize,
    pub(crate) thinking: &'static str,
    pub(crate) context_tokens: u64,
    pub(crate) output_median: f64,
    /// (user message id, its parent) on any branch, for branching back.
    pub(crate) user_points: Vec<(String, Option<String>)>,
    /// Recent entry ids on the current path (for labels and compaction targets).
    pub(crate) recent: Vec<String>,
    pub(crate) labelled: Vec<String>,
    pub(crate) last_chat_id: Option<String>,
    pub(crate) named: bool,
    /// A long-running linear session (`--linear-session`): tool outputs of at most
    /// [`LINEAR_MAX_LINES`] lines, thinking on most turns, no branches or compactions.
    pub(crate) linear: bool,
}

/// Lines of a tool output at most, in a `--linear-session` (pi's tools cut theirs too).
pub(crate) const LINEAR_MAX_LINES: usize = 120;

impl<'a, W: Write> SessionGen<'a, W> {
    pub(crate) fn new(
        rng: Rng,
        out: W,
        agent: Agent,
        project: &'a Project,
        start_ms: i64,
        output_median: f64,
    ) -> Self {
        SessionGen {
            rng,
            out: Counting {
                inner: out,
                bytes: 0,
            },
            agent,
            project,
            ids: HashSet::new(),
            leaf: None,
            ms: start_ms,
            count: 0,
            model: 0,
            thinking: "medium",
            context_tokens: 4000,
            output_median,
            user_points: Vec::new(),
            recent: Vec::new(),
            labelled: Vec::new(),
            last_chat_id: None,
            named: false,
            linear: false,
        }
    }

    pub(crate) fn line(&mut self, v: &Value) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, v)?;
        self.out.write_all(b"\n")
    }

    pub(crate) fn advance(&mut self, lo_ms: u64, hi_ms: u64) {
        self.ms += self.rng.range(lo_ms, hi_ms) as i64;
    }

    pub(crate) fn new_id(&mut self) -> String {
        loop {
            let id = self.rng.hex(8);
            if self.ids.insert(id.clone()) {
                return id;
            }
        }
    }

    /// Appends an entry: `type, id, parentId, timestamp, <fields>` (or with the payload first
    /// for `custom` / `custom_message`, as pi writes them).
    pub(crate) fn entry(
        &mut self,
        kind: &str,
        fields: Map<String, Value>,
        payload_first: bool,
    ) -> io::Result<String> {
        let id = self.new_id();
        let mut m = Map::new();
        m.insert("type".into(), Value::from(kind));
        let mut fields = Some(fields);
        if payload_first {
            m.extend(fields.take().into_iter().flatten());
        }
        m.insert("id".into(), Value::from(id.clone()));
        m.insert(
            "parentId".into(),
            self.leaf.clone().map_or(Value::Null, Value::from),
        );
        m.insert("timestamp".into(), Value::from(iso(self.ms)));
        m.extend(fields.into_iter().flatten());
        self.line(&Value::Object(m))?;
        self.leaf = Some(id.clone());
        self.count += 1;
        self.recent.push(id.clone());
        if self.recent.len() > 64 {
            self.recent.drain(..32);
        }
        Ok(id)
    }

    pub(crate) fn fields(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    pub(crate) fn message(&mut self, msg: Value) -> io::Result<String> {
        let mut f = Map::new();
        f.insert("message".into(), msg);
        self.entry("message", f, false)
    }

    // ---- text ------------------------------------------------------------------------------

    pub(crate) fn fill(&mut self, template: &str) -> String {
        let mut s = String::with_capacity(template.len() + 32);
        let mut rest = template;
        while let Some(i) = rest.find('{') {
            s.push_str(&rest[..i]);
            let end = rest[i..].find('}').map_or(rest.len(), |e| i + e);
            let key = &rest[i + 1..end.min(rest.len())];
            match key {
                "file" => s.push_str(self.rng.pick::<&str>(self.project.lang.files())),
                "func" => s.push_str(self.rng.pick::<&str>(FUNCS)),
                "flag" => s.push_str(self.rng.pick::<&str>(FLAGS)),
                "cmd" => s.push_str(self.project.lang.test_cmd()),
                "test" => {
                    s.push_str("test_");
                    s.push_str(self.rng.pick::<&str>(FUNCS));
                }
                "n" => s.push_str(&self.rng.range(1, 999).to_string()),
                other => s.push_str(other),
            }
            rest = if end < rest.len() {
                &rest[end + 1..]
            } else {
                ""
            };
        }
        s.push_str(rest);
        s
    }

    pub(crate) fn prose(&mut self, pool: &[&str], sentences: usize) -> String {
        let mut s = String::new();
        for i in 0..sentences {
            if i > 0 {
                s.push_str(if self.rng.chance(0.25) { "\n\n" } else { " " });
            }
            let t = *self.rng.pick(pool);
            s.push_str(&self.fill(t));
        }
        s
    }

    pub(crate) fn code_block(&mut self, lines: usize) -> String {
        let lang = match self.project.lang {
            Lang::Rust => "rust",
            Lang::Ts => "ts",
            Lang::Python => "python",
            Lang::Go => "go",
        };
        let mut s = format!("```{lang}\n");
        for _ in 0..lines {
            s.push_str(self.rng.pick::<&str>(self.project.lang.code_lines()));
            s.push('\n');
        }
        s.push_str("```");
        s
    }

    /// Realistic tool output of about `target` bytes (capped at 50 KB).
    pub(crate) fn output(&mut self, tool: &str, target: usize) -> String {
        let target = target.clamp(16, MAX_TOOL_OUTPUT);
        let max_lines = if self.linear {
            LINEAR_MAX_LINES
        } else {
            usize::MAX
        };
        let mut s = String::with_capacity(target + 128);
        let mut n = self.rng.range(1, 400);
        let mut lines = 0;
        while s.len() < target && lines < max_lines {
            lines += 1;
            match tool {
                "read" => {
                    let l = *self.rng.pick(self.project.lang.code_lines());
                    s.push_str(&format!("{n:>6}\t{l}\n"));
                    n += 1;
                }
                _ => {
                    let t = *self.rng.pick(LOG_LINES);
                    let l = self.fill(t);
                    s.push_str(&l);
                    s.push('\n');
                }
            }
        }
        if s.len() > MAX_TOOL_OUTPUT {
            let mut cut = MAX_TOOL_OUTPUT;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
        }
        s
    }

    pub(crate) fn image_block(&mut self) -> Value {
        let size = self.rng.lognormal(12_000.0, 0.9).clamp(2_000.0, 100_000.0) as usize;
        let mut data = String::from("iVBORw0KGgoAAAANSUhEUgAA");
        data.push_str(&self.rng.base64(size / 4 * 4 - data.len()));
        json!({"type": "image", "data": data, "mimeType": "image/png"})
    }

    // ---- entries ---------------------------------------------------------------------------

    pub(crate) fn model_change(&mut self) -> io::Result<String> {
        let (provider, model, ..) = MODELS[self.model];
        self.entry(
            "model_change",
            Self::fields(json!({"provider": provider, "modelId": model})),
            false,
        )
    }

    pub(crate) fn thinking_change(&mut self) -> io::Result<String> {
        let level = self.thinking;
        self.entry(
            "thinking_level_change",
            Self::fields(json!({"thinkingLevel": level})),
            false,
        )
    }

    pub(crate) fn usage(&mut self, output: u64) -> Value {
        let (provider, _, p_in, p_out, p_cr, p_cw) = MODELS[self.model];
        let cache_read = self.context_tokens * 85 / 100;
        let fresh = self.context_tokens - cache_read;
        let (input, cache_write) = if provider == "anthropic" {
            (self.rng.range(2, 12), fresh)
        } else {
            (fresh, 0)
        };
        let c_in = input as f64 * p_in / 1e6;
        let c_out = output as f64 * p_out / 1e6;
        let c_cr = cache_read as f64 * p_cr / 1e6;
        let c_cw = cache_write as f64 * p_cw / 1e6;
        json!({
            "input": input, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write,
            "totalTokens": input + output + cache_read + cache_write,
            "cost": {"input": c_in, "output": c_out, "cacheRead": c_cr, "cacheWrite": c_cw,
                     "total": c_in + c_out + c_cr + c_cw}
        })
    }

    pub(crate) fn tool_call_id(&mut self) -> String {
        if MODELS[self.model].0 == "anthropic" {
            format!("toolu_01{}", self.rng.alnum(22))
        } else {
            format!("call_{}", self.rng.hex(24))
        }
    }

    pub(crate) fn user(&mut self) -> io::Result<String> {
        self.advance(5_000, 600_000);
        let sentences = self.rng.range(1, 3) as usize;
        let mut text = self.prose(USER_ASKS, sentences);
        if self.rng.chance(0.08) {
            text.push_str("\n\n");
            let lines = self.rng.range(3, 30) as usize;
            let t = self.output("bash", lines * 60);
            text.push_str(&t);
        }
        let content = if self.rng.chance(0.03) {
            let img = self.image_block();
            json!([{"type": "text", "text": text}, img])
        } else {
            Value::from(text)
        };
        self.context_tokens += 60;
        let parent = self.leaf.clone();
        let ms = self.ms;
        let id = self.message(json!({"role": "user", "content": content, "timestamp": ms}))?;
        self.user_points.push((id.clone(), parent));
        self.last_chat_id = Some(id.clone());
        Ok(id)
    }

    pub(crate) fn assistant(&mut self, calls: Vec<Value>, final_turn: bool) -> io::Result<String> {
        self.advance(2_000, 90_000);
        let mut content = Vec::new();
        let thinks = if self.linear {
            self.rng.chance(0.8)
        } else {
            self.thinking != "off" && self.rng.chance(0.5)
        };
        if thinks {
            let n = self.rng.range(1, 4) as usize;
            let thinking = self.prose(THOUGHTS, n);
            let sig_len = if self.linear {
                self.rng.range(400, 2400)
            } else {
                self.rng.range(200, 1200)
            } as usize;
            let sig = self.rng.base64(sig_len);
            content
                .push(json!({"type": "thinking", "thinking": thinking, "thinkingSignature": sig}));
        }
        if final_turn || self.rng.chance(0.6) {
            let n = if final_turn { self.rng.range(2, 6) } else { 1 } as usize;
            let mut text = self.prose(ASSISTANT_SAYS, n);
            if final_turn && self.rng.chance(0.3) {
                let lines = self.rng.range(4, 25) as usize;
                text.push_str("\n\n");
                let block = self.code_block(lines);
                text.push_str(&block);
            }
            content.push(json!({"type": "text", "text": text}));
        }
        let has_calls = !calls.is_empty();
        content.extend(calls);
        let out_tokens = (serde_json::to_string(&content).map_or(0, |s| s.len()) / 4 + 20) as u64;
        self.context_tokens += out_tokens;
        let usage = self.usage(out_tokens);
        let (provider, model, ..) = MODELS[self.model];
        let api = match provider {
            "anthropic" => "anthropic-messages",
            "openai" => "openai-responses",
            _ => "google-generative-ai",
        };
        let stop = if has_calls {
            "toolUse"
        } else if self.rng.chance(0.01) {
            "aborted"
        } else {
            "stop"
        };
        let ms = self.ms;
        let mut msg = json!({
            "role": "assistant", "content": content, "api": api, "provider": provider, "model": model,
            "usage": usage, "stopReason": stop, "timestamp": ms
        });
        if stop == "aborted" {
            msg["errorMessage"] = Value::from("Request was aborted");
        }
        let id = self.message(msg)?;
        self.last_chat_id = Some(id.clone());
        Ok(id)
    }

    pub(crate) fn output_size(&mut self) -> usize {
        self.rng.lognormal(self.output_median, 1.3) as usize
    }
}
