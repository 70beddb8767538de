//! Orders of sessions beyond pi's (recent, relevance, threaded): by creation time, file size or
//! cost, largest (newest) first; ties go to the most recently modified, then the path.

use std::cmp::Ordering;

use crate::model::info::SessionInfo;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionKey {
    Created,
    Size,
    Cost,
}

impl SessionKey {
    /// `a` before `b` when its key is larger.
    pub fn compare(self, a: &SessionInfo, b: &SessionInfo) -> Ordering {
        let by_key = match self {
            SessionKey::Created => b.created_ms.cmp(&a.created_ms),
            SessionKey::Size => b.bytes.cmp(&a.bytes),
            SessionKey::Cost => b.cost.total_cmp(&a.cost),
        };
        by_key
            .then(b.modified_ms.cmp(&a.modified_ms))
            .then_with(|| a.path.cmp(&b.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_first_then_most_recent() {
        let s = |path: &str, created: i64, bytes: u64, cost: f64, modified: i64| SessionInfo {
            path: path.into(),
            created_ms: Some(created),
            bytes,
            cost,
            modified_ms: modified,
            ..SessionInfo::default()
        };
        let mut v = [
            s("a", 1, 30, 0.5, 1),
            s("b", 3, 10, 0.5, 2),
            s("c", 2, 20, 2.0, 3),
        ];
        let order = |v: &mut [SessionInfo], k: SessionKey| {
            v.sort_by(|x, y| k.compare(x, y));
            v.iter()
                .map(|s| s.path.to_string_lossy().into_owned())
                .collect::<String>()
        };
        assert_eq!(order(&mut v, SessionKey::Created), "bca");
        assert_eq!(order(&mut v, SessionKey::Size), "acb");
        assert_eq!(order(&mut v, SessionKey::Cost), "cba");
    }
}
