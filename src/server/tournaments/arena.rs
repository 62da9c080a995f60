//! An arena's rules, as lichess plays them: whoever is free is paired again at once with the
//! free player of the nearest score (not the opponent they just met); a win is 2 points, a
//! draw 1, a loss 0; after two wins in a row a player is "on fire" and wins and draws count
//! double until a game is not won; a berserk win earns a point more. Pure: no time, no games,
//! no I/O — the arena's task (`arena_task`) keeps the state and asks these functions.

use serde::{Deserialize, Serialize};

use crate::protocol::GameId;
use crate::server::store::AccountKey;

/// Who an arena's player is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "WhoRecord", into = "WhoRecord")]
pub enum Who {
    /// An account: a person, or a bot account playing through the Bot API (`bot`).
    Account { id: AccountKey, bot: bool },
    /// One of the server's own computer levels.
    Level { level: u8 },
    /// An external UCI engine the server was started with.
    Engine { name: String },
}

/// [`Who`] as an arena's stored state writes it: a level with the ladder it is on
/// (`bots::LADDER`; absent in arenas stored on the first ladder, levels 1–8).
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum WhoRecord {
    Account {
        id: AccountKey,
        bot: bool,
    },
    Level {
        level: u8,
        #[serde(default)]
        ladder: u8,
    },
    Engine {
        name: String,
    },
}

impl From<WhoRecord> for Who {
    fn from(record: WhoRecord) -> Who {
        match record {
            WhoRecord::Account { id, bot } => Who::Account { id, bot },
            // A number no ladder knows stays as it was: joining checks it.
            WhoRecord::Level { level, ladder } => {
                Who::Level { level: crate::bots::Level::of_record(level, ladder).map_or(level, |l| l.get()) }
            }
            WhoRecord::Engine { name } => Who::Engine { name },
        }
    }
}

impl From<Who> for WhoRecord {
    fn from(who: Who) -> WhoRecord {
        match who {
            Who::Account { id, bot } => WhoRecord::Account { id, bot },
            Who::Level { level } => WhoRecord::Level { level, ladder: crate::bots::LADDER },
            Who::Engine { name } => WhoRecord::Engine { name },
        }
    }
}

impl Who {
    /// The server's own computer (a level or an engine), which needs nobody to seat it.
    pub fn is_computer(&self) -> bool {
        !matches!(self, Who::Account { .. })
    }

    /// Not a person: a computer or a bot account.
    pub fn is_bot(&self) -> bool {
        matches!(self, Who::Account { bot: true, .. }) || self.is_computer()
    }
}

/// A player of an arena.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaPlayer {
    pub name: String,
    pub who: Who,
    /// Paused (lichess's word once the arena is on): not paired until they join again.
    pub withdrawn: bool,
    /// Their rating in the arena's category when they joined, if they have one.
    #[serde(default)]
    pub rating: Option<i32>,
}

/// How a game of the arena stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Played {
    Playing,
    /// Ended: White's half-points (2, 1 or 0).
    Ended {
        white: u8,
    },
    /// Counts for nobody: aborted before both sides moved, or still going when the arena ended.
    Void,
}

/// One game of the arena: its players by index, White first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaGame {
    pub id: GameId,
    pub white: usize,
    pub black: usize,
    pub played: Played,
    /// Whether White and Black berserked.
    #[serde(default)]
    pub berserk: [bool; 2],
}

impl ArenaGame {
    /// The side `player` had in this game: 0 White, 1 Black.
    pub fn side_of(&self, player: usize) -> Option<usize> {
        if self.white == player {
            Some(0)
        } else if self.black == player {
            Some(1)
        } else {
            None
        }
    }

    /// The other player of this game.
    pub fn opponent_of(&self, player: usize) -> Option<usize> {
        self.side_of(player).map(|side| if side == 0 { self.black } else { self.white })
    }
}

