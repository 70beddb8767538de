//! The family keys (fold, unfold, toggle, hide child sessions) and the picker's threaded
//! build with its families folded (see [`super::families`]).

use super::keymap::Action;
use super::ops::set_status;
use super::rows::Row;
use super::state::{AppState, PickerState, SortMode, StatusKind};

/// Alt+← / Alt+→ / Alt+F on the selected row (a row on screen): the node it is, or for a
/// fold the family it is in, whose head is then selected.
pub(crate) fn fold_action(state: &mut AppState, action: Action) {
    let fold = match action {
        Action::FoldFamily => Some(true),
        Action::UnfoldFamily => Some(false),
        _ => None,
    };
    let p = &mut state.picker;
    let Some(record) = p.rows.get(p.selected).map(|r| r.record) else {
        return;
    };
    let Some(target) = p.families.target(record, fold) else {
        if p.sort != SortMode::Threaded || p.has_query() {
            let text = "Families fold in the threaded sort, without a search".to_owned();
            set_status(state, text, StatusKind::Info);
        }
        return;
    };
    let Some(path) = p.records.get(target).map(|r| r.info.path.clone()) else {
        return;
    };
    p.families.set_folded(&path, fold);
    p.selected_record = Some(target);
    p.rebuild_rows();
}

/// Alt+C: hide or show every child session, in every sort.
pub(crate) fn toggle_children(state: &mut AppState) {
    let f = &mut state.picker.families;
    f.hide_children = !f.hide_children;
    state.picker.rebuild_rows();
    let text = if state.picker.families.hide_children {
        "Child sessions hidden"
    } else {
        "Child sessions shown"
    };
    set_status(state, text.into(), StatusKind::Info);
}

impl PickerState {
    /// The listed sessions that are pinned (in the threaded sort they come first, flat).
    fn pinned_among(&self, listed: &[usize]) -> Vec<usize> {
        if self.org.flags.is_empty() {
            return Vec::new();
        }
        listed
            .iter()
            .copied()
            .filter(|&i| self.records.get(i).is_some_and(|r| self.org.is_pinned(r)))
            .collect()
    }

    /// The threaded rows of `listed`, built here, families folded (and taken).
    pub(crate) fn threaded_now(&mut self, listed: &[usize]) -> Vec<Row> {
        let pinned = self.pinned_among(listed);
        let spec = self.families.spec(self.selected_record);
        let built = super::threads::threaded_folded(&self.records, listed, &pinned, &spec);
        let records = &self.records;
        self.families
            .take(built.folds, |i| records.get(i).map(|r| r.info.path.clone()));
        built.rows
    }

    /// Asks the background job for the threaded rows of `listed`, families folded.
    pub(crate) fn request_threaded(&mut self, listed: Vec<usize>) {
        let pinned = self.pinned_among(&listed);
        let spec = self.families.spec(self.selected_record);
        self.threads
            .request(&self.records, (listed, pinned), spec, &mut self.rows);
    }
}
