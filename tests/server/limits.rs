//! Resource limits and housekeeping: caps on games, unattended games ending, versions from the
//! future, presence counted once per connection, actions before a game starts, and the close
//! frame a flooding client receives.

use crate::server_support;

use std::time::Duration;

use serde_json::{json, Value};
use server_support::{bot, human, human_game, start, start_with, test_config, Client, Server};

async fn api_state(server: &Server, game: &str) -> Option<Value> {
    let (status, body) = server.get(&format!("/api/games/{game}")).await;
    (status == 200).then(|| serde_json::from_str(&body).expect("state json"))
}

/// Polls the game's state until `done` holds of it (None: the game is gone), or panics.
async fn wait_for(server: &Server, game: &str, done: impl Fn(&Option<Value>) -> bool) -> Option<Value> {
    for _ in 0..100 {
        let state = api_state(server, game).await;
        if done(&state) {
            return state;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("game {game} never reached the expected state: {:?}", api_state(server, game).await);
}

#[tokio::test]
async fn unfinished_games_per_connection_are_capped() {
    let mut config = test_config();
    config.max_games_per_connection = 2;
    let server = start_with(config).await;
    let mut c = server.client().await;
    let (first, _) = c.create(human(), bot(1), Some("white")).await;
    c.create(human(), bot(1), Some("white")).await;
    c.send(json!({"type":"create","white":human(),"black":bot(1),"id":5})).await;
    let e = c.recv_type("error").await;
    assert_eq!((e["code"].as_str(), e["id"].as_u64()), (Some("too_many"), Some(5)), "{e}");
    assert!(e["message"].as_str().unwrap().contains("unfinished"), "{e}");
    // Another connection is not affected.
    let mut other = server.client().await;
    other.create(human(), bot(1), Some("white")).await;
    // A finished game no longer counts.
    c.send(json!({"type":"resign","game":first})).await;
    c.recv_type("end").await;
    let (third, _) = c.create(human(), bot(1), Some("white")).await;
    assert_ne!(third, first);
}

#[tokio::test]
async fn the_server_holds_a_limited_number_of_games() {
    let mut config = test_config();
    config.max_rooms = 2;
    let server = start_with(config).await;
    let mut a = server.client().await;
    a.create(human(), human(), None).await;
    let mut b = server.client().await;
    b.create(human(), human(), None).await;
    let mut c = server.client().await;
    c.send(json!({"type":"create"})).await;
    assert_eq!(c.recv_type("error").await["code"], "too_many");
}

fn idle_config() -> gambit::server::ServerConfig {
    let mut config = test_config();
    config.room.idle_timeout = Duration::from_millis(300);
    config
}

#[tokio::test]
async fn a_waiting_game_left_alone_is_closed() {
    let server = start_with(idle_config()).await;
    let mut c = server.client().await;
    let (game, _) = c.create(human(), human(), Some("white")).await;
    // While its creator is there it stays.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(api_state(&server, &game).await.expect("still there")["status"], "waiting");
    c.close().await;
    wait_for(&server, &game, Option::is_none).await;
    // The lobby forgets it at its next sweep (four times a second).
    tokio::time::sleep(Duration::from_millis(600)).await;
    let (_, list) = server.get("/api/games").await;
    assert!(!list.contains(&game), "{list}");
}

#[tokio::test]
async fn an_abandoned_game_against_a_bot_is_lost_by_the_absent_player() {
    let server = start_with(idle_config()).await;
    let mut c = server.client().await;
    let (game, _) = c.create(human(), bot(1), Some("white")).await;
    c.send(json!({"type":"move","game":game,"uci":"e2e4"})).await;
    c.recv_type("move").await;
    c.close().await;
    let state = wait_for(&server, &game, |s| s.as_ref().is_some_and(|s| s["status"] == "ended")).await.unwrap();
    assert_eq!(state["reason"], "abandoned");
    assert_eq!(state["result"], "0-1");
}

#[tokio::test]
async fn abandoned_people_lose_on_their_turn() {
    let server = start_with(idle_config()).await;
    let (mut white, black, game, _, _) = human_game(&server).await;
    white.send(json!({"type":"move","game":game,"uci":"e2e4"})).await;
    white.recv_type("move").await;
    white.close().await;
    black.close().await;
    let state = wait_for(&server, &game, |s| s.as_ref().is_some_and(|s| s["status"] == "ended")).await.unwrap();
    assert_eq!((state["reason"].as_str(), state["result"].as_str()), (Some("abandoned"), Some("1-0")));
}

#[tokio::test]
async fn watched_bot_games_play_on_and_unwatched_ones_are_adjudicated() {
    let mut config = idle_config();
    config.room.bot_delay = Duration::from_millis(300);
    let server = start_with(config).await;
    let mut creator = server.client().await;
    let (game, _) = creator.create(bot(1), bot(1), None).await;
    let mut spectator = server.client().await;
    spectator.send(json!({"type":"watch","game":game})).await;
    spectator.recv_type("state").await;
    creator.close().await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let state = api_state(&server, &game).await.expect("game");
    assert_eq!(state["status"], "ongoing", "{state}");
    spectator.close().await;
    let state = wait_for(&server, &game, |s| s.as_ref().is_some_and(|s| s["status"] == "ended")).await.unwrap();
    assert_eq!((state["reason"].as_str(), state["result"].as_str()), (Some("adjudication"), Some("1/2-1/2")));
}

#[tokio::test]
async fn a_game_created_finished_is_refused_and_nothing_is_kept() {
    let server = start().await;
    let mut c = server.client().await;
    let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    c.send(json!({"type":"create","fen":mated,"black":bot(1),"id":4})).await;
    let error = c.expect_error("game_over").await;
    assert_eq!(error["id"], 4);
    assert!(error["message"].as_str().unwrap().contains("Black wins by checkmate"), "{error}");
    // No room, no stored game: neither the live list nor the archive has it.
    assert_eq!(server.get("/api/games").await.1.trim(), "[]");
    assert_eq!(server.get("/api/games?status=finished").await.1.trim(), "[]");
    // The connection goes on.
    let (game, _) = c.create(human(), bot(1), Some("white")).await;
    assert_eq!(game.len(), 8);
}

#[tokio::test]
async fn versions_from_the_future_get_a_fresh_state() {
    let server = start().await;
    let (mut white, _black, game, white_token, _) = human_game(&server).await;
    let mut spectator = server.client().await;
    spectator.send(json!({"type":"watch","game":game,"v":99})).await;
    let state = spectator.recv_type("state").await;
    assert_eq!(state["v"], 1);
    let mut again = server.client().await;
    again.send(json!({"type":"resume","game":game,"token":white_token,"v":42})).await;
    again.recv_type("joined").await;
    let first = again.recv_event().await;
    assert_eq!(first["type"], "state", "{first}");
    assert_eq!(first["v"], 1);
    white.send(json!({"type":"move","game":game,"uci":"e2e4"})).await;
    assert_eq!(spectator.recv_type("move").await["v"], 2);
}

#[tokio::test]
async fn resuming_a_seat_held_here_counts_once() {
    let server = start().await;
    let (mut white, mut black, game, white_token, _) = human_game(&server).await;
    white.send(json!({"type":"resume","game":game,"token":white_token,"v":1})).await;
    white.recv_type("joined").await;
    white.send(json!({"type":"list","id":3})).await;
    white.recv_type("ack").await;
    white.close().await;
    let seats = black.recv_type("seats").await;
    assert_eq!(seats["seats"]["white"]["online"], false, "{seats}");
}

#[tokio::test]
async fn draw_and_resign_wait_for_the_game_to_start() {
    let server = start().await;
    let mut c = server.client().await;
    let (game, _) = c.create(human(), human(), Some("white")).await;
    c.recv_type("state").await;
    for ty in ["draw", "resign"] {
        c.send(json!({"type":ty,"game":game,"id":1})).await;
        let e = c.expect_error("not_your_turn").await;
        assert!(e["message"].as_str().unwrap().contains("not started"), "{e}");
    }
    let state = api_state(&server, &game).await.unwrap();
    assert_eq!((state["v"].as_u64(), state["status"].as_str()), (Some(0), Some("waiting")));
}

#[tokio::test]
async fn a_flooding_client_gets_the_close_frame() {
    let server = start().await;
    let mut flood: Client = server.client().await;
    for _ in 0..300 {
        flood.send_text(r#"{"type":"list"}"#).await;
    }
    assert_eq!(flood.recv_close_code().await, Some(1008));
}
