//! The columns at the right of a session row, chosen in the config:
//! `[picker] columns = ["outcome", "model", "cost", "messages", "age"]`.

use crate::model::info::SessionInfo;
use crate::model::stats::outcome::Outcome;
use crate::text::sanitize::{sanitize_line, truncate_width};

use super::format::{format_age, format_date};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// Message count (pi's).
    Messages,
    /// Time since the last activity (pi's).
    Age,
    /// Creation date.
    Created,
    /// File size.
    Size,
    /// The last assistant message's model.
    Model,
    /// Cost so far, as pi counts it.
    Cost,
    /// How the last turn ended.
    Outcome,
}

impl Column {
    pub const ALL: [Column; 7] = [
        Column::Messages,
        Column::Age,
        Column::Created,
        Column::Size,
        Column::Model,
        Column::Cost,
        Column::Outcome,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Column::Messages => "messages",
            Column::Age => "age",
            Column::Created => "created",
            Column::Size => "size",
            Column::Model => "model",
            Column::Cost => "cost",
            Column::Outcome => "outcome",
        }
    }

    /// The cell of a session, padded to the column's width.
    pub fn cell(self, info: &SessionInfo, now_ms: i64) -> String {
        match self {
            Column::Messages => format!("{:>3}", info.message_count),
            Column::Age => format!("{:>3}", format_age(now_ms, info.modified_ms)),
            Column::Created => match info.created_ms {
                Some(ms) => format_date(ms).get(..10).unwrap_or("").to_owned(),
                None => format!("{:10}", "-"),
            },
            Column::Size => format!("{:>6}", human_bytes(info.bytes)),
            Column::Model => {
                let m = sanitize_line(info.model.as_deref().unwrap_or("-"));
                format!("{:<18}", truncate_width(&m, 18))
            }
            Column::Cost => format!("{:>7}", format!("${:.2}", info.cost)),
            Column::Outcome => format!(
                "{:<10}",
                Outcome::of(info.last_stop_reason.as_deref()).map_or("-", Outcome::label)
            ),
        }
    }
}

/// pi's columns: the message count and the age.
pub const DEFAULT_COLUMNS: [Column; 2] = [Column::Messages, Column::Age];

/// `950B`, `12.3K`, `4.1M`, `1.2G`.
pub fn human_bytes(n: u64) -> String {
    match n {
        0..1024 => format!("{n}B"),
        1024..1_048_576 => format!("{:.1}K", n as f64 / 1024.0),
        1_048_576..1_073_741_824 => format!("{:.1}M", n as f64 / 1_048_576.0),
        _ => format!("{:.1}G", n as f64 / 1_073_741_824.0),
    }
}

/// The columns a config names (`None`: the defaults), and one problem per unknown or repeated
/// name (left out; the rest still apply).
pub fn resolve(names: Option<&[String]>) -> (Vec<Column>, Vec<String>) {
    let Some(names) = names else {
        return (DEFAULT_COLUMNS.to_vec(), Vec::new());
    };
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for n in names {
        match Column::ALL.iter().find(|c| c.name() == n.trim()) {
            Some(c) if out.contains(c) => problems.push(format!(
                "[picker] columns: `{}` is listed twice",
                sanitize_line(n)
            )),
            Some(c) => out.push(*c),
            None => problems.push(format!(
                "[picker] columns: unknown column `{}` (known: {})",
                sanitize_line(n),
                Column::ALL.map(Column::name).join(", ")
            )),
        }
    }
    (out, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_and_problems_are_reported() {
        assert_eq!(resolve(None).0, DEFAULT_COLUMNS.to_vec());
        let names: Vec<String> = ["cost", "bogus", "cost", "outcome"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (cols, problems) = resolve(Some(&names));
        assert_eq!(cols, vec![Column::Cost, Column::Outcome]);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("unknown column `bogus`"));
        assert!(problems[1].contains("twice"));
    }

    #[test]
    fn cells_show_each_field() {
        let info = SessionInfo {
            bytes: 2048,
            cost: 1.234,
            created_ms: Some(0),
            model: Some("gpt-5\u{1b}[31m".into()),
            last_stop_reason: Some("aborted".into()),
            ..SessionInfo::default()
        };
        let cells: Vec<String> = Column::ALL.iter().map(|c| c.cell(&info, 0)).collect();
        assert_eq!(
            cells,
            [
                "  0",
                "now",
                "1970-01-01",
                "  2.0K",
                "gpt-5^[[31m       ",
                "  $1.23",
                "aborted   "
            ]
        );
    }
}
