//! The match's arithmetic: wins, draws and losses, the score, and an Elo estimate with a 95%
//! interval.

/// Wins, draws and losses of one player.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points per game, 0 to 1 (a draw is half a point); 0.5 before any game.
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            n => (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(n),
        }
    }

    /// The Elo difference the score stands for, with a 95% interval (low, high).
    ///
    /// Each game's score is 1, ½ or 0, so its variance is (W + D/4)/n − s² (the trinomial
    /// distribution of wins, draws and losses); the mean's standard error is σ/√n. The interval
    /// s ± 1.96·σ/√n, clamped to [0, 1], is mapped through the same formula as s. Scores of
    /// exactly 0 or 1 give infinite differences.
    pub fn elo(&self) -> (f64, f64, f64) {
        let n = f64::from(self.games().max(1));
        let s = self.score();
        let mean_square = (f64::from(self.wins) + f64::from(self.draws) / 4.0) / n;
        let sigma = (mean_square - s * s).max(0.0).sqrt();
        let margin = 1.96 * sigma / n.sqrt();
        (elo(s), elo((s - margin).clamp(0.0, 1.0)), elo((s + margin).clamp(0.0, 1.0)))
    }
}

/// −400·log10(1/s − 1): the rating difference at which the expected score is s.
pub fn elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// `+210`, `-35`, `+0`, `+inf`, `-inf`.
pub fn format_elo(x: f64) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "+inf".into() } else { "-inf".into() };
    }
    let rounded = x.round();
    if rounded == 0.0 {
        "+0".into()
    } else {
        format!("{rounded:+.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_scores() {
        assert_eq!(elo(0.5), 0.0);
        assert!((elo(0.75) - 190.85).abs() < 0.01);
        assert!((elo(0.25) + 190.85).abs() < 0.01);
        assert_eq!(elo(1.0), f64::INFINITY);
        assert_eq!(elo(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn intervals() {
        let t = Tally { wins: 62, draws: 30, losses: 8 };
        assert_eq!(t.games(), 100);
        assert!((t.score() - 0.77).abs() < 1e-12);
        let (mid, low, high) = t.elo();
        assert_eq!(format_elo(mid), "+210");
        assert!(low < mid && mid < high);
        // σ² = (62 + 7.5)/100 − 0.77² = 0.1021; margin = 1.96·0.3195/10 = 0.0626.
        assert!((low - elo(0.77 - 0.062629)).abs() < 0.5, "{low}");
        assert!((high - elo(0.77 + 0.062629)).abs() < 0.5, "{high}");

        let all = Tally { wins: 4, draws: 0, losses: 0 };
        let (mid, low, high) = all.elo();
        assert_eq!((format_elo(mid), format_elo(low), format_elo(high)), ("+inf".into(), "+inf".into(), "+inf".into()));
        let even = Tally { wins: 1, draws: 0, losses: 1 };
        let (mid, low, high) = even.elo();
        assert_eq!((format_elo(mid), format_elo(low), format_elo(high)), ("+0".into(), "-inf".into(), "+inf".into()));
        assert_eq!(format_elo(-0.4), "+0");
        assert_eq!(format_elo(-35.2), "-35");
    }
}
