//! Writes the fixture logs of `fixtures/logs/` (built from the real messages of docs/rules/messages.md §R by
//! `tests/support/logs.rs`):
//!
//! ```text
//! cargo run --example gen_logs -- fixtures/logs
//! ```
//!
//! Their expected JSON (`*.json` beside them) is written by `tests/explain/explain_log.rs` with
//! `UPDATE_LOG_FIXTURES=1`, then read and checked by hand.

#[path = "../tests/support/mod.rs"]
mod support;

fn main() -> std::io::Result<()> {
    let folder = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "fixtures/logs".into()));
    std::fs::create_dir_all(&folder)?;
    for (name, text) in support::logs::fixture_logs() {
        std::fs::write(folder.join(name), text)?;
        println!("{}", folder.join(name).display());
    }
    Ok(())
}
