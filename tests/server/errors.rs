//! Bad input of every kind gets an `error` with its code, changes nothing, and the connection
//! keeps working: each error here is followed by a valid request that is answered.

use crate::server_support;

use std::time::Duration;

use serde_json::{json, Value};
use server_support::{bot, human, human_game, start, Client, Server};

/// A valid request on the same connection still gets its answer.
async fn still_works(client: &mut Client) {
    // Keep to the rate limit (10 a second after a burst of 20), which these tests do not test.
    tokio::time::sleep(Duration::from_millis(250)).await;
    client.send(json!({"type":"list","id":99})).await;
    assert_eq!(client.recv_type("games").await["type"], "games");
    assert_eq!(client.recv_type("ack").await["id"], 99);
}

async fn version(server: &Server, game: &str) -> Value {
    let (status, body) = server.get(&format!("/api/games/{game}")).await;
    assert_eq!(status, 200);
    let state: Value = serde_json::from_str(&body).unwrap();
    json!([state["v"], state["moves"]])
}

#[tokio::test]
async fn malformed_messages_are_bad_requests() {
    let server = start().await;
    let mut c = server.client().await;
    for text in [
        "{not json",
        "[1,2,3]",
        r#"{"game":"x"}"#,
        r#"{"type":"teleport"}"#,
        r#"{"type":"move","game":"x"}"#,
        r#"{"type":"move","game":"x","uci":7}"#,
        r#"{"type":"create","variant":"atomic"}"#,
        r#"{"type":"create","white":{"kind":"bot","level":13}}"#,
        r#"{"type":"create","clock":{"initial_ms":500,"increment_ms":0}}"#,
        r#"{"type":"create","fen":"8/8/8/8/8/8/8/8 w - - 0 1"}"#,
        r#"{"type":"create","white":{"kind":"bot","level":2},"as":"white"}"#,
    ] {
        c.send_text(text).await;
        let e = c.expect_error("bad_request").await;
        assert!(!e["message"].as_str().unwrap_or("").is_empty(), "{text}: {e}");
        still_works(&mut c).await;
    }
    // The id is echoed whenever the request had one.
    c.send_text(r#"{"type":"teleport","id":41}"#).await;
    assert_eq!(c.expect_error("bad_request").await["id"], 41);
    c.send_text(r#"{"type":"watch","game":"nosuchgm","id":42}"#).await;
    assert_eq!(c.expect_error("no_such_game").await["id"], 42);
    still_works(&mut c).await;
    // Binary frames are refused too.
    c.send_binary(vec![1, 2, 3]).await;
    c.expect_error("bad_request").await;
    still_works(&mut c).await;
}

#[tokio::test]
async fn game_errors_change_nothing() {
    let server = start().await;
    let (mut white, mut black, game, white_token, _) = human_game(&server).await;
    let before = version(&server, &game).await;

    // Moving out of turn, for the other colour, illegal and malformed moves.
    black.send(json!({"type":"move","game":game,"uci":"e7e5","id":1})).await;
    assert_eq!(black.expect_error("not_your_turn").await["id"], 1);
    still_works(&mut black).await;
    white.send(json!({"type":"move","game":game,"uci":"e7e5"})).await;
    white.expect_error("illegal_move").await;
    white.send(json!({"type":"move","game":game,"uci":"e2e5"})).await;
    white.expect_error("illegal_move").await;
    white.send(json!({"type":"move","game":game,"uci":"zz9"})).await;
    white.expect_error("illegal_move").await;
    white.send(json!({"type":"move","game":game,"uci":"0000"})).await;
    white.expect_error("illegal_move").await;
    still_works(&mut white).await;
    assert_eq!(version(&server, &game).await, before);

    // Unknown game.
    white.send(json!({"type":"move","game":"nosuchgm","uci":"e2e4"})).await;
    white.expect_error("no_such_game").await;
    still_works(&mut white).await;

    // A spectator cannot act; a wrong token holds no seat.
    let mut spectator = server.client().await;
    spectator.send(json!({"type":"watch","game":game})).await;
    spectator.recv_type("state").await;
    for action in ["move", "undo", "draw", "decline", "resign"] {
        spectator.send(json!({"type":action,"game":game,"uci":"e2e4"})).await;
        spectator.expect_error("not_a_player").await;
    }
    spectator.send(json!({"type":"resume","game":game,"token":"0123456789abcdef0123456789abcdef"})).await;
    spectator.expect_error("not_a_player").await;
    spectator.send(json!({"type":"resume","game":game,"token":white_token.to_uppercase()})).await;
    spectator.expect_error("not_a_player").await;
    still_works(&mut spectator).await;

    // Taken seats.
    spectator.send(json!({"type":"join","game":game,"color":"black"})).await;
    spectator.expect_error("seat_taken").await;
    spectator.send(json!({"type":"join","game":game})).await;
    spectator.expect_error("seat_taken").await;
    still_works(&mut spectator).await;
    assert_eq!(version(&server, &game).await, before);

    // Nothing to decline, nothing to take back.
    white.send(json!({"type":"decline","game":game})).await;
    white.expect_error("bad_request").await;
    white.send(json!({"type":"undo","game":game})).await;
    white.expect_error("bad_request").await;
    assert_eq!(version(&server, &game).await, before);

    // The game still works, then ends; acting on it afterwards is game_over.
    white.send(json!({"type":"move","game":game,"uci":"e2e4","id":3})).await;
    assert_eq!(white.recv_type("ack").await["id"], 3);
    black.send(json!({"type":"resign","game":game})).await;
    white.recv_type("end").await;
    let after = version(&server, &game).await;
    for action in ["move", "undo", "draw", "resign"] {
        white.send(json!({"type":action,"game":game,"uci":"d2d4"})).await;
        white.expect_error("game_over").await;
    }
    still_works(&mut white).await;
    assert_eq!(version(&server, &game).await, after);
}

#[tokio::test]
async fn a_bot_seat_cannot_be_joined() {
    let server = start().await;
    let mut c = server.client().await;
    let (game, _) = c.create(human(), bot(1), Some("white")).await;
    let mut other = server.client().await;
    other.send(json!({"type":"join","game":game,"color":"black"})).await;
    other.expect_error("seat_taken").await;
    still_works(&mut other).await;
}

#[tokio::test]
async fn oversized_frames_are_refused() {
    let server = start().await;
    let mut c = server.client().await;
    let big = format!(r#"{{"type":"list","id":5,"pad":"{}"}}"#, "x".repeat(20_000));
    c.send_text(&big).await;
    let e = c.expect_error("too_large").await;
    assert_eq!(e["id"], 5);
    still_works(&mut c).await;
    // Just under the limit is fine.
    let fits = format!(r#"{{"type":"list","pad":"{}"}}"#, "x".repeat(16_000));
    c.send_text(&fits).await;
    assert_eq!(c.recv().await["type"], "games");
}

#[tokio::test]
async fn flooding_is_rate_limited_then_closed() {
    let server = start().await;
    let mut c = server.client().await;
    for i in 0..30 {
        c.send(json!({"type":"list","id":i})).await;
    }
    let mut limited = 0;
    let mut answered = 0;
    while let Some(m) = c.try_recv(Duration::from_millis(500)).await {
        match m["type"].as_str() {
            Some("error") => {
                assert_eq!(m["code"], "rate_limited");
                limited += 1;
            }
            Some("ack") => answered += 1,
            _ => {}
        }
    }
    assert!(limited > 0 && answered >= 20, "limited {limited}, answered {answered}");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    still_works(&mut c).await;

    // A client that keeps on flooding is disconnected.
    let mut flood = server.client().await;
    for _ in 0..200 {
        flood.send_text(r#"{"type":"list"}"#).await;
    }
    let mut closed = false;
    for _ in 0..1000 {
        if flood.try_recv(Duration::from_secs(2)).await.is_none() {
            closed = true;
            break;
        }
    }
    assert!(closed, "the flooding connection stayed open");
}
