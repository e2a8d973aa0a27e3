//! The real binary in a real terminal (tmux): start-up on `--operation`, keys, popups, quitting,
//! and the terminal restored after a normal exit, an early error and a panic; the newcomer checks
//! of issue 22 §4 (a folder of reports, waiting for a report, tab 5 at 80 columns, --follow,
//! a full list, colour on a terminal). Without tmux they fail, saying so: `.ci/run` installs it.

use crate::live;
use crate::tui_support;

// `live` reaches the test support as `crate::support`.
use tui_support::support;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A private tmux server running one session of the binary.
struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `command` in a 120×40 session; the shell prints `EXITED <code>` when it ends.
    fn start(name: &str, command: &str) -> Self {
        Self::start_sized(name, command, 120, 40)
    }

    /// Starts `command` in a session of this size.
    fn start_sized(name: &str, command: &str, width: u16, height: u16) -> Self {
        let socket = format!("ttnn-tui-test-{}-{name}", std::process::id());
        let script = format!("{command}; echo \"EXITED $?\"; sleep 60");
        let tmux = Self { socket };
        let out = tmux.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
            "-s",
            "main",
            "sh",
            "-c",
            &script,
        ]);
        assert!(out.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&out.stderr));
        // Let OSC 52 from the pane fill a tmux paste buffer (what `y` writes).
        tmux.run(&["set-option", "-g", "set-clipboard", "on"]);
        tmux
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().expect("tmux runs")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "main"]).stdout).into_owned()
    }

    /// The screen with its wrapped lines joined (`capture-pane -J`): long lines of print mode.
    fn joined(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-J", "-t", "main"]).stdout).into_owned()
    }

    /// The screen with its colours and attributes as escape sequences (`capture-pane -e`).
    fn with_escapes(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-e", "-t", "main"]).stdout).into_owned()
    }

    /// Waits until the screen, wrapped lines joined, shows `text` (10 s at most).
    fn wait_for_joined(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let screen = self.joined();
            if screen.contains(text) {
                return screen;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {text:?}; screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the screen shows `text` (10 s at most).
    fn wait_for(&self, text: &str) -> String {
        self.wait_for_all(&[text])
    }

    /// Waits until the screen shows every one of `texts` (10 s at most). A capture may catch a
    /// frame half written (rows are written top to bottom, each left to right): what a test
    /// asserts below or right of the text it waited for, it waits for too.
    fn wait_for_all(&self, texts: &[&str]) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let screen = self.screen();
            if texts.iter().all(|text| screen.contains(text)) {
                return screen;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {texts:?}; screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the screen no longer shows `text` (10 s at most).
    fn wait_gone(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.screen().contains(text) {
            assert!(Instant::now() < deadline, "timed out waiting for {text:?} to go");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends Escape alone: followed at once by another key, a terminal reads the pair as Alt+key.
    fn escape(&self, until_gone: &str) {
        self.keys(&["Escape"]);
        self.wait_gone(until_gone);
    }

    /// Opens the error popup (`v`) and the help (`?`), each closed again with Esc.
    fn open_and_close_popups(&self) {
        self.keys(&["v"]);
        self.wait_for("Error details");
        self.escape("Error details");
        self.keys(&["?"]);
        self.wait_for("Ctrl-d/Ctrl-u");
        self.escape("Ctrl-d/Ctrl-u");
    }

    fn keys(&self, keys: &[&str]) {
        for key in keys {
            assert!(self.run(&["send-keys", "-t", "main", key]).status.success());
        }
    }

    /// Resizes the window (and so the pane).
    fn resize(&self, width: u16, height: u16) {
        let (w, h) = (width.to_string(), height.to_string());
        assert!(self.run(&["resize-window", "-t", "main", "-x", &w, "-y", &h]).status.success());
    }

    /// Whether the pane is on the alternate screen.
    fn alternate_screen(&self) -> bool {
        let out = self.run(&["display-message", "-p", "-t", "main", "#{alternate_on}"]);
        String::from_utf8_lossy(&out.stdout).trim() == "1"
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// Fails the test when tmux is missing: a real-terminal check that cannot run is not a pass.
fn require_tmux() {
    let found = Command::new("tmux").arg("-V").output().is_ok_and(|out| out.status.success());
    assert!(
        found,
        "tmux is not installed, so the real-terminal test cannot run (`.ci/run` installs it; or `apt-get install tmux`)"
    );
}

fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', "'\\''"))
}

/// The scenario report on disk, and the command that opens it.
fn command(args: &str, env: &str) -> String {
    let report = tui_support::scenario(2).open();
    let ttnn_tui::report::ReportSource::File { database, .. } = &report.source else { unreachable!() };
    let bin = Path::new(env!("CARGO_BIN_EXE_ttnn-tui"));
    format!("{env} {} {} {args}", shell_quote(bin), shell_quote(database))
}

#[test]
fn keys_popups_and_quit_in_a_real_terminal() {
    require_tmux();
    let t = Tmux::start("keys", &command("--operation 9", ""));
    // Each text is waited for: a capture can catch the screen half redrawn.
    for text in ["op 9 · 9/10", "ttnn.layer_norm", "Overlaps an L1 buffer."] {
        t.wait_for(text);
    }
    assert!(t.alternate_screen());
    t.keys(&["y"]);
    t.wait_for("Copied the callout of operation 9 (OSC 52)");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let buffer = String::from_utf8_lossy(&t.run(&["show-buffer"]).stdout).into_owned();
        if buffer.starts_with("Operation 9 ttnn.layer_norm\nCircular buffers clash with L1 buffers\n") {
            assert!(
                buffer
                    .contains("Overlaps an L1 buffer. The circular buffers overlap the L1 buffer at 600256 by 21 KiB.")
            );
            break;
        }
        assert!(Instant::now() < deadline, "OSC 52 copy not received; buffer: {buffer:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    t.keys(&["e"]);
    t.wait_for("Showing 7 of 10 operations");
    t.keys(&["g", "2"]);
    t.wait_for("▾ ✖ MatmulDeviceOperation (failed)");
    t.wait_for("MatmulDeviceOperation: Out of Memory");
    t.keys(&["h"]);
    t.wait_for("▸ ✖ MatmulDeviceOperation (failed)");
    t.keys(&["l"]);
    t.wait_for("buffer_allocate  800 KiB  L1  at 1474560");
    t.open_and_close_popups();
    t.keys(&["BTab"]);
    t.wait_for("[1 Operations]");
    t.keys(&["q"]);
    let screen = t.wait_for("EXITED 0");
    assert!(!t.alternate_screen(), "still on the alternate screen");
    assert!(!screen.contains("[1 Operations]"), "the UI is still shown:\n{screen}");
}

#[test]
fn unknown_operation_fails_before_touching_the_terminal() {
    require_tmux();
    let t = Tmux::start("unknown", &command("--operation 999", ""));
    let screen = t.wait_for("EXITED 1");
    assert!(screen.contains("error: no operation 999 in this report: "), "{screen}");
    assert!(!t.alternate_screen());
}

#[test]
fn a_panic_restores_the_terminal() {
    require_tmux();
    let env = format!("RUST_BACKTRACE=0 RUST_LIB_BACKTRACE=0 {}=1", ttnn_tui::tui::PANIC_FOR_TEST);
    let t = Tmux::start("panic", &command("", &env));
    t.wait_for("op 2 · 2/10");
    t.keys(&["j"]);
    let screen = t.wait_for("EXITED 101");
    assert!(screen.contains("panic requested by"), "{screen}");
    assert!(!t.alternate_screen(), "a panic left the alternate screen on");
}

#[test]
fn the_demo_on_an_operation_with_its_tree() {
    require_tmux();
    let bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_ttnn-tui")));
    let t = Tmux::start("demo", &format!("{bin} --demo --operation 13"));
    for text in ["op 13 · 13/40", "2 errors recorded that are not shown on any operation", "Not enough free space."] {
        t.wait_for(text);
    }
    t.keys(&["e"]);
    t.wait_for("Showing 14 of 40 operations");
    t.keys(&["Tab"]);
    t.wait_for("InterleavedToShardedDeviceOperation: Out of Memory");
    t.open_and_close_popups();
    t.keys(&["q"]);
    t.wait_for("EXITED 0");
    assert!(!t.alternate_screen());
}

#[test]
fn the_performance_tab_of_a_linked_perf_report() {
    require_tmux();
    use tui_support::perf::{linked_csv, linked_report, open_csv};
    let report = linked_report().open();
    let ttnn_tui::report::ReportSource::File { database, .. } = &report.source else { unreachable!() };
    let csv = open_csv(&linked_csv()).path;
    let bin = Path::new(env!("CARGO_BIN_EXE_ttnn-tui"));
    let t =
        Tmux::start("perf", &format!("{} {} --perf {}", shell_quote(bin), shell_quote(database), shell_quote(&csv)));
    t.wait_for("perf: linked");
    t.keys(&["3"]);
    t.wait_for("Data linked between memory and performance reports");
    // Each text is waited for: a capture can catch the screen half redrawn.
    t.wait_for("3 allocation failures recorded in the linked memory report");
    t.wait_for("Failed in MatmulDeviceOperation; 1 earlier device op ran, so it has 1 row in this report.");
    t.wait_for("✖ Op failed");
    t.keys(&["f"]);
    t.wait_for("Showing 4 of 6 rows");
    // `]` moves the keys to the callout's first failure, the next `]` to the second.
    t.keys(&["]", "]", "Enter"]);
    t.wait_for("[1 Operations]");
    t.wait_for("op 5 · 5/7");
    t.keys(&["q"]);
    t.wait_for("EXITED 0");
    assert!(!t.alternate_screen());
}

#[test]
fn the_demo_performance_tab_leads_to_a_failure() {
    require_tmux();
    let bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_ttnn-tui")));
    let t = Tmux::start("demo-perf", &format!("{bin} --demo"));
    t.wait_for("perf: linked");
    t.keys(&["3"]);
    t.wait_for("11 allocation failures recorded in the linked memory report");
    t.wait_for("Failed in Conv2dDeviceOperation; 1 earlier device op ran, so it has 1 row in this report.");
    t.keys(&["f"]);
    // At 120 columns the status bar cuts the message's last letter once 10 rows are flagged.
    t.wait_for("Showing only flagged row");
    t.wait_for("✖ Op failed");
    t.wait_for("! Few cores");
    t.keys(&["]", "Enter"]);
    t.wait_for("[1 Operations]");
    t.wait_for("Operation 7 ttnn.conv2d");
    t.keys(&["q"]);
    t.wait_for("EXITED 0");
    assert!(!t.alternate_screen());
}

#[test]
fn resizing_leaves_nothing_behind_and_keys_wait_for_a_usable_size() {
    require_tmux();
    let bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_ttnn-tui")));
    let t = Tmux::start_sized("resize", &format!("{bin} --demo"), 80, 24);
    t.wait_for("op 7 · 7/40");
    // Too small: the screen says so, and keys pressed meanwhile are not acted on unseen.
    t.resize(50, 12);
    t.wait_for("terminal too small (need 60×15)");
    t.keys(&["j", "j", "e", "3"]);
    // The keys reach the program before it is resized (tmux may deliver the resize first).
    t.wait_for("4 keys ignored while the terminal was too small");
    t.resize(80, 24);
    let screen = t.wait_for_all(&["op 7 · 7/40", "4 keys ignored while the terminal was too small"]);
    assert!(screen.contains("[1 Operations]") && screen.contains("40 operations · 14 with errors"), "{screen}");
    // Widened during the run: after quitting, no row of the UI is left above the prompt.
    t.resize(120, 40);
    t.wait_for("22 ttnn.layer_norm (model.py:64)");
    t.keys(&["q"]);
    let screen = t.wait_for("EXITED 0");
    assert!(!screen.contains("ttnn."), "rows of the UI left behind:\n{screen}");
    assert!(!screen.contains('│'), "rows of the UI left behind:\n{screen}");
}

#[test]
fn at_80_columns_help_and_quit_stay_in_the_hints() {
    require_tmux();
    let bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_ttnn-tui")));
    let t = Tmux::start_sized("narrow", &format!("{bin} --demo"), 80, 24);
    let screen = t.wait_for_all(&["op 7 · 7/40", "q quit"]);
    let hints = screen.lines().rfind(|l| !l.trim().is_empty()).unwrap_or_default();
    assert!(hints.contains("? help") && hints.contains("q quit"), "{hints}");
    t.keys(&["3"]);
    // Tab 3's own hint first: the `q quit` of tab 1's hints may linger until the row is redrawn.
    let screen = t.wait_for_all(&["Showing 27 rows", "choose failure", "q quit"]);
    let hints = screen.lines().rfind(|l| !l.trim().is_empty()).unwrap_or_default();
    assert!(hints.contains("? help") && hints.contains("q quit"), "{hints}");
    t.keys(&["q"]);
    t.wait_for("EXITED 0");
}

/// `ttnn-tui --watch` on a report a writer process extends: new operations counted in the status
/// bar, the failure at the end announced and selected (the user has not moved), nothing left in
/// the report folder.
fn watch_a_live_writer_in_a_real_terminal(journal_mode: &str) {
    require_tmux();
    let dir = support::TempDir::new(&format!("tmux-watch-{journal_mode}"));
    let db = live::initial().write_to(dir.path());
    let names_before = live::names(dir.path());
    let mut writer = live::Writer::start(&db, journal_mode);
    let bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_ttnn-tui")));
    let t = Tmux::start(&format!("watch-{journal_mode}"), &format!("{bin} --watch {}", shell_quote(dir.path())));
    t.wait_for("live · 3 operations");
    writer.send("op 4 ttnn.add");
    t.wait_for("live · 4 operations (+1)");
    writer.send("op 5 ttnn.matmul");
    writer.send("op 6 ttnn.add");
    t.wait_for("live · 6 operations");
    writer.send("fail 7 ttnn.conv2d");
    t.wait_for("New failure: operation 7 ttnn.conv2d");
    t.wait_for("op 7 · 7/7");
    t.wait_for("Out of memory");
    t.keys(&["q"]);
    t.wait_for("EXITED 0");
    writer.quit();
    assert_eq!(live::without_writer_files(&live::names(dir.path())), names_before, "nothing of ours is left");
}

#[test]
fn watch_a_rollback_journal_writer_in_a_real_terminal() {
    watch_a_live_writer_in_a_real_terminal("DELETE");
}

#[test]
fn watch_a_wal_writer_in_a_real_terminal() {
    watch_a_live_writer_in_a_real_terminal("WAL");
}

/// Text pasted into the search with escape sequences in it: nothing is acted on unseen, nothing
/// of it is left on the screen after quitting.
#[test]
fn pasted_escape_sequences_in_the_search_leave_nothing_behind() {
    require_tmux();
    let bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_ttnn-tui")));
    let t = Tmux::start("paste", &format!("{bin} --demo"));
    t.wait_for("op 7 · 7/40");
    t.keys(&["/"]);
    t.wait_for("/█");
    assert!(
        t.run(&["send-keys", "-t", "main", "-l", "conv\u{1b}]0;pwned\u{7}\u{1b}[31mred\u{1b}[0m"]).status.success()
    );
    // Esc alone (sent with the `q`, a terminal reads the pair as Alt+q).
    t.escape("Enter confirm");
    t.keys(&["q"]);
    let screen = t.wait_for("EXITED 0");
    assert!(!t.alternate_screen());
    for stray in ["pwned", "[31m", "red", "conv"] {
        assert!(!screen.contains(stray), "{stray:?} left on the screen:\n{screen}");
    }
}

/// Issue 22 §4.2: a folder of report folders opens the newest, and the line that says which is
/// on the terminal once the UI is left.
#[test]
fn a_folder_of_reports_opens_the_newest_in_a_real_terminal() {
    require_tmux();
    let dir = support::TempDir::new("tmux-folder-of-reports");
    let older = dir.path().join("older_nov28_0900");
    support::ReportBuilder::new(support::Schema::V2)
        .report_name("older run")
        .operation(support::Op::new(1, "ttnn.add"))
        .write_to(&older);
    std::thread::sleep(Duration::from_millis(20));
    live::initial().report_name("newer run").write_to(&dir.path().join("newer_nov29_1000"));
    let bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_ttnn-tui")));
    let t = Tmux::start("folder", &format!("{bin} {}", shell_quote(dir.path())));
    t.wait_for_all(&["ttnn-tui · newer run", "3 operations · 0 with errors"]);
    t.keys(&["q"]);
    let screen = t.wait_for_joined("EXITED 0");
    let note = format!("note: opening the newest report in {}: newer_nov29_1000", dir.path().display());
    assert!(screen.contains(&note), "{screen}");
}

/// Issue 22 §4.3: `--watch` on a report folder the run has not written yet waits, saying so, and
/// opens the report once it is there.
#[test]
fn watch_waits_for_a_report_not_written_yet_in_a_real_terminal() {
    require_tmux();
    let dir = support::TempDir::new("tmux-watch-wait");
    let bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_ttnn-tui")));
    let t = Tmux::start("watch-wait", &format!("{bin} --watch {}", shell_quote(dir.path())));
    let waiting = format!("waiting for the run to write a report in {} (Ctrl-C to stop)…", dir.path().display());
    t.wait_for_joined(&waiting);
    // The run writes the database: whole, here, by a rename into the folder.
    let staged = support::TempDir::new("tmux-watch-wait-staged");
    let db = live::initial().write_to(staged.path());
    std::fs::rename(db, dir.path().join("db.sqlite")).unwrap();
    t.wait_for_all(&["live · 3 operations", "3 ttnn.matmul"]);
    t.keys(&["q"]);
    t.wait_for("EXITED 0");
}

/// Issue 22 §4.4: at 80 columns tab 5's late list keeps its figures: the heading wraps, the
/// selected row leads with its saving, its whole suggestion under the rows.
#[test]
fn the_late_list_keeps_its_figures_at_80_columns_in_a_real_terminal() {
    require_tmux();
    let bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_ttnn-tui")));
    let t = Tmux::start_sized("late80", &format!("{bin} --demo"), 80, 24);
    t.wait_for("op 7 · 7/40");
    t.keys(&["5"]);
    t.wait_for_all(&[
        "Held past their last use: freeing all 7 at their last use lowers the peak from",
        "977 KiB to 849 KiB",
    ]);
    t.keys(&["]"]);
    t.wait_for_all(&[
        "▶ L1 peak −128 KiB · tensor 2004, 128 KiB per bank · free after model.py:41",
        "it there lowers the L1 peak by 128 KiB.",
    ]);
    t.keys(&["q"]);
    t.wait_for("EXITED 0");
}

/// Issue 22 §4.5: `explain --follow` prints a failure that arrives while it follows with its
/// memory section, as `explain` prints it.
#[test]
fn follow_prints_the_memory_section_of_a_new_failure_in_a_real_terminal() {
    require_tmux();
    let dir = support::TempDir::new("tmux-follow");
    let db = live::initial().write_to(dir.path());
    let mut writer = live::Writer::start(&db, "DELETE");
    let bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_ttnn-tui")));
    // The shell survives Ctrl-C (a trap with a command is not inherited) to say how it ended.
    let t = Tmux::start("follow", &format!("trap true INT; {bin} explain --follow {}", shell_quote(dir.path())));
    // Nothing to print yet: give the follower time to open the report before the failure.
    std::thread::sleep(Duration::from_millis(1500));
    writer.send("fail 4 ttnn.conv2d");
    let screen = t.wait_for_joined("No advice on what to free: the region is unknown.");
    for line in [
        "Operation 4 ttnn.conv2d: Out of memory",
        "  Failed in Conv2dDeviceOperation",
        "  At the failure (after-failure snapshot + unwinding): 1 live L1 buffer on device 0 holds 8 KiB per bank",
    ] {
        assert!(screen.lines().any(|l| l == line), "{line:?} in\n{screen}");
    }
    t.keys(&["C-c"]);
    t.wait_for("EXITED 0");
    writer.quit();
}

/// Issue 22 §4.6: ten operations in ten rows, opened on the ninth: the list shows all ten, no
/// blank rows under the last.
#[test]
fn the_list_fills_its_pane_in_a_real_terminal() {
    require_tmux();
    let t = Tmux::start_sized("fill", &command("--operation 9", ""), 120, 16);
    let screen = t.wait_for_all(&["op 9 · 9/10", "10 ttnn.concat (model.py:100)"]);
    assert!(screen.contains("│           1 ttnn.from_torch (model.py:10)"), "{screen}");
    t.keys(&["q"]);
    t.wait_for("EXITED 0");
}

/// Issue 22 §4.8: on a terminal `explain` colours its text (`--color auto`, the default).
#[test]
fn explain_colours_its_text_on_a_terminal() {
    require_tmux();
    let bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_ttnn-tui")));
    let t = Tmux::start("colour", &format!("env -u NO_COLOR {bin} explain --demo --operation 8"));
    t.wait_for("EXITED 0");
    let screen = t.with_escapes();
    assert!(screen.contains("\x1b[1mOperation 8 ttnn.conv2d (model.py:46)"), "{screen:?}");
    // tmux writes bold and red as two sequences.
    assert!(screen.contains("\x1b[1m\x1b[31mOut of memory"), "{screen:?}");
}

/// Issue 24 §2: `BEFORE --compare AFTER` in a real terminal — tab 1 marks the new failure under
/// the line the comparison leads with; tab 5 reads BEFORE on a worker and draws both runs.
#[test]
fn compare_two_runs_in_a_real_terminal() {
    require_tmux();
    let bin = shell_quote(Path::new(env!("CARGO_BIN_EXE_ttnn-tui")));
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let (before, after) = (fixtures.join("real/stale_chain"), fixtures.join("rerun/stale_chain__free_late"));
    let command = format!("{bin} {} --compare {}", shell_quote(&before), shell_quote(&after));
    let t = Tmux::start("compare", &command);
    t.wait_for_all(&["vs stale_chain: Out of memory in ttnn.matmul (operation 5) is gone; new:", "▶ ✖ CB new"]);
    t.keys(&["5"]);
    t.wait_for_all(&[
        "operation 11 ttnn.matmul · 330 KiB per bank after it · ✖ failed here",
        "before: operation 5 ttnn.matmul · 412 KiB per bank after it · ✖ failed here",
    ]);
    t.keys(&["h"]);
    t.wait_for("before: no operation aligned with this one (only this run has it)");
    t.keys(&["q"]);
    t.wait_for("EXITED 0");
}
