//! Pure rules, one room per domain: the failure messages, the captured graphs, the perf report,
//! the memory, the logs; and the few things every room shares (the report's model, attaching
//! errors, the sentences beside a report, formatting, sanitising, stack traces).
//! No I/O and no UI here.

pub mod attach;
pub mod beside;
pub mod compare;
pub mod format;
pub mod graph;
pub(crate) mod int_hash;
pub mod log;
pub mod memory;
pub mod messages;
pub mod model;
pub mod perf;
pub mod sanitize;
pub mod shared_text;
pub mod stack;
