//! A round robin's task: it alone owns the tournament, takes entries, starts it, makes each
//! round's games, follows them to their ends, and stores the tournament after every change.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::games::{self, Seat};
use super::round_robin::{self, Pairing, Row, MAX_PLAYERS, MIN_PLAYERS};
use super::{
    refused, About, Answer, Call, Entrant, Keeper, NewTournament, Request, Stage, Tournament, TournamentError,
};
use crate::protocol::{ClockSpec, GameId, NewGame};
use crate::server::accounts::Account;
use crate::server::notifications::{Kind, Notification};
use crate::server::state::Shared;
use crate::server::store::AccountKey;

/// A round robin, whole: what is stored and what its views are made from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RoundRobin {
    /// Who made it, and what it is (its creator starts it, whether they play in it or not).
    /// `bots_allowed` lets Bot API accounts in: the server's own computers play in arenas only,
    /// since every pairing of a round robin is played and two of them would play each other.
    #[serde(flatten)]
    pub about: About,
    pub clock: Option<ClockSpec>,
    pub days: Option<u32>,
    pub stage: Stage,
    /// In the order they entered: the Berger tables' numbers.
    pub players: Vec<Entrant>,
    /// Every round's games, made at the start.
    pub rounds: Vec<Vec<Board>>,
    /// The round being played (0-based).
    pub round: usize,
}

/// One game of the table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Board {
    pub pairing: Pairing,
    /// Once its round has started.
    pub game: Option<GameId>,
    /// White's half-points once it has ended.
    pub result: Option<u8>,
    /// Ended because a player never made their first move: they lose.
    #[serde(default)]
    pub forfeit: bool,
}

impl RoundRobin {
    /// A new round robin `id` by `creator`, who enters it.
    pub(super) fn new(
        id: &str,
        name: String,
        creator: &Account,
        spec: &NewTournament,
    ) -> Result<RoundRobin, TournamentError> {
        let game = NewGame {
            variant: spec.variant,
            clock: spec.clock,
            days: spec.days,
            rated: spec.rated,
            ..Default::default()
        };
        // Checked now, so that a tournament never starts games that cannot be played.
        crate::server::room::check(&game).map_err(|r| refused(r.message))?;
        if spec.rated && spec.clock.is_none() && spec.days.is_none() {
            return Err(refused("a rated tournament needs a clock or days per move"));
        }
        Ok(RoundRobin {
            about: About::new(id, name, creator, spec),
            clock: spec.clock,
            days: spec.days,
            stage: Stage::Created,
            players: vec![Entrant { account: creator.id, name: creator.username.clone() }],
            rounds: Vec::new(),
            round: 0,
        })
    }

    /// The crosstable now.
    pub fn crosstable(&self) -> Vec<Row> {
        let games: Vec<_> = self.rounds.iter().flatten().map(|b| (b.pairing, b.result)).collect();
        round_robin::crosstable(self.players.len(), &games)
    }

    /// The board playing `game`.
    fn board_of(&mut self, game: &str) -> Option<&mut Board> {
        self.rounds.iter_mut().flatten().find(|b| b.game.as_deref() == Some(game))
    }
}

/// The task of one round robin, until it is finished (or taken over by another node).
pub(super) async fn run(keeper: Keeper, mut t: RoundRobin, tx: mpsc::Sender<Request>, mut rx: mpsc::Receiver<Request>) {
    let shared = keeper.shared.clone();
    // Taken up again after a restart: follow the games of the round in progress.
    if t.stage == Stage::Started {
        resume_round(&shared, &t, &tx);
    }
    while let Some(request) = rx.recv().await {
        let changed = match request {
            Request::Call { call, reply } => {
                let result = answer(&shared, &mut t, &tx, call).await;
                let changed = matches!(result, Ok(Answer::Done));
                let _ = reply.send(result);
                changed
            }
            Request::Ended { game, white, forfeit_by } => {
                ended(&shared, &mut t, &tx, &game, white, forfeit_by.is_some()).await
            }
            // Round robins have no berserk.
            Request::Berserked { .. } => false,
        };
        if changed && !keeper.save(&Tournament::RoundRobin(t.clone())).await {
            break;
        }
        if t.stage == Stage::Finished {
            tracing::info!(tournament = %t.about.id, "round robin finished");
            break;
        }
    }
    shared.tournaments.finished(&t.about.id);
}

/// Carries out `call`: `Done` when the tournament changed.
async fn answer(
    shared: &Arc<Shared>,
    t: &mut RoundRobin,
    tx: &mpsc::Sender<Request>,
    call: Call,
) -> Result<Answer, TournamentError> {
    match call {
        Call::View => Ok(Answer::View { tournament: Box::new(Tournament::RoundRobin(t.clone())) }),
        Call::Join { account, name, bot, password } => {
            join(t, Entrant { account, name }, bot, password.as_deref()).map(|()| Answer::Done)
        }
        Call::Withdraw { account } => withdraw(t, account).map(|()| Answer::Done),
        Call::Start { account } => {
            start(t, account)?;
            tell_started(shared, t).await;
            start_round(shared, t, tx).await;
            Ok(Answer::Done)
        }
        Call::AddComputer { .. } => {
            Err(refused("the server's computers play in arenas; bot accounts may join a round robin that allows bots"))
        }
    }
}

