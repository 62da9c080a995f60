//! A round robin's arithmetic: every pairing generated up front from the Berger tables (FIDE's
//! round-robin tables, which balance colours), and the crosstable with its Sonneborn–Berger
//! tie-break. Pure: no time, no games, no I/O.

use serde::{Deserialize, Serialize};

/// The fewest and most players a round robin has.
pub const MIN_PLAYERS: usize = 3;
pub const MAX_PLAYERS: usize = 16;

/// One game of the table: players by their index in the entry list, White first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    pub white: usize,
    pub black: usize,
}

/// The rounds of a round robin of `players` (3 to 16) by the Berger tables: with an odd number
/// one player sits out each round (the bye is simply no game). Every player meets every other
/// once; with an odd number every player has as many Whites as Blacks, with an even number one
/// more of one colour.
pub fn berger(players: usize) -> Vec<Vec<Pairing>> {
    if players < 2 {
        return Vec::new();
    }
    // Numbered 1..=n as in the tables; n is the fixed player (the bye when `players` is odd).
    let n = players + players % 2;
    let ring = n - 1;
    // The player `k` places from `a` around the ring of 1..=n-1.
    let around = |a: usize, k: isize| -> usize {
        let ring = ring as isize;
        ((a as isize - 1 + k).rem_euclid(ring) + 1) as usize
    };
    let mut rounds = Vec::with_capacity(ring);
    for r in 0..ring {
        let a = (r * (n / 2)) % ring + 1;
        let mut games = Vec::with_capacity(n / 2);
        let fixed = if r % 2 == 0 { (a, n) } else { (n, a) };
        games.push(fixed);
        for k in 1..n / 2 {
            games.push((around(a, k as isize), around(a, -(k as isize))));
        }
        let real = games
            .into_iter()
            .filter(|(w, b)| *w <= players && *b <= players)
            .map(|(w, b)| Pairing { white: w - 1, black: b - 1 })
            .collect();
        rounds.push(real);
    }
    rounds
}

/// A game's result for White: 2 (a win), 1 (a draw) or 0, in half-points; None until played.
pub type HalfPoints = Option<u8>;

/// One row of the crosstable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Row {
    /// The player's index in the entry list.
    pub player: usize,
    /// 1-based, ties sharing the higher rank.
    pub rank: usize,
    /// Points in half-points.
    pub points: u32,
    /// Sonneborn–Berger in quarter-points (half-points × half-points).
    pub sonneborn_berger: u32,
    /// Against each player by index: this player's half-points in their game (None: not played
    /// yet, or oneself).
    pub against: Vec<HalfPoints>,
}

