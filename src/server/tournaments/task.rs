//! A round robin's task: it alone owns the tournament, takes entries, starts it, makes each
//! round's games, follows them to their ends, and stores the tournament after every change.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::round_robin::{self, Pairing, Row, MAX_PLAYERS, MIN_PLAYERS};
use super::{refused, Entrant, Request, Stage, TournamentError};
use crate::chess::{Color, EndReason};
use crate::protocol::{ClockSpec, GameId, GameState, NewGame, SeatSpec, ServerMessage, Status, VariantName};
use crate::server::accounts::{Account, Player};
use crate::server::game_ref::GameRef;
use crate::server::notifications::{Kind, Notification};
use crate::server::room::Command;
use crate::server::state::Shared;

/// A round robin, whole: what is stored and what its views are made from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RoundRobin {
    pub id: String,
    pub name: String,
    pub created_by: String,
    /// The creator's account: they start it (whether they play in it or not).
    pub creator: crate::server::store::AccountKey,
    pub created_ms: i64,
    pub variant: VariantName,
    pub clock: Option<ClockSpec>,
    pub days: Option<u32>,
    pub rated: bool,
    /// The password's hash, for a private club event.
    pub password: Option<String>,
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

/// The task of one round robin, until it is finished.
pub(super) async fn run(
    shared: Arc<Shared>,
    mut t: RoundRobin,
    tx: mpsc::Sender<Request>,
    mut rx: mpsc::Receiver<Request>,
) {
    // Taken up again after a restart: follow the games of the round in progress.
    if t.stage == Stage::Started {
        resume_round(&shared, &mut t, &tx).await;
    }
    while let Some(request) = rx.recv().await {
        let changed = match request {
            Request::View { reply } => {
                let _ = reply.send(t.clone());
                false
            }
            Request::Join { account, password, reply } => {
                let result = join(&mut t, &account, password.as_deref());
                let ok = result.is_ok();
                let _ = reply.send(result);
                ok
            }
            Request::Withdraw { account, reply } => {
                let result = withdraw(&mut t, account);
                let ok = result.is_ok();
                let _ = reply.send(result);
                ok
            }
            Request::Start { account, reply } => {
                let result = start(&mut t, account);
                let ok = result.is_ok();
                let _ = reply.send(result);
                if ok {
                    tell_started(&shared, &t).await;
                    start_round(&shared, &mut t, &tx).await;
                }
                ok
            }
            Request::Ended { game, white, forfeit } => ended(&shared, &mut t, &tx, &game, white, forfeit).await,
        };
        if changed {
            save(&shared, &t).await;
        }
        if t.stage == Stage::Finished {
            shared.tournaments.finished(&t.id);
            tracing::info!(tournament = %t.id, "round robin finished");
            return;
        }
    }
}

async fn save(shared: &Shared, t: &RoundRobin) {
    let stored = match t.stored() {
        Ok(stored) => stored,
        Err(e) => return tracing::error!(tournament = %t.id, error = %e, "could not write a tournament"),
    };
    if let Err(e) = shared.tournament_store.save_tournament(stored).await {
        tracing::error!(tournament = %t.id, error = %e, "could not store a tournament");
    }
}

fn join(t: &mut RoundRobin, account: &Account, password: Option<&str>) -> Result<(), TournamentError> {
    if t.stage != Stage::Created {
        return Err(refused("the tournament has started: no more players may join"));
    }
    if !t.admits(password) {
        return Err(refused("wrong password for this tournament"));
    }
    if account.bot {
        return Err(refused("bot accounts do not play in round robins"));
    }
    if t.players.iter().any(|p| p.account == account.id) {
        return Ok(());
    }
    if t.players.len() >= MAX_PLAYERS {
        return Err(refused(format!("the tournament is full ({MAX_PLAYERS} players)")));
    }
    t.players.push(Entrant { account: account.id, name: account.username.clone() });
    Ok(())
}

