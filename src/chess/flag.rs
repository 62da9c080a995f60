//! The flag: what a side's running out of time means for the result (docs/rules.md, "Time
//! controls"). A loss, unless the opponent could not mate by any series of legal moves.

use super::game::{EndReason, Outcome};
use super::piece::{Color, Role};
use super::position::Position;
use super::rules::Variant;

/// The result when `flagged` runs out of time in `pos`: the opponent wins, unless the opponent
/// could not mate by any series of legal moves, and then it is a draw.
pub fn timeout_outcome(pos: &Position, flagged: Color) -> Outcome {
    let opponent = !flagged;
    if can_mate(pos, opponent) {
        Outcome::win(opponent, EndReason::Timeout)
    } else {
        Outcome::draw(EndReason::Timeout)
    }
}

/// Whether `side` still has the material to mate. Standard chess: a bare king, or a king with a
/// single knight or bishop, cannot (the usual server rule; docs/rules.md "Time controls").
/// Minichess7's fairy pieces make such counting unsafe, so there only a bare king cannot.
pub fn can_mate(pos: &Position, side: Color) -> bool {
    let own = pos.by_color(side);
    let others = own & !pos.pieces(side, Role::King);
    if others.is_empty() {
        return false;
    }
    if pos.variant() == Variant::Minichess7 {
        return true;
    }
    let minors = pos.pieces(side, Role::Knight) | pos.pieces(side, Role::Bishop);
    !(others.count() == 1 && minors.count() == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{Game, Rules};

    fn position(variant: Variant, fen: &str) -> Position {
        *Game::from_fen(variant, fen, Rules::default()).unwrap().position()
    }

    #[test]
    fn timeout_loses_unless_the_opponent_cannot_mate() {
        let bare = position(Variant::Standard, "4k3/8/8/8/8/8/8/QQ2K3 b - - 0 1");
        assert_eq!(timeout_outcome(&bare, Color::White), Outcome::draw(EndReason::Timeout));
        assert_eq!(timeout_outcome(&bare, Color::Black), Outcome::win(Color::White, EndReason::Timeout));
        let knight = position(Variant::Standard, "4k1n1/8/8/8/8/8/8/R3K3 w - - 0 1");
        assert!(!can_mate(&knight, Color::Black));
        let bishop = position(Variant::Standard, "4kb2/8/8/8/8/8/8/R3K3 w - - 0 1");
        assert!(!can_mate(&bishop, Color::Black));
        let two = position(Variant::Standard, "4kbn1/8/8/8/8/8/8/R3K3 w - - 0 1");
        assert!(can_mate(&two, Color::Black));
        let pawn = position(Variant::Standard, "4k3/p7/8/8/8/8/8/R3K3 w - - 0 1");
        assert!(can_mate(&pawn, Color::Black));
    }

    #[test]
    fn minichess7_only_a_bare_king_cannot_mate() {
        let game = Game::new(Variant::Minichess7);
        let start = game.position();
        assert!(can_mate(start, Color::White));
        assert!(can_mate(start, Color::Black));
    }
}
