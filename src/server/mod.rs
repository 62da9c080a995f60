//! The game server: starting and stopping it (app), what its handlers share (state), every HTTP
//! handler (http) and the WebSocket connection (connection), the lobby of games, one room actor
//! per game, and the observers that follow rooms (text log). See docs/protocol.md.

pub mod accounts;
pub mod analysis;
pub mod app;
pub mod challenges;
pub mod cluster;
pub mod config;
pub mod connection;
pub mod engines;
pub mod faults;
pub mod game_ref;
pub mod hosts;
pub mod http;
pub mod limits;
pub mod listener;
pub mod lobby;
pub mod metrics;
pub mod notices;
pub mod notifications;
pub mod observers;
pub mod ratings;
pub mod room;
pub mod state;
pub mod store;
pub mod token;
pub mod tournaments;
pub mod tv;

pub use app::{run, serve, serve_until, ServeError};
pub use config::{ServeArgs, ServerConfig};
