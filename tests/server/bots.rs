//! Bot seats over real sockets: a person against every level, bot against bot to the end,
//! undo against a bot (also while it thinks), bots declining draws, and the levels' list.

use crate::server_support;

use std::time::Duration;

use serde_json::{json, Value};
use server_support::{bot, human, start, start_with, test_config, Client};

/// Waits for the next move event and returns it (skipping everything else).
async fn next_move(client: &mut Client) -> Value {
    client.recv_type("move").await
}

#[tokio::test]
async fn a_person_plays_each_level() {
    let server = start().await;
    for level in gambit::bots::Level::ALL.map(|l| l.get()) {
        let mut me = server.client().await;
        let (game, _) = me.create(human(), bot(level), Some("white")).await;
        let state = me.recv_type("state").await;
        let rating = gambit::bots::Level::new(level).expect("a level").rating();
        assert_eq!(
            state["seats"]["black"],
            json!({"kind":"bot","level":level,"name":format!("Level {level}"),"rating":rating,"label":format!("Level {level} · ~{rating}")})
        );
        let mut legal = state["legal"].clone();
        for ply in 0..3 {
            let uci = legal[0].as_str().expect("a legal move").to_string();
            me.send(json!({"type":"move","game":game,"uci":uci})).await;
            let mine = next_move(&mut me).await;
            assert_eq!(mine["uci"], uci.as_str());
            let reply = next_move(&mut me).await;
            assert_eq!(reply["turn"], "white", "level {level} ply {ply}: {reply}");
            assert_eq!(reply["v"].as_u64(), mine["v"].as_u64().map(|v| v + 1));
            legal = reply["legal"].clone();
        }
    }
}

#[tokio::test]
async fn bot_against_bot_plays_to_the_end() {
    let server = start().await;
    let mut watcher = server.client().await;
    watcher.send(json!({"type":"create","white":bot(1),"black":bot(2)})).await;
    let created = watcher.recv_type("created").await;
    assert_eq!(created["color"], Value::Null);
    assert_eq!(created["token"], Value::Null);
    let state = watcher.recv_type("state").await;
    let mut v = state["v"].as_u64().unwrap();
    loop {
        let m = watcher.recv().await;
        let Some(ev) = m["v"].as_u64() else { continue };
        assert_eq!(ev, v + 1, "{m}");
        v = ev;
        if m["type"] == "end" {
            assert!(["1-0", "0-1", "1/2-1/2"].contains(&m["result"].as_str().unwrap()), "{m}");
            break;
        }
        assert_eq!(m["type"], "move", "{m}");
    }
}

#[tokio::test]
async fn undo_against_a_bot() {
    let server = start().await;
    let mut me = server.client().await;
    let (game, _) = me.create(human(), bot(1), Some("white")).await;
    me.recv_type("state").await;
    me.send(json!({"type":"move","game":game,"uci":"e2e4"})).await;
    next_move(&mut me).await;
    next_move(&mut me).await;
    // Takes back the bot's reply and my move.
    me.send(json!({"type":"undo","game":game,"id":1})).await;
    let state = me.recv_type("state").await;
    assert_eq!(state["moves"], json!([]));
    assert_eq!(state["turn"], "white");
    // Nothing more to take back.
    me.send(json!({"type":"undo","game":game})).await;
    me.expect_error("bad_request").await;
    // Draw offers are declined at once.
    me.send(json!({"type":"draw","game":game})).await;
    assert_eq!(me.recv_type("offer").await["kind"], "draw");
    let declined = me.recv_type("declined").await;
    assert_eq!((declined["kind"].as_str(), declined["by"].as_str()), (Some("draw"), Some("white")));
}

#[tokio::test]
async fn undo_while_the_bot_thinks_drops_its_answer() {
    let mut config = test_config();
    config.room.engine_movetime = Duration::from_millis(1500);
    let server = start_with(config).await;
    let mut me = server.client().await;
    let (game, _) = me.create(human(), bot(12), Some("white")).await;
    me.recv_type("state").await;
    me.send(json!({"type":"move","game":game,"uci":"e2e4"})).await;
    assert_eq!(next_move(&mut me).await["uci"], "e2e4");
    // The bot is thinking now: only my move goes back.
    me.send(json!({"type":"undo","game":game})).await;
    let state = me.recv_type("state").await;
    assert_eq!(state["moves"], json!([]));
    assert_eq!(state["turn"], "white");
    // Its answer to e2e4 never arrives.
    let deadline = tokio::time::Instant::now() + Duration::from_millis(2000);
    while let Some(m) = me.try_recv(deadline - tokio::time::Instant::now()).await {
        assert_ne!(m["type"], "move", "stale bot move: {m}");
        if tokio::time::Instant::now() >= deadline {
            break;
        }
    }
    // The game goes on: the bot answers my new move.
    me.send(json!({"type":"move","game":game,"uci":"d2d4"})).await;
    assert_eq!(next_move(&mut me).await["uci"], "d2d4");
    let reply = next_move(&mut me).await;
    assert_eq!(reply["ply"], 2);
    assert_eq!(reply["turn"], "white");
}

#[tokio::test]
async fn a_bot_with_white_moves_first() {
    let server = start().await;
    let mut me = server.client().await;
    let (game, token) = me.create(bot(3), human(), None).await;
    assert!(token.is_some());
    let first = next_move(&mut me).await;
    assert_eq!(first["ply"], 1);
    assert_eq!(first["turn"], "black");
    let uci = first["legal"][0].as_str().unwrap().to_string();
    me.send(json!({"type":"move","game":game,"uci":uci})).await;
    next_move(&mut me).await;
    assert_eq!(next_move(&mut me).await["ply"], 3);
}

#[tokio::test]
async fn the_levels_are_listed_with_their_ratings() {
    let server = start().await;
    let (status, body) = server.get("/api/levels").await;
    assert_eq!(status, 200, "{body}");
    let levels: Value = serde_json::from_str(&body).expect("JSON");
    let levels = levels.as_array().expect("a list");
    assert_eq!(levels.len(), gambit::bots::Level::ALL.len(), "{body}");
    let mut last = 0;
    for (i, entry) in levels.iter().enumerate() {
        let level = i as u64 + 1;
        let rating = entry["rating"].as_u64().expect("a rating");
        assert_eq!(entry["level"], level, "{body}");
        assert!(rating > last, "each level rated above the one below: {body}");
        assert_eq!(entry["label"], format!("Level {level} · ~{rating}"), "{body}");
        assert_eq!(entry["searches"], level >= 5, "{body}");
        last = rating;
    }
}
