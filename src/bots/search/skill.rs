//! Playing below full strength the way engines do: a shallow search that keeps the best few
//! moves with exact scores, then a pick among them that favours the best by less the weaker the
//! level is (Stockfish's "Skill Level" rule). A weak level still never picks a move outside
//! the best few, and a move much worse than the best is picked only rarely.

use rand::Rng;

use crate::chess::Move;

/// How a weakened engine plays.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Skill {
    /// The deepest iteration searched.
    pub depth: u32,
    /// How many of the best moves are candidates.
    pub lines: usize,
    /// 0 plays the best move; the larger, the more a worse candidate is lifted towards the
    /// best and the wider the random spread (Stockfish uses 120 − 2 × its Skill Level).
    pub weakness: i32,
}

/// A pawn, the most the random spread of scores can reach.
const SPREAD_CAP: i32 = 100;

impl Skill {
    /// Picks among `lines` (exact scores, best first). Each candidate's score is lifted by
    /// `weakness / 128` of its gap to the best (a fixed part) plus a random part up to
    /// `weakness / 128` of the spread of the candidates' scores (at most a pawn); the highest
    /// lifted score wins.
    pub fn pick(&self, lines: &[(i32, Move)], rng: &mut impl Rng) -> Option<Move> {
        let candidates = &lines[..lines.len().min(self.lines.max(1))];
        let &(top, first) = candidates.first()?;
        if self.weakness <= 0 {
            return Some(first);
        }
        let spread = candidates.last().map_or(0, |&(s, _)| (top - s).min(SPREAD_CAP));
        let mut best = (i32::MIN, first);
        for &(score, m) in candidates {
            let push = (self.weakness * (top - score) + spread * rng.random_range(0..self.weakness)) / 128;
            if score + push >= best.0 {
                best = (score + push, m);
            }
        }
        Some(best.1)
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    use super::*;
    use crate::chess::{Game, Variant};

    fn moves(n: usize) -> Vec<Move> {
        Game::new(Variant::Standard).legal_moves().iter().copied().take(n).collect()
    }

    #[test]
    fn no_weakness_plays_the_best() {
        let m = moves(4);
        let lines: Vec<(i32, Move)> = vec![(50, m[0]), (40, m[1]), (30, m[2]), (-20, m[3])];
        let skill = Skill { depth: 3, lines: 4, weakness: 0 };
        let mut rng = SmallRng::seed_from_u64(1);
        assert!((0..100).all(|_| skill.pick(&lines, &mut rng) == Some(m[0])));
    }

    #[test]
    fn weakness_spreads_the_choice_over_the_best_few_only() {
        let m = moves(6);
        let lines: Vec<(i32, Move)> = vec![(50, m[0]), (45, m[1]), (40, m[2]), (35, m[3]), (30, m[4]), (-900, m[5])];
        let skill = Skill { depth: 1, lines: 4, weakness: 120 };
        let mut rng = SmallRng::seed_from_u64(2);
        let picks: Vec<Move> = (0..400).filter_map(|_| skill.pick(&lines, &mut rng)).collect();
        for candidate in &m[..4] {
            assert!(picks.contains(candidate), "{candidate} never picked");
        }
        assert!(!picks.contains(&m[4]) && !picks.contains(&m[5]), "picked outside the best four");
    }

    #[test]
    fn a_much_better_move_is_kept_by_a_mild_weakness() {
        let m = moves(4);
        // The best wins a rook; the others lose nothing but gain nothing.
        let lines: Vec<(i32, Move)> = vec![(500, m[0]), (0, m[1]), (0, m[2]), (-10, m[3])];
        let skill = Skill { depth: 5, lines: 4, weakness: 40 };
        let mut rng = SmallRng::seed_from_u64(3);
        assert!((0..200).all(|_| skill.pick(&lines, &mut rng) == Some(m[0])));
    }

    #[test]
    fn no_lines_no_move() {
        let skill = Skill { depth: 1, lines: 4, weakness: 100 };
        assert_eq!(skill.pick(&[], &mut SmallRng::seed_from_u64(4)), None);
    }
}
