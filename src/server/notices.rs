//! What each logged-in player is told as it happens, wherever they are connected: a game of
//! theirs started, a challenge to or from them came, was declined or withdrawn. The API's
//! event stream (`/api/stream/event`) and the web page's top bar both read these. It also
//! counts who is online: an account is online while it has an event stream or a WebSocket
//! open on this server. In a cluster, every notice is also relayed to the other nodes (a
//! challenge made on one reaches a player connected to another), and each node shares who is
//! online on it every few seconds.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};

use crate::protocol::{GameId, GameSummary, SeatView};
use crate::server::store::AccountKey;

/// How many notices a slow listener may fall behind before it misses some.
const CAPACITY: usize = 64;

/// How long another node's list of who is online counts without news from it.
pub const REMOTE_ONLINE_TTL: Duration = Duration::from_secs(6);

/// One notice for one account.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Notice {
    /// A game the account plays in has started (its stream follows it to its end).
    GameStart { game: GameId },
    /// An event line about a challenge (lichess's `challenge`, `challengeCanceled`,
    /// `challengeDeclined` objects), ready to send.
    Challenge(Arc<str>),
    /// A notification just stored for the account (`server::notifications`' JSON view).
    Notification(Arc<str>),
}

/// A game between players of whom at least one has an account has started: what the
/// notifications of their followers are made from.
#[derive(Clone, Debug)]
pub struct GameStarted {
    pub game: GameId,
    /// Each side's account, if a logged-in player holds it, and how the seat is shown.
    pub players: [(Option<AccountKey>, String); 2],
}

/// What happens in a game that its players' notifications are made from.
#[derive(Clone, Debug)]
pub enum Happening {
    /// A game has started: its players' followers hear of it.
    Started(GameStarted),
    /// It is `account`'s move in correspondence game `game`, against `opponent`.
    YourMove { game: GameId, account: AccountKey, opponent: String },
}

impl GameStarted {
    /// Game `game`, each side's account (if a logged-in player holds it) and seat.
    pub fn new(game: GameId, white: (Option<AccountKey>, &SeatView), black: (Option<AccountKey>, &SeatView)) -> Self {
        let shown = |seat: &SeatView| seat.shown().unwrap_or("?").to_string();
        GameStarted { game, players: [(white.0, shown(white.1)), (black.0, shown(black.1))] }
    }

    /// A game against the computer, started by the player `account` holding `side`.
    pub fn against_computer(
        game: GameId,
        side: crate::chess::Color,
        account: AccountKey,
        summary: &GameSummary,
    ) -> Self {
        let ours = |color| (color == side).then_some(account);
        use crate::chess::Color::{Black, White};
        GameStarted::new(game, (ours(White), &summary.white), (ours(Black), &summary.black))
    }
}

struct Entry {
    tx: broadcast::Sender<Notice>,
    /// Open event streams and connections.
    online: usize,
    name: String,
    bot: bool,
}

/// The notices of every account with someone listening, and who is online.
#[derive(Default)]
pub struct Notices {
    accounts: Mutex<HashMap<AccountKey, Entry>>,
    /// In a cluster: where notices go for the other nodes.
    relay: OnceLock<mpsc::UnboundedSender<(AccountKey, Notice)>>,
    /// In a cluster: who is online on each other node, as last heard, and when.
    remote: Mutex<HashMap<String, (Instant, Vec<RemoteOnline>)>>,
    /// Where what happens in the games here is told, for notifications (`Happening`).
    happenings: OnceLock<mpsc::UnboundedSender<Happening>>,
}

/// An account online on a node, as nodes tell each other.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteOnline {
    pub account: AccountKey,
    pub name: String,
    pub bot: bool,
}

/// An account online while this is held (an event stream or a connection).
pub struct Online {
    notices: Arc<Notices>,
    account: AccountKey,
}

