//! The server over real sockets: two people play, spectators follow, players resume, offers,
//! the HTTP API and the text log.

use crate::server_support;

use std::time::Duration;

use serde_json::{json, Value};
use server_support::{human_game, read_when_it_has, start, start_with, test_config, Client};

/// The next `n` versioned events (skipping acks, watcher counts and lists).
async fn events(client: &mut Client, n: usize) -> Vec<Value> {
    let mut out = Vec::new();
    while out.len() < n {
        let m = client.recv().await;
        if m.get("v").is_some() {
            out.push(m);
        }
    }
    out
}

fn assert_consecutive(events: &[Value], first: u64) {
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["v"].as_u64(), Some(first + i as u64), "event {i}: {e}");
    }
}

const FOOLS_MATE: [&str; 4] = ["f2f3", "e7e5", "g2g4", "d8h4"];

#[tokio::test]
async fn fools_mate_seen_by_players_and_spectators() {
    let server = start().await;
    let (mut white, mut black, game, _, _) = human_game(&server).await;
    let mut early = server.client().await;
    early.send(json!({"type":"watch","game":game})).await;
    let state = early.recv_type("state").await;
    assert_eq!(state["v"], 1);
    assert_eq!(state["moves"], json!([]));
    assert_eq!(state["status"], "ongoing");

    // The pacer waits for each move before the next is sent, so none is sent out of turn.
    let mut pacer = server.client().await;
    pacer.send(json!({"type":"watch","game":game})).await;
    pacer.recv_type("state").await;
    let mut midway = server.client().await;
    for (i, uci) in FOOLS_MATE.iter().enumerate() {
        if i == 2 {
            // A spectator arriving midway gets every move so far in one state.
            midway.send(json!({"type":"watch","game":game})).await;
            let state = midway.recv_type("state").await;
            assert_eq!(state["moves"], json!(["f2f3", "e7e5"]));
            assert_eq!(state["san"], json!(["f3", "e5"]));
            assert_eq!(state["v"], 3);
            assert_eq!(state["turn"], "white");
        }
        let mover = if i % 2 == 0 { &mut white } else { &mut black };
        mover.send(json!({"type":"move","game":game,"uci":uci,"id":i})).await;
        assert_eq!(pacer.recv_type("move").await["uci"], *uci);
    }
    for client in [&mut white, &mut black, &mut early] {
        let seen = events(client, 5).await;
        assert_consecutive(&seen, 2);
        for (e, uci) in seen.iter().zip(FOOLS_MATE) {
            assert_eq!(e["type"], "move", "{e}");
            assert_eq!(e["uci"], uci);
        }
        assert_eq!(seen[3]["san"], "Qh4#");
        assert_eq!(seen[3]["check"], true);
        assert_eq!(seen[4]["type"], "end");
        assert_eq!(seen[4]["result"], "0-1");
        assert_eq!(seen[4]["reason"], "checkmate");
    }
    let seen = events(&mut midway, 3).await;
    assert_consecutive(&seen, 4);
    assert_eq!(seen[0]["uci"], "g2g4");
    assert_eq!(seen[2]["type"], "end");

    // Watching with an old version replays exactly the missed events.
    let mut late = server.client().await;
    late.send(json!({"type":"watch","game":game,"v":2})).await;
    let seen = events(&mut late, 4).await;
    assert_consecutive(&seen, 3);
    assert_eq!(seen[0]["uci"], "e7e5");
    assert_eq!(seen[3]["type"], "end");
    // ... and nothing more than those.
    while let Some(m) = late.try_recv(Duration::from_millis(300)).await {
        assert!(m.get("v").is_none(), "unexpected event {m}");
    }
    let mut bad = server.client().await;
    bad.send(json!({"type":"move","game":game,"uci":"e2e4"})).await;
    bad.expect_error("not_a_player").await;
}

