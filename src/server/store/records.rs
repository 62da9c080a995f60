//! The columns' own formats, shared by the SQLite and the PostgreSQL store. Written by SQLite's
//! schema 1 and kept ever since; they are the store's, not the wire's, and happen to read as
//! the protocol's JSON did then. Change them only with a migration (in both stores).

use super::accounts::{ratings_json, ratings_of};
use super::{StoreError, StoredChat, StoredClock, StoredGame, StoredScore, StoredSeat, StoredTimes, CHAT_KEPT};
use crate::bots::{Level, LADDER};
use crate::chess::{Outcome, Repetition, Rules, Variant};
use crate::server::token::TokenHash;

/// One `games` row as both stores hold it, column for column, without its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct GameRow {
    pub(super) id: String,
    pub(super) variant: String,
    pub(super) initial_fen: String,
    pub(super) rules: String,
    pub(super) white: String,
    pub(super) black: String,
    pub(super) white_token: Option<Vec<u8>>,
    pub(super) black_token: Option<Vec<u8>>,
    pub(super) clock: Option<String>,
    pub(super) result: Option<String>,
    pub(super) reason: Option<String>,
    pub(super) created_ms: i64,
    pub(super) ended_ms: Option<i64>,
    pub(super) v: i64,
    pub(super) white_ms: Option<i64>,
    pub(super) black_ms: Option<i64>,
    pub(super) white_name: Option<String>,
    pub(super) black_name: Option<String>,
    pub(super) match_white: i32,
    pub(super) match_black: i32,
    pub(super) match_games: i32,
    pub(super) white_account: Option<i64>,
    pub(super) black_account: Option<i64>,
    pub(super) rated: bool,
    pub(super) ratings: Option<String>,
}

impl GameRow {
    /// The row of a new game.
    pub(super) fn of(g: &StoredGame) -> GameRow {
        GameRow {
            id: g.id.clone(),
            variant: variant_name(g.variant).to_string(),
            initial_fen: g.initial_fen.clone(),
            rules: json(&RulesRecord::from(g.rules)),
            white: json(&SeatRecord::from(&g.white)),
            black: json(&SeatRecord::from(&g.black)),
            white_token: token(&g.white),
            black_token: token(&g.black),
            white_name: name(&g.white),
            black_name: name(&g.black),
            clock: g.clock.map(|c| {
                json(&ClockRecord {
                    initial_ms: c.initial_ms,
                    increment_ms: c.increment_ms,
                    days: c.days,
                    berserkable: c.berserkable,
                })
            }),
            result: g.outcome.map(|o| o.result().to_string()),
            reason: g.outcome.map(|o| o.reason.name().to_string()),
            created_ms: g.created_ms,
            ended_ms: g.ended_ms,
            v: to_i64(g.v),
            white_ms: g.times.map(|t| to_i64(t.white_ms)),
            black_ms: g.times.map(|t| to_i64(t.black_ms)),
            match_white: to_i32(g.score.white),
            match_black: to_i32(g.score.black),
            match_games: to_i32(g.score.games),
            white_account: account(&g.white),
            black_account: account(&g.black),
            rated: g.rated,
            ratings: g.ratings.as_ref().map(ratings_json),
        }
    }

