//! The terminal client: `gambit play` and `gambit watch`. Plain text that works with or without a
//! terminal: the board after each event, moves typed as UCI or SAN, reconnection after a drop.
//!
//! [`board`] draws boards, [`view`] keeps the game and says what happened in words, [`input`]
//! reads what the player types, [`client`] is the WebSocket link and [`session`] runs the loop
//! that ties them together.
//!
//! Choices a user sees:
//! - After each burst of events (a move and a bot's instant reply come as one) the client prints a
//!   line per event ("Level 1 played 1... e5."), then the board with the player's side at the
//!   bottom, the move list, a `FEN:` line (handy to paste into other tools, and what scripts read)
//!   and the status ("White to move — your move.", "Black to move — Level 3 is thinking…",
//!   "Checkmate — Black wins (0-1)").
//! - Moves are checked against the position before they are sent; moving out of turn, as a
//!   spectator or before the game starts gets a note and sends nothing.
//! - A dropped connection is re-opened after 0.25 s, doubling up to 8 s, 12 times (about a
//!   minute) before giving up; the seat is resumed with its token and the last version seen, so
//!   the server replays only what was missed.
//! - `play` ends when the game ends, on `quit`, or at the end of input; `watch` ends when the game
//!   ends or on `quit`, and keeps watching when it has no input at all.

pub mod board;
pub mod client;
pub mod clock;
pub mod input;
pub mod login;
pub mod seeks;
pub mod session;
pub mod setup;
pub mod tv;
pub mod view;

use clap::{Args, ValueEnum};
use thiserror::Error;

use crate::chess::Color;
use crate::chess::Variant;
use crate::protocol::{ClientMessage, ClockSpec, NewGame, NewSeek, PlayerName, Request, RulesSpec, SeatSpec};

/// Where `play` and `watch` connect when no address is given (`gambit serve`'s default).
pub const DEFAULT_URL: &str = "ws://127.0.0.1:8080/ws";

/// Why `play` or `watch` stopped short; main.rs prints it as one `error:` line, exit code 2.
#[derive(Debug, Error)]
pub enum TermError {
    #[error("bad server address {url:?}: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("cannot connect to {url}: {reason}")]
    Connect { url: String, reason: String },
    /// The server refused to create, join or show the game.
    #[error("{0}")]
    Refused(String),
    #[error("the server did not answer within {0} seconds")]
    Timeout(u64),
    #[error("the server closed the connection")]
    Closed,
    #[error("lost the connection to {url} and could not reconnect")]
    Lost { url: String },
    #[error("unexpected message from the server: {0}")]
    Protocol(String),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}

/// A side, as typed on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    White,
    Black,
}

impl From<ColorArg> for Color {
    fn from(color: ColorArg) -> Color {
        match color {
            ColorArg::White => Color::White,
            ColorArg::Black => Color::Black,
        }
    }
}