#[tokio::test]
async fn a_player_drops_and_resumes_with_its_token() {
    let server = start().await;
    let (mut white, black, game, _, black_token) = human_game(&server).await;
    white.send(json!({"type":"move","game":game,"uci":"e2e4"})).await;
    let mv = white.recv_type("move").await;
    assert_eq!(mv["v"], 2);
    black.close().await;
    let seats = white.recv_type("seats").await;
    assert_eq!(seats["seats"]["black"], json!({"kind":"human","online":false,"name":"Anonymous"}));

    // White plays on? No: it is black's turn. Black comes back, from version 1 (it missed the move).
    let mut black = server.client().await;
    black.send(json!({"type":"resume","game":game,"token":black_token,"v":1})).await;
    let joined = black.recv().await;
    assert_eq!(joined["type"], "joined");
    assert_eq!(joined["color"], "black");
    let replay = events(&mut black, 3).await;
    assert_consecutive(&replay, 2);
    assert_eq!(replay[0]["uci"], "e2e4");
    assert_eq!(replay[1]["seats"]["black"]["online"], false);
    assert_eq!(replay[2]["seats"]["black"]["online"], true);
    black.send(json!({"type":"move","game":game,"uci":"e7e5"})).await;
    let mv = white.recv_type("move").await;
    assert_eq!(mv["uci"], "e7e5");
    assert_eq!(mv["v"], 5);

    // Without a version, resuming gives a fresh state.
    let mut again = server.client().await;
    again.send(json!({"type":"resume","game":game,"token":black_token})).await;
    assert_eq!(again.recv().await["type"], "joined");
    let state = again.recv_type("state").await;
    assert_eq!(state["moves"], json!(["e2e4", "e7e5"]));
}

#[tokio::test]
async fn undo_offers_between_people() {
    let server = start().await;
    let (mut white, mut black, game, _, _) = human_game(&server).await;
    for (i, uci) in ["e2e4", "e7e5"].iter().enumerate() {
        let mover = if i == 0 { &mut white } else { &mut black };
        mover.send(json!({"type":"move","game":game,"uci":uci})).await;
        white.recv_type("move").await;
        black.recv_type("move").await;
    }
    // Declined.
    white.send(json!({"type":"undo","game":game})).await;
    let offer = black.recv_type("offer").await;
    assert_eq!((offer["kind"].as_str(), offer["by"].as_str()), (Some("undo"), Some("white")));
    assert_eq!(white.recv_type("offer").await, offer);
    black.send(json!({"type":"decline","game":game})).await;
    let declined = white.recv_type("declined").await;
    assert_eq!((declined["kind"].as_str(), declined["by"].as_str()), (Some("undo"), Some("white")));
    // Not asked again at once (the courtesy wait; tests/server/friends.rs times it).
    white.send(json!({"type":"undo","game":game})).await;
    white.expect_error("rate_limited").await;
    // Withdrawn by a move: black offers, then white plays; black's undo is then a new offer.
    black.send(json!({"type":"undo","game":game})).await;
    black.recv_type("offer").await;
    white.recv_type("offer").await;
    white.send(json!({"type":"move","game":game,"uci":"g1f3"})).await;
    black.recv_type("move").await;
    black.send(json!({"type":"undo","game":game})).await;
    let offer = white.recv_type("offer").await;
    assert_eq!(offer["by"], "black");
    // Accepted: black's last move (e7e5) and white's reply go, as a fresh state.
    white.send(json!({"type":"undo","game":game})).await;
    for client in [&mut white, &mut black] {
        let state = client.recv_type("state").await;
        assert_eq!(state["moves"], json!(["e2e4"]));
        assert_eq!(state["turn"], "black");
        assert_eq!(state["offer"], Value::Null);
    }
    // The game goes on from there.
    black.send(json!({"type":"move","game":game,"uci":"c7c5"})).await;
    assert_eq!(white.recv_type("move").await["san"], "c5");
}

#[tokio::test]
async fn draw_by_agreement_and_resignation() {
    let server = start().await;
    let (mut white, mut black, game, _, _) = human_game(&server).await;
    white.send(json!({"type":"draw","game":game})).await;
    assert_eq!(black.recv_type("offer").await["kind"], "draw");
    black.send(json!({"type":"draw","game":game,"id":5})).await;
    for client in [&mut white, &mut black] {
        let end = client.recv_type("end").await;
        assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("1/2-1/2"), Some("agreement")));
    }

    let (mut white, mut black, game, _, _) = human_game(&server).await;
    black.send(json!({"type":"resign","game":game})).await;
    let end = white.recv_type("end").await;
    assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("1-0"), Some("resignation")));
    white.send(json!({"type":"undo","game":game})).await;
    white.expect_error("game_over").await;
}

