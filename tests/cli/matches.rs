//! `gambit match` through the binary: the report's shape, the PGN file, and one-line errors.

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Output};

use gambit::chess::{Game, Variant};

fn gambit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gambit")).args(args).output().expect("run gambit")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A path in the temp directory that no other test (or test run) uses.
fn temp_file(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("gambit-match-{}-{name}", std::process::id()))
}

/// The numbers of "(W/D/L w/d/l)".
fn wdl(report: &str) -> (u32, u32, u32) {
    let start = report.find("(W/D/L ").expect("a W/D/L count") + "(W/D/L ".len();
    let end = start + report[start..].find(')').expect("closing parenthesis");
    let n: Vec<u32> = report[start..end].split('/').map(|n| n.parse().expect("a number")).collect();
    (n[0], n[1], n[2])
}

const SHORT: &[&str] = &["match", "--white", "level1", "--black", "dummy", "--games", "4", "--variant", "minichess7"];

#[test]
fn a_short_match_prints_the_report() {
    let out = gambit(&[SHORT, &["--seed", "1"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("level1 vs dummy, minichess7, 4 games, movetime 100 ms, seed 1"), "{text}");
    assert!(lines[1].starts_with("level1: "), "{text}");
    let (w, d, l) = wdl(lines[1]);
    assert_eq!(w + d + l, 4);
    assert!(lines[1].contains("score "), "{text}");
    assert!(lines[2].starts_with("Elo difference: ") && lines[2].contains("(95% interval "), "{text}");
    let endings = lines.iter().find(|l| l.starts_with("Endings: ")).expect("an Endings line");
    let counted: u32 = endings["Endings: ".len()..]
        .split(", ")
        .map(|part| part.rsplit_once(' ').expect("name count").1.parse::<u32>().expect("a count"))
        .sum();
    assert_eq!(counted, 4, "{endings}");
    // Not a terminal: no progress bar, nothing on stderr.
    assert_eq!(stderr(&out), "");
}

#[test]
fn a_seed_replays_the_match() {
    let args = [SHORT, &["--seed", "42"]].concat();
    assert_eq!(stdout(&gambit(&args)), stdout(&gambit(&args)));
    let threaded = [&args[..], &["--concurrency", "3"]].concat();
    assert_eq!(stdout(&gambit(&args)), stdout(&gambit(&threaded)));
}

/// Splits a PGN file into games and replays each one's movetext; returns (result tag, moves).
fn replay(pgn: &str, variant: Variant) -> Vec<(String, Game)> {
    let mut games = Vec::new();
    for chunk in pgn.split("[Event ").skip(1) {
        let result = chunk
            .lines()
            .find_map(|l| l.strip_prefix("[Result \"").and_then(|r| r.strip_suffix("\"]")))
            .expect("a Result tag")
            .to_string();
        let movetext = chunk.split("\n\n").nth(1).expect("movetext after the tags");
        let mut game = Game::new(variant);
        let mut tokens: Vec<&str> = movetext.split_whitespace().collect();
        assert_eq!(tokens.pop(), Some(result.as_str()), "movetext ends with the result");
        for token in tokens {
            if token.ends_with('.') {
                continue;
            }
            game.play_san(token).unwrap_or_else(|e| panic!("{token}: {e}\n{chunk}"));
        }
        games.push((result, game));
    }
    games
}

#[test]
fn pgn_holds_every_game() {
    for (variant, white, black) in [("minichess7", "level1", "dummy"), ("standard", "greedy", "random")] {
        let path = temp_file(&format!("{variant}.pgn"));
        let path_text = path.to_str().expect("a UTF-8 temp path");
        let out = gambit(&[
            "match",
            "--white",
            white,
            "--black",
            black,
            "--games",
            "4",
            "--variant",
            variant,
            "--seed",
            "7",
            "--pgn",
            path_text,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let pgn = std::fs::read_to_string(&path).expect("the PGN file");
        let _ = std::fs::remove_file(&path);
        assert_eq!(pgn.matches("[Event \"gambit match\"]").count(), 4, "{pgn}");
        for round in 1..=4 {
            assert!(pgn.contains(&format!("[Round \"{round}\"]")));
        }
        // Colours alternate: the first player is White in rounds 1 and 3.
        assert_eq!(pgn.matches(&format!("[White \"{white}\"]")).count(), 2);
        assert_eq!(pgn.matches(&format!("[Black \"{white}\"]")).count(), 2);
        let games = replay(&pgn, variant.parse().unwrap());
        assert_eq!(games.len(), 4);
        let (mut w, mut d, mut l) = (0, 0, 0);
        for (i, (result, game)) in games.iter().enumerate() {
            assert!(["1-0", "0-1", "1/2-1/2"].contains(&result.as_str()), "{result}");
            // The moves replay to the recorded result, or to the 300-ply adjudication.
            match game.outcome() {
                Some(outcome) => assert_eq!(outcome.result(), result),
                None => assert!(game.ply() >= 300 && result == "1/2-1/2", "game {} unfinished", i + 1),
            }
            let first_is_white = i % 2 == 0;
            match (result.as_str(), first_is_white) {
                ("1/2-1/2", _) => d += 1,
                ("1-0", true) | ("0-1", false) => w += 1,
                _ => l += 1,
            }
        }
        // Pairs share an opening: games 1 and 2 begin with the same moves.
        let opening = |g: &Game| g.history().iter().take(4).map(|p| p.mv).collect::<Vec<_>>();
        assert_eq!(opening(&games[0].1), opening(&games[1].1));
        assert_eq!(wdl(&stdout(&out)), (w, d, l), "the report matches the PGN");
    }
}

#[test]
fn bad_arguments_give_one_line_and_exit_2() {
    let unwritable = "/nonexistent-gambit-dir/games.pgn";
    let cases: &[&[&str]] = &[
        &["match", "--white", "level13", "--black", "dummy", "--games", "2"],
        &["match", "--white", "level1", "--black", "minimax", "--games", "2"],
        &["match", "--white", "uci:", "--black", "dummy", "--games", "2"],
        &["match", "--white", "uci:/bin/x,Skill Level", "--black", "dummy", "--games", "2"],
        &["match", "--white", "uci:/nonexistent/engine", "--black", "dummy", "--games", "2"],
        &["match", "--white", "level1", "--black", "dummy", "--games", "0"],
        &["match", "--white", "level1", "--black", "dummy", "--games", "-3"],
        &["match", "--white", "level1", "--black", "dummy"],
        &["match", "--white", "level1", "--games", "2"],
        &["match", "--white", "level1", "--black", "dummy", "--games", "2", "--variant", "atomic"],
        &["match", "--white", "level1", "--black", "dummy", "--games", "2", "--movetime", "0"],
        &["match", "--white", "level1", "--black", "dummy", "--games", "2", "--nodes", "0"],
        &["match", "--white", "level1", "--black", "dummy", "--games", "2", "--nodes", "many"],
        &["match", "--white", "level1", "--black", "dummy", "--games", "2", "--pgn", unwritable],
    ];
    for args in cases {
        let out = gambit(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
        assert!(err.starts_with("error: "), "{args:?}: {err:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
    }
    let out = gambit(&["match", "--white", "level13", "--black", "dummy", "--games", "2"]);
    assert_eq!(
        stderr(&out),
        "error: unknown player \"level13\": expected level1..level12, dummy, random, greedy, smart, minimax4, skill:DEPTH,LINES,WEAKNESS, uci:PATH[,Name=Value...] or gambit:PATH|@COMMIT[,Name=Value...]\n"
    );
    let out = gambit(&["match", "--white", "level1", "--black", "dummy", "--games", "2", "--pgn", unwritable]);
    assert!(stderr(&out).contains(unwritable));
}

const STOCKFISH: &str = "/usr/games/stockfish";

/// A node budget makes every search the same however busy the machine is and however games
/// are spread over threads: full strength (level 12) and Stockfish (told `go nodes`) replay their games move
/// for move, which no time budget would.
#[test]
fn a_node_budget_replays_levels_and_engines() {
    if !common::installed(STOCKFISH) {
        return;
    }
    let run = |name: &str, concurrency: &str| {
        let pgn = temp_file(name);
        let white = "level12".to_string();
        // Full strength: a limited Stockfish picks its weaker moves by a clock-seeded random number.
        let black = format!("uci:{STOCKFISH},Threads=1,Hash=16");
        let args = ["match", "--white", &white, "--black", &black, "--games", "2", "--nodes", "2000", "--seed", "9"];
        let out = gambit(&[&args[..], &["--concurrency", concurrency, "--pgn", pgn.to_str().unwrap()]].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        let games = std::fs::read_to_string(&pgn).expect("the PGN file");
        let _ = std::fs::remove_file(&pgn);
        (stdout(&out), games)
    };
    let (report, games) = run("nodes-1", "1");
    assert!(report.lines().next().unwrap().ends_with(", 2 games, 2000 nodes a move, seed 9"), "{report}");
    assert!(!report.contains("Forfeits"), "{report}");
    assert_eq!(replay(&games, Variant::Standard).len(), 2);
    assert_eq!(run("nodes-2", "2"), (report, games));
}

/// `gambit:PATH` plays this very binary as `gambit uci`; `gambit:@COMMIT` finds the build of a
/// commit in target/match-builds/ (put there by hand here, so that the test builds nothing)
/// and names an unknown commit in one line.
#[test]
fn another_gambit_plays_through_its_uci() {
    let me = env!("CARGO_BIN_EXE_gambit");
    let white = format!("gambit:{me},Level=2");
    let out =
        gambit(&["match", "--white", &white, "--black", "level1", "--games", "2", "--seed", "3", "--movetime", "20"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = stdout(&out);
    assert!(report.starts_with(&format!("{white} vs level1, standard, 2 games")), "{report}");
    let (w, d, l) = wdl(&report);
    assert_eq!(w + d + l, 2, "{report}");

    let head = Command::new("git").args(["rev-parse", "HEAD"]).output().expect("git");
    let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
    if head.len() == 40 {
        let release =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/match-builds").join(&head).join("target/release");
        std::fs::create_dir_all(&release).expect("the build folder");
        std::fs::copy(me, release.join("gambit")).expect("a binary in place of the build");
        let out = gambit(&[
            "match",
            "--white",
            "gambit:@HEAD,Level=1",
            "--black",
            "level1",
            "--games",
            "2",
            "--movetime",
            "20",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stdout(&out).starts_with("gambit:@HEAD,Level=1 vs level1"), "{}", stdout(&out));
        assert!(!stderr(&out).contains("building"), "the build is found, not made again: {}", stderr(&out));
        std::fs::remove_dir_all(release.parent().and_then(|p| p.parent()).expect("the commit's folder")).ok();
    }
    for (bad, says) in
        [("gambit:@no-such-commit-here", "no such commit"), ("gambit:/nonexistent/gambit", "no gambit binary")]
    {
        let out = gambit(&["match", "--white", bad, "--black", "level1", "--games", "2"]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
        assert!(stderr(&out).contains(says) && stderr(&out).lines().count() == 1, "{bad}: {}", stderr(&out));
    }
}
