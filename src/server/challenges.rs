//! Challenges by name (lichess's `/api/challenge/…`): one player asks another for a game with
//! given settings; the other accepts (the game starts), declines with a reason, or the
//! challenger withdraws it. The registry is this node's memory, as a seek's is: a challenge
//! lives minutes, and a restart asks the challenger to send it again.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use rand::Rng;
use thiserror::Error;

use crate::chess::Color;
use crate::protocol::{ClockSpec, NewGame, SeatSpec, VariantName};
use crate::server::accounts::Player;
use crate::server::store::{now_ms, AccountKey};

/// How long a challenge waits for an answer.
pub const CHALLENGE_TTL: Duration = Duration::from_secs(20 * 60);
/// The most challenges one player may have waiting at once.
pub const OPEN_MAX: usize = 20;

/// A player in a challenge: who they are, and how lichess shows them.
#[derive(Clone, Debug)]
pub struct Party {
    pub player: Player,
    pub account: AccountKey,
    pub name: String,
    pub bot: bool,
    /// Their rating in the challenge's category, and whether it is provisional.
    pub rating: Option<(i64, bool)>,
}

/// What game a challenge asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Terms {
    pub variant: VariantName,
    pub clock: Option<ClockSpec>,
    /// Days per move (lichess's correspondence); gambit plays it without a clock for now.
    pub days: Option<u32>,
    /// The challenger's colour as asked (None: random).
    pub color: Option<Color>,
    pub rated: bool,
    pub fen: Option<String>,
}

impl Terms {
    /// The game these terms make, the challenger sitting as `challenger`.
    pub fn game(&self, challenger: Color, name: Option<crate::protocol::PlayerName>) -> NewGame {
        NewGame {
            variant: self.variant,
            fen: self.fen.clone(),
            rules: Default::default(),
            white: SeatSpec::Human,
            black: SeatSpec::Human,
            clock: self.clock,
            as_side: Some(challenger),
            name,
            rated: self.rated,
        }
    }
}

/// Where a challenge stands (lichess's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Created,
    Accepted,
    Declined,
    Canceled,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Created => "created",
            Status::Accepted => "accepted",
            Status::Declined => "declined",
            Status::Canceled => "canceled",
        }
    }
}

/// Why a challenge was declined: lichess's reason keys, and the words it shows for each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decline {
    Generic,
    Later,
    TooFast,
    TooSlow,
    TimeControl,
    Rated,
    Casual,
    Standard,
    Variant,
    NoBot,
    OnlyBot,
}

impl Decline {
    const ALL: [Decline; 11] = [
        Decline::Generic,
        Decline::Later,
        Decline::TooFast,
        Decline::TooSlow,
        Decline::TimeControl,
        Decline::Rated,
        Decline::Casual,
        Decline::Standard,
        Decline::Variant,
        Decline::NoBot,
        Decline::OnlyBot,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Decline::Generic => "generic",
            Decline::Later => "later",
            Decline::TooFast => "tooFast",
            Decline::TooSlow => "tooSlow",
            Decline::TimeControl => "timeControl",
            Decline::Rated => "rated",
            Decline::Casual => "casual",
            Decline::Standard => "standard",
            Decline::Variant => "variant",
            Decline::NoBot => "noBot",
            Decline::OnlyBot => "onlyBot",
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            Decline::Generic => "I'm not accepting challenges at the moment.",
            Decline::Later => "This is not the right time for me, please ask again later.",
            Decline::TooFast => "This time control is too fast for me, please challenge again with a slower game.",
            Decline::TooSlow => "This time control is too slow for me, please challenge again with a faster game.",
            Decline::TimeControl => "I'm not accepting challenges with this time control.",
            Decline::Rated => "Please send me a rated challenge instead.",
            Decline::Casual => "Please send me a casual challenge instead.",
            Decline::Standard => "I'm not accepting variant challenges right now.",
            Decline::Variant => "I'm not willing to play this variant right now.",
            Decline::NoBot => "I'm not accepting challenges from bots.",
            Decline::OnlyBot => "I'm only accepting challenges from bots.",
        }
    }

    /// The reason keyed `key` (lichess's keys, any case; empty: generic).
    pub fn parse(key: &str) -> Option<Decline> {
        if key.is_empty() {
            return Some(Decline::Generic);
        }
        Decline::ALL.into_iter().find(|d| d.key().eq_ignore_ascii_case(key))
    }

    /// Every key, for an error message.
    pub fn keys() -> String {
        Decline::ALL.map(Decline::key).join(", ")
    }
}

/// One challenge.
#[derive(Clone, Debug)]
pub struct Challenge {
    pub id: String,
    pub challenger: Party,
    pub dest: Party,
    pub terms: Terms,
    /// The challenger's colour in the game: as asked, or drawn when the challenge was made.
    pub final_color: Color,
    pub status: Status,
    pub decline: Option<Decline>,
    pub created_ms: i64,
}

impl Challenge {
    /// A new challenge, its id drawn, the challenger's colour settled.
    pub fn new(challenger: Party, dest: Party, terms: Terms) -> Challenge {
        let final_color =
            terms.color.unwrap_or_else(|| if rand::rng().random_bool(0.5) { Color::White } else { Color::Black });
        Challenge {
            id: crate::server::lobby::new_game_id(),
            challenger,
            dest,
            terms,
            final_color,
            status: Status::Created,
            decline: None,
            created_ms: now_ms(),
        }
    }
}

