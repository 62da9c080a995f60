//! The evaluation's tests: balance, each term where it applies, the pawn cache, mirroring.

use super::*;

#[test]
fn start_positions_are_balanced_and_material_counts() {
    for variant in Variant::ALL {
        let pos = Position::new(variant);
        assert_eq!(evaluate(&pos), 10, "{variant}: only the tempo bonus"); // symmetric
    }
    let up_a_queen =
        Position::from_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Variant::Standard).unwrap();
    assert!(evaluate(&up_a_queen) > 800);
    let black_view =
        Position::from_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", Variant::Standard).unwrap();
    assert!(evaluate(&black_view) < -800);
}

/// Each term counts where it should and nowhere else: with it switched off the evaluation
/// changes in the first position and not in the second.
#[test]
fn each_term_counts_exactly_where_it_applies() {
    type Off = fn(&mut Weights);
    let cases: [(&str, Off, &str, &str); 18] = [
        // The rook's d-file is open; behind its own e-pawn it is not.
        (
            "rook open",
            |w| w.rook_open = (0, 0),
            "4k3/ppp1pppp/8/8/8/8/PPP1PPPP/3R3K w - - 0 1",
            "4k3/ppp1pppp/8/8/8/8/PPP1PPPP/4R2K w - - 0 1",
        ),
        (
            "rook half open",
            |w| w.rook_half_open = (0, 0),
            "4k3/pppppppp/8/8/8/8/PPP1PPPP/3R3K w - - 0 1",
            "4k3/ppp1pppp/8/8/8/8/PPP1PPPP/4R2K w - - 0 1",
        ),
        // The pawn on d4 attacks a knight on e5, not one on a5.
        (
            "pawn threat",
            |w| w.pawn_threat = (0, 0),
            "4k3/8/8/4n3/3P4/8/8/4K3 w - - 0 1",
            "4k3/8/8/n7/3P4/8/8/4K3 w - - 0 1",
        ),
        // A passed pawn on the fifth rank is far from both kings; on the third it does not count them.
        (
            "passed king distance",
            |w| w.passed_king_distance = (0, 0),
            "8/8/8/3P4/8/8/k7/7K w - - 0 1",
            "8/8/8/8/8/3P4/k7/7K w - - 0 1",
        ),
        (
            "passed blocked",
            |w| w.passed_blocked = 100,
            "4k3/8/8/3n4/3P4/8/8/4K3 w - - 0 1",
            "4k3/8/8/n7/3P4/8/8/4K3 w - - 0 1",
        ),
        // From c3 the knight reaches b5 and d5, which the pawn on c6 guards; from h1 it does not.
        (
            "safe mobility",
            |w| w.safe_mobility = false,
            "4k3/8/2p5/8/8/2N5/8/4K3 w - - 0 1",
            "4k3/8/2p5/8/8/8/8/4K2N w - - 0 1",
        ),
        // The knight on e5 is guarded by d4, and no black pawn can chase it; with f7 one can.
        (
            "outpost",
            |w| w.outpost = [(0, 0); Role::COUNT],
            "4k3/pp4pp/8/4N3/3P4/8/8/4K3 w - - 0 1",
            "4k3/pp3ppp/8/4N3/3P4/8/8/4K3 w - - 0 1",
        ),
        // Pawns on d4 and e4 stand side by side; on d4 and h4 they do not.
        (
            "connected",
            |w| w.connected = [(0, 0); 8],
            "4k3/8/8/8/3PP3/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/3P3P/8/8/4K3 w - - 0 1",
        ),
        // The rook on e1 attacks the knight on e5, which nothing guards; on a5 it is safe.
        ("hanging", |w| w.hanging = (0, 0), "k7/8/8/4n3/8/8/8/4RK2 w - - 0 1", "k7/8/8/n7/8/8/8/4RK2 w - - 0 1"),
        // The knight on e5 attacks a rook on d3, not one on a3.
        (
            "minor threat",
            |w| w.minor_threat = (0, 0),
            "4k3/8/8/4n3/8/3R4/8/4K3 w - - 0 1",
            "4k3/8/8/4n3/8/R7/8/4K3 w - - 0 1",
        ),
        // A symmetric position cancels out; one knight does not.
        (
            "mobility extra",
            |w| w.mobility_extra = [[(0, 0); MOBILITY_COUNTS]; Role::COUNT],
            "4k3/8/8/8/8/8/8/1N2K3 w - - 0 1",
            "1n2k3/8/8/8/8/8/8/1N2K3 w - - 0 1",
        ),
        // From d5 the knight can check on e7, which nothing of Black's guards; from a3 it cannot.
        (
            "safe check",
            |w| w.safe_check = [0; Role::COUNT],
            "5rk1/5ppp/8/3N4/8/8/8/R6K w - - 0 1",
            "5rk1/5ppp/8/8/8/N7/8/R6K w - - 0 1",
        ),
        // Black's king has its pawns, White's none; a symmetric position cancels out.
        (
            "king files",
            |w| (w.shelter_rank, w.storm_rank) = ([0; 8], [0; 8]),
            "5rk1/5ppp/8/8/8/8/8/5RK1 w - - 0 1",
            "5rk1/5ppp/8/8/8/8/5PPP/5RK1 w - - 0 1",
        ),
        // A passed pawn on the fifth rank with nothing in front; on the third it does not count.
        (
            "passed path",
            |w| (w.passed_free, w.passed_safe) = ((0, 0), (0, 0)),
            "4k3/8/8/3P4/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/3P4/8/4K3 w - - 0 1",
        ),
        // The rook on d1 attacks the queen on d8, not one on a8.
        (
            "rook on queen",
            |w| w.rook_on_queen = (0, 0),
            "3qk3/8/8/8/8/8/8/3RK3 w - - 0 1",
            "q3k3/8/8/8/8/8/8/3RK3 w - - 0 1",
        ),
        // The pawn on d2 stands on the dark squares of the bishop on c1, not the light ones of one on d1.
        (
            "bishop pawns",
            |w| w.bishop_pawns = (0, 0),
            "4k3/8/8/8/8/8/3P4/2B1K3 w - - 0 1",
            "4k3/8/8/8/8/8/3P4/3BK3 w - - 0 1",
        ),
        // A lone bishop cannot win; a rook can.
        (
            "pawnless scale",
            |w| w.pawnless_scale = 100,
            "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/2R1K3 w - - 0 1",
        ),
        // Bishops on c8 (light) and c1 (dark); with d8 both are dark.
        (
            "opposite bishops",
            |w| w.opposite_bishops_scale = 100,
            "2b1k3/p7/8/8/8/8/PP6/2B1K3 w - - 0 1",
            "3bk3/p7/8/8/8/8/PP6/2B1K3 w - - 0 1",
        ),
    ];
    let with = Evaluator::new(Variant::Standard, Weights::STANDARD);
    for (name, off, applies, not) in cases {
        let mut weights = Weights::STANDARD;
        off(&mut weights);
        let without = Evaluator::new(Variant::Standard, weights);
        let delta = |fen: &str| {
            let pos = Position::from_fen(fen, Variant::Standard).unwrap();
            with.evaluate(&pos) - without.evaluate(&pos)
        };
        assert_ne!(delta(applies), 0, "{name}: {applies}");
        assert_eq!(delta(not), 0, "{name}: {not}");
    }
}

