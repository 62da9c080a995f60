//! The command-line tools around the server — `bot`, `uci`, `match`, `analyse`, `loadtest` — with their arguments.
//! main.rs parses and dispatches; the work and the terminal I/O live here.

pub mod analyse;
pub mod bot;
pub mod loadtest;
pub mod matchplay;
pub mod uci;

use thiserror::Error;

/// A tool's failure: reported by main.rs as one line on stderr with exit code 2.
#[derive(Debug, Error)]
#[error("{0}")]
pub struct ToolError(pub String);
