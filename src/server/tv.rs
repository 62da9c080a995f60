//! gambit TV (lichess's): per channel, one game being played now that anyone may watch. The
//! featured game stays until it ends, then the next is featured: of the games in progress, the
//! most watched, then the one with more moves. `best` features games between people, `bot`
//! games with a computer seat or a bot account. Followers hold a `watch` receiver and hear
//! every change at once — the WebSocket's `tv` subscription, `/api/tv/feed`, `/api/tv/channels`
//! and the `/tv` pages all read it; nobody polls.
//!
//! A featured game that ends stays on screen [`LINGER`] more, with its result.
//!
//! The TV task reads the lobby's games list (the whole cluster's, as the lobby shares it), so
//! every node features the same games without talking about it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use crate::protocol::{GameId, GameSummary, SeatView, ServerMessage, Status, TvChannel as Channel};
use crate::server::lobby::Lobby;
use crate::server::notices::Notices;

/// Whether `game` belongs on `channel`, `bots` being the names of the bot accounts online
/// (lower case).
fn shows(channel: Channel, game: &GameSummary, bots: &HashSet<String>) -> bool {
    let computer = |seat: &SeatView| match seat {
        SeatView::Bot { .. } | SeatView::Engine(_) => true,
        SeatView::Human { name, account: true, .. } => bots.contains(&name.to_lowercase()),
        SeatView::Human { .. } | SeatView::Open => false,
    };
    let any_computer = computer(&game.white) || computer(&game.black);
    match channel {
        Channel::Best => !any_computer,
        Channel::Bot => any_computer,
    }
}

/// What each channel features now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Featured {
    pub best: Option<GameSummary>,
    pub bot: Option<GameSummary>,
}

impl Featured {
    pub fn of(&self, channel: Channel) -> Option<&GameSummary> {
        match channel {
            Channel::Best => self.best.as_ref(),
            Channel::Bot => self.bot.as_ref(),
        }
    }

    fn slot(&mut self, channel: Channel) -> &mut Option<GameSummary> {
        match channel {
            Channel::Best => &mut self.best,
            Channel::Bot => &mut self.bot,
        }
    }

    /// The featured games after the list changed to `games`: a featured game still in progress
    /// stays (with its fresh summary); otherwise the channel's most watched game in progress,
    /// then the one with more moves, then the lowest id (so that every node picks the same).
    fn next(&self, games: &[GameSummary], bots: &HashSet<String>) -> Featured {
        let mut next = Featured::default();
        for channel in Channel::ALL {
            let playing = |g: &&GameSummary| g.status == Status::Ongoing && shows(channel, g, bots);
            let kept = self.of(channel).and_then(|now| games.iter().filter(playing).find(|g| g.game == now.game));
            let pick = kept.or_else(|| {
                games
                    .iter()
                    .filter(playing)
                    .max_by(|a, b| (a.watchers, a.plies).cmp(&(b.watchers, b.plies)).then_with(|| b.game.cmp(&a.game)))
            });
            *next.slot(channel) = pick.cloned();
        }
        next
    }
}

/// The channels, as the TV task keeps them.
#[derive(Clone)]
pub struct Tv {
    featured: watch::Receiver<Featured>,
}

impl Tv {
    /// Starts the TV task over `lobby`'s games list (bot accounts known from `notices`).
    pub fn start(lobby: Lobby, notices: Arc<Notices>) -> Tv {
        let (tx, featured) = watch::channel(Featured::default());
        tokio::spawn(run(lobby, notices, tx));
        Tv { featured }
    }

    /// What is featured now, and every change from here on.
    pub fn follow(&self) -> watch::Receiver<Featured> {
        self.featured.clone()
    }

    /// What is featured now.
    pub fn now(&self) -> Featured {
        self.featured.borrow().clone()
    }
}

/// The `tv` message telling a follower of `channel` its game.
pub fn message(channel: Channel, featured: &Featured) -> ServerMessage {
    ServerMessage::Tv { channel, game: featured.of(channel).map(|g| g.game.clone()) }
}

/// How long a featured game that has ended stays on screen, so that viewers see how it ended.
pub const LINGER: Duration = Duration::from_secs(3);

