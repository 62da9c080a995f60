//! Offers between the players: takebacks (at once against a bot) and draws, and declining them.

use tokio::time::Instant;

use super::actor::Room;
use super::build::bad;
use super::events::Batch;
use crate::chess::{Color, EndReason, Outcome};
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
                let plies = if self.game.turn() == side { 2 } else { 1 };
                if self.game.ply() < plies {
                    return Err(bad("there is no move of yours to take back"));
                }
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
                out.push(move |game, v| ServerMessage::Declined { game, v, kind, by });
                Ok(())
            }
            _ => Err(bad("there is no offer to decline")),
        }
    }
}
