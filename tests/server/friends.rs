//! Playing friends over real sockets: display names on seats, in the lobby, the text log and
//! PGN, and every way a bad name is refused without changing anything; aborting a game.

use crate::server_support;

use serde_json::{json, Value};
use server_support::{bot, human, read_when_it_has, scratch, start, start_with, test_config, Client, Server};

/// Creates a human game as `name` taking white; returns the client and the game id.
async fn create_as(server: &Server, name: &str) -> (Client, String) {
    let mut alice = server.client().await;
    alice.send(json!({"type":"create","white":human(),"black":human(),"as":"white","name":name})).await;
    let created = alice.recv_type("created").await;
    let game = created["game"].as_str().expect("game id").to_string();
    alice.recv_type("state").await;
    (alice, game)
}

/// The games list as the lobby gets it.
async fn lobby(server: &Server) -> Value {
    let mut watcher = server.client().await;
    watcher.send(json!({"type":"list"})).await;
    watcher.recv_type("games").await["games"].clone()
}

#[tokio::test]
async fn names_show_on_seats_lobby_text_log_and_pgn() {
    let dir = scratch("friends-names");
    let mut config = test_config();
    config.log_dir = Some(dir.clone());
    let server = start_with(config).await;
    let (mut alice, game) = create_as(&server, "  Alice  ").await;

    let games = lobby(&server).await;
    let line = games.as_array().expect("list").iter().find(|g| g["game"] == game.as_str()).expect("listed");
    assert_eq!(line["white"], json!({"kind":"human","online":true,"name":"Alice"}), "trimmed: {line}");
    assert_eq!(line["black"], json!({"kind":"open"}));

    let mut bob = server.client().await;
    bob.send(json!({"type":"join","game":game,"name":"Bob_the-2nd."})).await;
    assert_eq!(bob.recv_type("joined").await["color"], "black");
    let state = bob.recv_type("state").await;
    assert_eq!(state["seats"]["white"]["name"], "Alice");
    assert_eq!(state["seats"]["black"], json!({"kind":"human","online":true,"name":"Bob_the-2nd."}));
    let seats = alice.recv_type("seats").await;
    assert_eq!(seats["seats"]["black"]["name"], "Bob_the-2nd.");

    let mut spectator = server.client().await;
    spectator.send(json!({"type":"watch","game":game})).await;
    let seen = spectator.recv_type("state").await;
    assert_eq!(
        (seen["seats"]["white"]["name"].as_str(), seen["seats"]["black"]["name"].as_str()),
        (Some("Alice"), Some("Bob_the-2nd."))
    );

    for (i, uci) in ["f2f3", "e7e5", "g2g4", "d8h4"].into_iter().enumerate() {
        let mover = if i % 2 == 0 { &mut alice } else { &mut bob };
        mover.play(&game, uci).await;
    }
    let (status, pgn) = server.get(&format!("/api/games/{game}/pgn")).await;
    assert_eq!(status, 200);
    assert!(pgn.contains("[White \"Alice\"]") && pgn.contains("[Black \"Bob_the-2nd.\"]"), "{pgn}");
    let (_, api) = server.get(&format!("/api/games/{game}")).await;
    assert!(api.contains(r#""name":"Alice""#), "{api}");

    let path = dir.join(format!("{game}.log"));
    let text = read_when_it_has(&path, "end 0-1").await;
    let _ = std::fs::remove_dir_all(&dir);
    assert!(text.contains("seats: white human Alice (online), black human Bob_the-2nd. (online)"), "{text}");
}

#[tokio::test]
async fn bots_are_level_n_and_nameless_people_anonymous() {
    let server = start().await;
    let mut me = server.client().await;
    me.send(json!({"type":"create","white":human(),"black":bot(2),"as":"white"})).await;
    let game = me.recv_type("created").await["game"].as_str().expect("id").to_string();
    let state = me.recv_type("state").await;
    assert_eq!(state["seats"]["white"], json!({"kind":"human","online":true,"name":"Anonymous"}));
    let level2 = gambit::bots::Level::new(2).expect("level 2").rating();
    assert_eq!(
        state["seats"]["black"],
        json!({"kind":"bot","level":2,"name":"Level 2","rating":level2,"label":format!("Level 2 · ~{level2}")})
    );
    let (_, pgn) = server.get(&format!("/api/games/{game}/pgn")).await;
    assert!(pgn.contains("[White \"Anonymous\"]") && pgn.contains("[Black \"Level 2\"]"), "{pgn}");
}

#[tokio::test]
async fn bad_names_are_refused_and_change_nothing() {
    let server = start().await;
    let mut client = server.client().await;
    for (name, says) in [
        (json!("<b>x</b>"), "'<' cannot be in a name"),
        (json!(""), "at least one character"),
        (json!("    "), "at least one character"),
        (json!("x".repeat(25)), "at most 24 characters"),
        (json!("tab\there"), "cannot be in a name"),
        (json!(42), "expected a string"),
    ] {
        let reply = client.answer(json!({"type":"create","name":name})).await;
        assert_eq!(reply["code"], "bad_request", "{name}: {reply}");
        assert!(reply["message"].as_str().is_some_and(|m| m.contains(says)), "{name}: {reply}");
    }
    assert_eq!(lobby(&server).await, json!([]), "no game was created");

    let (_, game) = create_as(&server, "Alice").await;
    let reply = client.answer(json!({"type":"join","game":game,"name":"Mallory<script>"})).await;
    assert_eq!(reply["code"], "bad_request", "{reply}");
    let games = lobby(&server).await;
    assert_eq!(games[0]["black"], json!({"kind":"open"}), "the seat is still open: {games}");
    // The same connection can still join, with a good name.
    client.send(json!({"type":"join","game":game,"name":"Zoë"})).await;
    assert_eq!(client.recv_type("state").await["seats"]["black"]["name"], "Zoë");
}

/// The next `end` event, skipping others.
async fn end_of(client: &mut Client) -> Value {
    client.recv_type("end").await
}

#[tokio::test]
async fn a_game_is_aborted_before_both_sides_moved_and_leaves_the_lobby() {
    let server = start().await;
    let (mut alice, game) = create_as(&server, "Alice").await;
    let mut bob = server.client().await;
    bob.send(json!({"type":"join","game":game,"name":"Bob"})).await;
    bob.recv_type("state").await;
    let mut spectator = server.client().await;
    spectator.send(json!({"type":"watch","game":game})).await;
    spectator.recv_type("state").await;

    let reply = spectator.answer(json!({"type":"abort","game":game})).await;
    assert_eq!(reply["code"], "not_a_player", "{reply}");
    alice.play(&game, "e2e4").await;
    // One move each side may still abort; black has not moved yet.
    bob.send(json!({"type":"abort","game":game})).await;
    for client in [&mut alice, &mut bob, &mut spectator] {
        let end = end_of(client).await;
        assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("*"), Some("aborted")), "{end}");
    }
    assert_eq!(lobby(&server).await, json!([]), "an aborted game leaves the lobby at once");
    let reply = alice.answer(json!({"type":"abort","game":game})).await;
    assert_eq!(reply["code"], "game_over", "{reply}");
    let (_, state) = server.get(&format!("/api/games/{game}")).await;
    let state: Value = serde_json::from_str(&state).expect("json");
    assert_eq!((state["status"].as_str(), state["result"].as_str()), (Some("ended"), Some("*")), "{state}");
}

