//! The engine's static evaluation, in centipawns from the side to move's point of view: material,
//! tapered piece-square tables, mobility, king safety and pawn structure.
//!
//! The piece-square tables are computed from each square's place on the board (centrality,
//! advancement) rather than typed in, so the 7x7 board gets tables of its own shape and the
//! fairy pieces get sensible ones too.

use crate::chess::{Bitboard, Color, Position, Role, Square, Variant};

/// Middlegame and endgame values of each role.
const MATERIAL: [(i32, i32); Role::COUNT] = [
    (100, 115), // pawn
    (320, 300), // knight
    (330, 320), // bishop
    (480, 520), // rook
    (950, 950), // queen
    (0, 0),     // king
    (820, 850), // empress: rook + knight
    (740, 760), // princess: bishop + knight
    (170, 190), // ferz
];

/// A piece's middlegame value in centipawns, for move ordering and pruning.
pub const fn piece_value(role: Role) -> i32 {
    MATERIAL[role as usize].0
}

/// How much each piece counts toward the middlegame phase (24 = all pieces of standard chess).
const PHASE: [i32; Role::COUNT] = [0, 1, 1, 2, 4, 0, 3, 3, 0];
const MAX_PHASE: i32 = 24;

/// Centipawns per attacked square (middlegame, endgame), for the pieces whose reach matters.
const MOBILITY: [(i32, i32); Role::COUNT] = [(0, 0), (4, 4), (5, 5), (2, 4), (1, 2), (0, 0), (2, 3), (3, 3), (3, 3)];

/// Weight of a piece attacking squares next to the enemy king.
const KING_ATTACK: [i32; Role::COUNT] = [0, 20, 20, 35, 70, 0, 55, 45, 15];

/// Passed-pawn bonus by relative rank (endgame; half in the middlegame).
const PASSED: [i32; 8] = [0, 5, 12, 25, 45, 75, 120, 0];

/// Piece-square tables: [variant][role][square from White's side] = (middlegame, endgame).
type Tables = [[[(i16, i16); 64]; Role::COUNT]; 2];

static PST: Tables = build_tables();

const fn abs(x: i32) -> i32 {
    if x < 0 {
        -x
    } else {
        x
    }
}

/// The bonus of `role` on (file, rank) — rank counted from its own side — on an n×n board.
const fn square_bonus(role: Role, file: i32, rank: i32, n: i32) -> (i32, i32) {
    // Twice the Manhattan distance to the centre, so 7x7 (centre 3,3) and 8x8 (3.5,3.5) both stay integral.
    let dist2 = abs(2 * file - (n - 1)) + abs(2 * rank - (n - 1));
    let central = 2 * (n - 1) - dist2; // 0 in a corner … 2(n-1) in the centre
    let edge_file = abs(2 * file - (n - 1));
    match role {
        Role::Pawn => {
            let last = n - 1;
            if rank == last {
                (0, 0) // only minichess7 pawns stand here: stuck for good
            } else {
                let centre_file = if edge_file <= 1 { 8 } else { 0 };
                let advance = if n == 7 && rank >= n - 2 { 2 } else { rank - 1 };
                (5 * advance + centre_file * (rank >= 2 && rank <= 4) as i32, 10 * advance)
            }
        }
        Role::Knight | Role::Empress | Role::Princess => (4 * central - 25, 3 * central - 20),
        Role::Bishop => (3 * central - 15, 2 * central - 12),
        Role::Rook => (if rank == n - 2 { 15 } else { 0 } + (4 - edge_file / 2), central),
        Role::Queen => (2 * central - 10, 3 * central - 15),
        Role::Ferz => (4 * central - 20 + 3 * rank, 3 * central - 15 + 3 * rank),
        Role::King => {
            // Middlegame: stay home, toward a corner. Endgame: come to the centre.
            let home = if rank == 0 { 20 } else { -25 * rank };
            (home + 4 * edge_file - 10, 5 * central - 35)
        }
    }
}

const fn build_tables() -> Tables {
    let mut tables = [[[(0i16, 0i16); 64]; Role::COUNT]; 2];
    let roles = Role::ALL;
    let mut v = 0;
    while v < 2 {
        let n = if v == 0 { 8 } else { 7 };
        let mut r = 0;
        while r < Role::COUNT {
            let mut sq = 0;
            while sq < 64 {
                let (file, rank) = ((sq % 8) as i32, (sq / 8) as i32);
                if file < n && rank < n {
                    let (mg, eg) = square_bonus(roles[r], file, rank, n);
                    tables[v][r][sq] = (mg as i16, eg as i16);
                }
                sq += 1;
            }
            r += 1;
        }
        v += 1;
    }
    tables
}

/// Mirrors a square to White's point of view on an n-rank board.
fn relative(sq: Square, color: Color, n: u8) -> usize {
    match color {
        Color::White => sq.index(),
        Color::Black => usize::from(n - 1 - sq.rank()) * 8 + usize::from(sq.file()),
    }
}

/// Middlegame and endgame scores being summed for one side.
#[derive(Default, Clone, Copy)]
struct Score {
    mg: i32,
    eg: i32,
}

impl Score {
    fn add(&mut self, (mg, eg): (i32, i32)) {
        self.mg += mg;
        self.eg += eg;
    }
}

