//! A tournament's games: made on this node's lobby with the tournament's settings, and each
//! followed to its end (wherever its room is held by then) so that its task hears the result.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::Request;
use crate::chess::{Color, EndReason};
use crate::protocol::{GameId, GameState, NewGame, SeatSpec, ServerMessage, Status};
use crate::server::accounts::{Account, Player};
use crate::server::game_ref::GameRef;
use crate::server::room::Command;
use crate::server::state::Shared;

/// Who takes a seat of a tournament game.
pub(super) enum Seat {
    /// An account, by name (looked up when the game is made).
    Account(String),
    /// A computer of the server's.
    Computer(SeatSpec),
}

/// The account called `name`.
async fn account(shared: &Shared, name: &str) -> Result<Account, String> {
    shared.accounts.find(name).await.map_err(|e| e.to_string())?.ok_or_else(|| format!("no account {name:?}"))
}

/// Makes a game of `spec` between `white` and `black` (at least one of them an account); its id.
pub(super) async fn make(shared: &Shared, spec: &NewGame, white: Seat, black: Seat) -> Result<GameId, String> {
    let (mut spec, creator, joiner) = match (white, black) {
        (Seat::Account(w), Seat::Account(b)) => {
            let spec =
                NewGame { white: SeatSpec::Human, black: SeatSpec::Human, as_side: Some(Color::White), ..spec.clone() };
            (spec, account(shared, &w).await?, Some(account(shared, &b).await?))
        }
        // A game against the server's computer is never rated.
        (Seat::Account(w), Seat::Computer(b)) => {
            let spec =
                NewGame { white: SeatSpec::Human, black: b, as_side: Some(Color::White), rated: false, ..spec.clone() };
            (spec, account(shared, &w).await?, None)
        }
        (Seat::Computer(w), Seat::Account(b)) => {
            let spec =
                NewGame { white: w, black: SeatSpec::Human, as_side: Some(Color::Black), rated: false, ..spec.clone() };
            (spec, account(shared, &b).await?, None)
        }
        (Seat::Computer(_), Seat::Computer(_)) => return Err("a tournament game needs a player".into()),
    };
    spec.name = creator.name();
    let (game, created) = shared.lobby.create(spec, None, Player::of(&creator)).await.map_err(|r| r.message)?;
    if let Some(joiner) = joiner {
        GameRef::Local(created.handle)
            .call(Command::Join { color: Some(Color::Black), player: Player::of(&joiner) })
            .await
            .and_then(|r| r.into_seated())
            .map_err(|r| r.message)?;
    }
    Ok(game)
}

/// How a tournament game ended, for White: half-points, and the side that forfeited it by
/// never making a first move (the game was aborted for it).
pub(super) fn result_of(state: &GameState) -> Option<(u8, Option<Color>)> {
    if state.status != Status::Ended {
        return None;
    }
    if state.reason == Some(EndReason::Aborted) {
        let missed = if state.moves.is_empty() { Color::White } else { Color::Black };
        let white = if missed == Color::White { 0 } else { 2 };
        return Some((white, Some(missed)));
    }
    let white = match state.result.map(|r| r.winner()) {
        Some(Some(Color::White)) => 2,
        Some(Some(Color::Black)) => 0,
        _ => 1,
    };
    Some((white, None))
}

/// Follows `game` to its end and tells the tournament its result (and any berserk on the way).
pub(super) async fn follow(shared: Arc<Shared>, game: GameId, tx: mpsc::Sender<Request>) {
    loop {
        if tx.is_closed() {
            return;
        }
        // The game as it is now: ended already (or while the server was down), or to be followed.
        let state = match shared.current(&game).await {
            Ok(state) => state,
            Err(e) => {
                tracing::warn!(%game, error = %e.message, "a tournament game cannot be read; looking again");
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                continue;
            }
        };
        if let Some((white, forfeit_by)) = result_of(&state) {
            let _ = tx.send(Request::Ended { game, white, forfeit_by }).await;
            return;
        }
        let subscribed = match shared.room(&game).await {
            Ok(room) => room.call(Command::Observe { v: None }).await.and_then(|r| r.into_subscription()),
            Err(e) => Err(e),
        };
        let Ok(mut sub) = subscribed else {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            continue;
        };
        // Until its end, missed events or the room going: then the game is looked at afresh.
        while let Ok(event) = sub.rx.recv().await {
            match serde_json::from_str::<ServerMessage>(&event.text) {
                Ok(ServerMessage::End { .. }) => break,
                Ok(ServerMessage::Berserk { color, .. }) => {
                    let _ = tx.send(Request::Berserked { game: game.clone(), side: color }).await;
                }
                _ => {}
            }
        }
    }
}
