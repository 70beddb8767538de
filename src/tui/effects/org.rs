//! Executing the organising effects: grove's state database (pins, archive, last opened),
//! the bulk trash of the marked sessions, the bookmarks screen's load.

use std::sync::Arc;

use crate::app::bookmark_screen::Loaded;
use crate::app::bookmarks::{attach_meta, collect_bookmarks};
use crate::app::event::{Effect, Event};
use crate::app::marks::{OrgEffect, OrgEvent};
use crate::storage::state::{SessionKey, StateDb, db_path};

use super::{Msg, Runner, delete_session_pinned, pin_now, pinned};

impl Runner {
    /// Runs one organising effect: state writes and trash moves on the write worker (in
    /// order, and quitting waits for them), reads on the pool.
    pub(super) fn organise(&mut self, effect: OrgEffect) {
        match effect {
            OrgEffect::SaveFlags { keys, flag, value } => self.write(move || {
                let result = StateDb::open()
                    .and_then(|mut db| db.set_flag(&keys, flag, value))
                    .map_err(|e| e.to_string());
                Some(Event::Organise(OrgEvent::Saved {
                    keys,
                    flag,
                    value,
                    result,
                }))
            }),
            OrgEffect::PinFiles(paths) => {
                for p in &paths {
                    pin_now(&self.pins, p);
                }
            }
            OrgEffect::TrashMarked { items } => {
                let roots = Arc::clone(&self.roots);
                let pins: Vec<_> = items.iter().map(|(_, p)| pinned(&self.pins, p)).collect();
                self.write(move || {
                    let results = items
                        .into_iter()
                        .zip(pins)
                        .map(|((record, path), pin)| {
                            let effect = Effect::TrashSession { record, path };
                            let result = match delete_session_pinned(&effect, &roots, pin.as_ref())
                            {
                                Some(Event::Trashed { result, .. }) => result,
                                Some(Event::DeletedPermanently { result: Err(e), .. }) => Err(e),
                                _ => Err("not moved to the trash".to_owned()),
                            };
                            (record, result)
                        })
                        .collect();
                    Some(Event::Organise(OrgEvent::TrashedMarked { results }))
                });
            }
            OrgEffect::SaveBookmark { key, path, edit } => self.write(move || {
                let result = StateDb::open()
                    .and_then(|mut db| db.edit_bookmark(&key, &path, &edit))
                    .map_err(|e| e.to_string());
                Some(Event::Organise(OrgEvent::BookmarkSaved { key, result }))
            }),
            OrgEffect::LoadBookmarks { sessions } => {
                let tx = self.tx.clone();
                self.pool.run(move || {
                    let infos: Vec<_> = sessions.iter().map(|r| &r.info).collect();
                    let (mut bookmarks, problems) = collect_bookmarks(&infos, &|| false);
                    let meta = if db_path().is_ok_and(|p| p.exists()) {
                        StateDb::open().and_then(|db| db.bookmarks()).map(Some)
                    } else {
                        Ok(None)
                    };
                    let bookmarks = match meta {
                        Ok(m) => {
                            if let Some(m) = m {
                                attach_meta(&mut bookmarks, &m);
                            }
                            Ok(bookmarks)
                        }
                        Err(e) => Err(e.to_string()),
                    };
                    let loaded = Loaded {
                        bookmarks,
                        problems: problems.len(),
                    };
                    let _ = tx.send(Msg::App(Event::Organise(OrgEvent::Bookmarks(loaded))));
                });
            }
        }
    }

    /// Reads grove's state for the picker, off the UI thread (the first frame does not wait).
    /// No database yet: nothing is created until something is pinned or archived.
    pub(crate) fn load_state(&self) {
        let tx = self.tx.clone();
        self.pool.run(move || {
            let result = match db_path() {
                Ok(p) if !p.exists() => Ok(Default::default()),
                Ok(p) => StateDb::open_at(&p)
                    .and_then(|db| db.snapshot())
                    .map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            let _ = tx.send(Msg::App(Event::Organise(OrgEvent::Loaded(result))));
        });
    }

    /// Remembers the session opened in the view (best effort: the view does not wait).
    pub(super) fn remember_opened(&self, path: &std::path::Path) {
        // Unit tests of the runner must not write the user's state.
        if cfg!(test) {
            return;
        }
        let path = path.to_owned();
        self.pool.run(move || {
            if let Some(id) = crate::storage::index::write::header_id(&path)
                && let Ok(mut db) = StateDb::open()
            {
                let _ = db.set_last_opened(&SessionKey::new(id, path));
            }
        });
    }
}
