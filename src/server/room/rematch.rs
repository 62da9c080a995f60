//! Rematches: after the end either player offers to play again and the other accepts (a bot
//! accepts at once). The new game swaps the colours and keeps everything else — variant,
//! rules, start position, time control — and both seats stay with the same players (their
//! tokens hold the new seats too, so each client moves on with `resume`). Games linked this
//! way form a match whose running score each game carries.

use tokio::sync::oneshot;

use super::actor::Room;
use super::build::bad;
use super::events::Batch;
use super::LobbyNote;
use crate::chess::Color;
use crate::protocol::{OfferKind, OfferView, Refusal, ServerMessage};
use crate::server::store::{now_ms, StoredGame};

impl Room {
    /// `side` offers a rematch, or accepts the opponent's offer.
    pub(super) async fn rematch(&mut self, side: Color, out: &mut Batch) -> Result<(), Refusal> {
        if !self.game.is_over() {
            return Err(bad("a rematch can be offered once the game is over"));
        }
        if let Some(next) = &self.next {
            return Err(bad(format!("the rematch of this game has been made already: game {next}")));
        }
        if self.seat(side.other()).is_open() {
            return Err(bad("nobody took the other seat: there is no one to play again"));
        }
        let offered = |by: Color| matches!(self.offer, Some(OfferView { kind: OfferKind::Rematch, by: b }) if b == by);
        if !self.opponent_is_bot(side) && !offered(side.other()) {
            if offered(side) {
                return Err(bad("you have already offered a rematch"));
            }
            self.offer = Some(OfferView { kind: OfferKind::Rematch, by: side });
            out.push(move |game, v| ServerMessage::Offer { game, v, kind: OfferKind::Rematch, by: side });
            return Ok(());
        }
        // Agreed: the lobby makes the new game, stored before anyone hears of it.
        let (reply, made) = oneshot::channel();
        let note = LobbyNote::Rematch { game: Box::new(self.next_game()), reply };
        self.ctx.lobby.send(note).map_err(|_| Refusal::shutting_down())?;
        let next = made.await.map_err(|_| Refusal::shutting_down())??;
        tracing::info!(game = %self.id, %next, "rematch");
        self.offer = None;
        self.next = Some(next.clone());
        out.push(move |game, v| ServerMessage::Rematch { game, v, next });
        Ok(())
    }

    /// The rematch as the store is to hold it (its id is the lobby's to give): this game's
    /// setup with the colours swapped, nothing played, and the match's score so far.
    fn next_game(&self) -> StoredGame {
        let game = self.stored();
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
            score: self.score_now().swapped().into(),
            ratings: None,
            ..game
        }
    }
}