    /// The `status` column of a new game's row.
    pub(super) fn status(&self) -> &'static str {
        if self.result.is_some() {
            "ended"
        } else {
            "playing"
        }
    }

    /// The game the row holds (its moves still to be read); an error says what is wrong with it.
    pub(super) fn into_game(self) -> Result<StoredGame, String> {
        let id = self.id;
        let bad = |what: &str, e: &dyn std::fmt::Display| format!("game {id:?}: bad {what}: {e}");
        let variant = variant_of(&self.variant).ok_or_else(|| bad("variant", &self.variant))?;
        let rules: RulesRecord = serde_json::from_str(&self.rules).map_err(|e| bad("rules", &e))?;
        let rules = Rules::try_from(rules).map_err(|e| bad("rules", &e))?;
        let seat = |spec: &str, token: Option<Vec<u8>>, name: Option<String>, account: Option<i64>, what: &str| {
            let spec: SeatRecord = serde_json::from_str(spec).map_err(|e| bad(what, &e))?;
            Ok::<_, String>(match spec {
                // Stored as today's level number, whatever ladder wrote it.
                SeatRecord::Bot { level, ladder } => {
                    StoredSeat::Bot { level: Level::of_record(level, ladder).map_err(|e| bad(what, &e))?.get() }
                }
                SeatRecord::Engine { name, options } => StoredSeat::Engine { name, options },
                SeatRecord::Human => {
                    StoredSeat::Human { token: token.as_deref().and_then(TokenHash::from_slice), name, account }
                }
            })
        };
        let clock: Option<ClockRecord> =
            self.clock.map(|c| serde_json::from_str(&c)).transpose().map_err(|e| bad("clock", &e))?;
        let clock = clock.map(|c| StoredClock {
            initial_ms: c.initial_ms,
            increment_ms: c.increment_ms,
            days: c.days,
            berserkable: c.berserkable,
        });
        let times = match (self.white_ms, self.black_ms) {
            (Some(w), Some(b)) => Some(StoredTimes { white_ms: to_u64(w), black_ms: to_u64(b) }),
            _ => None,
        };
        let outcome = match (self.result, self.reason) {
            (Some(result), Some(reason)) => Some(
                Outcome::from_result(&result, &reason)
                    .ok_or_else(|| bad("result", &format!("{result} by {reason}")))?,
            ),
            _ => None,
        };
        Ok(StoredGame {
            variant,
            initial_fen: self.initial_fen,
            rules,
            white: seat(&self.white, self.white_token, self.white_name, self.white_account, "white seat")?,
            black: seat(&self.black, self.black_token, self.black_name, self.black_account, "black seat")?,
            clock,
            times,
            moves: Vec::new(),
            v: to_u64(self.v),
            outcome,
            created_ms: self.created_ms,
            ended_ms: self.ended_ms,
            score: StoredScore {
                white: u32::try_from(self.match_white).unwrap_or(0),
                black: u32::try_from(self.match_black).unwrap_or(0),
                games: u32::try_from(self.match_games).unwrap_or(0),
            },
            chat: Vec::new(),
            rated: self.rated,
            ratings: ratings_of(self.ratings.as_deref()),
            id,
        })
    }
}

/// The `games` columns in [`GameRow`]'s order, for both stores' SELECTs.
pub(super) const COLUMNS: &str = "id, variant, initial_fen, rules, white, black, white_token, black_token, clock,
                                  result, reason, created_ms, ended_ms, v, white_ms, black_ms, white_name, black_name,
                                  match_white, match_black, match_games, white_account, black_account, rated,
                                  ratings";

/// The games that could be read; the others are logged and left out.
pub(super) fn readable(games: Vec<Result<StoredGame, String>>) -> Result<Vec<StoredGame>, StoreError> {
    Ok(games
        .into_iter()
        .filter_map(|game| game.map_err(|e| tracing::error!(error = %e, "unreadable game in the store left out")).ok())
        .collect())
}

/// The one game a `load` looked for: None if it is not stored, an error if it is damaged.
pub(super) fn the_one(
    id: String,
    mut games: Vec<Result<StoredGame, String>>,
) -> Result<Option<StoredGame>, StoreError> {
    match games.pop() {
        None => Ok(None),
        Some(Ok(game)) => Ok(Some(game)),
        Some(Err(message)) => Err(StoreError::Damaged { game: id, message }),
    }
}

