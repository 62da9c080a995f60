//! Chess clocks over real sockets, fair as lichess's: no clock runs until both sides have made
//! their first move, a first move not made in time aborts the game (no result, no rating
//! change), a flag falls with nobody sending anything, a bare king draws on time, moves charge
//! the mover and add the increment, a premove costs nothing, a far-away player's network lag
//! is credited back within its bound, and bad settings are refused. (The arithmetic itself is
//! tested under paused time in src/server/room/.)

use crate::server_support;

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{json, Value};
use server_support::{bot, human, start, start_with, test_config, Client};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Creates a timed game with the creator as White; returns (client, game, token, first state).
async fn create_timed(
    server: &server_support::Server,
    black: Value,
    clock: Value,
    fen: Option<&str>,
) -> (Client, String, String, Value) {
    let mut white = server.client().await;
    let (game, token, state) = create_on(&mut white, black, clock, (fen, false)).await;
    (white, game, token, state)
}

/// Creates a timed game on `white`'s connection (rated: it must be logged in); returns (game,
/// token, first state).
async fn create_on(
    white: &mut Client,
    black: Value,
    clock: Value,
    (fen, rated): (Option<&str>, bool),
) -> (String, String, Value) {
    white
        .send(json!({"type":"create","white":human(),"black":black,"as":"white","clock":clock,"fen":fen,"rated":rated}))
        .await;
    let created = white.recv_type("created").await;
    let game = created["game"].as_str().expect("game").to_string();
    let token = created["token"].as_str().expect("token").to_string();
    (game, token, white.recv_type("state").await)
}

/// Creates a timed human game and seats Black; returns both clients, with the game started and
/// waiting for White's first move: no clock runs.
async fn timed_human_game(
    server: &server_support::Server,
    clock: Value,
    fen: Option<&str>,
) -> (Client, Client, String) {
    let (mut white, game, _, state) = create_timed(server, human(), clock, fen).await;
    let black = seat_black(server.client().await, &mut white, &game, state).await;
    (white, black, game)
}

/// Seats `black` in `white`'s waiting game and checks the game started with no clock running.
async fn seat_black(mut black: Client, white: &mut Client, game: &str, state: Value) -> Client {
    assert_eq!(state["status"], "waiting");
    assert_eq!(state["clock"]["running"], Value::Null, "a waiting game's clock stands still: {state}");
    black.join(game, "black").await;
    let state = black.recv_type("state").await;
    assert_eq!(state["status"], "ongoing");
    // No clock runs until both have moved: White has a while for a first move.
    assert_eq!(state["clock"]["running"], Value::Null, "{state}");
    let wait = state["clock"]["first_move_ms"].as_u64().expect("first_move_ms");
    assert!((1..=30_000).contains(&wait), "{state}");
    // The creator hears of the join, then gets a state with the first-move wait.
    white.recv_type("seats").await;
    let state = white.recv_type("state").await;
    assert!(state["clock"]["first_move_ms"].is_u64(), "{state}");
    black
}

/// The `move` event of `uci`, skipping any before it (a client's own moves come back to it too).
async fn move_of(client: &mut Client, uci: &str) -> Value {
    loop {
        let mv = client.recv_type("move").await;
        if mv["uci"] == uci {
            return mv;
        }
    }
}

/// White and Black make their first moves (`moves`): they cost nothing, and then White's
/// clock runs. Returns the clock of the second move's event.
async fn first_moves(white: &mut Client, black: &mut Client, game: &str, moves: [&str; 2]) -> Value {
    white.send(json!({"type":"move","game":game,"uci":moves[0]})).await;
    let first = black.recv_type("move").await;
    assert_eq!(first["clock"]["running"], Value::Null, "{first}");
    assert!(first["clock"]["first_move_ms"].is_u64(), "Black now has a while: {first}");
    black.send(json!({"type":"move","game":game,"uci":moves[1]})).await;
    assert_eq!(white.recv_type("move").await["uci"], moves[0]);
    move_of(black, moves[1]).await;
    let second = white.recv_type("move").await;
    let clock = second["clock"].clone();
    assert_eq!(clock["running"], "white", "{second}");
    assert_eq!(clock["first_move_ms"], Value::Null, "{second}");
    assert_eq!(
        (clock["white_ms"].clone(), clock["black_ms"].clone()),
        (clock["initial_ms"].clone(), clock["initial_ms"].clone())
    );
    clock
}

