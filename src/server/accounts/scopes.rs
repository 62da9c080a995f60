//! What a personal API token may do: lichess's OAuth scopes, by lichess's names, so a program
//! written for lichess asks for (and `POST /api/token/test` reports) the same ones here. Scopes
//! of things gambit does not have yet are still accepted and shown, as lichess shows them.

use std::fmt;

/// One scope.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scope {
    PreferenceRead,
    PreferenceWrite,
    EmailRead,
    ChallengeRead,
    ChallengeWrite,
    ChallengeBulk,
    StudyRead,
    StudyWrite,
    TournamentWrite,
    RacerWrite,
    PuzzleRead,
    PuzzleWrite,
    TeamRead,
    TeamWrite,
    TeamLead,
    FollowRead,
    FollowWrite,
    MsgWrite,
    BoardPlay,
    BotPlay,
    EngineRead,
    EngineWrite,
}

impl Scope {
    /// Every scope, in lichess's order.
    pub const ALL: [Scope; 22] = [
        Scope::PreferenceRead,
        Scope::PreferenceWrite,
        Scope::EmailRead,
        Scope::ChallengeRead,
        Scope::ChallengeWrite,
        Scope::ChallengeBulk,
        Scope::StudyRead,
        Scope::StudyWrite,
        Scope::TournamentWrite,
        Scope::RacerWrite,
        Scope::PuzzleRead,
        Scope::PuzzleWrite,
        Scope::TeamRead,
        Scope::TeamWrite,
        Scope::TeamLead,
        Scope::FollowRead,
        Scope::FollowWrite,
        Scope::MsgWrite,
        Scope::BoardPlay,
        Scope::BotPlay,
        Scope::EngineRead,
        Scope::EngineWrite,
    ];

    /// lichess's name of the scope.
    pub fn name(self) -> &'static str {
        match self {
            Scope::PreferenceRead => "preference:read",
            Scope::PreferenceWrite => "preference:write",
            Scope::EmailRead => "email:read",
            Scope::ChallengeRead => "challenge:read",
            Scope::ChallengeWrite => "challenge:write",
            Scope::ChallengeBulk => "challenge:bulk",
            Scope::StudyRead => "study:read",
            Scope::StudyWrite => "study:write",
            Scope::TournamentWrite => "tournament:write",
            Scope::RacerWrite => "racer:write",
            Scope::PuzzleRead => "puzzle:read",
            Scope::PuzzleWrite => "puzzle:write",
            Scope::TeamRead => "team:read",
            Scope::TeamWrite => "team:write",
            Scope::TeamLead => "team:lead",
            Scope::FollowRead => "follow:read",
            Scope::FollowWrite => "follow:write",
            Scope::MsgWrite => "msg:write",
            Scope::BoardPlay => "board:play",
            Scope::BotPlay => "bot:play",
            Scope::EngineRead => "engine:read",
            Scope::EngineWrite => "engine:write",
        }
    }

    /// The scope called `name`.
    pub fn parse(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.name() == name)
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// A set of scopes (a bit per scope).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Scopes(u32);

impl Scopes {
    /// Every scope: what a logged-in browser may do through the API with its session.
    pub fn all() -> Scopes {
        Scope::ALL.into_iter().fold(Scopes::default(), Scopes::with)
    }

    pub fn with(self, scope: Scope) -> Scopes {
        Scopes(self.0 | scope.bit())
    }

    pub fn contains(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    /// The scopes named in `names` (each once or more); the first unknown name is the error.
    pub fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Scopes, String> {
        names.into_iter().map(str::trim).filter(|n| !n.is_empty()).try_fold(Scopes::default(), |set, name| {
            Scope::parse(name).map(|s| set.with(s)).ok_or_else(|| name.to_string())
        })
    }

    /// The scopes' names, in lichess's order.
    pub fn names(self) -> Vec<&'static str> {
        Scope::ALL.into_iter().filter(|s| self.contains(*s)).map(Scope::name).collect()
    }
}

/// The comma-separated names, as lichess's `/api/token/test` writes them (and the store keeps).
impl fmt::Display for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names().join(","))
    }
}

impl fmt::Debug for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Scopes({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_read_and_write_lichess_names() {
        let set = Scopes::parse("bot:play, challenge:read,,bot:play".split(',')).expect("known names");
        assert!(set.contains(Scope::BotPlay) && set.contains(Scope::ChallengeRead));
        assert!(!set.contains(Scope::BoardPlay));
        assert_eq!(set.to_string(), "challenge:read,bot:play");
        assert_eq!(Scopes::parse(set.to_string().split(',')), Ok(set));
        assert_eq!(Scopes::parse(["bot:play", "bot:fly"]), Err("bot:fly".to_string()));
        assert_eq!(Scopes::parse([""]), Ok(Scopes::default()));
        assert_eq!(Scopes::all().names().len(), Scope::ALL.len());
        for scope in Scope::ALL {
            assert_eq!(Scope::parse(scope.name()), Some(scope));
        }
    }
}
