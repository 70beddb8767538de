//! Totals of many sessions, grouped by day, project, model or session.
//!
//! Sessions are added one at a time and only the groups are kept, so memory follows the number
//! of groups, not the number or size of the sessions.

use std::collections::BTreeMap;

use super::{SessionStats, Totals, UNKNOWN_DAY};

/// What the rows of a report are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GroupBy {
    #[default]
    Day,
    Project,
    Model,
    Session,
}

impl GroupBy {
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Day => "day",
            GroupBy::Project => "project",
            GroupBy::Model => "model",
            GroupBy::Session => "session",
        }
    }

    /// The next grouping (the stats screen cycles through them).
    pub fn next(self) -> GroupBy {
        match self {
            GroupBy::Day => GroupBy::Project,
            GroupBy::Project => GroupBy::Model,
            GroupBy::Model => GroupBy::Session,
            GroupBy::Session => GroupBy::Day,
        }
    }
}

/// The label of messages and usage without a model of their own.
pub const NO_MODEL: &str = "(no model)";

/// Who a session is, for its row in a by-session report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionMeta {
    pub path: String,
    pub id: String,
    pub cwd: String,
    pub title: String,
}

/// One row of a report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Group {
    pub key: String,
    /// Sessions that contributed to this row.
    pub sessions: u64,
    pub totals: Totals,
    /// By session: the session.
    pub session: Option<SessionMeta>,
}

/// Grouped totals with their grand total.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub by: GroupBy,
    /// Only days on or after this one (`YYYY-MM-DD`) are counted.
    pub since: Option<String>,
    groups: BTreeMap<String, Group>,
    pub total: Totals,
    /// Sessions with anything counted.
    pub sessions: u64,
}

impl Report {
    pub fn new(by: GroupBy, since: Option<String>) -> Self {
        Report {
            by,
            since,
            ..Report::default()
        }
    }

    fn counts(&self, day: &str) -> bool {
        match &self.since {
            None => true,
            Some(s) => day != UNKNOWN_DAY && day >= s.as_str(),
        }
    }

    /// Adds one session's stats.
    pub fn add_session(&mut self, meta: &SessionMeta, stats: &SessionStats) {
        let mut touched: Vec<String> = Vec::new();
        let mut any = false;
        for ((day, model), t) in &stats.buckets {
            if !self.counts(day) {
                continue;
            }
            any = true;
            let key = match self.by {
                GroupBy::Day => day.clone(),
                GroupBy::Project => meta.cwd.clone(),
                GroupBy::Model => model.clone().unwrap_or_else(|| NO_MODEL.to_owned()),
                GroupBy::Session => meta.path.clone(),
            };
            let g = self.groups.entry(key.clone()).or_insert_with(|| Group {
                key: key.clone(),
                session: (self.by == GroupBy::Session).then(|| meta.clone()),
                ..Group::default()
            });
            g.totals.add(t);
            self.total.add(t);
            if !touched.contains(&key) {
                touched.push(key);
            }
        }
        for k in touched {
            if let Some(g) = self.groups.get_mut(&k) {
                g.sessions += 1;
            }
        }
        if any {
            self.sessions += 1;
        }
    }

    /// Adds another report of the same grouping (one worker's share).
    pub fn merge(&mut self, other: Report) {
        for (k, g) in other.groups {
            let mine = self.groups.entry(k).or_insert_with(|| Group {
                key: g.key.clone(),
                session: g.session.clone(),
                ..Group::default()
            });
            mine.sessions += g.sessions;
            mine.totals.add(&g.totals);
        }
        self.total.add(&other.total);
        self.sessions += other.sessions;
    }

    /// The rows in display order: days oldest first; the rest by cost, then tokens, highest
    /// first (ties by key).
    pub fn rows(&self) -> Vec<&Group> {
        let mut rows: Vec<&Group> = self.groups.values().collect();
        if self.by != GroupBy::Day {
            rows.sort_by(|a, b| {
                b.totals
                    .cost
                    .total_cmp(&a.totals.cost)
                    .then(b.totals.tokens().cmp(&a.totals.tokens()))
                    .then(a.key.cmp(&b.key))
            });
        }
        rows
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(buckets: &[(&str, Option<&str>, u64, f64)]) -> SessionStats {
        let mut s = SessionStats::default();
        for (d, m, input, cost) in buckets {
            s.buckets.insert(
                (d.to_string(), m.map(str::to_owned)),
                Totals {
                    messages: 1,
                    input: *input,
                    cost: *cost,
                    ..Totals::default()
                },
            );
        }
        s
    }

    fn meta(path: &str, cwd: &str) -> SessionMeta {
        SessionMeta {
            path: path.into(),
            cwd: cwd.into(),
            ..SessionMeta::default()
        }
    }

    #[test]
    fn groups_sum_to_the_total_and_since_cuts_days() {
        let a = stats(&[
            ("2025-01-01", Some("m"), 10, 1.0),
            ("2025-01-02", None, 5, 0.0),
        ]);
        let b = stats(&[
            ("2025-01-02", Some("n"), 7, 2.0),
            (UNKNOWN_DAY, Some("m"), 1, 0.5),
        ]);
        for by in [
            GroupBy::Day,
            GroupBy::Project,
            GroupBy::Model,
            GroupBy::Session,
        ] {
            let mut r = Report::new(by, None);
            r.add_session(&meta("/a", "/p"), &a);
            r.add_session(&meta("/b", "/q"), &b);
            let mut sum = Totals::default();
            for g in r.rows() {
                sum.add(&g.totals);
            }
            assert_eq!(sum, r.total, "{by:?}");
            assert_eq!(r.total.input, 23);
            assert_eq!(r.sessions, 2);
        }
        let mut r = Report::new(GroupBy::Model, Some("2025-01-02".into()));
        r.add_session(&meta("/a", "/p"), &a);
        r.add_session(&meta("/b", "/q"), &b);
        let rows: Vec<_> = r
            .rows()
            .iter()
            .map(|g| (g.key.clone(), g.totals.input))
            .collect();
        assert_eq!(rows, vec![("n".into(), 7), (NO_MODEL.into(), 5)]);
    }
}
