//! Where `e` (export) offers to write: the folder grove was started in (set by the loop, see
//! [`SessionViewState::export_dir`]) joined with the default file name, all editable, so the
//! dialog asks for the folder as well as the name; the outcome reports the full path written.

use super::state::SessionViewState;

impl SessionViewState {
    /// The export dialog's starting text: `<folder>/<name>.md`, or the bare name when the
    /// folder is not known.
    pub(super) fn export_prefill(&self) -> String {
        let name = self.default_export_name();
        match &self.export_dir {
            Some(dir) => dir.join(name).to_string_lossy().into_owned(),
            None => name,
        }
    }
}
