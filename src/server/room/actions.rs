//! What happens next: the [`Step`] the room takes once a part has decided. For a seat
//! holder's action the parts concerned decide here — the offers part for draws, takebacks and
//! declines, presence for claims, the rules for moves, resignations and aborts — and refuse
//! what may not be done now.

use std::time::Duration;

use super::build::bad;
use super::events::Batch;
use super::lag::Arrival;
use super::offers::Offers;
use super::presence::Presence;
use super::seats::Seats;
use super::Action;
use crate::chess::{Color, EndReason, Game, Move, Outcome, UciMove};
use crate::protocol::{ClaimKind, Refusal, Status};

/// The step the room takes for an action.
pub(super) enum Step {
    /// Nothing more (an offer made or declined: its event is added already).
    Nothing,
    /// Play this move (how a person's arrived; None for the computer's).
    Play(Move, Option<Arrival>),
    /// Take back this many plies.
    TakeBack(usize),
    /// End the game so.
    End(Outcome),
    /// Offer a rematch, or make the one both players agreed to: `side` asked.
    Rematch(Color),
    /// Ask the computer to move (again).
    Ask,
    /// Halve `side`'s time (an arena's berserk).
    Berserk(Color),
    /// Show everyone the game as it is now (a fresh `state`): a change no event of its own
    /// describes.
    Refresh,
}

/// What the room's limits allow: the grace of an absent player, the courtesy of takebacks.
pub(super) struct Limits {
    pub(super) grace: Duration,
    pub(super) takeback_cooldown: Duration,
    /// A correspondence game's deadline (see `RoomClock::deadline`): its claims are about the
    /// opponent's time for the move, not about their being away.
    pub(super) deadline: Option<(Color, Duration)>,
}

/// What `action`, by the player on `side`, comes to in `game`; events of offers made or
/// declined are added to `out`.
pub(super) fn decide(
    (action, side, round_trip): (Action, Color, Option<Duration>),
    game: &Game,
    seats: &Seats,
    offers: &mut Offers,
    limits: &Limits,
    out: &mut Batch,
) -> Result<Step, Refusal> {
    if game.is_over() {
        // What is left to do after the end: play again, or say no to it.
        return match action {
            Action::Rematch => Ok(Step::Rematch(side)),
            Action::Withdraw => offers.withdraw(side).map(|()| Step::Refresh),
            Action::Decline if offers.offer().is_some() => {
                offers.decline(side, limits.takeback_cooldown, out).map(|()| Step::Nothing)
            }
            _ => Err(Refusal::game_over("the game is over")),
        };
    }
    // Waiting for an opponent, the creator may still call the game off.
    let waiting = seats.status(game) == Status::Waiting;
    if waiting && !matches!(action, Action::Move { .. } | Action::Abort) {
        return Err(Refusal::not_your_turn("the game has not started: a seat is still open"));
    }
    let vs_bot = seats.seat(side.other()).is_bot();
    match action {
        Action::Move { .. } if waiting => Err(Refusal::not_your_turn("the game has not started: a seat is still open")),
        Action::Move { uci, premove } => {
            human_move(game, side, &uci).map(|mv| Step::Play(mv, Some(Arrival { premove, round_trip })))
        }
        Action::Undo => offers.undo(side, game, vs_bot, out).map(|plies| plies.map_or(Step::Nothing, Step::TakeBack)),
        Action::Draw => offers.draw(side, vs_bot, out).map(|agreed| agreed.map_or(Step::Nothing, Step::End)),
        Action::Decline => offers.decline(side, limits.takeback_cooldown, out).map(|()| Step::Nothing),
        Action::Withdraw => offers.withdraw(side).map(|()| Step::Refresh),
        Action::Resign => Ok(Step::End(Outcome::win(side.other(), EndReason::Resignation))),
        Action::Claim { result } => match limits.deadline {
            Some(deadline) => claim_overdue(side, result, deadline, game).map(Step::End),
            None => Presence::claim(side, result, seats, limits.grace).map(Step::End),
        },
        // Called off with no result, as lichess allows until both sides have moved: a game
        // started by mistake need not be resigned (and, later, count against anyone).
        Action::Abort if game.ply() >= 2 => Err(Refusal::bad_request(
            "a game can be aborted only before both sides have moved; you can offer a draw or resign",
        )),
        Action::Abort => Ok(Step::End(Outcome::ABORTED)),
        Action::Rematch => Err(bad("a rematch can be offered once the game is over")),
        Action::Berserk => Ok(Step::Berserk(side)),
    }
}

/// A claim by `side` in a correspondence game, once the opponent's time for their move has run
/// out: a win on time (a draw if `side` could not mate), or a draw if that is what is claimed.
fn claim_overdue(
    side: Color,
    kind: ClaimKind,
    (mover, left): (Color, Duration),
    game: &Game,
) -> Result<Outcome, Refusal> {
    if mover == side {
        return Err(bad("it is your move: there is nothing to claim"));
    }
    if !left.is_zero() {
        let hours = left.as_secs().div_ceil(3600);
        return Err(bad(format!("your opponent still has time for their move: you can claim in {hours} h")));
    }
    Ok(match kind {
        ClaimKind::Win => crate::chess::timeout_outcome(game.position(), mover),
        ClaimKind::Draw => Outcome::draw(EndReason::Timeout),
    })
}

/// The move `uci` by `side`, if it is theirs to play and legal in `game`.
fn human_move(game: &Game, side: Color, uci: &str) -> Result<Move, Refusal> {
    if game.turn() != side {
        return Err(Refusal::not_your_turn(format!("it is {}'s turn", game.turn())));
    }
    let parsed: UciMove = uci.parse().map_err(|e| Refusal::illegal_move(format!("{e}")))?;
    parsed.to_move(game.position()).map_err(|e| Refusal::illegal_move(e.to_string()))
}