#[tokio::test]
async fn a_first_move_not_made_in_time_aborts_the_game_with_no_result_and_no_rating_change() {
    let mut config = test_config();
    config.room.first_move_timeout = Duration::from_millis(1_000);
    let server = start_with(config).await;
    let password = "correct horse";
    let (ann, ben) = (server.sign_up("AnnFirst", password).await, server.sign_up("BenFirst", password).await);
    let mut white = server.client_with(&[("Cookie", &ann)]).await.expect("connects");
    let (game, _, state) =
        create_on(&mut white, human(), json!({"initial_ms":300_000,"increment_ms":3_000}), (None, true)).await;
    let black = server.client_with(&[("Cookie", &ben)]).await.expect("connects");
    let mut black = seat_black(black, &mut white, &game, state).await;
    // White never moves: the game is called off, as if it never happened.
    let end = black.recv_type("end").await;
    assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("*"), Some("aborted")), "{end}");
    assert!(end.get("ratings").is_none(), "{end}");
    assert_eq!((end["clock"]["white_ms"].as_u64(), end["clock"]["black_ms"].as_u64()), (Some(300_000), Some(300_000)));

    // The same when White moved and Black does not.
    let (game, _, state) =
        create_on(&mut white, human(), json!({"initial_ms":300_000,"increment_ms":3_000}), (None, true)).await;
    let mut black = seat_black(black, &mut white, &game, state).await;
    white.send(json!({"type":"move","game":game,"uci":"e2e4"})).await;
    let end = loop {
        let m = black.recv_event().await;
        if m["type"] == "end" && m["game"] == game.as_str() {
            break m;
        }
    };
    assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("*"), Some("aborted")), "{end}");
    // A move after the end is refused.
    black.send(json!({"type":"move","game":game,"uci":"e7e5"})).await;
    black.expect_error("game_over").await;
    for name in ["AnnFirst", "BenFirst"] {
        let (_, page) = server.get(&format!("/api/players/{name}")).await;
        let page: Value = serde_json::from_str(&page).expect("json");
        assert_eq!(page["ratings"]["blitz"]["games"], 0, "{page}");
        assert_eq!(page["ratings"]["blitz"]["rating"], 1500, "{page}");
    }
}

#[tokio::test]
async fn a_player_who_stops_moving_loses_on_time() {
    let server = start().await;
    let (mut white, mut black, game) =
        timed_human_game(&server, json!({"initial_ms":1000,"increment_ms":0}), None).await;
    first_moves(&mut white, &mut black, &game, ["e2e4", "e7e5"]).await;
    // Nobody sends anything more: the room's own timer ends the game.
    let end = black.recv_type("end").await;
    assert_eq!(end["result"], "0-1", "{end}");
    assert_eq!(end["reason"], "timeout", "{end}");
    assert_eq!(end["clock"]["white_ms"], 0, "{end}");
    assert_eq!(end["clock"]["black_ms"], 1000, "{end}");
    assert_eq!(end["clock"]["running"], Value::Null, "{end}");
    assert_eq!(white.recv_type("end").await, end);
}

#[tokio::test]
async fn flag_against_a_bare_king_is_a_draw() {
    let server = start().await;
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let (mut white, mut black, game) =
        timed_human_game(&server, json!({"initial_ms":1000,"increment_ms":0}), Some(fen)).await;
    first_moves(&mut white, &mut black, &game, ["a1a2", "e8d8"]).await;
    let end = black.recv_type("end").await;
    assert_eq!(end["result"], "1/2-1/2", "{end}");
    assert_eq!(end["reason"], "timeout", "{end}");
    let mut watcher = server.client().await;
    watcher.send(json!({"type":"watch","game":game})).await;
    let state = watcher.recv_type("state").await;
    assert_eq!(state["status"], "ended");
    assert_eq!(state["clock"]["white_ms"], 0, "{state}");
}

