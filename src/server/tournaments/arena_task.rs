//! An arena's task: it alone owns the arena, takes entries, starts it at its time, pairs
//! whoever is free the moment they are (`arena::pairings`), follows every game to its end,
//! finishes at its time (games still going then count for nobody, as on lichess), and stores
//! the arena after every change.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::arena::{self, ArenaGame, ArenaPlayer, Played, Sheet, Who};
use super::games::{self, Seat};
use super::{
    refused, About, Answer, ArenaTerms, Call, Keeper, NewTournament, Request, Stage, Tournament, TournamentError,
};
use crate::chess::Color;
use crate::protocol::{ClockSpec, NewGame, SeatSpec};
use crate::server::accounts::Account;
use crate::server::notifications::{Kind, Notification};
use crate::server::ratings::Category;
use crate::server::state::Shared;
use crate::server::store::{now_ms, AccountKey};

/// The shortest and longest an arena may last.
pub const MIN_DURATION_MS: i64 = 10_000;
pub const MAX_DURATION_MS: i64 = 12 * 60 * 60 * 1000;
/// The latest an arena may start: a week ahead.
pub const MAX_WAIT_MS: i64 = 7 * 24 * 60 * 60 * 1000;
/// The most players one arena takes.
pub const MAX_PLAYERS: usize = 500;

/// An arena, whole: what is stored and what its views are made from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Arena {
    /// Who made it, and what it is (its creator may seat computers where `bots_allowed`).
    #[serde(flatten)]
    pub about: About,
    pub clock: ClockSpec,
    pub berserkable: bool,
    pub streakable: bool,
    /// Unix ms.
    pub starts_ms: i64,
    pub finishes_ms: i64,
    pub stage: Stage,
    /// In the order they joined.
    pub players: Vec<ArenaPlayer>,
    /// Every game, in the order they were made.
    pub games: Vec<ArenaGame>,
}

impl Arena {
    /// A new arena `id` by `creator`.
    pub(super) fn new(
        id: &str,
        name: String,
        creator: &Account,
        spec: &NewTournament,
        terms: ArenaTerms,
    ) -> Result<Arena, TournamentError> {
        let Some(clock) = spec.clock.filter(|_| spec.days.is_none()) else {
            return Err(refused("an arena is played on a clock (clockTime and clockIncrement), not by days"));
        };
        let game = NewGame { variant: spec.variant, clock: Some(clock), rated: spec.rated, ..Default::default() };
        crate::server::room::check(&game).map_err(|r| refused(r.message))?;
        if !(MIN_DURATION_MS..=MAX_DURATION_MS).contains(&terms.duration_ms) {
            return Err(refused("an arena lasts from 10 seconds to 12 hours"));
        }
        let now = now_ms();
        if terms.starts_ms > now + MAX_WAIT_MS {
            return Err(refused("an arena starts within a week"));
        }
        let starts_ms = terms.starts_ms.max(now);
        Ok(Arena {
            about: About::new(id, name, creator, spec),
            clock,
            berserkable: terms.berserkable,
            streakable: terms.streakable,
            starts_ms,
            finishes_ms: starts_ms + terms.duration_ms,
            stage: Stage::Created,
            players: Vec::new(),
            games: Vec::new(),
        })
    }

    /// Every player's sheet, by index.
    pub fn sheets(&self) -> Vec<Sheet> {
        (0..self.players.len()).map(|p| arena::sheet(p, &self.games, self.streakable)).collect()
    }

    /// The rating category its games are rated in.
    pub fn category(&self) -> Category {
        Category::of(self.about.variant.into(), self.clock.initial_ms, self.clock.increment_ms)
    }

    fn player_of(&self, account: AccountKey) -> Option<usize> {
        self.players.iter().position(|p| matches!(p.who, Who::Account { id, .. } if id == account))
    }

    /// The game `player` is playing now, if any.
    pub fn playing(&self, player: usize) -> Option<&ArenaGame> {
        self.games.iter().rev().find(|g| g.played == Played::Playing && g.side_of(player).is_some())
    }

    fn game_mut(&mut self, game: &str) -> Option<&mut ArenaGame> {
        self.games.iter_mut().find(|g| g.id == game)
    }
}