/// An UPDATE of one game's row changed `changed` rows: none means the game is not stored.
pub(super) fn must_change(game: &str, changed: u64) -> Result<(), String> {
    if changed == 0 {
        Err(format!("there is no game {game:?} in the store"))
    } else {
        Ok(())
    }
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn token(seat: &StoredSeat) -> Option<Vec<u8>> {
    match seat {
        StoredSeat::Human { token: Some(hash), .. } => Some(hash.0.to_vec()),
        _ => None,
    }
}

fn name(seat: &StoredSeat) -> Option<String> {
    match seat {
        StoredSeat::Human { name, .. } => name.clone(),
        StoredSeat::Bot { .. } | StoredSeat::Engine { .. } => None,
    }
}

/// A score as a database INTEGER (far below its limit).
fn account(seat: &StoredSeat) -> Option<i64> {
    match seat {
        StoredSeat::Human { account, .. } => *account,
        StoredSeat::Bot { .. } | StoredSeat::Engine { .. } => None,
    }
}

fn to_i32(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// The `room` column of a chat line.
pub(super) fn chat_room(line: &StoredChat) -> &'static str {
    if line.players {
        "players"
    } else {
        "spectators"
    }
}

/// The last [`CHAT_KEPT`] lines of each room, of lines read oldest first as
/// `(room, sender, text, at_ms)`.
pub(super) fn chat_lines(rows: impl IntoIterator<Item = (String, String, String, i64)>) -> Vec<StoredChat> {
    let lines: Vec<StoredChat> = rows
        .into_iter()
        .map(|(room, from, text, at_ms)| StoredChat { players: room == "players", from, text, at_ms })
        .collect();
    let count = |players: bool| lines.iter().filter(|l| l.players == players).count();
    let (mut skip_players, mut skip_spectators) =
        (count(true).saturating_sub(CHAT_KEPT), count(false).saturating_sub(CHAT_KEPT));
    lines
        .into_iter()
        .filter(|l| {
            let skip = if l.players { &mut skip_players } else { &mut skip_spectators };
            if *skip > 0 {
                *skip -= 1;
                false
            } else {
                true
            }
        })
        .collect()
}

/// A count or time as a database integer (they are far below `i64::MAX`).
pub(super) fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// The `variant` column.
fn variant_name(variant: Variant) -> &'static str {
    match variant {
        Variant::Standard => "standard",
        Variant::Minichess7 => "minichess7",
        Variant::Chess960 => "chess960",
    }
}

fn variant_of(name: &str) -> Option<Variant> {
    Variant::ALL.into_iter().find(|v| variant_name(*v) == name)
}

/// The `rules` column: `{"castling":true,"en_passant":true,"repetition":"threefold"}`.
#[derive(serde::Serialize, serde::Deserialize)]
struct RulesRecord {
    castling: bool,
    en_passant: bool,
    repetition: String,
}

impl From<Rules> for RulesRecord {
    fn from(rules: Rules) -> RulesRecord {
        let repetition = match rules.repetition {
            Repetition::Threefold => "threefold",
            Repetition::EightMove => "eight_move",
        };
        RulesRecord { castling: rules.castling, en_passant: rules.en_passant, repetition: repetition.into() }
    }
}

impl TryFrom<RulesRecord> for Rules {
    type Error = String;
    fn try_from(record: RulesRecord) -> Result<Rules, String> {
        let repetition = match record.repetition.as_str() {
            "threefold" => Repetition::Threefold,
            "eight_move" => Repetition::EightMove,
            other => return Err(format!("unknown repetition rule {other:?}")),
        };
        Ok(Rules { castling: record.castling, en_passant: record.en_passant, repetition })
    }
}

/// The `white` and `black` columns: `{"kind":"human"}`, `{"kind":"bot","level":3,"ladder":2}` or
/// `{"kind":"engine","name":"Stockfish","options":{"Skill Level":3}}` (a kind older servers
/// never wrote, so their databases read as before).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum SeatRecord {
    Human,
    Bot {
        level: u8,
        /// The ladder `level` is on (`bots::LADDER`); absent in records of the first ladder (1–8).
        #[serde(default)]
        ladder: u8,
    },
    Engine {
        name: String,
        #[serde(default)]
        options: std::collections::BTreeMap<String, i64>,
    },
}

