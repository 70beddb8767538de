//! The fields of an entry line the fast path keeps: the entry-specific readers of [`Cursor`].

use std::borrow::Cow;

use super::{Cursor, LiteEntry, LiteMessage, once, once_seen};
use crate::model::entry::EntryKind;
use crate::model::facts::{Gather, UsageFacts};
use crate::model::search::{TOOL_ARG_KEYS, tool_call_line};

impl<'a> Cursor<'a> {
    /// `usage`: `totalTokens` and `cost.total`; a non-object gives empty facts.
    fn usage(&mut self) -> Option<UsageFacts> {
        if let Some(facts) = self.attempt(Self::usage_as_pi_writes) {
            return Some(facts);
        }
        self.object_or(UsageFacts::default(), |c| {
            let (mut total, mut cost) = (None, None);
            c.object(|c, k| match k {
                "totalTokens" => once(&mut total, c.num_value()?),
                "cost" => {
                    let v = c.object_or(None, |c| {
                        let mut t = None;
                        c.object(|c, k| {
                            if k == "total" {
                                once(&mut t, c.num_value()?)
                            } else {
                                c.skip()
                            }
                        })?;
                        Some(t.flatten())
                    })?;
                    once(&mut cost, v)
                }
                _ => c.skip(),
            })?;
            Some(UsageFacts {
                total_tokens: total.flatten(),
                cost_total: cost.flatten(),
            })
        })
    }