#[tokio::test]
async fn http_api_lobby_list_and_metrics() {
    let server = start().await;
    let mut lobby = server.client().await;
    lobby.send(json!({"type":"list","id":1})).await;
    let games = lobby.recv().await;
    assert_eq!(games["type"], "games");
    assert_eq!(games["games"], json!([]));
    assert_eq!(lobby.recv().await, json!({"type":"seeks","seeks":[]}), "then the open challenges");
    assert_eq!(lobby.recv().await, json!({"type":"ack","id":1}));

    let (mut white, mut black, game, _, _) = human_game(&server).await;
    // The lobby subscriber sees the new game (batched).
    loop {
        let list = lobby.recv_type("games").await;
        if list["games"].as_array().is_some_and(|g| g.iter().any(|g| g["game"] == game && g["status"] == "ongoing")) {
            break;
        }
    }
    for (i, uci) in FOOLS_MATE.iter().enumerate() {
        let mover = if i % 2 == 0 { &mut white } else { &mut black };
        mover.send(json!({"type":"move","game":game,"uci":uci})).await;
        white.recv_type("move").await;
    }
    white.recv_type("end").await;
    loop {
        let list = lobby.recv_type("games").await;
        let entry = list["games"].as_array().and_then(|g| g.iter().find(|g| g["game"] == game).cloned());
        if let Some(entry) = entry.filter(|e| e["status"] == "ended") {
            assert_eq!(entry["plies"], 4);
            assert_eq!(entry["result"], "0-1");
            break;
        }
    }

    assert_eq!(server.get("/healthz").await, (200, "ok\n".to_string()));
    let (status, body) = server.get("/api/games").await;
    assert_eq!(status, 200);
    let list: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(list[0]["game"], game);
    let (status, body) = server.get(&format!("/api/games/{game}")).await;
    assert_eq!(status, 200);
    let state: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(state["moves"], json!(FOOLS_MATE));
    assert_eq!(state["result"], "0-1");
    let (status, pgn) = server.get(&format!("/api/games/{game}/pgn")).await;
    assert_eq!(status, 200);
    assert!(pgn.contains("1. f3 e5 2. g4 Qh4# 0-1"), "{pgn}");
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    assert_eq!(server.get("/api/games/nosuchgm").await.0, 404);
    assert_eq!(server.get("/api/games/nosuchgm/pgn").await.0, 404);
    let (status, metrics) = server.get("/metrics").await;
    assert_eq!(status, 200);
    for name in ["gambit_connections", "gambit_live_games", "gambit_moves_total 4", "gambit_events_sent_total"] {
        assert!(metrics.contains(name), "{name} missing in {metrics}");
    }
    assert!(metrics.contains("gambit_lagged_receivers_total"), "{metrics}");
}

#[tokio::test]
async fn text_log_has_a_line_per_event() {
    let dir = std::env::temp_dir().join(format!("gambit-textlog-{}", std::process::id()));
    let mut config = test_config();
    config.log_dir = Some(dir.clone());
    let server = start_with(config).await;
    let (mut white, mut black, game, _, _) = human_game(&server).await;
    for (i, uci) in FOOLS_MATE.iter().enumerate() {
        let mover = if i % 2 == 0 { &mut white } else { &mut black };
        mover.send(json!({"type":"move","game":game,"uci":uci})).await;
        white.recv_type("move").await;
    }
    white.recv_type("end").await;
    let path = dir.join(format!("{game}.log"));
    let text = read_when_it_has(&path, "end 0-1").await;
    let _ = std::fs::remove_dir_all(&dir);
    assert!(text.contains("v1 seats: white human Anonymous (online), black human Anonymous (online)"), "{text}");
    assert!(text.contains("v2 white 1. f3 (f2f3)"), "{text}");
    assert!(text.contains("v5 black 2... Qh4# (d8h4)"), "{text}");
    assert!(text.contains("v6 end 0-1: Checkmate — Black wins"), "{text}");
}