impl From<&StoredSeat> for SeatRecord {
    fn from(seat: &StoredSeat) -> SeatRecord {
        match seat {
            StoredSeat::Human { .. } => SeatRecord::Human,
            StoredSeat::Bot { level } => SeatRecord::Bot { level: *level, ladder: LADDER },
            StoredSeat::Engine { name, options } => SeatRecord::Engine { name: name.clone(), options: options.clone() },
        }
    }
}

/// The `clock` column: `{"initial_ms":300000,"increment_ms":2000}`; a correspondence game's
/// adds its days per move (`"days":3`; older servers wrote no correspondence games).
#[derive(serde::Serialize, serde::Deserialize)]
struct ClockRecord {
    initial_ms: u64,
    increment_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    days: Option<u32>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    berserkable: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_seats_are_kept_and_old_seats_read_as_before() {
        let options = std::collections::BTreeMap::from([("Skill Level".to_string(), 3)]);
        let engine = StoredSeat::Engine { name: "Stockfish".into(), options: options.clone() };
        let text = json(&SeatRecord::from(&engine));
        assert_eq!(text, r#"{"kind":"engine","name":"Stockfish","options":{"Skill Level":3}}"#);
        let back: SeatRecord = serde_json::from_str(&text).unwrap();
        assert!(matches!(back, SeatRecord::Engine { name, options: o } if name == "Stockfish" && o == options));
        // What servers before engine seats wrote.
        let bot: SeatRecord = serde_json::from_str(r#"{"kind":"bot","level":3}"#).unwrap();
        assert!(matches!(bot, SeatRecord::Bot { level: 3, ladder: 0 }));
        assert!(matches!(serde_json::from_str(r#"{"kind":"human"}"#).unwrap(), SeatRecord::Human));
    }

    /// A game a server of the first ladder (levels 1–8) stored with its level 8 seat opens
    /// with full strength, today's level 12, and is written back under today's ladder.
    #[test]
    fn a_first_ladder_level_opens_as_the_level_nearest_it() {
        let game = StoredGame {
            id: "ladder1".into(),
            variant: Variant::Standard,
            initial_fen: Variant::Standard.initial_fen().into(),
            rules: Rules::default(),
            white: StoredSeat::Human { token: None, name: Some("Ann".into()), account: None },
            black: StoredSeat::Bot { level: 12 },
            clock: None,
            times: None,
            moves: Vec::new(),
            v: 1,
            outcome: None,
            created_ms: 1_700_000_000_000,
            ended_ms: None,
            score: Default::default(),
            chat: Vec::new(),
            rated: false,
            ratings: None,
        };
        let mut row = GameRow::of(&game);
        assert_eq!(row.black, r#"{"kind":"bot","level":12,"ladder":2}"#);
        let black = |row: &GameRow| match row.clone().into_game().expect("a game").black {
            StoredSeat::Bot { level } => level,
            other => panic!("not a bot: {other:?}"),
        };
        assert_eq!(black(&row), 12);
        for (then, now) in [(1, 1), (4, 4), (5, 7), (6, 8), (7, 10), (8, 12)] {
            row.black = format!(r#"{{"kind":"bot","level":{then}}}"#);
            assert_eq!(black(&row), now, "first ladder's level {then}");
        }
        row.black = r#"{"kind":"bot","level":9}"#.into();
        let err = row.clone().into_game().map(drop).unwrap_err();
        assert!(err.contains("bad black seat: level must be 1 to 12, not 9"), "{err}");
        row.black = r#"{"kind":"bot","level":13,"ladder":2}"#.into();
        assert!(row.clone().into_game().is_err());
    }
}