/// The evaluation of `pos` for the side to move, in centipawns.
pub fn evaluate(pos: &Position) -> i32 {
    let variant = pos.variant();
    let n = variant.size();
    let table = &PST[(variant == Variant::Minichess7) as usize];
    let board = variant.board();
    let occupied = pos.occupied();
    let mut phase = 0;
    let mut score = [Score::default(); 2];

    for color in Color::ALL {
        let us = color.index();
        let ours = pos.by_color(color);
        let enemy_king_zone = pos
            .king(!color)
            .map_or(Bitboard::EMPTY, |k| Position::piece_attacks(Role::King, color, k, occupied).with(k));
        let mut king_pressure = 0;
        let mut attackers = 0;
        for role in Role::ALL {
            let pieces = pos.pieces(color, role);
            if pieces.is_empty() {
                continue;
            }
            let (mg, eg) = MATERIAL[role.index()];
            let count = pieces.count() as i32;
            score[us].add((mg * count, eg * count));
            phase += PHASE[role.index()] * count;
            for sq in pieces {
                let (pmg, peg) = table[role.index()][relative(sq, color, n)];
                score[us].add((i32::from(pmg), i32::from(peg)));
                if matches!(role, Role::Pawn | Role::King) {
                    continue;
                }
                let reach = Position::piece_attacks(role, color, sq, occupied) & board;
                let mobility = (reach & !ours).count() as i32;
                let (wmg, weg) = MOBILITY[role.index()];
                score[us].add((wmg * mobility, weg * mobility));
                let hits = (reach & enemy_king_zone).count() as i32;
                if hits > 0 {
                    attackers += 1;
                    king_pressure += KING_ATTACK[role.index()] * hits;
                }
            }
        }
        // Pressure on the enemy king counts once several pieces join in.
        if attackers >= 2 {
            score[us].add((king_pressure * attackers.min(4) / 6, 0));
        }
        if pos.pieces(color, Role::Bishop).more_than_one() {
            score[us].add((30, 50));
        }
        score[us].add(pawn_structure(pos, color, n));
        score[us].add(king_shelter(pos, color));
    }

    let phase = phase.min(MAX_PHASE);
    let white = score[0].mg - score[1].mg;
    let white_eg = score[0].eg - score[1].eg;
    let tapered = (white * phase + white_eg * (MAX_PHASE - phase)) / MAX_PHASE;
    let tempo = 10;
    match pos.turn() {
        Color::White => tapered + tempo,
        Color::Black => -tapered + tempo,
    }
}

/// Doubled and isolated pawns cost; passed pawns gain by how far they have come.
fn pawn_structure(pos: &Position, color: Color, n: u8) -> (i32, i32) {
    let ours = pos.pieces(color, Role::Pawn);
    let theirs = pos.pieces(!color, Role::Pawn);
    let (mut mg, mut eg) = (0, 0);
    for file in 0..n {
        let on_file = (ours & Bitboard::file(file)).count() as i32;
        if on_file > 1 {
            mg -= 12 * (on_file - 1);
            eg -= 20 * (on_file - 1);
        }
        let neighbours = (if file > 0 { Bitboard::file(file - 1) } else { Bitboard::EMPTY })
            | (if file + 1 < n { Bitboard::file(file + 1) } else { Bitboard::EMPTY });
        if on_file > 0 && (ours & neighbours).is_empty() {
            mg -= 10 * on_file;
            eg -= 15 * on_file;
        }
    }
    for sq in ours {
        // Passed: no enemy pawn ahead on this or a neighbouring file.
        let span = Bitboard::file(sq.file())
            | (if sq.file() > 0 { Bitboard::file(sq.file() - 1) } else { Bitboard::EMPTY })
            | (if sq.file() < 7 { Bitboard::file(sq.file() + 1) } else { Bitboard::EMPTY });
        let ahead = forward_of(color, sq.rank());
        if (theirs & span & ahead).is_empty() {
            let rank = usize::from(if color == Color::White { sq.rank() } else { n - 1 - sq.rank() });
            // In minichess7 a pawn that arrives is stuck, so running counts for less.
            let bonus = if n == 7 { PASSED[rank.min(5)] / 2 } else { PASSED[rank.min(7)] };
            if rank + 1 < usize::from(n) {
                mg += bonus / 2;
                eg += bonus;
            }
        }
    }
    (mg, eg)
}

/// The ranks in front of `rank` from `color`'s side.
fn forward_of(color: Color, rank: u8) -> Bitboard {
    match color {
        Color::White if rank < 7 => Bitboard(!0u64 << (8 * (u32::from(rank) + 1))),
        Color::White => Bitboard::EMPTY,
        Color::Black => Bitboard((1u64 << (8 * u32::from(rank))) - 1),
    }
}

/// Middlegame bonus for own pawns just in front of a king that stays home.
fn king_shelter(pos: &Position, color: Color) -> (i32, i32) {
    let Some(king) = pos.king(color) else {
        return (0, 0);
    };
    let n = pos.variant().size();
    let home_rank = if color == Color::White { 0 } else { n - 1 };
    if king.rank().abs_diff(home_rank) > 1 {
        return (-20, 0);
    }
    let front = Position::piece_attacks(Role::King, color, king, Bitboard::EMPTY) & forward_of(color, king.rank());
    let shield = (front & pos.pieces(color, Role::Pawn)).count() as i32;
    (12 * shield, 0)
}

#[cfg(test)]
mod tests {
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
}
