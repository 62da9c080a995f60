//! gambit: a multiplayer chess server and the tools around it. The rules core lives in
//! [`chess`].
//!
//! ```
//! use gambit::chess::{Game, Variant};
//!
//! let mut game = Game::new(Variant::Standard);
//! for san in ["f3", "e5", "g4", "Qh4#"] {
//!     game.play_san(san).unwrap();
//! }
//! assert_eq!(game.outcome().map(|o| o.to_string()), Some("Black wins by checkmate".into()));
//! ```

pub mod bots;
pub mod chess;
pub mod protocol;
pub mod server;
pub mod term;
pub mod timer;
pub mod tools;
pub mod uci_client;
