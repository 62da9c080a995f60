//! An external UCI engine spoken to over its stdin/stdout, with a timeout on every answer we
//! wait for: a `gambit match` player, and the process behind a server's engine seat. Every
//! call blocks (the server makes them on `tokio::task::spawn_blocking`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use crate::chess::{Game, Variant};

/// How long an engine may take to answer `uci` with `uciok`.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an engine may take to answer `isready` (loading a network file can take a while).
const READY_TIMEOUT: Duration = Duration::from_secs(30);
/// After `stop`, how long `gambit match` waits for the overdue `bestmove` before restarting.
const STOP_GRACE: Duration = Duration::from_secs(2);
/// How long `quit` may take before the process is killed.
const QUIT_GRACE: Duration = Duration::from_secs(1);

/// How long `gambit match` waits for a move of `movetime`: twice that, and a second.
fn generous(movetime: Duration) -> Duration {
    movetime * 2 + Duration::from_secs(1)
}

/// The name `UCI_Variant` gives each of our variants.
pub fn uci_variant_name(variant: Variant) -> &'static str {
    match variant {
        Variant::Standard => "chess",
        Variant::Minichess7 => "minichess7",
        Variant::Chess960 => "chess960",
    }
}

/// What is wrong with a `PATH[,Name=Value...]` engine command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandError {
    /// No program before the first comma.
    NoPath,
    /// A part that is not `Name=Value` (as written, trimmed).
    BadOption(String),
}

/// Reads `PATH[,Name=Value...]`, the way `gambit match` (`uci:…`) and `gambit serve
/// --engine NAME=…` name an engine: the program and the options to set on it, in order.
pub fn parse_command(text: &str) -> Result<(String, Vec<(String, String)>), CommandError> {
    let mut parts = text.split(',');
    let path = parts.next().unwrap_or_default().trim();
    if path.is_empty() {
        return Err(CommandError::NoPath);
    }
    let options = parts
        .map(|part| match part.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), value.trim().to_string())),
            _ => Err(CommandError::BadOption(part.trim().to_string())),
        })
        .collect::<Result<_, _>>()?;
    Ok((path.to_string(), options))
}

/// What it takes to start an engine: the program and the options to set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    pub path: String,
    /// The program's arguments (`uci` for another gambit binary; none for a plain engine).
    pub args: Vec<String>,
    /// `Name=Value` pairs, in the order given.
    pub options: Vec<(String, String)>,
    pub variant: Variant,
}

/// Why an engine could not be started or used. Each says what went wrong in a sentence.
#[derive(Debug, thiserror::Error)]
pub enum UciError {
    #[error("cannot start engine {path}: {source}")]
    Spawn { path: String, source: std::io::Error },
    #[error("cannot talk to engine {0}: no pipes")]
    NoPipes(String),
    #[error("engine {0} exited during the UCI handshake; is it a UCI engine?")]
    HandshakeExited(String),
    #[error("engine {0} did not answer `uci` with `uciok` within {HANDSHAKE_TIMEOUT:?}; is it a UCI engine?")]
    HandshakeTimeout(String),
    #[error("engine {path} has no option {name:?} (its options: {listed})")]
    NoSuchOption { path: String, name: String, listed: String },
    #[error("engine {path} cannot play {variant}: it offers no option UCI_Variant with var {variant}")]
    NoVariant { path: String, variant: &'static str },
    #[error("engine {0} did not answer `isready` within {READY_TIMEOUT:?}")]
    NotReady(String),
    #[error("engine {0} exited unexpectedly")]
    Exited(String),
    #[error("cannot write to engine {path}: {source}")]
    Write { path: String, source: std::io::Error },
    #[error("engine {path} failed and could not be restarted: {source}")]
    Restart { path: String, source: Box<UciError> },
}

/// An option the engine announced (`option name … type …`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOption {
    pub name: String,
    /// `spin`, `check`, `combo`, `button` or `string` (empty if the engine gave none).
    pub kind: String,
    pub default: Option<String>,
    pub min: Option<i64>,
    pub max: Option<i64>,
    /// A combo's values.
    pub vars: Vec<String>,
}

