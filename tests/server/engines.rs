//! UCI engines as seats over real sockets: the real Stockfish and Fairy-Stockfish play,
//! `/api/engines` lists them, bad seat specs are refused, a bad `--engine` stops the server,
//! and fake engines (tests/data/engines) that crash, babble, cheat or fall silent lose or are
//! restarted as docs/bots.md says, with a system chat line.

use crate::common;
use crate::server_support;
use crate::services;

use std::sync::Arc;
use std::time::Duration;

use gambit::server::engines::{parse_engine_spec, Engines};
use serde_json::{json, Value};
use server_support::{human, scratch, start_with, test_config, Client, Process, Server};

const STOCKFISH: &str = "/usr/games/stockfish";
const FAIRY: &str = "/usr/games/fairy-stockfish";

fn fake(mode: &str) -> String {
    format!("{}/tests/data/engines/{mode}.sh", env!("CARGO_MANIFEST_DIR"))
}

/// A server offering these `NAME=PATH` engines, thinking 200 ms a move.
async fn server_with(specs: &[String]) -> Server {
    let specs: Vec<_> = specs.iter().map(|s| parse_engine_spec(s).expect("engine spec")).collect();
    let engines = tokio::task::spawn_blocking(move || Engines::probe(&specs)).await.expect("probe").expect("engines");
    let mut config = test_config();
    config.room.engine_movetime = Duration::from_millis(200);
    config.room.engines = Arc::new(engines);
    start_with(config).await
}

fn engine(name: &str, options: Value) -> Value {
    json!({"kind":"engine","name":name,"options":options})
}

/// Plays white's knight b1-c3-b1 against an engine until `plies` moves are made; returns the
/// last move event.
async fn shuffle(me: &mut Client, game: &str, plies: usize) -> Value {
    let mut last = Value::Null;
    for ply in (0..plies).step_by(2) {
        let uci = if ply % 4 == 0 { "b1c3" } else { "c3b1" };
        me.play(game, uci).await;
        last = me.recv_type("move").await;
        assert_eq!(last["turn"], "white", "{last}");
    }
    last
}

/// The next `end` event, and the system chat lines that came before it.
async fn end_and_chat(me: &mut Client) -> (Value, Vec<String>) {
    let mut lines = Vec::new();
    loop {
        let m = me.recv().await;
        match m["type"].as_str() {
            Some("chat") if m["system"] == true => lines.push(m["text"].as_str().unwrap_or_default().to_string()),
            Some("end") => return (m, lines),
            _ => {}
        }
    }
}

