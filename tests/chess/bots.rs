//! The computer players against their spec (docs/bots.md and the issue): every level returns a
//! legal move or none when the game is over; levels 2–4 choose from the set their rule defines;
//! full strength (level 12) finds short mates and wins a hanging queen in both variants.
//!
//! The expected sets are computed here, independently of `gambit::bots`: piece values, attacked
//! squares (this file's own ray walker, not `Position::attackers`), checks and captures are all
//! worked out from the board. Only `legal_moves`, `after` and `piece_at` come from the rules core.
//! For the crafted positions the sets are also written out by hand, so a mistake in this file's
//! own logic shows up as a disagreement with the hand analysis.

use std::collections::{HashMap, HashSet};

use gambit::bots::{Bot, Level, Limits};
use gambit::chess::{Color, Game, Move, Piece, Position, Role, Rules, Square, Variant};
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

/// Seeds per crafted position: enough that every move of a set of up to a dozen comes up.
const SEEDS: u64 = 200;

fn game(variant: Variant, fen: &str) -> Game {
    Game::from_fen(variant, fen, Rules::default()).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn bot(level: u8, seed: u64) -> Box<dyn Bot> {
    Level::new(level).expect("a level from 1 to 12").bot(Some(seed))
}

fn names(moves: &[Move]) -> Vec<String> {
    let mut names: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    names.sort();
    names
}

fn sorted(moves: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    names.sort();
    names
}

// ---------------------------------------------------------------------------------------------
// The rules of levels 2–4, worked out independently.

/// The values of the spec, in pawns.
fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::Ferz => 2,
        Role::Princess => 7,
        Role::Empress => 8,
        Role::King => 0,
    }
}

const KNIGHT: [(i8, i8); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const DIAGONAL: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const ORTHOGONAL: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

/// The square at these coordinates if it is on the variant's board.
fn on_board(pos: &Position, file: i8, rank: i8) -> Option<Square> {
    let n = pos.variant().size() as i8;
    if (0..n).contains(&file) && (0..n).contains(&rank) {
        Square::from_coords(file as u8, rank as u8)
    } else {
        None
    }
}

/// Every square of the variant's board.
fn board(pos: &Position) -> impl Iterator<Item = Square> + '_ {
    let n = pos.variant().size() as i8;
    (0..n).flat_map(move |rank| (0..n).filter_map(move |file| on_board(pos, file, rank)))
}

/// True if `piece`, standing on `from`, attacks `target` (pins ignored).
fn piece_attacks(pos: &Position, piece: Piece, from: Square, target: Square) -> bool {
    let (f, r) = (from.file() as i8, from.rank() as i8);
    let step = |deltas: &[(i8, i8)]| deltas.iter().any(|&(df, dr)| on_board(pos, f + df, r + dr) == Some(target));
    let slide = |deltas: &[(i8, i8)]| {
        deltas.iter().any(|&(df, dr)| {
            let (mut x, mut y) = (f + df, r + dr);
            while let Some(sq) = on_board(pos, x, y) {
                if sq == target {
                    return true;
                }
                if pos.piece_at(sq).is_some() {
                    return false;
                }
                x += df;
                y += dr;
            }
            false
        })
    };
    let forward = if piece.color == Color::White { 1 } else { -1 };
    match piece.role {
        Role::Pawn => step(&[(-1, forward), (1, forward)]),
        Role::Knight => step(&KNIGHT),
        Role::Bishop => slide(&DIAGONAL),
        Role::Rook => slide(&ORTHOGONAL),
        Role::Queen => slide(&DIAGONAL) || slide(&ORTHOGONAL),
        Role::King => step(&DIAGONAL) || step(&ORTHOGONAL),
        Role::Empress => slide(&ORTHOGONAL) || step(&KNIGHT),
        Role::Princess => slide(&DIAGONAL) || step(&KNIGHT),
        Role::Ferz => step(&DIAGONAL),
    }
}

/// True if some piece of `by` attacks `target`.
fn is_attacked(pos: &Position, target: Square, by: Color) -> bool {
    board(pos).any(|sq| matches!(pos.piece_at(sq), Some(p) if p.color == by && piece_attacks(pos, p, sq, target)))
}

/// What levels 2–4 decide a move by.
#[derive(Debug)]
struct Facts {
    mv: Move,
    /// The moving piece, before any promotion.
    mover: Role,
    captured: Option<Role>,
    check: bool,
    /// An opponent piece attacks the moved piece's square after the move.
    lands_attacked: bool,
    /// The total value of our pieces that are attacked after the move.
    attacked_value: i32,
}