fn withdraw(t: &mut RoundRobin, account: crate::server::store::AccountKey) -> Result<(), TournamentError> {
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

fn start(t: &mut RoundRobin, account: crate::server::store::AccountKey) -> Result<(), TournamentError> {
    if t.stage != Stage::Created {
        return Err(refused("the tournament has already started"));
    }
    if t.creator != account {
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
        let text = format!("The round robin {} has started", t.name);
        let url = Some(format!("/roundrobin/{}", t.id));
        shared.notifications.send_or_log(player.account, Kind::Tournament, Notification { text, url }).await;
    }
}

/// Makes the games of the round due, each followed to its end.
async fn start_round(shared: &Arc<Shared>, t: &mut RoundRobin, tx: &mpsc::Sender<Request>) {
    let spec = NewGame {
        variant: t.variant,
        clock: t.clock,
        days: t.days,
        rated: t.rated,
        white: SeatSpec::Human,
        black: SeatSpec::Human,
        as_side: Some(Color::White),
        ..Default::default()
    };
    let round = t.round;
    let players = t.players.clone();
    for board in t.rounds.get_mut(round).into_iter().flatten() {
        let (white, black) = (&players[board.pairing.white], &players[board.pairing.black]);
        match make_game(shared, &spec, white, black).await {
            Ok(game) => {
                tracing::info!(tournament = %t.id, %game, white = %white.name, black = %black.name, "round robin game");
                board.game = Some(game.clone());
                tokio::spawn(follow(shared.clone(), game, tx.clone()));
            }
            Err(e) => {
                // A game that cannot be made is lost by nobody: a draw keeps the table whole.
                tracing::error!(tournament = %t.id, error = %e, "a round robin game could not be made");
                board.result = Some(1);
            }
        }
    }
    // A round of boards that all failed is over at once.
    if t.rounds.get(round).is_some_and(|r| r.iter().all(|b| b.result.is_some())) {
        next_round(shared, t, tx).await;
    }
}

/// Seats `white` and `black` (by their accounts) in a new game of `spec`; its id.
async fn make_game(shared: &Shared, spec: &NewGame, white: &Entrant, black: &Entrant) -> Result<GameId, String> {
    let account = |name: String| async move {
        shared.accounts.find(&name).await.map_err(|e| e.to_string())?.ok_or_else(|| format!("no account {name:?}"))
    };
    let (white, black) = (account(white.name.clone()).await?, account(black.name.clone()).await?);
    let spec = NewGame { name: white.name(), ..spec.clone() };
    let (game, created) = shared.lobby.create(spec, None, Player::of(&white)).await.map_err(|r| r.message)?;
    let room = GameRef::Local(created.handle);
    room.call(Command::Join { color: Some(Color::Black), player: Player::of(&black) })
        .await
        .and_then(|r| r.into_seated())
        .map_err(|r| r.message)?;
    Ok(game)
}

/// Follows a game's round again after a restart: its unfinished games are followed anew.
async fn resume_round(shared: &Arc<Shared>, t: &mut RoundRobin, tx: &mpsc::Sender<Request>) {
    let games: Vec<GameId> = t
        .rounds
        .get(t.round)
        .into_iter()
        .flatten()
        .filter(|b| b.result.is_none())
        .filter_map(|b| b.game.clone())
        .collect();
    for game in games {
        tokio::spawn(follow(shared.clone(), game, tx.clone()));
    }
}

/// A game of the tournament ended: its result, and the next round when the last game of this
/// one is in. True: the tournament changed.
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

/// How a tournament game ended, for White: half-points, and whether it was forfeited. A game
/// aborted because a first move never came is lost by whoever did not make it.
fn result_of(state: &GameState) -> Option<(u8, bool)> {
    if state.status != Status::Ended {
        return None;
    }
    let white = match (state.reason, state.result.map(|r| r.winner())) {
        (Some(EndReason::Aborted), _) => {
            let white_missed = state.moves.is_empty();
            return Some((if white_missed { 0 } else { 2 }, true));
        }
        (_, Some(Some(Color::White))) => 2,
        (_, Some(Some(Color::Black))) => 0,
        _ => 1,
    };
    Some((white, false))
}

/// Follows `game` to its end and tells the tournament its result.
async fn follow(shared: Arc<Shared>, game: GameId, tx: mpsc::Sender<Request>) {
    loop {
        // The game as it is now: ended already (or while the server was down), or to be followed.
        let state = match shared.current(&game).await {
            Ok(state) => state,
            Err(e) => return tracing::warn!(%game, error = %e.message, "a tournament game is gone"),
        };
        if let Some((white, forfeit)) = result_of(&state) {
            let _ = tx.send(Request::Ended { game, white, forfeit }).await;
            return;
        }
        let Ok(room) = shared.room(&game).await else { continue };
        let Ok(mut sub) = room.call(Command::Observe { v: None }).await.and_then(|r| r.into_subscription()) else {
            continue;
        };
        // Until its end, missed events or the room going: then the game is looked at afresh.
        while let Ok(event) = sub.rx.recv().await {
            if matches!(serde_json::from_str::<ServerMessage>(&event.text), Ok(ServerMessage::End { .. })) {
                break;
            }
        }
        if tx.is_closed() {
            return;
        }
    }
}
