//! The options `gambit uci` offers a GUI (docs/uci.md): their announcement and their checked
//! setting. A bad value is refused with a message and changes nothing.

use super::Setup;
use crate::bots::search::{bits_for_megabytes, CONTEMPT};
use crate::bots::Level;
use crate::chess::Variant;

/// `Hash` in MiB: its default and most.
const HASH_DEFAULT_MB: u64 = 16;
const HASH_MAX_MB: u64 = 1024;
/// The most principal variations `MultiPV` asks for.
const MULTIPV_MAX: usize = 64;
/// The most `Contempt`, either way, in centipawns: beyond a pawn it would throw games away.
const CONTEMPT_MAX: i64 = 100;

/// The options a GUI sets.
#[derive(Clone, Copy, Debug)]
pub(super) struct Options {
    level: Level,
    limit_strength: bool,
    elo: u32,
    pub(super) multipv: usize,
    /// `Contempt`: how much worse than even a draw is for the engine (negative: better).
    pub(super) contempt: i32,
    hash_mb: u64,
    /// `UCI_Variant`: standard chess or minichess7.
    base: Variant,
    /// `UCI_Chess960`: standard chess from any of the 960 starts, castling written king-takes-rook.
    chess960: bool,
}

/// What a `setoption` did besides storing a value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Set {
    Value,
    /// The `Clear Hash` button: the next search starts from an empty table.
    ClearHash,
    /// `UCI_Variant` or `UCI_Chess960`: the engine's variant, which resets the position when it changes.
    Variant(Variant),
}

impl Options {
    /// The level that plays: the one `UCI_Elo` names when strength is limited, else `Level`.
    pub(super) fn level(&self) -> Level {
        if self.limit_strength {
            Level::for_rating(self.elo)
        } else {
            self.level
        }
    }

    /// What the player is made from.
    pub(super) fn setup(&self) -> Setup {
        Setup { level: self.level(), table_bits: bits_for_megabytes(self.hash_mb) }
    }

    /// The `option` lines of the answer to `uci`.
    pub(super) fn announce() -> Vec<String> {
        let (lowest, highest) = (Level::ALL[0], Level::FULL);
        vec![
            format!("option name Level type spin default {} min 1 max {}", highest.get(), highest.get()),
            format!("option name Hash type spin default {HASH_DEFAULT_MB} min 1 max {HASH_MAX_MB}"),
            "option name Clear Hash type button".to_string(),
            format!("option name MultiPV type spin default 1 min 1 max {MULTIPV_MAX}"),
            format!("option name Contempt type spin default {CONTEMPT} min -{CONTEMPT_MAX} max {CONTEMPT_MAX}"),
            "option name UCI_LimitStrength type check default false".to_string(),
            format!(
                "option name UCI_Elo type spin default {} min {} max {}",
                highest.rating(),
                lowest.rating(),
                highest.rating()
            ),
            // "chess" is what UCI_Variant calls standard chess (Fairy-Stockfish, python-chess).
            "option name UCI_Variant type combo default chess var chess var minichess7".to_string(),
            "option name UCI_Chess960 type check default false".to_string(),
        ]
    }

    /// Sets option `name` (any case, as UCI allows) to `value`; on error nothing changes and
    /// the message says what was wrong.
    pub(super) fn set(&mut self, name: &str, value: Option<String>) -> Result<Set, String> {
        let key = name.to_ascii_lowercase();
        if key == "clear hash" {
            return Ok(Set::ClearHash);
        }
        const VALUED: [&str; 8] =
            ["level", "hash", "multipv", "contempt", "uci_elo", "uci_limitstrength", "uci_variant", "uci_chess960"];
        if !VALUED.contains(&key.as_str()) {
            return Err(format!(
                "unknown option {name:?}; the options are Level, Hash, Clear Hash, MultiPV, Contempt, UCI_LimitStrength, UCI_Elo, UCI_Variant and UCI_Chess960"
            ));
        }
        let Some(value) = value.filter(|v| !v.is_empty()) else {
            return Err(format!("setoption {name} needs a value"));
        };
        let unchanged = |message: String| format!("{message}; unchanged");
        let (lowest, highest) = (i64::from(Level::ALL[0].rating()), i64::from(Level::FULL.rating()));
        match key.as_str() {
            "level" => {
                let n = spin("Level", &value, 1, i64::from(Level::FULL.get())).map_err(unchanged)?;
                // In range, so Level::new accepts it.
                self.level = Level::new(n as u8).map_err(|e| unchanged(e.to_string()))?;
            }
            "hash" => self.hash_mb = spin("Hash", &value, 1, HASH_MAX_MB as i64).map_err(unchanged)? as u64,
            "multipv" => {
                self.multipv = spin("MultiPV", &value, 1, MULTIPV_MAX as i64).map_err(unchanged)? as usize;
            }
            "contempt" => {
                self.contempt = spin("Contempt", &value, -CONTEMPT_MAX, CONTEMPT_MAX).map_err(unchanged)? as i32;
            }
            "uci_elo" => self.elo = spin("UCI_Elo", &value, lowest, highest).map_err(unchanged)? as u32,
            "uci_limitstrength" => self.limit_strength = check("UCI_LimitStrength", &value).map_err(unchanged)?,
            "uci_chess960" => {
                self.chess960 = check("UCI_Chess960", &value).map_err(unchanged)?;
                return Ok(Set::Variant(self.variant()));
            }
            _ => {
                self.base = match value.to_ascii_lowercase().as_str() {
                    "chess" | "standard" => Variant::Standard,
                    "minichess7" => Variant::Minichess7,
                    _ => return Err(unchanged(format!("UCI_Variant must be chess or minichess7, not {value:?}"))),
                };
                return Ok(Set::Variant(self.variant()));
            }
        }
        Ok(Set::Value)
    }