/// What an engine says about itself at the handshake: its options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineInfo {
    pub options: Vec<EngineOption>,
}

impl EngineInfo {
    /// The option called `name` (UCI option names are case-insensitive).
    pub fn option(&self, name: &str) -> Option<&EngineOption> {
        self.options.iter().find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// Whether the engine plays `variant`: every UCI engine plays standard chess unless its
    /// `UCI_Variant` says otherwise; other variants must be among `UCI_Variant`'s vars.
    pub fn supports(&self, variant: Variant) -> bool {
        if variant == Variant::Chess960 {
            // Chess960 is standard chess with its castling written the UCI_Chess960 way.
            return self.option("UCI_Chess960").is_some() && self.supports(Variant::Standard);
        }
        let wanted = uci_variant_name(variant);
        match self.option("UCI_Variant") {
            Some(o) => o.vars.iter().any(|v| v.eq_ignore_ascii_case(wanted)),
            None => variant == Variant::Standard,
        }
    }
}

/// The engine's answer to `go`.
#[derive(Debug)]
pub enum Reply {
    /// The text after `bestmove` (not yet checked for legality).
    BestMove(String),
    /// No `bestmove` in time. The engine is stopped, or restarted before its next use.
    TimedOut,
    /// The engine exited or closed its output. It is restarted before its next use.
    Died,
}

/// Why waiting for a line failed.
enum WaitError {
    TimedOut,
    Closed,
}

/// A running engine.
pub struct Engine {
    config: EngineConfig,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    info: EngineInfo,
    /// Out of step or gone: restart before the next use.
    broken: bool,
}

impl Engine {
    /// Starts the engine, checks that it speaks UCI, sets the options and, for minichess7,
    /// `UCI_Variant`.
    pub fn start(config: &EngineConfig) -> Result<Engine, UciError> {
        let path = &config.path;
        let mut child = Command::new(path)
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| UciError::Spawn { path: path.clone(), source })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(UciError::NoPipes(path.clone()));
        };
        let (sender, lines) = mpsc::channel();
        // The reader ends by itself when the engine closes its output (exit or kill).
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).trim().to_string();
                        if sender.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut engine =
            Engine { config: config.clone(), child, stdin, lines, info: EngineInfo::default(), broken: false };
        engine.handshake()?;
        Ok(engine)
    }

    /// Starts the engine with `config`'s options, reads what it announces, and ends it: how a
    /// server learns an engine's options and variants once, at startup.
    pub fn probe(config: &EngineConfig) -> Result<EngineInfo, UciError> {
        let engine = Engine::start(config)?;
        Ok(engine.info.clone())
    }

    /// The options the engine announced (after its `VariantPath`, if one was set).
    pub fn info(&self) -> &EngineInfo {
        &self.info
    }

    fn handshake(&mut self) -> Result<(), UciError> {
        self.info = self.uci()?;
        for (name, value) in self.config.options.clone() {
            let Some(known) = self.info.option(&name) else {
                let listed: Vec<&str> = self.info.options.iter().map(|o| o.name.as_str()).collect();
                return Err(UciError::NoSuchOption {
                    path: self.config.path.clone(),
                    name,
                    listed: if listed.is_empty() { "none".to_string() } else { listed.join(", ") },
                });
            };
            let line = format!("setoption name {} value {value}", known.name);
            self.send(&line)?;
        }
        if self.config.options.iter().any(|(name, _)| name.eq_ignore_ascii_case("VariantPath")) {
            // A variants file may add variants: ask again for the list.
            self.info = self.uci()?;
        }
        if self.config.variant != Variant::Standard {
            let variant = uci_variant_name(self.config.variant);
            if !self.info.supports(self.config.variant) {
                return Err(UciError::NoVariant { path: self.config.path.clone(), variant });
            }
            if self.config.variant == Variant::Chess960 {
                self.send("setoption name UCI_Chess960 value true")?;
            } else {
                self.send(&format!("setoption name UCI_Variant value {variant}"))?;
            }
        }
        self.ready()
    }

    /// Sends `uci` and collects the options announced before `uciok`.
    fn uci(&mut self) -> Result<EngineInfo, UciError> {
        let path = self.config.path.clone();
        self.send("uci").map_err(|_| UciError::HandshakeExited(path.clone()))?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        let mut options = Vec::new();
        loop {
            match self.next_line(deadline) {
                Ok(line) if line == "uciok" => return Ok(EngineInfo { options }),
                Ok(line) => options.extend(parse_option(&line)),
                Err(WaitError::TimedOut) => return Err(UciError::HandshakeTimeout(path)),
                Err(WaitError::Closed) => return Err(UciError::HandshakeExited(path)),
            }
        }
    }

    /// Sends `isready` and waits for `readyok`.
    fn ready(&mut self) -> Result<(), UciError> {
        self.send("isready")?;
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            match self.next_line(deadline) {
                Ok(line) if line == "readyok" => return Ok(()),
                Ok(_) => {}
                Err(WaitError::TimedOut) => return Err(UciError::NotReady(self.config.path.clone())),
                Err(WaitError::Closed) => return Err(UciError::Exited(self.config.path.clone())),
            }
        }
    }

    /// Prepares for a new game (`ucinewgame`), restarting the engine if it is broken or does
    /// not answer. Only a failed restart is an error.
    pub fn new_game(&mut self) -> Result<(), UciError> {
        if !self.broken && self.send("ucinewgame").and_then(|()| self.ready()).is_ok() {
            return Ok(());
        }
        self.restart()
    }

    /// Asks for a move in the game's current position with `go movetime`, waiting generously
    /// (engines overshoot a little, and a loaded machine more): `gambit match`'s way.
    pub fn best_move(&mut self, game: &Game, movetime: Duration) -> Result<Reply, UciError> {
        self.best_move_within(game, movetime, generous(movetime), STOP_GRACE)
    }

    /// Asks for a move with `go nodes`, waiting as generously as [`Engine::best_move`] does
    /// for a search of `movetime`: `gambit match --nodes`, where a node count is no promise
    /// about time but an engine must still answer.
    pub fn best_move_nodes(&mut self, game: &Game, nodes: u64, movetime: Duration) -> Result<Reply, UciError> {
        self.go(game, &format!("go nodes {nodes}"), generous(movetime), STOP_GRACE)
    }

    /// Asks for a move with `go movetime`, waiting at most `limit` for it. An engine that
    /// overruns is told to `stop` and given `stop_grace` more; one that does not answer even
    /// then, or dies, is marked for a restart before its next use. Only a failed restart is
    /// an error.
    pub fn best_move_within(
        &mut self,
        game: &Game,
        movetime: Duration,
        limit: Duration,
        stop_grace: Duration,
    ) -> Result<Reply, UciError> {
        self.go(game, &format!("go movetime {}", movetime.as_millis()), limit, stop_grace)
    }

    /// Sends the game's position and the `go` line, and waits for the answer as
    /// [`Engine::best_move_within`] describes.
    fn go(&mut self, game: &Game, go: &str, limit: Duration, stop_grace: Duration) -> Result<Reply, UciError> {
        if self.broken {
            self.restart()?;
        }
        let mut position = format!("position fen {}", game.initial_position().fen());
        if !game.history().is_empty() {
            position.push_str(" moves");
            for played in game.history() {
                position.push(' ');
                position.push_str(&played.mv.to_string());
            }
        }
        let sent = self.send(&position).and_then(|()| self.send(go));
        if sent.is_err() {
            self.broken = true;
            return Ok(Reply::Died);
        }
        match self.wait_bestmove(Instant::now() + limit) {
            Ok(best) => Ok(Reply::BestMove(best)),
            Err(WaitError::Closed) => {
                self.broken = true;
                Ok(Reply::Died)
            }
            Err(WaitError::TimedOut) => {
                let stopped = self.send("stop").is_ok() && self.wait_bestmove(Instant::now() + stop_grace).is_ok();
                self.broken = !stopped;
                Ok(Reply::TimedOut)
            }
        }
    }

    /// Waits for `bestmove X` and returns X (empty if the engine gave none).
    fn wait_bestmove(&mut self, deadline: Instant) -> Result<String, WaitError> {
        loop {
            let line = self.next_line(deadline)?;
            let mut words = line.split_whitespace();
            if words.next() == Some("bestmove") {
                return Ok(words.next().unwrap_or_default().to_string());
            }
        }
    }

    /// Replaces the process with a freshly started one.
    fn restart(&mut self) -> Result<(), UciError> {
        let fresh = Engine::start(&self.config)
            .map_err(|e| UciError::Restart { path: self.config.path.clone(), source: Box::new(e) })?;
        *self = fresh; // drops (and ends) the old process
        Ok(())
    }

    fn send(&mut self, line: &str) -> Result<(), UciError> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|source| UciError::Write { path: self.config.path.clone(), source })
    }

    fn next_line(&mut self, deadline: Instant) -> Result<String, WaitError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(WaitError::TimedOut),
            Err(RecvTimeoutError::Disconnected) => Err(WaitError::Closed),
        }
    }
}

