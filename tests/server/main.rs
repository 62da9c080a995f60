//! The real server over real sockets: play, spectators, clocks, bots, engines, accounts,
//! analysis, chat, limits and hardening, restarts, the stores (SQLite and PostgreSQL), a
//! cluster on PostgreSQL and Redis, nginx in front, and fuzzing. PostgreSQL is started once
//! for the whole binary (tests/services).

#[path = "../common/mod.rs"]
mod common;
#[path = "../server_support/mod.rs"]
mod server_support;
#[path = "../services/mod.rs"]
mod services;

mod abuse;
mod accounts;
mod analysis;
mod api;
mod arenas;
mod bots;
mod chat;
mod chess960;
mod clock;
mod club;
mod cluster;
mod correspondence;
mod engines;
mod errors;
mod friends;
mod fuzz;
mod hardening;
mod limits;
mod nginx;
mod openings;
mod play;
mod postgres;
mod rematch_seeks;
mod restart;
mod spectators;
mod store;
mod tournaments;
mod tv;
