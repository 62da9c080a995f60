//! The games a connection follows: taking a seat (`join`, `resume`), watching and unwatching,
//! a seat holder's actions, and what the connection tells a game when it stops following it.

use super::inbound::too_often;
use super::outbound::Outbound;
use super::Connection;
use crate::chess::Color;
use crate::protocol::{Action, GameId, Refusal, ServerMessage};
use crate::server::game_ref::GameRef;
use crate::server::room::{Command, Subscription};

/// What the connection follows in one game.
pub(super) struct Follow {
    pub(super) game: GameRef,
    /// The seat this connection holds, with its token.
    pub(super) seat: Option<(Color, String)>,
    /// Counted in the room's watcher count.
    pub(super) counted: bool,
}

impl Connection {
    /// `join`: an open seat of the game.
    pub(super) async fn join(&mut self, game: GameId, color: Option<Color>, id: Option<u64>) -> Result<(), Refusal> {
        self.not_a_bot()?;
        if self.follows.get(&game).is_some_and(|f| f.seat.is_some()) {
            return Err(Refusal::seat_taken("you already hold a seat in this game"));
        }
        let player = self.player();
        self.take_seat(game, id, Command::Join { color, player }).await
    }

    /// `resume`: one's seat back, by its token (a logged-in player's is known from the
    /// account), with the events after version `v`.
    pub(super) async fn resume(
        &mut self,
        game: GameId,
        token: Option<String>,
        v: Option<u64>,
        id: Option<u64>,
    ) -> Result<(), Refusal> {
        if !self.shared.limits.may_resume(self.ip) {
            return Err(too_often("resumes seats", self.shared.limits.config().resumes_per_minute));
        }
        let (token, account) = self.seat_key(&game, token)?;
        self.take_seat(game, id, Command::Resume { token, account, v }).await
    }

    /// What `join` and `resume` share: the room, the follow limit, the seat `take` asks the room
    /// for, the `joined` reply, and following the game as that seat.
    pub(super) async fn take_seat(&mut self, game: GameId, id: Option<u64>, take: Command) -> Result<(), Refusal> {
        let handle = self.room(&game).await?;
        self.may_follow(Some(&game))?;
        let seated = handle.call(take).await?.into_seated()?;
        // What this connection followed of the game before is settled before the reply, so a
        // client that acts on `joined` finds the room as the reply says (a spectator that now
        // holds the seat is no longer counted as one).
        let (seat, counted) = self.retire(&game, Some((seated.color, seated.token.clone())), false).await;
        let message = ServerMessage::Joined { game: game.clone(), color: seated.color, token: seated.token, id };
        self.send_message(&message).await;
        self.forward_to(game, handle, seated.sub, seat, counted).await;
        Ok(())
    }

    /// `watch`: follows the game as a spectator (a seat holder here stays one).
    pub(super) async fn watch(&mut self, game: GameId, v: Option<u64>, id: Option<u64>) -> Result<(), Refusal> {
        let handle = self.room(&game).await?;
        self.may_follow(Some(&game))?;
        let (already_counted, has_seat) =
            self.follows.get(&game).map_or((false, false), |f| (f.counted, f.seat.is_some()));
        let count = !already_counted && !has_seat;
        let sub = handle.call(Command::Watch { v, counted: count }).await?.into_subscription()?;
        let (seat, counted) = self.retire(&game, None, already_counted || count).await;
        self.forward_to(game, handle, sub, seat, counted).await;
        self.ack(id).await;
        Ok(())
    }

    /// `unwatch`: stops following the game.
    pub(super) async fn unwatch(&mut self, game: GameId, id: Option<u64>) -> Result<(), Refusal> {
        let Some(follow) = self.follows.remove(&game) else {
            self.room(&game).await?;
            return Err(Refusal::bad_request("you are not watching this game"));
        };
        self.queue(Outbound::Unfollow(game)).await;
        drop_follow(follow).await;
        self.ack(id).await;
        Ok(())
    }

    /// Refuses to follow one more game beyond the per-connection limit.
    /// `game`: the game to follow, None for a new one.
    pub(super) fn may_follow(&self, game: Option<&str>) -> Result<(), Refusal> {
        let cap = self.shared.config.max_follows_per_connection;
        let already = game.is_some_and(|game| self.follows.contains_key(game));
        if !already && self.follows.len() >= cap {
            return Err(Refusal::too_many(format!(
                "this connection follows {cap} games, its limit; unwatch one first"
            )));
        }
        Ok(())
    }

    pub(super) async fn act(&mut self, game: GameId, action: Action, id: Option<u64>) -> Result<(), Refusal> {
        let seat = self.follows.get(&game).and_then(|f| f.seat.clone().map(|(_, token)| (f.game.clone(), token)));
        let Some((handle, token)) = seat else {
            self.room(&game).await?;
            return Err(Refusal::not_a_player(
                "you hold no seat in this game on this connection (spectators cannot act; players resume first)",
            ));
        };
        let round_trip_ms = self.round_trip.millis();
        handle.call(Command::Act { token, action, round_trip_ms }).await?.into_done()?;
        self.ack(id).await;
        Ok(())
    }

    /// Ends what this connection followed of `game` before, telling the room what changes; the
    /// seat and count the new follow has (a seat held before is kept by a spectator's `watch`).
    pub(super) async fn retire(
        &mut self,
        game: &str,
        mut seat: Option<(Color, String)>,
        mut counted: bool,
    ) -> (Option<(Color, String)>, bool) {
        // The writer's feed of the game is replaced by the new follow's.
        if let Some(old) = self.follows.remove(game) {
            match (&seat, old.seat) {
                (None, kept) => seat = kept,
                // The room counted the new seat (a `resume` of the same one too): the old one
                // goes, so a connection holding a seat counts once.
                (Some(_), Some((_, old_token))) => old.game.tell(Command::Leave { token: old_token }).await,
                _ => {}
            }
            if old.counted && seat.is_some() {
                // Now a player here, no longer a spectator.
                old.game.tell(Command::Unwatch).await;
            } else {
                counted |= old.counted;
            }
        }
        (seat, counted)
    }

    /// Forwards `sub` to this connection as its follow of `game` (the writer follows it).
    pub(super) async fn forward_to(
        &mut self,
        game: GameId,
        handle: GameRef,
        sub: Subscription,
        seat: Option<(Color, String)>,
        counted: bool,
    ) {
        let player = seat.is_some();
        self.queue(Outbound::Follow { game: game.clone(), sub, handle: handle.clone(), player }).await;
        self.follows.insert(game, Follow { game: handle, seat, counted });
    }
}

/// Stops following a game: the seat goes offline (on this connection), the watcher count drops.
pub(super) async fn drop_follow(follow: Follow) {
    if let Some((_, token)) = follow.seat {
        follow.game.tell(Command::Leave { token }).await;
    }
    if follow.counted {
        follow.game.tell(Command::Unwatch).await;
    }
}
