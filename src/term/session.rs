//! The loop of `play` and `watch`: server events and typed lines are handled as they come, the
//! screen is redrawn after each burst of events, and a dropped connection is re-opened with
//! back-off and the seat resumed (or the watching picked up) from the last version seen.

use std::io::Write;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader, Lines, Stdin};
use tokio::time::Instant;

use super::client::{Connection, Incoming, Servers};
use super::input::{self, Command, MoveInputError};
use super::view::{GameView, Update};
use super::{PlayArgs, TermError, DEFAULT_URL};
use crate::chess::Color;
use crate::protocol::{
    Action, ChatError, ChatRoom, ChatText, ClaimKind, ClientMessage, ErrorCode, GameAction, GameId, GameState,
    PlayerName, Request, ServerMessage,
};
use crate::timer::sleep_until;

/// The request id of the first message (`create`, `join` or `watch`), to match the server's answer.
pub const SETUP_ID: u64 = 1;
/// How long the server may take to answer the first message.
const SETUP_TIMEOUT: Duration = Duration::from_secs(15);
/// Reconnection attempts before giving up (about a minute with the back-off below).
const MAX_RETRIES: u32 = 12;
/// The first reconnection waits this long; each failure doubles it up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const MAX_BACKOFF: Duration = Duration::from_secs(8);

/// `gambit play`: create or join, then play until the game ends or the player leaves.
/// What the player types, line by line: one reader for the whole run, so lines typed ahead
/// (during setup, say) are not lost when the game starts.
pub type InputLines = Lines<BufReader<Stdin>>;

/// The reader of standard input.
pub fn input_lines() -> InputLines {
    BufReader::new(tokio::io::stdin()).lines()
}

pub async fn play(urls: Vec<String>, args: PlayArgs, lines: InputLines) -> Result<(), TermError> {
    let (servers, mut conn) = Servers::open(urls).await?;
    let url = servers.url().to_string();
    let share = if url == DEFAULT_URL { String::new() } else { format!(" {url}") };
    conn.send(&args.request()).await?;
    let watch_hint = args.game.as_ref().map(|game| format!("gambit watch{share} {game}"));
    // A seek waits for as long as it takes someone to accept it.
    let setup = setup(&mut conn, watch_hint.as_deref(), args.seek).await?;
    let Some((color, token)) = setup.seat else {
        return Err(TermError::Protocol("the server gave no seat for this client".into()));
    };
    let game = setup.state.game.clone();
    let intro = match (setup.created, args.vs_bot) {
        (true, Some(level)) => {
            let bot = setup.state.seats[!color].shown().map_or_else(|| format!("Level {level}"), str::to_string);
            format!("Game {game} created: you play {} against {bot}. Type help for the commands.", color.name())
        }
        (true, None) => format!(
            "Game {game} created: you play {}.\nA friend joins with:   gambit play{share} --game {game}\n\
             Anyone can watch with: gambit watch{share} {game}\nType help for the commands.",
            color.name()
        ),
        (false, _) if args.seek || args.accept.is_some() => {
            let opponent = setup.state.seats[color.other()].name().unwrap_or("someone").to_string();
            format!("Game {game}: you play {} against {opponent}. Type help for the commands.", color.name())
        }
        (false, _) => format!("Joined game {game}: you play {}. Type help for the commands.", color.name()),
    };
    let view = GameView::new(setup.state, Some(color));
    Session::new(servers, conn, view, Some(token), args.player_name()).run(&intro, lines).await.map(|_| ())
}

/// `gambit seeks`: the open challenges, one line each.
pub async fn seeks(urls: Vec<String>) -> Result<(), TermError> {
    let (_, mut conn) = Servers::open(urls).await?;
    conn.send(&Request::new(ClientMessage::List, Some(SETUP_ID))).await?;
    let deadline = Instant::now() + SETUP_TIMEOUT;
    loop {
        let incoming = tokio::time::timeout_at(deadline, conn.recv())
            .await
            .map_err(|_| TermError::Timeout(SETUP_TIMEOUT.as_secs()))?;
        match incoming {
            Incoming::Closed => return Err(TermError::Closed),
            Incoming::Message(message) => match *message {
                ServerMessage::Seeks { seeks } => {
                    print!("{}", super::seeks::table(&seeks));
                    conn.close().await;
                    return Ok(());
                }
                ServerMessage::Error { message, .. } => return Err(TermError::Refused(message)),
                _ => {}
            },
        }
    }
}

