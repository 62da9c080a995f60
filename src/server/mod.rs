//! The game server: the HTTP and WebSocket front (app, connection), the lobby of games, one room
//! actor per game, and the observers that follow rooms (text log). See docs/protocol.md.

pub mod accounts;
pub mod analysis;
pub mod app;
pub mod cluster;
pub mod config;
pub mod connection;
pub mod engines;
pub mod hosts;
pub mod limits;
pub mod listener;
pub mod lobby;
pub mod metrics;
pub mod observers;
pub mod positions;
pub mod ratelimit;
pub mod ratings;
pub mod room;
pub mod seeks;
pub mod store;
pub mod token;
pub mod web;

pub use app::{run, serve, serve_until, ServeError};
pub use config::{ServeArgs, ServerConfig};