impl Drop for Engine {
    /// `quit`, then a kill if the engine lingers; waited on either way, so no zombie is left.
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + QUIT_GRACE;
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => thread::sleep(Duration::from_millis(10)),
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Parses `option name <Name with spaces> type <t> [default x] [min m] [max n] [var v]*`.
fn parse_option(line: &str) -> Option<EngineOption> {
    let rest = line.strip_prefix("option name ")?;
    let (name, tail) = match rest.find(" type ") {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    };
    let mut option = EngineOption {
        name: name.trim().to_string(),
        kind: String::new(),
        default: None,
        min: None,
        max: None,
        vars: Vec::new(),
    };
    // Each keyword's value runs to the next keyword (a string default may hold spaces).
    let mut key: Option<&str> = None;
    let mut value: Vec<&str> = Vec::new();
    let flush = |key: Option<&str>, value: &mut Vec<&str>, option: &mut EngineOption| {
        let text = value.join(" ");
        value.clear();
        match key {
            Some("type") => option.kind = text,
            Some("default") => option.default = Some(text),
            Some("min") => option.min = text.parse().ok(),
            Some("max") => option.max = text.parse().ok(),
            Some("var") => option.vars.push(text),
            _ => {}
        }
    };
    for word in tail.split_whitespace() {
        if matches!(word, "type" | "default" | "min" | "max" | "var") {
            flush(key, &mut value, &mut option);
            key = Some(word);
        } else {
            value.push(word);
        }
    }
    flush(key, &mut value, &mut option);
    Some(option)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse() {
        let o = parse_option("option name Skill Level type spin default 20 min 0 max 20").unwrap();
        assert_eq!(o.name, "Skill Level");
        assert_eq!((o.kind.as_str(), o.default.as_deref(), o.min, o.max), ("spin", Some("20"), Some(0), Some(20)));
        let o = parse_option("option name UCI_Variant type combo default chess var chess var minichess7 var xiangqi")
            .unwrap();
        assert_eq!(o.name, "UCI_Variant");
        assert_eq!(o.vars, ["chess", "minichess7", "xiangqi"]);
        let o = parse_option("option name Debug Log File type string default").unwrap();
        assert_eq!(o.default.as_deref(), Some(""));
        assert!(parse_option("id name Stockfish 15.1").is_none());
    }

    #[test]
    fn variants_come_from_uci_variant() {
        let plain = EngineInfo::default();
        assert!(plain.supports(Variant::Standard) && !plain.supports(Variant::Minichess7));
        let fairy = EngineInfo {
            options: vec![parse_option("option name UCI_Variant type combo default chess var chess var shogi").unwrap()],
        };
        assert!(fairy.supports(Variant::Standard) && !fairy.supports(Variant::Minichess7));
    }
}
