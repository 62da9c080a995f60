//! The few protocol messages the load generator sends, and a cheap reading of what it receives:
//! only the fields it needs, borrowed from the frame where possible (a spectator reads
//! thousands of `move` events a second and needs their `type`, `game`, `v` and `ply`).

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::chess::Color;
use crate::protocol::{ClientMessage, NewGame, Request};

/// The fields of a server message that the load generator looks at.
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
    /// In `ack` and `error`: the request's id.
    #[serde(default)]
    pub id: Option<u64>,
    /// In `error`.
    #[serde(default, borrow)]
    pub code: Option<Cow<'a, str>>,
    /// In `move` and `state`: the side to move.
    #[serde(default)]
    pub turn: Option<Color>,
    /// In `state`: the moves so far, only counted.
    #[serde(default)]
    pub moves: Option<Vec<IgnoredAny>>,
}

impl Incoming<'_> {
    /// Reads a text frame; None if it is not a JSON object with a `type`.
    pub fn parse(text: &str) -> Option<Incoming<'_>> {
        serde_json::from_str(text).ok()
    }
}

/// Only the legal moves of a `move` or `state`: read by the player to move, not by spectators.
#[derive(Deserialize)]
struct Legal {
    #[serde(default)]
    legal: Vec<String>,
}

/// The `legal` list of a frame (empty if it has none).
pub fn legal_moves(text: &str) -> Vec<String> {
    serde_json::from_str::<Legal>(text).map(|l| l.legal).unwrap_or_default()
}

fn encode(message: ClientMessage, id: Option<u64>) -> String {
    Request::new(message, id).to_json()
}

/// A standard, untimed game between two people, the sender taking white.
pub fn create(id: u64) -> String {
    let create = NewGame { as_side: Some(Color::White), ..NewGame::default() };
    encode(ClientMessage::Create(create), Some(id))
}

/// Takes black in `game`.
pub fn join(game: &str, id: u64) -> String {
    encode(ClientMessage::Join { game: game.to_string(), color: Some(Color::Black) }, Some(id))
}

/// Follows `game` from its current state.
pub fn watch(game: &str) -> String {
    encode(ClientMessage::Watch { game: game.to_string(), v: None }, None)
}

/// Stops following `game`.
pub fn unwatch(game: &str) -> String {
    encode(ClientMessage::Unwatch { game: game.to_string() }, None)
}

/// Plays `uci` in `game`, asking for an `ack` with `id`.
pub fn play(game: &str, uci: &str, id: u64) -> String {
    encode(ClientMessage::Move { game: game.to_string(), uci: uci.to_string() }, Some(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_move_event() {
        let text = r#"{"type":"move","game":"k3fq9mzt","v":6,"uci":"g1f3","san":"Nf3","fen":"x","turn":"black","ply":3,"legal":["a7a6","b7b6"],"check":false,"clock":null}"#;
        let m = Incoming::parse(text).expect("parse");
        assert_eq!(
            (&*m.kind, m.game.as_deref(), m.v, m.ply, m.turn),
            ("move", Some("k3fq9mzt"), Some(6), Some(3), Some(Color::Black))
        );
        assert_eq!(legal_moves(text), ["a7a6", "b7b6"]);
    }

    #[test]
    fn reads_states_errors_and_acks() {
        let state = r#"{"type":"state","game":"abc","v":5,"moves":["e2e4","e7e5"],"status":"ongoing","turn":"white","legal":[]}"#;
        let m = Incoming::parse(state).expect("parse");
        assert_eq!(m.moves.map(|m| m.len()), Some(2));
        let m =
            Incoming::parse(r#"{"type":"error","code":"rate_limited","message":"slow down","id":4}"#).expect("parse");
        assert_eq!((m.code.as_deref(), m.id), (Some("rate_limited"), Some(4)));
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
    }
}
