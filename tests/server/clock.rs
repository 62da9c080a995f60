//! Chess clocks over real sockets: a flag falls with nobody sending anything, a bare king draws
//! on time, moves charge the mover and add the increment, a waiting game's clock stands still,
//! and bad settings are refused. (The clock arithmetic itself is tested under paused time in
//! src/server/room/clock.rs.)

use crate::server_support;

use std::time::Duration;

use serde_json::{json, Value};
use server_support::{bot, human, start, Client};

/// Creates a timed game with the creator as White; returns (client, game, token, first state).
async fn create_timed(
    server: &server_support::Server,
    black: Value,
    clock: Value,
    fen: Option<&str>,
) -> (Client, String, String, Value) {
    let mut white = server.client().await;
    white.send(json!({"type":"create","white":human(),"black":black,"as":"white","clock":clock,"fen":fen})).await;
    let created = white.recv_type("created").await;
    let game = created["game"].as_str().expect("game").to_string();
    let token = created["token"].as_str().expect("token").to_string();
    let state = white.recv_type("state").await;
    (white, game, token, state)
}

/// Creates a timed human game and seats Black; returns both clients (past the clock's start).
async fn timed_human_game(
    server: &server_support::Server,
    clock: Value,
    fen: Option<&str>,
) -> (Client, Client, String) {
    let (mut white, game, _, state) = create_timed(server, human(), clock, fen).await;
    assert_eq!(state["status"], "waiting");
    assert_eq!(state["clock"]["running"], Value::Null, "a waiting game's clock stands still: {state}");
    let mut black = server.client().await;
    black.join(&game, "black").await;
    let state = black.recv_type("state").await;
    assert_eq!(state["status"], "ongoing");
    assert_eq!(state["clock"]["running"], "white", "{state}");
    // The creator hears of the join, then gets a state with the clock running.
    white.recv_type("seats").await;
    let state = white.recv_type("state").await;
    assert_eq!(state["clock"]["running"], "white", "{state}");
    (white, black, game)
}

#[tokio::test]
async fn a_player_who_never_moves_loses_on_time() {
    let server = start().await;
    let (mut white, mut black, _) = timed_human_game(&server, json!({"initial_ms":1000,"increment_ms":0}), None).await;
    // Nobody sends anything: the room's own timer ends the game.
    let end = black.recv_type("end").await;
    assert_eq!(end["result"], "0-1", "{end}");
    assert_eq!(end["reason"], "timeout", "{end}");
    assert_eq!(end["clock"]["white_ms"], 0, "{end}");
    assert_eq!(end["clock"]["black_ms"], 1000, "{end}");
    assert_eq!(end["clock"]["running"], Value::Null, "{end}");
    assert_eq!(white.recv_type("end").await, end);
}

#[tokio::test]
async fn flag_against_a_bare_king_is_a_draw() {
    let server = start().await;
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let (_white, mut black, game) =
        timed_human_game(&server, json!({"initial_ms":1000,"increment_ms":0}), Some(fen)).await;
    let end = black.recv_type("end").await;
    assert_eq!(end["result"], "1/2-1/2", "{end}");
    assert_eq!(end["reason"], "timeout", "{end}");
    let mut watcher = server.client().await;
    watcher.send(json!({"type":"watch","game":game})).await;
    let state = watcher.recv_type("state").await;
    assert_eq!(state["status"], "ended");
    assert_eq!(state["clock"]["white_ms"], 0, "{state}");
}

