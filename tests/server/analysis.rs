//! Computer analysis over HTTP on a real server: a finished game with a hung queen is judged,
//! one analysis runs per game however often it is asked for, unfinished and unknown games are
//! refused with reasons, a full server says so, and the result outlives a restart.

use crate::server_support;

use std::time::Duration;

use serde_json::{json, Value};
use server_support::{human_game, scratch, start_with, test_config, Client, Server};

/// The engine's time per position: short, yet long enough that a second request finds the
/// first analysis still running.
const MOVETIME: Duration = Duration::from_millis(200);

fn config(db: &str, max_running: usize) -> gambit::server::config::ServerConfig {
    let mut config = test_config();
    config.db = db.to_string();
    config.analysis.movetime = MOVETIME;
    config.analysis.max_running = max_running;
    config
}

/// A game between two people: `moves` (White first), then White resigns.
async fn finished_game(server: &Server, moves: &[&str]) -> String {
    let (mut white, mut black, game, _, _) = human_game(server).await;
    play_and_resign(&mut white, &mut black, &game, 0, moves).await;
    game
}

/// Plays `moves` from ply `from` on (alternately, White's first if `from` is even), then
/// White resigns.
async fn play_and_resign(white: &mut Client, black: &mut Client, game: &str, from: usize, moves: &[&str]) {
    for (i, uci) in moves.iter().enumerate() {
        let (mover, other) =
            if (from + i).is_multiple_of(2) { (&mut *white, &mut *black) } else { (&mut *black, &mut *white) };
        mover.play(game, uci).await;
        other.recv_event().await;
    }
    white.send(json!({"type":"resign","game":game})).await;
    black.recv_type("end").await;
}

async fn analysis(server: &Server, method: &str, game: &str) -> (u16, Value) {
    let answer = server.http(method, &format!("/api/games/{game}/analysis"), &[], "").await;
    let json = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
    (answer.status, json)
}

