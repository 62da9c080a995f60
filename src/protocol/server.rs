//! What the server sends: [`ServerMessage`], the error codes, and [`Refusal`], the one way a
//! request is turned down.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::social::{ChatLine, MatchScore, SeekId, SeekView};
use super::values::{
    ClaimView, ClockView, GameId, GameRatings, GameResult, GameState, GameSummary, OfferKind, OpeningView, Seats,
};
use crate::chess::{Color, EndReason};

/// Error codes of `error` replies (docs/protocol.md says when each is sent).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    IllegalMove,
    NotYourTurn,
    NotAPlayer,
    NoSuchGame,
    GameOver,
    SeatTaken,
    BadRequest,
    RateLimited,
    TooLarge,
    /// A server limit is reached: too many unfinished games of one connection, or on the server.
    TooMany,
    /// The server could not do it (its store failed); nothing changed. Worth retrying later.
    ServerError,
    /// A stored game cannot be read back (its moves do not replay): that game only.
    DamagedGame,
    /// The server is shutting down and takes nothing new; reconnect in a moment.
    ShuttingDown,
    /// The seek is no longer open: someone else accepted it, or it was withdrawn.
    NoSuchSeek,
    /// Only logged-in players may do this (play a rated game).
    LoginRequired,
    /// An engine seat the server cannot give: an unknown engine, a setting that is not one of
    /// its strength settings, a value out of range, or a variant it does not play.
    BadEngineSeat,
}

/// A request turned down: the code and the message of its `error` reply. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, Error, Serialize, Deserialize)]
#[error("{message}")]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
}

impl Refusal {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal { code, message: message.into() }
    }

    pub fn bad_request(message: impl Into<String>) -> Refusal {
        Refusal::new(ErrorCode::BadRequest, message)
    }

    pub fn illegal_move(message: impl Into<String>) -> Refusal {
        Refusal::new(ErrorCode::IllegalMove, message)
    }

    pub fn not_your_turn(message: impl Into<String>) -> Refusal {
        Refusal::new(ErrorCode::NotYourTurn, message)
    }

    pub fn not_a_player(message: impl Into<String>) -> Refusal {
        Refusal::new(ErrorCode::NotAPlayer, message)
    }

    /// There is no game `game` here.
    pub fn no_such_game(game: &str) -> Refusal {
        Refusal::new(ErrorCode::NoSuchGame, format!("there is no game {game:?} on this server"))
    }

    pub fn login_required(message: impl Into<String>) -> Refusal {
        Refusal::new(ErrorCode::LoginRequired, message)
    }

    pub fn bad_engine_seat(message: impl Into<String>) -> Refusal {
        Refusal::new(ErrorCode::BadEngineSeat, message)
    }

    pub fn game_over(message: impl Into<String>) -> Refusal {
        Refusal::new(ErrorCode::GameOver, message)
    }

    pub fn seat_taken(message: impl Into<String>) -> Refusal {
        Refusal::new(ErrorCode::SeatTaken, message)
    }

    pub fn rate_limited(message: impl Into<String>) -> Refusal {
        Refusal::new(ErrorCode::RateLimited, message)
    }

    pub fn too_many(message: impl Into<String>) -> Refusal {
        Refusal::new(ErrorCode::TooMany, message)
    }

    pub fn server_error(message: impl Into<String>) -> Refusal {
        Refusal::new(ErrorCode::ServerError, message)
    }

    /// The server is stopping and takes nothing new.
    pub fn shutting_down() -> Refusal {
        Refusal::new(ErrorCode::ShuttingDown, "the server is shutting down; reconnect in a moment")
    }
}