/// `gambit play` arguments.
#[derive(Args, Debug, Clone)]
pub struct PlayArgs {
    /// Server address [default: ws://127.0.0.1:8080/ws]; give the nodes of a cluster to go on
    /// to the next when one is lost
    #[arg(value_name = "URL")]
    pub urls: Vec<String>,
    /// Join this game instead of creating one
    #[arg(long, value_name = "ID", conflicts_with_all = ["vs_bot", "variant"])]
    pub game: Option<String>,
    /// Your side: for a new game (default white), or the seat to take with --game (default: the open one)
    #[arg(long, value_enum)]
    pub color: Option<ColorArg>,
    /// Play a new game against the computer at this level, 1 (weakest) to 12 (full strength)
    #[arg(long, value_name = "LEVEL", value_parser = clap::value_parser!(u8).range(1..=12))]
    pub vs_bot: Option<u8>,
    /// For a new game: standard, chess960 (a random start unless --fen) or minichess7 [default: standard]
    #[arg(long)]
    pub variant: Option<Variant>,
    /// For a new game: a time control, MINUTES+INCREMENT_SECONDS such as 5+3 [default: untimed]
    #[arg(long, value_name = "MIN+INC", value_parser = clock::parse_time_control, conflicts_with = "game")]
    pub time: Option<ClockSpec>,
    /// Your name on the board, 1-24 letters, digits, spaces, '_', '-', '.' [default: your login name]
    #[arg(long, value_name = "NAME", value_parser = parse_name)]
    pub name: Option<PlayerName>,
    /// Post an open challenge in the lobby (with --time, --variant, --color) and wait for
    /// someone to accept it
    #[arg(long, conflicts_with_all = ["game", "vs_bot", "accept"])]
    pub seek: bool,
    /// Accept this open challenge (see gambit seeks)
    #[arg(long, value_name = "SEEK", conflicts_with_all = ["game", "vs_bot", "variant", "time", "color"])]
    pub accept: Option<String>,
    /// Log in as this user first (asks for the password, or reads GAMBIT_PASSWORD); the session
    /// is kept in ~/.config/gambit/ and used by every later play, watch and seeks on that server
    #[arg(long, value_name = "USER", conflicts_with = "token")]
    pub login: Option<String>,
    /// Play as the account of this personal API token (made on the server's /account/tokens
    /// page, with board:play) instead of logging in with a password; or set GAMBIT_TOKEN
    #[arg(long, value_name = "TOKEN", env = "GAMBIT_TOKEN", hide_env_values = true, value_parser = parse_token)]
    pub token: Option<String>,
    /// Play a rated game (needs a login, a --time, and a person as the opponent)
    #[arg(long, requires = "time", conflicts_with_all = ["game", "vs_bot", "accept", "setup"])]
    pub rated: bool,
    /// Set the position up first, with the setup commands (+ K e1, - e1, = black, castling off,
    /// enpassant off, fen FEN, clear, done; help lists them), then play from it
    #[arg(long, conflicts_with_all = ["game", "accept"])]
    pub setup: bool,
    /// The position and rules set up with --setup (not a flag).
    #[arg(skip)]
    pub position: Option<(String, RulesSpec)>,
}

/// A personal API token as typed: one word of printable ASCII.
fn parse_token(text: &str) -> Result<String, String> {
    let token = text.trim();
    if token.is_empty() || token.len() > 100 || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("expected a personal API token such as gmb_0123… (from the server's /account/tokens page)".into());
    }
    Ok(token.to_string())
}

fn parse_name(text: &str) -> Result<PlayerName, String> {
    PlayerName::parse(text).map_err(|e| e.to_string())
}

/// The login name, when it makes a valid display name (a login such as `ci@host` does not, and
/// then the player is "Anonymous" unless they give `--name`).
fn login_name() -> Option<PlayerName> {
    ["USER", "LOGNAME", "USERNAME"].into_iter().find_map(|var| PlayerName::parse(&std::env::var(var).ok()?).ok())
}

impl PlayArgs {
    /// The first message: create the game asked for, or join the one named.
    fn request(&self) -> Request {
        Request::new(self.message(), Some(session::SETUP_ID))
    }

    /// The name to play under: `--name`, or the login name.
    pub(crate) fn player_name(&self) -> Option<PlayerName> {
        self.name.clone().or_else(login_name)
    }

    fn message(&self) -> ClientMessage {
        let color = self.color.map(Color::from);
        if let Some(game) = &self.game {
            return ClientMessage::Join { game: game.clone(), color, name: self.player_name() };
        }
        if let Some(seek) = &self.accept {
            return ClientMessage::AcceptSeek { seek: seek.clone(), name: self.player_name() };
        }
        if self.seek {
            return ClientMessage::Seek(NewSeek {
                variant: self.variant.unwrap_or_default().into(),
                clock: self.time,
                color,
                name: self.player_name(),
                rated: self.rated,
                fen: self.position.as_ref().map(|(fen, _)| fen.clone()),
                rules: self.position.as_ref().map(|(_, rules)| *rules).unwrap_or_default(),
            });
        }
        let mine = color.unwrap_or(Color::White);
        let other = match self.vs_bot {
            Some(level) => SeatSpec::Bot { level },
            None => SeatSpec::Human,
        };
        let (white, black) = match mine {
            Color::White => (SeatSpec::Human, other),
            Color::Black => (other, SeatSpec::Human),
        };
        ClientMessage::Create(NewGame {
            variant: self.variant.unwrap_or_default().into(),
            white,
            black,
            clock: self.time,
            as_side: Some(mine),
            name: self.player_name(),
            rated: self.rated,
            fen: self.position.as_ref().map(|(fen, _)| fen.clone()),
            rules: self.position.as_ref().map(|(_, rules)| *rules).unwrap_or_default(),
            ..Default::default()
        })
    }
}

