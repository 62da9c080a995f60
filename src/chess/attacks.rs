//! Precomputed attack sets on the 8x8 grid. Minichess7 masks the results with its 7x7 board: a ray
//! that leaves the 7x7 area is at the edge of the 8x8 grid, so it never re-enters the board.

use super::bitboard::Bitboard;
use super::piece::Color;
use super::square::Square;

struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

include!(concat!(env!("OUT_DIR"), "/magics.rs"));

/// The rook and bishop attack sets of every square for every relevant occupancy, built by build.rs.
static SLIDER_ATTACKS: [u64; SLIDER_TABLE_LEN] = {
    let bytes = include_bytes!(concat!(env!("OUT_DIR"), "/sliders.bin"));
    let mut table = [0u64; SLIDER_TABLE_LEN];
    let mut i = 0;
    while i < SLIDER_TABLE_LEN {
        let mut word = [0u8; 8];
        let mut j = 0;
        while j < 8 {
            word[j] = bytes[i * 8 + j];
            j += 1;
        }
        table[i] = u64::from_le_bytes(word);
        i += 1;
    }
    table
};

const fn leaper_table(steps: &[(i8, i8)]) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut sq = 0;
    while sq < 64 {
        let (file, rank) = ((sq % 8) as i8, (sq / 8) as i8);
        let mut bits = 0u64;
        let mut i = 0;
        while i < steps.len() {
            let (f, r) = (file + steps[i].0, rank + steps[i].1);
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                bits |= 1 << (r * 8 + f);
            }
            i += 1;
        }
        table[sq] = Bitboard(bits);
        sq += 1;
    }
    table
}

static KNIGHT: [Bitboard; 64] = leaper_table(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]);
static KING: [Bitboard; 64] = leaper_table(&[(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]);
static FERZ: [Bitboard; 64] = leaper_table(&[(1, 1), (-1, 1), (-1, -1), (1, -1)]);
static PAWN: [[Bitboard; 64]; 2] = [leaper_table(&[(-1, 1), (1, 1)]), leaper_table(&[(-1, -1), (1, -1)])];

#[inline]
pub fn knight(sq: Square) -> Bitboard {
    KNIGHT[sq.index()]
}

#[inline]
pub fn king(sq: Square) -> Bitboard {
    KING[sq.index()]
}

#[inline]
pub fn ferz(sq: Square) -> Bitboard {
    FERZ[sq.index()]
}

/// The squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn(color: Color, sq: Square) -> Bitboard {
    PAWN[color.index()][sq.index()]
}

/// The squares the pawns of `color` in `pawns` attack, all at once: two shifts instead of a
/// lookup per pawn. A pawn on the a- or h-file attacks one square, as on the board.
#[inline]
pub fn pawns(color: Color, pawns: Bitboard) -> Bitboard {
    let (west, east) = ((pawns & !Bitboard::file(0)).0, (pawns & !Bitboard::file(7)).0);
    match color {
        Color::White => Bitboard(west << 7 | east << 9),
        Color::Black => Bitboard(west >> 9 | east >> 7),
    }
}

#[inline]
fn magic_lookup(m: &Magic, occupied: Bitboard) -> Bitboard {
    let index = ((occupied.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize;
    Bitboard(SLIDER_ATTACKS[m.offset + index])
}

#[inline]
pub fn rook(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&ROOK_MAGICS[sq.index()], occupied)
}

#[inline]
pub fn bishop(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&BISHOP_MAGICS[sq.index()], occupied)
}

#[inline]
pub fn queen(sq: Square, occupied: Bitboard) -> Bitboard {
    rook(sq, occupied) | bishop(sq, occupied)
}

/// For each pair of squares on a common rank, file or diagonal: (the squares strictly between
/// them, the whole line through both from edge to edge). Empty for unaligned pairs.
struct Lines {
    between: [[Bitboard; 64]; 64],
    line: [[Bitboard; 64]; 64],
}