#[tokio::test]
async fn stockfish_is_listed_and_plays() {
    if !common::installed(STOCKFISH) {
        return;
    }
    let server = server_with(&[format!("Stockfish={STOCKFISH}")]).await;
    let (status, body) = server.get("/api/engines").await;
    assert_eq!(status, 200);
    let list: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(list[0]["name"], "Stockfish");
    assert_eq!(list[0]["variants"], json!(["standard", "chess960"]), "UCI_Chess960 makes it a Chess960 player");
    let settings = list[0]["settings"].as_array().expect("settings");
    let names: Vec<&str> = settings.iter().filter_map(|s| s["name"].as_str()).collect();
    assert_eq!(names, ["Skill Level", "UCI_Elo"], "{body}");
    assert_eq!((settings[0]["min"].as_i64(), settings[0]["max"].as_i64()), (Some(0), Some(20)));

    let mut me = server.client().await;
    let (game, _) = me.create(human(), engine("Stockfish", json!({"Skill Level":0})), Some("white")).await;
    let state = me.recv_type("state").await;
    assert_eq!(
        state["seats"]["black"],
        json!({"kind":"engine","name":"Stockfish","options":{"Skill Level":0},"label":"Stockfish · Skill Level 0"})
    );
    let mut legal = state["legal"].clone();
    for _ in 0..3 {
        let uci = legal[0].as_str().expect("a legal move").to_string();
        me.play(&game, &uci).await;
        let reply = me.recv_type("move").await;
        assert_eq!(reply["turn"], "white", "{reply}");
        legal = reply["legal"].clone();
    }
    // UCI_Elo is a setting too (it also turns UCI_LimitStrength on).
    let (elo_game, _) = me.create(human(), engine("Stockfish", json!({"UCI_Elo":1500})), Some("white")).await;
    me.recv_type("state").await;
    me.play(&elo_game, "e2e4").await;
    assert_eq!(me.recv_type("move").await["turn"], "white");

    // Chess960 from start 272 (BBNRKNRQ): Stockfish is told UCI_Chess960 and answers in kind,
    // here to a position where White has just castled by taking the g1 rook.
    let start = "bbnrknrq/pppppppp/8/8/8/8/PPPPPPPP/BBNRKNRQ w KQkq - 0 1";
    let seat = engine("Stockfish", json!({"Skill Level":0}));
    me.send(json!({"type":"create","variant":"chess960","fen":start,"white":human(),"black":seat,"as":"white"})).await;
    let game = me.recv_type("created").await["game"].as_str().expect("a game").to_string();
    me.recv_type("state").await;
    me.play(&game, "f1g3").await;
    let reply = me.recv_type("move").await;
    assert!(reply["legal"].as_array().is_some_and(|l| l.contains(&json!("e1g1"))), "{reply}");
    let castled = me.play(&game, "e1g1").await;
    assert_eq!(castled["san"], "O-O");
    let reply = me.recv_type("move").await;
    assert_eq!(reply["turn"], "white", "Stockfish answers after O-O: {reply}");
}

#[tokio::test]
async fn fairy_stockfish_is_listed_and_plays_standard() {
    if !common::installed(FAIRY) {
        return;
    }
    let server = server_with(&[format!("Fairy-Stockfish={FAIRY}")]).await;
    let (_, body) = server.get("/api/engines").await;
    let list: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(list[0]["name"], "Fairy-Stockfish");
    assert_eq!(list[0]["variants"], json!(["standard", "chess960"]), "it does not know our minichess7");
    let mut me = server.client().await;
    let (game, _) = me.create(human(), engine("Fairy-Stockfish", json!({"Skill Level":0})), Some("white")).await;
    me.recv_type("state").await;
    me.play(&game, "e2e4").await;
    assert_eq!(me.recv_type("move").await["turn"], "white");
    me.play(&game, "d2d4").await;
    assert_eq!(me.recv_type("move").await["turn"], "white");
    me.send(
        json!({"type":"create","white":human(),"black":engine("Fairy-Stockfish", json!({})),"variant":"minichess7"}),
    )
    .await;
    me.expect_error("bad_engine_seat").await;
}

#[tokio::test]
async fn bad_engine_seats_are_refused() {
    let server = server_with(&[format!("Fake={}", fake("crash_once"))]).await;
    let mut me = server.client().await;
    let bad = [
        engine("Nobody", json!({})),
        engine("Fake", json!({"Hash":64})),
        engine("Fake", json!({"Threads":1})),
        engine("Fake", json!({"Skill Level":21})),
        engine("Fake", json!({"Skill Level":-1})),
        engine("Fake", json!({"Skill Level":2.5})),
        engine("Fake", json!({"Skill Level":"3"})),
        engine("Fake", json!({"Skill Level":3, "UCI_Elo":1500})),
    ];
    for seat in bad {
        me.send(json!({"type":"create","white":human(),"black":seat})).await;
        let error = me.expect_error("bad_engine_seat").await;
        assert!(!error["message"].as_str().unwrap_or_default().is_empty());
    }
    me.send(json!({"type":"create","white":human(),"black":engine("Fake", json!({})),"variant":"minichess7"})).await;
    me.expect_error("bad_engine_seat").await;
    // Nothing was made.
    let (_, games) = server.get("/api/games").await;
    assert!(!games.contains("Fake"), "{games}");
    // An engine seat is a computer's: never rated.
    me.send(json!({"type":"create","white":human(),"black":engine("Fake", json!({})),"rated":true,
        "clock":{"initial_ms":60000,"increment_ms":0}}))
        .await;
    assert_eq!(me.recv_type("error").await["type"], "error");
}

