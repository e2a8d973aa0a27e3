//! Colour in print mode (`--color`): ANSI SGR sequences around what a reader scans a log for —
//! headings bold, the failure's kind and an error's type red, a reason's label bold, a section
//! that could not be read yellow. Off, the text is the plain text, byte for byte.

/// Whether to colour, and the colouring of each part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Paint {
    on: bool,
}

impl Paint {
    /// Colours when `on`.
    pub(crate) fn new(on: bool) -> Self {
        Self { on }
    }

    fn wrap(self, sgr: &str, text: &str) -> String {
        if self.on { format!("\x1b[{sgr}m{text}\x1b[0m") } else { text.to_string() }
    }

    /// A block's heading, a reason's label.
    pub(crate) fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }

    /// A failure's kind, an error's type.
    pub(crate) fn danger(self, text: &str) -> String {
        self.wrap("1;31", text)
    }

    /// What could not be read.
    pub(crate) fn warning(self, text: &str) -> String {
        self.wrap("33", text)
    }
}

#[cfg(test)]
mod tests {
    use super::Paint;

    #[test]
    fn off_is_the_plain_text_and_on_wraps_it() {
        assert_eq!(Paint::new(false).danger("Out of memory"), "Out of memory");
        assert_eq!(Paint::new(true).danger("Out of memory"), "\x1b[1;31mOut of memory\x1b[0m");
        assert_eq!(Paint::new(true).bold("Fragmented."), "\x1b[1mFragmented.\x1b[0m");
        assert_eq!(Paint::new(true).warning("x"), "\x1b[33mx\x1b[0m");
    }
}
