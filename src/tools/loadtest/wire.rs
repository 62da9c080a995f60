//! The few protocol messages the load generator sends, and a spectator's cheap reading of what
//! it receives: only the fields it needs, borrowed from the frame where possible (thousands of
//! spectators read thousands of `move` events a second and need only their `type`, `game`, `v`
//! and `ply`). Players read whole messages and follow their game with the protocol's Follower.

use std::borrow::Cow;

use serde::Deserialize;

use crate::chess::Color;
use crate::protocol::{Action, ClientMessage, ErrorCode, GameAction, NewGame, Request};

/// The fields of a server message that a spectator looks at.
#[derive(Debug, Deserialize)]
pub struct Incoming<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(default, borrow)]
    pub game: Option<Cow<'a, str>>,
    /// The event version (`move`, `end`, `seats`, `offer`, `declined`, `state`).
    #[serde(default)]
    pub v: Option<u64>,
    /// In `move`: the number of moves played, this one included.
    #[serde(default)]
    pub ply: Option<u64>,
    /// In `error`.
    #[serde(default, borrow)]
    pub code: Option<Cow<'a, str>>,
}

impl Incoming<'_> {
    /// Reads a text frame; None if it is not a JSON object with a `type`.
    pub fn parse(text: &str) -> Option<Incoming<'_>> {
        serde_json::from_str(text).ok()
    }
}

fn encode(message: impl Into<crate::protocol::Incoming>, id: Option<u64>) -> String {
    Request::new(message, id).to_json()
}

/// A standard, untimed game between two people, the sender taking white.
pub fn create(id: u64) -> String {
    let create = NewGame { as_side: Some(Color::White), ..NewGame::default() };
    encode(ClientMessage::Create(create), Some(id))
}

/// Takes black in `game`.
pub fn join(game: &str, id: u64) -> String {
    encode(ClientMessage::Join { game: game.to_string(), color: Some(Color::Black), name: None }, Some(id))
}

/// Follows `game` from its current state.
pub fn watch(game: &str) -> String {
    encode(ClientMessage::Watch { game: game.to_string(), v: None, name: None }, None)
}

/// Takes back the seat `token` holds in `game`, with a fresh state.
pub fn resume(game: &str, token: &str) -> String {
    encode(ClientMessage::Resume { game: game.to_string(), token: Some(token.to_string()), v: None }, None)
}

/// The wire's name of an error code (`rate_limited`), as the report counts errors by it.
pub fn code_name(code: ErrorCode) -> String {
    match serde_json::to_value(code) {
        Ok(serde_json::Value::String(name)) => name,
        _ => format!("{code:?}"),
    }
}

/// Stops following `game`.
pub fn unwatch(game: &str) -> String {
    encode(ClientMessage::Unwatch { game: game.to_string() }, None)
}

/// Plays `uci` in `game`, asking for an `ack` with `id`.
pub fn play(game: &str, uci: &str, id: u64) -> String {
    encode(GameAction::new(game, Action::play(uci.to_string())), Some(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_move_event() {
        let text = r#"{"type":"move","game":"k3fq9mzt","v":6,"uci":"g1f3","san":"Nf3","fen":"x","turn":"black","ply":3,"legal":["a7a6","b7b6"],"check":false,"clock":null}"#;
        let m = Incoming::parse(text).expect("parse");
        assert_eq!((&*m.kind, m.game.as_deref(), m.v, m.ply), ("move", Some("k3fq9mzt"), Some(6), Some(3)));
    }

    #[test]
    fn reads_states_errors_and_acks() {
        let state = r#"{"type":"state","game":"abc","v":5,"moves":["e2e4","e7e5"],"status":"ongoing","turn":"white","legal":[]}"#;
        let m = Incoming::parse(state).expect("parse");
        assert_eq!((&*m.kind, m.v), ("state", Some(5)));
        let m =
            Incoming::parse(r#"{"type":"error","code":"rate_limited","message":"slow down","id":4}"#).expect("parse");
        assert_eq!(m.code.as_deref(), Some("rate_limited"));
        let m = Incoming::parse(r#"{"type":"watchers","game":"abc","count":3}"#).expect("parse");
        assert_eq!((&*m.kind, m.v), ("watchers", None));
        assert!(Incoming::parse("[1,2]").is_none());
    }

    #[test]
    fn writes_protocol_messages() {
        let create: serde_json::Value = serde_json::from_str(&create(1)).expect("json");
        assert_eq!(create["type"], "create");
        assert_eq!(create["as"], "white");
        assert_eq!(create["black"]["kind"], "human");
        assert_eq!(create["clock"], serde_json::Value::Null);
        assert_eq!(play("abc", "e2e4", 7), r#"{"type":"move","game":"abc","uci":"e2e4","id":7}"#);
        assert_eq!(join("abc", 2), r#"{"type":"join","game":"abc","color":"black","id":2}"#);
        assert_eq!(watch("abc"), r#"{"type":"watch","game":"abc","v":null}"#);
        assert_eq!(resume("abc", "t0k"), r#"{"type":"resume","game":"abc","token":"t0k","v":null}"#);
        assert_eq!(code_name(ErrorCode::RateLimited), "rate_limited");
    }
}
