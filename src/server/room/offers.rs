//! Offers between the players: takebacks (at once against a bot) and draws, and declining them.
//! Between people, takebacks follow lichess's courtesy: none before both sides have moved, and
//! a declined request waits longer each time before it may be made again.

use std::time::Duration;

use tokio::time::Instant;

use super::actor::Room;
use super::build::bad;
use super::events::Batch;
use crate::chess::{ByColor, Color, EndReason, Outcome};
use crate::protocol::{OfferKind, OfferView, Refusal, ServerMessage};
use crate::server::store::StoreEvent;

impl Room {
    pub(super) async fn undo(&mut self, side: Color, out: &mut Batch) -> Result<(), Refusal> {
        if self.opponent_is_bot(side) {
            let thinking = self.game.turn() != side;
            // While the bot thinks, only the player's own last move goes; else the bot's reply too.
            let plies = if thinking { 1 } else { 2 };
            if self.game.ply() < plies {
                return Err(bad("there is no move of yours to take back"));
            }
            return self.take_back(plies, out).await;
        }
        match self.offer {
            Some(OfferView { kind: OfferKind::Undo, by }) if by != side => {
                // Accepting: take back the offerer's last move (and the reply to it, if any).
                let plies = if self.game.turn() == by { 2 } else { 1 };
                self.take_back(plies, out).await
            }
            Some(OfferView { kind: OfferKind::Undo, .. }) => Err(bad("you have already offered to take back")),
            _ => {
                if self.game.ply() < 2 {
                    return Err(bad("you can ask to take back once both sides have moved"));
                }
                self.takebacks.may_ask(side, Instant::now())?;
                self.offer = Some(OfferView { kind: OfferKind::Undo, by: side });
                out.push(move |game, v| ServerMessage::Offer { game, v, kind: OfferKind::Undo, by: side });
                Ok(())
            }
        }
    }

    pub(super) async fn take_back(&mut self, plies: usize, out: &mut Batch) -> Result<(), Refusal> {
        // Durable first: if the store refuses, the moves stay and the game goes on unchanged.
        let times = self.times(Instant::now());
        let ply = self.game.ply().saturating_sub(plies);
        self.store(StoreEvent::Undo { ply, times, v: out.next_version() }).await?;
        self.cancel_bot();
        for _ in 0..plies {
            self.game.undo();
        }
        self.opening = crate::chess::openings::of_game(&self.game);
        self.offer = None;
        // Clocks are not rolled back (docs/protocol.md): the side to move now has its time running.
        self.sync_clock();
        out.push_stored(self.state_event());
        self.maybe_start_bot();
        Ok(())
    }

    pub(super) async fn draw(&mut self, side: Color, out: &mut Batch) -> Result<(), Refusal> {
        if self.opponent_is_bot(side) {
            // Bots decline draws at once: the offer and its refusal are both shown.
            out.push(move |game, v| ServerMessage::Offer { game, v, kind: OfferKind::Draw, by: side });
            out.push(move |game, v| ServerMessage::Declined { game, v, kind: OfferKind::Draw, by: side });
            return Ok(());
        }
        match self.offer {
            Some(OfferView { kind: OfferKind::Draw, by }) if by != side => {
                self.finish(Outcome::draw(EndReason::Agreement), out).await;
                Ok(())
            }
            Some(OfferView { kind: OfferKind::Draw, .. }) => Err(bad("you have already offered a draw")),
            _ => {
                self.offer = Some(OfferView { kind: OfferKind::Draw, by: side });
                out.push(move |game, v| ServerMessage::Offer { game, v, kind: OfferKind::Draw, by: side });
                Ok(())
            }
        }
    }

    pub(super) fn decline(&mut self, side: Color, out: &mut Batch) -> Result<(), Refusal> {
        match self.offer {
            Some(OfferView { kind, by }) if by != side => {
                self.offer = None;
                if kind == OfferKind::Undo {
                    self.takebacks.declined(by, Instant::now(), self.ctx.config.takeback_cooldown);
                }
                out.push(move |game, v| ServerMessage::Declined { game, v, kind, by });
                Ok(())
            }
            _ => Err(bad("there is no offer to decline")),
        }
    }
}

/// The takeback courtesy of both sides: how often each has been declined, and until when it
/// must wait before asking again.
#[derive(Default, Debug)]
pub(super) struct Takebacks {
    declines: ByColor<u32>,
    wait_until: ByColor<Option<Instant>>,
}

impl Takebacks {
    /// Whether `side` may ask to take back `now`; a refusal says how long to wait.
    pub(super) fn may_ask(&self, side: Color, now: Instant) -> Result<(), Refusal> {
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
    pub(super) fn declined(&mut self, side: Color, now: Instant, base: Duration) {
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