fn join(t: &mut RoundRobin, entrant: Entrant, bot: bool, password: Option<&str>) -> Result<(), TournamentError> {
    if t.stage != Stage::Created {
        return Err(refused("the tournament has started: no more players may join"));
    }
    if !t.about.admits(password) {
        return Err(refused("wrong password for this tournament"));
    }
    if bot && !t.about.bots_allowed {
        return Err(refused("this round robin does not allow bots"));
    }
    if t.players.iter().any(|p| p.account == entrant.account) {
        return Ok(());
    }
    if t.players.len() >= MAX_PLAYERS {
        return Err(refused(format!("the tournament is full ({MAX_PLAYERS} players)")));
    }
    t.players.push(entrant);
    Ok(())
}

fn withdraw(t: &mut RoundRobin, account: AccountKey) -> Result<(), TournamentError> {
    if t.stage != Stage::Created {
        return Err(refused("the tournament has started: every game of the table is to be played"));
    }
    let before = t.players.len();
    t.players.retain(|p| p.account != account);
    if t.players.len() == before {
        return Err(refused("you have not joined this tournament"));
    }
    Ok(())
}

fn start(t: &mut RoundRobin, account: AccountKey) -> Result<(), TournamentError> {
    if t.stage != Stage::Created {
        return Err(refused("the tournament has already started"));
    }
    if t.about.creator != account {
        return Err(refused("only the tournament's creator may start it"));
    }
    if t.players.len() < MIN_PLAYERS {
        return Err(refused(format!("a round robin needs at least {MIN_PLAYERS} players")));
    }
    t.rounds = round_robin::berger(t.players.len())
        .into_iter()
        .map(|round| {
            round.into_iter().map(|pairing| Board { pairing, game: None, result: None, forfeit: false }).collect()
        })
        .collect();
    t.stage = Stage::Started;
    t.round = 0;
    Ok(())
}

/// Tells every player the tournament has started.
async fn tell_started(shared: &Shared, t: &RoundRobin) {
    for player in &t.players {
        let text = format!("The round robin {} has started", t.about.name);
        let url = Some(format!("/roundrobin/{}", t.about.id));
        shared.notifications.send_or_log(player.account, Kind::Tournament, Notification { text, url }).await;
    }
}

/// Makes the games of the round due, each followed to its end.
async fn start_round(shared: &Arc<Shared>, t: &mut RoundRobin, tx: &mpsc::Sender<Request>) {
    let spec =
        NewGame { variant: t.about.variant, clock: t.clock, days: t.days, rated: t.about.rated, ..Default::default() };
    let round = t.round;
    let players = t.players.clone();
    let id = t.about.id.clone();
    for board in t.rounds.get_mut(round).into_iter().flatten() {
        let (white, black) = (&players[board.pairing.white], &players[board.pairing.black]);
        let seats = (Seat::Account(white.name.clone()), Seat::Account(black.name.clone()));
        match games::make(shared, &spec, seats.0, seats.1).await {
            Ok(game) => {
                tracing::info!(tournament = %id, %game, white = %white.name, black = %black.name, "round robin game");
                board.game = Some(game.clone());
                tokio::spawn(games::follow(shared.clone(), game, tx.clone()));
            }
            Err(e) => {
                // A game that cannot be made is lost by nobody: a draw keeps the table whole.
                tracing::error!(tournament = %id, error = %e, "a round robin game could not be made");
                board.result = Some(1);
            }
        }
    }
    // A round of boards that all failed is over at once.
    if t.rounds.get(round).is_some_and(|r| r.iter().all(|b| b.result.is_some())) {
        next_round(shared, t, tx).await;
    }
}

/// Follows the round again after a restart: its unfinished games are followed anew.
fn resume_round(shared: &Arc<Shared>, t: &RoundRobin, tx: &mpsc::Sender<Request>) {
    for board in t.rounds.get(t.round).into_iter().flatten().filter(|b| b.result.is_none()) {
        if let Some(game) = &board.game {
            tokio::spawn(games::follow(shared.clone(), game.clone(), tx.clone()));
        }
    }
}

/// A game of the tournament ended: its result (a forfeit loses, whoever forfeited), and the
/// next round when the last game of this one is in. True: the tournament changed.
async fn ended(
    shared: &Arc<Shared>,
    t: &mut RoundRobin,
    tx: &mpsc::Sender<Request>,
    game: &str,
    white: u8,
    forfeit: bool,
) -> bool {
    let Some(board) = t.board_of(game) else { return false };
    if board.result.is_some() {
        return false;
    }
    board.result = Some(white.min(2));
    board.forfeit = forfeit;
    if t.rounds.get(t.round).is_some_and(|r| r.iter().all(|b| b.result.is_some())) {
        next_round(shared, t, tx).await;
    }
    true
}

/// The round is over: the next one starts, or the tournament is finished.
async fn next_round(shared: &Arc<Shared>, t: &mut RoundRobin, tx: &mpsc::Sender<Request>) {
    t.round += 1;
    if t.round >= t.rounds.len() {
        t.stage = Stage::Finished;
        return;
    }
    Box::pin(start_round(shared, t, tx)).await;
}
