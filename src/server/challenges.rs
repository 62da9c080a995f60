//! Challenges by name (lichess's `/api/challenge/…`): one player asks another for a game with
//! given settings; the other accepts (the game starts), declines with a reason, or the
//! challenger withdraws it. They wait in the store, so a challenge made on one node of a
//! cluster is answered on another, and a restart loses none; each is taken out once.

use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::chess::Color;
use crate::protocol::{ClockSpec, NewGame, SeatSpec, VariantName};
use crate::server::store::{now_ms, AccountKey, ChallengeStore, StoreError, StoredChallenge};

/// How long a challenge waits for an answer.
pub const CHALLENGE_TTL: Duration = Duration::from_secs(20 * 60);
/// The most challenges one player may have waiting at once.
pub const OPEN_MAX: usize = 20;

/// A player in a challenge: their account, and how lichess shows them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Party {
    pub account: AccountKey,
    pub name: String,
    pub bot: bool,
    /// Their rating in the challenge's category, and whether it is provisional.
    pub rating: Option<(i64, bool)>,
}

/// What game a challenge asks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The terms in a few words: "5+3 rated blitz", "3 days casual correspondence", "unlimited
    /// casual minichess7".
    pub fn describe(&self) -> String {
        let pace = match (self.clock, self.days) {
            (Some(c), _) => format!("{}+{}", minutes(c.initial_ms), c.increment_ms / 1000),
            (None, Some(1)) => "1 day".to_string(),
            (None, Some(days)) => format!("{days} days"),
            (None, None) => "unlimited".to_string(),
        };
        // The rating category's name (a variant of its own, or the speed); "game" untimed.
        let clock = self.clock.map(|c| (c.initial_ms, c.increment_ms));
        let kind = match (self.variant, clock, self.days) {
            (VariantName::Standard, None, None) => "game",
            (variant, clock, _) => crate::server::ratings::Category::of_game(variant.into(), clock).name(),
        };
        format!("{pace} {} {kind}", if self.rated { "rated" } else { "casual" })
    }

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
            open: false,
            days: self.days,
            berserkable: false,
        }
    }
}

/// Minutes as a clock's name shows them: "5", "½", "¾", "1.5".
fn minutes(ms: u64) -> String {
    match ms {
        15_000 => "¼".to_string(),
        30_000 => "½".to_string(),
        45_000 => "¾".to_string(),
        ms if ms % 60_000 == 0 => (ms / 60_000).to_string(),
        ms => format!("{}", ms as f64 / 60_000.0),
    }
}

/// Where a challenge stands (lichess's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, Serialize, Deserialize)]
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
#[derive(Debug, Error)]
pub enum ChallengeError {
    #[error("no such challenge (it may have been answered, withdrawn or expired)")]
    NotFound,
    #[error("this challenge is not addressed to you")]
    NotYours,
    #[error("you have {0} challenges waiting; withdraw one or wait for answers")]
    TooMany(usize),
    #[error("{0}")]
    Store(#[from] StoreError),
}

/// The challenges waiting for an answer, over the store.
pub struct Challenges {
    store: Arc<dyn ChallengeStore>,
}

/// The oldest creation time of a challenge still waiting.
fn oldest() -> i64 {
    now_ms() - CHALLENGE_TTL.as_millis() as i64
}

fn decoded(stored: &StoredChallenge) -> Result<Challenge, ChallengeError> {
    serde_json::from_str(&stored.body)
        .map_err(|e| ChallengeError::Store(StoreError::Read(format!("challenge {}: {e}", stored.id))))
}

impl Challenges {
    pub fn new(store: Arc<dyn ChallengeStore>) -> Challenges {
        Challenges { store }
    }

    /// Adds a challenge.
    pub async fn add(&self, challenge: &Challenge) -> Result<(), ChallengeError> {
        let body = serde_json::to_string(challenge)
            .map_err(|e| ChallengeError::Store(StoreError::Write(format!("challenge: {e}"))))?;
        let stored = StoredChallenge {
            id: challenge.id.clone(),
            challenger: challenge.challenger.account,
            dest: challenge.dest.account,
            body,
            created_ms: challenge.created_ms,
        };
        if !self.store.add_challenge(stored, OPEN_MAX as u64, oldest()).await? {
            return Err(ChallengeError::TooMany(OPEN_MAX));
        }
        Ok(())
    }

    /// The challenges to `account` and from it, oldest first.
    pub async fn of(&self, account: AccountKey) -> Result<(Vec<Challenge>, Vec<Challenge>), ChallengeError> {
        let (mut incoming, mut outgoing) = (Vec::new(), Vec::new());
        for stored in self.store.challenges_of(account, oldest()).await? {
            let challenge = decoded(&stored)?;
            if stored.dest == account {
                incoming.push(challenge);
            } else {
                outgoing.push(challenge);
            }
        }
        Ok((incoming, outgoing))
    }