/// The crosstable of `players` from the games played (`pairing` and White's half-points), best
/// first: by points, then Sonneborn–Berger (the sum, over the games, of the points scored
/// against each opponent times that opponent's total), then entry order.
pub fn crosstable(players: usize, games: &[(Pairing, HalfPoints)]) -> Vec<Row> {
    let mut against = vec![vec![None; players]; players];
    for (p, result) in games {
        let Some(white) = *result else { continue };
        if p.white >= players || p.black >= players || white > 2 {
            continue;
        }
        against[p.white][p.black] = Some(white);
        against[p.black][p.white] = Some(2 - white);
    }
    let points: Vec<u32> = against.iter().map(|row| row.iter().flatten().map(|h| u32::from(*h)).sum()).collect();
    let mut rows: Vec<Row> = (0..players)
        .map(|i| Row {
            player: i,
            rank: 0,
            points: points[i],
            sonneborn_berger: against[i]
                .iter()
                .enumerate()
                .map(|(j, h)| h.map_or(0, |h| u32::from(h) * points[j]))
                .sum(),
            against: against[i].clone(),
        })
        .collect();
    rows.sort_by(|a, b| {
        (b.points, b.sonneborn_berger).cmp(&(a.points, a.sonneborn_berger)).then(a.player.cmp(&b.player))
    });
    for i in 0..rows.len() {
        rows[i].rank = if i > 0
            && (rows[i].points, rows[i].sonneborn_berger) == (rows[i - 1].points, rows[i - 1].sonneborn_berger)
        {
            rows[i - 1].rank
        } else {
            i + 1
        };
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_meets_once_with_balanced_colours() {
        for n in MIN_PLAYERS..=MAX_PLAYERS {
            let rounds = berger(n);
            assert_eq!(rounds.len(), n - 1 + n % 2, "{n} players: rounds");
            let mut met = vec![vec![0; n]; n];
            let mut whites = vec![0; n];
            for round in &rounds {
                let mut busy = vec![false; n];
                for p in round {
                    assert!(!busy[p.white] && !busy[p.black], "{n}: one game a round each");
                    busy[p.white] = true;
                    busy[p.black] = true;
                    met[p.white][p.black] += 1;
                    met[p.black][p.white] += 1;
                    whites[p.white] += 1;
                }
            }
            for (i, row) in met.iter().enumerate() {
                for (j, times) in row.iter().enumerate() {
                    assert_eq!(*times, usize::from(i != j), "{n}: {i} meets {j} once");
                }
                let games = n - 1;
                let (w, b) = (whites[i], games - whites[i]);
                assert!(w.abs_diff(b) <= 1, "{n}: player {i} has {w} Whites and {b} Blacks");
                if n % 2 == 1 {
                    assert_eq!(w, b, "{n}: odd: as many Whites as Blacks");
                }
            }
        }
    }

    #[test]
    fn five_players_play_ten_games_two_whites_and_two_blacks_each() {
        let rounds = berger(5);
        let games: Vec<Pairing> = rounds.iter().flatten().copied().collect();
        assert_eq!(games.len(), 10);
        // FIDE's table for 5 (6 with a bye), first round 1–6 (bye), 2–5, 3–4.
        assert_eq!(rounds[0], [Pairing { white: 1, black: 4 }, Pairing { white: 2, black: 3 }]);
        for player in 0..5 {
            let whites = games.iter().filter(|p| p.white == player).count();
            let blacks = games.iter().filter(|p| p.black == player).count();
            assert_eq!((whites, blacks), (2, 2), "player {player}");
        }
    }

    /// Five players, computed by hand. In half-points for White:
    /// A–B 1–0, A–C ½, D–A 0–1, A–E 0–1, B–C 1–0, B–D 1–0, E–B ½, C–D 1–0, C–E 1–0, D–E ½.
    /// Points: A 2½, B 2½, C 2½, D ½, E 2.
    /// Sonneborn–Berger (points × the beaten opponent's points, half for draws):
    /// A = B 2½ + ½·C 2½ + D ½ = 4.25; B = C 2½ + D ½ + ½·E 2 = 4;
    /// C = ½·A 2½ + D ½ + E 2 = 3.75; E = A 2½ + ½·B 2½ + ½·D ½ = 4.
    /// D = ½·E 2 = 1.
    #[test]
    fn crosstable_and_sonneborn_berger_match_the_hand_computed_values() {
        let (a, b, c, d, e) = (0, 1, 2, 3, 4);
        let g = |white, black, result| (Pairing { white, black }, Some(result));
        let games = [
            g(a, b, 2),
            g(a, c, 1),
            g(d, a, 0),
            g(a, e, 0),
            g(b, c, 2),
            g(b, d, 2),
            g(e, b, 1),
            g(c, d, 2),
            g(c, e, 2),
            g(d, e, 1),
        ];
        let table = crosstable(5, &games);
        let summary: Vec<(usize, usize, u32, u32)> =
            table.iter().map(|r| (r.rank, r.player, r.points, r.sonneborn_berger)).collect();
        // Points in halves, SB in quarters: A 5 / 17, B 5 / 16, C 5 / 15, E 4 / 16, D 1 / 4.
        assert_eq!(summary, [(1, a, 5, 17), (2, b, 5, 16), (3, c, 5, 15), (4, e, 4, 16), (5, d, 1, 4)]);
        assert_eq!(table[0].against, [None, Some(2), Some(1), Some(2), Some(0)]);
        // Unplayed games count for nothing, and ties share a rank.
        let table = crosstable(3, &[(Pairing { white: 0, black: 1 }, Some(1)), (Pairing { white: 1, black: 2 }, None)]);
        assert_eq!(table.iter().map(|r| (r.rank, r.points)).collect::<Vec<_>>(), [(1, 1), (1, 1), (3, 0)]);
    }
}
