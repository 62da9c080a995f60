//! An external UCI engine as a `gambit match` player: a child process spoken to over its
//! stdin/stdout, with a timeout on every answer we wait for.

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
/// After `stop`, how long to wait for the overdue `bestmove` before restarting the engine.
const STOP_GRACE: Duration = Duration::from_secs(2);
/// How long `quit` may take before the process is killed.
const QUIT_GRACE: Duration = Duration::from_secs(1);

/// What it takes to start an engine: the program and the options to set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    pub path: String,
    /// `Name=Value` pairs from the SPEC, in the order given.
    pub options: Vec<(String, String)>,
    pub variant: Variant,
}

/// An option the engine announced: its name and, for combos, the values it allows.
#[derive(Clone, Debug)]
struct EngineOption {
    name: String,
    vars: Vec<String>,
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
    /// Out of step or gone: restart before the next use.
    broken: bool,
}

impl Engine {
    /// Starts the engine, checks that it speaks UCI, sets the options and, for minichess7,
    /// `UCI_Variant`. Errors say what went wrong in a sentence.
    pub fn start(config: &EngineConfig) -> Result<Engine, String> {
        let path = &config.path;
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start engine {path}: {e}"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("cannot talk to engine {path}: no pipes"));
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
        let mut engine = Engine { config: config.clone(), child, stdin, lines, broken: false };
        engine.handshake()?;
        Ok(engine)
    }

    fn handshake(&mut self) -> Result<(), String> {
        let mut options = self.uci()?;
        for (name, value) in self.config.options.clone() {
            let Some(known) = options.iter().find(|o| o.name.eq_ignore_ascii_case(&name)) else {
                let listed: Vec<&str> = options.iter().map(|o| o.name.as_str()).collect();
                return Err(format!(
                    "engine {} has no option {name:?} (its options: {})",
                    self.config.path,
                    if listed.is_empty() { "none".to_string() } else { listed.join(", ") }
                ));
            };
            let line = format!("setoption name {} value {value}", known.name);
            self.send(&line)?;
        }
        if self.config.variant == Variant::Minichess7 {
            if self.config.options.iter().any(|(name, _)| name.eq_ignore_ascii_case("VariantPath")) {
                // A variants file may add variants: ask again for the list.
                options = self.uci()?;
            }
            let offers = options.iter().any(|o| {
                o.name.eq_ignore_ascii_case("UCI_Variant")
                    && o.vars.iter().any(|v| v.eq_ignore_ascii_case("minichess7"))
            });
            if !offers {
                return Err(format!(
                    "engine {} cannot play minichess7: it offers no option UCI_Variant with var minichess7",
                    self.config.path
                ));
            }
            self.send("setoption name UCI_Variant value minichess7")?;
        }
        self.ready()
    }

    /// Sends `uci` and collects the options announced before `uciok`.
    fn uci(&mut self) -> Result<Vec<EngineOption>, String> {
        let exited = format!("engine {} exited during the UCI handshake; is it a UCI engine?", self.config.path);
        self.send("uci").map_err(|_| exited.clone())?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        let mut options = Vec::new();
        loop {
            match self.next_line(deadline) {
                Ok(line) if line == "uciok" => return Ok(options),
                Ok(line) => options.extend(parse_option(&line)),
                Err(WaitError::TimedOut) => {
                    return Err(format!(
                        "engine {} did not answer `uci` with `uciok` within {} s; is it a UCI engine?",
                        self.config.path,
                        HANDSHAKE_TIMEOUT.as_secs()
                    ))
                }
                Err(WaitError::Closed) => return Err(exited),
            }
        }
    }

    /// Sends `isready` and waits for `readyok`.
    fn ready(&mut self) -> Result<(), String> {
        self.send("isready")?;
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            match self.next_line(deadline) {
                Ok(line) if line == "readyok" => return Ok(()),
                Ok(_) => {}
                Err(WaitError::TimedOut) => {
                    return Err(format!(
                        "engine {} did not answer `isready` within {} s",
                        self.config.path,
                        READY_TIMEOUT.as_secs()
                    ))
                }
                Err(WaitError::Closed) => return Err(format!("engine {} exited unexpectedly", self.config.path)),
            }
        }
    }

    /// Prepares for a new game (`ucinewgame`), restarting the engine if it is broken or does
    /// not answer. Only a failed restart is an error.
    pub fn new_game(&mut self) -> Result<(), String> {
        if !self.broken && self.send("ucinewgame").and_then(|()| self.ready()).is_ok() {
            return Ok(());
        }
        self.restart()
    }

    /// Asks for a move in the game's current position with `go movetime`. An engine that
    /// overruns is told to `stop`; one that does not answer even then, or dies, is marked for a
    /// restart before its next use. Only a failed restart is an error.
    pub fn best_move(&mut self, game: &Game, movetime: Duration) -> Result<Reply, String> {
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
        let sent = self.send(&position).and_then(|()| self.send(&format!("go movetime {}", movetime.as_millis())));
        if sent.is_err() {
            self.broken = true;
            return Ok(Reply::Died);
        }
        // Generous slack: engines overshoot a little, and a loaded machine more.
        let deadline = Instant::now() + movetime * 2 + Duration::from_secs(1);
        match self.wait_bestmove(deadline) {
            Ok(best) => Ok(Reply::BestMove(best)),
            Err(WaitError::Closed) => {
                self.broken = true;
                Ok(Reply::Died)
            }
            Err(WaitError::TimedOut) => {
                let stopped = self.send("stop").is_ok() && self.wait_bestmove(Instant::now() + STOP_GRACE).is_ok();
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
    fn restart(&mut self) -> Result<(), String> {
        let fresh = Engine::start(&self.config)
            .map_err(|e| format!("engine {} failed and could not be restarted: {e}", self.config.path))?;
        *self = fresh; // drops (and ends) the old process
        Ok(())
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("cannot write to engine {}: {e}", self.config.path))
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
    /// `quit`, then a kill if the engine lingers.
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
    // Values after "var" run to the next keyword; variant names have no spaces, so words do.
    let mut vars = Vec::new();
    let mut words = tail.split_whitespace();
    while let Some(word) = words.next() {
        if word == "var" {
            if let Some(v) = words.next() {
                vars.push(v.to_string());
            }
        }
    }
    Some(EngineOption { name: name.trim().to_string(), vars })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse() {
        let o = parse_option("option name Skill Level type spin default 20 min 0 max 20").unwrap();
        assert_eq!(o.name, "Skill Level");
        let o = parse_option("option name UCI_Variant type combo default chess var chess var minichess7 var xiangqi")
            .unwrap();
        assert_eq!(o.name, "UCI_Variant");
        assert_eq!(o.vars, ["chess", "minichess7", "xiangqi"]);
        assert!(parse_option("id name Stockfish 15.1").is_none());
    }
}