    /// One waiting challenge that `account` is a party to.
    pub async fn get(&self, id: &str, account: AccountKey) -> Result<Challenge, ChallengeError> {
        match self.store.challenge(id, oldest()).await? {
            Some(stored) if stored.dest == account || stored.challenger == account => decoded(&stored),
            _ => Err(ChallengeError::NotFound),
        }
    }

    /// Takes challenge `id` out for its addressee `account` to answer: accepted or declined,
    /// once only.
    pub async fn answer(&self, id: &str, account: AccountKey) -> Result<Challenge, ChallengeError> {
        let challenge = self.get(id, account).await?;
        if challenge.dest.account != account {
            return Err(ChallengeError::NotYours);
        }
        self.take(id).await
    }

    /// Takes challenge `id` out for its challenger `account` to withdraw.
    pub async fn withdraw(&self, id: &str, account: AccountKey) -> Result<Challenge, ChallengeError> {
        let challenge = self.get(id, account).await?;
        if challenge.challenger.account != account {
            return Err(ChallengeError::NotFound);
        }
        self.take(id).await
    }

    async fn take(&self, id: &str) -> Result<Challenge, ChallengeError> {
        let stored = self.store.take_challenge(id).await?.ok_or(ChallengeError::NotFound)?;
        decoded(&stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::store::{AccountStore, SqliteStore};

    fn party(account: AccountKey) -> Party {
        Party { account, name: format!("p{account}"), bot: false, rating: None }
    }

    fn terms() -> Terms {
        Terms { variant: VariantName::Standard, clock: None, days: None, color: None, rated: false, fen: None }
    }

    #[test]
    fn terms_read_in_a_few_words() {
        let blitz =
            Terms { clock: Some(ClockSpec { initial_ms: 300_000, increment_ms: 3000 }), rated: true, ..terms() };
        assert_eq!(blitz.describe(), "5+3 rated blitz");
        let bullet = Terms { clock: Some(ClockSpec { initial_ms: 30_000, increment_ms: 0 }), ..terms() };
        assert_eq!(bullet.describe(), "½+0 casual bullet");
        assert_eq!(Terms { days: Some(3), ..terms() }.describe(), "3 days casual correspondence");
        assert_eq!(Terms { variant: VariantName::Minichess7, ..terms() }.describe(), "unlimited casual minichess7");
        assert_eq!(
            Terms { variant: VariantName::Chess960, days: Some(3), ..terms() }.describe(),
            "3 days casual chess960"
        );
        assert_eq!(terms().describe(), "unlimited casual game");
    }

    /// A store with accounts 1 to 3.
    async fn challenges() -> Challenges {
        let store = Arc::new(SqliteStore::open(":memory:").expect("store"));
        for name in ["p1", "p2", "p3"] {
            store.create_account(name.into(), String::new(), vec![0; 32], 0).await.expect("account");
        }
        Challenges::new(store)
    }

    #[tokio::test]
    async fn a_challenge_is_answered_by_its_addressee_once() {
        let challenges = challenges().await;
        let c = Challenge::new(party(1), party(2), terms());
        let id = c.id.clone();
        challenges.add(&c).await.expect("room for it");
        assert_eq!(challenges.of(2).await.expect("read").0.len(), 1);
        assert_eq!(challenges.of(1).await.expect("read").1.len(), 1);
        assert!(matches!(challenges.get(&id, 3).await, Err(ChallengeError::NotFound)), "a stranger's");
        assert!(matches!(challenges.answer(&id, 1).await, Err(ChallengeError::NotYours)));
        assert!(matches!(challenges.answer(&id, 3).await, Err(ChallengeError::NotFound)));
        assert!(matches!(challenges.withdraw(&id, 2).await, Err(ChallengeError::NotFound)));
        let answered = challenges.answer(&id, 2).await.expect("its addressee's");
        assert_eq!((answered.id, answered.terms), (id.clone(), terms()));
        assert!(matches!(challenges.answer(&id, 2).await, Err(ChallengeError::NotFound)), "once only");
    }

    #[tokio::test]
    async fn a_challenger_may_leave_only_so_many_waiting() {
        let challenges = challenges().await;
        for _ in 0..OPEN_MAX {
            challenges.add(&Challenge::new(party(1), party(2), terms())).await.expect("room");
        }
        let extra = challenges.add(&Challenge::new(party(1), party(2), terms())).await;
        assert!(matches!(extra, Err(ChallengeError::TooMany(OPEN_MAX))));
        let first = challenges.of(1).await.expect("read").1[0].id.clone();
        challenges.withdraw(&first, 1).await.expect("its own");
        assert!(challenges.add(&Challenge::new(party(1), party(2), terms())).await.is_ok());
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
