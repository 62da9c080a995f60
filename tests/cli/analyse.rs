//! `gambit analyse` as a user runs it: a PGN written by python-chess (the trusted reference)
//! is analysed, and what it prints is read back by python-chess: the same moves, the hung
//! queen marked `??` ($4), an evaluation on every move. Bad input is a one-line error.

use std::process::Command;

/// python3 with python-chess, or None outside CI when it is missing (CI must have it).
fn python_chess() -> Option<&'static str> {
    let ok = Command::new("python3").args(["-c", "import chess.pgn"]).output().is_ok_and(|o| o.status.success());
    if ok {
        return Some("python3");
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("python-chess is required in CI: pip install chess");
    }
    eprintln!("skipped: python-chess is not installed (pip install chess)");
    None
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gambit-analyse-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

const WRITE: &str = r#"
import sys, chess, chess.pgn
game = chess.pgn.Game()
game.headers["White"] = "Alice"
game.headers["Black"] = "Bob"
node = game
for san in ["e4", "d5", "Qg4", "Bxg4", "Nc3"]:
    node = node.add_variation(node.board().parse_san(san))
print(game, file=open(sys.argv[1], "w"), end="\n\n")
"#;

const CHECK: &str = r#"
import sys, chess, chess.pgn
game = chess.pgn.read_game(open(sys.argv[1]))
assert game is not None and not game.errors, game.errors
moves = [m.uci() for m in game.mainline_moves()]
assert moves == ["e2e4", "d7d5", "d1g4", "c8g4", "b1c3"], moves
nodes = list(game.mainline())
assert 4 in nodes[2].nags, ("the queen move is a blunder", nodes[2].nags)
assert all(n.eval() is not None for n in nodes), [n.comment for n in nodes]
after = nodes[2].eval().white().score(mate_score=100000)
assert after < -500, after
assert game.headers["White"] == "Alice" and game.headers["Annotator"] == "gambit analyse"
print("ok")
"#;

#[test]
fn analyses_a_python_chess_pgn_and_python_chess_reads_the_result() {
    let Some(python) = python_chess() else { return };
    let dir = scratch("roundtrip");
    let input = dir.join("game.pgn");
    let written = Command::new(python).args(["-c", WRITE]).arg(&input).output().expect("python3");
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    let out = Command::new(env!("CARGO_BIN_EXE_gambit"))
        .args(["analyse", "--movetime", "60"])
        .arg(&input)
        .output()
        .expect("gambit analyse");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("2. Qg4 $4 { [%eval "), "{stdout}");
    let annotated = dir.join("annotated.pgn");
    std::fs::write(&annotated, &stdout).expect("write");
    let checked = Command::new(python).args(["-c", CHECK]).arg(&annotated).output().expect("python3");
    assert!(
        checked.status.success() && String::from_utf8_lossy(&checked.stdout).trim() == "ok",
        "python-chess on\n{stdout}\nsaid: {}",
        String::from_utf8_lossy(&checked.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_files_and_bad_games_are_one_line_errors() {
    let dir = scratch("errors");
    let illegal = dir.join("illegal.pgn");
    std::fs::write(&illegal, "[Event \"x\"]\n\n1. e4 e5 2. Ke3 *\n").expect("write");
    let empty = dir.join("empty.pgn");
    std::fs::write(&empty, "\n").expect("write");
    let missing = dir.join("missing.pgn");
    let cases = [
        (vec!["analyse".into(), illegal.display().to_string()], "move 3 (Ke3) cannot be played"),
        (vec!["analyse".into(), empty.display().to_string()], "there is no game in this PGN"),
        (vec!["analyse".into(), missing.display().to_string()], "cannot read"),
        (vec!["analyse".into(), illegal.display().to_string(), "--movetime".into(), "0".into()], "movetime"),
    ];
    for (args, says) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_gambit")).args(&args).output().expect("gambit");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
