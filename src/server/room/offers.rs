//! Offers between the players (lichess's Drawer and Takebacker): draws, takebacks (at once
//! against a bot) and rematches, and declining them. Between people, takebacks follow lichess's
//! courtesy: none before both sides have moved, and a declined request waits longer each time
//! before it may be made again.
//!
//! Rematches: after the end either player offers to play again and the other accepts (a bot
//! accepts at once). The new game swaps the colours and keeps everything else — variant,
//! rules, start position, time control — and both seats stay with the same players (their
//! tokens hold the new seats too, so each client moves on with `resume`). Games linked this
//! way form a match whose running score each game carries.
//!
//! The part decides; the room applies what it answers (a draw agreed ends the game, a takeback
//! accepted takes back so many plies, a rematch agreed is made by the lobby).

use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::build;
use super::build::bad;
use super::events::Batch;
use super::seats::Seat;
use super::snapshot::View;
use super::LobbyNote;
use crate::chess::{ByColor, Color, EndReason, Game, Outcome};
use crate::protocol::{GameId, OfferKind, OfferView, Refusal, ServerMessage};
use crate::server::store::{now_ms, StoredGame};

/// The offer standing between the players, each side's takeback courtesy, and the rematch.
#[derive(Default)]
pub(super) struct Offers {
    offer: Option<OfferView>,
    /// How soon each side may ask to take back again after being declined.
    takebacks: Takebacks,
    /// The rematch of this game, once agreed.
    next: Option<GameId>,
}

impl Offers {
    /// The offer standing, if any.
    pub(super) fn offer(&self) -> Option<OfferView> {
        self.offer
    }

    /// The rematch of this game, once agreed.
    pub(super) fn next(&self) -> Option<&GameId> {
        self.next.as_ref()
    }

    /// The offer standing lapses (a move, a takeback, the end).
    pub(super) fn clear(&mut self) {
        self.offer = None;
    }

    /// `side` asks to take back (against a bot: takes back at once), or accepts the opponent's
    /// request. How many plies to take back, or None when the request is now standing.
    pub(super) fn undo(
        &mut self,
        side: Color,
        game: &Game,
        vs_bot: bool,
        out: &mut Batch,
    ) -> Result<Option<usize>, Refusal> {
        if vs_bot {
            let thinking = game.turn() != side;
            // While the bot thinks, only the player's own last move goes; else the bot's reply too.
            let plies = if thinking { 1 } else { 2 };
            if game.ply() < plies {
                return Err(bad("there is no move of yours to take back"));
            }
            return Ok(Some(plies));
        }
        match self.offer {
            Some(OfferView { kind: OfferKind::Undo, by }) if by != side => {
                // Accepting: take back the offerer's last move (and the reply to it, if any).
                Ok(Some(if game.turn() == by { 2 } else { 1 }))
            }
            Some(OfferView { kind: OfferKind::Undo, .. }) => Err(bad("you have already offered to take back")),
            _ => {
                if game.ply() < 2 {
                    return Err(bad("you can ask to take back once both sides have moved"));
                }
                self.takebacks.may_ask(side, Instant::now())?;
                self.offer = Some(OfferView { kind: OfferKind::Undo, by: side });
                out.push(move |game, v| ServerMessage::Offer { game, v, kind: OfferKind::Undo, by: side });
                Ok(None)
            }
        }
    }

    /// `side` offers a draw, or accepts the opponent's offer: the end agreed, if it is.
    pub(super) fn draw(&mut self, side: Color, vs_bot: bool, out: &mut Batch) -> Result<Option<Outcome>, Refusal> {
        if vs_bot {
            // Bots decline draws at once: the offer and its refusal are both shown.
            out.push(move |game, v| ServerMessage::Offer { game, v, kind: OfferKind::Draw, by: side });
            out.push(move |game, v| ServerMessage::Declined { game, v, kind: OfferKind::Draw, by: side });
            return Ok(None);
        }
        match self.offer {
            Some(OfferView { kind: OfferKind::Draw, by }) if by != side => {
                Ok(Some(Outcome::draw(EndReason::Agreement)))
            }
            Some(OfferView { kind: OfferKind::Draw, .. }) => Err(bad("you have already offered a draw")),
            _ => {
                self.offer = Some(OfferView { kind: OfferKind::Draw, by: side });
                out.push(move |game, v| ServerMessage::Offer { game, v, kind: OfferKind::Draw, by: side });
                Ok(None)
            }
        }
    }

    /// `side` declines the opponent's offer; a declined takeback request starts its cooldown
    /// (the n-th time, n² times `cooldown`).
    pub(super) fn decline(&mut self, side: Color, cooldown: Duration, out: &mut Batch) -> Result<(), Refusal> {
        match self.offer {
            Some(OfferView { kind, by }) if by != side => {
                self.offer = None;
                if kind == OfferKind::Undo {
                    self.takebacks.declined(by, Instant::now(), cooldown);
                }
                out.push(move |game, v| ServerMessage::Declined { game, v, kind, by });
                Ok(())
            }
            _ => Err(bad("there is no offer to decline")),
        }
    }

