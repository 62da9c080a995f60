//! What a client sends: [`Request`] (a [`ClientMessage`] and its optional id) and the parser
//! that turns any text frame into one or says what is wrong with it.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::server::{Refusal, ServerMessage};
use super::social::{ChatRoom, ChatText, NewSeek, SeekId};
use super::values::{ClaimKind, ClockSpec, GameId, PlayerName, RulesSpec, SeatSpec, VariantName};
use crate::chess::Color;

/// One frame from a client: the message and the request `id` it may carry, which the server
/// echoes in the `ack` or `error` the message causes. On the wire the id is one more field of
/// the message object (`{"type":"move",…,"id":7}`).
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct Request {
    #[serde(flatten)]
    pub message: Incoming,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
}

impl Request {
    /// `message` with request id `id`.
    pub fn new(message: impl Into<Incoming>, id: Option<u64>) -> Request {
        Request { message: message.into(), id }
    }

    /// The JSON text of the frame.
    pub fn to_json(&self) -> String {
        // These types have no map keys or custom serialisers that could fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl From<ClientMessage> for Request {
    fn from(message: ClientMessage) -> Request {
        Request::new(message, None)
    }
}

impl From<GameAction> for Request {
    fn from(action: GameAction) -> Request {
        Request::new(action, None)
    }
}

/// What a frame asks: something of the server ([`ClientMessage`]: lists, games to create,
/// join or follow, chat, seeks), or a seat holder's action in one game ([`GameAction`]), which
/// the connection hands to the game's room as it is.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(untagged)]
pub enum Incoming {
    Message(ClientMessage),
    Action(GameAction),
}

impl From<ClientMessage> for Incoming {
    fn from(message: ClientMessage) -> Incoming {
        Incoming::Message(message)
    }
}

impl From<GameAction> for Incoming {
    fn from(action: GameAction) -> Incoming {
        Incoming::Action(action)
    }
}

/// A seat holder's action in game `game`; on the wire the action's fields sit beside `game`
/// (`{"type":"move","game":ID,"uci":"e2e4"}`).
#[derive(Clone, PartialEq, Eq, Debug, Deserialize)]
pub struct GameAction {
    pub game: GameId,
    #[serde(flatten)]
    pub action: Action,
}

impl Serialize for GameAction {
    /// As clients have always written it: the type, the game, then the action's own fields.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap};
        let serde_json::Value::Object(mut fields) = serde_json::to_value(&self.action).map_err(S::Error::custom)?
        else {
            return Err(S::Error::custom("an action is a JSON object"));
        };
        let mut map = serializer.serialize_map(None)?;
        if let Some(kind) = fields.remove("type") {
            map.serialize_entry("type", &kind)?;
        }
        map.serialize_entry("game", &self.game)?;
        for (key, value) in &fields {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl Action {
    /// The move `uci`, chosen on the player's turn.
    pub fn play(uci: impl Into<String>) -> Action {
        Action::Move { uci: uci.into(), premove: false }
    }
}

impl GameAction {
    pub fn new(game: impl Into<GameId>, action: Action) -> GameAction {
        GameAction { game: game.into(), action }
    }
}

/// What a seat holder does in a game. The room carries these out as they come (a room
/// operation of its own, `Act`), so a new one is a variant here and its handler in the room.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Plays a move in UCI. `premove`: the client played it by itself the moment the turn came
    /// (a move the player chose during the opponent's turn); the clock charges it as a move that
    /// took no thought (docs/protocol.md, "Clocks").
    Move {
        uci: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        premove: bool,
    },
    /// Takes back (vs a bot), offers to take back, or accepts the opponent's undo offer.
    Undo,
    /// Offers a draw, or accepts the opponent's draw offer.
    Draw,
    /// Refuses the opponent's pending offer.
    Decline,
    /// Gives up the game.
    Resign,
    /// Calls the game off, with no result: only before both sides have moved.
    Abort,
    /// Claims the game (`"win"`) or a draw (`"draw"`) after the opponent has been away for the
    /// grace period.
    Claim { result: ClaimKind },
    /// After the end: offers a rematch, or accepts the opponent's offer (against a bot, starts
    /// it at once).
    Rematch,
    /// Takes back one's own pending offer: a draw, a takeback or, after the end, a rematch.
    Withdraw,
    /// In an arena game that allows it, before one's first move: halves one's own time for a
    /// point more if the game is won (lichess's berserk).
    Berserk,
}

/// The game a `create` asks for; every field may be left out (`{"type":"create"}` is a
/// standard, untimed game between two people, the creator taking the first human seat). The
/// server's rooms are made from this very type.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NewGame {
    pub variant: VariantName,
    pub fen: Option<String>,
    pub rules: RulesSpec,
    pub white: SeatSpec,
    pub black: SeatSpec,
    /// The time control; None for an untimed game.
    pub clock: Option<ClockSpec>,
    /// The human seat the creator takes (None: the first one).
    #[serde(rename = "as")]
    pub as_side: Option<Color>,
    /// The creator's display name (None: "Anonymous").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<PlayerName>,
    /// Whether the result changes both players' ratings (two logged-in players, a clock, the
    /// usual start position).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// An open challenge: the creator takes no seat, and the game's human seats go to whoever
    /// comes with its link (lichess's `/api/challenge/open`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub open: bool,
    /// A correspondence game: days per move (1, 2, 3, 5, 7, 10 or 14) instead of a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<u32>,
    /// An arena's game: each side may berserk. Only the server's tournaments make such games;
    /// a client's `create` cannot ask for it.
    #[serde(skip)]
    pub berserkable: bool,
}

/// A message from a client, without its request id (see [`Request`]).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Asks for the games list and subscribes to its changes.
    List,
    /// Creates a game; the creator takes the human seat named by `as` (or the only human seat).
    Create(NewGame),
    /// Takes an open human seat (`color` left out: whichever is open).
    Join {
        game: GameId,
        #[serde(default)]
        color: Option<Color>,
        /// The joiner's display name (None: "Anonymous").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<PlayerName>,
    },
    /// Takes one's seat back on a new connection, with the token from `created`/`joined`
    /// (a logged-in player may leave it out: the account's seat is meant).
    Resume {
        game: GameId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        #[serde(default)]
        v: Option<u64>,
    },
    /// Follows a game as a spectator; with `v`, only the events after it.
    Watch {
        game: GameId,
        #[serde(default)]
        v: Option<u64>,
        /// The name the spectator chats under (None: "Anonymous").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<PlayerName>,
    },
    /// Stops following a game.
    Unwatch { game: GameId },
    /// Writes a line in one of the game's chat rooms.
    Chat { game: GameId, room: ChatRoom, text: ChatText },
    /// Posts an open challenge (replacing this connection's earlier one).
    Seek(NewSeek),
    /// Withdraws this connection's open challenge.
    CancelSeek,
    /// Follows a TV channel: the channel's featured game now and at every change (`tv`).
    Tv { channel: super::TvChannel },
    /// Takes up an open challenge.
    AcceptSeek {
        seek: SeekId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<PlayerName>,
    },
}

