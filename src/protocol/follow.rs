//! Following a game from its events: the one Rust implementation of the rule every client of
//! the protocol keeps (the web client's `client/js/follow.js` keeps the same one, and both are
//! checked against tests/data/protocol/follow.json).
//!
//! The model is the server's: a `state` replaces it whole, and each event must carry the next
//! version. Anything else — a gap in versions, a move whose ply does not follow or whose
//! position cannot be read — means the follower may be out of step, so it asks for a fresh
//! `state` ([`Applied::Resync`]) and ignores events until one comes, instead of guessing.

use super::server::ServerMessage;
use super::values::{GameState, OfferView, Status};
use crate::chess::{Position, Variant};

/// What one message did to the followed game.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Applied {
    /// The game changed (or, for `watchers`, its spectator count).
    Applied,
    /// Nothing to do: another game's message, an event already seen, or one that arrived while
    /// a fresh `state` is awaited.
    Ignored,
    /// The event does not follow on: ask the server for a fresh `state` (`watch`/`resume`
    /// without `v`); events are ignored until it comes.
    Resync,
}

/// How an event's version stands against the last one applied.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Sequence {
    /// The next one.
    Next,
    /// Already seen: a replay overlapping what the follower has, or a duplicate.
    Seen,
    /// Versions were skipped: this many events are missing.
    Gap(u64),
}

impl Sequence {
    /// Where version `v` stands after `last`.
    pub fn of(last: u64, v: u64) -> Sequence {
        if v <= last {
            Sequence::Seen
        } else if v == last + 1 {
            Sequence::Next
        } else {
            Sequence::Gap(v - last - 1)
        }
    }
}

/// One game followed from its messages, from a first `state` on.
#[derive(Clone, Debug)]
pub struct Follower {
    state: GameState,
    /// A resync was asked for: events wait for the next `state`.
    awaiting: bool,
}

impl Follower {
    /// A follower starting from `state`.
    pub fn from_state(state: GameState) -> Follower {
        Follower { state, awaiting: false }
    }

    /// For a client that has seen nothing yet: the first `state` starts `follower`; until
    /// then every message is [`Applied::Ignored`]. After that, as [`Follower::apply`].
    pub fn follow(follower: &mut Option<Follower>, message: &ServerMessage) -> Applied {
        match (follower.as_mut(), message) {
            (Some(f), _) => f.apply(message),
            (None, ServerMessage::State(state)) => {
                *follower = Some(Follower::from_state(GameState::clone(state)));
                Applied::Applied
            }
            (None, _) => Applied::Ignored,
        }
    }

    /// The game as followed so far.
    pub fn state(&self) -> &GameState {
        &self.state
    }

    /// True while a fresh `state` is awaited after a [`Applied::Resync`].
    pub fn awaiting(&self) -> bool {
        self.awaiting
    }

    /// Applies one server message.
    pub fn apply(&mut self, message: &ServerMessage) -> Applied {
        if message.game().is_none_or(|game| *game != self.state.game) {
            return Applied::Ignored;
        }
        let state = &mut self.state;
        match message {
            ServerMessage::State(fresh) => {
                *state = GameState::clone(fresh);
                self.awaiting = false;
                return Applied::Applied;
            }
            ServerMessage::Watchers { count, .. } => {
                state.watchers = *count;
                return Applied::Applied;
            }
            _ => {}
        }
        let Some(v) = message.version() else { return Applied::Ignored };
        if self.awaiting {
            return Applied::Ignored;
        }
        match Sequence::of(state.v, v) {
            Sequence::Seen => return Applied::Ignored,
            Sequence::Gap(_) => {
                self.awaiting = true;
                return Applied::Resync;
            }
            Sequence::Next => {}
        }
        if !apply_event(state, message) {
            self.awaiting = true;
            return Applied::Resync;
        }
        state.v = v;
        Applied::Applied
    }
}

/// Applies the next event to `state`; false if it does not fit (a move whose ply or position
/// is wrong), which calls for a fresh state.
fn apply_event(state: &mut GameState, message: &ServerMessage) -> bool {
    match message {
        ServerMessage::Move { uci, san, fen, turn, ply, legal, check, clock, opening, .. } => {
            state.opening = opening.clone();
            let variant = Variant::from(state.variant);
            if *ply != state.moves.len() + 1 || Position::from_fen(fen, variant).is_err() {
                return false;
            }
            state.moves.push(uci.clone());
            state.san.push(san.clone());
            state.fen = fen.clone();
            state.turn = *turn;
            state.legal = legal.clone();
            state.check = *check;
            state.offer = None;
            if clock.is_some() {
                state.clock = *clock;
            }
            if state.status == Status::Waiting {
                state.status = Status::Ongoing;
            }
        }
        ServerMessage::End { result, reason, clock, score, ratings, .. } => {
            state.status = Status::Ended;
            state.score = *score;
            state.ratings = *ratings;
            state.result = Some(*result);
            state.reason = Some(*reason);
            state.legal.clear();
            state.offer = None;
            state.claim = None;
            if clock.is_some() {
                state.clock = *clock;
            }
        }
        ServerMessage::Offer { kind, by, .. } => state.offer = Some(OfferView { kind: *kind, by: *by }),
        ServerMessage::Declined { .. } => state.offer = None,
        ServerMessage::Berserk { clock, .. } if clock.is_some() => state.clock = *clock,
        ServerMessage::Rematch { next, .. } => {
            state.next = Some(next.clone());
            state.offer = None;
        }
        ServerMessage::Seats { seats, claim, .. } => {
            state.seats = seats.clone();
            state.claim = *claim;
            let open = |seat: &super::values::SeatView| matches!(seat, super::values::SeatView::Open);
            if state.status == Status::Waiting && !seats.any(open) {
                state.status = Status::Ongoing;
            }
        }
        _ => {}
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_next_seen_or_a_gap() {
        assert_eq!(Sequence::of(4, 5), Sequence::Next);
        assert_eq!(Sequence::of(4, 4), Sequence::Seen);
        assert_eq!(Sequence::of(4, 2), Sequence::Seen);
        assert_eq!(Sequence::of(4, 8), Sequence::Gap(3));
    }
}
