//! Deleting a session from the browser: the roots guard, the identity pinned at Ctrl+D, then the
//! trash (or, after the second confirmation, permanent deletion).

use crate::app::event::{Effect, Event};
use crate::storage::roots::SessionRoot;
use crate::storage::safe_fs::{Pin, PinnedDir};
use crate::storage::trash::{check_in_roots, delete_permanently_pinned, trash_session_pinned};

/// Runs a delete effect (to the trash, or permanently after the second confirmation) with the
/// guard `grove rm` uses: only a file grove lists under `roots` is deleted, so a path that left
/// the roots since the scan (a folder swapped for a link, a record from elsewhere) is refused.
/// A refusal ends the delete with an error rather than offering permanent deletion. `None` for
/// any other effect.
pub fn delete_session(effect: &Effect, roots: &[SessionRoot]) -> Option<Event> {
    delete_session_pinned(effect, roots, None)
}

/// [`delete_session`] refusing unless the session's folder and file are still those pinned
/// when Ctrl+D was pressed (checked through an open folder handle at the moment of the
/// delete): a folder swapped for a link in between is never followed.
pub fn delete_session_pinned(
    effect: &Effect,
    roots: &[SessionRoot],
    pin: Option<&Pin>,
) -> Option<Event> {
    let (record, path, permanent) = match effect {
        Effect::TrashSession { record, path } => (*record, path, false),
        Effect::DeletePermanently { record, path } => (*record, path, true),
        _ => return None,
    };
    if let Err(e) = check_in_roots(path, roots) {
        return Some(Event::DeletedPermanently {
            record,
            result: Err(e.to_string()),
        });
    }
    // A session that changed under the dialog is refused too, not offered for deletion for good.
    if let Some(pin) = pin
        && let Err(e) = PinnedDir::open(path, Some(pin))
    {
        return Some(Event::DeletedPermanently {
            record,
            result: Err(e.to_string()),
        });
    }
    Some(if permanent {
        Event::DeletedPermanently {
            record,
            result: delete_permanently_pinned(path, pin)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        }
    } else {
        Event::Trashed {
            record,
            result: trash_session_pinned(path, pin).map_err(|e| e.to_string()),
        }
    })
}