/// `gambit watch` arguments: `[URL]... GAME`. One list for clap, because a required
/// positional cannot follow optional ones; [`WatchArgs::target`] sorts them out.
#[derive(Args, Debug, Clone)]
#[command(override_usage = "gambit watch [URL]... GAME\n       gambit watch [URL]... --tv [best|bot]")]
pub struct WatchArgs {
    /// Server addresses [default: ws://127.0.0.1:8080/ws] (the nodes of a cluster: the next is
    /// tried when one is lost), then the id of the game to watch
    #[arg(value_name = "URL... GAME")]
    pub args: Vec<String>,
    /// Watch gambit TV instead of one game: the channel's featured games one after another
    /// (best: games between people; bot: games with a computer or a bot account)
    #[arg(long, value_name = "CHANNEL", num_args = 0..=1, default_missing_value = "best", value_parser = parse_channel)]
    pub tv: Option<crate::protocol::TvChannel>,
    /// Your name in the spectators' chat [default: your login name]
    #[arg(long, value_name = "NAME", value_parser = parse_name)]
    pub name: Option<PlayerName>,
}

/// A TV channel's name.
fn parse_channel(text: &str) -> Result<crate::protocol::TvChannel, String> {
    use crate::protocol::TvChannel;
    TvChannel::ALL
        .into_iter()
        .find(|c| c.name() == text)
        .ok_or_else(|| format!("the TV channels are best and bot, not {text:?}"))
}

impl WatchArgs {
    /// The server addresses and the game id.
    fn target(&self) -> Result<(Vec<String>, String), TermError> {
        match self.args.split_last() {
            Some((game, urls)) if !game.contains("://") => {
                let urls = if urls.is_empty() { vec![DEFAULT_URL.to_string()] } else { urls.to_vec() };
                Ok((urls, game.clone()))
            }
            _ => Err(TermError::BadUrl {
                url: self.args.first().cloned().unwrap_or_default(),
                reason: "which game? usage: gambit watch [URL]... GAME".into(),
            }),
        }
    }
}

/// The WebSocket addresses for what the user typed (the default when nothing was).
fn normalize_urls(urls: &[String]) -> Result<Vec<String>, TermError> {
    if urls.is_empty() {
        return Ok(vec![DEFAULT_URL.to_string()]);
    }
    urls.iter().map(|url| normalize_url(url)).collect()
}

/// The WebSocket address for what the user typed: `ws://host:port/ws` as is; `http://` turned
/// into `ws://`; a bare `host:port` or an address without a path pointed at `/ws`.
pub fn normalize_url(text: &str) -> Result<String, TermError> {
    let bad = |reason: &str| TermError::BadUrl { url: text.to_string(), reason: reason.to_string() };
    let text = text.trim();
    let rest = if let Some(rest) = text.strip_prefix("ws://") {
        rest
    } else if let Some(rest) = text.strip_prefix("http://") {
        rest
    } else if text.starts_with("wss://") || text.starts_with("https://") {
        return Err(bad("secure connections (wss://) are not supported by this client; use ws://"));
    } else if text.contains("://") {
        return Err(bad("expected a ws:// address like ws://127.0.0.1:8080/ws"));
    } else {
        text
    };
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    if host.is_empty() || host.chars().any(char::is_whitespace) {
        return Err(bad("expected a ws:// address like ws://127.0.0.1:8080/ws"));
    }
    let path = if path.is_empty() || path == "/" { "/ws" } else { path };
    Ok(format!("ws://{host}{path}"))
}

/// `gambit play`: creates or joins a game and plays it from the terminal until it ends or the
/// player quits.
pub fn play(args: &PlayArgs) -> Result<(), TermError> {
    let urls = normalize_urls(&args.urls)?;
    let mut args = args.clone();
    if let Some(token) = &args.token {
        login::use_token(token);
    }
    run_blocking(async move {
        if let Some(username) = &args.login {
            login::log_in(&urls[0], username).await?;
        }
        let mut lines = session::input_lines();
        if args.setup {
            match setup::run(args.variant.unwrap_or_default(), &mut lines).await? {
                Some(position) => args.position = Some(position),
                None => return Ok(()),
            }
        }
        session::play(urls, args, lines).await
    })
}

/// `gambit watch`: follows a game, printing the board after each event, until it ends.
pub fn watch(args: &WatchArgs) -> Result<(), TermError> {
    if let Some(channel) = args.tv {
        // Every address given is a server's: there is no game to name.
        let urls = normalize_urls(&args.args)?;
        return run_blocking(tv::watch_tv(urls, channel, args.name.clone().or_else(login_name)));
    }
    let (urls, game) = args.target()?;
    let urls = normalize_urls(&urls)?;
    run_blocking(session::watch(urls, game, args.name.clone().or_else(login_name)))
}

