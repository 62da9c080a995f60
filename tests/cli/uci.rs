//! `gambit uci` driven through stdin/stdout as a GUI would: handshake, positions, every kind of
//! `go`, `stop`, options, bad input and `quit`. Every read has a timeout, so a hang fails the
//! test instead of blocking it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use gambit::chess::{Game, Rules, Variant};

/// Long enough for any search these tests ask for on a busy machine.
const PATIENCE: Duration = Duration::from_secs(20);

/// A running `gambit uci` with its output read on a thread.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gambit"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start gambit uci");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine { child, stdin, lines }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{line}").and_then(|()| stdin.flush()).expect("write to the engine");
    }

    /// Reads lines until one satisfies `done`; returns them all, that one last.
    fn read_until(&self, timeout: Duration, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let finished = done(&line);
                    seen.push(line);
                    if finished {
                        return seen;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no answer within {timeout:?}; read so far: {seen:#?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("the engine closed its output; read: {seen:#?}"),
            }
        }
    }

    /// Lines that arrive within `wait`, expecting no particular end.
    fn drain(&self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            seen.push(line);
        }
        seen
    }

    /// Reads up to the `bestmove` line; returns its move and the lines before it.
    fn bestmove(&self, timeout: Duration) -> (String, Vec<String>) {
        let mut lines = self.read_until(timeout, |l| l.starts_with("bestmove"));
        let last = lines.pop().unwrap_or_default();
        let mv = last.split_whitespace().nth(1).unwrap_or_default().to_string();
        (mv, lines)
    }

    fn is_ready(&mut self) {
        self.send("isready");
        self.read_until(PATIENCE, |l| l == "readyok");
    }

    /// Closes the engine's input after `last` (if any) and waits for it to exit.
    fn finish(mut self, last: Option<&str>) -> (ExitStatus, Vec<String>) {
        if let Some(line) = last {
            self.send(line);
        }
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for the engine") {
                return (status, self.drain(Duration::from_millis(200)));
            }
            assert!(Instant::now() < deadline, "the engine did not exit");
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // A failed test must not leave an engine running.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The game after `moves` from `fen` (the variant's start when None).
fn game_after(variant: Variant, fen: Option<&str>, moves: &[&str]) -> Game {
    let mut game = Game::from_fen(variant, fen.unwrap_or(variant.initial_fen()), Rules::default()).expect("valid FEN");
    for m in moves {
        game.play_uci(m).expect("legal move in the test's own line");
    }
    game
}

fn assert_legal(variant: Variant, fen: Option<&str>, moves: &[&str], best: &str) {
    let mut game = game_after(variant, fen, moves);
    assert!(game.play_uci(best).is_ok(), "bestmove {best} is not legal after {moves:?} in {variant}");
}

/// The value after `key` in an info line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut tokens = line.split_whitespace();
    tokens.by_ref().find(|&t| t == key)?;
    tokens.next()
}

#[test]
fn handshake() {
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.read_until(PATIENCE, |l| l == "uciok");
    assert!(lines.iter().any(|l| l.starts_with("id name gambit ")), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author ")), "{lines:?}");
    for option in [
        "option name Level type spin default 12 min 1 max 12",
        "option name Hash type spin default 16 min 1 max 1024",
        "option name Clear Hash type button",
        "option name MultiPV type spin default 1 min 1 max 64",
        "option name Contempt type spin default 50 min -100 max 100",
        "option name UCI_LimitStrength type check default false",
    ] {
        assert!(lines.contains(&option.to_string()), "{option}: {lines:?}");
    }
    assert!(lines.iter().any(|l| l.starts_with("option name UCI_Elo type spin")), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("option name UCI_Variant type combo") && l.contains("var minichess7")));
    engine.send("isready");
    assert_eq!(engine.read_until(PATIENCE, |l| l == "readyok"), ["readyok"]);
    let (status, _) = engine.finish(Some("quit"));
    assert!(status.success());
}

#[test]
fn position_with_moves_then_go_depth() {
    let mut engine = Engine::start();
    engine.send("ucinewgame");
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go depth 3");
    let (best, lines) = engine.bestmove(PATIENCE);
    assert_legal(Variant::Standard, None, &["e2e4", "e7e5"], &best);
    let depths: Vec<&str> = lines.iter().filter_map(|l| field(l, "depth")).collect();
    assert_eq!(depths, ["1", "2", "3"], "one info line per iteration: {lines:?}");
}