#[tokio::test]
async fn moves_charge_the_mover_and_add_the_increment() {
    let server = start().await;
    let (mut white, mut black, game) =
        timed_human_game(&server, json!({"initial_ms":60_000,"increment_ms":2_000}), None).await;
    // The first moves take a while and cost nothing: no increment either.
    tokio::time::sleep(Duration::from_millis(300)).await;
    first_moves(&mut white, &mut black, &game, ["e2e4", "e7e5"]).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    white.send(json!({"type":"move","game":game,"uci":"g1f3"})).await;
    let mv = move_of(&mut black, "g1f3").await;
    let clock = &mv["clock"];
    let white_ms = clock["white_ms"].as_u64().expect("white_ms");
    // 60 s, less the 300+ ms White took, plus 2 s; the round trip measured on loopback is
    // credited (well under 100 ms, even on a busy machine).
    assert!((61_000..=61_800).contains(&white_ms), "{mv}");
    assert_eq!(clock["black_ms"], 60_000, "{mv}");
    assert_eq!(clock["running"], "black", "{mv}");
    assert_eq!(clock["initial_ms"], 60_000);
    assert_eq!(clock["increment_ms"], 2_000);

    tokio::time::sleep(Duration::from_millis(200)).await;
    black.send(json!({"type":"move","game":game,"uci":"b8c6"})).await;
    assert_eq!(white.recv_type("move").await["uci"], "g1f3", "White sees its own move first");
    let mv = white.recv_type("move").await;
    assert_eq!(mv["uci"], "b8c6");
    let black_ms = mv["clock"]["black_ms"].as_u64().expect("black_ms");
    assert!((61_000..=61_900).contains(&black_ms), "{mv}");
    assert_eq!(mv["clock"]["white_ms"].as_u64(), Some(white_ms), "{mv}");
    assert_eq!(mv["clock"]["running"], "white", "{mv}");
}

#[tokio::test]
async fn a_waiting_game_does_not_charge_anyone() {
    let server = start().await;
    let (_white, game, _, state) =
        create_timed(&server, human(), json!({"initial_ms":5_000,"increment_ms":0}), None).await;
    assert_eq!(state["clock"]["white_ms"], 5_000);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let mut black = server.client().await;
    black.join(&game, "black").await;
    let state = black.recv_type("state").await;
    assert_eq!(state["clock"]["white_ms"], 5_000, "the clock ran while nobody could play: {state}");
}

#[tokio::test]
async fn a_bot_plays_on_the_clock() {
    let server = start().await;
    let (mut white, game, _, state) =
        create_timed(&server, bot(12), json!({"initial_ms":30_000,"increment_ms":0}), None).await;
    // Both seats are taken at once: the game starts, waiting for White's first move.
    assert_eq!(state["status"], "ongoing");
    assert_eq!(state["clock"]["running"], Value::Null);
    assert!(state["clock"]["first_move_ms"].is_u64(), "{state}");
    white.send(json!({"type":"move","game":game,"uci":"e2e4"})).await;
    white.recv_type("move").await;
    let reply = white.recv_type("move").await;
    // White's first move cost nothing; the computer's time runs from its first move (it needs
    // no grace, and its clock ends a game whose engine stops answering).
    assert_eq!(reply["clock"]["white_ms"], 30_000, "{reply}");
    let black_ms = reply["clock"]["black_ms"].as_u64().expect("black_ms");
    // Level 12 thinks no longer than a twentieth of its time left (and the test config's 150 ms).
    assert!((28_400..30_000).contains(&black_ms), "{reply}");
    assert_eq!(reply["clock"]["running"], "white");
}

/// A premove is played by the client the moment its turn comes: it costs nothing. A move that
/// only claims to be one, sent after a long think, is credited no more than the lag bound.
#[tokio::test]
async fn a_premove_costs_nothing_and_a_false_claim_at_most_the_bound() {
    let server = start().await;
    let (mut white, mut black, game) =
        timed_human_game(&server, json!({"initial_ms":60_000,"increment_ms":0}), None).await;
    first_moves(&mut white, &mut black, &game, ["e2e4", "e7e5"]).await;
    white.send(json!({"type":"move","game":game,"uci":"g1f3"})).await;
    move_of(&mut black, "g1f3").await;
    // Black's premove, sent as soon as White's move arrived.
    black.send(json!({"type":"move","game":game,"uci":"b8c6","premove":true})).await;
    let mv = move_of(&mut white, "b8c6").await;
    assert_eq!(mv["clock"]["black_ms"], 60_000, "a premove costs nothing: {mv}");

    // White "premoves" after thinking 2 s: 60+0 starts with a quota of 1.17 s and gains 0.39 s
    // a move, so this move can be credited 1.56 s at most.
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    white.send(json!({"type":"move","game":game,"uci":"f1c4","premove":true})).await;
    let mv = move_of(&mut black, "f1c4").await;
    let white_ms = mv["clock"]["white_ms"].as_u64().expect("white_ms");
    let charged = 60_000 - white_ms.min(60_000);
    assert!(charged >= 2_000 - 1_560, "credited more than the quota: {mv}");
}

/// A byte-for-byte TCP relay to `server` that holds everything `delay` in each direction: a
/// client through it is `2 × delay` of round trip away. Returns its address.
async fn far_away(server: SocketAddr, delay: Duration) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(upstream) = TcpStream::connect(server).await else { return };
            let (client_read, client_write) = client.into_split();
            let (server_read, server_write) = upstream.into_split();
            tokio::spawn(relay(client_read, server_write, delay));
            tokio::spawn(relay(server_read, client_write, delay));
        }
    });
    addr
}

