//! A game's two chat rooms: who may write where, the last lines kept (and stored) for whoever
//! comes later, and who reads each line. A line is not a versioned event: it changes nothing
//! of the game, so followers need not be in step with it.

use std::collections::VecDeque;
use std::sync::Arc;

use super::events::EventLog;
use super::record::discarded;
use super::Audience;
use crate::chess::Game;
use crate::protocol::{ChatLine, ChatRoom, ChatText, PlayerName, Refusal, SeatView, ServerMessage};
use crate::server::store::{now_ms, StoreEvent, StoredChat, CHAT_KEPT};

/// The room's chat: the last lines of both rooms, oldest first, each as its `chat` message's
/// JSON text.
#[derive(Default)]
pub(super) struct Chat {
    lines: VecDeque<(ChatRoom, Arc<str>)>,
}

impl Chat {
    /// The log of a stored game.
    pub(super) fn restore(game: &str, stored: &[StoredChat]) -> Chat {
        let mut log = Chat::default();
        for line in stored {
            let room = if line.players { ChatRoom::Players } else { ChatRoom::Spectators };
            let line =
                ChatLine { room, from: line.from.clone(), text: line.text.clone(), at: line.at_ms, system: false };
            log.push(room, text_of(game, line));
        }
        log
    }

    /// Keeps a line, dropping its room's oldest beyond [`CHAT_KEPT`].
    fn push(&mut self, room: ChatRoom, text: Arc<str>) {
        self.lines.push_back((room, text));
        if self.lines.iter().filter(|(r, _)| *r == room).count() > CHAT_KEPT {
            if let Some(oldest) = self.lines.iter().position(|(r, _)| *r == room) {
                self.lines.remove(oldest);
            }
        }
    }

    /// The spectators' lines, which the players may read once the game is over.
    fn spectators(&self) -> impl Iterator<Item = Arc<str>> + '_ {
        self.lines.iter().filter(|(room, _)| *room == ChatRoom::Spectators).map(|(_, t)| t.clone())
    }

    /// The lines a follower may read: a player reads the players' room, and the spectators'
    /// once the game is over; anyone else the spectators' room.
    pub(super) fn readable(&self, player: bool, over: bool) -> impl Iterator<Item = Arc<str>> + '_ {
        self.lines.iter().filter(move |(room, _)| audience(*room, over).reaches(player)).map(|(_, t)| t.clone())
    }
}

/// Who reads a line of `room`: the spectators' room is the players' to read too once the game
/// is over.
fn audience(room: ChatRoom, over: bool) -> Audience {
    match (room, over) {
        (ChatRoom::Players, _) => Audience::Players,
        (ChatRoom::Spectators, false) => Audience::Spectators,
        (ChatRoom::Spectators, true) => Audience::Everyone,
    }
}

fn text_of(game: &str, line: ChatLine) -> Arc<str> {
    ServerMessage::Chat { game: game.to_string(), line }.to_json().into()
}

impl Chat {
    /// Once the end is published: the players are sent what the spectators wrote during the
    /// game, which they may read from now on (later lines reach them as they are written).
    pub(super) fn open_spectators_room(&self, events: &EventLog) {
        for text in self.spectators() {
            events.tell(text, Audience::Players);
        }
    }

    /// A line for `room`, from a seat holder (`seat`: what everyone sees of their seat) or from
    /// a spectator called `name`; or why it may not be written there. A player may write in
    /// the spectators' room during the game (a bot greeting its watchers, as lichess allows)
    /// but reads it only once the game is over.
    fn line(
        (room, text): (ChatRoom, ChatText),
        (seat, name): (Option<SeatView>, Option<PlayerName>),
    ) -> Result<ChatLine, Refusal> {
        let from = match (room, seat) {
            (ChatRoom::Players, None) => {
                return Err(Refusal::not_a_player("only the two players write in the players' room"));
            }
            (_, Some(seat)) => seat.name().unwrap_or(PlayerName::ANONYMOUS).to_string(),
            (ChatRoom::Spectators, None) => PlayerName::shown(name.as_ref()),
        };
        Ok(ChatLine { room, from, text: text.into(), at: now_ms(), system: false })
    }

    /// Writes a line in `game` for `room` from its writer (see [`Chat::line`]): checked, stored
    /// with the game before anyone reads it, as moves are (a game the store has forgotten keeps
    /// its chat in memory only, while the room lasts), kept and sent to its room's members.
    pub(super) async fn write(
        &mut self,
        line: (ChatRoom, ChatText),
        writer: (Option<SeatView>, Option<PlayerName>),
        game: &Game,
        events: &EventLog,
    ) -> Result<(), Refusal> {
        let over = game.is_over();
        let line = Chat::line(line, writer)?;
        if !discarded(game) {
            let (players, from, text) = (line.room == ChatRoom::Players, line.from.clone(), line.text.clone());
            events.durable(StoreEvent::Chat(StoredChat { players, from, text, at_ms: line.at })).await?;
        }
        let room = line.room;
        let text = text_of(events.game(), line);
        self.push(room, text.clone());
        events.tell(text, audience(room, over));
        Ok(())
    }

    /// A line from the server itself, for everyone following the game (an engine seat that
    /// failed, and what became of it). Kept in the players' room of this room's log only: it
    /// says nothing a stored game needs, and the end event carries the outcome.
    pub(super) fn system(&mut self, text: String, events: &EventLog) {
        tracing::warn!(game = %events.game(), "{text}");
        let line = ChatLine { room: ChatRoom::Players, from: "gambit".into(), text, at: now_ms(), system: true };
        let text = text_of(events.game(), line);
        self.push(ChatRoom::Players, text.clone());
        events.tell(text, Audience::Everyone);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_room_keeps_its_last_lines_and_is_read_by_its_members() {
        let mut log = Chat::default();
        for i in 0..CHAT_KEPT + 5 {
            log.push(ChatRoom::Players, Arc::from(format!("p{i}")));
        }
        log.push(ChatRoom::Spectators, Arc::from("s0"));
        let players: Vec<Arc<str>> = log.readable(true, false).collect();
        assert_eq!(players.len(), CHAT_KEPT);
        assert_eq!(&*players[0], "p5", "the oldest lines went");
        let spectators: Vec<Arc<str>> = log.readable(false, false).collect();
        assert_eq!(spectators, vec![Arc::<str>::from("s0")], "spectators never read the players' room");
        assert_eq!(log.readable(true, true).count(), CHAT_KEPT + 1, "players read both once it is over");
    }
}
