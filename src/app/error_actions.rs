//! What acts on the focused operation's error (`v` opens it, `y` copies its callout), the list of
//! every unattached error (`U`), the keys inside an open popup, and the keys the loop could not
//! act on.

use super::keys::Action;
use super::operations::UNATTACHED_SHOWN;
use super::state::App;
use super::tab::{Outcome, Popup};
use super::windowed_rows::Scroll;
use crate::analysis::format::counted;
use crate::analysis::messages::raw_message::raw_message;
use crate::analysis::messages::reason::CalloutBody;

impl App {
    /// A key arrived while the terminal was too small to show what it would do: it is dropped, and
    /// the status says so (on the too-small screen, and once the terminal is big enough again).
    pub fn ignore_key(&mut self) {
        self.ignored_keys += 1;
        let keys = counted(self.ignored_keys, "key", "keys");
        self.message = Some(format!("{keys} ignored while the terminal was too small"));
    }

    /// Applies an action to the open popup: Esc closes it, `q` quits, the rest scroll it.
    pub(super) fn update_popup(&mut self, action: Action) {
        let Some(popup) = &mut self.popup else { return };
        let scroll = match popup {
            Popup::Help(scroll) | Popup::Error(_, scroll) | Popup::Unattached(scroll) => scroll,
        };
        match action {
            Action::Back => self.popup = None,
            Action::Quit => self.quit = true,
            other => {
                scroll.apply(other, 10);
            }
        }
    }

    pub(super) fn view_error(&mut self) -> Outcome {
        match self.focused_operation() {
            Some(i) if self.model.error_of(i).is_some() => {
                self.popup = Some(Popup::Error(self.model.operations[i].id, Scroll::default()));
                Outcome::None
            }
            Some(i) => Outcome::Message(format!("Operation {} has no error", self.model.operations[i].id)),
            None => Outcome::Message("No operation is selected".to_string()),
        }
    }

    /// Opens every unattached error; the callout already explains five or fewer.
    pub(super) fn show_unattached(&mut self) -> Outcome {
        match self.model.unattached().len() {
            0 => return Outcome::Message("Every error of the report is shown on its operation".to_string()),
            n if n <= UNATTACHED_SHOWN => {
                let errors = counted(n, "unattached error", "unattached errors");
                return Outcome::Message(format!("The callout above the list shows the {errors}"));
            }
            _ => {}
        }
        self.popup = Some(Popup::Unattached(Scroll::default()));
        Outcome::None
    }

    pub(super) fn copy(&mut self) -> Outcome {
        let Some(i) = self.focused_operation() else {
            return Outcome::Message("No operation is selected".to_string());
        };
        let op = &self.model.operations[i];
        let Some(error) = self.model.error_of(i) else {
            return Outcome::Message(format!("Nothing to copy: operation {} has no error", op.id));
        };
        let body = match &error.failure {
            Some(failure) => {
                let mut lines = CalloutBody::new(failure, self.hex, self.model.failed_in(i), None).lines();
                lines.extend(self.memory.fixes.copied(i, op.id, self.hex));
                lines
            }
            // What the message says, whole, not its first line (docs/rules/reference.md §13.4).
            None => std::iter::once(error.error_type.as_str())
                .chain(raw_message(&error.message, usize::MAX).lines)
                .map(str::to_string)
                .collect(),
        };
        self.clipboard = Some(format!("Operation {} {}\n{}\n", op.id, op.name, body.join("\n")));
        Outcome::Message(format!("Copied the callout of operation {} (OSC 52)", op.id))
    }
}
