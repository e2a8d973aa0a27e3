//! The terminal loop: draw, read what the state asked for, draw again; then wait for keys or a
//! worker's message (one channel, no polling), coalesce what is queued, update. No tick: the
//! screen is drawn only when something happened. Linking a performance report, replaying every
//! graph, the pass over `buffers`, tab 4's memory at a failure and its fix replays run as workers, so none delays a frame. The terminal is
//! restored on exit, error and panic.

mod compare;
mod events;
mod pass;
mod passes;
mod picture;
mod replays;
mod session;
pub mod worker;
mod workers;

pub use compare::{BeforePass, comparison};
use events::{Events, Wake};
pub use pass::{JobPass, Pass, Slot, start_worker};
pub use passes::{LinkOutput, LinkPass, ReplayOutput, ReplayPass, RunOverTime, UsageOutput, UsagePass, perf_input};
pub use picture::{PictureOutput, PicturePass};
pub use replays::{FixesOutput, FixesPass, WhatIfOutput, WhatIfPass};
pub use session::{Session, app_for};
pub use workers::Workers;

use crate::app::{Action, App, keymap};
use crate::report::perf::perf_report::PerfSource;
use crate::ui::{self, Theme};
use ratatui::backend::{Backend, ClearType};
use ratatui::crossterm::clipboard::CopyToClipboard;
use ratatui::crossterm::event::Event;
use ratatui::crossterm::execute;
use ratatui::layout::{Rect, Size};
use ratatui::{DefaultTerminal, Terminal};
use std::time::Duration;

/// Set to make the loop panic at the first key: lets the test suite check that a panic restores
/// the terminal.
pub const PANIC_FOR_TEST: &str = "TTNN_TUI_PANIC_FOR_TEST";

/// How often a watched report is asked whether a writer committed.
const WATCH_POLL: Duration = Duration::from_millis(500);

/// Draws at once, then reads what the drawn screen needs (stack traces of the rows it showed, the
/// selected operation's arguments, graph or memory snapshot) and draws again if anything was
/// read, so a slow read never delays the first frame. It never replays and never reads the
/// memory at a failure: a failure's picture (`picture.rs`), its fixes and the fixes typed
/// (`replays.rs`) are background passes, started by the loop after the frame. Tests call this after every action. Returns the size
/// drawn at: what the screen shows until the next frame.
pub fn frame<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    session: &Session,
    theme: &Theme,
) -> Result<Size, B::Error> {
    let mut area = terminal.draw(|f| ui::draw(f, app, theme))?.area;
    // What a read brings may ask for more (the selected row's trace, then its picture): a few rounds.
    for _ in 0..3 {
        let reads = app.pending_reads();
        if reads.is_empty() {
            break;
        }
        for result in session.perform(reads) {
            app.deliver(result);
        }
        area = terminal.draw(|f| ui::draw(f, app, theme))?.area;
    }
    Ok(area.as_size())
}

/// Applies a key's action on a screen last drawn at `size`. Keys pressed while the screen says it
/// is too small are not acted on unseen (quitting excepted): they are counted, and the screen says
/// so. The size drawn, not the latest resize event: a frame may be drawn at a new size (the
/// terminal is asked at each draw) before the loop reads the resize event.
pub fn act(app: &mut App, action: Action, size: Size) {
    if ui::too_small(Rect::new(0, 0, size.width, size.height)) && action != Action::Quit {
        app.ignore_key();
    } else {
        app.update(action);
    }
}

/// Runs the UI on the real terminal until the user quits; `perf` is linked on a worker thread
/// after the first frame. Call `color_eyre::install()` first: `ratatui::run`'s panic hook then
/// restores the terminal before color-eyre prints.
pub fn run(session: &mut Session, mut app: App, theme: Theme, perf: Option<PerfSource>) -> std::io::Result<()> {
    theme.prepare_terminal();
    ratatui::run(|terminal| {
        let events = Events::start();
        let mut workers = Workers::new(events.waker());
        if let Some(perf) = perf {
            workers.link(session, &mut app, perf);
        }
        event_loop(terminal, session, &mut app, &theme, &mut workers, &events)
    })
}

/// The loop: draw, start the jobs the state wants, wait for news, apply the keys; until a quit.
fn event_loop(
    terminal: &mut DefaultTerminal,
    session: &mut Session,
    app: &mut App,
    theme: &Theme,
    workers: &mut Workers,
    events: &Events,
) -> std::io::Result<()> {
    let panic_for_test = std::env::var_os(PANIC_FOR_TEST).is_some_and(|v| !v.is_empty());
    let watched = session.report.is_watched();
    if watched {
        app.set_live();
    }
    let mut last_poll = std::time::Instant::now();
    loop {
        let size = frame(terminal, app, session, theme)?;
        workers.start_wanted(session, app);
        if let Some(text) = app.take_clipboard() {
            execute!(std::io::stdout(), CopyToClipboard::to_clipboard_from(text))?;
        }
        if app.should_quit() {
            // Leave a blank alternate screen: tmux carries rows of it over to the normal screen
            // when the pane was widened during the run. (Not `terminal.clear()`: it asks the
            // terminal where the cursor is, and the answer goes to the thread reading events.)
            terminal.backend_mut().clear_region(ClearType::All)?;
            return Ok(());
        }
        let keys = wait_for_news(session, app, workers, events, watched.then_some(&mut last_poll))?;
        // A resize needs no handling: the next frame is drawn at the terminal's size.
        apply_keys(app, keys, size, panic_for_test);
    }
}

/// Blocks until a terminal event or a worker's message (or, for a watched report, whose last
/// poll is `last_poll`, the next poll) and returns the terminal events; a worker's news alone, or
/// a watched report's change, is worth a redraw and returns none.
fn wait_for_news(
    session: &mut Session,
    app: &mut App,
    workers: &mut Workers,
    events: &Events,
    mut last_poll: Option<&mut std::time::Instant>,
) -> std::io::Result<Vec<Event>> {
    let mut keys = Vec::new();
    loop {
        let wait = last_poll.as_deref().map(|last| WATCH_POLL.saturating_sub(last.elapsed()));
        for wake in events.wait(wait) {
            match wake {
                Wake::Terminal(event) => keys.push(event),
                Wake::TerminalFailed(e) => return Err(e),
                Wake::Worker => {}
            }
        }
        let mut changed = false;
        if let Some(last) = last_poll.as_deref_mut()
            && last.elapsed() >= WATCH_POLL
        {
            *last = std::time::Instant::now();
            changed |= session.poll_changes(app);
        }
        changed |= workers.collect(session, app);
        // A resize has no key, but the screen must be drawn at the new size.
        if changed || !keys.is_empty() {
            return Ok(keys);
        }
    }
}

/// Applies the keys of `events` in order on a screen drawn at `size`, stopping at a quit.
fn apply_keys(app: &mut App, events: Vec<Event>, size: Size, panic_for_test: bool) {
    for event in events {
        let Event::Key(key) = event else { continue };
        let Some(action) = keymap(key, app.pane()) else { continue };
        assert!(!panic_for_test, "panic requested by {PANIC_FOR_TEST}");
        act(app, action, size);
        if app.should_quit() {
            break;
        }
    }
}
