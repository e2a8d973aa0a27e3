//! The server: `initialize` says what it is for, `tools/list` gives the eleven tools, `tools/call`
//! answers on a blocking thread (reading a report takes a while) with the reports kept open
//! between calls. A refusal is a tool error (`isError: true`) carrying the CLI's `error: …`
//! line; the server goes on serving after it.

use super::cache::Reports;
use super::tools;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use std::sync::{Arc, Mutex};

/// What the server tells a client it is for, at `initialize`.
const INSTRUCTIONS: &str = "ttnn-tui explains TT-NN allocation failures (out of memory, circular buffers clashing with L1 buffers) from a TT-NN memory report (the db.sqlite of a ttnn report folder) or a log. Start with list_failures on the report; explain_failure says what held the memory at a failure and replays the fixes; what_if tests a fix; late_tensors finds tensors held past their last use. Every answer is the JSON `ttnn-tui explain --json` (or `whatif --json`) gives for the same question. Read-only: reports are never written.";

/// The MCP server of ttnn-tui.
#[derive(Clone, Default)]
pub struct Server {
    reports: Arc<Mutex<Reports>>,
}

impl Server {
    /// A server with no report open yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers a call (on the calling thread): the answer's JSON text, or a tool error.
    pub fn answer(&self, name: &str, arguments: rmcp::model::JsonObject) -> CallToolResult {
        // A call that panicked leaves the reports as they were: the next call may use them.
        let mut reports = self.reports.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match tools::call(&mut reports, name, arguments) {
            Ok(answer) => CallToolResult::success(vec![ContentBlock::text(answer.to_string())]),
            Err(refusal) => CallToolResult::error(vec![ContentBlock::text(format!("error: {}", refusal.message))]),
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ttnn-tui", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !tools::exists(&name) {
            let name = crate::analysis::sanitize::sanitize_line(&name);
            return Err(ErrorData::invalid_params(format!("no tool named {name:?}"), None));
        }
        let server = self.clone();
        let arguments = request.arguments.unwrap_or_default();
        let answered = tokio::task::spawn_blocking(move || server.answer(&name, arguments)).await;
        Ok(answered
            .unwrap_or_else(|e| {
                CallToolResult::error(vec![ContentBlock::text(format!("error: the call stopped: {e}"))])
            })
            .into())
    }
}