#[tokio::test]
async fn after_two_moves_abort_is_refused_and_the_game_goes_on() {
    let server = start().await;
    let (mut alice, game) = create_as(&server, "Alice").await;
    let mut bob = server.client().await;
    bob.send(json!({"type":"join","game":game})).await;
    bob.recv_type("state").await;
    alice.play(&game, "e2e4").await;
    bob.play(&game, "e7e5").await;
    for client in [&mut alice, &mut bob] {
        let reply = client.answer(json!({"type":"abort","game":game})).await;
        assert_eq!(reply["code"], "bad_request", "{reply}");
        assert!(reply["message"].as_str().is_some_and(|m| m.contains("before both sides have moved")), "{reply}");
    }
    alice.play(&game, "g1f3").await;
    let games = lobby(&server).await;
    assert_eq!((games[0]["status"].as_str(), games[0]["plies"].as_u64()), (Some("ongoing"), Some(3)), "{games}");
}

#[tokio::test]
async fn a_waiting_game_and_a_bot_game_can_be_aborted() {
    let server = start().await;
    let (mut alice, game) = create_as(&server, "Alice").await;
    alice.send(json!({"type":"abort","game":game})).await;
    assert_eq!(end_of(&mut alice).await["result"], "*");
    let mut bob = server.client().await;
    bob.send(json!({"type":"join","game":game})).await;
    bob.expect_error("game_over").await;

    let mut me = server.client().await;
    me.send(json!({"type":"create","white":bot(1),"black":human(),"as":"black"})).await;
    let bot_game = me.recv_type("created").await["game"].as_str().expect("id").to_string();
    // The bot opens; one move each way is still an abort.
    let opening = me.recv_type("move").await;
    assert_eq!(opening["ply"], 1);
    me.send(json!({"type":"abort","game":bot_game})).await;
    let end = end_of(&mut me).await;
    assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("*"), Some("aborted")));
    assert_eq!(lobby(&server).await, json!([]));
}

