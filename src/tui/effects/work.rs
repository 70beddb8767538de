//! The work behind the effects that is more than a call: loading a session for the view, the
//! write worker, and a rename that reports the renamed record.

use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{self, Sender};
use std::thread::JoinHandle;

use crate::app::event::Event;
use crate::app::session_view::SessionViewState;
use crate::app::state::SessionRecord;
use crate::model::context::Dialect;
use crate::storage::append::{NewEntry, append_entry};
use crate::storage::read::{SlimMode, load_session_cancellable, scan_info};

use super::msg::Msg;

/// A file write for the write worker; its event (if any) goes back to the loop.
pub(crate) type WriteJob = Box<dyn FnOnce() -> Option<Event> + Send>;

/// Loads a session for the session view, stopping early when `cancelled`.
pub(crate) fn open_view(
    path: &Path,
    agent: Dialect,
    viewport: ratatui::layout::Rect,
    home: Option<String>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<Box<SessionViewState>, String> {
    let session =
        load_session_cancellable(path, SlimMode::Auto, cancelled).map_err(|e| e.to_string())?;
    let mut view = SessionViewState::new(path.to_owned(), session, agent, viewport).with_home(home);
    // `e` offers to export into the folder grove was started in.
    view.export_dir = std::env::current_dir().ok();
    Ok(Box::new(view))
}

/// Runs the writes (appends, forks, exports, trash moves) one at a time, in the order asked:
/// an append chains to the file's last entry, so two appends running at once could both take
/// the same parent.
pub(crate) fn spawn_write_worker(events: Sender<Msg>) -> (Sender<WriteJob>, JoinHandle<()>) {
    let (tx, rx) = mpsc::channel::<WriteJob>();
    let worker = std::thread::spawn(move || {
        while let Ok(job) = rx.recv() {
            if let Some(event) = job() {
                // The loop may be gone (grove is quitting): the write is done all the same.
                let _ = events.send(Msg::App(event));
            }
        }
    });
    (tx, worker)
}

pub(crate) fn rename(
    path: &Path,
    name: String,
    current_dir: Option<&Path>,
) -> Result<Arc<SessionRecord>, String> {
    let before = scan_info(path, None).map_err(|e| e.to_string())?;
    append_entry(path, NewEntry::Rename { name }).map_err(|e| e.to_string())?;
    let info = scan_info(path, Some(before.agent)).map_err(|e| e.to_string())?;
    Ok(Arc::new(SessionRecord::new(info, current_dir)))
}

/// The view of a large session's leaf branch alone, read from the end of the file
/// ([`crate::storage::leaf`], with the index's entry offsets when it has them); `None` for a smaller file (its whole load is quick) or on error
/// (the whole load reports it).
pub(super) fn open_leaf_first(
    path: &Path,
    agent: Dialect,
    viewport: ratatui::layout::Rect,
    home: &Option<String>,
    source: &dyn crate::app::source::SessionSource,
) -> Option<Box<SessionViewState>> {
    use crate::storage::leaf::{LeafOptions, load_leaf_branch_with};
    let size = std::fs::metadata(path).ok()?.len();
    if size < crate::storage::read::SLIM_LOAD_MIN_BYTES {
        return None;
    }
    // Where the index says entries are: a leaf hanging from an entry far back is read there.
    let offsets = source.entry_offsets(path);
    let first = load_leaf_branch_with(path, LeafOptions::default(), offsets.as_ref()).ok()?;
    let mut view = SessionViewState::new(path.to_owned(), first.session, agent, viewport)
        .with_home(home.clone());
    view.export_dir = std::env::current_dir().ok();
    view.leaf_first = true;
    Some(Box::new(view))
}
