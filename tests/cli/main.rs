//! The `gambit` binary's subcommands as a user runs them: the CLI's outside contract,
//! `analyse`, `bot`, `match`, `uci`, the terminal client (`play`, `watch`) and `loadtest`.

#[path = "../common/mod.rs"]
mod common;
#[path = "../server_support/mod.rs"]
mod server_support;

mod analyse;
mod bot;
mod contract;
mod loadtest;
mod matches;
mod term;
mod uci;
