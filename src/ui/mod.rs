//! Drawing the terminal UI from its state, one file per region: every styled line is built here.
//! Draw functions read the model and settings, and take only their widget's own state mutably
//! (windowed rows, tree state, scroll), which fits itself to the area as ratatui's `ListState`
//! does.

mod callout;
mod compare;
mod core_grid;
pub mod detail;
pub mod device_ops;
mod error_popup;
pub mod help;
mod late_list;
pub mod memory;
mod memory_holders;
mod memory_map;
pub mod operations;
pub mod over_time;
mod perf_table;
pub mod performance;
mod progress;
pub mod status;
mod tabs;
pub mod theme;
mod unattached;
mod unattached_popup;
mod view;
pub mod wrap;

pub use theme::Theme;
pub use view::View;

use crate::app::{App, Popup, Tab};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Paragraph;

/// The smallest terminal the UI draws in; below it, one line says so.
pub const MIN_SIZE: (u16, u16) = (60, 15);

/// The line drawn on a terminal smaller than `MIN_SIZE`.
pub const TOO_SMALL: &str = "terminal too small (need 60×15)";

/// Whether a terminal of this size is too small to draw the UI in.
pub fn too_small(area: Rect) -> bool {
    area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &mut App, theme: &Theme) {
    let area = frame.area();
    if too_small(area) {
        // What it says of keys pressed meanwhile (see `App::ignore_key`), when there is room.
        let width = area.width as usize;
        let lines: Vec<_> = std::iter::once(TOO_SMALL).chain(app.message()).map(|l| wrap::truncate(l, width)).collect();
        frame.render_widget(Paragraph::new(lines.join("\n")), area);
        return;
    }
    let [tabs_area, body, status_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Fill(1), Constraint::Length(2)]).areas(area);
    tabs::draw(frame, tabs_area, app, theme);
    let selected = app.selected_operation();
    let App { model, hex, tab, operations, device_ops, perf, memory, over_time, jobs, compare, .. } = app;
    let view = View { model, hex: *hex, theme };
    match tab {
        Tab::Operations => operations::draw(frame, body, (&view, compare.as_ref()), (operations, &memory.fixes)),
        Tab::DeviceOps => device_ops::draw(frame, body, &view, selected, device_ops),
        Tab::Performance => performance::draw(frame, body, &view, perf),
        Tab::Memory => memory::draw(frame, body, &view, selected, memory, &jobs.replay),
        Tab::OverTime => {
            over_time::draw(frame, body, (&view, compare.as_ref()), over_time, (over_time.pass(jobs), &jobs.before))
        }
    }
    status::draw(frame, status_area, app, theme);
    let from = app.tab_pane();
    let mut popup = app.popup;
    match &mut popup {
        Some(Popup::Help(scroll)) => help::draw(frame, popup_area(area, 80, 90), app, theme, from, scroll),
        Some(Popup::Error(id, scroll)) => {
            let view = View { model: &app.model, hex: app.hex, theme };
            // An operation gone from a watched report (never in practice: writers only append)
            // leaves no popup to draw.
            if let Some(operation) = app.model.operation_index(*id) {
                error_popup::draw(frame, popup_area(area, 90, 85), &view, operation, scroll);
            }
        }
        Some(Popup::Unattached(scroll)) => {
            let view = View { model: &app.model, hex: app.hex, theme };
            unattached_popup::draw(frame, popup_area(area, 90, 85), &view, scroll);
        }
        None => {}
    }
    app.popup = popup;
}

/// A centred rectangle of a percentage of the area, for a popup.
fn popup_area(area: Rect, width_percent: u16, height_percent: u16) -> Rect {
    area.centered(Constraint::Percentage(width_percent), Constraint::Percentage(height_percent))
}
