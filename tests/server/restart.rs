//! Restarts: the real binary killed with SIGKILL in the middle of several games and started
//! again on the same database; and a database written by the previous schema opening.

use crate::server_support;
use crate::services;

use std::time::Duration;

use serde_json::{json, Value};
use server_support::{bot, human, scratch, start_with, test_config, Client, Process, Server};

/// Resumes a seat with a token on a new connection; returns the client and the state it gets.
async fn resume(server: &Server, game: &str, token: &str, v: u64) -> (Client, Value) {
    let mut client = server.client().await;
    client.send(json!({"type":"resume","game":game,"token":token,"v":v})).await;
    let joined = client.recv().await;
    assert_eq!(joined["type"], "joined", "{joined}");
    let state = client.recv_type("state").await;
    (client, state)
}

fn moves(state: &Value) -> Vec<&str> {
    state["moves"].as_array().expect("moves").iter().map(|m| m.as_str().expect("uci")).collect()
}

#[tokio::test]
async fn a_killed_server_comes_back_with_every_game() {
    let dir = scratch("sigkill");
    let db = dir.join("gambit.db");
    killed_and_started_again(db.to_str().expect("utf-8 path")).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_killed_server_comes_back_with_every_game_from_postgres() {
    let Some(url) = services::postgres::database().await else { return };
    killed_and_started_again(&url).await;
}

/// Three games in play (two people; two people on a clock; a person against a thinking bot),
/// the server killed with SIGKILL, started again on `db`: every game goes on.
async fn killed_and_started_again(db: &str) {
    let first = Process::start(db, &["--bot-movetime", "2500"]).await;
    let s = &first.server;

    // A: two people, untimed.
    let mut a_white = s.client().await;
    let (a, a_wt) = a_white.create(human(), human(), Some("white")).await;
    let a_wt = a_wt.expect("token");
    let mut a_black = s.client().await;
    let a_bt = a_black.join(&a, "black").await;
    a_white.play(&a, "e2e4").await;
    a_black.play(&a, "e7e5").await;
    let a_last = a_white.play(&a, "g1f3").await;

    // C: two people on a 5+0 clock, some time used.
    let mut c_white = s.client().await;
    c_white
        .send(json!({"type":"create","white":human(),"black":human(),"as":"white","name":"Carol",
                        "clock":{"initial_ms":300_000,"increment_ms":0}}))
        .await;
    let created = c_white.recv_type("created").await;
    let (c, c_wt) = (created["game"].as_str().unwrap().to_string(), created["token"].as_str().unwrap().to_string());
    let mut c_black = s.client().await;
    c_black.send(json!({"type":"join","game":c,"name":"Dave"})).await;
    let c_bt = c_black.recv_type("joined").await["token"].as_str().expect("token").to_string();
    // The first moves cost nothing (no clock runs until both sides have moved).
    c_white.play(&c, "d2d4").await;
    c_black.play(&c, "d7d5").await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    c_white.play(&c, "c2c4").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    c_black.play(&c, "e7e6").await;
    let c_last = c_white.play(&c, "g1f3").await;
    let (c_white_ms, c_black_ms) =
        (c_last["clock"]["white_ms"].as_u64().unwrap(), c_last["clock"]["black_ms"].as_u64().unwrap());
    assert!(c_white_ms < 300_000 - 600 && c_black_ms < 300_000 - 400, "{c_last}");
    c_white.send(json!({"type":"chat","game":c,"room":"players","text":"good luck, Dave"})).await;
    assert_eq!(c_black.recv_type("chat").await["text"], "good luck, Dave");

    // B: a person against level 12, which thinks for 2.5 s: killed while it thinks.
    let mut b_human = s.client().await;
    let (b, b_t) = b_human.create(human(), bot(12), Some("white")).await;
    let b_t = b_t.expect("token");
    let b_last = b_human.play(&b, "e2e4").await;

    first.kill();
    // Down for a while: nobody's clock may be charged for it.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let second = Process::start(db, &["--bot-movetime", "2500"]).await;
    let s = &second.server;

    // A: every move is there, both players resume with their tokens, and play goes on.
    let (mut a_white, state) = resume(s, &a, &a_wt, a_last["v"].as_u64().unwrap()).await;
    assert_eq!(moves(&state), ["e2e4", "e7e5", "g1f3"]);
    assert_eq!(state["status"], "ongoing");
    assert!(state["v"].as_u64().unwrap() > a_last["v"].as_u64().unwrap(), "versions only grow: {state}");
    let (mut a_black, _) = resume(s, &a, &a_bt, 0).await;
    a_black.play(&a, "b8c6").await;
    let m = a_white.recv_type("move").await;
    assert_eq!(m["uci"], "b8c6");

    // C: the clock goes on from the times stored, with black's time running from the restart.
    let (mut c_black, state) = resume(s, &c, &c_bt, 0).await;
    assert_eq!(moves(&state), ["d2d4", "d7d5", "c2c4", "e7e6", "g1f3"]);
    // The chat is kept with the game: its lines follow the state.
    let line = c_black.recv().await;
    assert_eq!(
        (&line["type"], &line["from"], &line["text"]),
        (&json!("chat"), &json!("Carol"), &json!("good luck, Dave"))
    );
    // The names the players gave are stored with their seats.
    assert_eq!(state["seats"]["white"], json!({"kind":"human","online":false,"name":"Carol"}));
    assert_eq!(state["seats"]["black"], json!({"kind":"human","online":true,"name":"Dave"}));
    let clock = &state["clock"];
    assert_eq!(clock["running"], "black", "{clock}");
    assert_eq!(clock["white_ms"].as_u64(), Some(c_white_ms), "{clock}");
    let black_ms = clock["black_ms"].as_u64().unwrap();
    assert!(black_ms <= c_black_ms && black_ms + 1000 > c_black_ms, "downtime charged? {black_ms} vs {c_black_ms}");
    let (_c_white, _) = resume(s, &c, &c_wt, 0).await;
    let reply = c_black.play(&c, "g8f6").await;
    assert_eq!(reply["clock"]["running"], "white");

    // B: the bot was thinking when the server died; it thinks again and answers.
    let (mut b_human, state) = resume(s, &b, &b_t, b_last["v"].as_u64().unwrap()).await;
    assert_eq!(moves(&state), ["e2e4"]);
    let answer = b_human.recv_type("move").await;
    assert_eq!(answer["ply"], 2, "{answer}");
    b_human.play(&b, if answer["uci"] == "g1f3" { "d2d4" } else { "g1f3" }).await;

    second.kill();
}

#[tokio::test]
async fn a_database_of_the_previous_schema_opens() {
    let dir = scratch("schema-v1");
    let db = dir.join("old.db");
    {
        let conn = rusqlite::Connection::open(&db).expect("create");
        conn.execute_batch(include_str!("../data/store/v1.sql")).expect("fixture");
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).expect("version");
        assert_eq!(version, 1);
    }
    let mut config = test_config();
    config.db = db.to_str().expect("utf-8").to_string();
    let server = start_with(config).await;

    // The unfinished game is back, and its players resume with their old tokens.
    let (status, list) = server.get("/api/games").await;
    assert_eq!(status, 200);
    assert!(list.contains("v1game01"), "{list}");
    let (mut black, state) = resume(&server, "v1game01", "v1-black-token", 0).await;
    assert_eq!(moves(&state), ["e2e4", "e7e5", "g1f3"]);
    // Version 1 kept no clock times: the game goes on from the initial time.
    assert_eq!(state["clock"]["white_ms"], 300_000);
    assert_eq!(state["clock"]["running"], "black");
    black.play("v1game01", "b8c6").await;
    let mut stranger = server.client().await;
    stranger.send(json!({"type":"resume","game":"v1game01","token":"v1-white-token-not"})).await;
    stranger.expect_error("not_a_player").await;

    // The finished game is in the archive, with its PGN.
    let (_, finished) = server.get("/api/games?status=finished").await;
    let finished: Value = serde_json::from_str(&finished).expect("json");
    assert_eq!(finished[0]["game"], "v1game02", "{finished}");
    assert_eq!((finished[0]["result"].as_str(), finished[0]["reason"].as_str()), (Some("1-0"), Some("resignation")));
    let (status, pgn) = server.get("/api/games/v1game02/pgn").await;
    assert_eq!(status, 200);
    assert!(
        pgn.contains("[Result \"1-0\"]") && pgn.contains("1. c3") && pgn.contains("[Date \"2025.11.22\"]"),
        "{pgn}"
    );
    drop(server);

    // The file is now at the latest schema.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let conn = rusqlite::Connection::open(&db).expect("reopen");
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).expect("version");
    assert_eq!(version, gambit::server::store::schema::LATEST as i64);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Signs up (or, on a later server, logs in) `name` on `server`: the session cookie.
