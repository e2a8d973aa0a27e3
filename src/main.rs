//! `ttnn-tui`: parse the command line, then print or draw (`cli::run`).

fn main() -> std::process::ExitCode {
    ttnn_tui::cli::run(&ttnn_tui::cli::Cli::parse_args())
}
