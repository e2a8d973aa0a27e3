//! NO_COLOR: the bytes the crossterm backend writes keep reverse video on the selected row
//! (docs/rules/terminal.md, "NO_COLOR trap"). One test in its own binary, since it sets NO_COLOR.

use crate::tui_support;

use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use ttnn_tui::app::Action;
use ttnn_tui::cli::ColorChoice;
use ttnn_tui::ui::Theme;
use tui_support::scenario;

/// A writer whose bytes the test can read after the backend wrote them.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The bytes of one frame with the second operation (an error, so its marker is styled) selected.
fn frame_bytes(theme: Theme) -> String {
    let report = scenario(0).open();
    let mut app = ttnn_tui::tui::app_for(&report, false, Some(2));
    app.update(Action::Down);
    app.update(Action::Up);
    let options = TerminalOptions { viewport: Viewport::Fixed(Rect::new(0, 0, 120, 40)) };
    let out = Shared::default();
    let mut terminal = Terminal::with_options(CrosstermBackend::new(out.clone()), options).unwrap();
    let session = ttnn_tui::tui::Session::new(report);
    ttnn_tui::tui::frame(&mut terminal, &mut app, &session, &theme).unwrap();
    String::from_utf8(out.0.borrow().clone()).unwrap()
}

/// Whether the selected row keeps reverse video: after the last `ESC[7m` before the selection
/// symbol, nothing resets the attributes until the row's label has been written.
fn selection_stays_reversed(bytes: &str) -> bool {
    let Some(symbol) = bytes.find("▶ ") else { return false };
    let Some(reverse) = bytes[..symbol].rfind("\x1b[7m") else { return false };
    let label = bytes[symbol..].find("ttnn.matmul").map(|k| symbol + k).expect("the selected label");
    !has_full_reset(&bytes[reverse..label])
}

/// Whether the bytes hold an SGR sequence that resets every attribute: `ESC[m`, `ESC[0m`, `ESC[;m`.
fn has_full_reset(bytes: &str) -> bool {
    bytes.split("\x1b[").skip(1).any(|rest| {
        let params: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == ';').collect();
        rest[params.len()..].starts_with('m') && params.chars().all(|c| c == '0' || c == ';')
    })
}

#[test]
fn reverse_video_survives_no_color() {
    // SAFETY: this test binary has this one test, so no other thread reads the environment.
    unsafe { std::env::set_var("NO_COLOR", "1") };
    let theme = Theme::new(ColorChoice::Auto.plain(std::env::var_os("NO_COLOR").as_deref()));
    assert!(theme.plain);

    // Without the workaround, crossterm's NO_COLOR path writes ESC[m for the marker's colour and
    // wipes the reverse video of the coloured theme: the check below can fail.
    ratatui::crossterm::style::force_color_output(false);
    assert!(!selection_stays_reversed(&frame_bytes(Theme::colored())));

    theme.prepare_terminal();
    let bytes = frame_bytes(theme);
    assert!(selection_stays_reversed(&bytes));
    // The plain theme writes no colour at all.
    for colour in ["\x1b[31m", "\x1b[33m", "\x1b[36m", "\x1b[90m", "38;5;", "48;5;"] {
        assert!(!bytes.contains(colour), "{colour:?} written");
    }
}