/// A message from the server.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The games list: the answer to `list`, then again whenever it changes.
    Games { games: Vec<GameSummary> },
    /// The answer to `create`. `color`/`token` are null when no human seat was taken (bot vs bot).
    Created {
        game: GameId,
        color: Option<Color>,
        token: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// The answer to `join` and to `resume`: the seat and its token.
    Joined {
        game: GameId,
        color: Color,
        token: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// A full snapshot of a game (also the event that follows an undo).
    State(Box<GameState>),
    /// Event: a move was played.
    Move {
        game: GameId,
        v: u64,
        uci: String,
        san: String,
        fen: String,
        /// The side to move after this move.
        turn: Color,
        /// Number of moves played so far, this one included.
        ply: usize,
        legal: Vec<String>,
        check: bool,
        /// The clock just after this move (the mover's time charged and incremented).
        #[serde(default)]
        clock: Option<ClockView>,
        /// The game's opening after this move (kept once it leaves the book).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        opening: Option<OpeningView>,
    },
    /// A request with an `id` was carried out.
    Ack { id: u64 },
    /// Event: the game ended.
    End {
        game: GameId,
        v: u64,
        result: GameResult,
        reason: EndReason,
        /// The stopped clock at the end; null for an untimed game.
        #[serde(default)]
        clock: Option<ClockView>,
        /// The match's score with this game counted (see [`MatchScore`]).
        #[serde(default, rename = "match")]
        score: MatchScore,
        /// A rated game's new ratings and their changes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ratings: Option<GameRatings>,
    },
    /// Event: a side offers a draw or an undo.
    Offer { game: GameId, v: u64, kind: OfferKind, by: Color },
    /// Event: the offer made by `by` was refused (by the other side).
    Declined { game: GameId, v: u64, kind: OfferKind, by: Color },
    /// Event: a seat was taken, or a player came online or went offline.
    Seats {
        game: GameId,
        v: u64,
        seats: Seats,
        #[serde(default)]
        claim: Option<ClaimView>,
    },
    /// Event: a rematch was agreed; the players' clients `resume` game `next` with the same
    /// token, spectators `watch` it.
    Rematch { game: GameId, v: u64, next: GameId },
    /// Event: the side `color` berserked (an arena game): its time is halved; `clock` as now.
    Berserk { game: GameId, v: u64, color: Color, clock: Option<ClockView> },
    /// Not a versioned event: a line in one of the game's chat rooms, to that room's members.
    Chat {
        game: GameId,
        #[serde(flatten)]
        line: ChatLine,
    },
    /// The open challenges: the answer to `list`, then again whenever they change.
    Seeks { seeks: Vec<SeekView> },
    /// The answer to `seek`: this connection's challenge is open under this id.
    Seeking {
        seek: SeekId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// A TV channel's featured game (null: none), on `tv` and at every change.
    Tv { channel: super::TvChannel, game: Option<GameId> },
    /// Not a versioned event: how many spectators a game has (sent at most twice a second, on change).
    Watchers { game: GameId, count: usize },
    /// Something the client sent was refused; nothing changed.
    Error {
        code: ErrorCode,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
}

impl ServerMessage {
    /// An `error` reply.
    pub fn error(code: ErrorCode, message: impl Into<String>, id: Option<u64>) -> ServerMessage {
        ServerMessage::Error { code, message: message.into(), id }
    }

    /// The `error` reply to a request (`id`) refused for `refusal`.
    pub fn refused(refusal: Refusal, id: Option<u64>) -> ServerMessage {
        ServerMessage::Error { code: refusal.code, message: refusal.message, id }
    }

    /// The JSON text of the message.
    pub fn to_json(&self) -> String {
        // Serialising these types cannot fail: no maps with non-string keys, no custom Serialize.
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!(
                r#"{{"type":"error","code":"bad_request","message":"internal: {}"}}"#,
                e.to_string().replace('"', "'")
            )
        })
    }

    /// The game a message is about, if it is about one game.
    pub fn game(&self) -> Option<&GameId> {
        match self {
            ServerMessage::State(s) => Some(&s.game),
            ServerMessage::Move { game, .. }
            | ServerMessage::End { game, .. }
            | ServerMessage::Offer { game, .. }
            | ServerMessage::Declined { game, .. }
            | ServerMessage::Seats { game, .. }
            | ServerMessage::Rematch { game, .. }
            | ServerMessage::Berserk { game, .. }
            | ServerMessage::Chat { game, .. }
            | ServerMessage::Watchers { game, .. } => Some(game),
            _ => None,
        }
    }

    /// The version of a game event, or None for messages outside a game's event sequence.
    pub fn version(&self) -> Option<u64> {
        match self {
            ServerMessage::State(s) => Some(s.v),
            ServerMessage::Move { v, .. }
            | ServerMessage::End { v, .. }
            | ServerMessage::Offer { v, .. }
            | ServerMessage::Declined { v, .. }
            | ServerMessage::Seats { v, .. }
            | ServerMessage::Rematch { v, .. }
            | ServerMessage::Berserk { v, .. } => Some(*v),
            _ => None,
        }
    }
}
