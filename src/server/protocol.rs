//! The wire protocol: the JSON messages of `GET /ws`, both ways, as serde types.
//!
//! Every frame is one JSON object tagged by `"type"` (snake_case). [`ClientMessage`] is what a
//! client sends, [`ServerMessage`] what the server sends; both derive `Serialize` and
//! `Deserialize` so the server and the clients (terminal, tests) share one definition.
//! docs/protocol.md is the authoritative description of every message and field.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::chess::{Color, Repetition, Rules, Variant};

/// A game's id on the wire: 8 characters of lowercase base32.
pub type GameId = String;

/// A side of the board, `"white"` or `"black"`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    White,
    Black,
}

impl Side {
    /// The side that is not this one.
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// `"white"` or `"black"`.
    pub fn name(self) -> &'static str {
        Color::from(self).name()
    }
}

impl From<Side> for Color {
    fn from(side: Side) -> Color {
        match side {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

impl From<Color> for Side {
    fn from(color: Color) -> Side {
        match color {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }
}

/// The variant names of the wire, `"standard"` or `"minichess7"`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VariantName {
    #[default]
    Standard,
    Minichess7,
}

impl From<VariantName> for Variant {
    fn from(v: VariantName) -> Variant {
        match v {
            VariantName::Standard => Variant::Standard,
            VariantName::Minichess7 => Variant::Minichess7,
        }
    }
}

impl From<Variant> for VariantName {
    fn from(v: Variant) -> VariantName {
        match v {
            Variant::Standard => VariantName::Standard,
            Variant::Minichess7 => VariantName::Minichess7,
        }
    }
}

/// The repetition rule names of the wire.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepetitionName {
    #[default]
    Threefold,
    EightMove,
}

/// The rule options of `create`; every field may be left out (defaults: all on, threefold).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct RulesSpec {
    pub castling: bool,
    pub en_passant: bool,
    pub repetition: RepetitionName,
}

impl Default for RulesSpec {
    fn default() -> RulesSpec {
        RulesSpec { castling: true, en_passant: true, repetition: RepetitionName::Threefold }
    }
}

impl From<Rules> for RulesSpec {
    fn from(rules: Rules) -> RulesSpec {
        RulesSpec {
            castling: rules.castling,
            en_passant: rules.en_passant,
            repetition: match rules.repetition {
                Repetition::Threefold => RepetitionName::Threefold,
                Repetition::EightMove => RepetitionName::EightMove,
            },
        }
    }
}

impl From<RulesSpec> for Rules {
    fn from(spec: RulesSpec) -> Rules {
        Rules {
            castling: spec.castling,
            en_passant: spec.en_passant,
            repetition: match spec.repetition {
                RepetitionName::Threefold => Repetition::Threefold,
                RepetitionName::EightMove => Repetition::EightMove,
            },
        }
    }
}

/// SEAT: who is to sit on a side, as asked for in `create`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SeatSpec {
    /// A person, holding the seat with a secret token.
    #[default]
    Human,
    /// A computer player of level 1 to 5.
    Bot { level: u8 },
}

/// SEATVIEW: who sits on a side, as everyone may see it. Tokens are never shown.
///
/// `{"kind":"human","online":true}` — a person holds the seat (online: at least one of their
/// connections is open); `{"kind":"bot","level":3}`; `{"kind":"open"}` — a human seat nobody
/// has taken yet (`join` takes it).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SeatView {
    Human { online: bool },
    Bot { level: u8 },
    Open,
}

/// Both seats of a game.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Seats {
    pub white: SeatView,
    pub black: SeatView,
}

/// A Fischer time control, as asked for in `create` and shown in the games list: each side
/// starts with `initial_ms` and gains `increment_ms` after each of its moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ClockSpec {
    pub initial_ms: u64,
    pub increment_ms: u64,
}

/// A game's clock as of an event: the setting, both sides' time left, and the side whose time
/// is running (null while the game waits for a player or once it has ended). Clients count
/// the running side down locally from the event.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ClockView {
    pub initial_ms: u64,
    pub increment_ms: u64,
    pub white_ms: u64,
    pub black_ms: u64,
    pub running: Option<Side>,
}

/// Where a game is in its life.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A human seat is still open.
    Waiting,
    Ongoing,
    Ended,
}

/// What an offer asks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OfferKind {
    Draw,
    Undo,
}

/// A pending offer, as shown in `state`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct OfferView {
    pub kind: OfferKind,
    pub by: Side,
}