    /// `usage` in the shape pi writes it (every assistant message has one: 11 keys and 10
    /// numbers), compared byte for byte instead of walked key by key: the same keys in the same
    /// order, no spaces, numbers, with or without a last `reasoning` count. Anything else is
    /// `None` and the caller walks the object from its start. No key occurs twice and the
    /// nesting is fixed, so the walk's duplicate and depth checks have nothing to find.
    pub(super) fn usage_as_pi_writes(&mut self) -> Option<UsageFacts> {
        self.bytes(br#"{"#)?;
        self.token_kinds_as_pi_writes()?;
        self.bytes(br#","totalTokens":"#)?;
        let total_tokens = self.exact_number()?;
        self.bytes(br#","cost":{"#)?;
        self.token_kinds_as_pi_writes()?;
        self.bytes(br#","total":"#)?;
        let cost_total = self.exact_number()?;
        self.bytes(b"}")?;
        if self.bytes(br#","reasoning":"#).is_some() {
            self.skip_number()?;
        }
        self.bytes(b"}")?;
        Some(UsageFacts {
            total_tokens: Some(total_tokens),
            cost_total: Some(cost_total),
        })
    }

    /// `"input":N,"output":N,"cacheRead":N,"cacheWrite":N`: the counts, or their costs, that
    /// open both `usage` and its `cost`.
    fn token_kinds_as_pi_writes(&mut self) -> Option<()> {
        self.bytes(br#""input":"#)?;
        self.skip_number()?;
        self.bytes(br#","output":"#)?;
        self.skip_number()?;
        self.bytes(br#","cacheRead":"#)?;
        self.skip_number()?;
        self.bytes(br#","cacheWrite":"#)?;
        self.skip_number()
    }

    /// A number's value (at its first byte, which must start one).
    fn exact_number(&mut self) -> Option<f64> {
        if !matches!(self.peek()?, b'-' | b'0'..=b'9') {
            return None;
        }
        self.number(true)?
    }

    /// `details.strategy`.
    fn strategy(&mut self) -> Option<Option<Cow<'a, str>>> {
        self.object_or(None, |c| {
            let mut strategy = None;
            c.object(|c, k| {
                if k == "strategy" {
                    once(&mut strategy, c.str_value()?)
                } else {
                    c.skip()
                }
            })?;
            Some(strategy.flatten())
        })
    }

    /// `content`: a string, or the `text` blocks of an array joined with spaces
    /// ([`crate::model::entry::content_text`]); `None` for any other value. The `toolCall`
    /// blocks' [`tool_call_line`]s go to `tools`, one a line.
    fn content(&mut self, tools: &mut Option<String>) -> Option<Option<Cow<'a, str>>> {
        match self.peek()? {
            b'"' => self.string().map(Some),
            b'[' => {
                let mut out: Option<Cow<'a, str>> = None;
                self.array(|c| {
                    let (text, tool) = c.block()?;
                    if let Some(tool) = tool.filter(|t| !t.is_empty()) {
                        match tools {
                            Some(all) => {
                                all.push('\n');
                                all.push_str(&tool);
                            }
                            None => *tools = Some(tool),
                        }
                    }
                    let Some(t) = text else {
                        return Some(());
                    };
                    out = Some(match out.take() {
                        None => t,
                        Some(prev) => {
                            let mut s = prev.into_owned();
                            s.push(' ');
                            s.push_str(&t);
                            Cow::Owned(s)
                        }
                    });
                    Some(())
                })?;
                Some(Some(out.unwrap_or(Cow::Borrowed(""))))
            }
            _ => self.skip().map(|_| None),
        }
    }

    /// A content block's `text` when its `type` is `"text"`, its [`tool_call_line`] when it is
    /// `"toolCall"`.
    #[allow(clippy::type_complexity)]
    fn block(&mut self) -> Option<(Option<Cow<'a, str>>, Option<String>)> {
        self.object_or((None, None), |c| {
            let mut ty: Option<Option<Cow<'a, str>>> = None;
            let mut text: Option<Option<Cow<'a, str>>> = None;
            let mut name: Option<Option<Cow<'a, str>>> = None;
            let mut args: Option<[Option<Cow<'a, str>>; 4]> = None;
            let may_be = |ty: &Option<Option<Cow<'a, str>>>, want: &str| {
                ty.as_ref().is_none_or(|t| t.as_deref() == Some(want))
            };
            c.object(|c, k| match k {
                "type" => once(&mut ty, c.str_value()?),
                // Only collected while the block may be a text block.
                "text" if may_be(&ty, "text") => once(&mut text, c.str_value()?),
                "text" => {
                    c.skip()?;
                    once(&mut text, None)
                }
                // Only collected while the block may be a tool call.
                "name" if may_be(&ty, "toolCall") => once(&mut name, c.str_value()?),
                "name" => {
                    c.skip()?;
                    once(&mut name, None)
                }
                "arguments" if may_be(&ty, "toolCall") => once(&mut args, c.tool_args()?),
                "arguments" => {
                    c.skip()?;
                    once(&mut args, Default::default())
                }
                _ => c.skip(),
            })?;
            Some(match ty.flatten().as_deref() {
                Some("text") => (text.flatten(), None),
                Some("toolCall") => {
                    let name = name.flatten();
                    let args = args.unwrap_or_default();
                    let line = tool_call_line(
                        name.as_deref().unwrap_or(""),
                        [0, 1, 2, 3].map(|i| args[i].as_deref()),
                    );
                    (None, Some(line))
                }
                _ => (None, None),
            })
        })
    }

    /// The string values of a tool call's [`TOOL_ARG_KEYS`] arguments (none for a non-object).
    fn tool_args(&mut self) -> Option<[Option<Cow<'a, str>>; 4]> {
        self.object_or(Default::default(), |c| {
            let mut found: [Option<Option<Cow<'a, str>>>; 4] = Default::default();
            c.object(
                |c, k| match TOOL_ARG_KEYS.iter().position(|key| *key == k) {
                    Some(i) => once(&mut found[i], c.str_value()?),
                    None => c.skip(),
                },
            )?;
            Some(found.map(Option::flatten))
        })
    }

    /// The `message` object of a message entry; `None` for a non-object.
    fn message(&mut self) -> Option<Option<LiteMessage<'a>>> {
        self.object_or(None, |c| {
            let (mut role, mut ts, mut usage) = (None, None, None);
            let mut content: Option<Option<Cow<'a, str>>> = None;
            let mut tools = None;
            let (mut stop, mut model, mut response_model) = (None, None, None);
            c.object(|c, k| match k {
                "role" => once(&mut role, c.str_value()?),
                "timestamp" => once(&mut ts, c.num_value()?),
                "usage" => once(&mut usage, c.usage()?),
                "stopReason" => once(&mut stop, c.str_value()?),
                "model" => once(&mut model, c.str_value()?),
                "responseModel" => once(&mut response_model, c.str_value()?),
                "content" => {
                    // Text is only listed for user and assistant messages: once the role is
                    // known to be another (pi writes it first), or one whose text is not
                    // gathered, the content is only validated.
                    let gather = c.gather;
                    let wanted = gather != Gather::Nothing
                        && role
                            .as_ref()
                            .is_none_or(|r: &Option<Cow<str>>| match r.as_deref() {
                                Some("user") => true,
                                Some("assistant") => gather == Gather::All,
                                _ => false,
                            });
                    let value = if wanted {
                        c.content(&mut tools)?
                    } else {
                        c.skip()?;
                        None
                    };
                    once(&mut content, value)
                }
                _ => c.skip(),
            })?;
            Some(Some(LiteMessage {
                role: role.flatten(),
                timestamp: ts.flatten(),
                usage,
                has_content: content.is_some(),
                text: content.flatten(),
                tools,
                stop_reason: stop.flatten(),
                model: model.flatten(),
                response_model: response_model.flatten(),
            }))
        })
    }

    /// The first members of an entry as pi writes them, `{"type":…,"id":…,"parentId":…,
    /// "timestamp":…`, compared byte for byte instead of walked key by key (every line has
    /// them); `None` for any other start, and the caller walks the object from its `{`. The
    /// values are read as the walk reads them.
    #[allow(clippy::type_complexity)]
    pub(super) fn head_as_pi_writes(&mut self) -> Option<[Option<Cow<'a, str>>; 4]> {
        self.open()?;
        self.bytes(br#""type":"#)?;
        let ty = self.str_value()?;
        self.bytes(br#","id":"#)?;
        let id = self.str_value()?;
        self.bytes(br#","parentId":"#)?;
        let parent = self.str_value()?;
        self.bytes(br#","timestamp":"#)?;
        let ts = self.str_value()?;
        Some([ty, id, parent, ts])
    }

    /// The line's object (at `{`).
    pub(super) fn root(&mut self, e: &mut LiteEntry<'a>) -> Option<()> {
        let mut seen_ty = false;
        let (mut seen_message, mut seen_usage, mut seen_details) = (false, false, false);
        let (mut id, mut parent, mut ts, mut name, mut target, mut label, mut summary, mut through) =
            (None, None, None, None, None, None, None, None);
        let head = self.attempt(Self::head_as_pi_writes);
        let head_read = head.is_some();
        if let Some([t, i, p, stamp]) = head {
            (seen_ty, e.ty) = (true, t);
            (id, parent, ts) = (Some(i), Some(p), Some(stamp));
        }
        // The entry type, once read, decides which fields matter (pi writes `type` first);
        // before it is known every candidate field is kept.
        let mut kind = seen_ty.then(|| EntryKind::from_type(e.ty.as_deref().unwrap_or("")));
        let field = |c: &mut Self, k: &'a str| {
            let wants = |k: EntryKind| kind.is_none_or(|kind| kind == k);
            let wants_usage = kind.is_none_or(|kind| {
                matches!(
                    kind,
                    EntryKind::Compaction | EntryKind::BranchSummary | EntryKind::Usage
                )
            });
            match k {
                "type" => {
                    once_seen(&mut seen_ty)?;
                    e.ty = c.str_value()?;
                    kind = Some(EntryKind::from_type(e.ty.as_deref().unwrap_or("")));
                    Some(())
                }
                "id" => once(&mut id, c.str_value()?),
                "parentId" => once(&mut parent, c.str_value()?),
                "timestamp" => once(&mut ts, c.str_value()?),
                "message" => {
                    once_seen(&mut seen_message)?;
                    if wants(EntryKind::Message) {
                        e.message = c.message()?;
                        Some(())
                    } else {
                        c.skip()
                    }
                }
                "name" if wants(EntryKind::SessionInfo) => once(&mut name, c.str_value()?),
                "targetId" if wants(EntryKind::Label) => once(&mut target, c.str_value()?),
                "label" if wants(EntryKind::Label) => once(&mut label, c.str_value()?),
                "summary" if wants(EntryKind::SessionSummary) => once(&mut summary, c.str_value()?),
                "summarizedThroughId" if wants(EntryKind::SessionSummary) => {
                    once(&mut through, c.str_value()?)
                }
                "usage" => {
                    once_seen(&mut seen_usage)?;
                    if wants_usage {
                        e.usage = Some(c.usage()?);
                        Some(())
                    } else {
                        c.skip()
                    }
                }
                "details" => {
                    once_seen(&mut seen_details)?;
                    if wants(EntryKind::Compaction) {
                        e.strategy = c.strategy()?;
                        Some(())
                    } else {
                        c.skip()
                    }
                }
                // Any other key, or one irrelevant to the known type. A duplicate of a skipped
                // key cannot change the facts, so it needs no check.
                _ => c.skip(),
            }
        };
        if head_read {
            self.object_rest(field)?;
        } else {
            self.object(field)?;
        }
        e.id = id.flatten();
        e.parent_id = parent.flatten();
        e.timestamp = ts.flatten();
        e.name = name.flatten();
        e.target_id = target.flatten();
        e.label = label.flatten();
        e.summary = summary.flatten();
        e.summarized_through_id = through.flatten();
        Some(())
    }
}