impl Drop for Online {
    fn drop(&mut self) {
        let mut accounts = self.notices.lock();
        if let Some(entry) = accounts.get_mut(&self.account) {
            entry.online = entry.online.saturating_sub(1);
        }
        // Also whoever's listener went after their guard: nothing is kept for nobody.
        accounts.retain(|_, e| e.online > 0 || e.tx.receiver_count() > 0);
    }
}

/// Someone online: their name, and whether the account is a bot's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnlineAccount {
    pub name: String,
    pub bot: bool,
}

impl Notices {
    fn lock(&self) -> MutexGuard<'_, HashMap<AccountKey, Entry>> {
        // Counts and senders only: a panic elsewhere leaves nothing half-changed that matters.
        self.accounts.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn entry<'a>(
        accounts: &'a mut HashMap<AccountKey, Entry>,
        account: AccountKey,
        name: &str,
        bot: bool,
    ) -> &'a mut Entry {
        let entry = accounts.entry(account).or_insert_with(|| Entry {
            tx: broadcast::channel(CAPACITY).0,
            online: 0,
            name: name.to_string(),
            bot,
        });
        // A bot upgrade while online shows at once.
        entry.bot = bot;
        entry
    }

    /// The notices of `account` from now on, and its being online while the guard is held.
    pub fn listen(
        self: &Arc<Self>,
        account: AccountKey,
        name: &str,
        bot: bool,
    ) -> (broadcast::Receiver<Notice>, Online) {
        let mut accounts = self.lock();
        let entry = Notices::entry(&mut accounts, account, name, bot);
        entry.online += 1;
        (entry.tx.subscribe(), Online { notices: self.clone(), account })
    }

    /// `account` online while the guard is held (a logged-in WebSocket).
    pub fn online(self: &Arc<Self>, account: AccountKey, name: &str, bot: bool) -> Online {
        let mut accounts = self.lock();
        Notices::entry(&mut accounts, account, name, bot).online += 1;
        Online { notices: self.clone(), account }
    }

    /// Tells `account` of `notice`, wherever they listen: here, and in a cluster on the other
    /// nodes too.
    pub fn tell(&self, account: AccountKey, notice: Notice) {
        if let Some(relay) = self.relay.get() {
            let _ = relay.send((account, notice.clone()));
        }
        self.deliver(account, notice);
    }

    /// A game has started (told once, by the node whose room it is): each of its players with
    /// an account hears `GameStart`, and the game goes on to whoever tells their followers.
    pub fn game_started(&self, started: GameStarted) {
        for account in started.players.iter().filter_map(|(account, _)| *account) {
            self.tell(account, Notice::GameStart { game: started.game.clone() });
        }
        self.happened(Happening::Started(started));
    }

    /// It is `account`'s move in correspondence game `game`, against `opponent` (told by the
    /// room, on the node whose room it is).
    pub fn your_move(&self, game: GameId, account: AccountKey, opponent: String) {
        self.happened(Happening::YourMove { game, account, opponent });
    }

    fn happened(&self, happening: Happening) {
        if let Some(hook) = self.happenings.get() {
            let _ = hook.send(happening);
        }
    }

    /// Sends what happens in the games here to `hook` from now on.
    pub fn on_happenings(&self, hook: mpsc::UnboundedSender<Happening>) {
        let _ = self.happenings.set(hook);
    }

    /// Tells `account`'s listeners on this node of `notice` (one from another node).
    pub fn deliver(&self, account: AccountKey, notice: Notice) {
        if let Some(entry) = self.lock().get(&account) {
            let _ = entry.tx.send(notice);
        }
    }

    /// In a cluster: relays every notice told here to `relay`, for the other nodes.
    pub fn relay_to(&self, relay: mpsc::UnboundedSender<(AccountKey, Notice)>) {
        let _ = self.relay.set(relay);
    }

    /// Who is online on this node, for the other nodes.
    pub fn here(&self) -> Vec<RemoteOnline> {
        self.lock()
            .iter()
            .filter(|(_, e)| e.online > 0)
            .map(|(id, e)| RemoteOnline { account: *id, name: e.name.clone(), bot: e.bot })
            .collect()
    }

    /// Who is online on `node`, as it just said.
    pub fn remote(&self, node: String, online: Vec<RemoteOnline>) {
        let mut remote = self.remote.lock().unwrap_or_else(|e| e.into_inner());
        remote.retain(|_, (at, _)| at.elapsed() < REMOTE_ONLINE_TTL);
        remote.insert(node, (Instant::now(), online));
    }

    /// Who is online on the other nodes, as last heard (lists older than the TTL are stale).
    fn elsewhere(&self) -> Vec<RemoteOnline> {
        let remote = self.remote.lock().unwrap_or_else(|e| e.into_inner());
        remote.values().filter(|(at, _)| at.elapsed() < REMOTE_ONLINE_TTL).flat_map(|(_, l)| l.clone()).collect()
    }

    /// True if `account` is online (on any node).
    pub fn is_online(&self, account: AccountKey) -> bool {
        self.lock().get(&account).is_some_and(|e| e.online > 0) || self.elsewhere().iter().any(|r| r.account == account)
    }

    /// True if the account called `name` (any case) is online (on any node).
    pub fn is_name_online(&self, name: &str) -> bool {
        self.here().into_iter().chain(self.elsewhere()).any(|r| r.name.eq_ignore_ascii_case(name))
    }

    /// Everyone online now (on any node), by name.
    pub fn everyone(&self) -> Vec<OnlineAccount> {
        let mut all: Vec<OnlineAccount> = self
            .here()
            .into_iter()
            .chain(self.elsewhere())
            .map(|r| OnlineAccount { name: r.name, bot: r.bot })
            .collect();
        all.sort_by_key(|a| a.name.to_lowercase());
        all.dedup_by(|a, b| a.name.eq_ignore_ascii_case(&b.name));
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_account_is_online_while_held_and_hears_what_it_is_told() {
        let notices = Arc::new(Notices::default());
        assert!(!notices.is_online(1));
        notices.tell(1, Notice::GameStart { game: "nobody".into() });
        let (mut rx, guard) = notices.listen(1, "Ann", true);
        let web = notices.online(1, "Ann", true);
        assert!(notices.is_online(1));
        assert_eq!(notices.everyone(), [OnlineAccount { name: "Ann".into(), bot: true }]);
        notices.tell(1, Notice::GameStart { game: "g1".into() });
        notices.tell(2, Notice::GameStart { game: "other".into() });
        assert!(matches!(rx.recv().await, Ok(Notice::GameStart { game }) if game == "g1"));
        drop(guard);
        assert!(notices.is_online(1), "the web connection is still open");
        drop(rx);
        drop(web);
        assert!(!notices.is_online(1));
        assert!(notices.lock().is_empty(), "nothing kept for an account nobody listens for");
    }

    #[test]
    fn other_nodes_tell_who_is_online_there_and_are_relayed_what_is_told_here() {
        let notices = Arc::new(Notices::default());
        let (relay, mut relayed) = mpsc::unbounded_channel();
        notices.relay_to(relay);
        notices.tell(7, Notice::GameStart { game: "g".into() });
        assert!(matches!(relayed.try_recv(), Ok((7, Notice::GameStart { .. }))));
        notices.remote("b".into(), vec![RemoteOnline { account: 9, name: "Bo".into(), bot: true }]);
        assert!(notices.is_online(9) && !notices.is_online(8));
        assert!(notices.is_name_online("bo") && !notices.is_name_online("al"));
        let _here = notices.online(8, "Al", false);
        let names: Vec<String> = notices.everyone().into_iter().map(|a| a.name).collect();
        assert_eq!(names, ["Al", "Bo"]);
    }
}