#[tokio::test]
async fn a_crashed_engine_is_restarted_and_the_game_goes_on() {
    let marker = format!("/tmp/gambit-fake-engine-crashed-{}", std::process::id());
    let _ = std::fs::remove_file(&marker);
    let server = server_with(&[format!("Fake={}", fake("crash_once"))]).await;
    let mut me = server.client().await;
    let (game, _) = me.create(human(), engine("Fake", json!({"Skill Level":5})), Some("white")).await;
    me.recv_type("state").await;
    me.play(&game, "b1c3").await;
    assert_eq!(me.recv_type("move").await["uci"], "g8f6");
    me.play(&game, "c3b1").await;
    // Its second answer kills it; a fresh one answers instead.
    let line = me.recv_type("chat").await;
    assert_eq!(line["system"], true, "{line}");
    assert!(line["text"].as_str().unwrap_or_default().contains("restarted"), "{line}");
    assert_eq!(me.recv_type("move").await["uci"], "f6g8");
    let last = shuffle(&mut me, &game, 2).await;
    assert_eq!(last["uci"], "g8f6");
    let _ = std::fs::remove_file(&marker);
}

#[tokio::test]
async fn an_engine_that_always_crashes_resigns_after_three() {
    let server = server_with(&[format!("Fake={}", fake("crash"))]).await;
    let mut me = server.client().await;
    let (game, _) = me.create(human(), engine("Fake", json!({})), Some("white")).await;
    me.recv_type("state").await;
    me.play(&game, "b1c3").await;
    let (end, lines) = end_and_chat(&mut me).await;
    assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("1-0"), Some("resignation")), "{end}");
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[2].contains("3 times") && lines[2].contains("resigns"), "{lines:?}");
}

#[tokio::test]
async fn garbage_and_illegal_moves_lose() {
    let server = server_with(&[format!("Garbage={}", fake("garbage")), format!("Illegal={}", fake("illegal"))]).await;
    for name in ["Garbage", "Illegal"] {
        let mut me = server.client().await;
        let (game, _) = me.create(human(), engine(name, json!({})), Some("white")).await;
        me.recv_type("state").await;
        me.play(&game, "b1c3").await;
        let (end, lines) = end_and_chat(&mut me).await;
        assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("1-0"), Some("resignation")), "{end}");
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("not a legal move") && lines[0].contains(name), "{lines:?}");
    }
}

#[tokio::test]
async fn a_silent_engine_resigns_untimed_and_loses_on_time_with_a_clock() {
    let server = server_with(&[format!("Silent={}", fake("silent"))]).await;
    let mut me = server.client().await;
    let (game, _) = me.create(human(), engine("Silent", json!({})), Some("white")).await;
    me.recv_type("state").await;
    let asked = std::time::Instant::now();
    me.play(&game, "b1c3").await;
    let (end, lines) = end_and_chat(&mut me).await;
    let waited = asked.elapsed();
    assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("1-0"), Some("resignation")), "{end}");
    assert!(lines[0].contains("did not answer") && lines[0].contains("resigns"), "{lines:?}");
    // 200 ms of budget, 500 ms more, 200 ms after stop: well under two seconds.
    assert!(waited >= Duration::from_millis(700) && waited < Duration::from_secs(3), "{waited:?}");

    me.send(json!({"type":"create","white":human(),"black":engine("Silent", json!({})),"as":"white",
        "clock":{"initial_ms":60000,"increment_ms":0}}))
        .await;
    let game = me.recv_type("created").await["game"].as_str().expect("game").to_string();
    me.recv_type("state").await;
    me.play(&game, "b1c3").await;
    let (end, lines) = end_and_chat(&mut me).await;
    assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("1-0"), Some("timeout")), "{end}");
    assert!(lines[0].contains("loses on time"), "{lines:?}");
}

