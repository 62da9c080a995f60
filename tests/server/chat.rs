//! The two chat rooms of a game over real sockets: who reads and writes where, lines kept for
//! whoever comes later, and every refusal (bad lines, wrong room, a flood).

use crate::server_support;

use std::time::Duration;

use serde_json::{json, Value};
use server_support::{start, table, Client, Table};

/// Writes a line (without a request id: the writer reads its own line, no ack).
async fn say(client: &mut Client, game: &str, room: &str, text: &str) {
    client.send(json!({"type":"chat","game":game,"room":room,"text":text})).await;
}

/// The next message that is not a watcher count, skipping `seats`.

#[tokio::test]
async fn players_and_spectators_each_read_their_own_room() {
    let server = start().await;
    let Table { mut alice, mut bob, mut cy, game, bob_token, .. } = table(&server).await;

    say(&mut alice, &game, "players", "  good luck, Bob  ").await;
    for reader in [&mut alice, &mut bob] {
        let line = reader.recv_news().await;
        assert_eq!(line["type"], "chat", "{line}");
        assert_eq!(
            (&line["room"], &line["from"], &line["text"]),
            (&json!("players"), &json!("Alice"), &json!("good luck, Bob"))
        );
        assert!(line["at"].as_i64().expect("at") > 1_700_000_000_000, "{line}");
        assert_eq!(line["game"], game.as_str());
    }
    let xss = "<img src=x onerror=alert(1)>";
    say(&mut cy, &game, "spectators", xss).await;
    let line = cy.recv_news().await;
    assert_eq!((&line["room"], &line["from"], &line["text"]), (&json!("spectators"), &json!("Cy"), &json!(xss)));

    // A move after both lines: a player's next message is the move, so neither the spectators'
    // line reached the players nor the players' line the spectator.
    alice.play(&game, "e2e4").await;
    assert_eq!(bob.recv_news().await["type"], "move");
    assert_eq!(cy.recv_news().await["type"], "move");

    // Refusals, each changing nothing.
    cy.send(json!({"type":"chat","game":game,"room":"players","text":"psst"})).await;
    cy.expect_error("not_a_player").await;
    // A player may greet the spectators (as lichess's bots do) but reads their room only
    // after the game: the line reaches Cy, and neither player before the next move.
    say(&mut alice, &game, "spectators", "hello all").await;
    let line = cy.recv_news().await;
    assert_eq!(
        (&line["room"], &line["from"], &line["text"]),
        (&json!("spectators"), &json!("Alice"), &json!("hello all"))
    );
    bob.play(&game, "e7e5").await;
    assert_eq!(alice.recv_news().await["type"], "move", "Alice's own spectators' line is not hers to read yet");
    assert_eq!(cy.recv_news().await["type"], "move");
    for (text, says) in [
        (json!("   "), "at least one character"),
        (json!("x".repeat(281)), "at most 280"),
        (json!("two\nlines"), "cannot be in a chat line"),
        (json!(7), "expected a string"),
    ] {
        bob.send(json!({"type":"chat","game":game,"room":"players","text":text})).await;
        let error = bob.expect_error("bad_request").await;
        assert!(error["message"].as_str().expect("message").contains(says), "{text}: {error}");
    }
    bob.send(json!({"type":"chat","game":game,"room":"lounge","text":"hi"})).await;
    assert!(bob.expect_error("bad_request").await["message"].as_str().expect("message").contains("lounge"));
    let mut stranger = server.client().await;
    stranger.send(json!({"type":"chat","game":game,"room":"spectators","text":"hi"})).await;
    stranger.expect_error("not_a_player").await;
    stranger.send(json!({"type":"chat","game":"nosuchgm","room":"spectators","text":"hi"})).await;
    stranger.expect_error("no_such_game").await;
    // 280 characters, of two bytes each, is fine.
    say(&mut bob, &game, "players", &"é".repeat(280)).await;
    assert_eq!(alice.recv_news().await["text"].as_str().map(|t| t.chars().count()), Some(280));
    bob.recv_news().await;

    // Once the game is over the players read the spectators' room: what was written in it
    // comes to them after the end; and they may write in it.
    alice.send(json!({"type":"resign","game":game})).await;
    for reader in [&mut alice, &mut bob, &mut cy] {
        assert_eq!(reader.recv_news().await["type"], "end");
    }
    for player in [&mut alice, &mut bob] {
        for text in [xss, "hello all"] {
            let line = player.recv_news().await;
            assert_eq!((&line["room"], &line["text"]), (&json!("spectators"), &json!(text)), "{line}");
        }
    }
    say(&mut alice, &game, "spectators", "gg everyone").await;
    for reader in [&mut alice, &mut bob, &mut cy] {
        let line = reader.recv_news().await;
        assert_eq!(
            (&line["room"], &line["from"], &line["text"]),
            (&json!("spectators"), &json!("Alice"), &json!("gg everyone"))
        );
    }

    // Whoever comes later gets the lines they may read after the state, oldest first.
    let mut dee = server.client().await;
    dee.send(json!({"type":"watch","game":game})).await;
    assert_eq!(dee.recv().await["type"], "state");
    let mut texts: Vec<Value> = Vec::new();
    for _ in 0..3 {
        texts.push(dee.recv().await["text"].clone());
    }
    assert_eq!(
        texts,
        [json!(xss), json!("hello all"), json!("gg everyone")],
        "spectators never read the players' room"
    );
    let mut bob_again = server.client().await;
    bob_again.send(json!({"type":"resume","game":game,"token":bob_token})).await;
    bob_again.recv_type("joined").await;
    assert_eq!(bob_again.recv().await["type"], "state");
    let mut lines = Vec::new();
    while let Some(m) = bob_again.try_recv(Duration::from_millis(300)).await {
        if m["type"] == "chat" {
            lines.push(m["text"].as_str().expect("text").chars().take(12).collect::<String>());
        }
    }
    let expected: Vec<String> = vec![
        "good luck, B".into(),
        xss.chars().take(12).collect(),
        "hello all".into(),
        "é".repeat(12),
        "gg everyone".into(),
    ];
    assert_eq!(lines, expected, "a player reads both rooms once the game is over");
}