#[test]
fn go_movetime_answers_in_time_with_info_lines() {
    let mut engine = Engine::start();
    engine.is_ready();
    let moves = ["d2d4", "g8f6", "c2c4"];
    engine.send(&format!("position fen {} moves {}", Variant::Standard.initial_fen(), moves.join(" ")));
    let started = Instant::now();
    engine.send("go movetime 100");
    let (best, lines) = engine.bestmove(Duration::from_secs(2));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_legal(Variant::Standard, None, &moves, &best);
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
    assert!(!infos.is_empty(), "no info lines: {lines:?}");
    for info in &infos {
        for key in ["depth", "seldepth", "score", "nodes", "nps", "time", "pv"] {
            assert!(field(info, key).is_some(), "{key} missing in {info}");
        }
        assert!(matches!(field(info, "score"), Some("cp" | "mate")), "{info}");
        // The principal variation is a legal line from the position.
        let pv: Vec<&str> = info.split_whitespace().skip_while(|&t| t != "pv").skip(1).collect();
        let mut game = game_after(Variant::Standard, None, &moves);
        for m in &pv {
            assert!(game.play_uci(m).is_ok(), "pv move {m} is illegal in {info}");
        }
    }
    // The last line's first pv move is the move played.
    let last_pv = infos.last().and_then(|l| field(l, "pv"));
    assert_eq!(last_pv, Some(best.as_str()));
}

#[test]
fn go_with_a_clock() {
    let mut engine = Engine::start();
    engine.send("position startpos moves e2e4");
    let started = Instant::now();
    // Black has 3 s: the engine must take well under that.
    engine.send("go wtime 60000 btime 3000 winc 0 binc 0");
    let (best, _) = engine.bestmove(Duration::from_secs(3));
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_legal(Variant::Standard, None, &["e2e4"], &best);
    engine.send("go wtime 60000 btime 50 movestogo 1");
    let (best, _) = engine.bestmove(Duration::from_secs(2));
    assert_legal(Variant::Standard, None, &["e2e4"], &best);
}

#[test]
fn go_nodes() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go nodes 5000");
    let (best, lines) = engine.bestmove(PATIENCE);
    assert_legal(Variant::Standard, None, &[], &best);
    for nodes in lines.iter().filter_map(|l| field(l, "nodes")) {
        assert!(nodes.parse::<u64>().unwrap() <= 5000 + 1024, "{lines:?}");
    }
}

#[test]
fn stop_ends_go_infinite_at_once() {
    let mut engine = Engine::start();
    engine.send("position startpos moves e2e4 c7c5");
    engine.send("go infinite");
    let early = engine.drain(Duration::from_millis(500));
    assert!(!early.iter().any(|l| l.starts_with("bestmove")), "answered before stop: {early:?}");
    // isready is answered during the search.
    engine.send("isready");
    engine.read_until(Duration::from_secs(1), |l| l == "readyok");
    let stopped = Instant::now();
    engine.send("stop");
    let (best, _) = engine.bestmove(Duration::from_secs(1));
    assert!(stopped.elapsed() < Duration::from_secs(1));
    assert_legal(Variant::Standard, None, &["e2e4", "c7c5"], &best);
    // Exactly one bestmove per go: a second stop says nothing.
    engine.send("stop");
    engine.send("isready");
    let after = engine.read_until(PATIENCE, |l| l == "readyok");
    assert_eq!(after, ["readyok"]);
}

#[test]
fn go_infinite_waits_for_stop_even_after_finding_mate() {
    let mut engine = Engine::start();
    let fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
    engine.send(&format!("position fen {fen}"));
    engine.send("go infinite");
    let early = engine.drain(Duration::from_millis(500));
    assert!(early.iter().any(|l| l.contains("score mate 1")), "{early:?}");
    assert!(!early.iter().any(|l| l.starts_with("bestmove")), "UCI: infinite answers only after stop: {early:?}");
    engine.send("stop");
    let (best, _) = engine.bestmove(Duration::from_secs(1));
    assert_eq!(best, "a1a8");
}

#[test]
fn every_level_answers() {
    let mut engine = Engine::start();
    for level in gambit::bots::Level::ALL.map(|l| l.get()) {
        engine.send(&format!("setoption name Level value {level}"));
        engine.send("position startpos moves g1f3");
        engine.send("go movetime 100");
        let (best, lines) = engine.bestmove(Duration::from_secs(5));
        assert_legal(Variant::Standard, None, &["g1f3"], &best);
        assert!(!lines.iter().any(|l| l.starts_with("info string")), "level {level}: {lines:?}");
    }
    // Level 1 answers at once whatever the limit.
    engine.send("setoption name level value 1");
    let started = Instant::now();
    engine.send("go movetime 5000");
    let (best, _) = engine.bestmove(PATIENCE);
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_legal(Variant::Standard, None, &["g1f3"], &best);
}