/// Polls until the analysis of `game` is done; its report.
async fn done(server: &Server, game: &str) -> Value {
    for _ in 0..300 {
        let (status, body) = analysis(server, "GET", game).await;
        assert_eq!(status, 200, "{body}");
        if body["status"] == "done" {
            return body;
        }
        assert_eq!(body["status"], "running", "{body}");
        let progress = body["progress"].as_f64().expect("progress");
        assert!((0.0..=1.0).contains(&progress), "{body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the analysis of {game} did not finish");
}

#[tokio::test]
async fn a_hung_queen_is_a_blunder_one_analysis_runs_at_a_time_and_the_result_survives_a_restart() {
    let dir = scratch("analysis");
    let db = dir.join("gambit.db").to_str().expect("utf-8").to_string();
    let server = start_with(config(&db, 1)).await;

    // An unfinished game is refused, and says why; an unknown one is not found.
    let (mut white, mut black, game, _, _) = human_game(&server).await;
    white.play(&game, "e2e4").await;
    black.recv_event().await;
    let (status, body) = analysis(&server, "POST", &game).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["code"], "bad_request");
    assert!(body["message"].as_str().expect("message").contains("not finished"), "{body}");
    assert_eq!(analysis(&server, "GET", &game).await.0, 409);
    let (status, body) = analysis(&server, "POST", "nosuchgame").await;
    assert_eq!((status, body["code"].clone()), (404, json!("no_such_game")), "{body}");

    // 1. e4 d5 2. Qg4?? Bxg4, and White resigns.
    play_and_resign(&mut white, &mut black, &game, 1, &["d7d5", "d1g4", "c8g4"]).await;
    let (status, body) = analysis(&server, "GET", &game).await;
    assert_eq!((status, body), (200, Value::Null), "nothing asked for yet");
    let (status, body) = analysis(&server, "POST", &game).await;
    assert_eq!((status, body["status"].clone(), body["plies"].clone()), (202, json!("running"), json!([])), "{body}");

    // Asked again while it runs: the same analysis answers, and no second one starts — the
    // server runs one at a time here, so a second would have been refused as one too many.
    let (status, body) = analysis(&server, "POST", &game).await;
    assert_eq!((status, body["status"].clone()), (202, json!("running")), "{body}");
    let other = finished_game(&server, &["g1f3"]).await;
    let answer = server.http("POST", &format!("/api/games/{other}/analysis"), &[], "").await;
    assert_eq!(answer.status, 429, "{}", answer.body);
    assert_eq!(answer.json()["code"], "too_many");
    assert!(answer.header("retry-after").is_some());

    let report = done(&server, &game).await;
    let plies = report["plies"].as_array().expect("plies");
    assert_eq!(plies.len(), 4, "{report}");
    let blunder = &plies[2];
    assert_eq!((blunder["ply"].clone(), blunder["move"]["san"].clone()), (json!(3), json!("Qg4")), "{report}");
    assert_eq!(blunder["judgement"], "blunder", "{report}");
    assert!(blunder["eval"]["cp"].as_i64().expect("centipawns") < -400, "Black is a queen up: {report}");
    assert_ne!(blunder["best"]["uci"], "d1g4", "{report}");
    assert!(blunder["best"]["san"].is_string(), "{report}");
    assert_eq!(plies[3]["move"]["san"], "Bxg4");
    assert_eq!(plies[3]["judgement"], Value::Null, "taking the queen is right: {report}");
    assert!(report["initial"]["cp"].is_i64(), "{report}");
    assert_eq!(report["players"]["white"]["blunders"], 1, "{report}");
    assert!(
        report["players"]["white"]["acpl"].as_u64().expect("acpl")
            > report["players"]["black"]["acpl"].as_u64().expect("acpl")
    );
    assert_eq!(report["movetime_ms"], 200);
    // Done: asking again answers the result at once, and the slot is free for the other game.
    let (status, again) = analysis(&server, "POST", &game).await;
    assert_eq!((status, &again), (200, &report));
    assert_eq!(analysis(&server, "POST", &other).await.0, 202);
    let other_report = done(&server, &other).await;
    drop(server);
    tokio::time::sleep(Duration::from_millis(500)).await;

    // After a restart both are served from the store, without running again.
    let server = start_with(config(&db, 1)).await;
    let (status, kept) = analysis(&server, "GET", &game).await;
    assert_eq!((status, &kept), (200, &report));
    assert_eq!(analysis(&server, "POST", &other).await, (200, other_report));
    drop(server);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_minichess7_game_is_analysed_too() {
    let server = start_with(config(":memory:", 2)).await;
    let mut white = server.client().await;
    white
        .send(json!({"type":"create","variant":"minichess7","white":{"kind":"human"},"black":{"kind":"human"},"as":"white"}))
        .await;
    let game = white.recv_type("created").await["game"].as_str().expect("game").to_string();
    white.recv_type("state").await;
    let mut black = server.client().await;
    black.join(&game, "black").await;
    let state = black.recv_type("state").await;
    white.recv_type("seats").await;
    let first = |event: &Value| event["legal"][0].as_str().expect("a legal move").to_string();
    // White plays its first legal move, Black answers with its first.
    let event = white.play(&game, &first(&state)).await;
    black.recv_event().await;
    black.play(&game, &first(&event)).await;
    white.recv_event().await;
    white.send(json!({"type":"resign","game":game})).await;
    black.recv_type("end").await;
    assert_eq!(analysis(&server, "POST", &game).await.0, 202);
    let report = done(&server, &game).await;
    let plies = report["plies"].as_array().expect("plies");
    assert_eq!(plies.len(), 2, "{report}");
    for ply in plies {
        let uci = ply["best"]["uci"].as_str().expect("best move");
        assert!(uci.chars().all(|c| c.is_ascii_alphanumeric()) && (4..=5).contains(&uci.len()), "{report}");
        assert!(ply["eval"].get("cp").is_some() || ply["eval"].get("mate").is_some(), "{report}");
    }
}
