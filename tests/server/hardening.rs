//! Hardening: keep-alive pings and the connection timeout, a shutdown no peer can hold up,
//! connection and per-connection limits, and the archive API's answers to bad queries.

use crate::server_support;

use std::time::Duration;

use serde_json::{json, Value};
use server_support::{bot, human, start_with, test_config, Server};
use tokio::net::TcpListener;

fn keepalive_config() -> gambit::server::ServerConfig {
    let mut config = test_config();
    config.ping_interval = Duration::from_millis(100);
    config.connection_timeout = Duration::from_millis(600);
    config
}

#[tokio::test]
async fn a_peer_that_stops_answering_is_closed_and_its_seat_goes_offline() {
    let server = start_with(keepalive_config()).await;
    let mut silent = server.client().await;
    let (game, _) = silent.create(human(), human(), Some("white")).await;
    let mut black = server.client().await;
    black.join(&game, "black").await;
    // `silent` reads nothing now, so its WebSocket never answers the server's pings; `black`
    // keeps reading (and so answering).
    silent.stop_reading();
    let seats = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let m = black.recv().await;
            if m["type"] == "seats" && m["seats"]["white"]["online"] == false {
                return m;
            }
        }
    })
    .await
    .expect("white never went offline");
    assert_eq!(seats["seats"]["black"]["online"], true, "{seats}");
    // The silent peer finds its connection closed when it looks.
    assert!(matches!(silent.recv_close_code().await, Some(1001) | None));
    // The reading peer is still served.
    black.send(json!({"type":"list","id":3})).await;
    black.recv_type("ack").await;
}

#[tokio::test]
async fn a_shutdown_is_not_held_up_by_peers() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let mut config = test_config();
    config.room.bot_delay = Duration::ZERO;
    let serving = tokio::spawn(gambit::server::serve_until(config, listener, async move {
        let _ = stopped.await;
    }));
    let server = Server::external(addr);
    // A spectator of a fast bot game who never reads, and a client that never reads at all.
    let mut host = server.client().await;
    host.create(bot(1), bot(1), None).await;
    let game = host.recv_type("state").await["game"].as_str().unwrap().to_string();
    let mut stalled = server.client().await;
    stalled.send(json!({"type":"watch","game":game})).await;
    let _idle = server.client().await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let _ = stop.send(());
    let finished = tokio::time::timeout(Duration::from_secs(10), serving).await;
    assert!(matches!(finished, Ok(Ok(Ok(())))), "the server did not stop in time: {finished:?}");
}

