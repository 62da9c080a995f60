//! The chess core through the library's public API: perft against trusted counts, notation
//! round trips, PGN, typed errors, how games end, the computer players' rules, and the
//! protocol's follow cases (in Rust here and in the web client's JavaScript under Node).
//!
//! The integration tests are four binaries (chess, cli, server, browser), each a tree of
//! modules: every test binary links the whole crate, so one per concern keeps CI's build short.

#[path = "../common/mod.rs"]
mod common;

mod bots;
mod errors;
mod game_end;
mod js_follow;
mod notation;
mod perft;
mod pgn;
mod protocol_follow;
