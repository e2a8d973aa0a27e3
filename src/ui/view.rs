//! What every region reads (`View`), and clearing a popup's area before it is drawn.

use super::theme::Theme;
use crate::app::Model;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Clear;

/// What every region reads: the model, the address base and the styles.
pub struct View<'a> {
    /// The memory report as shown.
    pub model: &'a Model,
    /// Hexadecimal addresses.
    pub hex: bool,
    /// Styles.
    pub theme: &'a Theme,
}

/// Clears a popup's area before drawing it.
pub(super) fn clear(frame: &mut Frame, area: Rect) {
    frame.render_widget(Clear, area);
}