#[tokio::test]
async fn moves_charge_the_mover_and_add_the_increment() {
    let server = start().await;
    let (mut white, mut black, game) =
        timed_human_game(&server, json!({"initial_ms":60_000,"increment_ms":2_000}), None).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    white.send(json!({"type":"move","game":game,"uci":"e2e4"})).await;
    let mv = black.recv_type("move").await;
    let clock = &mv["clock"];
    let white_ms = clock["white_ms"].as_u64().expect("white_ms");
    // 60 s, less the 300+ ms White took, plus 2 s.
    assert!((61_000..=61_700).contains(&white_ms), "{mv}");
    assert_eq!(clock["black_ms"], 60_000, "{mv}");
    assert_eq!(clock["running"], "black", "{mv}");
    assert_eq!(clock["initial_ms"], 60_000);
    assert_eq!(clock["increment_ms"], 2_000);

    tokio::time::sleep(Duration::from_millis(200)).await;
    black.send(json!({"type":"move","game":game,"uci":"e7e5"})).await;
    assert_eq!(white.recv_type("move").await["uci"], "e2e4", "White sees its own move first");
    let mv = white.recv_type("move").await;
    let black_ms = mv["clock"]["black_ms"].as_u64().expect("black_ms");
    assert!((61_000..=61_800).contains(&black_ms), "{mv}");
    assert_eq!(mv["clock"]["white_ms"].as_u64(), Some(white_ms), "{mv}");
    assert_eq!(mv["clock"]["running"], "white", "{mv}");
}

#[tokio::test]
async fn a_waiting_game_does_not_charge_anyone() {
    let server = start().await;
    let (_white, game, _, state) =
        create_timed(&server, human(), json!({"initial_ms":5_000,"increment_ms":0}), None).await;
    assert_eq!(state["clock"]["white_ms"], 5_000);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let mut black = server.client().await;
    black.join(&game, "black").await;
    let state = black.recv_type("state").await;
    let white_ms = state["clock"]["white_ms"].as_u64().expect("white_ms");
    assert!(white_ms > 4_900, "the clock ran while nobody could play: {state}");
}

#[tokio::test]
async fn a_bot_plays_on_the_clock() {
    let server = start().await;
    let (mut white, game, _, state) =
        create_timed(&server, bot(8), json!({"initial_ms":30_000,"increment_ms":0}), None).await;
    // Both seats are taken at once, so the clock starts with the game.
    assert_eq!(state["status"], "ongoing");
    assert_eq!(state["clock"]["running"], "white");
    white.send(json!({"type":"move","game":game,"uci":"e2e4"})).await;
    white.recv_type("move").await;
    let reply = white.recv_type("move").await;
    let black_ms = reply["clock"]["black_ms"].as_u64().expect("black_ms");
    // Level 8 thinks no longer than a twentieth of its time left (and the test config's 150 ms).
    assert!((28_400..30_000).contains(&black_ms), "{reply}");
    assert_eq!(reply["clock"]["running"], "white");
}

#[tokio::test]
async fn bad_clock_settings_are_refused() {
    let server = start().await;
    let mut client = server.client().await;
    let bad = [
        (json!({"initial_ms":0,"increment_ms":0}), "initial_ms"),
        (json!({"initial_ms":999,"increment_ms":0}), "initial_ms"),
        (json!({"initial_ms":10_800_001u64,"increment_ms":0}), "initial_ms"),
        (json!({"initial_ms":60_000,"increment_ms":60_001}), "increment_ms"),
        (json!({"initial_ms":-5,"increment_ms":0}), "invalid value"),
        (json!({"initial_ms":"5m","increment_ms":0}), "invalid type"),
        (json!({"initial_ms":60_000}), "increment_ms"),
    ];
    for (clock, needle) in bad {
        client.send(json!({"type":"create","white":human(),"black":human(),"clock":clock})).await;
        let error = client.expect_error("bad_request").await;
        let message = error["message"].as_str().unwrap_or_default();
        assert!(message.contains(needle), "{clock}: {message}");
    }
    // The connection still works, and the limits themselves are allowed.
    client.send(json!({"type":"create","clock":{"initial_ms":1000,"increment_ms":60_000}})).await;
    let created = client.recv_type("created").await;
    assert!(created["game"].is_string());
}

#[tokio::test]
async fn the_games_list_shows_the_time_control() {
    let server = start().await;
    let (_white, game, _, _) =
        create_timed(&server, human(), json!({"initial_ms":180_000,"increment_ms":2_000}), None).await;
    let mut lister = server.client().await;
    lister.send(json!({"type":"list"})).await;
    let games = lister.recv_type("games").await;
    let line = games["games"].as_array().and_then(|g| g.iter().find(|l| l["game"] == game.as_str())).cloned();
    let line = line.expect("the game is listed");
    assert_eq!(line["clock"], json!({"initial_ms":180_000,"increment_ms":2_000}), "{line}");
}