#[tokio::test]
async fn connections_are_capped_with_a_reason() {
    let mut config = test_config();
    config.max_connections = 2;
    let server = start_with(config).await;
    let mut a = server.client().await;
    let _b = server.client().await;
    let mut c = server.client().await;
    let refused = c.recv().await;
    assert_eq!(refused["code"], "too_many", "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("connections"), "{refused}");
    assert_eq!(c.recv_close_code().await, Some(1013));
    // The first ones are served; once one leaves, a new one gets in.
    a.send(json!({"type":"list","id":1})).await;
    a.recv_type("ack").await;
    a.close().await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut d = server.client().await;
    d.send(json!({"type":"list","id":2})).await;
    d.recv_type("ack").await;
}

#[tokio::test]
async fn games_followed_per_connection_are_capped() {
    let mut config = test_config();
    config.max_follows_per_connection = 2;
    let server = start_with(config).await;
    let mut host = server.client().await;
    let mut games = Vec::new();
    for _ in 0..2 {
        let (game, _) = host.create(human(), human(), None).await;
        games.push(game);
    }
    // The creator follows what it creates: a third game would be one follow too many.
    host.send(json!({"type":"create","id":3})).await;
    let e = host.recv_type("error").await;
    assert_eq!((e["code"].as_str(), e["id"].as_u64()), (Some("too_many"), Some(3)), "{e}");
    let mut other_host = server.client().await;
    games.push(other_host.create(human(), human(), None).await.0);
    let mut fan = server.client().await;
    for game in &games[..2] {
        fan.send(json!({"type":"watch","game":game,"id":1})).await;
        fan.recv_type("ack").await;
    }
    fan.send(json!({"type":"watch","game":games[2],"id":9})).await;
    let e = fan.recv_type("error").await;
    assert_eq!((e["code"].as_str(), e["id"].as_u64()), (Some("too_many"), Some(9)), "{e}");
    // Watching one already followed again is fine; unwatching makes room.
    fan.send(json!({"type":"watch","game":games[0],"id":10})).await;
    fan.recv_type("ack").await;
    fan.send(json!({"type":"unwatch","game":games[0],"id":11})).await;
    fan.recv_type("ack").await;
    fan.send(json!({"type":"watch","game":games[2],"id":12})).await;
    fan.recv_type("ack").await;
}

async fn get_json(server: &Server, path: &str) -> (u16, Value) {
    let (status, body) = server.get(path).await;
    (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}")))
}

#[tokio::test]
async fn finished_games_stay_in_the_archive_after_leaving_memory() {
    let mut config = test_config();
    config.retention = Duration::from_millis(200);
    let server = start_with(config).await;
    let mut white = server.client().await;
    let (game, _) = white.create(human(), bot(1), Some("white")).await;
    white.send(json!({"type":"move","game":game,"uci":"f2f3"})).await;
    white.recv_type("move").await;
    white.recv_type("move").await;
    white.send(json!({"type":"resign","game":game})).await;
    white.recv_type("end").await;
    // Gone from the live list ...
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (_, live) = get_json(&server, "/api/games").await;
    assert!(live.as_array().unwrap().iter().all(|g| g["game"] != game.as_str()), "{live}");
    // ... but archived: listed, with its state and PGN from the store.
    let (status, finished) = get_json(&server, "/api/games?status=finished&limit=5").await;
    assert_eq!(status, 200);
    let entry = &finished[0];
    assert_eq!((entry["game"].as_str(), entry["plies"].as_u64()), (Some(game.as_str()), Some(2)), "{finished}");
    assert_eq!((entry["result"].as_str(), entry["reason"].as_str()), (Some("0-1"), Some("resignation")));
    let level1 = gambit::bots::Level::new(1).expect("level 1").rating();
    assert_eq!(
        entry["black"],
        json!({"kind":"bot","level":1,"name":"Level 1","rating":level1,"label":format!("Level 1 · ~{level1}")})
    );
    let (status, state) = get_json(&server, &format!("/api/games/{game}")).await;
    assert_eq!((status, state["status"].as_str(), state["moves"][0].as_str()), (200, Some("ended"), Some("f2f3")));
    let (status, pgn) = server.get(&format!("/api/games/{game}/pgn")).await;
    assert_eq!(status, 200);
    assert!(pgn.contains("[Result \"0-1\"]") && pgn.contains("1. f3") && pgn.contains("[Black \"Level 1\"]"), "{pgn}");
    // Watching it over the WebSocket says where to look.
    let mut fan = server.client().await;
    fan.send(json!({"type":"watch","game":game})).await;
    fan.expect_error("no_such_game").await;
}

#[tokio::test]
async fn the_archive_api_refuses_bad_queries() {
    let server = start_with(test_config()).await;
    for (query, says) in [
        ("?status=finished&limit=0", "limit"),
        ("?status=finished&limit=1001", "limit"),
        ("?status=finished&limit=ten", "limit"),
        ("?status=done", "status"),
        ("?sort=new", "parameter"),
    ] {
        let (status, body) = get_json(&server, &format!("/api/games{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["code"], "bad_request", "{query}: {body}");
        assert!(body["message"].as_str().unwrap().contains(says), "{query}: {body}");
    }
    let (status, empty) = get_json(&server, "/api/games?status=finished").await;
    assert_eq!((status, empty), (200, json!([])));
    let (status, _) = server.get("/api/games/nosuchgm/pgn").await;
    assert_eq!(status, 404);
}
