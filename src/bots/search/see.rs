//! Static exchange evaluation: what a capture wins once every piece that can take back on its
//! square has, cheapest first. The search orders captures that lose material after the quiet
//! moves, and prunes them near the leaves and in the quiescence search.

use crate::bots::eval::piece_value;
use crate::chess::{Bitboard, Color, Move, Position, Role, Square};

/// Attackers are tried cheapest first; the king last, since it may take only if nothing can
/// take it back.
const BY_VALUE: [Role; 8] =
    [Role::Pawn, Role::Ferz, Role::Knight, Role::Bishop, Role::Rook, Role::Princess, Role::Empress, Role::Queen];

/// True if `m` (legal in `pos`) gains at least `threshold` centipawns when both sides go on
/// taking on its square while that pays. Pins are ignored. Castling, en passant and
/// promotions are not exchanges: they count as gaining nothing.
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    if m.promotion.is_some() || pos.is_castling(m) || pos.is_en_passant(m) {
        return threshold <= 0;
    }
    let victim = pos.role_at(m.to).map_or(0, piece_value);
    // What we are still ahead after this capture, if the opponent stops now.
    let mut swap = victim - threshold;
    if swap < 0 {
        return false;
    }
    // If the mover is taken back at once, are we still ahead?
    swap = pos.role_at(m.from).map_or(0, piece_value) - swap;
    if swap <= 0 {
        return true;
    }
    let mut occupied = pos.occupied().without(m.from).without(m.to);
    let mut side = pos.turn();
    // 1 while the side that moved last is winning the exchange.
    let mut result = 1;
    loop {
        side = !side;
        let attackers = attackers_of(pos, m, side, occupied);
        if attackers.is_empty() {
            break;
        }
        result ^= 1;
        let Some((role, from)) = least_valuable(pos, attackers) else {
            // Only the king is left: it may take only if the other side has nothing to take back.
            return if attackers_of(pos, m, !side, occupied).any() { result ^ 1 != 0 } else { result != 0 };
        };
        swap = piece_value(role) - swap;
        if swap < result {
            break;
        }
        // Removing the piece uncovers any slider behind it (the attackers are recomputed).
        occupied = occupied.without(from);
    }
    result != 0
}

/// The pieces of `side` still on the board (`occupied`) that attack `m`'s square.
fn attackers_of(pos: &Position, m: Move, side: Color, occupied: Bitboard) -> Bitboard {
    pos.attackers(m.to, side, occupied) & occupied
}

/// The cheapest of `attackers` that is not the king, and where it stands.
fn least_valuable(pos: &Position, attackers: Bitboard) -> Option<(Role, Square)> {
    BY_VALUE.iter().find_map(|&role| (attackers & pos.by_role(role)).first().map(|sq| (role, sq)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{Game, Rules, Variant};

    fn see(fen: &str, uci: &str, threshold: i32) -> bool {
        let game = Game::from_fen(Variant::Standard, fen, Rules::default()).unwrap();
        let pos = game.position();
        see_ge(pos, pos.parse_uci(uci).unwrap(), threshold)
    }

    #[test]
    fn an_undefended_piece_is_won_whole() {
        let fen = "4k3/8/8/3r4/8/8/8/3RK3 w - - 0 1";
        assert!(see(fen, "d1d5", 480));
        assert!(!see(fen, "d1d5", 481));
    }

    #[test]
    fn a_defended_pawn_taken_by_a_queen_loses_the_queen() {
        let fen = "4k3/2p5/3p4/8/8/8/3Q4/4K3 w - - 0 1";
        assert!(see(fen, "d2d6", 100 - 950));
        assert!(!see(fen, "d2d6", 0));
    }

    #[test]
    fn sliders_behind_the_first_attacker_join_in() {
        // Rxd5 Rxd5 Rxd5: two rooks against one rook behind a pawn; white wins the pawn.
        let fen = "3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1";
        assert!(see(fen, "d2d5", 100));
        assert!(!see(fen, "d2d5", 101));
        // Without the second white rook the exchange loses the rook for a pawn.
        let fen = "3rk3/8/8/3p4/8/8/3R4/4K3 w - - 0 1";
        assert!(!see(fen, "d2d5", 0));
    }

    #[test]
    fn the_king_takes_back_only_when_safe() {
        // Qxf7+ Kxf7 is possible (nothing else guards f7), so the queen is lost for a pawn.
        let fen = "4k3/5p2/8/8/8/8/8/4KQ2 w - - 0 1";
        assert!(!see(fen, "f1f7", 0));
        // With the bishop guarding f7 the king cannot take back.
        let fen = "4k3/5p2/8/8/2B5/8/8/4KQ2 w - - 0 1";
        assert!(see(fen, "f1f7", 100));
    }

    #[test]
    fn a_quiet_move_onto_a_guarded_square_loses_the_piece() {
        let fen = "4k3/4p3/8/8/4N3/8/8/4K3 w - - 0 1";
        assert!(!see(fen, "e4d6", 0)); // the pawn on e7 takes
        assert!(see(fen, "e4c5", 0));
    }
}
