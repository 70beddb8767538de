//! A whole session's view taking the place of the view of its leaf branch alone (a large
//! session is shown from the end of its file first, then whole): what the user did in the
//! first view stays — the selected entry, the filter and tree search, the focus, the
//! transcript's place, its folds and search, an open dialog — mapped by entry id, since the
//! two views number their entries differently.

use super::state::SessionViewState;
use super::types::{Mode, ResumeOffer};
use crate::model::context::ContextPlan;
use crate::model::tree::Session;

impl SessionViewState {
    /// Takes over the place of `shown`, the view of this session's leaf branch alone (nothing
    /// happens unless it is one). The selection stays on the same entry when the whole tree
    /// has it (it does unless the file changed meanwhile), else on the leaf.
    pub fn take_over(&mut self, shown: &SessionViewState) {
        if !shown.leaf_first {
            return;
        }
        let map = |i: usize| entry_in(&shown.session, &self.session, i);
        let selected = shown.nav.selected_entry().and_then(map);
        let mode = remap_mode(&shown.mode, map);
        self.focus = shown.focus;
        self.panes = shown.panes;
        if shown.nav.filter() != self.nav.filter() {
            self.nav.set_filter(&self.session, shown.nav.filter());
        }
        if !shown.nav.query().is_empty() {
            self.nav.set_query(&self.session, shown.nav.query());
        }
        if let Some(i) = selected.or(self.session.tree.leaf) {
            self.nav.select_entry(&self.session, i);
        }
        self.sync_transcript();
        if selected.is_some() {
            let map = |i: usize| entry_in(&shown.session, &self.session, i);
            let shift = |k: usize| message_in(&self.context, &shown.context, k, map);
            let toggled: Vec<_> = shown
                .toggled
                .iter()
                .filter_map(|&(k, block)| Some((shift(k)?, block)))
                .collect();
            let anchor = shown.transcript.anchor(shown.transcript_scroll);
            let anchor = shift(anchor.0).map(|k| (k, anchor.1));
            self.toggled.extend(toggled);
            match anchor {
                Some(anchor) => self.restore_place(anchor, shown.transcript_search.clone()),
                None if !self.toggled.is_empty() => self.rebuild_lines(),
                None => {}
            }
        }
        self.tree_search = shown.tree_search.clone();
        self.mode = mode;
        self.status = shown.status.clone();
    }
}

/// The entry of `to` that entry `i` of `from` is (by id).
fn entry_in(from: &Session, to: &Session, i: usize) -> Option<usize> {
    to.tree.index_of(&from.entry(i)?.id)
}

/// The message of `new` that message `k` of `old` is: the same entry's (the `r`th of that
/// entry's messages in both).
fn message_in(
    new: &ContextPlan,
    old: &ContextPlan,
    k: usize,
    map: impl Fn(usize) -> Option<usize>,
) -> Option<usize> {
    let entry = old.messages.get(k)?.entry_index;
    let rank = old.messages[..k]
        .iter()
        .rev()
        .take_while(|m| m.entry_index == entry)
        .count();
    let entry = map(entry)?;
    let last = new.messages.iter().rposition(|m| m.entry_index == entry)?;
    let group = new.messages[..=last]
        .iter()
        .rev()
        .take_while(|m| m.entry_index == entry)
        .count();
    let j = last + 1 - group + rank;
    (j <= last).then_some(j)
}

/// The dialog open in the first view, its entries mapped into the whole one (closed when one
/// is not there).
fn remap_mode(mode: &Mode, map: impl Fn(usize) -> Option<usize>) -> Mode {
    let opt = |i: Option<usize>| match i {
        Some(i) => map(i).map(Some),
        None => Some(None),
    };
    let mapped = match mode {
        Mode::Label { target, input } => map(*target).map(|target| Mode::Label {
            target,
            input: input.clone(),
        }),
        Mode::ConfirmCheckout {
            target,
            resumes_after,
        } => map(*target)
            .zip(opt(*resumes_after))
            .map(|(target, resumes_after)| Mode::ConfirmCheckout {
                target,
                resumes_after,
            }),
        Mode::ConfirmResume(o) => (|| {
            Some(Mode::ConfirmResume(ResumeOffer {
                target: map(o.target)?,
                resumes_after: opt(o.resumes_after)?,
                leaf: opt(o.leaf)?,
            }))
        })(),
        other => Some(other.clone()),
    };
    mapped.unwrap_or(Mode::Normal)
}
