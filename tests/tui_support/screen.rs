//! Reading the harness's screen by what is drawn where: whole lines, the operations list's title
//! and rows, the status bar, and the inside of a popup.

use super::Harness;

impl Harness {
    /// The screen's lines as drawn, without the quotes the backend prints and the blanks at
    /// their end.
    pub fn lines(&self) -> Vec<String> {
        self.screen().lines().map(|l| l.trim_matches('"').trim_end().to_string()).collect()
    }

    /// Asserts that one line of the screen is exactly `line` (blanks at its end aside), showing
    /// the screen when none is.
    #[track_caller]
    pub fn assert_line(&self, line: &str) {
        assert!(self.lines().iter().any(|l| l == line), "no line {line:?} on\n{}", self.screen());
    }

    /// The list's title, from its top border (`┌ Operations · … ─`).
    pub fn list_title(&self) -> String {
        let top = self.lines().into_iter().find(|l| l.starts_with("┌ Operations")).expect("the list");
        top[top.find(' ').unwrap() + 1..].split(" ─").next().unwrap().to_string()
    }

    /// The list's rows, between its borders (the list is the left pane at 120 columns).
    pub fn list_rows(&self) -> Vec<String> {
        let screen = self.screen();
        let lines: Vec<&str> = screen.lines().map(|l| l.trim_matches('"')).collect();
        let top = lines.iter().position(|l| l.starts_with("┌ Operations")).expect("the list");
        let bottom = top + lines[top..].iter().position(|l| l.starts_with('└')).expect("its bottom");
        let width = lines[top].chars().position(|c| c == '┐').expect("the list's corner");
        let inside = |l: &&str| l.chars().skip(1).take(width - 2).collect::<String>().trim_end().to_string();
        lines[top + 1..bottom].iter().map(inside).collect()
    }

    /// The status bar's first line.
    pub fn status(&self) -> String {
        let lines = self.lines();
        lines[lines.len() - 2].clone()
    }

    /// The lines inside a popup whose top border starts with `title`, between its borders.
    pub fn popup_lines(&self, title: &str) -> Vec<String> {
        let lines = self.lines();
        let top =
            lines.iter().position(|l| l.contains(title)).unwrap_or_else(|| panic!("{title:?} in\n{}", self.screen()));
        let left = lines[top][..lines[top].find(title).unwrap()].chars().count();
        let right = left + lines[top].chars().skip(left).position(|c| c == '┐').expect("the popup's corner");
        lines[top + 1..]
            .iter()
            .map(|l| l.chars().collect::<Vec<char>>())
            .take_while(|l| l.get(left) != Some(&'└'))
            .map(|l| l[left + 1..right.min(l.len())].iter().collect::<String>().trim_end().to_string())
            .collect()
    }
}
