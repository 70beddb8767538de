//! The transcript pane's window over the selected branch: what of the branch's context is
//! planned, made and laid out, and when. Opening a branch plans its context (which entries
//! give which messages, read from what the load kept) and lays out only the messages around
//! the end; scrolling moves the window, keeping the position as a message and a line within
//! it; search streams over the messages one at a time. Nothing here grows with the branch but
//! the plan (a few words per message) and the search hits.

use super::body::Messages;
use super::transcript;
use super::{SessionViewState, Status};
use crate::model::context::{ContextPlan, LeafChoice, plan_context};

/// Lines laid out beyond the pane, at least, on each side of the top line: enough that a
/// session of a few thousand lines is laid out whole, and a page key never reaches the
/// window's edge.
const MARGIN_LINES: usize = 1000;

impl SessionViewState {
    fn messages(&self) -> Messages<'_> {
        Messages {
            session: &self.session,
            plan: &self.context,
            toggled: &self.toggled,
        }
    }

    fn margins(&self) -> (usize, usize) {
        let h = self.transcript_size().1;
        (MARGIN_LINES.max(2 * h), MARGIN_LINES.max(3 * h))
    }

    /// Plans the context of the selected entry's branch and lays out its end.
    pub(super) fn open_transcript(&mut self, selected: Option<usize>) {
        self.context = match selected {
            Some(i) => plan_context(&self.session, LeafChoice::Index(i), self.dialect),
            None => ContextPlan::default(),
        };
        let last = self.context.messages.len().saturating_sub(1);
        self.lay_out_at((last, usize::MAX));
        // The selected entry is the end of its branch: show the end.
        self.transcript_scroll = self.transcript_bottom();
        // A new branch: its hits over the window only (the whole branch once n/N asks), so
        // walking the tree with a search open never reads a long branch per step.
        self.transcript.hits.clear();
        self.transcript.hits_cover_all = false;
        self.find_hits(false);
        // A large session reads whole entries back from its file: say so if it changed.
        if let Some(why) = self.transcript.unavailable.clone() {
            let text = format!("{why}; text shown shortened (reopen the session)");
            self.status = Some(Status {
                text: crate::text::sanitize::sanitize_line(&text).into_owned(),
                is_error: true,
            });
        }
    }

    /// Lays out the window around `(message, line within it)` and puts that line at the top
    /// (the message's last line when `line` is past its end).
    fn lay_out_at(&mut self, (message, offset): (usize, usize)) {
        let (before, after) = self.margins();
        let hits = std::mem::take(&mut self.transcript.hits);
        let cover_all = self.transcript.hits_cover_all;
        self.transcript = self.messages().window(message, before, after);
        self.transcript.hits = hits;
        self.transcript.hits_cover_all = cover_all;
        let k = message.saturating_sub(self.transcript.first);
        let start = self.transcript.starts.get(k).copied().unwrap_or(0);
        let end = self
            .transcript
            .starts
            .get(k + 1)
            .copied()
            .unwrap_or(self.transcript.lines.len());
        self.transcript_scroll = start
            .saturating_add(offset)
            .min(end.saturating_sub(1).max(start));
        self.window_hits();
    }

    /// Lays out the current window again (after a fold changed), keeping the top line's place.
    pub(super) fn relayout_transcript(&mut self) {
        let anchor = self.transcript.anchor(self.transcript_scroll);
        self.lay_out_at(anchor);
        if self.transcript_search.is_some() && !self.transcript.hits.is_empty() {
            // Lines within the toggled message moved.
            self.refresh_hits();
        }
    }

    /// Puts `(message, line within it)` at the top again, with the confirmed transcript
    /// search `search` and its hits over the window (a view taking over from another).
    pub(super) fn restore_place(&mut self, anchor: (usize, usize), search: Option<String>) {
        self.transcript_search = search;
        self.lay_out_at(anchor);
        self.transcript_scroll = self.transcript_scroll.min(self.transcript_bottom());
        self.transcript.hits.clear();
        self.transcript.hits_cover_all = false;
        self.find_hits(false);
    }

    /// Moves the window when the top line came near one of its edges.
    pub(super) fn keep_transcript_window(&mut self) {
        let h = self.transcript_size().1;
        let t = &self.transcript;
        let near_start = t.first > 0 && self.transcript_scroll < h;
        let near_end = !t.at_end() && t.lines.len().saturating_sub(self.transcript_scroll) < 2 * h;
        if near_start || near_end {
            let anchor = t.anchor(self.transcript_scroll);
            self.lay_out_at(anchor);
        }
    }

    /// The top line that shows the end of the branch, or the window's last line while the
    /// window does not hold the end (it moves on before that line is reached).
    pub(crate) fn transcript_bottom(&self) -> usize {
        if self.transcript.at_end() {
            let (w, h) = self.transcript_size();
            transcript::bottom_top(&self.transcript.lines, w, h)
        } else {
            self.transcript.lines.len().saturating_sub(1)
        }
    }

    /// `g` in the transcript: the first line of the branch.
    pub(super) fn transcript_to_start(&mut self) {
        if self.transcript.first > 0 {
            self.lay_out_at((0, 0));
        }
        self.transcript_scroll = 0;
    }

    /// `G` in the transcript: the end of the branch.
    pub(super) fn transcript_to_end(&mut self) {
        if !self.transcript.at_end() {
            let last = self.transcript.message_count.saturating_sub(1);
            self.lay_out_at((last, usize::MAX));
        }
        self.transcript_scroll = self.transcript_bottom();
    }

    /// Searches the branch for `query`: the whole branch when it is laid out whole or
    /// `whole` is set (Enter), else the window (while typing in a long branch), one message at
    /// a time. Shows the first hit at or after the top line.
    pub(super) fn search_transcript(&mut self, query: &str, whole: bool) {
        self.transcript_search = Some(query.to_owned());
        self.find_hits(whole);
        let top = self.transcript.anchor(self.transcript_scroll);
        let hit = self
            .transcript
            .hits
            .iter()
            .find(|&&h| h >= top)
            .or(self.transcript.hits.first())
            .copied();
        if let Some(h) = hit {
            self.show_hit(h);
        }
    }

    fn find_hits(&mut self, whole: bool) {
        let Some(q) = self.transcript_search.clone() else {
            self.transcript.hits.clear();
            self.transcript_hits.clear();
            return;
        };
        let all = whole || self.transcript.is_whole();
        let range = if all {
            0..self.transcript.message_count
        } else {
            self.transcript.first..self.transcript.end()
        };
        self.transcript.hits = self.messages().search(&q, range);
        self.transcript.hits_cover_all = all;
        self.window_hits();
    }

    /// Hits again for a new branch or layout, over what the last search covered.
    fn refresh_hits(&mut self) {
        let whole = self.transcript.hits_cover_all;
        self.find_hits(whole);
    }

    /// The hits laid out, as lines of the window (for highlighting).
    fn window_hits(&mut self) {
        let t = &self.transcript;
        self.transcript_hits = t.hits.iter().filter_map(|&h| t.line_of(h)).collect();
    }

    /// Clears the transcript search.
    pub(super) fn clear_transcript_search(&mut self) {
        self.transcript_search = None;
        self.transcript.hits.clear();
        self.transcript_hits.clear();
    }

    pub(super) fn show_hit(&mut self, hit: (usize, usize)) {
        match self.transcript.line_of(hit) {
            Some(line) => self.transcript_scroll = line,
            None => self.lay_out_at(hit),
        }
        self.transcript_scroll = self.transcript_scroll.min(self.transcript_bottom());
    }

    /// n/N in the transcript: the next hit after the top line (before it, going back),
    /// wrapping around; says which of how many.
    pub(super) fn jump_transcript_hit(&mut self, forward: bool) {
        if !self.transcript.hits_cover_all {
            self.find_hits(true);
        }
        let hits = &self.transcript.hits;
        let from = self.transcript.anchor(self.transcript_scroll);
        let k = if forward {
            hits.iter()
                .position(|&h| h > from)
                .or((!hits.is_empty()).then_some(0))
        } else {
            hits.iter()
                .rposition(|&h| h < from)
                .or(hits.len().checked_sub(1))
        };
        let Some(k) = k else {
            self.status = Some(Status {
                text: "No matching lines".into(),
                is_error: true,
            });
            return;
        };
        let (hit, n) = (hits[k], hits.len());
        self.lay_out_at(hit);
        self.status = Some(Status {
            text: format!("match {}/{n}", k + 1),
            is_error: false,
        });
    }
}
