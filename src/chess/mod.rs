//! The rules core: pure, synchronous chess for both variants — positions, legal moves, FEN,
//! SAN, UCI, PGN, games with their move stacks and endings, and perft. No I/O, no async.

mod attacks;
pub mod bitboard;
mod castling;
pub mod chess960;
pub mod fen;
pub mod flag;
pub mod game;
mod movegen;
pub mod moves;
pub mod openings;
pub mod perft;
pub mod pgn;
pub mod pgn_read;
pub mod piece;
pub mod position;
pub mod rules;
pub mod san;
pub mod square;
pub mod uci;
mod zobrist;

pub use bitboard::Bitboard;
pub use chess960::StartPosition;
pub use fen::{BoardError, ParseFenError, PositionError};
pub use flag::{can_mate, timeout_outcome};
pub use game::{EndReason, Game, MoveError, Outcome, PlayedMove};
pub use movegen::PROMOTION_ROLES;
pub use moves::{Move, MoveList};
pub use pgn::{pgn_date, write_pgn, MoveNumbers, PgnTags};
pub use pgn_read::{read_pgn, PgnError, PgnGame};
pub use piece::{ByColor, Color, Piece, Role};
pub use position::{CheckInfo, Position, Undo};
pub use rules::{Repetition, Rules, Variant};
pub use san::SanError;
pub use square::Square;
pub use uci::{IllegalMoveError, ParseUciError, UciError, UciMove};