#[test]
fn bad_input_is_explained_and_changes_nothing() {
    let mut engine = Engine::start();
    engine.send("position startpos moves e2e4");
    for (bad, says) in [
        ("flubber 42", "unknown command"),
        ("setoption name Level value 13", "Level"),
        ("setoption name Level value high", "Level"),
        ("setoption name Level", "needs a value"),
        ("setoption name Threads value 4", "unknown option"),
        ("setoption name Contempt value 500", "Contempt"),
        ("setoption name Hash value 0", "Hash"),
        ("setoption name Hash value 4096", "Hash"),
        ("setoption name MultiPV value 0", "MultiPV"),
        ("setoption name MultiPV value many", "MultiPV"),
        ("setoption name UCI_Elo value 100", "UCI_Elo"),
        ("setoption name UCI_Elo value 9000", "UCI_Elo"),
        ("setoption name UCI_LimitStrength value maybe", "UCI_LimitStrength"),
        ("setoption name UCI_Variant value crazyhouse", "UCI_Variant"),
        ("position fen garbage", "FEN"),
        ("position fen", "FEN"),
        ("position startpos moves e7e5 e2e4", "e7e5"),
        ("position startpos moves e2e4 e7e5 e1e3", "e1e3"),
        ("position startpos moves e2e4 zz99", "zz99"),
        ("position sideways", "startpos"),
        ("debug sideways", "debug"),
    ] {
        engine.send(bad);
        let lines = engine.read_until(PATIENCE, |l| l.starts_with("info string"));
        assert!(lines.last().is_some_and(|l| l.contains(says)), "{bad}: {lines:?}");
        engine.is_ready();
    }
    // Empty lines and stray bytes are ignored.
    engine.send("");
    engine.send("   \t ");
    engine.stdin.as_mut().unwrap().write_all(b"\xff\xfe\n").unwrap();
    engine.read_until(PATIENCE, |l| l.starts_with("info string unknown command"));
    engine.is_ready();
    // The position is still the one after e2e4, and the level still 8 (it prints info lines).
    engine.send("go depth 2");
    let (best, lines) = engine.bestmove(PATIENCE);
    assert_legal(Variant::Standard, None, &["e2e4"], &best);
    assert!(lines.iter().any(|l| l.starts_with("info depth")), "{lines:?}");
    // UCI: unknown tokens before a command are skipped.
    engine.send("joho isready");
    engine.read_until(PATIENCE, |l| l == "readyok");
    let (status, _) = engine.finish(Some("quit"));
    assert!(status.success());
}

#[test]
fn minichess7_through_uci_variant() {
    let mut engine = Engine::start();
    engine.send("setoption name UCI_Variant value minichess7");
    engine.send("position startpos moves b2b3");
    engine.send("go depth 3");
    let (best, _) = engine.bestmove(PATIENCE);
    assert_legal(Variant::Minichess7, None, &["b2b3"], &best);
    engine.send("setoption name Level value 2");
    engine.send("position startpos");
    engine.send("go movetime 50");
    let (best, _) = engine.bestmove(PATIENCE);
    assert_legal(Variant::Minichess7, None, &[], &best);
    // Back to standard chess under its UCI name.
    engine.send("setoption name UCI_Variant value chess");
    engine.send("position startpos");
    engine.send("go depth 1");
    let (best, _) = engine.bestmove(PATIENCE);
    assert_legal(Variant::Standard, None, &[], &best);
}

#[test]
fn no_legal_move_answers_0000() {
    let mut engine = Engine::start();
    for level in [8, 5, 1] {
        engine.send(&format!("setoption name Level value {level}"));
        // Fool's mate: White is checkmated.
        engine.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
        engine.send("go movetime 100");
        assert_eq!(engine.bestmove(PATIENCE).0, "0000");
        // Stalemate.
        engine.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
        engine.send("go depth 4");
        assert_eq!(engine.bestmove(PATIENCE).0, "0000");
    }
}

#[test]
fn play_goes_on_after_a_threefold_repetition() {
    // The rules core would call this game drawn; a GUI that does not claim it plays on.
    let moves = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8", "e2e4"];
    let mut engine = Engine::start();
    engine.send(&format!("position startpos moves {}", moves.join(" ")));
    engine.send("go depth 3");
    let (best, lines) = engine.bestmove(PATIENCE);
    assert!(!lines.iter().any(|l| l.starts_with("info string")), "{lines:?}");
    let mut game = Game::new(Variant::Standard);
    for m in moves[..8].iter() {
        game.play_uci(m).unwrap();
    }
    assert!(game.is_over());
    let after = game_after(Variant::Standard, None, &["e2e4"]);
    assert!(after.position().parse_uci(&best).is_ok(), "{best}");
    // Drawn by the fifty-move rule, or dead drawn, but there are moves: the engine gives one.
    for fen in ["4k3/8/8/8/8/8/8/R3K3 w - - 100 90", "8/8/8/4k3/8/8/8/4K3 w - - 0 1"] {
        engine.send(&format!("position fen {fen}"));
        engine.send("go movetime 50");
        let (best, _) = engine.bestmove(PATIENCE);
        let pos = gambit::chess::Position::from_fen(fen, Variant::Standard).unwrap();
        assert!(pos.parse_uci(&best).is_ok(), "{fen}: {best}");
    }
}

