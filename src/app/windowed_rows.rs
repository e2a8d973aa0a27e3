//! The one windowed-rows type of the UI — selection, offset, height, paging, keeping the selection
//! visible — used by every list and table; and the scroll position of a text pane. Like ratatui's
//! `ListState`, the offset is fitted to the height by the state itself (`fit`, called when the view
//! is rendered), never patched by a draw function.

use super::keys::Action;
use std::ops::Range;

/// A selection over `len` rows, of which `height` lines show from row `offset`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct WindowedRows {
    len: usize,
    selected: usize,
    offset: usize,
    height: usize,
    center: bool,
}

impl WindowedRows {
    /// A view over `len` rows, the first selected.
    pub fn new(len: usize) -> Self {
        Self { len, ..Self::default() }
    }

    /// How many rows there are.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The selected row, when there are rows.
    pub(crate) fn selected(&self) -> Option<usize> {
        (self.selected < self.len).then_some(self.selected)
    }

    /// The first row shown.
    pub(crate) fn offset(&self) -> usize {
        self.offset
    }

    /// Lines shown at the last fit (0 before the first).
    pub(crate) fn height(&self) -> usize {
        self.height
    }

    /// The rows shown at the last fit (at most `height` of them, fewer when rows are taller).
    pub(crate) fn visible(&self) -> Range<usize> {
        self.offset.min(self.len)..(self.offset + self.height).min(self.len)
    }

    /// Changes the number of rows (the list grew), keeping the selection and the offset.
    pub fn set_len(&mut self, len: usize) {
        self.len = len;
        self.selected = self.selected.min(len.saturating_sub(1));
        self.offset = self.offset.min(self.selected);
    }

    /// Selects a row (clamped) and scrolls it into view, counting a line per row until the next
    /// fit measures them.
    pub(crate) fn select(&mut self, row: usize) {
        self.selected = row.min(self.len.saturating_sub(1));
        let height = self.height.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
    }

    /// Selects a row and puts it in the middle of the view at the next fit.
    pub(crate) fn select_centered(&mut self, row: usize) {
        self.select(row);
        self.center = true;
    }

    /// Applies a move (`Up`, `Down`, pages, ends); false for any other action.
    pub(crate) fn apply(&mut self, action: Action) -> bool {
        let page = self.height.max(1);
        let s = self.selected;
        let target = match action {
            Action::Down => s + 1,
            Action::Up => s.saturating_sub(1),
            Action::PageDown => s + page,
            Action::PageUp => s.saturating_sub(page),
            Action::HalfPageDown => s + page.div_ceil(2),
            Action::HalfPageUp => s.saturating_sub(page.div_ceil(2)),
            Action::First => 0,
            Action::Last => usize::MAX,
            _ => return false,
        };
        self.select(target);
        true
    }

    /// Fits the offset to `height` lines, rows taking `row_height(row)` lines each (measured only
    /// near the selection): the selected row is fully visible, centred when asked for.
    pub(crate) fn fit(&mut self, height: usize, row_height: impl Fn(usize) -> usize) {
        self.height = height;
        if self.len == 0 || height == 0 {
            self.offset = 0;
            return;
        }
        self.selected = self.selected.min(self.len - 1);
        if std::mem::take(&mut self.center) {
            // At most half the height above the selected row.
            let mut above = 0;
            self.offset = self.selected;
            while self.offset > 0 && above + row_height(self.offset - 1) <= height / 2 {
                self.offset -= 1;
                above += row_height(self.offset);
            }
        }
        if self.selected < self.offset {
            self.offset = self.selected;
        } else {
            // The smallest offset from which the rows up to the selected one fit.
            let mut first = self.selected;
            let mut used = row_height(first);
            while first > self.offset && used + row_height(first - 1) <= height {
                first -= 1;
                used += row_height(first);
            }
            if used > height || first > self.offset {
                self.offset = first;
            }
        }
        self.fill_below(height, &row_height);
    }

    /// Pulls the offset back while the rows from it to the last leave lines empty below them: a
    /// view near the end (centred on a late row) shows the rows above instead of blank lines.
    fn fill_below(&mut self, height: usize, row_height: impl Fn(usize) -> usize) {
        let mut used = 0;
        for row in self.offset..self.len {
            used += row_height(row);
            if used >= height {
                return;
            }
        }
        while self.offset > 0 && used + row_height(self.offset - 1) <= height {
            self.offset -= 1;
            used += row_height(self.offset);
        }
    }
}

/// The scroll position of a text pane, clamped to its content at each fit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Scroll {
    offset: usize,
    max: usize,
}

