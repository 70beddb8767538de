//! Screen geometry shared by the views and by `update` (page size, mouse hits), so both always
//! agree on where things are.

use ratatui::layout::Rect;

/// Below this size only a "too small" message is drawn.
pub(crate) const MIN_WIDTH: u16 = 40;
pub(crate) const MIN_HEIGHT: u16 = 8;

pub fn too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

/// Where the parts of the picker go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PickerLayout {
    /// Title, scope, loading progress, name filter, sort.
    pub title: Rect,
    /// Hints, a status message or the delete prompt.
    pub status: Rect,
    /// The search input.
    pub input: Rect,
    /// A rule with the position counter.
    pub separator: Rect,
    pub list: Rect,
    pub preview: Option<Rect>,
    /// Key hints.
    pub footer: Rect,
}

pub(crate) fn picker_layout(area: Rect, with_preview: bool) -> PickerLayout {
    let line = |y: u16, width: u16| Rect::new(area.x, y, width, 1);
    let top = area.y;
    let body_h = area.height.saturating_sub(5);
    let (list_w, preview) = if with_preview {
        let pw = (area.width * 45 / 100)
            .max(40)
            .min(area.width.saturating_sub(40));
        let lw = area.width - pw;
        let preview = Rect::new(area.x + lw, top + 2, pw, area.height.saturating_sub(3));
        (lw, Some(preview))
    } else {
        (area.width, None)
    };
    PickerLayout {
        title: line(top, area.width),
        status: line(top + 1, area.width),
        input: line(top + 2, list_w),
        separator: line(top + 3, list_w),
        list: Rect::new(area.x, top + 4, list_w, body_h),
        preview,
        footer: line(top + area.height.saturating_sub(1), area.width),
    }
}

/// The first visible row: the selection is kept near the middle, as in pi.
pub(crate) fn list_window_start(selected: usize, len: usize, height: usize) -> usize {
    if height == 0 || len <= height {
        return 0;
    }
    selected.saturating_sub(height / 2).min(len - height)
}

/// The session view: a title line, the body, a footer line.
pub(crate) fn view_body(area: Rect) -> Rect {
    Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(2),
    )
}