/// A frame that is not a valid client message: refused with `bad_request`, echoing the frame's
/// `id` when it could still be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct ProtocolError {
    /// What is wrong, for people.
    pub message: String,
    /// The request's `id`, when it could still be read.
    pub id: Option<u64>,
}

impl ProtocolError {
    /// The `error` reply for this.
    pub fn to_message(&self) -> ServerMessage {
        ServerMessage::refused(Refusal::bad_request(self.message.clone()), self.id)
    }
}

/// Parses one text frame from a client. Malformed JSON, a non-object, a missing or unknown
/// `type`, missing or mistyped fields all become a [`ProtocolError`] that says what is wrong.
pub fn parse_client(text: &str) -> Result<Request, ProtocolError> {
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
    let message = incoming(value).map_err(|message| ProtocolError { message, id })?;
    Ok(Request { id, message })
}

/// A frame's object as a game action if its `type` names one, else as a client message; what
/// is wrong with it, in words.
fn incoming(value: serde_json::Value) -> Result<Incoming, String> {
    match Action::deserialize(&value) {
        Ok(_) => GameAction::deserialize(value).map(Incoming::Action).map_err(|e| describe(&e.to_string())),
        Err(not_action) if not_action.to_string().starts_with("unknown variant") => {
            ClientMessage::deserialize(value).map(Incoming::Message).map_err(|e| {
                let message = describe(&e.to_string());
                if message.starts_with("unknown message type") {
                    // The game actions are a type of their own: name them too.
                    let actions = describe(&not_action.to_string());
                    let actions = actions.split_once("expected one of ").map_or("", |(_, list)| list);
                    format!("{message}, or a game action: {actions}")
                } else {
                    message
                }
            })
        }
        // A game action with a field missing or of the wrong type.
        Err(e) => Err(describe(&e.to_string())),
    }
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
