//! A server on PostgreSQL whose database goes away and comes back: moves are refused with a
//! clear error while it is away (never accepted and lost), and play goes on when it is back,
//! without restarting the server. This test has a PostgreSQL of its own, to stop and start.

use crate::server_support;
use crate::services;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use server_support::{human_game, start_with, test_config, Client};
use services::postgres::Postgres;

use gambit::server::store::{GameStore, PostgresStore};

/// Sends `uci` and returns the answer to it: the `ack`, or the `error`.
async fn try_move(client: &mut Client, game: &str, uci: &str, id: u64) -> Value {
    client.send(json!({"type":"move","game":game,"uci":uci,"id":id})).await;
    loop {
        let m = client.recv().await;
        if matches!(m["type"].as_str(), Some("ack" | "error")) && m["id"] == id {
            return m;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_are_refused_while_postgres_is_away_and_go_on_when_it_is_back() {
    let Some(pg) = Postgres::own("pg-outage") else { return };
    let url = pg.database().await;
    let mut config = test_config();
    config.db = url.clone();
    let server = start_with(config).await;
    let (mut white, mut black, game, _, _) = human_game(&server).await;
    assert_eq!(try_move(&mut white, &game, "e2e4", 1).await["type"], "ack");

    pg.pause();
    let asked = Instant::now();
    let refused = try_move(&mut black, &game, "e7e5", 2).await;
    assert_eq!(refused["code"], "server_error", "{refused}");
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(message.contains("unavailable"), "the message says why: {message}");
    assert!(asked.elapsed() < Duration::from_secs(10), "refused after {:?}", asked.elapsed());
    // Nothing changed: the game still waits for Black's first move.
    let mut spectator = server.client().await;
    spectator.send(json!({"type":"watch","game":game})).await;
    let state = spectator.recv_type("state").await;
    assert_eq!(state["moves"], json!(["e2e4"]), "{state}");
    assert_eq!(state["turn"], "black");

    pg.resume();
    // Back: the pool connects again and the server takes its lock again, within seconds.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut id = 3;
    loop {
        let answer = try_move(&mut black, &game, "e7e5", id).await;
        if answer["type"] == "ack" {
            break;
        }
        assert!(Instant::now() < deadline, "still refused after the database came back: {answer}");
        id += 1;
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(try_move(&mut white, &game, "g1f3", 100).await["type"], "ack");

    // Stored: a fresh look at the database has every move.
    drop(server);
    let deadline = Instant::now() + Duration::from_secs(10);
    let store = loop {
        // The server lets go of the database once it has closed.
        match PostgresStore::connect(&url).await {
            Ok(store) => break store,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("the database stays locked: {e}"),
        }
    };
    let stored = store.load(&game).await.expect("load").expect("stored");
    assert_eq!(stored.moves, ["e2e4", "e7e5", "g1f3"]);
}
