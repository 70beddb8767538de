//! Where the session view's parts go: shared by `update` (page sizes) and the renderer. The
//! user sizes the panes ([`Panes`]): the tree's share of the body, and one pane zoomed to the
//! whole body.

use ratatui::layout::{Constraint, Direction, Layout, Rect};

use super::types::Focus;

/// Where the parts of the view go; shared by `update` (page sizes) and the renderer. A pane
/// hidden by the zoom has an empty area.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewLayout {
    pub header: Rect,
    pub tree: Rect,
    pub transcript: Rect,
    pub footer: Rect,
}

/// Side by side from this width, stacked below it.
pub const SIDE_BY_SIDE_MIN_WIDTH: u16 = 100;
/// The tree pane's share of the body (width side by side, height stacked), in percent.
pub const TREE_SHARE_SIDE: u16 = 42;
pub const TREE_SHARE_STACKED: u16 = 45;
/// `<` / `>` change the share by this much, within these bounds.
pub const TREE_SHARE_STEP: u16 = 6;
pub const TREE_SHARE_MIN: u16 = 18;
pub const TREE_SHARE_MAX: u16 = 78;

/// How the user sized the panes: kept for the run (a session opened later gets the same).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Panes {
    /// The tree's share of the body in percent; `None` for the default of the layout.
    pub tree_share: Option<u16>,
    /// The focused pane takes the whole body.
    pub zoomed: bool,
}

impl Panes {
    /// The tree's share at this terminal size.
    pub fn share(&self, area: Rect) -> u16 {
        self.tree_share
            .unwrap_or(if area.width >= SIDE_BY_SIDE_MIN_WIDTH {
                TREE_SHARE_SIDE
            } else {
                TREE_SHARE_STACKED
            })
    }

    /// `>` (wider) and `<` (narrower): the tree's share one step up or down, within bounds.
    pub fn resize_tree(&mut self, area: Rect, wider: bool) {
        let now = self.share(area);
        let next = if wider {
            now.saturating_add(TREE_SHARE_STEP)
        } else {
            now.saturating_sub(TREE_SHARE_STEP)
        };
        self.tree_share = Some(next.clamp(TREE_SHARE_MIN, TREE_SHARE_MAX));
    }
}

/// The default layout: no pane sized or zoomed.
pub fn layout(area: Rect) -> ViewLayout {
    layout_with(area, Panes::default(), Focus::Tree)
}

/// The layout with the user's pane sizes; `focus` is the pane a zoom shows.
pub fn layout_with(area: Rect, panes: Panes, focus: Focus) -> ViewLayout {
    let [header, body, footer] = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(1),
        ])
        .areas(area);
    let hidden = Rect {
        width: 0,
        height: 0,
        ..body
    };
    let [tree, transcript] = if panes.zoomed {
        match focus {
            Focus::Tree => [body, hidden],
            Focus::Transcript => [hidden, body],
        }
    } else {
        let share = panes.share(area).clamp(1, 99);
        let direction = if area.width >= SIDE_BY_SIDE_MIN_WIDTH {
            Direction::Horizontal
        } else {
            Direction::Vertical
        };
        Layout::default()
            .direction(direction)
            .constraints([
                Constraint::Percentage(share),
                Constraint::Percentage(100 - share),
            ])
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_step_within_bounds_and_zoom_takes_the_body() {
        let area = Rect::new(0, 0, 100, 30);
        let mut p = Panes::default();
        assert_eq!(layout_with(area, p, Focus::Tree), layout(area));
        assert_eq!(layout(area).tree.width, 42);
        p.resize_tree(area, true);
        assert_eq!(layout_with(area, p, Focus::Tree).tree.width, 48);
        for _ in 0..20 {
            p.resize_tree(area, false);
        }
        assert_eq!(p.tree_share, Some(TREE_SHARE_MIN));
        p.zoomed = true;
        let l = layout_with(area, p, Focus::Transcript);
        assert_eq!((l.transcript.width, l.transcript.height), (100, 28));
        assert_eq!(l.tree.width, 0);
    }
}
