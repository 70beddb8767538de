//! Where each session's record sits in the picker, by path. While the search text loads, the
//! records come back in batches (dozens at 10k sessions) and each takes its path's place: a
//! map of every record's path built for each batch cost the UI thread two thirds of its time
//! during the load (measured with `perf`, docs/bench.md round thirteen). The map is kept
//! instead, and never trusted: every answer is checked against the records, and a path it
//! cannot place makes it rebuild, at most once per batch.

use std::hash::BuildHasher;
use std::path::Path;
use std::sync::Arc;

use super::record::SessionRecord;

/// A path's record index, remembered across batches (see the module docs). The table holds
/// record indices only, hashed by their records' paths: no path is copied.
#[derive(Clone, Default)]
pub struct PathSlots {
    table: hashbrown::HashTable<usize>,
    hasher: foldhash::fast::RandomState,
    /// How many times the table was built from every record (for the tests).
    rebuilds: usize,
}

impl std::fmt::Debug for PathSlots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PathSlots({} paths)", self.table.len())
    }
}

impl PathSlots {
    /// The index of the record whose path is `path`, as a map built from the records now
    /// gives (the picker keeps one record a path; were there two, either could be given).
    /// `rebuilt` is shared by the lookups of one batch: the table is built again at most once
    /// for them, so a path that no record has costs one rebuild per batch, not one per path.
    pub(crate) fn find(
        &mut self,
        records: &[Arc<SessionRecord>],
        path: &Path,
        rebuilt: &mut bool,
    ) -> Option<usize> {
        let hash = self.hasher.hash_one(path);
        let at = |i: &usize| records.get(*i).is_some_and(|r| r.info.path == path);
        if let Some(&i) = self.table.find(hash, at) {
            return Some(i);
        }
        if *rebuilt {
            return None;
        }
        *rebuilt = true;
        self.rebuilds += 1;
        self.table.clear();
        for i in 0..records.len() {
            self.put(records, i);
        }
        self.table.find(hash, at).copied()
    }

    /// Record `i` of `records` was added (or is put in the table anew): a later one of the
    /// same path takes the place of an earlier one.
    pub(crate) fn put(&mut self, records: &[Arc<SessionRecord>], i: usize) {
        let Some(record) = records.get(i) else {
            return;
        };
        let path = record.info.path.as_path();
        let hasher = &self.hasher;
        let hash = hasher.hash_one(path);
        match self.table.entry(
            hash,
            |j| records.get(*j).is_some_and(|r| r.info.path == path),
            |j| records.get(*j).map_or(0, |r| hasher.hash_one(&r.info.path)),
        ) {
            hashbrown::hash_table::Entry::Occupied(mut e) => *e.get_mut() = i,
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(i);
            }
        }
    }

    #[cfg(test)]
    pub(crate) fn rebuilds(&self) -> usize {
        self.rebuilds
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::info::SessionInfo;
    use proptest::prelude::*;
    use std::collections::HashMap;
    use std::path::PathBuf;

    fn record(path: &str) -> Arc<SessionRecord> {
        let info = SessionInfo {
            path: PathBuf::from(path),
            ..SessionInfo::default()
        };
        Arc::new(SessionRecord::without_fs(info, true))
    }

    /// Batch after batch of texts for sessions already listed: the map is built once, not
    /// once a batch (a map a batch is what cost the UI thread).
    #[test]
    fn batches_of_known_paths_build_the_map_once() {
        let mut records: Vec<_> = (0..1000)
            .map(|i| record(&format!("/s/{i}.jsonl")))
            .collect();
        let mut slots = PathSlots::default();
        for batch in records.clone().chunks(50) {
            let mut rebuilt = false;
            for r in batch {
                let i = slots.find(&records, &r.info.path, &mut rebuilt);
                assert_eq!(i.map(|i| &records[i].info.path), Some(&r.info.path));
            }
        }
        assert_eq!(slots.rebuilds(), 1);
        // A path no record has: one rebuild for the batch, however many such paths it holds.
        records.push(record("/s/new.jsonl"));
        let mut rebuilt = false;
        assert_eq!(
            slots.find(&records, Path::new("/s/x.jsonl"), &mut rebuilt),
            None
        );
        assert_eq!(
            slots.find(&records, Path::new("/s/y.jsonl"), &mut rebuilt),
            None
        );
        assert_eq!(slots.rebuilds(), 2);
        assert_eq!(
            slots.find(&records, Path::new("/s/new.jsonl"), &mut false),
            Some(1000)
        );
    }

    #[derive(Clone, Debug)]
    enum Op {
        /// A record added by another part of the app (the map is not told).
        Push(u8),
        /// A record added as `replace_records` adds one (the map is told).
        PushAndPut(u8),
        /// Record `i` (modulo the count) replaced by one with another path, unannounced.
        Replace(usize, u8),
        /// A batch looking these paths up.
        Batch(Vec<u8>),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            any::<u8>().prop_map(Op::Push),
            any::<u8>().prop_map(Op::PushAndPut),
            (any::<usize>(), any::<u8>()).prop_map(|(i, p)| Op::Replace(i, p)),
            proptest::collection::vec(any::<u8>(), 0..6).prop_map(Op::Batch),
        ]
    }

    proptest! {
        /// Whatever happened to the records meanwhile, every answer is what a map built from
        /// the records now would give (paths kept unique, as the picker keeps them).
        #[test]
        fn answers_equal_a_map_built_now(ops in proptest::collection::vec(op(), 0..120)) {
            let path = |p: u8| PathBuf::from(format!("/s/{}.jsonl", p % 64));
            let mut records: Vec<Arc<SessionRecord>> = Vec::new();
            let mut slots = PathSlots::default();
            for op in ops {
                match op {
                    Op::Push(p) if !records.iter().any(|r| r.info.path == path(p)) => {
                        records.push(record(&path(p).to_string_lossy()));
                    }
                    Op::PushAndPut(p) if !records.iter().any(|r| r.info.path == path(p)) => {
                        records.push(record(&path(p).to_string_lossy()));
                        slots.put(&records, records.len() - 1);
                    }
                    Op::Replace(i, p) if !records.is_empty()
                        && !records.iter().any(|r| r.info.path == path(p)) =>
                    {
                        let i = i % records.len();
                        records[i] = record(&path(p).to_string_lossy());
                    }
                    Op::Batch(ps) => {
                        let fresh: HashMap<&Path, usize> = records
                            .iter()
                            .enumerate()
                            .map(|(i, r)| (r.info.path.as_path(), i))
                            .collect();
                        let mut rebuilt = false;
                        for p in ps {
                            let p = path(p);
                            prop_assert_eq!(
                                slots.find(&records, &p, &mut rebuilt),
                                fresh.get(p.as_path()).copied()
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}
