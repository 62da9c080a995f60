//! `gambit bot`: one line with a legal UCI move (or `0000` when there is none) for every level in
//! both variants, reproducible with `--seed`, and a one-line error with exit code 2 for bad
//! arguments.

use std::process::{Command, Output};

use gambit::chess::{Position, Variant};

fn gambit_bot(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gambit")).arg("bot").args(args).output().expect("run gambit")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The one move printed by a successful run.
fn printed_move(args: &[&str]) -> String {
    let out = gambit_bot(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: stderr {}", stderr(&out));
    let text = stdout(&out);
    assert!(text.ends_with('\n') && text.lines().count() == 1, "{args:?}: stdout must be one line, got {text:?}");
    text.trim_end_matches('\n').to_string()
}

fn legal_uci(variant: Variant, fen: &str) -> Vec<String> {
    let pos = Position::from_fen(fen, variant).unwrap_or_else(|e| panic!("{fen}: {e}"));
    pos.legal_moves().iter().map(|m| m.to_string()).collect()
}

#[test]
fn every_level_prints_a_legal_move_in_both_variants() {
    let positions = [
        (Variant::Standard, Variant::Standard.initial_fen()),
        (Variant::Standard, "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"),
        (Variant::Minichess7, Variant::Minichess7.initial_fen()),
        (Variant::Minichess7, "3k3/7/2c1a2/3P3/7/1N5/3K3 b - - 0 1"),
    ];
    for (variant, fen) in positions {
        let legal = legal_uci(variant, fen);
        for level in ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"] {
            let mut args = vec!["--level", level, "--variant", variant.name(), "--seed", "7"];
            if fen != variant.initial_fen() {
                args.extend(["--fen", fen]);
            }
            if level.parse::<u8>().is_ok_and(|l| l >= 5) {
                args.extend(["--movetime", "100"]);
            }
            let m = printed_move(&args);
            assert!(legal.contains(&m), "{args:?} printed {m:?}, not a legal move of {fen}");
        }
    }
    // The variant defaults to standard, and the seed is optional.
    let m = printed_move(&["--level", "1"]);
    assert!(legal_uci(Variant::Standard, Variant::Standard.initial_fen()).contains(&m), "{m}");
}

#[test]
fn full_strength_takes_the_mate_from_the_command_line() {
    let m = printed_move(&["--level", "12", "--fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "--movetime", "100"]);
    assert_eq!(m, "a1a8");
    let m = printed_move(&[
        "--level",
        "12",
        "--variant",
        "minichess7",
        "--fen",
        "3k3/7/3K3/7/7/7/C6 w - - 0 1",
        "--movetime",
        "100",
    ]);
    assert_eq!(m, "a1a7");
}

#[test]
fn no_legal_move_prints_0000() {
    let over = [
        (Variant::Standard, "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"),
        (Variant::Standard, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),
        (Variant::Minichess7, "R2k3/7/3K3/7/7/7/7 b - - 0 1"),
        (Variant::Minichess7, "6K/7/7/7/7/pp5/kp5 b - - 0 1"),
        (Variant::Minichess7, "k6/7/2C4/7/7/7/1R1K3 b - - 0 1"),
    ];
    for (variant, fen) in over {
        for level in ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"] {
            let args = ["--level", level, "--variant", variant.name(), "--fen", fen, "--seed", "3"];
            let out = gambit_bot(&args);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
            assert_eq!(stdout(&out), "0000\n", "{args:?}");
            assert_eq!(stderr(&out), "", "{args:?}");
        }
    }
}

#[test]
fn a_seed_makes_levels_1_to_4_reproducible() {
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    for (variant, fen) in [(Variant::Standard, fen), (Variant::Minichess7, Variant::Minichess7.initial_fen())] {
        for level in ["1", "2", "3", "4"] {
            for seed in ["0", "12345", "18446744073709551615"] {
                let args = ["--level", level, "--variant", variant.name(), "--fen", fen, "--seed", seed];
                assert_eq!(printed_move(&args), printed_move(&args), "{args:?}");
            }
        }
    }
    // Different seeds do lead to different moves.
    let moves: std::collections::HashSet<String> =
        (0..12).map(|seed| printed_move(&["--level", "1", "--seed", &seed.to_string()])).collect();
    assert!(moves.len() > 1, "level 1 gave {moves:?} for every seed");
}

#[test]
fn bad_arguments_give_one_error_line_and_exit_2() {
    let cases: &[&[&str]] = &[
        &["--level", "0"],
        &["--level", "13"],
        &["--level", "x"],
        &["--level", "-1"],
        &[],
        &["--seed", "1"],
        &["--level", "1", "--variant", "atomic"],
        &["--level", "1", "--fen", "not a fen"],
        &["--level", "1", "--fen", ""],
        &["--level", "1", "--fen", "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1"],
        &[
            "--level",
            "1",
            "--variant",
            "minichess7",
            "--fen",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ],
        &["--level", "12", "--movetime", "0"],
        &["--level", "5", "--movetime", "abc"],
        &["--level", "5", "--movetime", "-5"],
        &["--level", "1", "--seed", "abc"],
        &["--level", "1", "--bogus"],
        &["--level", "1", "extra"],
    ];
    for &args in cases {
        let out = gambit_bot(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: stdout {:?} stderr {:?}", stdout(&out), stderr(&out));
        assert_eq!(stdout(&out), "", "{args:?}");
        let err = stderr(&out);
        assert!(err.starts_with("error: ") && err.ends_with('\n'), "{args:?}: {err:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
    }
}