    /// `side` takes back its own pending offer; the room then shows the game as it is, with no
    /// offer standing (there is no event of its own for that).
    pub(super) fn withdraw(&mut self, side: Color) -> Result<(), Refusal> {
        match self.offer {
            Some(OfferView { by, .. }) if by == side => {
                self.offer = None;
                Ok(())
            }
            _ => Err(bad("you have no offer standing to withdraw")),
        }
    }

    /// `side` offers a rematch of a game that is `over`, or accepts the offer of the
    /// `opponent` (a bot accepts at once). True if the rematch is agreed: the room then has it
    /// made.
    pub(super) fn rematch(
        &mut self,
        side: Color,
        opponent: &Seat,
        over: bool,
        out: &mut Batch,
    ) -> Result<bool, Refusal> {
        if !over {
            return Err(bad("a rematch can be offered once the game is over"));
        }
        if let Some(next) = &self.next {
            return Err(bad(format!("the rematch of this game has been made already: game {next}")));
        }
        if opponent.is_open() {
            return Err(bad("nobody took the other seat: there is no one to play again"));
        }
        let offered = |by: Color| matches!(self.offer, Some(OfferView { kind: OfferKind::Rematch, by: b }) if b == by);
        if opponent.is_bot() || offered(side.other()) {
            return Ok(true);
        }
        if offered(side) {
            return Err(bad("you have already offered a rematch"));
        }
        self.offer = Some(OfferView { kind: OfferKind::Rematch, by: side });
        out.push(move |game, v| ServerMessage::Offer { game, v, kind: OfferKind::Rematch, by: side });
        Ok(false)
    }

    /// Has the `lobby` make the rematch agreed, `next` as the store is to hold it (stored
    /// before anyone hears of it): its id, which its event tells everyone.
    pub(super) async fn make_rematch(
        &mut self,
        next: StoredGame,
        lobby: &UnboundedSender<LobbyNote>,
        out: &mut Batch,
    ) -> Result<GameId, Refusal> {
        let (reply, made) = oneshot::channel();
        lobby.send(LobbyNote::Rematch { game: Box::new(next), reply }).map_err(|_| Refusal::shutting_down())?;
        let next = made.await.map_err(|_| Refusal::shutting_down())??;
        self.offer = None;
        self.next = Some(next.clone());
        let id = next.clone();
        out.push(move |game, v| ServerMessage::Rematch { game, v, next });
        Ok(id)
    }
}

/// The rematch of the game `view` shows (at version `v`) as the store is to hold it (its id is
/// the lobby's to give): its setup with the colours swapped, nothing played, and the match's
/// score so far.
pub(super) fn next_game(view: &View, v: u64) -> StoredGame {
    let (game, score) = (build::stored(view, v), view.record.score_now(view.game));
    StoredGame {
        id: String::new(),
        white: game.black,
        black: game.white,
        times: None,
        moves: Vec::new(),
        v: 0,
        outcome: None,
        created_ms: now_ms(),
        ended_ms: None,
        score: score.swapped().into(),
        ratings: None,
        ..game
    }
}

/// The takeback courtesy of both sides: how often each has been declined, and until when it
/// must wait before asking again.
#[derive(Default, Debug)]
struct Takebacks {
    declines: ByColor<u32>,
    wait_until: ByColor<Option<Instant>>,
}

impl Takebacks {
    /// Whether `side` may ask to take back `now`; a refusal says how long to wait.
    fn may_ask(&self, side: Color, now: Instant) -> Result<(), Refusal> {
        match self.wait_until[side] {
            Some(until) if now < until => {
                let seconds = until.duration_since(now).as_secs_f64().ceil().max(1.0);
                Err(Refusal::rate_limited(format!(
                    "your opponent declined your last request to take back; you can ask again in {seconds} s"
                )))
            }
            _ => Ok(()),
        }
    }

    /// `side`'s request was declined: the n-th time, it waits n² times `base`.
    fn declined(&mut self, side: Color, now: Instant, base: Duration) {
        self.declines[side] = self.declines[side].saturating_add(1);
        let n = self.declines[side];
        self.wait_until[side] = Some(now + base.saturating_mul(n.saturating_mul(n)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_decline_waits_longer() {
        let (base, start) = (Duration::from_secs(10), Instant::now());
        let mut t = Takebacks::default();
        assert!(t.may_ask(Color::White, start).is_ok());
        t.declined(Color::White, start, base);
        let refused = t.may_ask(Color::White, start + Duration::from_secs(9)).unwrap_err();
        assert!(refused.message.contains("in 1 s"), "{refused}");
        assert!(t.may_ask(Color::White, start + base).is_ok());
        assert!(t.may_ask(Color::Black, start).is_ok(), "each side has its own count");
        let again = start + base;
        t.declined(Color::White, again, base);
        assert!(t.may_ask(Color::White, again + Duration::from_secs(39)).is_err());
        assert!(t.may_ask(Color::White, again + Duration::from_secs(40)).is_ok());
        t.declined(Color::White, again, base);
        assert!(t.may_ask(Color::White, again + Duration::from_secs(89)).is_err(), "3²: 90 s");
    }
}