/// What a player claims when the opponent has been away for the grace period.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// The game, as won by abandonment.
    Win,
    /// A draw.
    Draw,
}

/// While a player is away from an ongoing game and the opponent is connected: who may claim
/// the game (`by`), and in how many milliseconds (0: now). Clients count it down locally.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ClaimView {
    pub by: Side,
    pub in_ms: u64,
}

/// One line of the `games` list.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameSummary {
    pub game: GameId,
    pub variant: VariantName,
    pub white: SeatView,
    pub black: SeatView,
    pub status: Status,
    pub plies: usize,
    pub watchers: usize,
    /// `"1-0"`, `"0-1"`, `"1/2-1/2"` once ended.
    pub result: Option<String>,
    /// The time control; null for an untimed game.
    #[serde(default)]
    pub clock: Option<ClockSpec>,
}

/// A full snapshot of a game: sent on joining, watching, resuming, after an undo and to a
/// subscriber that fell behind.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameState {
    pub game: GameId,
    pub v: u64,
    pub variant: VariantName,
    pub initial_fen: String,
    pub fen: String,
    /// Every move from the initial position, in UCI.
    pub moves: Vec<String>,
    /// The same moves in SAN.
    pub san: Vec<String>,
    pub turn: Side,
    pub status: Status,
    pub result: Option<String>,
    pub reason: Option<String>,
    pub seats: Seats,
    /// The legal moves now, in UCI; empty once the game is over.
    pub legal: Vec<String>,
    pub check: bool,
    /// The clock as of this snapshot; null for an untimed game.
    #[serde(default)]
    pub clock: Option<ClockView>,
    pub watchers: usize,
    /// The pending draw or undo offer, if any.
    pub offer: Option<OfferView>,
    /// Whether a player may claim the game of an absent opponent (see [`ClaimView`]).
    #[serde(default)]
    pub claim: Option<ClaimView>,
}

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
}

impl ErrorCode {
    /// The snake_case name of the wire.
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::IllegalMove => "illegal_move",
            ErrorCode::NotYourTurn => "not_your_turn",
            ErrorCode::NotAPlayer => "not_a_player",
            ErrorCode::NoSuchGame => "no_such_game",
            ErrorCode::GameOver => "game_over",
            ErrorCode::SeatTaken => "seat_taken",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::TooMany => "too_many",
            ErrorCode::ServerError => "server_error",
            ErrorCode::DamagedGame => "damaged_game",
        }
    }
}