#[test]
fn quit_during_a_search_answers_then_exits() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go infinite");
    thread::sleep(Duration::from_millis(200));
    let (status, lines) = engine.finish(Some("quit"));
    assert!(status.success(), "{status:?}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("bestmove")).count(), 1, "{lines:?}");
}

#[test]
fn end_of_input_is_quit() {
    let mut engine = Engine::start();
    engine.send("uci");
    engine.read_until(PATIENCE, |l| l == "uciok");
    let (status, _) = engine.finish(None);
    assert!(status.success(), "{status:?}");
}

/// The `multipv` index of an info line, if it has one.
fn multipv(line: &str) -> Option<u32> {
    field(line, "multipv").and_then(|n| n.parse().ok())
}

#[test]
fn multipv_reports_that_many_lines_each_with_a_score_and_a_pv() {
    let mut engine = Engine::start();
    engine.send("setoption name MultiPV value 3");
    engine.send("position startpos moves e2e4");
    engine.send("go depth 4");
    let (best, lines) = engine.bestmove(PATIENCE);
    assert_legal(Variant::Standard, None, &["e2e4"], &best);
    let last_depth: Vec<&String> = lines.iter().filter(|l| field(l, "depth") == Some("4")).collect();
    let indexes: Vec<u32> = last_depth.iter().filter_map(|l| multipv(l)).collect();
    assert_eq!(indexes, [1, 2, 3], "{lines:?}");
    let mut firsts = Vec::new();
    for line in &last_depth {
        for key in ["seldepth", "score", "nodes", "nps", "time", "pv"] {
            assert!(field(line, key).is_some(), "{key} missing in {line}");
        }
        firsts.push(field(line, "pv").unwrap_or_default().to_string());
    }
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "three different first moves: {last_depth:?}");
    // The best line's first move is the move played.
    assert_eq!(firsts[0], best, "{last_depth:?}");
    // Back to one line: no multipv field.
    engine.send("setoption name MultiPV value 1");
    engine.send("go depth 3");
    let (_, lines) = engine.bestmove(PATIENCE);
    assert!(lines.iter().filter(|l| l.starts_with("info depth")).all(|l| multipv(l).is_none()), "{lines:?}");
}

#[test]
fn hash_and_clear_hash_keep_the_engine_answering() {
    let mut engine = Engine::start();
    engine.send("setoption name Hash value 1");
    engine.send("position startpos");
    engine.send("go depth 4");
    let (first, _) = engine.bestmove(PATIENCE);
    engine.send("setoption name Hash value 64");
    engine.send("setoption name Clear Hash");
    engine.is_ready();
    engine.send("go depth 4");
    let (again, lines) = engine.bestmove(PATIENCE);
    assert_legal(Variant::Standard, None, &[], &again);
    assert!(!lines.iter().any(|l| l.starts_with("info string")), "{lines:?}");
    assert_legal(Variant::Standard, None, &[], &first);
}

#[test]
fn uci_elo_plays_the_level_of_that_rating() {
    // A weak rating under UCI_LimitStrength plays the lowest level, which answers at once
    // (level 1 is random) even when given five seconds; without the limit the full engine
    // prints its info lines.
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.read_until(PATIENCE, |l| l == "uciok");
    let elo = lines.iter().find(|l| l.starts_with("option name UCI_Elo")).expect("UCI_Elo offered").clone();
    let min = field(&elo, "min").expect("a minimum").to_string();
    engine.send(&format!("setoption name UCI_Elo value {min}"));
    engine.send("setoption name UCI_LimitStrength value true");
    engine.send("position startpos");
    let started = Instant::now();
    engine.send("go movetime 5000");
    let (best, lines) = engine.bestmove(PATIENCE);
    assert!(started.elapsed() < Duration::from_secs(2), "level 1 thinks no time");
    assert!(!lines.iter().any(|l| l.starts_with("info depth")), "{lines:?}");
    assert_legal(Variant::Standard, None, &[], &best);
    engine.send("setoption name UCI_LimitStrength value false");
    engine.send("go depth 3");
    let (_, lines) = engine.bestmove(PATIENCE);
    assert!(lines.iter().any(|l| l.starts_with("info depth 3")), "{lines:?}");
}
