//! Perft against trusted counts: the chessprogramming wiki's six positions, positions counted
//! by Stockfish, minichess7 positions counted by Fairy-Stockfish, and Chess960 positions (the
//! published ones and our own) recounted by python-chess (see tests/data/README.md).

use crate::common;

use gambit::chess::perft::{divide, perft};
use gambit::chess::{Position, Role, Variant};

fn check_file(file: &str, variant: Variant, min_cases: usize) {
    let cases = common::load(file);
    assert!(cases.len() >= min_cases, "{file}: {} positions, want at least {min_cases}", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let pos = Position::from_fen(&case.fen, variant)
            .unwrap_or_else(|e| panic!("{file}:{}: {} does not parse: {e}", case.line, case.fen));
        for (i, &expected) in case.counts.iter().enumerate() {
            let depth = i as u32 + 1;
            let got = perft(&pos, depth);
            if got != expected {
                failures.push(format!("{file}:{} {} depth {depth}: got {got}, want {expected}", case.line, case.fen));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn chessprogramming_wiki_positions() {
    check_file("perft_wiki.epd", Variant::Standard, 6);
}

#[test]
fn stockfish_counted_positions() {
    check_file("perft_standard.epd", Variant::Standard, 100);
}

#[test]
fn fairy_stockfish_counted_minichess7_positions() {
    check_file("perft_minichess7.epd", Variant::Minichess7, 21);
}

#[test]
fn chess960_positions_published_and_our_own() {
    check_file("perft_chess960.epd", Variant::Chess960, 1000);
}

/// The file's FENs are python-chess's X-FEN: ours must read the same back, `KQkq` for the
/// outermost rooks and a file letter for an inner one.
#[test]
fn chess960_fens_round_trip_as_python_chess_writes_them() {
    for case in common::load("perft_chess960.epd") {
        let pos = Position::from_fen(&case.fen, Variant::Chess960).unwrap();
        assert_eq!(pos.fen(), case.fen, "line {}", case.line);
        let shredder = Position::from_fen(&pos.shredder_fen(), Variant::Chess960).unwrap();
        assert_eq!(shredder, pos, "line {}: {}", case.line, pos.shredder_fen());
    }
}

/// Playing a move and taking it back restores the position exactly, and the hash kept in step
/// along the way is the one worked out from scratch: in Chess960, where king and rook may
/// land on each other's squares or stay where they are.
#[test]
fn chess960_make_and_undo_restore_every_position() {
    let mut castles = 0;
    for (file, pos) in positions_two_plies_deep().into_iter().filter(|(_, p)| p.variant() == Variant::Chess960) {
        for &m in pos.legal_moves().iter() {
            let mut played = pos;
            let undo = played.play_unchecked(m);
            let fresh = Position::from_fen(&played.fen(), Variant::Chess960).unwrap();
            assert_eq!(played.hash(), fresh.hash(), "{file}: {} {m}", pos.fen());
            castles += usize::from(pos.is_castling(m));
            played.undo(m, &undo);
            assert_eq!(played, pos, "{file}: {} {m}", pos.fen());
        }
    }
    assert!(castles > 500, "only {castles} castling moves seen");
}

#[test]
fn minichess7_start_position() {
    let pos = Position::new(Variant::Minichess7);
    let counts: Vec<u64> = (1..=5).map(|d| perft(&pos, d)).collect();
    assert_eq!(counts, [12, 144, 2531, 43162, 881322]);
}

#[test]
fn divide_sums_to_perft_and_lists_each_legal_move_once() {
    for (variant, file) in [(Variant::Standard, "perft_wiki.epd"), (Variant::Minichess7, "perft_minichess7.epd")] {
        for case in common::load(file).iter().take(6) {
            let pos = Position::from_fen(&case.fen, variant).unwrap();
            let parts = divide(&pos, 2);
            assert_eq!(parts.len() as u64, case.counts[0]);
            assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), case.counts[1]);
            let mut moves: Vec<String> = parts.iter().map(|p| p.0.to_string()).collect();
            moves.sort();
            moves.dedup();
            assert_eq!(moves.len(), parts.len(), "duplicate root moves in {}", case.fen);
        }
    }
}

/// Every reference position and every position one move after it, in both variants.
fn positions_two_plies_deep() -> Vec<(&'static str, Position)> {
    let files = [
        (Variant::Standard, "perft_wiki.epd"),
        (Variant::Standard, "perft_standard.epd"),
        (Variant::Minichess7, "perft_minichess7.epd"),
        (Variant::Chess960, "perft_chess960.epd"),
    ];
    let mut positions = Vec::new();
    for (variant, file) in files {
        for case in common::load(file) {
            let root = Position::from_fen(&case.fen, variant).unwrap();
            positions.push((file, root));
            positions.extend(root.legal_moves().iter().map(|&m| (file, root.after(m))));
        }
    }
    positions
}

/// `gives_check` (which the search uses to skip moves without making them) agrees with making
/// the move and looking, for every move two plies deep from every reference position.
#[test]
fn gives_check_agrees_with_making_the_move() {
    let mut checks = 0;
    for (file, pos) in positions_two_plies_deep() {
        for &m in pos.legal_moves().iter() {
            let made = pos.after(m).is_check();
            assert_eq!(pos.gives_check(m), made, "{file}: {} {m}", pos.fen());
            checks += usize::from(made);
        }
    }
    assert!(checks > 1000, "only {checks} checking moves seen");
}

/// The quiescence search's generator lists exactly the legal captures and queen promotions.
#[test]
fn noisy_moves_are_the_legal_captures_and_queen_promotions() {
    let (mut captures, mut promotions, mut en_passant) = (0, 0, 0);
    for (file, pos) in positions_two_plies_deep() {
        let mut noisy = Vec::new();
        pos.for_each_noisy_move(|m| noisy.push(m));
        let mut expected: Vec<_> = pos
            .legal_moves()
            .iter()
            .copied()
            .filter(|&m| match m.promotion {
                Some(role) => role == Role::Queen,
                None => pos.capture(m).is_some(),
            })
            .collect();
        noisy.sort_by_key(|m| m.to_string());
        expected.sort_by_key(|m| m.to_string());
        assert_eq!(noisy, expected, "{file}: {}", pos.fen());
        captures += noisy.iter().filter(|&&m| pos.capture(m).is_some()).count();
        promotions += noisy.iter().filter(|m| m.promotion.is_some()).count();
        en_passant += noisy.iter().filter(|&&m| pos.is_en_passant(m)).count();
    }
    assert!(captures > 1000 && promotions > 50 && en_passant > 5, "{captures} {promotions} {en_passant}");
}