/// A message from a client. `id`, on any message, is echoed in the `ack` or `error` it causes.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Asks for the games list and subscribes to its changes.
    List {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// Creates a game; the creator takes the human seat named by `as` (or the only human seat).
    Create {
        #[serde(default)]
        variant: VariantName,
        #[serde(default)]
        fen: Option<String>,
        #[serde(default)]
        rules: RulesSpec,
        #[serde(default)]
        white: SeatSpec,
        #[serde(default)]
        black: SeatSpec,
        #[serde(default)]
        clock: Option<ClockSpec>,
        #[serde(default, rename = "as")]
        as_side: Option<Side>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// Takes an open human seat (`color` left out: whichever is open).
    Join {
        game: GameId,
        #[serde(default)]
        color: Option<Side>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// Takes one's seat back on a new connection, with the token from `created`/`joined`.
    Resume {
        game: GameId,
        token: String,
        #[serde(default)]
        v: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// Follows a game as a spectator; with `v`, only the events after it.
    Watch {
        game: GameId,
        #[serde(default)]
        v: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// Stops following a game.
    Unwatch {
        game: GameId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// Plays a move in UCI.
    Move {
        game: GameId,
        uci: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// Takes back (vs a bot), offers to take back, or accepts the opponent's undo offer.
    Undo {
        game: GameId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// Offers a draw, or accepts the opponent's draw offer.
    Draw {
        game: GameId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// Refuses the opponent's pending offer.
    Decline {
        game: GameId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// Gives up the game.
    Resign {
        game: GameId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// Claims the game (`"win"`) or a draw (`"draw"`) after the opponent has been away for the
    /// grace period.
    Claim {
        game: GameId,
        result: ClaimKind,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
}

impl ClientMessage {
    /// The request id the client attached, if any.
    pub fn id(&self) -> Option<u64> {
        match self {
            ClientMessage::List { id }
            | ClientMessage::Create { id, .. }
            | ClientMessage::Join { id, .. }
            | ClientMessage::Resume { id, .. }
            | ClientMessage::Watch { id, .. }
            | ClientMessage::Unwatch { id, .. }
            | ClientMessage::Move { id, .. }
            | ClientMessage::Undo { id, .. }
            | ClientMessage::Draw { id, .. }
            | ClientMessage::Decline { id, .. }
            | ClientMessage::Resign { id, .. }
            | ClientMessage::Claim { id, .. } => *id,
        }
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
        color: Option<Side>,
        token: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// The answer to `join` and to `resume`: the seat and its token.
    Joined {
        game: GameId,
        color: Side,
        token: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// A full snapshot of a game (also the event that follows an undo).
    State(GameState),
    /// Event: a move was played.
    Move {
        game: GameId,
        v: u64,
        uci: String,
        san: String,
        fen: String,
        /// The side to move after this move.
        turn: Side,
        /// Number of moves played so far, this one included.
        ply: usize,
        legal: Vec<String>,
        check: bool,
        /// The clock just after this move (the mover's time charged and incremented).
        #[serde(default)]
        clock: Option<ClockView>,
    },
    /// A request with an `id` was carried out.
    Ack { id: u64 },
    /// Event: the game ended.
    End {
        game: GameId,
        v: u64,
        result: String,
        reason: String,
        /// The stopped clock at the end; null for an untimed game.
        #[serde(default)]
        clock: Option<ClockView>,
    },
    /// Event: a side offers a draw or an undo.
    Offer { game: GameId, v: u64, kind: OfferKind, by: Side },
    /// Event: the offer made by `by` was refused (by the other side).
    Declined { game: GameId, v: u64, kind: OfferKind, by: Side },
    /// Event: a seat was taken, or a player came online or went offline.
    Seats {
        game: GameId,
        v: u64,
        seats: Seats,
        #[serde(default)]
        claim: Option<ClaimView>,
    },
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

    /// The version of a game event, or None for messages outside a game's event sequence.
    pub fn version(&self) -> Option<u64> {
        match self {
            ServerMessage::State(s) => Some(s.v),
            ServerMessage::Move { v, .. }
            | ServerMessage::End { v, .. }
            | ServerMessage::Offer { v, .. }
            | ServerMessage::Declined { v, .. }
            | ServerMessage::Seats { v, .. } => Some(*v),
            _ => None,
        }
    }
}

/// A frame that is not a valid client message. Sent back as `error` with code `bad_request`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct ProtocolError {
    /// What is wrong, for people.
    pub message: String,
    /// The request's `id`, when it could still be read.
    pub id: Option<u64>,
}

impl ProtocolError {
    /// Always `bad_request`.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::BadRequest
    }

    /// The `error` reply for this.
    pub fn to_message(&self) -> ServerMessage {
        ServerMessage::error(self.code(), self.message.clone(), self.id)
    }
}

/// Parses one text frame from a client. Malformed JSON, a non-object, a missing or unknown
/// `type`, missing or mistyped fields all become a [`ProtocolError`] that says what is wrong.
pub fn parse_client(text: &str) -> Result<ClientMessage, ProtocolError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ProtocolError { message: format!("malformed JSON: {e}"), id: None })?;
    let Some(object) = value.as_object() else {
        return Err(ProtocolError { message: "expected a JSON object with a \"type\" field".into(), id: None });
    };
    // Read the id first so even a refused request can be matched to its reply.
    let id = object.get("id").and_then(serde_json::Value::as_u64);
    match object.get("type") {
        None => return Err(ProtocolError { message: "missing field \"type\"".into(), id }),
        Some(serde_json::Value::String(_)) => {}
        Some(_) => return Err(ProtocolError { message: "field \"type\" must be a string".into(), id }),
    }
    if object.get("id").is_some_and(|v| !v.is_null() && v.as_u64().is_none()) {
        return Err(ProtocolError { message: "field \"id\" must be a non-negative integer".into(), id: None });
    }
    ClientMessage::deserialize(value).map_err(|e| ProtocolError { message: describe(&e.to_string()), id })
}

/// serde's message with its Rust-flavoured wording made plainer for a client author.
fn describe(serde_message: &str) -> String {
    let message = serde_message.replace("unknown variant", "unknown value").replace('`', "\"");
    if message.contains("expected one of \"list\"") {
        format!("unknown message type: {message}")
    } else {
        format!("bad message: {message}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_round_trip() {
        let messages = [
            r#"{"type":"list"}"#,
            r#"{"type":"create","variant":"minichess7","fen":null,"rules":{"castling":false,"en_passant":true,"repetition":"eight_move"},"white":{"kind":"human"},"black":{"kind":"bot","level":3},"clock":null,"as":"white","id":1}"#,
            r#"{"type":"join","game":"abcd2345","color":"black"}"#,
            r#"{"type":"resume","game":"abcd2345","token":"00ff","v":12}"#,
            r#"{"type":"watch","game":"abcd2345","v":3}"#,
            r#"{"type":"unwatch","game":"abcd2345"}"#,
            r#"{"type":"move","game":"abcd2345","uci":"e2e4","id":7}"#,
            r#"{"type":"undo","game":"g"}"#,
            r#"{"type":"draw","game":"g"}"#,
            r#"{"type":"decline","game":"g"}"#,
            r#"{"type":"resign","game":"g"}"#,
            r#"{"type":"claim","game":"g","result":"win"}"#,
            r#"{"type":"claim","game":"g","result":"draw","id":4}"#,
        ];
        for text in messages {
            let parsed = parse_client(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let again = parse_client(&serde_json::to_string(&parsed).unwrap()).unwrap();
            assert_eq!(parsed, again, "{text}");
        }
        let create = parse_client(r#"{"type":"create"}"#).unwrap();
        assert_eq!(
            create,
            ClientMessage::Create {
                variant: VariantName::Standard,
                fen: None,
                rules: RulesSpec::default(),
                white: SeatSpec::Human,
                black: SeatSpec::Human,
                clock: None,
                as_side: None,
                id: None
            }
        );
        assert_eq!(parse_client(r#"{"type":"move","game":"g","uci":"e2e4","id":7}"#).unwrap().id(), Some(7));
    }

    #[test]
    fn server_messages_round_trip() {
        let seats = Seats { white: SeatView::Human { online: true }, black: SeatView::Bot { level: 3 } };
        let messages = vec![
            ServerMessage::Created { game: "g".into(), color: Some(Side::White), token: Some("t".into()), id: None },
            ServerMessage::Move {
                game: "g".into(),
                v: 4,
                uci: "e2e4".into(),
                san: "e4".into(),
                fen: "f".into(),
                turn: Side::Black,
                ply: 1,
                legal: vec!["e7e5".into()],
                check: false,
                clock: None,
            },
            ServerMessage::Seats {
                game: "g".into(),
                v: 1,
                seats,
                claim: Some(ClaimView { by: Side::White, in_ms: 1500 }),
            },
            ServerMessage::Offer { game: "g".into(), v: 2, kind: OfferKind::Undo, by: Side::Black },
            ServerMessage::error(ErrorCode::NotYourTurn, "wait", Some(3)),
            ServerMessage::Ack { id: 9 },
        ];
        for m in messages {
            let text = m.to_json();
            let back: ServerMessage = serde_json::from_str(&text).unwrap();
            assert_eq!(back, m, "{text}");
        }
        let json = ServerMessage::Seats { game: "g".into(), v: 1, seats, claim: None }.to_json();
        assert!(json.contains(r#""white":{"kind":"human","online":true}"#), "{json}");
        assert!(json.contains(r#""black":{"kind":"bot","level":3}"#), "{json}");
        let open = serde_json::to_string(&SeatView::Open).unwrap();
        assert_eq!(open, r#"{"kind":"open"}"#);
        let err = ServerMessage::error(ErrorCode::TooLarge, "big", None).to_json();
        assert_eq!(err, r#"{"type":"error","code":"too_large","message":"big"}"#);
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let cases = [
            ("{not json", "malformed JSON"),
            ("[1,2]", "JSON object"),
            (r#"{"game":"g"}"#, "missing field \"type\""),
            (r#"{"type":5}"#, "must be a string"),
            (r#"{"type":"castle"}"#, "unknown message type"),
            (r#"{"type":"move","game":"g"}"#, "missing field \"uci\""),
            (r#"{"type":"move","game":"g","uci":42}"#, "invalid type"),
            (r#"{"type":"create","variant":"chess960"}"#, "chess960"),
            (r#"{"type":"create","white":{"kind":"alien"}}"#, "alien"),
        ];
        for (text, needle) in cases {
            let err = parse_client(text).expect_err(text);
            assert_eq!(err.code(), ErrorCode::BadRequest);
            assert!(err.message.contains(needle), "{text}: {}", err.message);
        }
        let err = parse_client(r#"{"type":"move","game":"g","id":12}"#).unwrap_err();
        assert_eq!(err.id, Some(12));
        assert!(parse_client(r#"{"type":"list","id":"x"}"#).is_err());
    }
}