/// `gambit watch`: follow a game until it ends (or the watcher quits).
pub async fn watch(urls: Vec<String>, game: GameId, name: Option<PlayerName>) -> Result<(), TermError> {
    follow(urls, game, name, "Watching game").await.map(|_| ())
}

/// Follows `game` as a spectator until it ends (true) or the watcher quits (false).
pub(super) async fn follow(
    urls: Vec<String>,
    game: GameId,
    name: Option<PlayerName>,
    intro: &str,
) -> Result<bool, TermError> {
    let (servers, mut conn) = Servers::open(urls).await?;
    let watch = ClientMessage::Watch { game: game.clone(), v: None, name: name.clone() };
    conn.send(&Request::new(watch, Some(SETUP_ID))).await?;
    let setup = setup(&mut conn, None, false).await?;
    let view = GameView::new(setup.state, None);
    Session::new(servers, conn, view, None, name).run(&format!("{intro} {game}."), input_lines()).await
}

/// What the server answered to the first message.
struct Setup {
    /// The seat taken, for `create` and `join`.
    seat: Option<(Color, String)>,
    /// True when this client created the game.
    created: bool,
    /// The game's first `state`.
    state: GameState,
}

/// Waits for the answer to the first message and the game's first `state`. `watch_hint` is the
/// command that follows the game instead, offered when the seat asked for is taken. A seek
/// (`patient`) waits without a deadline once the server has posted it.
async fn setup(conn: &mut Connection, watch_hint: Option<&str>, patient: bool) -> Result<Setup, TermError> {
    let mut deadline = Some(Instant::now() + SETUP_TIMEOUT);
    let mut seat = None;
    let mut created = false;
    loop {
        let incoming = match deadline {
            Some(deadline) => tokio::time::timeout_at(deadline, conn.recv())
                .await
                .map_err(|_| TermError::Timeout(SETUP_TIMEOUT.as_secs()))?,
            None => conn.recv().await,
        };
        let message = match incoming {
            Incoming::Message(message) => *message,
            Incoming::Closed => return Err(TermError::Closed),
        };
        match message {
            ServerMessage::Created { color: Some(color), token: Some(token), .. } => {
                seat = Some((color, token));
                created = true;
            }
            ServerMessage::Joined { color, token, .. } => seat = Some((color, token)),
            ServerMessage::Seeking { seek, .. } if patient => {
                deadline = None;
                println!("Seek {seek} posted: waiting for someone to accept it (Ctrl-C withdraws it).");
            }
            ServerMessage::Error { code, message, .. } => {
                return Err(TermError::Refused(refusal(code, &message, watch_hint)))
            }
            ServerMessage::State(state) => return Ok(Setup { seat, created, state: *state }),
            _ => {}
        }
    }
}

/// A refusal of the first message, for the `error:` line.
fn refusal(code: ErrorCode, message: &str, watch_hint: Option<&str>) -> String {
    match (code, watch_hint) {
        (ErrorCode::SeatTaken, Some(hint)) => format!("{message}; to watch the game instead: {hint}"),
        _ => message.to_string(),
    }
}

/// What the loop does after handling something.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Stop,
}

struct Session {
    servers: Servers,
    /// None while reconnecting.
    conn: Option<Connection>,
    view: GameView,
    /// The seat's token; None for a spectator.
    token: Option<String>,
    /// When to try to reconnect next.
    retry_at: Option<Instant>,
    failures: u32,
    next_id: u64,
    /// The id of the last `resume`/`watch` sent after a reconnect: an error for it is fatal.
    resume_id: Option<u64>,
    /// Show a `> ` prompt: only when a person is typing at a terminal.
    prompt: bool,
    /// Set once the client is on its way out: no more prompts.
    leaving: bool,
    /// The name a spectator chats under (sent again when watching resumes).
    name: Option<PlayerName>,
    /// The rematch being moved to: its game, and the colour once `joined` says it.
    next: Option<(GameId, Option<Color>)>,
    /// A `resume` of the rematch is to be sent.
    follow_next: bool,
}

