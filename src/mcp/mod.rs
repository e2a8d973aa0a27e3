//! `ttnn-tui mcp`: the Model Context Protocol over stdio (docs/rules/interfaces.md §2), on the official Rust
//! SDK (`rmcp`). Ten read-only tools, each answering with the JSON the CLI gives for the same
//! question: the same answer types (`crate::answer`), serialised the same way, cut to `limit`
//! items per list with what was left out said. Nothing but protocol is written to stdout.

mod args;
mod bound;
mod cache;
mod server;
mod tools;

pub use server::Server;

use rmcp::ServiceExt;

/// Serves MCP on standard input and output until the client closes them; the error says why the
/// server could not start or stopped.
pub fn serve_stdio() -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the MCP server ({e})"))?;
    runtime.block_on(async {
        let running = Server::new()
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("the MCP client did not initialize ({e})"))?;
        running.waiting().await.map_err(|e| format!("the MCP server stopped ({e})"))?;
        Ok(())
    })
}
