//! Zobrist keys: a random 64-bit number per (piece, square), side to move, castling rook square
//! and en passant file. A position's hash is the XOR of the keys of its features, so a move
//! updates it with a few XORs and equal positions (for repetition) have equal hashes.

use super::bitboard::Bitboard;
use super::piece::{Color, Piece, Role};
use super::square::Square;

struct Keys {
    pieces: [[[u64; 64]; Role::COUNT]; 2],
    castling: [u64; 64],
    en_passant: [u64; 8],
    black_to_move: u64,
}

/// splitmix64, evaluated at compile time: fixed keys make hashes stable across runs.
const fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

static KEYS: Keys = {
    let mut state = 0x6761_6d62_6974_u64; // "gambit"
    let mut keys =
        Keys { pieces: [[[0; 64]; Role::COUNT]; 2], castling: [0; 64], en_passant: [0; 8], black_to_move: 0 };
    let mut c = 0;
    while c < 2 {
        let mut r = 0;
        while r < Role::COUNT {
            let mut s = 0;
            while s < 64 {
                keys.pieces[c][r][s] = splitmix(&mut state);
                s += 1;
            }
            r += 1;
        }
        c += 1;
    }
    let mut s = 0;
    while s < 64 {
        keys.castling[s] = splitmix(&mut state);
        s += 1;
    }
    let mut f = 0;
    while f < 8 {
        keys.en_passant[f] = splitmix(&mut state);
        f += 1;
    }
    keys.black_to_move = splitmix(&mut state);
    keys
};

#[inline]
pub fn piece(piece: Piece, sq: Square) -> u64 {
    KEYS.pieces[piece.color.index()][piece.role.index()][sq.index()]
}

/// The combined key of a set of castling rook squares.
#[inline]
pub fn castling(rooks: Bitboard) -> u64 {
    rooks.into_iter().fold(0, |h, sq| h ^ KEYS.castling[sq.index()])
}

#[inline]
pub fn en_passant(sq: Square) -> u64 {
    KEYS.en_passant[sq.file() as usize]
}

#[inline]
pub fn turn(color: Color) -> u64 {
    match color {
        Color::White => 0,
        Color::Black => KEYS.black_to_move,
    }
}