/// A player's record: the points of each counted game, oldest first, and the totals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sheet {
    /// Points of each counted game, oldest first (0 to 5).
    pub scores: Vec<u8>,
    /// On a winning streak: the next win or draw counts double.
    pub fire: bool,
    pub total: u32,
    pub games: u32,
    pub wins: u32,
    pub berserks: u32,
    /// Half-points scored (a win 2, a draw 1), for the performance.
    pub half_points: u32,
}

/// The points a game is worth: `half` the player's half-points (2 a win, 1 a draw), `fire` on a
/// streak, `berserk` their berserk.
pub fn points(half: u8, fire: bool, berserk: bool) -> u8 {
    let base = half.min(2) * if fire { 2 } else { 1 };
    base + u8::from(berserk && half == 2)
}

/// The sheet of `player` from the arena's games, in the order they were made.
pub fn sheet(player: usize, games: &[ArenaGame], streakable: bool) -> Sheet {
    let mut sheet = Sheet::default();
    let mut streak = 0u32;
    for game in games {
        let (Some(side), Played::Ended { white }) = (game.side_of(player), game.played) else { continue };
        let half = if side == 0 { white.min(2) } else { 2 - white.min(2) };
        let fire = streakable && streak >= 2;
        let berserk = game.berserk[side];
        let got = points(half, fire, berserk);
        sheet.scores.push(got);
        sheet.total += u32::from(got);
        sheet.games += 1;
        sheet.half_points += u32::from(half);
        sheet.berserks += u32::from(berserk);
        if half == 2 {
            sheet.wins += 1;
            streak += 1;
        } else {
            streak = 0;
        }
    }
    sheet.fire = streakable && streak >= 2;
    sheet
}

/// The players in standing order, best first: by points, then by fewer games (the same points
/// in fewer games is the better run), then by who joined first. Withdrawn players keep their
/// place, as on lichess.
pub fn standing(sheets: &[Sheet]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sheets.len()).collect();
    order.sort_by(|&a, &b| (sheets[b].total, sheets[a].games, a).cmp(&(sheets[a].total, sheets[b].games, b)));
    order
}

/// The players free to be paired: in the arena, not withdrawn, and in no game going on.
pub fn free(players: &[ArenaPlayer], games: &[ArenaGame]) -> Vec<usize> {
    let busy = |p: usize| games.iter().any(|g| g.played == Played::Playing && g.side_of(p).is_some());
    (0..players.len()).filter(|&p| !players[p].withdrawn && !busy(p)).collect()
}

/// The opponent of `player`'s latest game, if they have played.
pub fn last_opponent(player: usize, games: &[ArenaGame]) -> Option<usize> {
    games.iter().rev().find_map(|g| g.opponent_of(player))
}

/// Whether `a` and `b` may be paired now: not two computers of the server's (a game nobody
/// plays), and not each other's latest opponent — unless they are the only two players in
/// the arena, who would otherwise never play again.
fn may_meet(a: usize, b: usize, players: &[ArenaPlayer], games: &[ArenaGame]) -> bool {
    if players[a].who.is_computer() && players[b].who.is_computer() {
        return false;
    }
    let active = players.iter().filter(|p| !p.withdrawn).count();
    let rematch = last_opponent(a, games) == Some(b) || last_opponent(b, games) == Some(a);
    !rematch || active <= 2
}

/// Whites minus Blacks `player` has had.
fn colour_balance(player: usize, games: &[ArenaGame]) -> i32 {
    games.iter().filter_map(|g| g.side_of(player)).map(|side| if side == 0 { 1 } else { -1 }).sum()
}