fn facts(pos: &Position, mv: Move) -> Facts {
    let us = pos.turn();
    let mover = pos.piece_at(mv.from).expect("a piece moves").role;
    let captured = match pos.piece_at(mv.to) {
        Some(p) if p.color != us => Some(p.role),
        // A pawn stepping diagonally onto an empty square captures en passant.
        _ if mover == Role::Pawn && mv.from.file() != mv.to.file() => Some(Role::Pawn),
        _ => None,
    };
    let after = pos.after(mv);
    let their_king = board(&after).find(|&sq| after.piece_at(sq) == Some(Piece::new(!us, Role::King)));
    let check = their_king.is_some_and(|k| is_attacked(&after, k, us));
    let attacked_value = board(&after)
        .filter_map(|sq| after.piece_at(sq).filter(|p| p.color == us).map(|p| (sq, p.role)))
        .filter(|&(sq, _)| is_attacked(&after, sq, !us))
        .map(|(_, role)| value(role))
        .sum();
    Facts { mv, mover, captured, check, lands_attacked: is_attacked(&after, mv.to, !us), attacked_value }
}

fn all_facts(pos: &Position) -> Vec<Facts> {
    pos.legal_moves().iter().map(|&m| facts(pos, m)).collect()
}

/// Level 2: captures and checks if there are any, else every legal move.
fn level2_expected(facts: &[Facts]) -> Vec<Move> {
    let preferred: Vec<Move> = facts.iter().filter(|f| f.captured.is_some() || f.check).map(|f| f.mv).collect();
    if preferred.is_empty() {
        facts.iter().map(|f| f.mv).collect()
    } else {
        preferred
    }
}

/// Level 3's view of a move: does it leave the moved piece attacked, not having taken at least
/// as much?
fn level3_unsafe(f: &Facts) -> bool {
    let favourable = f.captured.is_some_and(|c| value(c) >= value(f.mover));
    f.lands_attacked && !favourable
}

/// Level 3's tier of a move: 0 a capture or check that is safe (or favourable), 1 a safe quiet
/// move, 2 the rest.
fn level3_tier(f: &Facts) -> u8 {
    let tactical = f.check || f.captured.is_some();
    match (tactical, level3_unsafe(f)) {
        (true, false) => 0,
        (false, false) => 1,
        _ => 2,
    }
}

/// Level 3: the moves of the best tier there is.
fn level3_expected(facts: &[Facts]) -> Vec<Move> {
    let Some(best) = facts.iter().map(level3_tier).min() else { return Vec::new() };
    facts.iter().filter(|f| level3_tier(f) == best).map(|f| f.mv).collect()
}

fn level4_score(f: &Facts) -> i32 {
    f.attacked_value - f.captured.map_or(0, value) - if f.check { 4 } else { 0 }
}

/// Level 4: the moves of lowest score.
fn level4_expected(facts: &[Facts]) -> Vec<Move> {
    let Some(min) = facts.iter().map(level4_score).min() else { return Vec::new() };
    facts.iter().filter(|f| level4_score(f) == min).map(|f| f.mv).collect()
}

// ---------------------------------------------------------------------------------------------
// Crafted positions, each analysed by hand (see the comments) and by the functions above.

struct Crafted {
    variant: Variant,
    fen: &'static str,
    /// Level 2's captures and checks; empty when there are none (any legal move then).
    level2: &'static [&'static str],
    /// The legal moves after which the moved piece stands attacked, not having taken at least
    /// as much (level 3's last tier).
    level3_unsafe: &'static [&'static str],
    /// Level 4's lowest-scoring moves.
    level4: &'static [&'static str],
}

