//! Playing again and finding an opponent, over real sockets: rematches (colours swapped, the
//! spectators carried along, the match score counted) and open challenges (listed live, taken
//! once, gone with their creator), with every refusal.

use crate::server_support;

use std::time::Duration;

use serde_json::{json, Value};
use server_support::{bot, human, start, table, Client, Table};

/// Resumes `token`'s seat in `game`: the colour, and the state.
async fn resume(client: &mut Client, game: &str, token: &str) -> (String, Value) {
    client.send(json!({"type":"resume","game":game,"token":token})).await;
    let joined = client.recv_type("joined").await;
    (joined["color"].as_str().expect("color").to_string(), client.recv_type("state").await)
}

#[tokio::test]
async fn a_rematch_swaps_colours_carries_spectators_and_keeps_the_score() {
    let server = start().await;
    let Table { mut alice, mut bob, mut cy, game, alice_token, bob_token } = table(&server).await;
    alice.send(json!({"type":"rematch","game":game})).await;
    assert!(alice.expect_error("bad_request").await["message"]
        .as_str()
        .expect("why")
        .contains("once the game is over"));

    // Fool's mate: Bob (black) wins. (The mate is sent without an id: `play` would read past
    // the end while it waits for the ack.)
    for (i, uci) in ["f2f3", "e7e5", "g2g4"].into_iter().enumerate() {
        let mover = if i % 2 == 0 { &mut alice } else { &mut bob };
        mover.play(&game, uci).await;
    }
    bob.send(json!({"type":"move","game":game,"uci":"d8h4"})).await;
    for reader in [&mut alice, &mut bob, &mut cy] {
        let end = reader.recv_type("end").await;
        assert_eq!(end["match"], json!({"white":0,"black":1,"games":1}), "{end}");
    }
    cy.send(json!({"type":"rematch","game":game})).await;
    cy.expect_error("not_a_player").await;

    alice.send(json!({"type":"rematch","game":game})).await;
    for reader in [&mut alice, &mut bob, &mut cy] {
        let offer = reader.recv_news().await;
        assert_eq!(
            (&offer["type"], &offer["kind"], &offer["by"]),
            (&json!("offer"), &json!("rematch"), &json!("white"))
        );
    }
    alice.send(json!({"type":"rematch","game":game})).await;
    assert!(alice.expect_error("bad_request").await["message"].as_str().expect("why").contains("already offered"));
    // Only the offerer may withdraw; withdrawn, the offer is gone for everyone (a fresh state),
    // and it may be made again.
    bob.send(json!({"type":"withdraw","game":game})).await;
    assert!(bob.expect_error("bad_request").await["message"].as_str().expect("why").contains("no offer standing"));
    cy.send(json!({"type":"withdraw","game":game})).await;
    cy.expect_error("not_a_player").await;
    alice.send(json!({"type":"withdraw","game":game})).await;
    for reader in [&mut alice, &mut bob, &mut cy] {
        let state = reader.recv_news().await;
        assert_eq!((&state["type"], &state["offer"]), (&json!("state"), &Value::Null), "{state}");
    }
    alice.send(json!({"type":"withdraw","game":game})).await;
    alice.expect_error("bad_request").await;
    alice.send(json!({"type":"rematch","game":game})).await;
    for reader in [&mut alice, &mut bob, &mut cy] {
        assert_eq!(reader.recv_news().await["kind"], "rematch");
    }
    bob.send(json!({"type":"rematch","game":game})).await;
    let mut next_game = String::new();
    for reader in [&mut alice, &mut bob, &mut cy] {
        let rematch = reader.recv_news().await;
        assert_eq!((&rematch["type"], &rematch["game"]), (&json!("rematch"), &json!(game)), "{rematch}");
        next_game = rematch["next"].as_str().expect("next").to_string();
    }
    assert_ne!(next_game, game);
    bob.send(json!({"type":"rematch","game":game})).await;
    assert!(bob.expect_error("bad_request").await["message"].as_str().expect("why").contains("made already"));
    let (_, api) = server.get(&format!("/api/games/{game}")).await;
    assert!(api.contains(&format!(r#""next":"{next_game}""#)), "the old game points to the new: {api}");

    // Everyone moves on by themselves: the players with the same tokens, colours swapped.
    let (alice_color, state) = resume(&mut alice, &next_game, &alice_token).await;
    assert_eq!(alice_color, "black");
    assert_eq!(state["seats"]["white"]["name"], "Bob");
    assert_eq!(state["match"], json!({"white":1,"black":0,"games":1}), "Bob is white now, with his point");
    let (bob_color, _) = resume(&mut bob, &next_game, &bob_token).await;
    assert_eq!(bob_color, "white");
    assert_eq!(cy.answer(json!({"type":"watch","game":next_game})).await["type"], "ack");
    assert_eq!(state["status"], "ongoing", "both seats are held from the start");

    // Game two: Bob (white) resigns after a move; the match stands at one all.
    bob.play(&next_game, "e2e4").await;
    bob.send(json!({"type":"resign","game":next_game})).await;
    for reader in [&mut alice, &mut bob, &mut cy] {
        let end = reader.recv_type("end").await;
        assert_eq!((&end["game"], &end["match"]), (&json!(next_game), &json!({"white":1,"black":1,"games":2})));
    }
    let (_, pgn) = server.get(&format!("/api/games/{next_game}/pgn")).await;
    assert!(pgn.contains("[White \"Bob\"]") && pgn.contains("[Black \"Alice\"]"), "{pgn}");
}

#[tokio::test]
async fn a_rematch_can_be_declined_and_an_aborted_game_does_not_count() {
    let server = start().await;
    let Table { mut alice, mut bob, game, bob_token, .. } = table(&server).await;
    alice.send(json!({"type":"abort","game":game})).await;
    let end = alice.recv_type("end").await;
    assert_eq!((&end["result"], &end["match"]), (&json!("*"), &json!({"white":0,"black":0,"games":0})));
    bob.recv_type("end").await;
    bob.send(json!({"type":"decline","game":game})).await;
    bob.expect_error("game_over").await;
    bob.send(json!({"type":"rematch","game":game})).await;
    assert_eq!(alice.recv_news().await["kind"], "rematch");
    assert_eq!(bob.recv_news().await["kind"], "rematch");
    alice.send(json!({"type":"decline","game":game})).await;
    for reader in [&mut alice, &mut bob] {
        let declined = reader.recv_news().await;
        assert_eq!(
            (&declined["type"], &declined["kind"], &declined["by"]),
            (&json!("declined"), &json!("rematch"), &json!("black"))
        );
    }
    // Asked again, and this time taken.
    bob.send(json!({"type":"rematch","game":game})).await;
    alice.recv_news().await;
    alice.send(json!({"type":"rematch","game":game})).await;
    let next_game = alice.recv_news().await["next"].as_str().expect("next").to_string();
    let (color, state) = resume(&mut bob, &next_game, &bob_token).await;
    assert_eq!(color, "white");
    assert_eq!(state["match"], json!({"white":0,"black":0,"games":0}), "the aborted game is not counted");
}

#[tokio::test]
async fn against_a_bot_a_rematch_starts_at_once() {
    let server = start().await;
    let mut me = server.client().await;
    me.send(json!({"type":"create","white":human(),"black":bot(1),"as":"white","name":"Dee"})).await;
    let created = me.recv_type("created").await;
    let (game, token) =
        (created["game"].as_str().expect("id").to_string(), created["token"].as_str().expect("t").to_string());
    me.play(&game, "e2e4").await;
    me.send(json!({"type":"resign","game":game})).await;
    assert_eq!(me.recv_type("end").await["match"], json!({"white":0,"black":1,"games":1}));
    me.send(json!({"type":"rematch","game":game})).await;
    let rematch = me.recv_type("rematch").await;
    let next_game = rematch["next"].as_str().expect("next").to_string();
    let (color, state) = resume(&mut me, &next_game, &token).await;
    assert_eq!(color, "black");
    assert_eq!(state["seats"]["white"]["name"], "Level 1");
    assert_eq!(state["match"], json!({"white":1,"black":0,"games":1}));
    // The bot, now White, opens at once (before the resume, or right after it).
    if state["moves"].as_array().expect("moves").is_empty() {
        assert_eq!(me.recv_type("move").await["ply"], 1);
    } else {
        assert_eq!(state["turn"], "black");
    }
}

/// A lobby watcher's next `seeks` list.
async fn seeks(client: &mut Client) -> Vec<Value> {
    client.recv_type("seeks").await["seeks"].as_array().expect("a list").clone()
}

#[tokio::test]
async fn a_seek_is_listed_taken_once_and_both_players_sit_down() {
    let server = start().await;
    let mut lobby = server.client().await;
    lobby.send(json!({"type":"list"})).await;
    lobby.recv_type("games").await;
    assert!(seeks(&mut lobby).await.is_empty());

    let mut alice = server.client().await;
    let clock = json!({"initial_ms":300_000,"increment_ms":3_000});
    alice.send(json!({"type":"seek","clock":clock,"color":"white","name":"Alice","id":4})).await;
    let seeking = alice.recv().await;
    assert_eq!(seeking["type"], "seeking", "{seeking}");
    assert_eq!(seeking["id"], 4);
    let seek = seeking["seek"].as_str().expect("seek id").to_string();
    let listed = seeks(&mut lobby).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (&listed[0]["seek"], &listed[0]["name"], &listed[0]["color"]),
        (&json!(seek), &json!("Alice"), &json!("white"))
    );
    assert_eq!(listed[0]["clock"], clock);

    // Refusals that change nothing.
    alice.send(json!({"type":"accept_seek","seek":seek})).await;
    assert!(alice.expect_error("bad_request").await["message"].as_str().expect("why").contains("your own seek"));
    let mut bad = server.client().await;
    bad.send(json!({"type":"seek","fen":"not a position"})).await;
    bad.expect_error("bad_request").await;
    bad.send(json!({"type":"seek","clock":{"initial_ms":0,"increment_ms":0}})).await;
    bad.expect_error("bad_request").await;
    bad.send(json!({"type":"seek","color":"purple"})).await;
    bad.expect_error("bad_request").await;
    bad.send(json!({"type":"seek","name":"<b>"})).await;
    bad.expect_error("bad_request").await;
    bad.send(json!({"type":"accept_seek","seek":"snothere1"})).await;
    bad.expect_error("no_such_seek").await;
    bad.send(json!({"type":"cancel_seek"})).await;
    bad.expect_error("no_such_seek").await;
    assert!(
        lobby.try_recv(Duration::from_millis(400)).await.is_none_or(|m| m["type"] != "seeks"),
        "the list did not change"
    );

    let mut bob = server.client().await;
    bob.send(json!({"type":"accept_seek","seek":seek,"name":"Bob"})).await;
    let joined = bob.recv_type("joined").await;
    assert_eq!(joined["color"], "black");
    let game = joined["game"].as_str().expect("game").to_string();
    let state = bob.recv_type("state").await;
    assert_eq!((&state["status"], &state["clock"]["increment_ms"]), (&json!("ongoing"), &json!(3_000)));
    assert_eq!((&state["seats"]["white"]["name"], &state["seats"]["black"]["name"]), (&json!("Alice"), &json!("Bob")));
    let mine = alice.recv_type("joined").await;
    assert_eq!((&mine["game"], &mine["color"]), (&json!(game), &json!("white")));
    alice.recv_type("state").await;
    assert!(seeks(&mut lobby).await.is_empty(), "an accepted seek vanishes from the list");
    alice.play(&game, "e2e4").await;
    assert_eq!(bob.recv_type("move").await["uci"], "e2e4");

    let mut carol = server.client().await;
    carol.send(json!({"type":"accept_seek","seek":seek})).await;
    carol.expect_error("no_such_seek").await;
}

#[tokio::test]
async fn a_seek_is_replaced_withdrawn_and_gone_with_its_creator() {
    let server = start().await;
    let mut lobby = server.client().await;
    lobby.send(json!({"type":"list"})).await;
    assert!(seeks(&mut lobby).await.is_empty());
    let mut alice = server.client().await;
    alice.send(json!({"type":"seek","name":"Alice"})).await;
    let first = alice.recv_type("seeking").await["seek"].clone();
    assert_eq!(seeks(&mut lobby).await.len(), 1);
    alice.send(json!({"type":"seek","variant":"minichess7","color":"black"})).await;
    let second = alice.recv_type("seeking").await["seek"].clone();
    let listed = seeks(&mut lobby).await;
    assert_eq!(listed.len(), 1, "one seek per connection: {listed:?}");
    assert_eq!((&listed[0]["seek"], &listed[0]["variant"]), (&second, &json!("minichess7")));
    assert_ne!(first, second);
    assert_eq!(alice.answer(json!({"type":"cancel_seek"})).await["type"], "ack");
    assert!(seeks(&mut lobby).await.is_empty());

    let mut bob = server.client().await;
    bob.send(json!({"type":"seek","name":"Bob"})).await;
    bob.recv_type("seeking").await;
    assert_eq!(seeks(&mut lobby).await.len(), 1);
    bob.close().await;
    assert!(seeks(&mut lobby).await.is_empty(), "a seek goes with its creator");
}

#[tokio::test]
async fn two_people_accepting_one_seek_make_exactly_one_game() {
    let server = start().await;
    for _ in 0..5 {
        let mut alice = server.client().await;
        alice.send(json!({"type":"seek","name":"Alice"})).await;
        let seek = alice.recv_type("seeking").await["seek"].clone();
        let (mut bob, mut carol) = (server.client().await, server.client().await);
        let accept = json!({"type":"accept_seek","seek":seek});
        tokio::join!(bob.send(accept.clone()), carol.send(accept));
        let (b, c) = tokio::join!(bob.recv_event(), carol.recv_event());
        let outcomes = [b["type"].as_str(), c["type"].as_str()];
        assert!(outcomes.contains(&Some("joined")) && outcomes.contains(&Some("error")), "{b} / {c}");
        let refused = if b["type"] == "error" { &b } else { &c };
        assert_eq!(refused["code"], "no_such_seek", "{refused}");
        let winner = if b["type"] == "joined" { &b } else { &c };
        let game = alice.recv_type("joined").await["game"].clone();
        assert_eq!(winner["game"], game);
    }
    let (_, games) = server.get("/api/games").await;
    let games: Vec<Value> = serde_json::from_str(&games).expect("games");
    assert_eq!(games.len(), 5, "five seeks, five games: {games:?}");
}