static LINES: Lines = {
    let mut lines = Lines { between: [[Bitboard::EMPTY; 64]; 64], line: [[Bitboard::EMPTY; 64]; 64] };
    let dirs: [(i8, i8); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];
    let mut a = 0;
    while a < 64 {
        let (af, ar) = ((a % 8) as i8, (a / 8) as i8);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = dirs[d];
            // The full line through `a` in this direction, both ways.
            let mut full = 1u64 << a;
            let mut k = 1;
            while k < 8 {
                let (f1, r1, f2, r2) = (af + df * k, ar + dr * k, af - df * k, ar - dr * k);
                if f1 >= 0 && f1 < 8 && r1 >= 0 && r1 < 8 {
                    full |= 1 << (r1 * 8 + f1);
                }
                if f2 >= 0 && f2 < 8 && r2 >= 0 && r2 < 8 {
                    full |= 1 << (r2 * 8 + f2);
                }
                k += 1;
            }
            let mut between = 0u64;
            let (mut f, mut r) = (af + df, ar + dr);
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                let b = (r * 8 + f) as usize;
                lines.between[a][b] = Bitboard(between);
                lines.line[a][b] = Bitboard(full);
                between |= 1 << b;
                f += df;
                r += dr;
            }
            d += 1;
        }
        a += 1;
    }
    lines
};

/// The squares strictly between `a` and `b` if they share a line, else empty.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    LINES.between[a.index()][b.index()]
}

/// The whole line (edge to edge) through `a` and `b` if they share one, else empty.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    LINES.line[a.index()][b.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    fn squares(bb: Bitboard) -> Vec<String> {
        bb.into_iter().map(|s| s.to_string()).collect()
    }

    /// Ray walking, the obvious way, to check the magic tables against.
    fn slow(sq: Square, occupied: Bitboard, dirs: &[(i8, i8)]) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for &(df, dr) in dirs {
            let (mut f, mut r) = (sq.file() as i8, sq.rank() as i8);
            loop {
                f += df;
                r += dr;
                let Some(s) = Square::from_coords(f as u8, r as u8).filter(|_| f >= 0 && r >= 0) else { break };
                out = out.with(s);
                if occupied.contains(s) {
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn magic_tables_match_ray_walking() {
        let mut x = 0x1234_5678_9abc_def1u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occ = Bitboard(x & (x >> 3));
            for s in Square::all() {
                assert_eq!(rook(s, occ), slow(s, occ, &[(1, 0), (-1, 0), (0, 1), (0, -1)]));
                assert_eq!(bishop(s, occ), slow(s, occ, &[(1, 1), (1, -1), (-1, 1), (-1, -1)]));
            }
        }
    }

    #[test]
    fn pawn_sets_attack_what_their_pawns_do() {
        let mut x = 0x0fed_cba9_8765_4321u64;
        for _ in 0..500 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for color in Color::ALL {
                let set = Bitboard(x);
                let one_by_one = set.into_iter().fold(Bitboard::EMPTY, |a, s| a | pawn(color, s));
                assert_eq!(pawns(color, set), one_by_one);
            }
        }
    }

    #[test]
    fn leapers_and_lines() {
        assert_eq!(squares(knight(sq("a1"))), ["c2", "b3"]);
        assert_eq!(squares(ferz(sq("d4"))), ["c3", "e3", "c5", "e5"]);
        assert_eq!(squares(pawn(Color::White, sq("a2"))), ["b3"]);
        assert_eq!(squares(pawn(Color::Black, sq("e5"))), ["d4", "f4"]);
        assert_eq!(squares(between(sq("a1"), sq("d4"))), ["b2", "c3"]);
        assert_eq!(squares(between(sq("e1"), sq("h1"))), ["f1", "g1"]);
        assert!(between(sq("a1"), sq("b3")).is_empty());
        assert_eq!(line(sq("b2"), sq("c3")).count(), 8);
        assert!(line(sq("a1"), sq("b3")).is_empty());
    }
}