const CRAFTED: &[Crafted] = &[
    // Castling gives check (the rook lands on f1 facing the king on f8), as do Rf1 and Rh8.
    Crafted {
        variant: Variant::Standard,
        fen: "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
        level2: &["e1g1", "h1f1", "h1h8"],
        level3_unsafe: &[],
        level4: &["e1g1", "h1f1", "h1h8"],
    },
    // En passant counts as a capture; Rxa5 trades equal material (-5 for level 4); rook steps
    // up the a-file stand attacked by the a5 rook.
    Crafted {
        variant: Variant::Standard,
        fen: "4k3/8/8/r2pP3/8/8/8/R3K3 w - d6 0 2",
        level2: &["a1a5", "e5d6"],
        level3_unsafe: &["a1a2", "a1a3", "a1a4"],
        level4: &["a1a5"],
    },
    // Promotions: axb8 captures (all four pieces); =Q and =R also check (-3 - 4 = -7).
    Crafted {
        variant: Variant::Standard,
        fen: "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1",
        level2: &["a7b8b", "a7b8n", "a7b8q", "a7b8r"],
        level3_unsafe: &[],
        level4: &["a7b8q", "a7b8r"],
    },
    // Every knight move uncovers check from the e1 rook.
    Crafted {
        variant: Variant::Standard,
        fen: "4k3/8/8/8/8/4N3/8/4RK2 w - - 0 1",
        level2: &["e3c2", "e3c4", "e3d1", "e3d5", "e3f5", "e3g2", "e3g4"],
        level3_unsafe: &[],
        level4: &["e3c2", "e3c4", "e3d1", "e3d5", "e3f5", "e3g2", "e3g4"],
    },
    // Italian game: Bxf7+ and Nxe5; level 3 puts last Bxf7+ (the king takes), the squares
    // covered by the f8 bishop, the d8 queen, the c6 knight and the pawns, and Nxe5 (a pawn for
    // a knight, e5 covered by Nc6).
    Crafted {
        variant: Variant::Standard,
        fen: "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        level2: &["c4f7", "f3e5"],
        level3_unsafe: &[
            "a2a3", "b1a3", "b2b4", "c4a6", "c4e6", "c4f7", "d2d4", "f3d4", "f3e5", "f3g5", "f3h4", "h2h4",
        ],
        level4: &["c4f7"],
    },
    // Black to move: Qh4 (mate) is the only check.
    Crafted {
        variant: Variant::Standard,
        fen: "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
        level2: &["d8h4"],
        level3_unsafe: &["e5e4", "f7f5", "f8a3", "h7h5"],
        level4: &["d8h4"],
    },
    // Nxd5 takes a pawn defended by c6 (1 < 3); Nc4 steps into the d5 pawn's attack.
    Crafted {
        variant: Variant::Standard,
        fen: "4k3/8/2p5/3p4/8/4N3/8/4K3 w - - 0 1",
        level2: &["e3d5"],
        level3_unsafe: &["e3c4", "e3d5"],
        level4: &["e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "e3c2", "e3d1", "e3f1", "e3f5", "e3g2", "e3g4"],
    },
    // Rxd8 is worth it (rook for rook); Qxg6 is not (pawn defended by h7). Only Rc1+ checks
    // without leaving the d1 rook attacked by the d8 rook.
    Crafted {
        variant: Variant::Standard,
        fen: "3r4/2k4p/6p1/8/8/8/6Q1/3RK3 w - - 0 1",
        level2: &["d1c1", "d1d7", "d1d8", "g2b7", "g2c2", "g2c6", "g2g3", "g2g6", "g2h2"],
        level3_unsafe: &[
            "d1d2", "d1d3", "d1d4", "d1d5", "d1d6", "d1d7", "g2a8", "g2b7", "g2c6", "g2d2", "g2d5", "g2g6",
        ],
        level4: &["d1c1"],
    },
    // The queen is attacked by the d5 pawn: safe checks score -4, Qxd5 -1, Qe4+ 9 - 4.
    Crafted {
        variant: Variant::Standard,
        fen: "4k3/8/8/3p4/2Q5/8/8/4K3 w - - 0 1",
        level2: &["c4a4", "c4b5", "c4c6", "c4c8", "c4d5", "c4e2", "c4e4"],
        level3_unsafe: &["c4e4"],
        level4: &["c4a4", "c4b5", "c4c6", "c4c8", "c4e2"],
    },
    // Re2+ checks but stands attacked by the knight (5 - 4 = 1); Rb8+ is the safe check.
    Crafted {
        variant: Variant::Standard,
        fen: "4k3/8/8/8/3n4/8/1R3B2/4K3 w - - 0 1",
        level2: &["b2b8", "b2e2", "f2d4"],
        level3_unsafe: &["b2b3", "b2b5", "b2c2", "b2e2"],
        level4: &["b2b8"],
    },
    // Nothing is preferred by level 3: every move lands on an attacked square (b2b3/b2b4 are
    // illegal, they open the d4 queen's diagonal). No captures or checks for level 2 either.
    Crafted {
        variant: Variant::Standard,
        fen: "7k/8/rr6/8/3q4/8/PP6/KN6 w - - 0 1",
        level2: &[],
        level3_unsafe: &["a2a3", "a2a4", "b1a3", "b1c3", "b1d2"],
        level4: &["a2a3", "a2a4"],
    },
    // The same, but Nxd2 takes a rook defended by the queen: worth it (5 >= 3), and the only
    // capture and the only preferred move. Level 4: 3 (knight) + 1 + 1 (pawns) - 5.
    Crafted {
        variant: Variant::Standard,
        fen: "7k/8/rr6/8/3q4/8/PP1r4/KN6 w - - 0 1",
        level2: &["b1d2"],
        level3_unsafe: &["a2a3", "a2a4", "b1a3", "b1c3"],
        level4: &["b1d2"],
    },
    // minichess7: a princess capturing a ferz defended by the d5 pawn (2 < 7) or the d5 pawn
    // defended by the ferz is rejected by level 3; four safe princess checks score -4.
    Crafted {
        variant: Variant::Minichess7,
        fen: "3k3/7/3p3/4f2/2A4/7/3K3 w - - 0 1",
        level2: &["c3a4", "c3b5", "c3d5", "c3e4", "c3e5", "c3f6"],
        level3_unsafe: &["c3d5", "c3e4"],
        level4: &["c3a4", "c3b5", "c3e5", "c3f6"],
    },
    // The empress checks in five ways; Cd4+ stands attacked by the c5 pawn (8 - 4), Cc6 next to
    // the king is rejected by level 3.
    Crafted {
        variant: Variant::Minichess7,
        fen: "3k3/7/2p4/1C5/7/7/3K3 w - - 0 1",
        level2: &["b4b6", "b4b7", "b4d3", "b4d4", "b4d5"],
        level3_unsafe: &["b4c6", "b4d4"],
        level4: &["b4b6", "b4b7", "b4d3", "b4d5"],
    },
    // The ferz is attacked by two pawns: Ca7+ leaves it hanging (2 - 4 = -2) and still beats
    // winning a pawn with it (-1).
    Crafted {
        variant: Variant::Minichess7,
        fen: "3k3/7/2p1p2/3F3/7/7/C2K3 w - - 0 1",
        level2: &["a1a7", "d4c5", "d4e5"],
        level3_unsafe: &[],
        level4: &["a1a7"],
    },
    // Black: the d4 pawn forks empress and princess; Axd4 saves both (-1).
    Crafted {
        variant: Variant::Minichess7,
        fen: "3k3/7/2c1a2/3P3/7/1N5/3K3 b - - 0 1",
        level2: &["c5c1", "c5c3", "c5d3", "e5d4", "e5f3", "e5g4"],
        level3_unsafe: &["c5a4", "c5c1", "c5c2", "c5c4", "c5d3", "e5c4", "e5d3"],
        level4: &["e5d4"],
    },
    // A ferz taking a defended empress is worth it (8 >= 2); an empress taking a defended
    // princess is not (7 < 8). Fxf3 scores -8 + 2.
    Crafted {
        variant: Variant::Minichess7,
        fen: "k6/4p2/3a3/7/5c1/4F2/K2C3 w - - 0 1",
        level2: &["d1d5", "e2f3"],
        level3_unsafe: &[
            "d1c3", "d1d2", "d1d3", "d1d4", "d1d5", "d1e1", "d1e3", "d1f1", "d1f2", "d1g1", "e2d3", "e2f1",
        ],
        level4: &["e2f3"],
    },
    // Black's empress hangs to the ferz: two safe checks (-4) beat taking the ferz (-2).
    Crafted {
        variant: Variant::Minichess7,
        fen: "3k3/7/2c4/1F5/7/7/3K3 b - - 0 1",
        level2: &["c5c1", "c5c3", "c5d3", "c5d5"],
        level3_unsafe: &["c5a5", "c5c1", "c5c2", "c5c3"],
        level4: &["c5d3", "c5d5"],
    },
    // Black: the d3 pawn forks ferz and princess; three safe princess checks leave the ferz
    // hanging (2 - 4 = -2) and beat both captures of the pawn (-1).
    Crafted {
        variant: Variant::Minichess7,
        fen: "3k3/7/7/2f1a2/3P3/7/3K3 b - - 0 1",
        level2: &["c4d3", "e4c3", "e4d3", "e4f2", "e4f3"],
        level3_unsafe: &["e4d2"],
        level4: &["e4c3", "e4f2", "e4f3"],
    },
    // The initial position: no captures or checks, nothing attacked.
    Crafted {
        variant: Variant::Minichess7,
        fen: "nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1",
        level2: &[],
        level3_unsafe: &[],
        level4: &["a1b3", "a2b3", "b2b3", "c2c3", "d2d3", "e1d3", "e1f3", "e2e3", "f1e3", "f1g3", "f2f3", "g2f3"],
    },
];

#[test]
fn crafted_sets_match_the_hand_analysis() {
    for case in CRAFTED {
        let g = game(case.variant, case.fen);
        let legal: Vec<Move> = g.legal_moves().to_vec();
        let facts = all_facts(g.position());
        let fen = case.fen;

        let preferred2: Vec<Move> = facts.iter().filter(|f| f.captured.is_some() || f.check).map(|f| f.mv).collect();
        assert_eq!(names(&preferred2), sorted(case.level2), "level 2 in {fen}");
        let unsafe3: Vec<Move> = facts.iter().filter(|f| level3_unsafe(f)).map(|f| f.mv).collect();
        assert_eq!(names(&unsafe3), sorted(case.level3_unsafe), "level 3 in {fen}");
        assert_eq!(names(&level4_expected(&facts)), sorted(case.level4), "level 4 in {fen}");
        assert!(case.level4.len() <= legal.len(), "{fen}");
    }
}

/// Runs the level with seeds 0..SEEDS on the game: every choice must be in `expected`, and a set
/// of two or more must not always give the same move; a set of up to 12 must come up entirely
/// (a uniform choice misses a given one of 12 moves in 200 tries with probability 3e-8).
fn assert_choices_within(level: u8, g: &Game, expected: &[Move]) {
    let fen = g.position().fen();
    let mut chosen = HashSet::new();
    for seed in 0..SEEDS {
        let m = bot(level, seed).choose(g, &Limits::default());
        let m = m.unwrap_or_else(|| panic!("level {level} seed {seed} returned no move in {fen}"));
        assert!(
            expected.contains(&m),
            "level {level} seed {seed} played {m} in {fen}; the spec allows only {:?}",
            names(expected)
        );
        chosen.insert(m);
    }
    if expected.len() >= 2 {
        assert!(chosen.len() >= 2, "level {level} always played the same move in {fen} (set {:?})", names(expected));
    }
    if expected.len() <= 12 {
        let chosen: Vec<Move> = chosen.into_iter().collect();
        assert_eq!(names(&chosen), names(expected), "level {level} in {fen}: not every tied move was ever chosen");
    }
}

/// Checks one level on every crafted position; returns how many positions per variant give it a
/// strict, non-empty subset of the legal moves.
fn crafted_level(level: u8, expected_of: fn(&[Facts]) -> Vec<Move>) -> HashMap<Variant, usize> {
    let mut strict = HashMap::new();
    for case in CRAFTED {
        let g = game(case.variant, case.fen);
        let facts = all_facts(g.position());
        let expected = expected_of(&facts);
        if !expected.is_empty() && expected.len() < facts.len() {
            *strict.entry(case.variant).or_insert(0) += 1;
        }
        assert_choices_within(level, &g, &expected);
    }
    strict
}

fn assert_enough_strict(level: u8, strict: &HashMap<Variant, usize>) {
    let standard = strict.get(&Variant::Standard).copied().unwrap_or(0);
    let mini = strict.get(&Variant::Minichess7).copied().unwrap_or(0);
    assert!(standard + mini >= 8 && standard >= 3 && mini >= 3, "level {level}: too few telling positions {strict:?}");
}

#[test]
fn level2_captures_or_checks_whenever_it_can() {
    let strict = crafted_level(2, level2_expected);
    assert_enough_strict(2, &strict);
}

#[test]
fn level3_picks_from_its_preferred_moves() {
    let strict = crafted_level(3, level3_expected);
    assert_enough_strict(3, &strict);
}

#[test]
fn level4_picks_a_lowest_scoring_move() {
    let strict = crafted_level(4, level4_expected);
    assert_enough_strict(4, &strict);
}

#[test]
fn levels_2_and_3_fall_back_to_any_legal_move() {
    // Nothing is preferred by either level here, so every legal move must be possible.
    for (variant, fen, levels) in [
        (Variant::Standard, "7k/8/rr6/8/3q4/8/PP6/KN6 w - - 0 1", &[2u8, 3][..]),
        (Variant::Minichess7, Variant::Minichess7.initial_fen(), &[2u8][..]),
        (Variant::Standard, Variant::Standard.initial_fen(), &[2u8][..]),
    ] {
        let g = game(variant, fen);
        let legal: Vec<Move> = g.legal_moves().to_vec();
        for &level in levels {
            let chosen: HashSet<Move> =
                (0..400).filter_map(|seed| bot(level, seed).choose(&g, &Limits::default())).collect();
            let chosen: Vec<Move> = chosen.into_iter().collect();
            assert_eq!(names(&chosen), names(&legal), "level {level} fallback in {fen}");
        }
    }
}

#[test]
fn level1_plays_every_legal_move() {
    for (variant, expected_moves) in [(Variant::Standard, 20), (Variant::Minichess7, 12)] {
        let g = Game::new(variant);
        let legal: Vec<Move> = g.legal_moves().to_vec();
        assert_eq!(legal.len(), expected_moves);
        let mut counts: HashMap<Move, u32> = HashMap::new();
        let tries = 2000;
        for seed in 0..tries {
            let m = bot(1, seed).choose(&g, &Limits::default()).expect("a move");
            assert!(legal.contains(&m), "{m} is not legal");
            *counts.entry(m).or_insert(0) += 1;
        }
        assert_eq!(counts.len(), legal.len(), "{variant}: some legal move never came up: {counts:?}");
        // Uniform: about tries / n each. These bounds are ~5 standard deviations wide.
        let mean = tries as f64 / legal.len() as f64;
        for (m, &n) in &counts {
            assert!((mean * 0.5..mean * 1.6).contains(&(n as f64)), "{variant}: {m} chosen {n} times of {tries}");
        }
    }
}

#[test]
fn levels_1_to_4_repeat_their_choice_for_a_seed() {
    let mut positions: Vec<Game> = CRAFTED.iter().map(|c| game(c.variant, c.fen)).collect();
    positions.extend(random_games(Variant::Standard, 20, 11));
    positions.extend(random_games(Variant::Minichess7, 20, 12));
    for level in 1..=4 {
        for g in &positions {
            for seed in [0, 1, 42, u64::MAX] {
                let first = bot(level, seed).choose(g, &Limits::default());
                let again = bot(level, seed).choose(g, &Limits::default());
                assert_eq!(first, again, "level {level} seed {seed} in {}", g.position().fen());
            }
        }
        // And the seed matters: over many seeds the start position gets different moves.
        let g = Game::new(Variant::Standard);
        let distinct: HashSet<Option<Move>> =
            (0..20).map(|seed| bot(level, seed).choose(&g, &Limits::default())).collect();
        assert!(distinct.len() > 1, "level {level} ignores its seed");
    }
}

// ---------------------------------------------------------------------------------------------
// Random positions.

/// `count` games of random play (0 to 99 plies) from the variant's initial position.
fn random_games(variant: Variant, count: usize, seed: u64) -> Vec<Game> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut g = Game::new(variant);
            let plies = rng.random_range(0..100);
            for _ in 0..plies {
                let moves = g.legal_moves();
                let Some(&m) = moves.choose(&mut rng) else { break };
                g.play(m).expect("a legal move plays");
            }
            g
        })
        .collect()
}