/// `gambit seeks` arguments.
#[derive(Args, Debug, Clone)]
pub struct SeeksArgs {
    /// Server address [default: ws://127.0.0.1:8080/ws]
    #[arg(value_name = "URL")]
    pub url: Option<String>,
}

/// `gambit seeks`: prints the open challenges.
pub fn seeks(args: &SeeksArgs) -> Result<(), TermError> {
    let urls = normalize_urls(args.url.as_slice())?;
    run_blocking(session::seeks(urls))
}

fn run_blocking(task: impl std::future::Future<Output = Result<(), TermError>>) -> Result<(), TermError> {
    let runtime = tokio::runtime::Runtime::new().map_err(TermError::Runtime)?;
    let result = runtime.block_on(task);
    // Reading stdin blocks a thread of the runtime that cannot be interrupted; do not wait for
    // it (it would hold the exit until the user pressed Enter).
    runtime.shutdown_background();
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Incoming;

    #[test]
    fn urls() {
        assert_eq!(normalize_url("ws://127.0.0.1:8080/ws").unwrap(), "ws://127.0.0.1:8080/ws");
        assert_eq!(normalize_url("ws://example.org:9000").unwrap(), "ws://example.org:9000/ws");
        assert_eq!(normalize_url("http://example.org:9000/").unwrap(), "ws://example.org:9000/ws");
        assert_eq!(normalize_url("localhost:8080").unwrap(), "ws://localhost:8080/ws");
        assert_eq!(normalize_url("ws://h/custom/path").unwrap(), "ws://h/custom/path");
        for bad in ["wss://h/ws", "ftp://h", "ws://", "", "ws:///ws", "a b:1"] {
            assert!(normalize_url(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn watch_arguments() {
        let args = |a: &[&str]| WatchArgs { args: a.iter().map(|s| s.to_string()).collect(), name: None, tv: None };
        assert_eq!(args(&["abc"]).target().unwrap(), (vec![DEFAULT_URL.to_string()], "abc".to_string()));
        assert_eq!(args(&["ws://h/ws", "abc"]).target().unwrap(), (vec!["ws://h/ws".to_string()], "abc".to_string()));
        let two = args(&["ws://a/ws", "ws://b/ws", "abc"]).target().unwrap();
        assert_eq!(two, (vec!["ws://a/ws".to_string(), "ws://b/ws".to_string()], "abc".to_string()));
        assert!(args(&["ws://h/ws"]).target().is_err());
        assert!(args(&[]).target().is_err());
    }

    #[test]
    fn play_requests() {
        let base = PlayArgs {
            urls: Vec::new(),
            game: None,
            color: None,
            vs_bot: None,
            variant: None,
            time: None,
            name: None,
            seek: false,
            accept: None,
            login: None,
            token: None,
            rated: false,
            setup: false,
            position: None,
        };
        let create = base.request();
        assert!(matches!(
            create.message,
            Incoming::Message(ClientMessage::Create(NewGame {
                white: SeatSpec::Human,
                black: SeatSpec::Human,
                as_side: Some(Color::White),
                ..
            }))
        ));
        let bot = PlayArgs {
            vs_bot: Some(3),
            time: Some(ClockSpec { initial_ms: 300_000, increment_ms: 3_000 }),
            color: Some(ColorArg::Black),
            variant: Some(Variant::Minichess7),
            ..base.clone()
        };
        match bot.request().message {
            Incoming::Message(ClientMessage::Create(NewGame { white, black, as_side, variant, clock, .. })) => {
                assert_eq!(white, SeatSpec::Bot { level: 3 });
                assert_eq!(black, SeatSpec::Human);
                assert_eq!(as_side, Some(Color::Black));
                assert_eq!(variant, crate::protocol::VariantName::Minichess7);
                assert_eq!(clock, Some(ClockSpec { initial_ms: 300_000, increment_ms: 3_000 }));
            }
            other => panic!("{other:?}"),
        }
        let alice = PlayerName::parse("Alice").ok();
        let join = PlayArgs { game: Some("abcd2345".into()), name: alice.clone(), ..base };
        let expected = ClientMessage::Join { game: "abcd2345".into(), color: None, name: alice };
        assert_eq!(join.request(), Request::new(expected, Some(session::SETUP_ID)));
    }
}
