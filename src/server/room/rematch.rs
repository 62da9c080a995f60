//! Rematches: after the end either player offers to play again and the other accepts (a bot
//! accepts at once). The new game swaps the colours and keeps everything else — variant,
//! rules, start position, time control — and both seats stay with the same players (their
//! tokens hold the new seats too, so each client moves on with `resume`). Games linked this
//! way form a match whose running score each game carries.

use tokio::sync::oneshot;

use super::actor::Room;
use super::build::bad;
use super::events::Batch;
use super::seat::Seat;
use super::LobbyNote;
use crate::chess::Color;
use crate::protocol::{OfferKind, OfferView, Refusal, ServerMessage};
use crate::server::store::{now_ms, StoredGame, StoredScore, StoredSeat};

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

    /// The rematch as the store is to hold it (its id is the lobby's to give).
    fn next_game(&self) -> StoredGame {
        let seat = |side: Color| match self.seat(side) {
            Seat::Human { token, name, .. } => {
                StoredSeat::Human { token: *token, name: name.as_ref().map(|n| n.as_str().to_string()) }
            }
            Seat::Bot { level, .. } => StoredSeat::Bot { level: level.get() },
        };
        let score = self.score_now().swapped();
        StoredGame {
            id: String::new(),
            variant: self.game.variant(),
            initial_fen: self.game.initial_position().fen(),
            rules: self.game.rules(),
            // Colours swapped.
            white: seat(Color::Black),
            black: seat(Color::White),
            clock: self.clock.as_ref().map(|c| c.spec().into()),
            times: None,
            moves: Vec::new(),
            v: 0,
            outcome: None,
            created_ms: now_ms(),
            ended_ms: None,
            score: StoredScore { white: score.white.0, black: score.black.0, games: score.games },
            chat: Vec::new(),
        }
    }
}