impl Session {
    fn new(
        servers: Servers,
        conn: Connection,
        view: GameView,
        token: Option<String>,
        name: Option<PlayerName>,
    ) -> Session {
        use std::io::IsTerminal;
        let prompt = token.is_some() && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
        Session {
            servers,
            conn: Some(conn),
            view,
            token,
            retry_at: None,
            failures: 0,
            next_id: SETUP_ID + 1,
            resume_id: None,
            prompt,
            leaving: false,
            name,
            next: None,
            follow_next: false,
        }
    }

    fn is_player(&self) -> bool {
        self.token.is_some()
    }

    /// Shows the game and follows it until it ends (true) or the person leaves (false).
    async fn run(mut self, intro: &str, mut lines: InputLines) -> Result<bool, TermError> {
        self.show(&format!("{intro}\n\n{}", self.view.render()));
        if self.view.is_over() {
            self.close().await;
            return Ok(true);
        }
        let mut stdin_open = true;
        let interrupted = async {
            // Without a signal handler, just never report an interrupt.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        tokio::pin!(interrupted);
        loop {
            let flow = tokio::select! {
                incoming = next_incoming(&mut self.conn) => self.on_incoming(incoming).await?,
                () = sleep_until(self.retry_at) => {
                    self.reconnect().await?;
                    Flow::Continue
                }
                line = lines.next_line(), if stdin_open => match line {
                    Ok(Some(line)) => self.on_line(&line).await,
                    Ok(None) => {
                        stdin_open = false;
                        // A spectator's input may simply be absent; a player's running out means leaving.
                        if self.is_player() {
                            self.leaving = true;
                            self.show("End of input: leaving the game.");
                            Flow::Stop
                        } else {
                            Flow::Continue
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                        self.show("That line was not text (UTF-8); ignored.");
                        Flow::Continue
                    }
                    Err(_) => {
                        stdin_open = false;
                        if self.is_player() { Flow::Stop } else { Flow::Continue }
                    }
                },
                () = &mut interrupted => Flow::Stop,
            };
            if flow == Flow::Stop {
                break;
            }
        }
        let over = self.view.is_over();
        self.close().await;
        Ok(over)
    }

    /// Handles a message and whatever else already arrived, then shows the result once.
    async fn on_incoming(&mut self, first: Incoming) -> Result<Flow, TermError> {
        let mut update = Update::default();
        let mut next = Some(first);
        let mut lost = false;
        while let Some(incoming) = next.take() {
            match incoming {
                Incoming::Message(message) => self.handle(*message, &mut update)?,
                Incoming::Closed => {
                    lost = true;
                    break;
                }
            }
            next = self.conn.as_mut().and_then(Connection::recv_ready);
        }
        let mut text = update.notes.join("\n");
        if update.redraw {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push('\n');
            text.push_str(&self.view.render());
        }
        if !text.is_empty() {
            self.show(&text);
        }
        if self.view.is_over() && !self.is_player() {
            return Ok(Flow::Stop);
        }
        if self.follow_next && !lost {
            self.follow_next = false;
            self.follow_afresh(None).await;
        }
        if update.resync && !lost {
            // Out of step with the server: follow the game afresh on this connection.
            self.follow_afresh(None).await;
        }
        if lost {
            self.conn = None;
            self.show("Connection lost — reconnecting…");
            self.retry_later()?;
        }
        Ok(Flow::Continue)
    }

    fn handle(&mut self, message: ServerMessage, update: &mut Update) -> Result<(), TermError> {
        match message {
            ServerMessage::Error { code, message, id } => {
                if id.is_some() && id == self.resume_id {
                    return Err(TermError::Refused(format!("cannot pick the game up again: {message}")));
                }
                update.notes.push(error_note(code, &message));
            }
            ServerMessage::Chat { game, line } if game == self.view.game() => {
                let who =
                    if line.system { "[server]".into() } else { format!("[{}] {}:", line.room.name(), line.from) };
                update.notes.push(format!("{who} {}", line.text));
            }
            // The rematch's seat, then its first state: the session moves to the new game.
            ServerMessage::Joined { game, color, .. } => {
                if let Some((next, joined)) = &mut self.next {
                    if *next == game {
                        *joined = Some(color);
                    }
                }
            }
            ServerMessage::State(state) if self.next.as_ref().is_some_and(|(next, _)| *next == state.game) => {
                let color = self.next.take().and_then(|(_, color)| color);
                let game = state.game.clone();
                self.view = GameView::new(*state, color);
                let side = color.map_or("", |c| c.name());
                update.notes.push(format!("Game {game}: the rematch — you play {side}."));
                update.redraw = true;
            }
            ServerMessage::Created { .. }
            | ServerMessage::Ack { .. }
            | ServerMessage::Games { .. }
            | ServerMessage::Seeks { .. }
            | ServerMessage::Seeking { .. } => {}
            other => {
                if let ServerMessage::Rematch { game, next, .. } = &other {
                    if game == self.view.game() && self.is_player() {
                        self.next = Some((next.clone(), None));
                        self.follow_next = true;
                    }
                }
                let ended = matches!(other, ServerMessage::End { .. }) && !self.view.is_over();
                update.merge(self.view.apply(&other));
                if ended && self.is_player() && self.view.is_over() {
                    update.notes.push("Type rematch to play again, or quit to leave.".into());
                }
            }
        }
        Ok(())
    }

    async fn on_line(&mut self, line: &str) -> Flow {
        match input::parse(line) {
            Command::Empty => {}
            Command::Help => self.show(&input::help(!self.is_player())),
            Command::Flip => {
                self.view.flip();
                self.show(&self.view.render());
            }
            Command::Quit => {
                self.leaving = true;
                self.show(if self.is_player() {
                    "Leaving the game; it stays on the server."
                } else {
                    "Stopped watching."
                });
                return Flow::Stop;
            }
            Command::Move(text) => {
                if let Some(why) = self.view.why_not_my_turn() {
                    self.show(&why);
                } else if let Some(pos) = self.view.position() {
                    match input::resolve(pos, self.view.legal(), &text) {
                        Ok(mv) => {
                            self.act(Action::play(mv.to_string())).await;
                        }
                        Err(e) => self.show(&move_error(&e)),
                    }
                } else {
                    self.show(
                        "The position could not be read, so moves cannot be checked; try again after the next move.",
                    );
                }
            }
            Command::Decline if self.is_player() && self.view.offer_to_me().is_none() => {
                self.show("There is no offer to decline.");
            }
            Command::Undo => self.act(Action::Undo).await,
            Command::Draw => self.act(Action::Draw).await,
            Command::Decline => self.act(Action::Decline).await,
            Command::Resign => self.act(Action::Resign).await,
            Command::Abort => self.act(Action::Abort).await,
            Command::Berserk => self.act(Action::Berserk).await,
            Command::Rematch => self.act(Action::Rematch).await,
            Command::Say(text) => self.say(&text).await,
            Command::Claim { win } => {
                let result = if win { ClaimKind::Win } else { ClaimKind::Draw };
                self.act(Action::Claim { result }).await
            }
        }
        Flow::Continue
    }

    /// `say TEXT`: a line in the players' room (a player's) or the spectators' (a spectator's).
    async fn say(&mut self, text: &str) {
        let text = match ChatText::parse(text) {
            Ok(text) => text,
            Err(ChatError::Empty) => return self.show("Type say and your message, e.g. say good game!"),
            Err(e) => return self.show(&format!("Not sent: {e}.")),
        };
        let room = if self.is_player() { ChatRoom::Players } else { ChatRoom::Spectators };
        self.send(ClientMessage::Chat { game: self.view.game().into(), room, text }).await;
    }

    /// Sends an action of the seat holder, after checking it can be sent at all.
    async fn act(&mut self, action: Action) {
        if !self.is_player() {
            self.show("You are watching; only the players can do that.");
            return;
        }
        let after_the_end = matches!(action, Action::Rematch | Action::Decline);
        if self.view.is_over() && !after_the_end {
            self.show("The game is over: type rematch to play again, or quit to leave.");
            return;
        }
        self.send(GameAction::new(self.view.game(), action)).await;
    }

    /// Sends a message on the connection, or says why it cannot be sent now.
    async fn send(&mut self, message: impl Into<Request>) {
        let Some(conn) = self.conn.as_mut() else {
            self.show("Not connected right now — reconnecting…; try again in a moment.");
            return;
        };
        if conn.send(&message.into()).await.is_err() {
            self.conn = None;
            self.show("Connection lost — reconnecting…; that was not sent, try again once reconnected.");
            if self.retry_at.is_none() {
                // The error surfaces on the next reconnection attempt if it keeps failing.
                let _ = self.retry_later();
            }
        }
    }

    /// One reconnection attempt: open, then resume the seat (or watch again) from the last version.
    async fn reconnect(&mut self) -> Result<(), TermError> {
        self.retry_at = None;
        let url = self.servers.advance().to_string();
        let Ok(conn) = Connection::open(&url).await else {
            return self.retry_later();
        };
        self.conn = Some(conn);
        if !self.follow_afresh(Some(self.view.version())).await {
            self.conn = None;
            return self.retry_later();
        }
        self.failures = 0;
        self.show("Reconnected.");
        Ok(())
    }

    /// Follows the game on the current connection: resumes the seat (or watches), asking for
    /// the events after version `v`, or for a fresh `state` when None. False if it could not
    /// be sent.
    async fn follow_afresh(&mut self, v: Option<u64>) -> bool {
        let id = self.next_id;
        self.next_id += 1;
        // Moving to a rematch: its seat, with the same token.
        let game = self.next.as_ref().map_or_else(|| self.view.game().to_string(), |(next, _)| next.clone());
        let message = match &self.token {
            Some(token) => ClientMessage::Resume { game, token: Some(token.clone()), v },
            None => ClientMessage::Watch { game, v, name: self.name.clone() },
        };
        let Some(conn) = self.conn.as_mut() else { return false };
        if conn.send(&Request::new(message, Some(id))).await.is_err() {
            return false;
        }
        self.resume_id = Some(id);
        true
    }

    /// Schedules the next reconnection attempt, or gives up after [`MAX_RETRIES`].
    fn retry_later(&mut self) -> Result<(), TermError> {
        if self.failures >= MAX_RETRIES {
            return Err(TermError::Lost { url: self.servers.all() });
        }
        let delay = FIRST_BACKOFF.saturating_mul(1 << self.failures.min(16)).min(MAX_BACKOFF);
        self.failures += 1;
        self.retry_at = Some(Instant::now() + delay);
        Ok(())
    }

    async fn close(&mut self) {
        if let Some(conn) = self.conn.take() {
            conn.close().await;
        }
    }

    /// Prints a block of text (and the prompt). Output errors, such as a closed pipe, are
    /// ignored: the game goes on, and the end of input or of the game ends the client.
    fn show(&self, text: &str) {
        let mut out = std::io::stdout().lock();
        if self.prompt {
            // Replace the prompt left on the current line (carriage return, clear the line).
            let _ = out.write_all(b"\r\x1b[K");
        }
        let _ = out.write_all(text.as_bytes());
        if !text.ends_with('\n') {
            let _ = out.write_all(b"\n");
        }
        if self.prompt && !self.leaving {
            let _ = out.write_all(b"> ");
        }
        let _ = out.flush();
    }
}

/// The next message of the connection, or never while there is none.
async fn next_incoming(conn: &mut Option<Connection>) -> Incoming {
    match conn {
        Some(conn) => conn.recv().await,
        None => std::future::pending().await,
    }
}

/// A refused action in plain words.
fn error_note(code: ErrorCode, message: &str) -> String {
    match code {
        ErrorCode::IllegalMove => format!("That move is not legal: {message}"),
        ErrorCode::NotYourTurn => format!("Not your turn: {message}"),
        ErrorCode::GameOver => "The game is over.".into(),
        ErrorCode::RateLimited => format!("Slow down: {message}"),
        _ => format!("The server refused that: {message}"),
    }
}

/// A move that cannot be played, in plain words.
fn move_error(error: &MoveInputError) -> String {
    match error {
        MoveInputError::NotAMove(text) => {
            format!("I don't understand {text:?}: type a move like e2e4 or Nf3, or help for the commands.")
        }
        MoveInputError::Illegal(why) => format!("That move is not legal: {why}"),
        MoveInputError::Ambiguous(why) => format!("Which piece? {why}"),
    }
}