    /// The variant `UCI_Variant` and `UCI_Chess960` name together (UCI_Chess960 means nothing
    /// in minichess7, which has no castling).
    fn variant(&self) -> Variant {
        match self.base {
            Variant::Standard if self.chess960 => Variant::Chess960,
            base => base,
        }
    }
}

/// A check option's value: true or false.
fn check(name: &str, value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{name} must be true or false, not {value:?}")),
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            level: Level::FULL,
            limit_strength: false,
            elo: u32::from(Level::FULL.rating()),
            multipv: 1,
            contempt: CONTEMPT,
            hash_mb: HASH_DEFAULT_MB,
            base: Variant::Standard,
            chess960: false,
        }
    }
}

/// A spin option's value: a whole number from `min` to `max`.
fn spin(name: &str, value: &str, min: i64, max: i64) -> Result<i64, String> {
    value
        .trim()
        .parse::<i64>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| format!("{name} must be a whole number from {min} to {max}, not {value:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_strength_plays_the_level_of_the_rating() {
        let mut options = Options::default();
        assert_eq!(options.level(), Level::FULL);
        let six = Level::new(6).expect("level 6");
        options.set("UCI_Elo", Some(six.rating().to_string())).expect("a rating in range");
        assert_eq!(options.level(), Level::FULL, "UCI_Elo alone changes nothing");
        options.set("uci_limitstrength", Some("true".into())).expect("a check value");
        assert_eq!(options.level(), six);
        options.set("UCI_Elo", Some((six.rating() - 1).to_string())).expect("a rating in range");
        assert_eq!(options.level(), Level::new(5).expect("level 5"));
    }

    #[test]
    fn chess960_is_standard_chess_with_its_castling() {
        let mut options = Options::default();
        assert_eq!(options.set("UCI_Chess960", Some("true".into())), Ok(Set::Variant(Variant::Chess960)));
        assert_eq!(options.set("UCI_Variant", Some("minichess7".into())), Ok(Set::Variant(Variant::Minichess7)));
        assert_eq!(options.set("UCI_Variant", Some("chess".into())), Ok(Set::Variant(Variant::Chess960)));
        assert_eq!(options.set("UCI_Chess960", Some("false".into())), Ok(Set::Variant(Variant::Standard)));
    }

    #[test]
    fn bad_values_change_nothing() {
        let mut options = Options::default();
        for (name, value) in [
            ("Level", "0"),
            ("Level", "13"),
            ("Hash", "0"),
            ("Hash", "1025"),
            ("MultiPV", "65"),
            ("Contempt", "101"),
            ("Contempt", "-101"),
            ("Contempt", "a pawn"),
            ("UCI_Elo", "1"),
            ("UCI_LimitStrength", "yes"),
            ("UCI_Variant", "atomic"),
            ("UCI_Chess960", "1"),
            ("Ponder", "true"),
        ] {
            let before = format!("{options:?}");
            let message = options.set(name, Some(value.into())).expect_err(name);
            assert!(message.contains(name), "{name} {value}: {message}");
            assert_eq!(format!("{options:?}"), before, "{name} {value}");
        }
        assert_eq!(options.set("Clear Hash", None), Ok(Set::ClearHash));
        assert_eq!(options.set("MultiPV", Some("4".into())), Ok(Set::Value));
        assert_eq!(options.multipv, 4);
        assert_eq!(options.set("Contempt", Some("-20".into())), Ok(Set::Value));
        assert_eq!(options.contempt, -20);
    }
}