/// The task of one arena, until it is finished (or taken over by another node).
pub(super) async fn run(keeper: Keeper, mut t: Arena, tx: mpsc::Sender<Request>, mut rx: mpsc::Receiver<Request>) {
    let shared = keeper.shared.clone();
    // Taken up again (a restart, or another node's loss): follow the games going on.
    for game in t.games.iter().filter(|g| g.played == Played::Playing) {
        tokio::spawn(games::follow(shared.clone(), game.id.clone(), tx.clone()));
    }
    // Whatever fell due while nobody ran it (a start, the end, players left free) happens now.
    let mut changed = true;
    loop {
        if changed {
            if tick(&shared, &mut t).await {
                pair(&shared, &mut t, &tx).await;
            }
            if !keeper.save(&Tournament::Arena(t.clone())).await {
                break;
            }
            if t.stage == Stage::Finished {
                tracing::info!(tournament = %t.about.id, "arena finished");
                break;
            }
        }
        let due = match t.stage {
            Stage::Created => t.starts_ms,
            _ => t.finishes_ms,
        };
        let wait = Duration::from_millis(u64::try_from(due - now_ms()).unwrap_or(0));
        tokio::select! {
            request = rx.recv() => {
                let Some(request) = request else { break };
                changed = handle(&shared, &mut t, request).await;
            }
            () = tokio::time::sleep(wait) => changed = true,
        }
    }
    shared.tournaments.finished(&t.about.id);
}

/// Starts or finishes the arena when its time has come; true while it is on (pairing is due).
async fn tick(shared: &Shared, t: &mut Arena) -> bool {
    let now = now_ms();
    if t.stage == Stage::Created && now >= t.starts_ms {
        t.stage = Stage::Started;
        tracing::info!(tournament = %t.about.id, players = t.players.len(), "arena started");
        tell(shared, t, format!("The arena {} has started", t.about.name)).await;
    }
    if t.stage == Stage::Started && now >= t.finishes_ms {
        t.stage = Stage::Finished;
        // Games still going count for nobody: the standings are final at the bell.
        for game in t.games.iter_mut().filter(|g| g.played == Played::Playing) {
            game.played = Played::Void;
        }
    }
    t.stage == Stage::Started
}

/// Tells every account playing in the arena `text`.
async fn tell(shared: &Shared, t: &Arena, text: String) {
    for player in &t.players {
        if let Who::Account { id, bot: false } = player.who {
            let url = Some(format!("/tournament/{}", t.about.id));
            shared.notifications.send_or_log(id, Kind::Tournament, Notification { text: text.clone(), url }).await;
        }
    }
}

/// What `request` changes; true if anything did.
async fn handle(shared: &Arc<Shared>, t: &mut Arena, request: Request) -> bool {
    match request {
        Request::Call { call, reply } => {
            let result = answer(shared, t, call).await;
            let changed = matches!(result, Ok(Answer::Done));
            let _ = reply.send(result);
            changed
        }
        Request::Ended { game, white, forfeit_by } => ended(t, &game, white, forfeit_by),
        Request::Berserked { game, side } => {
            let Some(g) = t.game_mut(&game) else { return false };
            let before = g.berserk[side.index()];
            g.berserk[side.index()] = true;
            !before
        }
    }
}

/// Carries out `call`: `Done` when the arena changed.
async fn answer(shared: &Shared, t: &mut Arena, call: Call) -> Result<Answer, TournamentError> {
    match call {
        Call::View => Ok(Answer::View { tournament: Box::new(Tournament::Arena(t.clone())) }),
        Call::Join { account, name, bot, password } => {
            if t.stage == Stage::Finished {
                return Err(refused("the arena is over"));
            }
            if !t.about.admits(password.as_deref()) {
                return Err(refused("wrong password for this tournament"));
            }
            if bot && !t.about.bots_allowed {
                return Err(refused("this arena does not allow bots"));
            }
            if let Some(p) = t.player_of(account) {
                // Back from a pause.
                t.players[p].withdrawn = false;
                return Ok(Answer::Done);
            }
            if t.players.len() >= MAX_PLAYERS {
                return Err(refused(format!("the arena is full ({MAX_PLAYERS} players)")));
            }
            let rating = rating_of(shared, account, t.category()).await;
            t.players.push(ArenaPlayer { name, who: Who::Account { id: account, bot }, withdrawn: false, rating });
            Ok(Answer::Done)
        }
        Call::Withdraw { account } => {
            let p = t.player_of(account).ok_or_else(|| refused("you have not joined this tournament"))?;
            if t.stage == Stage::Finished {
                return Err(refused("the arena is over"));
            }
            t.players[p].withdrawn = true;
            Ok(Answer::Done)
        }
        Call::Start { .. } => Err(refused("an arena starts at its time by itself")),
        Call::AddComputer { account, who } => {
            // The seat is checked as a game would check it: the level's range, the engine's
            // name and variants.
            match &who {
                Who::Level { level } => drop(crate::bots::Level::new(*level).map_err(|e| refused(e.to_string()))?),
                Who::Engine { name } => drop(
                    shared
                        .config
                        .room
                        .engines
                        .check_seat(name, &Default::default(), t.about.variant.into())
                        .map_err(|r| refused(r.message))?,
                ),
                Who::Account { .. } => return Err(refused("accounts join by themselves")),
            }
            add_computer(t, account, who)
        }
    }
}