/// `gambit serve` with a bad `--engine` stops at once: exit 2, one `error:` line.
#[test]
fn bad_engine_arguments_stop_the_server() {
    let fake = fake("crash");
    let cases: [&[&str]; 5] = [
        &["--engine", "Stockfish"],
        &["--engine", "=/usr/games/stockfish"],
        &["--engine", "Bad/Name=/bin/true"],
        &["--engine", "A=/nonexistent/engine"],
        &["--engine", "A=/bin/true"],
    ];
    let dup = [format!("A={fake}"), format!("A={fake}")];
    let dup: [&str; 4] = ["--engine", &dup[0], "--engine", &dup[1]];
    for args in cases.iter().copied().chain([&dup[..]]) {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_gambit"))
            .args(["serve", "--db", ":memory:", "--listen", "127.0.0.1:0"])
            .args(args)
            .output()
            .expect("run gambit");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error: ")).collect();
        assert_eq!(errors.len(), 1, "{args:?}: {stderr}");
        assert!(errors[0].contains("engine"), "{args:?}: {stderr}");
    }
}

#[tokio::test]
async fn a_rematch_keeps_the_engine_seat() {
    let server = server_with(&[format!("Fake={}", fake("fake_engine"))]).await;
    let mut me = server.client().await;
    let (game, token) = me.create(human(), engine("Fake", json!({"Skill Level":7})), Some("white")).await;
    let token = token.expect("token");
    me.recv_type("state").await;
    me.play(&game, "b1c3").await;
    me.recv_type("move").await;
    me.send(json!({"type":"resign","game":game})).await;
    me.recv_type("end").await;
    // Against a computer a rematch needs no consent; colours swap.
    me.send(json!({"type":"rematch","game":game})).await;
    let next = me.recv_type("rematch").await["next"].as_str().expect("next").to_string();
    me.send(json!({"type":"resume","game":next,"token":token})).await;
    assert_eq!(me.recv_type("joined").await["color"], "black");
    let state = me.recv_type("state").await;
    assert_eq!(state["seats"]["white"]["label"], "Fake · Skill Level 7", "{state}");
    // The engine, now white, opens (perhaps before the state was sent).
    let first = match state["moves"].get(0) {
        Some(played) => played.clone(),
        None => me.recv_type("move").await["uci"].clone(),
    };
    assert_eq!(first, "b1c3");
}

/// The seat is stored as an engine's: a server killed and started again on the same database
/// goes on with the engine, its strength setting and all.
#[tokio::test]
async fn a_restarted_server_resumes_the_game_with_the_engine() {
    let dir = scratch("engine-restart");
    let db = dir.join("gambit.db");
    resumes_with_the_engine(db.to_str().expect("utf-8 path")).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_restarted_server_resumes_the_game_with_the_engine_from_postgres() {
    let Some(url) = services::postgres::database().await else { return };
    resumes_with_the_engine(&url).await;
}

/// A game against an engine, the server killed and started again on `db`: the game goes on.
async fn resumes_with_the_engine(db: &str) {
    let spec = format!("Fake={}", fake("fake_engine"));
    let args = ["--bot-movetime", "200", "--engine", &spec];
    let first = Process::start(db, &args).await;
    let mut me = first.server.client().await;
    let (game, token) = me.create(human(), engine("Fake", json!({"Skill Level":4})), Some("white")).await;
    let token = token.expect("token");
    me.recv_type("state").await;
    me.play(&game, "b1c3").await;
    let reply = me.recv_type("move").await;
    assert_eq!(reply["uci"], "g8f6");
    drop(me);
    first.kill();

    let second = Process::start(db, &args).await;
    let mut me = second.server.client().await;
    me.send(json!({"type":"resume","game":game,"token":token})).await;
    assert_eq!(me.recv_type("joined").await["color"], "white");
    let state = me.recv_type("state").await;
    assert_eq!(state["moves"], json!(["b1c3", "g8f6"]));
    assert_eq!(state["seats"]["black"]["label"], "Fake · Skill Level 4", "{state}");
    me.play(&game, "c3b1").await;
    assert_eq!(me.recv_type("move").await["uci"], "f6g8");
}
