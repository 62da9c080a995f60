//! `gambit watch --tv`: a TV channel's featured games followed one after another, each as
//! `gambit watch` follows a game, the next one told by the server's `tv` messages.

use super::client::{Incoming, Servers};
use super::session::follow;
use super::TermError;
use crate::protocol::{ClientMessage, GameId, PlayerName, Request, ServerMessage, TvChannel};

/// `gambit watch --tv`: follows a TV channel's featured games one after another, until the
/// watcher quits.
pub async fn watch_tv(urls: Vec<String>, channel: TvChannel, name: Option<PlayerName>) -> Result<(), TermError> {
    let mut last: Option<GameId> = None;
    loop {
        let game = featured(&urls, channel, last.as_ref()).await?;
        let intro = format!("gambit TV ({}): game", channel.name());
        if !follow(urls.clone(), game.clone(), name.clone(), &intro).await? {
            return Ok(());
        }
        last = Some(game);
    }
}

/// The game `channel` features, once it is another than `last` (the server switches a moment
/// after the shown game ends, and says so: nothing is polled).
async fn featured(urls: &[String], channel: TvChannel, last: Option<&GameId>) -> Result<GameId, TermError> {
    let (_servers, mut conn) = Servers::open(urls.to_vec()).await?;
    conn.send(&Request::new(ClientMessage::Tv { channel }, None)).await?;
    let mut said = false;
    loop {
        let message = match conn.recv().await {
            Incoming::Message(message) => *message,
            Incoming::Closed => return Err(TermError::Closed),
        };
        match message {
            ServerMessage::Tv { game: Some(game), .. } if Some(&game) != last => return Ok(game),
            ServerMessage::Tv { .. } if !said => {
                said = true;
                println!("gambit TV ({}): waiting for the next game…", channel.name());
            }
            ServerMessage::Error { message, .. } => return Err(TermError::Refused(message)),
            _ => {}
        }
    }
}