/// The creator seats one of the server's computers.
fn add_computer(t: &mut Arena, account: AccountKey, who: Who) -> Result<Answer, TournamentError> {
    if account != t.about.creator {
        return Err(refused("only the tournament's creator may seat computers"));
    }
    if !t.about.bots_allowed {
        return Err(refused("this arena does not allow bots"));
    }
    if t.stage == Stage::Finished {
        return Err(refused("the arena is over"));
    }
    let name = match &who {
        Who::Level { level } => format!("Level {level}"),
        Who::Engine { name } => name.clone(),
        Who::Account { .. } => return Err(refused("accounts join by themselves")),
    };
    if let Some(p) = t.players.iter().position(|p| p.who == who) {
        if !t.players[p].withdrawn {
            return Err(refused(format!("{name} plays in this arena already")));
        }
        t.players[p].withdrawn = false;
        return Ok(Answer::Done);
    }
    if t.players.len() >= MAX_PLAYERS {
        return Err(refused(format!("the arena is full ({MAX_PLAYERS} players)")));
    }
    t.players.push(ArenaPlayer { name, who, withdrawn: false, rating: None });
    Ok(Answer::Done)
}

/// The account's rating in `category`, if it has one.
async fn rating_of(shared: &Shared, account: AccountKey, category: Category) -> Option<i32> {
    let ratings = shared.accounts.store().ratings(account).await.ok()?;
    ratings.iter().find(|r| r.category == category).map(|r| r.rating.round() as i32)
}

/// A game ended: its result counts, unless it was forfeited (then it counts for nobody and the
/// player who never moved is paused, as lichess pauses a player who does not start their game)
/// or the arena is over. True if anything changed.
fn ended(t: &mut Arena, game: &str, white: u8, forfeit_by: Option<Color>) -> bool {
    let Some(index) = t.games.iter().position(|g| g.id == game) else { return false };
    let g = &mut t.games[index];
    if g.played != Played::Playing {
        return false;
    }
    match forfeit_by {
        Some(side) => {
            g.played = Played::Void;
            let absent = if side == Color::White { g.white } else { g.black };
            if !t.players[absent].who.is_computer() {
                t.players[absent].withdrawn = true;
            }
        }
        None => g.played = Played::Ended { white: white.min(2) },
    }
    true
}

/// Pairs whoever is free, and starts their games.
async fn pair(shared: &Arc<Shared>, t: &mut Arena, tx: &mpsc::Sender<Request>) {
    let sheets = t.sheets();
    let free = arena::free(&t.players, &t.games);
    let pairs = arena::pairings(&free, &t.players, &t.games, &sheets);
    if pairs.is_empty() {
        return;
    }
    let spec = NewGame {
        variant: t.about.variant,
        clock: Some(t.clock),
        rated: t.about.rated,
        berserkable: t.berserkable,
        ..Default::default()
    };
    for (white, black) in pairs {
        let seat = |p: &ArenaPlayer| match &p.who {
            Who::Account { .. } => Seat::Account(p.name.clone()),
            Who::Level { level } => Seat::Computer(SeatSpec::Bot { level: *level }),
            Who::Engine { name } => {
                Seat::Computer(SeatSpec::Engine { name: name.clone(), options: Default::default() })
            }
        };
        let (w, b) = (&t.players[white], &t.players[black]);
        match games::make(shared, &spec, seat(w), seat(b)).await {
            Ok(game) => {
                tracing::info!(tournament = %t.about.id, %game, white = %w.name, black = %b.name, "arena game");
                t.games.push(ArenaGame {
                    id: game.clone(),
                    white,
                    black,
                    played: Played::Playing,
                    berserk: [false; 2],
                });
                tokio::spawn(games::follow(shared.clone(), game, tx.clone()));
            }
            // They stay free and are paired at the next change.
            Err(e) => tracing::error!(tournament = %t.about.id, error = %e, "an arena game could not be made"),
        }
    }
}
