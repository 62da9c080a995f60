//! The rating categories: a player has a separate rating in each, as on lichess.

use std::fmt;

use crate::chess::Variant;

/// The rating categories. A player has a separate rating in each, since skill at bullet says
/// little about skill at classical, and minichess is a different game altogether.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    Bullet,
    Blitz,
    Rapid,
    Classical,
    /// Days per move rather than a clock (lichess's correspondence).
    Correspondence,
    Minichess7,
    /// Every Chess960 game, whatever its clock (as on lichess).
    Chess960,
}

impl Category {
    /// Every category, in display order.
    pub const ALL: [Category; 7] = [
        Category::Bullet,
        Category::Blitz,
        Category::Rapid,
        Category::Classical,
        Category::Correspondence,
        Category::Minichess7,
        Category::Chess960,
    ];

    /// The category's name as stored and as sent to clients.
    pub fn name(self) -> &'static str {
        match self {
            Category::Bullet => "bullet",
            Category::Blitz => "blitz",
            Category::Rapid => "rapid",
            Category::Classical => "classical",
            Category::Correspondence => "correspondence",
            Category::Minichess7 => "minichess7",
            Category::Chess960 => "chess960",
        }
    }

    /// The category with this exact (lower-case) name. Case is not folded, so that a stored name
    /// has exactly one spelling.
    pub fn parse(s: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == s)
    }

    /// minichess7 and Chess960 are categories of their own; otherwise by estimated duration = initial + 40 * increment
    /// (as lichess): < 180 s bullet, < 480 s blitz, < 1500 s rapid, else classical.
    ///
    /// Forty moves is lichess's estimate of a typical game's length, so the increment counts for
    /// forty times its value. The comparison is in milliseconds, so a clock of 179.5 s is still
    /// bullet; the arithmetic saturates so that an absurd clock is classical rather than a panic.
    pub fn of(variant: Variant, initial_ms: u64, increment_ms: u64) -> Category {
        Category::of_game(variant, Some((initial_ms, increment_ms)))
    }

    /// The category of a game of `variant` on a clock of `(initial_ms, increment_ms)` or, with
    /// None, played by days per move: minichess7 and Chess960 are their own categories either
    /// way, standard chess by days is correspondence.
    pub fn of_game(variant: Variant, clock: Option<(u64, u64)>) -> Category {
        match variant {
            Variant::Minichess7 => return Category::Minichess7,
            Variant::Chess960 => return Category::Chess960,
            Variant::Standard => {}
        }
        let Some((initial_ms, increment_ms)) = clock else {
            return Category::Correspondence;
        };
        let estimated_ms = initial_ms.saturating_add(increment_ms.saturating_mul(40));
        if estimated_ms < 180_000 {
            Category::Bullet
        } else if estimated_ms < 480_000 {
            Category::Blitz
        } else if estimated_ms < 1_500_000 {
            Category::Rapid
        } else {
            Category::Classical
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn category_of_boundaries() {
        assert_eq!(Category::of(Variant::Standard, 60_000, 0), Category::Bullet);
        assert_eq!(Category::of(Variant::Standard, 120_000, 1_000), Category::Bullet);
        assert_eq!(Category::of(Variant::Standard, 179_000, 0), Category::Bullet);
        assert_eq!(Category::of(Variant::Standard, 179_999, 0), Category::Bullet);
        assert_eq!(Category::of(Variant::Standard, 180_000, 0), Category::Blitz);
        assert_eq!(Category::of(Variant::Standard, 180_000, 2_000), Category::Blitz); // 3+2: 260 s
        assert_eq!(Category::of(Variant::Standard, 300_000, 3_000), Category::Blitz); // 5+3: 420 s
        assert_eq!(Category::of(Variant::Standard, 479_000, 0), Category::Blitz);
        assert_eq!(Category::of(Variant::Standard, 480_000, 0), Category::Rapid);
        assert_eq!(Category::of(Variant::Standard, 600_000, 0), Category::Rapid); // 10+0
        assert_eq!(Category::of(Variant::Standard, 900_000, 10_000), Category::Rapid); // 15+10: 1300 s
        assert_eq!(Category::of(Variant::Standard, 1_499_000, 0), Category::Rapid);
        assert_eq!(Category::of(Variant::Standard, 1_500_000, 0), Category::Classical); // 25+0
        assert_eq!(Category::of(Variant::Standard, 0, 45_000), Category::Classical); // 0+45: 1800 s
        assert_eq!(Category::of(Variant::Standard, u64::MAX, u64::MAX), Category::Classical);
        for (initial, increment) in [(0, 0), (60_000, 0), (180_000, 2_000), (600_000, 0), (5_400_000, 30_000)] {
            assert_eq!(Category::of(Variant::Minichess7, initial, increment), Category::Minichess7);
        }
    }

    #[test]
    fn category_names() {
        for c in Category::ALL {
            assert_eq!(Category::parse(c.name()), Some(c));
            assert_eq!(c.to_string(), c.name());
        }
        assert_eq!(Category::parse("Blitz"), None);
        assert_eq!(Category::parse(""), None);
        assert_eq!(Category::parse("blitz "), None);
        let names: Vec<&str> = Category::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names, ["bullet", "blitz", "rapid", "classical", "correspondence", "minichess7", "chess960"]);
        assert_eq!(Category::of_game(Variant::Standard, None), Category::Correspondence);
        assert_eq!(
            Category::of_game(Variant::Minichess7, None),
            Category::Minichess7,
            "minichess7 by days is minichess7"
        );
        assert_eq!(Category::of_game(Variant::Chess960, None), Category::Chess960);
        assert_eq!(Category::of(Variant::Chess960, 60_000, 0), Category::Chess960, "Chess960 at any speed");
    }
}
