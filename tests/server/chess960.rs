//! Chess960 over real sockets: a game between two people from start 272 with castling on both
//! wings (the king landing on its rook's square, and a rook that stays put), a game against
//! every level castling both ways (the second after an undo of the first), bots playing it to the end, the
//! random start, the PGN read back by python-chess, and the refusals.

use crate::server_support;

use serde_json::{json, Value};
use server_support::{bot, human, start, Client, Server};

use gambit::chess::StartPosition;

/// Start 272, BBNRKNRQ: the king on e1 between rooks on d1 and g1.
const START_272: &str = "bbnrknrq/pppppppp/8/8/8/8/PPPPPPPP/BBNRKNRQ w KQkq - 0 1";

/// Creates a Chess960 game with these seats (and `fen`, if given); returns the game and the
/// creator's first state.
async fn create(client: &mut Client, white: Value, black: Value, fen: Option<&str>) -> (String, Value) {
    let mut message = json!({"type":"create","variant":"chess960","white":white,"black":black,"as":"white"});
    if let Some(fen) = fen {
        message["fen"] = json!(fen);
    }
    client.send(message).await;
    let game = client.recv_type("created").await["game"].as_str().expect("a game id").to_string();
    let state = client.recv_type("state").await;
    assert_eq!(state["variant"], "chess960", "{state}");
    (game, state)
}

fn legal(state: &Value) -> Vec<String> {
    state["legal"].as_array().expect("legal moves").iter().filter_map(|m| m.as_str().map(str::to_string)).collect()
}

/// python-chess reads the PGN as a Chess960 game and replays it to `fen`.
async fn python_chess_reads(server: &Server, game: &str, fen: &str) {
    let (status, pgn) = server.get(&format!("/api/games/{game}/pgn")).await;
    assert_eq!(status, 200, "{pgn}");
    assert!(pgn.contains("[Variant \"Chess960\"]") && pgn.contains("[SetUp \"1\"]"), "{pgn}");
    if !crate::api::python_clients() {
        return;
    }
    let script = "import chess.pgn, io, sys\n\
                  game = chess.pgn.read_game(io.StringIO(sys.stdin.read()))\n\
                  assert not game.errors, game.errors\n\
                  board = game.board()\n\
                  assert board.chess960, 'not read as Chess960'\n\
                  for move in game.mainline_moves():\n    board.push(move)\n\
                  print(board.fen())\n";
    let mut child = tokio::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    use tokio::io::AsyncWriteExt;
    child.stdin.take().expect("stdin").write_all(pgn.as_bytes()).await.expect("written");
    let output = child.wait_with_output().await.expect("python3 ran");
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "python-chess could not read:\n{pgn}\n{err}");
    assert_eq!(out.trim(), fen, "python-chess replayed\n{pgn}");
}

#[tokio::test]
async fn two_people_castle_on_both_wings() {
    let server = start().await;
    let mut white = server.client().await;
    let (game, state) = create(&mut white, human(), human(), Some(START_272)).await;
    assert_eq!(state["fen"], START_272);
    let mut black = server.client().await;
    black.join(&game, "black").await;
    black.recv_type("state").await;
    white.recv_type("seats").await;

    white.play(&game, "f1g3").await;
    let after = black.play(&game, "c8b6").await;
    // O-O is the king taking its own rook on g1, where the king lands; the rook goes to f1.
    assert!(legal(&after).contains(&"e1g1".to_string()), "{after}");
    let castled = white.play(&game, "e1g1").await;
    assert_eq!(castled["san"], "O-O", "{castled}");
    assert_eq!(castled["fen"], "bb1rknrq/pppppppp/1n6/8/8/6N1/PPPPPPPP/BBNR1RKQ b kq - 3 2");
    // O-O-O from e8 with the rook on d8: the king goes to c8 and the rook stays where it is.
    let castled = black.play(&game, "e8d8").await;
    assert_eq!(castled["san"], "O-O-O", "{castled}");
    assert_eq!(castled["fen"], "bbkr1nrq/pppppppp/1n6/8/8/6N1/PPPPPPPP/BBNR1RKQ w - - 4 3");
    assert_eq!(castled["uci"], "e8d8");

    python_chess_reads(&server, &game, "bbkr1nrq/pppppppp/1n6/8/8/6N1/PPPPPPPP/BBNR1RKQ w - - 4 3").await;
}

