//! The terminal loop: one synchronous loop (draw, block on a key, coalesce queued keys, update,
//! load, draw), no tick and no mouse capture; the terminal is restored on exit, error and panic.

use crate::app::{App, keymap};
use crate::report::MemoryReport;
use crate::ui;
use ratatui::backend::Backend;
use ratatui::crossterm::clipboard::CopyToClipboard;
use ratatui::crossterm::event::{self, Event};
use ratatui::crossterm::execute;
use ratatui::{DefaultTerminal, Terminal};
use std::time::Duration;

/// Set to make the loop panic at the first key: lets the test suite check that a panic restores
/// the terminal.
pub const PANIC_FOR_TEST: &str = "TTNN_TUI_PANIC_FOR_TEST";

/// Runs the UI on the real terminal until the user quits. Call `color_eyre::install()` first:
/// `ratatui::run`'s panic hook then restores the terminal before color-eyre prints.
pub fn run(report: &MemoryReport, mut app: App) -> std::io::Result<()> {
    app.theme.prepare_terminal();
    ratatui::run(|terminal| event_loop(terminal, report, &mut app))
}

fn event_loop(terminal: &mut DefaultTerminal, report: &MemoryReport, app: &mut App) -> std::io::Result<()> {
    let panic_for_test = std::env::var_os(PANIC_FOR_TEST).is_some_and(|v| !v.is_empty());
    loop {
        frame(terminal, app, report)?;
        if let Some(text) = app.clipboard.take() {
            execute!(std::io::stdout(), CopyToClipboard::to_clipboard_from(text))?;
        }
        if app.quit {
            return Ok(());
        }
        // Block for one event, then take whatever is already queued, and draw once.
        let mut events = vec![event::read()?];
        while event::poll(Duration::ZERO)? {
            events.push(event::read()?);
        }
        for event in events {
            if let Event::Key(key) = event
                && let Some(action) = keymap(key, app.pane())
            {
                assert!(!panic_for_test, "panic requested by {PANIC_FOR_TEST}");
                app.update(action);
                if app.quit {
                    break;
                }
            }
        }
    }
}

/// Draws at once, then loads what the drawn screen needs (stack traces of the rows it showed,
/// the selected operation's arguments or graph) and draws again if anything was loaded, so a
/// slow read never delays the first frame. Tests call this after every action.
pub fn frame<B: Backend>(terminal: &mut Terminal<B>, app: &mut App, report: &MemoryReport) -> Result<(), B::Error> {
    terminal.draw(|f| ui::draw(f, app))?;
    if app.load(report) {
        terminal.draw(|f| ui::draw(f, app))?;
    }
    Ok(())
}