#[test]
fn own_attack_logic_agrees_with_the_rules_core() {
    // This file's ray walker is the reference for the bot tests; make sure it reads the boards
    // the same way as the rules core (including the 7x7 edges and the fairy pieces).
    for variant in Variant::ALL {
        for g in random_games(variant, 150, 3) {
            let pos = g.position();
            for sq in board(pos) {
                for by in Color::ALL {
                    let core = pos.attackers(sq, by, pos.occupied()).any();
                    assert_eq!(is_attacked(pos, sq, by), core, "{sq} by {by} in {}", pos.fen());
                }
            }
            for f in all_facts(pos) {
                assert_eq!(f.check, pos.after(f.mv).is_check(), "{} in {}", f.mv, pos.fen());
                assert_eq!(f.captured, pos.capture(f.mv), "{} in {}", f.mv, pos.fen());
            }
        }
    }
}

#[test]
fn levels_2_to_4_keep_their_rules_in_random_positions() {
    let mut checked = 0;
    for (variant, seed) in [(Variant::Standard, 21), (Variant::Minichess7, 22)] {
        for g in random_games(variant, 300, seed) {
            if g.is_over() {
                continue;
            }
            let facts = all_facts(g.position());
            let fen = g.position().fen();
            for (level, expected) in
                [(2, level2_expected(&facts)), (3, level3_expected(&facts)), (4, level4_expected(&facts))]
            {
                for s in 0..3 {
                    let m = bot(level, s).choose(&g, &Limits::default()).expect("a move");
                    assert!(
                        expected.contains(&m),
                        "level {level} seed {s} played {m} in {fen}, allowed {:?}",
                        names(&expected)
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 500, "only {checked} positions");
}

#[test]
fn every_level_plays_a_legal_move_in_random_positions() {
    for (variant, seed) in [(Variant::Standard, 31), (Variant::Minichess7, 32)] {
        let games = random_games(variant, 330, seed);
        let live = games.iter().filter(|g| !g.is_over()).count();
        assert!(live >= 300, "{variant}: only {live} live positions");
        for level in 1..=Level::FULL.get() {
            let mut b = bot(level, 7);
            let limits = if level >= 5 { Limits::depth(2) } else { Limits::default() };
            for g in &games {
                let legal = g.legal_moves();
                let fen = g.position().fen();
                match b.choose(g, &limits) {
                    Some(m) => assert!(legal.contains(&m), "level {level} played illegal {m} in {fen}"),
                    None => assert!(legal.is_empty(), "level {level} found no move in {fen}"),
                }
            }
        }
    }
}

#[test]
fn no_move_when_the_game_is_over() {
    let over = [
        // Checkmate (fool's mate).
        (Variant::Standard, "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"),
        // Stalemate.
        (Variant::Standard, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),
        // Insufficient material and the fifty-move rule end the game with moves left.
        (Variant::Standard, "8/8/8/4k3/8/8/8/4K3 w - - 0 1"),
        (Variant::Standard, "4k3/8/8/8/8/8/8/R3K3 w - - 100 80"),
        // minichess7: checkmate, no moves at all, out of valid moves.
        (Variant::Minichess7, "R2k3/7/3K3/7/7/7/7 b - - 0 1"),
        (Variant::Minichess7, "6K/7/7/7/7/pp5/kp5 b - - 0 1"),
        (Variant::Minichess7, "k6/7/2C4/7/7/7/1R1K3 b - - 0 1"),
    ];
    for (variant, fen) in over {
        let g = game(variant, fen);
        assert!(g.is_over(), "{fen} should be over");
        for level in 1..=Level::FULL.get() {
            for limits in [Limits::default(), Limits::depth(3), Limits::movetime(50)] {
                assert_eq!(bot(level, 1).choose(&g, &limits), None, "level {level} in {fen}");
            }
        }
    }
    // A game that ends by play: the same applies.
    let mut g = Game::new(Variant::Standard);
    for uci in ["f2f3", "e7e5", "g2g4", "d8h4"] {
        g.play_uci(uci).expect("legal");
    }
    assert!(g.is_over());
    for level in 1..=Level::FULL.get() {
        assert_eq!(bot(level, 1).choose(&g, &Limits::depth(2)), None, "level {level} after fool's mate");
    }
}

// ---------------------------------------------------------------------------------------------
// Full strength (level 12), checked against an exhaustive search written here.

/// True if playing `m` ends the game at once in favour of the side that plays it (checkmate, or
/// in minichess7 leaving the opponent out of valid moves).
fn wins_at_once(g: &Game, m: Move) -> bool {
    let mut next = g.clone();
    next.play(m).expect("legal");
    next.outcome().is_some_and(|o| o.winner == Some(g.turn()))
}

fn winning_moves(g: &Game) -> Vec<Move> {
    g.legal_moves().iter().copied().filter(|&m| wins_at_once(g, m)).collect()
}

/// True if after `m` the mover wins within its next move whatever the opponent replies.
fn forces_win_in_two(g: &Game, m: Move) -> bool {
    let us = g.turn();
    let mut next = g.clone();
    next.play(m).expect("legal");
    if let Some(outcome) = next.outcome() {
        return outcome.winner == Some(us);
    }
    next.legal_moves().iter().all(|&reply| {
        let mut after = next.clone();
        after.play(reply).expect("legal");
        match after.outcome() {
            Some(outcome) => outcome.winner == Some(us),
            None => !winning_moves(&after).is_empty(),
        }
    })
}

fn full_strength_choices(g: &Game, limits: &Limits, seeds: std::ops::Range<u64>) -> Vec<Move> {
    seeds
        .map(|seed| {
            Level::FULL.bot(Some(seed)).choose(g, limits).unwrap_or_else(|| panic!("no move in {}", g.position().fen()))
        })
        .collect()
}

#[test]
fn full_strength_mates_in_one() {
    let cases = [
        (Variant::Standard, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"),
        (Variant::Standard, "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4"),
        (Variant::Standard, "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2"),
        (Variant::Minichess7, "3k3/7/3K3/7/7/7/C6 w - - 0 1"),
        (Variant::Minichess7, "r6/7/7/7/3k3/7/3K3 b - - 0 1"),
        // Not a check: Rb2 or Rg6 leaves the black king without a legal move, which wins in
        // minichess7 (out of valid moves).
        (Variant::Minichess7, "k6/7/2C4/7/7/6R/3K3 w - - 0 1"),
    ];
    for (variant, fen) in cases {
        let g = game(variant, fen);
        let wins = winning_moves(&g);
        assert!(!wins.is_empty() && wins.len() < g.legal_moves().len(), "{fen}: winning moves {:?}", names(&wins));
        for limits in [Limits::depth(4), Limits::movetime(500)] {
            for m in full_strength_choices(&g, &limits, 0..3) {
                assert!(wins.contains(&m), "full strength played {m} in {fen} ({limits:?}); mates: {:?}", names(&wins));
            }
        }
    }
}

#[test]
fn full_strength_mates_in_two() {
    let cases = [
        // Re8+ Rxe8 Rxe8#.
        (Variant::Standard, "2r3k1/5ppp/8/8/8/8/4RPPP/4R1K1 w - - 0 1"),
        // The rook ladder: Ra7 Kg8 Rb8# (or Rb7 and Ra8#).
        (Variant::Standard, "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1"),
        // minichess7 ladder with an empress: Ra6 Kf7 Cb7#.
        (Variant::Minichess7, "6k/7/7/7/7/R6/1C4K w - - 0 1"),
    ];
    for (variant, fen) in cases {
        let g = game(variant, fen);
        assert!(winning_moves(&g).is_empty(), "{fen} has a mate in 1");
        let forcing: Vec<Move> = g.legal_moves().iter().copied().filter(|&m| forces_win_in_two(&g, m)).collect();
        assert!(!forcing.is_empty(), "{fen} has no mate in 2");
        assert!(forcing.len() < g.legal_moves().len(), "{fen}");
        for limits in [Limits::depth(4), Limits::movetime(500)] {
            for m in full_strength_choices(&g, &limits, 0..3) {
                assert!(
                    forcing.contains(&m),
                    "full strength played {m} in {fen} ({limits:?}); mates in 2 start {:?}",
                    names(&forcing)
                );
            }
        }
        // And it finishes the job: after the best defence, full strength mates.
        let m = full_strength_choices(&g, &Limits::depth(4), 0..1)[0];
        let mut next = g.clone();
        next.play(m).expect("legal");
        for &reply in next.legal_moves().iter() {
            let mut after = next.clone();
            after.play(reply).expect("legal");
            if after.is_over() {
                continue;
            }
            let finish = full_strength_choices(&after, &Limits::depth(4), 0..1)[0];
            assert!(wins_at_once(&after, finish), "{fen}: after {m} {reply}, full strength played {finish}, not mate");
        }
    }
}

#[test]
fn full_strength_wins_a_hanging_queen() {
    let cases = [
        (Variant::Standard, "4k3/1p6/8/3q4/8/2N5/8/3RK3 w - - 0 1"),
        (Variant::Standard, "4k3/8/8/3Q4/8/2n5/8/4K3 b - - 0 1"),
        (Variant::Minichess7, "3k3/7/7/7/1q5/7/2A3K w - - 0 1"),
        (Variant::Minichess7, "3k3/1c5/7/2Q4/7/7/6K b - - 0 1"),
    ];
    for (variant, fen) in cases {
        let g = game(variant, fen);
        let pos = g.position();
        for limits in [Limits::depth(4), Limits::movetime(200)] {
            for m in full_strength_choices(&g, &limits, 0..3) {
                assert_eq!(
                    pos.piece_at(m.to).map(|p| p.role),
                    Some(Role::Queen),
                    "full strength played {m} in {fen} instead of taking the queen"
                );
            }
        }
    }
}

#[test]
fn full_strength_does_not_allow_mate_in_one() {
    let cases = [
        // Back rank: any rook move off the first rank (and Re1) allows ...Re1#.
        (Variant::Standard, "4r1k1/ppp2ppp/8/8/8/8/PPP2PPP/3R2K1 w - - 0 1"),
        // The same on the 7x7 board: rook moves up the c-file (and Rd1) allow ...Rd1#.
        (Variant::Minichess7, "3r1k1/4ppp/7/7/7/4PPP/2R2K1 w - - 0 1"),
    ];
    for (variant, fen) in cases {
        let g = game(variant, fen);
        assert!(g.legal_moves().iter().all(|&m| g.position().capture(m).is_none()), "{fen} should be quiet");
        let losing: Vec<Move> = g
            .legal_moves()
            .iter()
            .copied()
            .filter(|&m| {
                let mut next = g.clone();
                next.play(m).expect("legal");
                !next.is_over() && !winning_moves(&next).is_empty()
            })
            .collect();
        assert!(losing.len() >= 3 && losing.len() < g.legal_moves().len(), "{fen}: {:?}", names(&losing));
        for m in full_strength_choices(&g, &Limits::depth(4), 0..5) {
            assert!(!losing.contains(&m), "full strength played {m} in {fen}, which allows mate in 1");
        }
    }
}

#[test]
fn full_strength_repeats_its_choice_for_a_seed_at_fixed_depth() {
    let mut positions: Vec<Game> = CRAFTED.iter().map(|c| game(c.variant, c.fen)).collect();
    positions.extend(random_games(Variant::Standard, 10, 41));
    positions.extend(random_games(Variant::Minichess7, 10, 42));
    for g in positions.iter().filter(|g| !g.is_over()) {
        for seed in [0, 9] {
            let a = full_strength_choices(g, &Limits::depth(3), seed..seed + 1);
            let b = full_strength_choices(g, &Limits::depth(3), seed..seed + 1);
            assert_eq!(a, b, "seed {seed} in {}", g.position().fen());
        }
    }
}