/// Copies `from` to `to`, each chunk `delay` after it was read, in order.
async fn relay(mut from: tokio::net::tcp::OwnedReadHalf, mut to: tokio::net::tcp::OwnedWriteHalf, delay: Duration) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(tokio::time::Instant, Vec<u8>)>();
    tokio::spawn(async move {
        while let Some((due, bytes)) = rx.recv().await {
            tokio::time::sleep_until(due).await;
            if to.write_all(&bytes).await.is_err() {
                return;
            }
        }
    });
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = from.read(&mut buf).await {
        if n == 0 || tx.send((tokio::time::Instant::now() + delay, buf[..n].to_vec())).is_err() {
            return;
        }
    }
}

/// A player 1.2 s of round trip away (measured by the server's pings) is credited that lag,
/// but never more than the quota: 60+0 gains 0.39 s a move and starts with 1.17 s.
#[tokio::test]
async fn lag_is_credited_to_a_far_away_player_within_its_bound() {
    let mut config = test_config();
    config.ping_interval = Duration::from_millis(400);
    let server = start_with(config).await;
    let delay = Duration::from_millis(600);
    let mut white = Client::connect(far_away(server.addr, delay).await).await;
    let (game, _, state) =
        create_on(&mut white, human(), json!({"initial_ms":60_000,"increment_ms":0}), (None, false)).await;
    let mut black = seat_black(server.client().await, &mut white, &game, state).await;
    first_moves(&mut white, &mut black, &game, ["e2e4", "e7e5"]).await;
    // White answers at once each time: all its time is the network's.
    let mut charges = Vec::new();
    let mut before = 60_000;
    for (white_move, black_move) in [("g1f3", "b8c6"), ("f1c4", "g8f6")] {
        white.send(json!({"type":"move","game":game,"uci":white_move})).await;
        let mv = move_of(&mut black, white_move).await;
        let white_ms = mv["clock"]["white_ms"].as_u64().expect("white_ms");
        charges.push(before - white_ms.min(before));
        before = white_ms;
        black.send(json!({"type":"move","game":game,"uci":black_move})).await;
        move_of(&mut white, black_move).await;
    }
    // The first: 1.2 s of lag, 1.17 s credited. Without compensation it would cost 1.2 s.
    assert!(charges[0] <= 300, "{charges:?}");
    // The second: only the 0.39 s gained since is left to credit; the rest is charged.
    assert!((780..=1_200).contains(&charges[1]), "{charges:?}");
}

#[tokio::test]
async fn bad_clock_settings_are_refused() {
    let server = start().await;
    let mut client = server.client().await;
    let bad = [
        (json!({"initial_ms":0,"increment_ms":0}), "initial_ms"),
        (json!({"initial_ms":999,"increment_ms":0}), "initial_ms"),
        (json!({"initial_ms":10_800_001u64,"increment_ms":0}), "initial_ms"),
        (json!({"initial_ms":60_000,"increment_ms":60_001}), "increment_ms"),
        (json!({"initial_ms":-5,"increment_ms":0}), "invalid value"),
        (json!({"initial_ms":"5m","increment_ms":0}), "invalid type"),
        (json!({"initial_ms":60_000}), "increment_ms"),
    ];
    for (clock, needle) in bad {
        client.send(json!({"type":"create","white":human(),"black":human(),"clock":clock})).await;
        let error = client.expect_error("bad_request").await;
        let message = error["message"].as_str().unwrap_or_default();
        assert!(message.contains(needle), "{clock}: {message}");
    }
    // The connection still works, and the limits themselves are allowed.
    client.send(json!({"type":"create","clock":{"initial_ms":1000,"increment_ms":60_000}})).await;
    let created = client.recv_type("created").await;
    assert!(created["game"].is_string());
}

#[tokio::test]
async fn the_games_list_shows_the_time_control() {
    let server = start().await;
    let (_white, game, _, _) =
        create_timed(&server, human(), json!({"initial_ms":180_000,"increment_ms":2_000}), None).await;
    let mut lister = server.client().await;
    lister.send(json!({"type":"list"})).await;
    let games = lister.recv_type("games").await;
    let line = games["games"].as_array().and_then(|g| g.iter().find(|l| l["game"] == game.as_str())).cloned();
    let line = line.expect("the game is listed");
    assert_eq!(line["clock"], json!({"initial_ms":180_000,"increment_ms":2_000}), "{line}");
}
