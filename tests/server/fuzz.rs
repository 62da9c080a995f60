//! Property tests of bad input: arbitrary bytes and arbitrary JSON thrown at the message parser,
//! and arbitrary messages thrown at a real server holding a game. Nothing panics, every message
//! gets an answer, and a message refused with an error changes no game.

use crate::server_support;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{json, Map, Value};
use server_support::{human, start_with, test_config, Client, Server};

use gambit::protocol::parse_client;

/// Any JSON value, nested a few levels, with keys often taken from the protocol's own names.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        any::<u64>().prop_map(|n| json!(n)),
        "\\PC{0,12}".prop_map(Value::String),
        prop::sample::select(vec!["move", "create", "join", "resume", "watch", "e2e4", "white", "human", "bot"])
            .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let key = prop_oneof![
            prop::sample::select(vec![
                "type",
                "game",
                "uci",
                "id",
                "v",
                "token",
                "color",
                "as",
                "white",
                "black",
                "kind",
                "level",
                "clock",
                "initial_ms",
                "increment_ms",
                "rules",
                "fen",
                "variant",
                "result",
            ])
            .prop_map(str::to_string),
            "\\PC{0,6}",
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_parser_takes_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = parse_client(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn the_parser_takes_any_json(value in any_json()) {
        if let Ok(message) = parse_client(&value.to_string()) {
            // Whatever it accepts reads back the same.
            let again = parse_client(&serde_json::to_string(&message).expect("serialise")).expect("reparse");
            prop_assert_eq!(again, message);
        }
    }
}

/// A message aimed at the game: a real type with fields that are often wrong.
fn message_for(game: String, token: String) -> impl Strategy<Value = Value> {
    let ty = prop::sample::select(vec![
        "move",
        "move",
        "move",
        "undo",
        "draw",
        "decline",
        "join",
        "resume",
        "watch",
        "unwatch",
        "claim",
        "list",
        "abort",
        "create",
        "teleport",
        "chat",
        "chat",
        "rematch",
        "seek",
        "cancel_seek",
        "accept_seek",
    ]);
    let game_field = prop_oneof![
        3 => Just(json!(game)),
        1 => "[a-z2-9]{0,9}".prop_map(Value::String),
        1 => any_json(),
    ];
    let uci = prop_oneof![
        "[a-h][1-8][a-h][1-8][qrbnk]?".prop_map(Value::String),
        "\\PC{0,8}".prop_map(Value::String),
        any_json(),
    ];
    let token_field = prop_oneof![Just(json!(token)), "[0-9a-f]{0,32}".prop_map(Value::String), any_json()];
    let extra = prop::collection::vec(("[a-z_]{1,8}", any_json()), 0..3);
    let name =
        prop_oneof!["[A-Za-z0-9 _.-]{0,26}".prop_map(Value::String), "\\PC{0,30}".prop_map(Value::String), any_json()];
    let room = prop_oneof![Just(json!("players")), Just(json!("spectators")), any_json()];
    let text = prop_oneof!["\\PC{0,300}".prop_map(Value::String), "\\p{Cc}{1,3}".prop_map(Value::String), any_json()];
    (ty, game_field, uci, token_field, extra, any_json(), any_json(), name, (room, text, any_json())).prop_map(
        move |(ty, game, uci, token, extra, result, seat, name, (room, text, seek))| {
            let mut m = Map::new();
            m.insert("type".into(), json!(ty));
            m.insert("game".into(), game);
            m.insert("uci".into(), uci);
            m.insert("token".into(), token);
            m.insert("result".into(), result);
            m.insert("white".into(), seat);
            m.insert("name".into(), name);
            m.insert("room".into(), room);
            m.insert("text".into(), text);
            m.insert("seek".into(), seek);
            for (k, v) in extra {
                if k != "id" && k != "type" {
                    m.insert(k, v);
                }
            }
            m.insert("id".into(), json!(424242));
            Value::Object(m)
        },
    )
}

async fn state(server: &Server, game: &str) -> Value {
    let (status, body) = server.get(&format!("/api/games/{game}")).await;
    assert_eq!(status, 200, "{body}");
    let mut state: Value = serde_json::from_str(&body).expect("state");
    // A claim's countdown moves with the clock on the wall, not with messages.
    if let Some(claim) = state["claim"].as_object_mut() {
        claim.remove("in_ms");
    }
    state
}

/// The answer to the message with id 424242: an ack, an error, or (for `create`, `join` and
/// `resume`) the reply that carries the id.
async fn answer(client: &mut Client) -> Value {
    loop {
        let m = client.recv().await;
        if m["id"] == 424242 {
            return m;
        }
    }
}

#[test]
fn refused_messages_change_no_game() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut config = test_config();
    config.rate_burst = 1_000_000;
    config.rate_per_sec = 1_000_000.0;
    config.max_games_per_connection = 1_000_000;
    let (server, mut white, game, token) = runtime.block_on(async {
        let server = start_with(config).await;
        let mut white = server.client().await;
        let (game, token) = white.create(human(), human(), Some("white")).await;
        let mut black = server.client().await;
        black.join(&game, "black").await;
        // Black leaves the board to White's messages (and stays connected).
        std::mem::forget(black);
        (server, white, game, token.expect("token"))
    });
    // Each case runs against the same live game, so they are drawn one by one (no shrinking;
    // a failure names the message).
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::default());
    let strategy = message_for(game.clone(), token);
    let mut refused = 0;
    for _ in 0..300 {
        let message = strategy.new_tree(&mut runner).expect("message").current();
        runtime.block_on(async {
            let before = state(&server, &game).await;
            white.send(message.clone()).await;
            let reply = answer(&mut white).await;
            if reply["type"] == "error" {
                refused += 1;
                let after = state(&server, &game).await;
                assert_eq!(before, after, "{message} was refused ({reply}) but changed the game");
            }
        });
    }
    assert!(refused > 100, "only {refused} messages refused: the generator is too tame");
}
