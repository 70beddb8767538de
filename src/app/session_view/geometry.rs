//! Where the session view's parts go: shared by `update` (page sizes) and the renderer.

use ratatui::layout::{Constraint, Direction, Layout, Rect};

/// Where the parts of the view go; shared by `update` (page sizes) and the renderer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewLayout {
    pub header: Rect,
    pub tree: Rect,
    pub transcript: Rect,
    pub footer: Rect,
}

/// Side by side from this width, stacked below it.
pub const SIDE_BY_SIDE_MIN_WIDTH: u16 = 100;

pub fn layout(area: Rect) -> ViewLayout {
    let [header, body, footer] = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(1),
        ])
        .areas(area);
    let [tree, transcript] = if area.width >= SIDE_BY_SIDE_MIN_WIDTH {
        Layout::default()
            .direction(Direction::Horizontal)
            .constraints([Constraint::Percentage(42), Constraint::Percentage(58)])
            .areas(body)
    } else {
        Layout::default()
            .direction(Direction::Vertical)
            .constraints([Constraint::Percentage(45), Constraint::Percentage(55)])
            .areas(body)
    };
    ViewLayout {
        header,
        tree,
        transcript,
        footer,
    }
}

/// The inside of a bordered pane.
pub fn inner(r: Rect) -> Rect {
    Rect {
        x: r.x.saturating_add(1),
        y: r.y.saturating_add(1),
        width: r.width.saturating_sub(2),
        height: r.height.saturating_sub(2),
    }
}
