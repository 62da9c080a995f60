//! Opening names over real sockets: every `move` and `state` of a standard game from the start
//! carries the longest named line reached, kept out of book and named by position (a
//! transposition too), follows an undo, and is written in the PGN.

use crate::server_support;

use serde_json::{json, Value};
use server_support::{bot, human_game, start, Client};

/// Plays `moves` alternately for `white` and `black`; the last move event.
async fn play_line(white: &mut Client, black: &mut Client, game: &str, moves: &[&str]) -> Value {
    let mut last = Value::Null;
    for (i, uci) in moves.iter().enumerate() {
        let mover = if i % 2 == 0 { &mut *white } else { &mut *black };
        last = mover.play(game, uci).await;
    }
    last
}

#[tokio::test]
async fn moves_name_the_opening_as_it_is_played() {
    let server = start().await;
    let (mut white, mut black, game, _, _) = human_game(&server).await;
    let first = white.play(&game, "e2e4").await;
    assert_eq!(first["opening"], json!({"eco": "B00", "name": "King's Pawn Game"}));
    let ruy = play_line(&mut black, &mut white, &game, &["e7e5", "g1f3", "b8c6", "f1b5"]).await;
    assert_eq!(ruy["opening"], json!({"eco": "C60", "name": "Ruy Lopez"}), "{ruy}");
    // Out of book, the name stays.
    let out = black.play(&game, "h7h6").await;
    assert_eq!(out["opening"]["name"], "Ruy Lopez");
    let mut spectator = server.client().await;
    spectator.send(json!({"type":"watch","game":game})).await;
    assert_eq!(spectator.recv_type("state").await["opening"]["eco"], "C60");
    let (_, pgn) = server.get(&format!("/api/games/{game}/pgn")).await;
    assert!(pgn.contains("[ECO \"C60\"]\n[Opening \"Ruy Lopez\"]\n"), "{pgn}");
}

#[tokio::test]
async fn a_transposition_is_named_and_an_undo_goes_back() {
    let server = start().await;
    let (mut white, mut black, game, _, _) = human_game(&server).await;
    let moved = play_line(&mut white, &mut black, &game, &["g1f3", "b8c6", "e2e4", "e7e5", "f1b5"]).await;
    assert_eq!(moved["opening"]["name"], "Ruy Lopez", "another move order, the same position");
    // A take-back agreed by both (Black's: back to Black to move): the state names the
    // opening of the moves left, 1. Nf3 Nc6 2. e4 — 1. e4 Nc6 2. Nf3 by another order.
    black.send(json!({"type":"undo","game":game})).await;
    white.recv_type("offer").await;
    white.send(json!({"type":"undo","game":game})).await;
    let state = black.recv_type("state").await;
    assert_eq!(state["moves"], json!(["g1f3", "b8c6", "e2e4"]), "{state}");
    assert_eq!(state["opening"], json!({"eco": "B00", "name": "Nimzowitsch Defense: Declined Variation"}), "{state}");
}

#[tokio::test]
async fn games_that_do_not_start_from_the_usual_position_have_no_opening() {
    let server = start().await;
    let mut client = server.client().await;
    client
        .send(json!({"type":"create","variant":"minichess7","white":{"kind":"human"},"black":bot(1),"as":"white"}))
        .await;
    let state = client.recv_type("state").await;
    let game = state["game"].as_str().expect("game").to_string();
    let uci = state["legal"][0].as_str().expect("a move").to_string();
    let moved = client.play(&game, &uci).await;
    assert!(moved.get("opening").is_none(), "{moved}");
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1";
    client
        .send(json!({"type":"create","fen":fen,"white":{"kind":"human"},"black":{"kind":"human"},"as":"white"}))
        .await;
    let state = client.recv_type("state").await;
    let game = state["game"].as_str().expect("game").to_string();
    assert!(state.get("opening").is_none());
    let (_, pgn) = server.get(&format!("/api/games/{game}/pgn")).await;
    assert!(!pgn.contains("[ECO"), "{pgn}");
}