#[tokio::test]
async fn a_chat_flood_is_refused_and_the_connection_goes_on() {
    let server = start().await;
    let Table { mut alice, mut bob, game, .. } = table(&server).await;
    for i in 0..12 {
        alice.send(json!({"type":"chat","game":game,"room":"players","text":format!("spam {i}"),"id":i})).await;
    }
    let (mut said, mut refused) = (0, 0);
    while said + refused < 12 {
        let m = alice.recv().await;
        match m["type"].as_str() {
            Some("ack") => said += 1,
            Some("error") => {
                assert_eq!(m["code"], "rate_limited", "{m}");
                refused += 1;
            }
            _ => {}
        }
    }
    assert!(refused >= 5 && said >= 3, "{said} said, {refused} refused");
    let mut heard = 0;
    while let Some(m) = bob.try_recv(Duration::from_millis(300)).await {
        heard += usize::from(m["type"] == "chat");
    }
    assert_eq!(heard, said, "only the lines let through reach the other player");
    // Still connected and playing.
    alice.play(&game, "d2d4").await;
}

/// More connections do not mean more lines: one address's connections share its chat
/// allowance. (Before, each connection had only its own: 200 connections of one address
/// delivered 140 lines a second to a spectator.)
#[tokio::test]
async fn one_address_with_many_connections_is_limited_as_a_whole() {
    let mut config = server_support::test_config();
    config.per_address.chats_per_minute = 60;
    let server = server_support::start_with(config).await;
    let Table { mut cy, game, .. } = table(&server).await;
    let crowd_address: std::net::IpAddr = "127.0.0.2".parse().expect("ip");
    let mut crowd = Vec::new();
    for _ in 0..20 {
        let mut c = Client::connect_from(server.addr, crowd_address).await;
        c.send(json!({"type":"watch","game":game})).await;
        c.recv_type("state").await;
        crowd.push(c);
    }
    // Each connection writes three lines: well within its own limit (five at once).
    let (mut said, mut refused) = (0, 0);
    for (n, c) in crowd.iter_mut().enumerate() {
        for i in 0..3 {
            c.send(json!({"type":"chat","game":game,"room":"spectators","text":format!("line {n}.{i}"),"id":i})).await;
        }
        let mut answered = 0;
        while answered < 3 {
            let m = c.recv().await;
            match (m["type"].as_str(), m["code"].as_str()) {
                (Some("ack"), _) => (said, answered) = (said + 1, answered + 1),
                (Some("error"), Some("rate_limited")) => {
                    assert!(m["message"].as_str().unwrap_or_default().contains("your address"), "{m}");
                    (refused, answered) = (refused + 1, answered + 1);
                }
                _ => {}
            }
        }
    }
    // The address's burst is 15 lines (a quarter of a minute's 60), and a second or two
    // adds one or two more.
    assert!((15..=20).contains(&said), "{said} lines of 60 let through");
    assert_eq!(said + refused, 60);
    let mut heard = 0;
    while let Some(m) = cy.try_recv(Duration::from_millis(300)).await {
        heard += usize::from(m["type"] == "chat");
    }
    assert_eq!(heard, said, "the spectator reads only the lines let through");
    // Another address is not held back by this one.
    let mut other = Client::connect_from(server.addr, "127.0.0.3".parse().expect("ip")).await;
    other.send(json!({"type":"watch","game":game})).await;
    other.recv_type("state").await;
    other.send(json!({"type":"chat","game":game,"room":"spectators","text":"hello","id":1})).await;
    assert_eq!(other.recv_type("ack").await["id"], 1);
}
