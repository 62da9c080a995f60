//! Every HTTP handler.

pub mod accounts;
pub mod analysis;
mod players;
pub mod positions;
pub mod web;