/// Rooks on b1 and g1 with the king on e1; Black's king and pawns cannot reach the first rank
/// in the few moves a level makes here, so both castlings stay legal whatever it plays.
const BOTH_WINGS: &str = "4k3/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w KQ - 0 1";

#[tokio::test]
async fn a_person_castles_both_ways_against_every_level() {
    let server = start().await;
    for level in gambit::bots::Level::ALL.map(|l| l.get()) {
        let mut me = server.client().await;
        let (game, state) = create(&mut me, human(), bot(level), Some(BOTH_WINGS)).await;
        assert!(legal(&state).contains(&"e1g1".to_string()) && legal(&state).contains(&"e1b1".to_string()), "{state}");
        // Castle short (the king onto the g1 rook, where it lands), take it back, castle long.
        let castled = me.play(&game, "e1g1").await;
        assert_eq!(castled["san"], "O-O", "level {level}");
        me.recv_type("move").await;
        me.send(json!({"type":"undo","game":game})).await;
        let state = me.recv_type("state").await;
        assert_eq!(state["fen"], BOTH_WINGS, "level {level}: the undo restores the start");
        let castled = me.play(&game, "e1b1").await;
        assert_eq!(castled["san"], "O-O-O", "level {level}");
        let board = castled["fen"].as_str().and_then(|f| f.split(' ').next()).unwrap_or_default();
        assert!(board.ends_with("/2KR2R1"), "level {level}: {castled}");
        let reply = me.recv_type("move").await;
        assert_eq!(reply["turn"], "white", "level {level} answers O-O-O: {reply}");
    }
}

#[tokio::test]
async fn bots_play_a_random_start_to_the_end() {
    let server = start().await;
    let mut watcher = server.client().await;
    watcher.send(json!({"type":"create","variant":"chess960","white":bot(2),"black":bot(3)})).await;
    watcher.recv_type("created").await;
    let state = watcher.recv_type("state").await;
    let start = state["fen"].as_str().expect("a FEN").to_string();
    assert!(StartPosition::of_board(&start).is_some(), "not a Chess960 start: {start}");
    assert!(start.ends_with(" w KQkq - 0 1"), "{start}");
    let end = loop {
        let m = watcher.recv().await;
        if m["type"] == "end" {
            break m;
        }
    };
    assert!(["1-0", "0-1", "1/2-1/2"].contains(&end["result"].as_str().unwrap_or_default()), "{end}");
}

#[tokio::test]
async fn a_lichess_program_plays_chess960_through_berserk() {
    if !crate::api::python_clients() {
        return;
    }
    let server = start().await;
    let (_, token) = crate::api::account_with_token(&server, "Fischer", &["board:play", "challenge:write"]).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/chess960_client.py");
    let run = tokio::process::Command::new("python3").args([script, &server.url(""), &token]).output();
    let output = tokio::time::timeout(std::time::Duration::from_secs(60), run).await.expect("in time").expect("ran");
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success() && out.trim() == "ok", "stdout:\n{out}\nstderr:\n{err}");
}

#[tokio::test]
async fn bad_chess960_requests_change_nothing() {
    let server = start().await;
    let mut me = server.client().await;
    // Standard chess castles only from e1 with the corner rooks.
    me.send(json!({"type":"create","fen":START_272,"white":human(),"black":human(),"as":"white"})).await;
    let refused = me.expect_error("bad_request").await;
    assert!(refused["message"].as_str().is_some_and(|m| m.contains("castling right")), "{refused}");
    // A right for a rook that is not there.
    let fen = "4k3/8/8/8/8/8/8/4K2R w KC - 0 1";
    me.send(json!({"type":"create","variant":"chess960","fen":fen,"white":human(),"black":human()})).await;
    let refused = me.expect_error("bad_request").await;
    assert!(refused["message"].as_str().is_some_and(|m| m.contains("rook on c1")), "{refused}");

    let (game, _) = create(&mut me, human(), bot(1), Some(START_272)).await;
    // The king's two-square step is not how Chess960 castles when it is not legal: here the
    // king may not go to c1 (its knight stands there), and e1e3 is no move at all.
    for bad in ["e1c1", "e1e3", "g1e1"] {
        me.send(json!({"type":"move","game":game,"uci":bad})).await;
        let refused = me.expect_error("illegal_move").await;
        assert!(refused["message"].as_str().is_some_and(|m| m.contains(bad)), "{refused}");
    }
}