/// Cached or not, every position of random games in both variants evaluates the same, on
/// the first visit to its pawn formation and on later ones.
#[test]
fn the_pawn_cache_changes_no_evaluation() {
    use crate::chess::position::random_move;
    use rand::SeedableRng;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let mut cache = PawnCache::new();
    cache.allocate();
    let mut revisits = 0;
    for variant in Variant::ALL {
        for _ in 0..30 {
            let mut pos = Position::new(variant);
            let mut seen = Vec::new();
            while let Some(m) = random_move(&pos, &mut rng).filter(|_| seen.len() < 150) {
                pos = pos.after(m);
                seen.push(pos);
                assert_eq!(evaluate_cached(&pos, &mut cache), evaluate(&pos), "{}", pos.fen());
            }
            for pos in seen.iter().rev() {
                revisits += 1;
                assert_eq!(evaluate_cached(pos, &mut cache), evaluate(pos), "{}", pos.fen());
            }
        }
    }
    assert!(revisits > 1000);
}

/// The same position with colours swapped and the board turned around.
fn mirror(fen: &str) -> String {
    let fields: Vec<&str> = fen.split(' ').collect();
    let swap = |s: &str| {
        s.chars()
            .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
            .collect::<String>()
    };
    let board: Vec<String> = fields[0].split('/').rev().map(swap).collect();
    let turn = if fields[1] == "w" { "b" } else { "w" };
    let castling = if fields[2] == "-" {
        "-".to_string()
    } else {
        let s = swap(fields[2]);
        let mut v: Vec<char> = s.chars().collect();
        v.sort_by_key(|c| "KQkq".find(*c));
        v.into_iter().collect()
    };
    format!("{} {turn} {castling} - 0 1", board.join("/"))
}

#[test]
fn mirrored_positions_evaluate_alike() {
    for (variant, fen) in [
        (Variant::Standard, "r1bqk2r/ppp2ppp/2n2n2/2bpp3/4P3/2NP1N2/PPP1BPPP/R1BQK2R w KQkq - 0 6"),
        (Variant::Standard, "8/5pk1/6p1/3P4/1p6/1P3K2/8/8 b - - 0 40"),
        (Variant::Minichess7, "nbqk1cr/f1ppa1f/1p3p1/3p3/2P4/FP1CPPF/NBQKA1R w - - 0 4"),
    ] {
        let a = Position::from_fen(fen, variant).unwrap();
        let b = Position::from_fen(&mirror(fen), variant).unwrap();
        assert_eq!(evaluate(&a), evaluate(&b), "{fen} vs {}", mirror(fen));
    }
}

/// The tables behind `adjacent_files` and `forward_of` say what their names do, square by square.
#[test]
fn neighbouring_files_and_ranks_ahead() {
    for file in 0..8u8 {
        let expected = (0..8u8).filter(|&f| f.abs_diff(file) == 1).fold(Bitboard::EMPTY, |b, f| b | Bitboard::file(f));
        assert_eq!(adjacent_files(file), expected, "file {file}");
    }
    let ranks = |range: std::ops::Range<u8>| range.fold(Bitboard::EMPTY, |b, r| b | Bitboard::rank(r));
    for rank in 0..8u8 {
        let white = ranks(rank + 1..8);
        let black = ranks(0..rank);
        assert_eq!(forward_of(Color::White, rank), white, "white, rank {rank}");
        assert_eq!(forward_of(Color::Black, rank), black, "black, rank {rank}");
    }
}