impl Scroll {
    /// The first line shown.
    pub(crate) fn offset(&self) -> usize {
        self.offset
    }

    /// Scrolls by `lines` (negative: up), within the content of the last fit.
    pub(crate) fn by(&mut self, lines: isize) {
        self.offset = self.offset.saturating_add_signed(lines).min(self.max);
    }

    /// Scrolls by a text action: lines, pages of `page` lines, top and bottom.
    pub(crate) fn apply(&mut self, action: Action, page: usize) -> bool {
        let page = page.max(1) as isize;
        match action {
            Action::Down => self.by(1),
            Action::Up => self.by(-1),
            Action::PageDown | Action::HalfPageDown => self.by(page),
            Action::PageUp | Action::HalfPageUp => self.by(-page),
            Action::First => self.offset = 0,
            Action::Last => self.offset = self.max,
            _ => return false,
        }
        true
    }

    /// Back to the top.
    pub(crate) fn reset(&mut self) {
        self.offset = 0;
    }

    /// Clamps to `content` lines shown `height` at a time.
    pub(crate) fn fit(&mut self, content: usize, height: usize) {
        self.max = content.saturating_sub(height);
        self.offset = self.offset.min(self.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_pages_and_ends_keep_the_selection_in_view() {
        let mut rows = WindowedRows::new(100);
        rows.fit(10, |_| 1);
        rows.apply(Action::PageDown);
        assert_eq!((rows.selected(), rows.offset()), (Some(10), 1));
        rows.apply(Action::Last);
        assert_eq!((rows.selected(), rows.offset()), (Some(99), 90));
        rows.apply(Action::HalfPageUp);
        assert_eq!((rows.selected(), rows.offset()), (Some(94), 90));
        rows.apply(Action::First);
        assert_eq!((rows.selected(), rows.offset(), rows.visible()), (Some(0), 0, 0..10));
        assert!(!rows.apply(Action::Toggle));
    }

    #[test]
    fn taller_rows_move_the_offset_at_the_fit() {
        let mut rows = WindowedRows::new(10);
        rows.fit(6, |_| 1);
        rows.select(3);
        // Row 2 takes 4 lines: rows 2 and 3 no longer fit below row 0.
        rows.fit(6, |r| if r == 2 { 4 } else { 1 });
        assert_eq!(rows.offset(), 1);
        // A row taller than the view is shown from its start.
        rows.fit(3, |r| if r == 3 { 5 } else { 1 });
        assert_eq!(rows.offset(), 3);
    }

    #[test]
    fn centring_and_an_empty_view() {
        let mut rows = WindowedRows::new(1000);
        rows.select_centered(500);
        rows.fit(20, |_| 1);
        assert_eq!(rows.offset(), 490);
        let mut empty = WindowedRows::new(0);
        empty.apply(Action::Down);
        empty.fit(5, |_| 1);
        assert_eq!((empty.selected(), empty.visible()), (None, 0..0));
    }

    #[test]
    fn rows_fill_the_view_when_the_selection_is_near_the_end() {
        // 10 rows, 10 lines: centring on row 8 shows rows 0–9, not 4–9 and four blank lines.
        let mut rows = WindowedRows::new(10);
        rows.select_centered(8);
        rows.fit(10, |_| 1);
        assert_eq!((rows.offset(), rows.visible()), (0, 0..10));
        // More rows than lines: the last ones fill the view to its bottom.
        let mut rows = WindowedRows::new(30);
        rows.select_centered(28);
        rows.fit(10, |_| 1);
        assert_eq!(rows.visible(), 20..30);
        // A list that shrank under its offset, and taller rows: no blank line left below.
        let mut rows = WindowedRows::new(30);
        rows.select(29);
        rows.fit(10, |_| 1);
        rows.set_len(12);
        rows.fit(10, |r| if r == 11 { 3 } else { 1 });
        assert_eq!((rows.offset(), rows.selected()), (4, Some(11)));
    }

    #[test]
    fn text_scroll_stays_within_its_content() {
        let mut scroll = Scroll::default();
        scroll.fit(30, 10);
        scroll.apply(Action::PageDown, 10);
        scroll.apply(Action::PageDown, 10);
        scroll.apply(Action::PageDown, 10);
        assert_eq!(scroll.offset(), 20);
        scroll.apply(Action::Up, 10);
        scroll.fit(12, 10);
        assert_eq!(scroll.offset(), 2);
        scroll.apply(Action::First, 10);
        assert_eq!(scroll.offset(), 0);
    }
}