/// The pairings to make among the free players `free` (White first): the best placed free
/// player meets the free player nearest in points whom they may meet, then the next, and so
/// on; one left over waits for the next game to end. Colours go to whoever has had fewer
/// Whites (the one placed higher on a tie).
pub fn pairings(free: &[usize], players: &[ArenaPlayer], games: &[ArenaGame], sheets: &[Sheet]) -> Vec<(usize, usize)> {
    let rank: Vec<usize> = {
        let order = standing(sheets);
        let mut rank = vec![0; sheets.len()];
        for (i, &p) in order.iter().enumerate() {
            rank[p] = i;
        }
        rank
    };
    let mut left: Vec<usize> = free.iter().copied().filter(|&p| p < players.len()).collect();
    left.sort_by_key(|&p| rank[p]);
    let mut made = Vec::new();
    while let Some(a) = left.first().copied() {
        left.remove(0);
        let score = |p: usize| i64::from(sheets[p].total);
        let best = left
            .iter()
            .enumerate()
            .filter(|(_, &b)| may_meet(a, b, players, games))
            .min_by_key(|(_, &b)| ((score(a) - score(b)).abs(), rank[b]))
            .map(|(i, &b)| (i, b));
        if let Some((i, b)) = best {
            left.remove(i);
            let (wa, wb) = (colour_balance(a, games), colour_balance(b, games));
            made.push(if wb < wa { (b, a) } else { (a, b) });
        }
    }
    made
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(name: &str, id: i64) -> ArenaPlayer {
        ArenaPlayer { name: name.into(), who: Who::Account { id, bot: false }, withdrawn: false, rating: None }
    }

    fn level(level: u8) -> ArenaPlayer {
        ArenaPlayer { name: format!("Level {level}"), who: Who::Level { level }, withdrawn: false, rating: None }
    }

    #[test]
    fn a_level_is_stored_with_its_ladder_and_the_first_ladders_read_as_today() {
        let text = serde_json::to_string(&Who::Level { level: 12 }).unwrap();
        assert_eq!(text, r#"{"kind":"level","level":12,"ladder":2}"#);
        assert_eq!(serde_json::from_str::<Who>(&text).unwrap(), Who::Level { level: 12 });
        let first = |level: u8| serde_json::from_str::<Who>(&format!(r#"{{"kind":"level","level":{level}}}"#)).unwrap();
        assert_eq!(first(8), Who::Level { level: 12 });
        assert_eq!(first(3), Who::Level { level: 3 });
        assert_eq!(first(40), Who::Level { level: 40 }, "kept for joining to refuse");
        let account = Who::Account { id: 7, bot: true };
        assert_eq!(serde_json::from_str::<Who>(&serde_json::to_string(&account).unwrap()).unwrap(), account);
    }

    fn ended(white: usize, black: usize, result: u8) -> ArenaGame {
        ArenaGame {
            id: format!("g{white}{black}"),
            white,
            black,
            played: Played::Ended { white: result },
            berserk: [false; 2],
        }
    }

    #[test]
    fn wins_draws_and_the_streak_count_as_on_lichess() {
        // Player 0: win, win, win (on fire: 4), draw (on fire: 2, ends it), win, loss.
        let games = [ended(0, 1, 2), ended(2, 0, 0), ended(0, 3, 2), ended(4, 0, 1), ended(0, 1, 2), ended(2, 0, 2)];
        let s = sheet(0, &games, true);
        assert_eq!(s.scores, [2, 2, 4, 2, 2, 0]);
        assert_eq!((s.total, s.games, s.wins, s.fire), (12, 6, 4, false));
        // With streaks off, every win is 2 and every draw 1.
        assert_eq!(sheet(0, &games, false).scores, [2, 2, 2, 1, 2, 0]);
        // Two wins in a row: on fire for the next game.
        assert!(sheet(0, &games[..2], true).fire);
        assert!(!sheet(0, &games[..1], true).fire);
    }

    #[test]
    fn berserk_adds_a_point_to_a_win_only() {
        let mut win = ended(0, 1, 2);
        win.berserk = [true, true];
        let mut draw = ended(1, 0, 1);
        draw.berserk = [true, true];
        let games = [win.clone(), draw, ended(0, 2, 2), ended(3, 0, 2)];
        assert_eq!(sheet(0, &games, true).scores, [3, 1, 2, 0]);
        assert_eq!(sheet(0, &games, true).berserks, 2);
        assert_eq!(sheet(1, &games, true).scores, [0, 1]);
        // A berserk win on fire: 4 + 1.
        assert_eq!(points(2, true, true), 5);
        assert_eq!(points(1, true, true), 2);
        assert_eq!(points(0, true, true), 0);
    }

    #[test]
    fn void_and_unfinished_games_count_for_nobody() {
        let mut void = ended(0, 1, 2);
        void.played = Played::Void;
        let mut playing = ended(0, 2, 2);
        playing.played = Played::Playing;
        let s = sheet(0, &[void, playing], true);
        assert_eq!((s.total, s.games), (0, 0));
    }

    #[test]
    fn the_free_player_meets_the_nearest_score_but_not_the_last_opponent() {
        let players: Vec<_> = (0..5).map(|i| person(&format!("p{i}"), i)).collect();
        // Scores: p0 4 (two wins), p1 0, p2 2, p3 2, p4 0; p0 last met p2.
        let games = [ended(0, 1, 2), ended(2, 4, 2), ended(3, 1, 2), ended(0, 2, 2)];
        let sheets: Vec<_> = (0..5).map(|p| sheet(p, &games, true)).collect();
        assert_eq!(sheets.iter().map(|s| s.total).collect::<Vec<_>>(), [4, 0, 2, 2, 0]);
        // p0 and p2 free: they just met, and there are others in the arena: nobody is paired.
        assert_eq!(pairings(&[0, 2], &players, &games, &sheets), []);
        // p3 free as well: p0 (best placed) meets p3 (nearest score, not p2); p2 waits.
        let made = pairings(&[0, 2, 3], &players, &games, &sheets);
        assert_eq!(made.len(), 1);
        let (w, b) = made[0];
        assert_eq!([w.min(b), w.max(b)], [0, 3]);
        // Everyone free: p0–p3, then p2 (2) meets p1 or p4 (0), one of whom waits.
        let made = pairings(&[0, 1, 2, 3, 4], &players, &games, &sheets);
        assert_eq!(made.len(), 2);
        assert!(made.iter().all(|&(w, b)| last_opponent(w, &games) != Some(b)));
    }

    #[test]
    fn colours_go_to_whoever_had_fewer_whites() {
        let players: Vec<_> = (0..4).map(|i| person(&format!("p{i}"), i)).collect();
        // p0 has had White twice; p3 Black twice.
        let games = [ended(0, 1, 1), ended(0, 2, 1), ended(1, 3, 1), ended(2, 3, 1)];
        let sheets: Vec<_> = (0..4).map(|p| sheet(p, &games, true)).collect();
        assert_eq!(pairings(&[0, 3], &players, &games, &sheets), [(3, 0)]);
    }

    #[test]
    fn two_computers_never_meet_and_two_lone_players_meet_again() {
        let players = vec![level(1), level(2), person("p", 1)];
        let sheets = vec![Sheet::default(); 3];
        assert_eq!(pairings(&[0, 1], &players, &[], &sheets), []);
        assert_eq!(pairings(&[0, 1, 2], &players, &[], &sheets).len(), 1);
        let players = vec![person("a", 1), person("b", 2)];
        let games = [ended(0, 1, 2)];
        let sheets: Vec<_> = (0..2).map(|p| sheet(p, &games, true)).collect();
        assert_eq!(pairings(&[0, 1], &players, &games, &sheets), [(1, 0)]);
    }

    #[test]
    fn free_leaves_out_the_withdrawn_and_the_busy() {
        let mut players: Vec<_> = (0..4).map(|i| person(&format!("p{i}"), i)).collect();
        players[3].withdrawn = true;
        let mut playing = ended(0, 1, 2);
        playing.played = Played::Playing;
        assert_eq!(free(&players, &[playing]), [2]);
    }

    #[test]
    fn standing_is_by_points_then_fewer_games_then_entry() {
        let s = |total, games| Sheet { total, games, ..Sheet::default() };
        assert_eq!(standing(&[s(4, 3), s(6, 5), s(4, 2), s(4, 3)]), [1, 2, 0, 3]);
    }
}
