//! What a connection does for people around a game rather than on its board: chat lines, and
//! open challenges (posting, withdrawing, accepting one, and sitting down when one's own is
//! accepted).

use super::inbound::too_often;
use super::Connection;
use crate::chess::Color;
use crate::protocol::{ChatRoom, ChatText, ErrorCode, GameId, NewSeek, Refusal, SeekId, ServerMessage};
use crate::server::limits::Verdict;
use crate::server::lobby::seeks::{self, SeekMatch, Seeker};
use crate::server::lobby::{Taken, Taker};
use crate::server::room::{self, Command};
use crate::server::store::Relation;

impl Connection {
    /// `chat`: a line in one of the game's rooms, as this connection's seat or as a spectator.
    pub(super) async fn chat(
        &mut self,
        game: GameId,
        room: ChatRoom,
        text: ChatText,
        id: Option<u64>,
    ) -> Result<(), Refusal> {
        let Some(follow) = self.follows.get(&game) else {
            self.room(&game).await?;
            return Err(Refusal::not_a_player("you neither play nor watch this game on this connection"));
        };
        let (handle, token) = (follow.game.clone(), follow.seat.as_ref().map(|(_, token)| token.clone()));
        if self.chat_limiter.check() != Verdict::Allow {
            return Err(Refusal::rate_limited("you are writing too fast; wait a few seconds"));
        }
        // Per address too: more connections must not mean more lines.
        if !self.shared.limits.may_chat(self.ip) {
            return Err(Refusal::rate_limited("your address is writing too fast; wait a few seconds"));
        }
        let blocked_by = match &self.account {
            Some(account) => self.shared.relations.relating(account.id, Relation::Block).await.map_err(|e| {
                tracing::error!(error = %e, "could not read who blocks a chat line's writer");
                Refusal::new(ErrorCode::ServerError, "could not send the line; try again")
            })?,
            None => Vec::new(),
        };
        handle.call(Command::Chat { token, name: self.name.clone(), room, text, blocked_by }).await?.into_done()?;
        self.ack(id).await;
        Ok(())
    }

    /// `seek`: posts an open challenge (replacing this connection's earlier one).
    pub(super) async fn seek(&mut self, spec: NewSeek, id: Option<u64>) -> Result<(), Refusal> {
        self.not_a_bot()?;
        if !self.shared.limits.may_create(self.ip) {
            return Err(too_often("creates games", self.shared.limits.config().creates_per_minute));
        }
        // Checked now: whoever accepts must find a game they can play.
        room::check(&spec.game(Color::White))?;
        if spec.rated && self.account.is_none() {
            return Err(Refusal::login_required("log in to play rated games"));
        }
        self.given(spec.name.clone()).await?;
        let spec = NewSeek { name: self.name.clone(), ..spec };
        let player = self.player();
        let seeker = Seeker { connection: self.id, ip: self.ip, matched: self.matched.clone(), player };
        let seek = self.shared.lobby.post_seek(spec, seeker).await?;
        self.seeking = true;
        self.send_message(&ServerMessage::Seeking { seek, id }).await;
        Ok(())
    }

    /// `cancel_seek`: withdraws this connection's seek.
    pub(super) async fn cancel_seek(&mut self, id: Option<u64>) -> Result<(), Refusal> {
        self.seeking = false;
        if !self.shared.lobby.cancel_seek(self.id).await {
            return Err(Refusal::new(ErrorCode::NoSuchSeek, "you have no open seek (it may have just been accepted)"));
        }
        self.ack(id).await;
        Ok(())
    }

    /// `accept_seek`: takes up an open challenge (on whichever node holds it) and sits down.
    pub(super) async fn accept_seek(&mut self, seek: SeekId, id: Option<u64>) -> Result<(), Refusal> {
        self.not_a_bot()?;
        self.may_follow(None)?;
        let player = self.player();
        let (game, token) = match self
            .shared
            .lobby
            .take_seek(seek.clone(), Taker { connection: Some(self.id), account: player.account_id() })
            .await
        {
            Ok(taken) => seeks::play(&self.shared.lobby, taken, player).await?,
            Err(Taken::Refused(refusal)) => return Err(refusal),
            Err(Taken::Elsewhere(node)) => match &self.shared.cluster {
                Some(cluster) => cluster.accept_seek(&node, seek, player).await?,
                None => return Err(Refusal::server_error("a seek of another node, but no cluster")),
            },
        };
        self.take_seat(game, id, Command::Resume { token, account: None, v: None }).await
    }

    /// This connection's seek was accepted: sit down in its game. False if the connection is
    /// closing.
    pub(super) async fn seek_matched(&mut self, matched: SeekMatch) -> bool {
        self.seeking = false;
        let SeekMatch { game, token } = matched;
        if let Err(refusal) = self.take_seat(game, None, Command::Resume { token, account: None, v: None }).await {
            self.error(refusal.code, refusal.message, None).await;
        }
        !self.closing()
    }
}
