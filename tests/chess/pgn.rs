//! PGN export: Seven Tag Roster, Variant, SetUp/FEN, move numbers, line wrapping, result.

use gambit::chess::{write_pgn, Color, EndReason, Game, Outcome, PgnTags, Rules, Variant};

fn tags() -> PgnTags {
    PgnTags {
        event: "Casual game".into(),
        site: "gambit".into(),
        date: "2026.11.22".into(),
        round: "-".into(),
        white: "Alice \"the Rook\"".into(),
        black: "Level 3".into(),
    }
}

#[test]
fn standard_game_from_the_start() {
    let mut game = Game::new(Variant::Standard);
    for m in ["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "Ng5", "d5", "exd5", "Nxd5", "Nxf7", "Kxf7", "Qf3+", "Ke6"] {
        game.play_san(m).unwrap();
    }
    let pgn = write_pgn(&game, &tags());
    assert_eq!(
        pgn,
        "[Event \"Casual game\"]\n[Site \"gambit\"]\n[Date \"2026.11.22\"]\n[Round \"-\"]\n\
         [White \"Alice \\\"the Rook\\\"\"]\n[Black \"Level 3\"]\n[Result \"*\"]\n\
         [ECO \"C57\"]\n[Opening \"Italian Game: Two Knights Defense, Fried Liver Attack\"]\n\n\
         1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. Ng5 d5 5. exd5 Nxd5 6. Nxf7 Kxf7 7. Qf3+ Ke6 *\n"
    );
}

#[test]
fn finished_game_carries_its_result_and_termination() {
    let mut game = Game::new(Variant::Standard);
    for m in ["f3", "e5", "g4", "Qh4#"] {
        game.play_san(m).unwrap();
    }
    let pgn = write_pgn(&game, &PgnTags::default());
    assert!(pgn.contains("[Result \"0-1\"]\n"));
    assert!(pgn.contains("[Termination \"checkmate\"]\n"));
    assert!(pgn.ends_with("\n1. f3 e5 2. g4 Qh4# 0-1\n"), "{pgn}");
    assert!(!pgn.contains("[Variant"));
    assert!(!pgn.contains("[SetUp"));

    let mut resigned = Game::new(Variant::Standard);
    resigned.play_san("e4").unwrap();
    resigned.end(Outcome::win(Color::White, EndReason::Resignation));
    assert!(write_pgn(&resigned, &PgnTags::default()).ends_with("1. e4 1-0\n"));
}

#[test]
fn custom_start_with_black_to_move_in_minichess7() {
    let fen = "nbqkacr/fpppppf/7/7/3P3/FPP1PPF/NBQKACR b - - 0 1";
    let mut game = Game::from_fen(Variant::Minichess7, fen, Rules::default()).unwrap();
    for m in ["c5", "d4", "cxd4", "Ad3"] {
        game.play_san(m).unwrap();
    }
    let pgn = write_pgn(&game, &PgnTags::default());
    assert!(pgn.contains("[Variant \"minichess7\"]\n[SetUp \"1\"]\n"), "{pgn}");
    assert!(pgn.contains(&format!("[FEN \"{fen}\"]\n")));
    assert!(pgn.ends_with("\n1... c5 2. d4 cxd4 3. Ad3 *\n"), "{pgn}");
}

#[test]
fn long_games_wrap_at_80_columns() {
    let mut game = Game::new(Variant::Standard);
    for _ in 0..20 {
        for m in ["Nf3", "Nf6", "Ng1", "Ng8"] {
            if game.is_over() {
                break;
            }
            game.play_san(m).unwrap();
        }
    }
    let pgn = write_pgn(&game, &PgnTags::default());
    let movetext = pgn.split("\n\n").nth(1).unwrap();
    assert!(movetext.lines().count() >= 1);
    assert!(movetext.lines().all(|l| l.len() <= 80));
    assert!(movetext.trim_end().ends_with("1/2-1/2"));
}

#[test]
fn a_fen_with_fullmove_zero_numbers_from_one() {
    // Some tools write fullmove 0; the FEN is kept as given, the movetext counts from 1.
    let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 0";
    let mut game = Game::from_fen(Variant::Standard, fen, Rules::default()).unwrap();
    for m in ["e4", "Kd7", "e5"] {
        game.play_san(m).unwrap();
    }
    let pgn = write_pgn(&game, &PgnTags::default());
    assert!(pgn.contains(&format!("[FEN \"{fen}\"]")), "{pgn}");
    assert!(pgn.ends_with("\n1. e4 Kd7 2. e5 *\n"), "{pgn}");

    let black_first = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 0";
    let mut game = Game::from_fen(Variant::Standard, black_first, Rules::default()).unwrap();
    game.play_san("Kd7").unwrap();
    assert!(write_pgn(&game, &PgnTags::default()).ends_with("\n1... Kd7 *\n"));
}
