//! The `gambit` binary's outside contract (DESIGN.md §3.1): exact output shapes, and a one-line
//! error with exit code 2 for every bad argument.

use std::process::{Command, Output};

use gambit::chess::{Position, Variant};

fn gambit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gambit")).args(args).output().expect("run gambit")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn perft_prints_the_total() {
    let out = gambit(&["perft", "--depth", "3"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "Nodes searched: 8902\n");
    let out = gambit(&["perft", "--variant", "minichess7", "--depth", "3"]);
    assert_eq!(stdout(&out), "Nodes searched: 2531\n");
    let out = gambit(&["perft", "--depth", "0"]);
    assert_eq!(stdout(&out), "Nodes searched: 1\n");
    // Chess960's published position 0 (Shredder-FEN as published), and its castling king b1a1
    // style: with the rook shielding c1 from the queen on a1, O-O-O is not listed.
    let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    let out = gambit(&["perft", "--variant", "chess960", "--fen", fen, "--depth", "3"]);
    assert_eq!(stdout(&out), "Nodes searched: 12189\n");
    let out = gambit(&[
        "perft",
        "--variant",
        "chess960",
        "--fen",
        "4k3/8/8/8/8/8/8/qR1K4 w B - 0 1",
        "--depth",
        "1",
        "--divide",
    ]);
    assert!(!stdout(&out).contains("d1b1"), "{}", stdout(&out));
    assert!(stdout(&out).ends_with("Nodes searched: 7\n"), "{}", stdout(&out));
}

#[test]
fn divide_lists_exactly_the_legal_moves() {
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let out = gambit(&["perft", "--fen", fen, "--depth", "1", "--divide"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"Nodes searched: 48"));
    let mut listed: Vec<String> = lines[..lines.len() - 1]
        .iter()
        .map(|l| {
            let (uci, n) = l.split_once(": ").expect("<uci>: <nodes>");
            assert_eq!(n, "1");
            uci.to_string()
        })
        .collect();
    let pos = Position::from_fen(fen, Variant::Standard).unwrap();
    let mut legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    listed.sort();
    legal.sort();
    assert_eq!(listed, legal);
    assert!(listed.contains(&"e1g1".to_string()) && listed.contains(&"e1c1".to_string()));

    let out = gambit(&["perft", "--fen", fen, "--depth", "3", "--divide"]);
    let text = stdout(&out);
    let sum: u64 = text.lines().filter_map(|l| l.split_once(": ")).filter_map(|(_, n)| n.parse::<u64>().ok()).sum();
    assert_eq!(text.lines().last(), Some("Nodes searched: 97862"));
    assert_eq!(sum, 2 * 97862, "the divide lines and the total line both add up to the count");
}

#[test]
fn bad_arguments_give_one_line_and_exit_2() {
    let cases: &[&[&str]] = &[
        &["perft"],
        &["perft", "--depth", "abc"],
        &["perft", "--depth", "-1"],
        &["perft", "--depth", "99"],
        &["perft", "--depth", "2", "--variant", "atomic"],
        &["perft", "--depth", "2", "--fen", "not a fen"],
        &["perft", "--depth", "2", "--fen", ""],
        &[
            "perft",
            "--depth",
            "2",
            "--fen",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "--variant",
            "minichess7",
        ],
        &["perft", "--depth", "2", "--fen", "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1"],
        &["perft", "--depth", "2", "--bogus"],
        &["frobnicate"],
        &[],
        &["serve", "--db", ""],
        &["serve", "--db", "/"],
        &["serve", "--listen", "127.0.0.1:0", "--db", "/nonexistent-dir/gambit.db"],
        &["serve", "--db", "postgres://"],
        &["serve", "--db", "postgres://gambit@127.0.0.1:5432"],
        &["serve", "--db", "postgres://gambit@127.0.0.1:notaport/gambit"],
        // Nobody listens on port 1: refused at once, one line, the password not shown.
        &["serve", "--listen", "127.0.0.1:0", "--db", "postgresql://gambit:s3cret@127.0.0.1:1/gambit"],
        // A cluster shares its games in PostgreSQL: not with SQLite, and only with a Redis URL.
        &["serve", "--listen", "127.0.0.1:0", "--db", "games.db", "--cluster", "redis://127.0.0.1:1"],
        &["serve", "--db", "postgres://gambit@127.0.0.1:1/gambit", "--cluster", "http://127.0.0.1:6379"],
        &["serve", "--db", "postgres://gambit@127.0.0.1:1/gambit", "--cluster", "redis://127.0.0.1:1", "--node", ""],
        &["serve", "--db", "postgres://gambit@127.0.0.1:1/gambit", "--cluster", "redis://127.0.0.1:1", "--node", "a b"],
        &["serve", "--db", "postgres://gambit@127.0.0.1:1/gambit", "--node", "n1"],
        &["serve", "--ping-interval", "0"],
        &["serve", "--connection-timeout", "soon"],
        &["serve", "--max-connections", "0"],
    ];
    for args in cases {
        let out = gambit(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: stderr should be one line: {err:?}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let out = gambit(&["serve", "--listen", "127.0.0.1:0", "--db", "postgresql://gambit:s3cret@127.0.0.1:1/gambit"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("postgresql://gambit:***@127.0.0.1:1/gambit") && !err.contains("s3cret"), "{err}");
    let out = gambit(&["serve", "--listen", "127.0.0.1:0", "--db", "games.db", "--cluster", "redis://127.0.0.1:1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--cluster needs") && err.contains("postgres://"), "{err}");
    assert!(!std::path::Path::new("games.db").exists(), "nothing was opened");
    let out = gambit(&["perft", "--depth", "2", "--fen", "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: bad FEN: impossible position: black is in check but it is not black's turn\n"
    );
}

#[test]
fn help_and_version_succeed() {
    let out = gambit(&["--help"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("perft"));
    assert!(gambit(&["--version"]).status.success());
}
