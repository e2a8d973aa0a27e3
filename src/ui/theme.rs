//! Styles of the terminal UI: 16 named colours, or none at all (`NO_COLOR`, `--color never`).

use ratatui::style::{Color, Modifier, Style};

/// Every style the UI draws with, so the no-colour theme is one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// True when no colour may be written.
    pub plain: bool,
    /// Ordinary text.
    pub(crate) text: Style,
    /// Headings and labels in bold.
    pub(crate) bold: Style,
    /// Secondary text: hints, disabled keys.
    pub(crate) dim: Style,
    /// Errors, failed scopes, the failure callout.
    pub(crate) danger: Style,
    /// Warnings (no-op reshape).
    pub(crate) warning: Style,
    /// Key names in hints and help.
    pub(crate) key: Style,
    /// The selected row.
    pub(crate) selected: Style,
    /// The active tab.
    pub(crate) active_tab: Style,
    /// Search matches in the list.
    pub(crate) matched: Style,
}

/// The symbol before the selected row, so selection survives without colour.
pub const SELECTION_SYMBOL: &str = "▶ ";

impl Theme {
    /// The coloured theme (16 named colours, following the user's palette).
    pub fn colored() -> Self {
        Self {
            plain: false,
            text: Style::new(),
            bold: Style::new().add_modifier(Modifier::BOLD),
            dim: Style::new().fg(Color::DarkGray),
            danger: Style::new().fg(Color::Red),
            warning: Style::new().fg(Color::Yellow),
            key: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            selected: Style::new().add_modifier(Modifier::REVERSED),
            active_tab: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            matched: Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        }
    }

    /// The no-colour theme: modifiers only, selection by reverse video.
    pub fn plain() -> Self {
        Self {
            plain: true,
            text: Style::new(),
            bold: Style::new().add_modifier(Modifier::BOLD),
            dim: Style::new().add_modifier(Modifier::DIM),
            danger: Style::new().add_modifier(Modifier::BOLD),
            warning: Style::new().add_modifier(Modifier::ITALIC),
            key: Style::new().add_modifier(Modifier::BOLD),
            selected: Style::new().add_modifier(Modifier::REVERSED),
            active_tab: Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            matched: Style::new().add_modifier(Modifier::UNDERLINED),
        }
    }

    /// The coloured theme, or the plain one when `plain`.
    pub fn new(plain: bool) -> Self {
        if plain { Self::plain() } else { Self::colored() }
    }

    /// Before drawing: the theme alone decides colours, so stop crossterm 0.29.0 from taking its
    /// own NO_COLOR path, which writes `ESC[m` and wipes reverse video (docs/rules/terminal.md, "NO_COLOR trap").
    pub fn prepare_terminal(&self) {
        ratatui::crossterm::style::force_color_output(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_theme_has_no_colour_at_all() {
        let t = Theme::plain();
        for style in [t.text, t.bold, t.dim, t.danger, t.warning, t.key, t.selected, t.active_tab, t.matched] {
            assert_eq!((style.fg, style.bg), (None, None));
        }
    }
}
