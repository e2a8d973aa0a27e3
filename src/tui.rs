//! The terminal loop: draw, read what the state asked for, draw again; then wait for keys (or a
//! worker's result), coalesce what is queued, update. No tick: the screen is drawn only when
//! something happened. Linking a performance report runs on a worker thread, so the first frame
//! never waits for it. The terminal is restored on exit, error and panic.

use crate::app::{App, Loaded, Model, PerfInput, PerfRows, Read, ReadResult, keymap};
use crate::report::linked::LinkedReports;
use crate::report::perf::PerfSource;
use crate::report::{MemoryReport, ReportError};
use crate::ui::{self, Theme};
use ratatui::backend::Backend;
use ratatui::crossterm::clipboard::CopyToClipboard;
use ratatui::crossterm::event::{self, Event};
use ratatui::crossterm::execute;
use ratatui::layout::Size;
use ratatui::{DefaultTerminal, Terminal};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Duration;

/// Set to make the loop panic at the first key: lets the test suite check that a panic restores
/// the terminal.
pub const PANIC_FOR_TEST: &str = "TTNN_TUI_PANIC_FOR_TEST";

/// How often the loop looks for a worker's result while one runs.
const WORKER_POLL: Duration = Duration::from_millis(50);

/// The state of a report: its model, opened on operation `operation` (an id) when given.
pub fn app_for(report: &MemoryReport, hex: bool, operation: Option<u64>) -> App {
    let failed_in = (0..report.operations.len())
        .filter(|&i| report.operations[i].error.is_some())
        .map(|i| (i, report.failed_device_operations(i).unwrap_or_default()))
        .collect();
    let model = Model::new(report.name.clone(), report.operations.clone(), report.errors.clone(), failed_in);
    App::new(model, hex, operation)
}

/// What the Performance tab needs from two linked reports.
pub fn perf_input(linked: LinkedReports) -> PerfInput {
    let LinkedReports { perf, rows, link, failed, fallbacks } = linked;
    let merged = PerfRows { max_cores: perf.max_cores(&rows), rows };
    let per_device = perf.has_per_device_view().then(|| {
        let rows = perf.rows(false);
        PerfRows { max_cores: perf.max_cores(&rows), rows }
    });
    // Why nothing linked: the link does not say yet.
    let unlinked_reason = None;
    let file_name = perf.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let file_name = crate::analysis::sanitize::sanitize_line(&file_name);
    PerfInput { file_name, merged, per_device, link, unlinked_reason, failed, fallbacks }
}

/// Reads what the state asked for.
pub fn perform(report: &MemoryReport, reads: Vec<Read>) -> Vec<ReadResult> {
    reads
        .into_iter()
        .map(|read| match read {
            Read::StackTraces(indexes) => ReadResult::StackTraces(loaded(report.stack_traces(&indexes))),
            Read::Arguments(i) => ReadResult::Arguments(i, loaded(report.arguments(i))),
            Read::Graph(i) => ReadResult::Graph(i, loaded(report.graph(i))),
        })
        .collect()
}

/// A read's result as the state keeps it: the value, or why it is unavailable.
fn loaded<T>(result: Result<T, ReportError>) -> Loaded<T> {
    match result {
        Ok(value) => Loaded::Ready(value),
        Err(e) => Loaded::Unavailable(e.to_string()),
    }
}

/// Draws at once, then reads what the drawn screen needs (stack traces of the rows it showed, the
/// selected operation's arguments or graph) and draws again if anything was read, so a slow read
/// never delays the first frame. Tests call this after every action.
pub fn frame<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    report: &MemoryReport,
    theme: &Theme,
) -> Result<(), B::Error> {
    terminal.draw(|f| ui::draw(f, app, theme))?;
    let reads = app.pending_reads();
    if !reads.is_empty() {
        for result in perform(report, reads) {
            app.deliver(result);
        }
        terminal.draw(|f| ui::draw(f, app, theme))?;
    }
    Ok(())
}

/// Runs the UI on the real terminal until the user quits; `perf` is linked on a worker thread
/// after the first frame. Call `color_eyre::install()` first: `ratatui::run`'s panic hook then
/// restores the terminal before color-eyre prints.
pub fn run(report: &MemoryReport, mut app: App, theme: Theme, perf: Option<PerfSource>) -> std::io::Result<()> {
    theme.prepare_terminal();
    let linking = perf.map(|perf| {
        app.set_perf_linking(perf.file_name());
        link_in_background(report, perf)
    });
    ratatui::run(|terminal| event_loop(terminal, report, &mut app, &theme, linking))
}

/// Reads the performance report and links it on a worker thread, which opens the memory report
/// again (a second read-only connection).
pub fn link_in_background(report: &MemoryReport, perf: PerfSource) -> Receiver<Result<PerfInput, String>> {
    let (sender, receiver) = channel();
    let (source, rank) = (report.source.clone(), report.rank);
    std::thread::spawn(move || {
        let linked = perf.open().and_then(|perf| {
            let memory = MemoryReport::open(&source, rank)?;
            LinkedReports::new(&memory, perf)
        });
        // The UI may have quit already: then nobody listens.
        let _ = sender.send(linked.map(perf_input).map_err(|e| e.to_string()));
    });
    receiver
}

fn event_loop(
    terminal: &mut DefaultTerminal,
    report: &MemoryReport,
    app: &mut App,
    theme: &Theme,
    mut linking: Option<Receiver<Result<PerfInput, String>>>,
) -> std::io::Result<()> {
    let panic_for_test = std::env::var_os(PANIC_FOR_TEST).is_some_and(|v| !v.is_empty());
    let mut size = terminal.size()?;
    loop {
        frame(terminal, app, report, theme)?;
        if let Some(text) = app.take_clipboard() {
            execute!(std::io::stdout(), CopyToClipboard::to_clipboard_from(text))?;
        }
        if app.should_quit() {
            // Leave a blank alternate screen: tmux carries rows of it over to the normal screen
            // when the pane was widened during the run.
            terminal.clear()?;
            return Ok(());
        }
        // Block for one event (polling while a worker runs), then take whatever is queued.
        let mut events = Vec::new();
        if linking.is_none() || event::poll(WORKER_POLL)? {
            events.push(event::read()?);
            while event::poll(Duration::ZERO)? {
                events.push(event::read()?);
            }
        }
        if let Some(receiver) = &linking {
            match receiver.try_recv() {
                Ok(result) => {
                    deliver_link(app, result);
                    linking = None;
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => {
                    deliver_link(app, Err("the linking thread stopped".to_string()));
                    linking = None;
                }
            }
        }
        for event in events {
            match event {
                Event::Resize(width, height) => size = Size::new(width, height),
                Event::Key(key) => {
                    let Some(action) = keymap(key, app.pane()) else { continue };
                    assert!(!panic_for_test, "panic requested by {PANIC_FOR_TEST}");
                    // Keys pressed while the screen says it is too small are not acted on unseen.
                    if ui::too_small(ratatui::layout::Rect::new(0, 0, size.width, size.height))
                        && action != crate::app::Action::Quit
                    {
                        continue;
                    }
                    app.update(action);
                    if app.should_quit() {
                        break;
                    }
                }
                _ => {}
            }
        }
    }
}

fn deliver_link(app: &mut App, result: Result<PerfInput, String>) {
    match result {
        Ok(input) => app.set_perf(input),
        Err(reason) => app.set_perf_failed(reason),
    }
}
