//! Pure rendering of the terminal UI, one file per region. `draw` records the measured heights
//! in the state (the visible rows), nothing else.

pub mod detail;
pub mod device_ops;
pub mod error_popup;
pub mod help;
pub mod operations;
pub mod status;
pub mod tabs;
pub mod theme;
pub mod unattached;

use crate::app::{App, Popup, Tab};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Clear, Paragraph};

/// The smallest terminal the UI draws in; below it, one line says so.
pub const MIN_SIZE: (u16, u16) = (60, 15);

/// The line drawn on a terminal smaller than `MIN_SIZE`.
pub const TOO_SMALL: &str = "terminal too small (need 60×15)";

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &mut App) {
    let area = frame.area();
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        frame.render_widget(Paragraph::new(TOO_SMALL), area);
        return;
    }
    let [tabs_area, body, status_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Fill(1), Constraint::Length(2)]).areas(area);
    tabs::draw(frame, app, tabs_area);
    match app.tab {
        Tab::Operations => operations::draw_tab(frame, app, body),
        Tab::DeviceOps => device_ops::draw(frame, app, body),
        Tab::Performance => frame.render_widget(
            Paragraph::new(performance_text(app.perf_linked)).style(app.theme.dim),
            body.inner(ratatui::layout::Margin::new(1, 1)),
        ),
    }
    status::draw(frame, app, status_area);
    match app.popup {
        Some(Popup::Help { scroll }) => help::draw(frame, app, popup_area(area, 80, 90), scroll),
        Some(Popup::Error { operation, scroll }) => {
            error_popup::draw(frame, app, popup_area(area, 90, 85), operation, scroll)
        }
        None => {}
    }
}

/// The Performance tab's text until the performance table is drawn in the terminal.
pub fn performance_text(linked: bool) -> &'static str {
    if linked {
        "Performance report linked — its table is not shown here yet; `ttnn-tui explain` prints the callout"
    } else {
        "No performance report loaded — pass --perf"
    }
}

/// A centred rectangle of a percentage of the area, cleared for a popup.
fn popup_area(area: Rect, width_percent: u16, height_percent: u16) -> Rect {
    area.centered(Constraint::Percentage(width_percent), Constraint::Percentage(height_percent))
}

/// Clears a popup's area before drawing it.
fn clear(frame: &mut Frame, area: Rect) {
    frame.render_widget(Clear, area);
}