/// Why a challenge operation was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ChallengeError {
    #[error("no such challenge (it may have been answered, withdrawn or expired)")]
    NotFound,
    #[error("this challenge is not addressed to you")]
    NotYours,
    #[error("you have {0} challenges waiting; withdraw one or wait for answers")]
    TooMany(usize),
}

/// The challenges waiting for an answer on this node.
#[derive(Default)]
pub struct Challenges {
    open: Mutex<HashMap<String, Challenge>>,
}

impl Challenges {
    /// The waiting challenges, expired ones gone. (A registry of small records: the lock is
    /// held for a lookup, never across an await.)
    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<String, Challenge>> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let oldest = now_ms() - CHALLENGE_TTL.as_millis() as i64;
        open.retain(|_, c| c.created_ms >= oldest);
        open
    }

    /// Adds a challenge.
    pub fn add(&self, challenge: Challenge) -> Result<(), ChallengeError> {
        let mut open = self.open();
        let from = challenge.challenger.account;
        let waiting = open.values().filter(|c| c.challenger.account == from).count();
        if waiting >= OPEN_MAX {
            return Err(ChallengeError::TooMany(waiting));
        }
        open.insert(challenge.id.clone(), challenge);
        Ok(())
    }

    /// The challenges to `account` and from it, oldest first.
    pub fn of(&self, account: AccountKey) -> (Vec<Challenge>, Vec<Challenge>) {
        let open = self.open();
        let mut incoming: Vec<Challenge> = open.values().filter(|c| c.dest.account == account).cloned().collect();
        let mut outgoing: Vec<Challenge> = open.values().filter(|c| c.challenger.account == account).cloned().collect();
        incoming.sort_by_key(|c| c.created_ms);
        outgoing.sort_by_key(|c| c.created_ms);
        (incoming, outgoing)
    }

    /// One waiting challenge that `account` is a party to.
    pub fn get(&self, id: &str, account: AccountKey) -> Result<Challenge, ChallengeError> {
        let open = self.open();
        let challenge = open.get(id).ok_or(ChallengeError::NotFound)?;
        if challenge.dest.account != account && challenge.challenger.account != account {
            return Err(ChallengeError::NotFound);
        }
        Ok(challenge.clone())
    }

    /// Takes challenge `id` out for its addressee `account` to answer: accepted or declined,
    /// once only.
    pub fn answer(&self, id: &str, account: AccountKey) -> Result<Challenge, ChallengeError> {
        let mut open = self.open();
        match open.get(id) {
            None => Err(ChallengeError::NotFound),
            Some(c) if c.dest.account != account => {
                Err(if c.challenger.account == account { ChallengeError::NotYours } else { ChallengeError::NotFound })
            }
            Some(_) => open.remove(id).ok_or(ChallengeError::NotFound),
        }
    }

    /// Takes challenge `id` out for its challenger `account` to withdraw.
    pub fn withdraw(&self, id: &str, account: AccountKey) -> Result<Challenge, ChallengeError> {
        let mut open = self.open();
        match open.get(id) {
            Some(c) if c.challenger.account == account => open.remove(id).ok_or(ChallengeError::NotFound),
            _ => Err(ChallengeError::NotFound),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn party(account: AccountKey) -> Party {
        Party { player: Player::default(), account, name: format!("p{account}"), bot: false, rating: None }
    }

    fn terms() -> Terms {
        Terms { variant: VariantName::Standard, clock: None, days: None, color: None, rated: false, fen: None }
    }

    #[test]
    fn a_challenge_is_answered_by_its_addressee_once() {
        let challenges = Challenges::default();
        let c = Challenge::new(party(1), party(2), terms());
        let id = c.id.clone();
        challenges.add(c).expect("room for it");
        assert_eq!(challenges.of(2).0.len(), 1);
        assert_eq!(challenges.of(1).1.len(), 1);
        assert_eq!(challenges.get(&id, 3).map(|c| c.id), Err(ChallengeError::NotFound), "a stranger's");
        assert_eq!(challenges.answer(&id, 1).map(|c| c.id), Err(ChallengeError::NotYours));
        assert_eq!(challenges.answer(&id, 3).map(|c| c.id), Err(ChallengeError::NotFound));
        assert_eq!(challenges.withdraw(&id, 2).map(|c| c.id), Err(ChallengeError::NotFound));
        assert_eq!(challenges.answer(&id, 2).map(|c| c.id), Ok(id.clone()));
        assert_eq!(challenges.answer(&id, 2).map(|c| c.id), Err(ChallengeError::NotFound), "once only");
    }

    #[test]
    fn a_challenger_may_leave_only_so_many_waiting() {
        let challenges = Challenges::default();
        for _ in 0..OPEN_MAX {
            challenges.add(Challenge::new(party(1), party(2), terms())).expect("room");
        }
        let extra = challenges.add(Challenge::new(party(1), party(2), terms()));
        assert_eq!(extra, Err(ChallengeError::TooMany(OPEN_MAX)));
        let first = challenges.of(1).1[0].id.clone();
        challenges.withdraw(&first, 1).expect("its own");
        assert!(challenges.add(Challenge::new(party(1), party(2), terms())).is_ok());
    }

    #[test]
    fn decline_reasons_are_lichess_keys() {
        assert_eq!(Decline::parse("tooFast"), Some(Decline::TooFast));
        assert_eq!(Decline::parse("TOOFAST"), Some(Decline::TooFast));
        assert_eq!(Decline::parse(""), Some(Decline::Generic));
        assert_eq!(Decline::parse("rude"), None);
        assert!(Decline::keys().contains("noBot"));
    }
}
