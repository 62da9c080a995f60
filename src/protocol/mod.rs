//! The wire protocol: the JSON messages of `GET /ws`, both ways, as serde types, and the one
//! follower of a game's events ([`Follower`]) that every Rust client uses.
//!
//! Every frame is one JSON object tagged by `"type"` (snake_case). A client sends a
//! [`Request`] (a [`ClientMessage`] or a [`GameAction`], and its optional id); the server sends [`ServerMessage`]s
//! and turns requests down with a [`Refusal`]. Both directions derive `Serialize` and
//! `Deserialize` so the server, the terminal client, the load generator and the tests share
//! one definition. This module depends on `chess` only. docs/protocol.md is the authoritative
//! description of every message and field.

mod client;
mod follow;
mod names;
mod server;
mod social;
mod values;

pub use client::{parse_client, Action, ClientMessage, GameAction, Incoming, NewGame, ProtocolError, Request};
pub use follow::{Applied, Follower, Sequence};
pub use server::{ErrorCode, Refusal, ServerMessage};
pub use social::{
    ChatError, ChatLine, ChatRoom, ChatText, MatchScore, NewSeek, Points, SeekId, SeekView, TvChannel, CHAT_MAX,
};
pub use values::{
    engine_label, name_key, ClaimKind, ClaimView, ClockSpec, ClockView, EngineSeatView, GameId, GameRatings,
    GameResult, GameState, GameSummary, NameError, OfferKind, OfferView, OpeningView, PlayerName, RatingChange,
    RepetitionName, RulesSpec, SeatSpec, SeatView, Seats, Status, VariantName, NAME_MAX,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{Color, EndReason};

    #[test]
    fn client_messages_round_trip() {
        let messages = [
            r#"{"type":"list"}"#,
            r#"{"type":"create","variant":"minichess7","fen":null,"rules":{"castling":false,"en_passant":true,"repetition":"eight_move"},"white":{"kind":"human"},"black":{"kind":"bot","level":3},"clock":null,"as":"white","id":1}"#,
            r#"{"type":"join","game":"abcd2345","color":"black"}"#,
            r#"{"type":"join","game":"abcd2345","color":null,"name":"Zoë van Dijk"}"#,
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
            r#"{"type":"rematch","game":"g"}"#,
            r#"{"type":"chat","game":"g","room":"spectators","text":"<img src=x onerror=alert(1)>"}"#,
            r#"{"type":"seek","variant":"standard","fen":null,"rules":{"castling":true,"en_passant":true,"repetition":"threefold"},"clock":{"initial_ms":300000,"increment_ms":3000},"color":null,"name":"Ann"}"#,
            r#"{"type":"cancel_seek"}"#,
            r#"{"type":"accept_seek","seek":"sabc","name":"Bo","id":2}"#,
            r#"{"type":"watch","game":"g","v":null,"name":"Cy"}"#,
        ];
        for text in messages {
            let parsed = parse_client(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let again = parse_client(&parsed.to_json()).unwrap();
            assert_eq!(parsed, again, "{text}");
            // Byte for byte as a client writes it, the id last.
            assert_eq!(parsed.to_json(), text, "{text}");
        }
        let create = parse_client(r#"{"type":"create"}"#).unwrap().message;
        assert_eq!(create, Incoming::Message(ClientMessage::Create(NewGame::default())));
        assert_eq!(parse_client(r#"{"type":"move","game":"g","uci":"e2e4","id":7}"#).unwrap().id, Some(7));
    }

    #[test]
    fn server_messages_round_trip() {
        let seats = Seats { white: SeatView::human(true, None, false), black: SeatView::bot(3) };
        let end = ServerMessage::End {
            game: "g".into(),
            v: 9,
            result: GameResult::BlackWins,
            reason: EndReason::Checkmate,
            clock: None,
            score: MatchScore::default(),
            ratings: None,
        };
        assert_eq!(
            end.to_json(),
            r#"{"type":"end","game":"g","v":9,"result":"0-1","reason":"checkmate","clock":null,"match":{"white":0,"black":0,"games":0}}"#
        );
        let shutting = ServerMessage::refused(Refusal::shutting_down(), Some(2)).to_json();
        assert!(shutting.starts_with(r#"{"type":"error","code":"shutting_down","#), "{shutting}");
        let messages = vec![
            ServerMessage::Created { game: "g".into(), color: Some(Color::White), token: Some("t".into()), id: None },
            ServerMessage::Move {
                game: "g".into(),
                v: 4,
                uci: "e2e4".into(),
                san: "e4".into(),
                fen: "f".into(),
                turn: Color::Black,
                ply: 1,
                legal: vec!["e7e5".into()],
                check: false,
                clock: None,
                opening: None,
            },
            ServerMessage::Seats {
                game: "g".into(),
                v: 1,
                seats: seats.clone(),
                claim: Some(ClaimView { by: Color::White, in_ms: 1500 }),
            },
            ServerMessage::Offer { game: "g".into(), v: 2, kind: OfferKind::Undo, by: Color::Black },
            ServerMessage::error(ErrorCode::NotYourTurn, "wait", Some(3)),
            ServerMessage::Ack { id: 9 },
        ];
        for m in messages {
            let text = m.to_json();
            let back: ServerMessage = serde_json::from_str(&text).unwrap();
            assert_eq!(back, m, "{text}");
        }
        let json = ServerMessage::Seats { game: "g".into(), v: 1, seats, claim: None }.to_json();
        assert!(json.contains(r#""white":{"kind":"human","online":true,"name":"Anonymous"}"#), "{json}");
        let three = crate::bots::Level::new(3).expect("level 3").rating();
        let bot = format!(
            r#""black":{{"kind":"bot","level":3,"name":"Level 3","rating":{three},"label":"Level 3 · ~{three}"}}"#
        );
        assert!(json.contains(&bot), "{json}");
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
            (r#"{"type":"create","variant":"atomic"}"#, "atomic"),
            (r#"{"type":"create","white":{"kind":"alien"}}"#, "alien"),
        ];
        for (text, needle) in cases {
            let err = parse_client(text).expect_err(text);
            assert!(matches!(err.to_message(), ServerMessage::Error { code: ErrorCode::BadRequest, .. }));
            assert!(err.message.contains(needle), "{text}: {}", err.message);
        }
        let err = parse_client(r#"{"type":"move","game":"g","id":12}"#).unwrap_err();
        assert_eq!(err.id, Some(12));
        assert!(parse_client(r#"{"type":"list","id":"x"}"#).is_err());
    }

    #[test]
    fn names_are_checked_as_they_are_read() {
        let name = |text: &str| PlayerName::parse(text).map(String::from);
        assert_eq!(name("  Alice  "), Ok("Alice".into()));
        assert_eq!(name("Zoë_o-k.2"), Ok("Zoë_o-k.2".into()));
        assert_eq!(name(&"x".repeat(NAME_MAX)).map(|n| n.len()), Ok(NAME_MAX));
        assert_eq!(name(&"é".repeat(NAME_MAX)).map(|n| n.chars().count()), Ok(NAME_MAX));
        assert_eq!(name(""), Err(NameError::Empty));
        assert_eq!(name("   "), Err(NameError::Empty));
        assert_eq!(name(&"x".repeat(NAME_MAX + 1)), Err(NameError::TooLong(NAME_MAX + 1)));
        assert_eq!(name("<b>x</b>"), Err(NameError::BadCharacter('<')));
        assert_eq!(name("tab\there"), Err(NameError::BadCharacter('\t')));
        assert_eq!(name("a\u{202e}b"), Err(NameError::BadCharacter('\u{202e}')));
        // Marks belong to the letter before them, composed where Unicode composes them.
        assert_eq!(name("Zoe\u{301}"), Ok("Zoé".into()));
        assert_eq!(name("नमस्ते"), Ok("नमस्ते".into()));
        assert_eq!(name("\u{301}x"), Err(NameError::BadCharacter('\u{301}')));
        assert_eq!(name("x\u{300}\u{301}\u{302}\u{303}"), Err(NameError::BadCharacter('\u{303}')));
        // Invisible characters and ones NFKC would change (UTS 39) are refused.
        for (text, bad) in [
            ("Alice\u{34f}", '\u{34f}'),
            ("Alice\u{fe0f}", '\u{fe0f}'),
            ("Al\u{200b}ice", '\u{200b}'),
            ("\u{3164}Alice", '\u{3164}'),
            ("\u{ff21}lice", '\u{ff21}'),
        ] {
            assert_eq!(name(text), Err(NameError::BadCharacter(bad)), "{text:?}");
        }
        // Look-alikes of a name share its key; other names do not.
        let alice = name_key("Alice");
        for like in ["alice", "ALICE", "Alic\u{435}", "\u{410}lice", "Alice\u{301}"] {
            let key = name_key(like);
            if like.ends_with('\u{301}') {
                assert_ne!(key, alice, "{like:?}: an accent makes another name");
            } else {
                assert_eq!(key, alice, "{like:?}");
            }
        }
        assert_ne!(name_key("Alicia"), alice);
        assert_eq!(name_key("rnary"), name_key("mary"), "rn looks like m");
        // On the wire: a bad name refuses the whole message, saying why.
        for (text, says) in [
            (r#"{"type":"create","name":"<script>","id":3}"#, "'<' cannot be in a name"),
            (r#"{"type":"join","game":"g","name":""}"#, "at least one character"),
            (r#"{"type":"join","game":"g","name":7}"#, "expected a string"),
        ] {
            let e = parse_client(text).unwrap_err();
            assert!(e.message.contains(says), "{text}: {}", e.message);
        }
        let create = parse_client(r#"{"type":"create","name":" Bob "}"#).unwrap().message;
        assert!(
            matches!(create, Incoming::Message(ClientMessage::Create(NewGame { name: Some(n), .. })) if n.as_str() == "Bob")
        );
    }
}