async fn session(server: &Server, name: &str) -> String {
    let body = json!({"username": name, "password": "correct horse"});
    let answer = server.post("/api/signup", &[], body.clone()).await;
    let answer = if answer.status == 409 { server.post("/api/login", &[], body).await } else { answer };
    assert_eq!(answer.status, 200, "{name}: {}", answer.body);
    answer.cookie()
}

/// `name`'s blitz rating and games, as their page shows them.
async fn blitz(server: &Server, name: &str) -> (i64, i64) {
    let (status, page) = server.get(&format!("/api/players/{name}")).await;
    assert_eq!(status, 200, "{page}");
    let page: Value = serde_json::from_str(&page).expect("json");
    let blitz = &page["ratings"]["blitz"];
    (blitz["rating"].as_i64().expect("rating"), blitz["games"].as_i64().expect("games"))
}

/// A logged-in player's connection, back in `game` by their account.
async fn back_in(server: &Server, cookie: &str, game: &str) -> Client {
    let mut client = server.client_with(&[("Cookie", cookie)]).await.expect("connects");
    client.send(json!({"type":"resume","game":game})).await;
    assert_eq!(client.recv().await["type"], "joined");
    client.recv_type("state").await;
    client
}

/// A rated game's result and its rating change are stored in one transaction. The real binary
/// is stopped dead (`GAMBIT_FAULT`) just before the end is stored, then just after: before,
/// the restarted game goes on and no rating has moved; after, both the result and the change
/// are there. (The old order rated first and stored the end after: a crash between the two
/// left the game "playing" with both ratings changed, and a different ending kept the change.)
#[tokio::test]
async fn a_rated_result_and_its_ratings_survive_a_crash_together() {
    let dir = scratch("rated-crash");
    let db = dir.join("gambit.db");
    let db = db.to_str().expect("utf-8 path");

    let first = Process::start_env(db, &[], &[("GAMBIT_FAULT", "end.before_store")]).await;
    let s = &first.server;
    let (ann, ben) = (session(s, "Ann").await, session(s, "Ben").await);
    let mut white = s.client_with(&[("Cookie", &ann)]).await.expect("connects");
    white
        .send(json!({"type":"create","white":human(),"black":human(),"as":"white",
            "clock":{"initial_ms":300000,"increment_ms":3000},"rated":true}))
        .await;
    let game = white.recv_type("created").await["game"].as_str().expect("game").to_string();
    let mut black = s.client_with(&[("Cookie", &ben)]).await.expect("connects");
    black.join(&game, "black").await;
    white.play(&game, "e2e4").await;
    black.play(&game, "e7e5").await;
    // White resigns: the server stops dead before the end reaches the store.
    white.send(json!({"type":"resign","game":game})).await;
    assert!(first.stopped_dead().await, "stopped at end.before_store");

    let second = Process::start(db, &[]).await;
    let s = &second.server;
    let (status, state) = s.get(&format!("/api/games/{game}")).await;
    assert_eq!(status, 200, "{state}");
    let state: Value = serde_json::from_str(&state).expect("json");
    assert_eq!((state["status"].as_str(), state.get("ratings")), (Some("ongoing"), None), "{state}");
    assert_eq!((blitz(s, "Ann").await, blitz(s, "Ben").await), ((1500, 0), (1500, 0)), "no rating moved");
    second.kill();

    // This time Black resigns, and the server stops dead just after the end is stored.
    let third = Process::start_env(db, &[], &[("GAMBIT_FAULT", "end.after_store")]).await;
    let s = &third.server;
    let (ann, ben) = (session(s, "Ann").await, session(s, "Ben").await);
    let _white = back_in(s, &ann, &game).await;
    let mut black = back_in(s, &ben, &game).await;
    black.send(json!({"type":"resign","game":game})).await;
    assert!(third.stopped_dead().await, "stopped at end.after_store");

    let fourth = Process::start(db, &[]).await;
    let s = &fourth.server;
    let (_, state) = s.get(&format!("/api/games/{game}")).await;
    let state: Value = serde_json::from_str(&state).expect("json");
    assert_eq!((state["status"].as_str(), state["result"].as_str()), (Some("ended"), Some("1-0")), "{state}");
    let (ann_now, ben_now) = (blitz(s, "Ann").await, blitz(s, "Ben").await);
    assert_eq!((ann_now.1, ben_now.1), (1, 1), "one rated game each");
    assert!(ann_now.0 > 1500 && ben_now.0 < 1500, "the change follows the stored result: {ann_now:?} {ben_now:?}");
    assert_eq!(state["ratings"]["white"]["rating"].as_i64(), Some(ann_now.0), "{state}");
    drop(fourth);
    let _ = std::fs::remove_dir_all(&dir);
}