/// The TV task: follows the games list and features games, until the lobby closes.
async fn run(lobby: Lobby, notices: Arc<Notices>, tx: watch::Sender<Featured>) {
    let Some((mut games, _, mut rx)) = lobby.subscribe().await else { return };
    // When each featured game was first seen ended.
    let mut ended: HashMap<GameId, Instant> = HashMap::new();
    loop {
        let bots: HashSet<String> =
            notices.everyone().into_iter().filter(|a| a.bot).map(|a| a.name.to_lowercase()).collect();
        let mut next = tx.borrow().next(&games, &bots);
        let mut linger_until: Option<Instant> = None;
        for channel in Channel::ALL {
            let Some(shown) = tx.borrow().of(channel).cloned() else { continue };
            let Some(now) = games.iter().find(|g| g.game == shown.game && g.status == Status::Ended) else { continue };
            let since = *ended.entry(shown.game.clone()).or_insert_with(Instant::now);
            if since.elapsed() < LINGER {
                // Still on screen, with its result, for a moment.
                *next.slot(channel) = Some(now.clone());
                linger_until = Some(linger_until.map_or(since + LINGER, |u: Instant| u.min(since + LINGER)));
            }
        }
        ended.retain(|game, _| Channel::ALL.iter().any(|c| next.of(*c).map(|g| &g.game) == Some(game)));
        tx.send_if_modified(|now| {
            // Watcher counts and moves change the summaries all the time; only a change of
            // game is news to followers.
            let changed = Channel::ALL.iter().any(|c| now.of(*c).map(|g| &g.game) != next.of(*c).map(|g| &g.game));
            *now = next;
            changed
        });
        let linger = async {
            match linger_until {
                Some(until) => tokio::time::sleep_until(until).await,
                None => std::future::pending().await,
            }
        };
        let received = tokio::select! {
            received = rx.recv() => received,
            () = linger => continue,
        };
        match received {
            Ok(text) => {
                if let Ok(ServerMessage::Games { games: list }) = serde_json::from_str::<ServerMessage>(&text) {
                    games = list;
                }
            }
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => games = lobby.list().await,
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// A game's summary, for tests.
#[cfg(test)]
fn summary(game: &str, white: SeatView, black: SeatView, watchers: usize, plies: usize) -> GameSummary {
    GameSummary {
        game: GameId::from(game),
        variant: Default::default(),
        white,
        black,
        status: Status::Ongoing,
        plies,
        watchers,
        result: None,
        clock: None,
        rated: false,
        days: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(name: &str) -> SeatView {
        SeatView::Human { online: true, name: name.into(), account: true }
    }

    #[test]
    fn a_featured_game_stays_until_it_ends_then_the_most_watched_follows() {
        let bots: HashSet<String> = ["robo".to_string()].into();
        let a = summary("a", person("Ann"), person("Bo"), 1, 10);
        let b = summary("b", person("Cy"), person("Di"), 3, 2);
        let c = summary("c", person("Ed"), person("Fay"), 3, 8);
        let robo = summary("r", person("Robo"), person("Gus"), 9, 1);
        let level = summary("l", SeatView::bot(3), person("Hal"), 0, 0);
        let first = Featured::default().next(&[a.clone(), b.clone(), c.clone(), robo.clone(), level.clone()], &bots);
        assert_eq!(first.best.as_ref().map(|g| g.game.as_str()), Some("c"), "most watched, then more moves");
        assert_eq!(first.bot.as_ref().map(|g| g.game.as_str()), Some("r"), "a bot account's game");
        // More watchers elsewhere do not take the screen from a game in progress.
        let b_busier = GameSummary { watchers: 50, ..b.clone() };
        let kept = first.next(&[a.clone(), b_busier.clone(), c.clone(), level.clone()], &bots);
        assert_eq!(kept.best.as_ref().map(|g| g.game.as_str()), Some("c"));
        assert_eq!(kept.bot.as_ref().map(|g| g.game.as_str()), Some("l"), "the bot game ended: the next");
        let ended = GameSummary { status: Status::Ended, ..c };
        let after = kept.next(&[a, b_busier, ended], &bots);
        assert_eq!(after.best.as_ref().map(|g| g.game.as_str()), Some("b"));
        assert_eq!(after.bot, None, "nothing to show");
    }
}