#[tokio::test]
async fn takebacks_wait_for_both_moves_and_a_declined_one_waits_longer_each_time() {
    let mut config = test_config();
    config.room.takeback_cooldown = std::time::Duration::from_millis(300);
    let server = start_with(config).await;
    let (mut alice, game) = create_as(&server, "Alice").await;
    let mut bob = server.client().await;
    bob.send(json!({"type":"join","game":game,"name":"Bob"})).await;
    bob.recv_type("state").await;
    alice.play(&game, "e2e4").await;
    let early = alice.answer(json!({"type":"undo","game":game})).await;
    assert_eq!(early["code"], "bad_request", "{early}");
    assert!(early["message"].as_str().is_some_and(|m| m.contains("once both sides have moved")), "{early}");
    bob.play(&game, "e7e5").await;

    // Asked and declined: at once again is refused, saying how long to wait.
    assert_eq!(alice.answer(json!({"type":"undo","game":game})).await["type"], "ack");
    assert_eq!(bob.answer(json!({"type":"decline","game":game})).await["type"], "ack");
    let again = alice.answer(json!({"type":"undo","game":game})).await;
    assert_eq!(again["code"], "rate_limited", "{again}");
    assert!(again["message"].as_str().is_some_and(|m| m.contains("ask again in")), "{again}");
    // Bob's own requests are not held back by Alice's.
    assert_eq!(bob.answer(json!({"type":"undo","game":game})).await["type"], "ack");
    assert_eq!(alice.answer(json!({"type":"decline","game":game})).await["type"], "ack");

    // After 1² × 300 ms Alice may ask again; declined a second time, she waits 2² × 300 ms.
    tokio::time::sleep(std::time::Duration::from_millis(350)).await;
    assert_eq!(alice.answer(json!({"type":"undo","game":game})).await["type"], "ack");
    assert_eq!(bob.answer(json!({"type":"decline","game":game})).await["type"], "ack");
    tokio::time::sleep(std::time::Duration::from_millis(350)).await;
    assert_eq!(alice.answer(json!({"type":"undo","game":game})).await["code"], "rate_limited");
    tokio::time::sleep(std::time::Duration::from_millis(900)).await;
    assert_eq!(alice.answer(json!({"type":"undo","game":game})).await["type"], "ack");
    // Accepted, it takes back Bob's reply and Alice's move.
    bob.send(json!({"type":"undo","game":game})).await;
    let state = alice.recv_type("state").await;
    assert_eq!(state["moves"], json!([]), "{state}");
}
