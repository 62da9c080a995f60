//! `gambit uci`: a UCI engine on stdin/stdout, for chess GUIs and tools such as python-chess.
//!
//! The reader (this thread) owns the engine state and answers every command at once; a `go`
//! hands the bot and a copy of the game to a search thread, which prints `info` lines and then
//! exactly one `bestmove`. So `isready`, `stop` and `quit` are answered during a search.
//! docs/uci.md lists the commands and options.

use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use clap::Args;

use super::ToolError;
use crate::bots::search::{Line, Score, SearchInfo};
use crate::bots::{AlphaBeta, Bot, Level, Limits};
use crate::chess::{Color, Game, Move, Variant};
use options::{Options, Set};

#[derive(Args, Debug)]
pub struct UciArgs {}

/// Runs the UCI loop until `quit` or end of input.
pub fn run(_args: &UciArgs) -> Result<(), ToolError> {
    let out = Output::new(Box::new(io::stdout()));
    Engine::new(out).run(io::stdin().lock());
    Ok(())
}

/// The commands we know; the first of them on a line is the command (UCI: skip unknown tokens).
const COMMANDS: [&str; 12] = [
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
    "d",
];

/// The longest `go infinite` iteration we ask for: in practice, until `stop`.
const INFINITE_DEPTH: u32 = 100;
/// Time kept back from a clock budget for the GUI and the pipe.
const MOVE_OVERHEAD: Duration = Duration::from_millis(30);
/// The least time a clock budget grants.
const MIN_MOVE_TIME: Duration = Duration::from_millis(10);
/// Moves a clock is assumed to have to last for when the GUI does not say (`movestogo`).
const DEFAULT_MOVES_TO_GO: u64 = 30;

/// The engine's output: whole lines, one writer at a time, flushed at once.
#[derive(Clone)]
struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    fn new(writer: Box<dyn Write + Send>) -> Output {
        Output(Arc::new(Mutex::new(writer)))
    }

    fn line(&self, text: &str) {
        let mut writer = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        // If the GUI has gone away there is no one to tell; the reader stops at end of input.
        let _ = writeln!(writer, "{text}").and_then(|()| writer.flush());
    }

    fn info(&self, text: &str) {
        self.line(&format!("info string {text}"));
    }
}

/// The bot behind the engine: levels 5–12 search and report; levels 1–4 answer at once.
enum Player {
    Searcher(Box<AlphaBeta>),
    Simple(Box<dyn Bot>),
}

/// What a player is made from: a new one is made when this changes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Setup {
    level: Level,
    /// Transposition table size, 2^bits entries.
    table_bits: u32,
}

impl Player {
    fn new(setup: Setup) -> Player {
        match setup.level.searches() {
            true => Player::Searcher(Box::new(setup.level.engine(AlphaBeta::with_table_bits(None, setup.table_bits)))),
            false => Player::Simple(setup.level.bot(None)),
        }
    }

    fn new_game(&mut self) {
        match self {
            Player::Searcher(bot) => bot.new_game(),
            Player::Simple(bot) => bot.new_game(),
        }
    }

    /// The move to play, or None when there is no legal move.
    fn think(&mut self, game: &Game, limits: &Limits, style: Style, out: &Output) -> Option<Move> {
        let game = reopen(game.clone());
        if game.is_over() {
            // A dead draw with moves left (bare kings…): the bots will not move in a finished
            // game, but the GUI asked for a move.
            return any_move(&game);
        }
        match self {
            Player::Searcher(bot) => {
                bot.set_lines(style.lines);
                bot.set_contempt(style.contempt);
                bot.search(&game, limits, &mut |info| info_lines(info).iter().for_each(|l| out.line(l))).best
            }
            Player::Simple(bot) => bot.choose(&game, limits),
        }
    }
}

/// The options a search reads afresh each time, which need no new player.
#[derive(Clone, Copy, Debug)]
struct Style {
    /// `MultiPV`.
    lines: usize,
    /// `Contempt`.
    contempt: i32,
}

/// A search running on its own thread; joining it gives the bot back.
struct Search {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Option<(Setup, Player)>>,
}

/// What the reader does after a line.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

struct Engine {
    out: Output,
    options: Options,
    variant: Variant,
    game: Game,
    debug: bool,
    /// The bot while no search runs (a running search owns it), and what it was made from.
    /// Kept between moves so the engine keeps its transposition table; rebuilt when the level
    /// or the table size changes, or the table is cleared.
    player: Option<(Setup, Player)>,
    search: Option<Search>,
    /// Set by `Clear Hash` during a search: the player it gives back is dropped.
    discard_player: bool,
}

impl Engine {
    fn new(out: Output) -> Engine {
        Engine {
            out,
            options: Options::default(),
            variant: Variant::Standard,
            game: Game::new(Variant::Standard),
            debug: false,
            player: None,
            search: None,
            discard_player: false,
        }
    }

    /// Reads commands until `quit` or end of input (which counts as `quit`).
    fn run(&mut self, mut input: impl BufRead) {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            // A GUI should send UTF-8; bad bytes must not end the session.
            if self.handle(&String::from_utf8_lossy(&buf)) == Flow::Quit {
                break;
            }
        }
        self.finish_search();
    }

    fn handle(&mut self, line: &str) -> Flow {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.is_empty() {
            return Flow::Continue;
        }
        let Some(start) = tokens.iter().position(|t| COMMANDS.contains(t)) else {
            self.out.info(&format!("unknown command: {}", line.trim()));
            return Flow::Continue;
        };
        if start > 0 {
            self.out.info(&format!("ignoring unknown {}", tokens[..start].join(" ")));
        }
        let args = &tokens[start + 1..];
        match tokens[start] {
            "uci" => self.uci(),
            "debug" => self.debug(args),
            "isready" => self.out.line("readyok"),
            "setoption" => self.setoption(args),
            "register" => {}
            "ucinewgame" => self.new_game(),
            "position" => self.position(args),
            "go" => self.go(args),
            // We offer no pondering, so a ponder search ends when the opponent's move is played.
            "stop" | "ponderhit" => self.finish_search(),
            "quit" => return Flow::Quit,
            // Not UCI, but what Stockfish answers and what people type at an engine by hand.
            "d" => self.out.info(&format!("fen {}", self.game.position().fen())),
            other => self.out.info(&format!("unknown command: {other}")),
        }
        Flow::Continue
    }

    fn uci(&self) {
        self.out.line(&format!("id name gambit {}", env!("CARGO_PKG_VERSION")));
        self.out.line("id author the gambit developers");
        Options::announce().iter().for_each(|line| self.out.line(line));
        self.out.line("uciok");
    }

    fn debug(&mut self, args: &[&str]) {
        match args.first() {
            Some(&"on") => self.debug = true,
            Some(&"off") => self.debug = false,
            _ => self.out.info("debug needs on or off"),
        }
    }

    /// `setoption name <id> [value <x>]`. A bad value changes nothing and is explained.
    fn setoption(&mut self, args: &[&str]) {
        let Some(("name", rest)) = args.split_first().map(|(first, rest)| (*first, rest)) else {
            self.out.info("setoption needs: setoption name <option> value <value>");
            return;
        };
        let (name, value) = match rest.iter().position(|&t| t == "value") {
            Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
            None => (rest.join(" "), None),
        };
        match self.options.set(&name, value) {
            Ok(Set::Value) => {}
            Ok(Set::ClearHash) => {
                // The next search starts from an empty table.
                self.player = None;
                self.discard_player = self.search.is_some();
            }
            Ok(Set::Variant(variant)) => self.set_variant(variant),
            Err(message) => self.out.info(&message),
        }
    }

    fn set_variant(&mut self, variant: Variant) {
        if variant != self.variant {
            self.variant = variant;
            self.game = Game::new(variant);
        }
    }

    fn new_game(&mut self) {
        self.finish_search();
        if let Some((_, player)) = &mut self.player {
            player.new_game();
        }
        self.game = Game::new(self.variant);
    }

    /// `position startpos|fen <fen> [moves <m1> …]`. On any error the previous position stays.
    fn position(&mut self, args: &[&str]) {
        match parse_position(self.variant, args) {
            Ok(game) => self.game = game,
            Err(message) => self.out.info(&format!("{message}; position unchanged")),
        }
    }

    fn go(&mut self, args: &[&str]) {
        // A GUI should not send `go` during a search; if one does, the old search answers first.
        self.finish_search();
        let (params, warnings) = GoParams::parse(args);
        for warning in warnings {
            self.out.info(&warning);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let limits = Limits { stop: Some(stop.clone()), ..params.limits(self.game.turn()) };
        let setup = self.options.setup();
        if self.debug {
            self.out.info(&format!(
                "level {} multipv {} movetime {:?} depth {:?} nodes {:?}",
                setup.level.get(),
                self.options.multipv,
                limits.movetime,
                limits.depth,
                limits.nodes
            ));
        }
        let mut player = match self.player.take() {
            Some((made, player)) if made == setup => player,
            _ => Player::new(setup),
        };
        let style = Style { lines: self.options.multipv, contempt: self.options.contempt };
        let game = self.game.clone();
        let out = self.out.clone();
        let wait_for_stop = params.infinite || params.ponder;
        let flag = stop.clone();
        let spawned = thread::Builder::new().name("uci-search".into()).spawn(move || {
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| player.think(&game, &limits, style, &out)));
            let (best, player) = match outcome {
                Ok(best) => (best, Some((setup, player))),
                Err(_) => {
                    out.info("the search failed; playing any legal move");
                    (any_move(&game), None)
                }
            };
            // UCI: in infinite mode the answer waits for `stop`, even if the search is done.
            while wait_for_stop && !flag.load(Ordering::SeqCst) {
                thread::park();
            }
            out.line(&bestmove_line(best));
            player
        });
        match spawned {
            Ok(handle) => self.search = Some(Search { stop, handle }),
            Err(err) => {
                self.out.info(&format!("cannot start a search: {err}"));
                self.out.line(&bestmove_line(any_move(&self.game)));
            }
        }
    }

    /// Stops the running search, if any, and waits for its `bestmove`.
    fn finish_search(&mut self) {
        if let Some(search) = self.search.take() {
            search.stop.store(true, Ordering::SeqCst);
            search.handle.thread().unpark();
            // The thread catches the bot's panics, so joining fails only in a broken runtime;
            // a fresh bot is made at the next `go` then.
            let returned = search.handle.join().ok().flatten();
            self.player = if std::mem::take(&mut self.discard_player) { None } else { returned };
        }
    }
}

/// Builds the game a `position` command describes.
fn parse_position(variant: Variant, args: &[&str]) -> Result<Game, String> {
    let (mut game, rest) = match args.split_first() {
        Some((&"startpos", rest)) => (Game::new(variant), rest),
        Some((&"fen", rest)) => {
            let end = rest.iter().position(|&t| t == "moves").unwrap_or(rest.len());
            if end == 0 {
                return Err("position fen needs a FEN".into());
            }
            let fen = rest[..end].join(" ");
            let game =
                Game::from_fen(variant, &fen, Default::default()).map_err(|e| format!("bad FEN for {variant}: {e}"))?;
            (game, &rest[end..])
        }
        _ => return Err("position needs startpos or fen <FEN>".into()),
    };
    let moves = match rest.split_first() {
        None => &[][..],
        Some((&"moves", moves)) => moves,
        Some((other, _)) => return Err(format!("position: expected moves, not {other:?}")),
    };
    for (i, text) in moves.iter().enumerate() {
        let m = game.position().parse_uci(text).map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
        game = reopen(game);
        if game.is_over() {
            game = Game::from_position(game.position().after(m));
        } else {
            game.play(m).map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
        }
    }
    Ok(game)
}

/// The rules core ends a game on repetition, the fifty-move rule or bare kings, but over UCI
/// the GUI decides when a game is over (python-chess plays on after a threefold repetition
/// unless someone claims it). So a finished game that still has legal moves goes on from its
/// position, forgetting the history and the move counter that ended it. Only a dead draw
/// stays finished.
fn reopen(game: Game) -> Game {
    let pos = *game.position();
    if !game.is_over() || !pos.has_legal_move() {
        return game;
    }
    let fen = pos.fen();
    let mut fields: Vec<&str> = fen.split(' ').collect();
    if let Some(halfmoves) = fields.get_mut(4) {
        *halfmoves = "0";
    }
    Game::from_fen(pos.variant(), &fields.join(" "), pos.rules()).unwrap_or(game)
}

/// Some legal move, when the bots cannot or did not choose one.
fn any_move(game: &Game) -> Option<Move> {
    game.position().legal_moves().first().copied()
}

/// `bestmove <uci>`, or `bestmove 0000` when there is no legal move.
fn bestmove_line(best: Option<Move>) -> String {
    format!("bestmove {}", best.map_or_else(|| "0000".to_string(), |m| m.to_string()))
}

/// The `info` lines for a finished iteration: one per principal variation, numbered with
/// `multipv` when there are several.
fn info_lines(info: &SearchInfo) -> Vec<String> {
    let several = info.lines.len() > 1;
    info.lines.iter().enumerate().map(|(i, line)| info_line(info, line, several.then_some(i + 1))).collect()
}

fn info_line(info: &SearchInfo, line: &Line, multipv: Option<usize>) -> String {
    let score = match line.score {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(moves) => format!("mate {moves}"),
    };
    let secs = info.time.as_secs_f64();
    let nps = if secs > 0.0 { (info.nodes as f64 / secs) as u64 } else { 0 };
    let mut text = format!("info depth {} seldepth {}", info.depth, info.seldepth);
    if let Some(n) = multipv {
        text.push_str(&format!(" multipv {n}"));
    }
    text.push_str(&format!(" score {score} nodes {} nps {nps} time {}", info.nodes, info.time.as_millis()));
    // The line is read from the transposition table; past the deepest ply searched it can only
    // be left over from an earlier search.
    let pv = &line.pv[..line.pv.len().min(info.seldepth.max(info.depth) as usize)];
    if !pv.is_empty() {
        text.push_str(" pv");
        for m in pv {
            text.push(' ');
            text.push_str(&m.to_string());
        }
    }
    text
}

/// The parameters of a `go` command.
#[derive(Debug, Default, PartialEq, Eq)]
struct GoParams {
    movetime: Option<u64>,
    wtime: Option<i64>,
    btime: Option<i64>,
    winc: Option<i64>,
    binc: Option<i64>,
    movestogo: Option<u64>,
    depth: Option<u32>,
    nodes: Option<u64>,
    mate: Option<u32>,
    infinite: bool,
    ponder: bool,
}

const GO_KEYWORDS: [&str; 13] = [
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "perft",
];

impl GoParams {
    /// Parses what follows `go`, with a warning for each part it had to ignore.
    fn parse(args: &[&str]) -> (GoParams, Vec<String>) {
        let mut go = GoParams::default();
        let mut warnings = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let keyword = args[i];
            i += 1;
            let mut number = |warnings: &mut Vec<String>| -> Option<i64> {
                match args.get(i).filter(|t| !GO_KEYWORDS.contains(t)) {
                    Some(token) => {
                        i += 1;
                        let n = token.parse::<i64>().ok();
                        if n.is_none() {
                            warnings.push(format!("go {keyword} needs a number, not {token:?}; ignored"));
                        }
                        n
                    }
                    None => {
                        warnings.push(format!("go {keyword} needs a number; ignored"));
                        None
                    }
                }
            };
            let non_negative = |n: Option<i64>| n.map(|n| n.max(0));
            match keyword {
                "infinite" => go.infinite = true,
                "ponder" => go.ponder = true,
                // Clocks can be negative in some GUIs once a flag has fallen.
                "wtime" => go.wtime = non_negative(number(&mut warnings)).or(go.wtime),
                "btime" => go.btime = non_negative(number(&mut warnings)).or(go.btime),
                "winc" => go.winc = non_negative(number(&mut warnings)).or(go.winc),
                "binc" => go.binc = non_negative(number(&mut warnings)).or(go.binc),
                "movestogo" => go.movestogo = number(&mut warnings).map(|n| n.max(1) as u64).or(go.movestogo),
                "movetime" => go.movetime = non_negative(number(&mut warnings)).map(|n| n as u64).or(go.movetime),
                "nodes" => go.nodes = non_negative(number(&mut warnings)).map(|n| n as u64).or(go.nodes),
                "depth" => {
                    go.depth = number(&mut warnings).map(|n| n.clamp(1, i64::from(INFINITE_DEPTH)) as u32).or(go.depth)
                }
                "mate" => go.mate = number(&mut warnings).map(|n| n.clamp(1, 50) as u32).or(go.mate),
                "searchmoves" => {
                    while i < args.len() && !GO_KEYWORDS.contains(&args[i]) {
                        i += 1;
                    }
                    warnings.push("go searchmoves is not supported; searching every move".into());
                }
                "perft" => {
                    number(&mut warnings);
                    warnings.push("go perft is not supported here; use gambit perft".into());
                }
                other => warnings.push(format!("go: ignoring unknown {other:?}")),
            }
        }
        (go, warnings)
    }

    /// The search limits for the side to move (the stop flag is the caller's to add).
    fn limits(&self, turn: Color) -> Limits {
        let clock = match turn {
            Color::White => self.wtime.map(|t| (t, self.winc.unwrap_or(0))),
            Color::Black => self.btime.map(|t| (t, self.binc.unwrap_or(0))),
        };
        let budget = clock.map(|(remaining, increment)| clock_budget(remaining, increment, self.movestogo));
        let movetime = [self.movetime.map(Duration::from_millis), budget].into_iter().flatten().min();
        // Mate in n moves is found within 2n - 1 plies.
        let depth = [self.depth, self.mate.map(|n| 2 * n - 1)].into_iter().flatten().min();
        if self.infinite || self.ponder {
            // Only `stop` ends it: no clock, and as deep as the search will go.
            return Limits { depth: depth.or(Some(INFINITE_DEPTH)), nodes: self.nodes, ..Limits::default() };
        }
        // A share of the clock may be cut short, to keep time for later moves.
        let early_stop = budget.is_some_and(|b| self.movetime.is_none_or(|m| b < Duration::from_millis(m)));
        Limits { movetime, depth, nodes: self.nodes, early_stop, stop: None }
    }
}

/// How long to think on a clock: an even share of what is left (or of `movestogo` moves) plus
/// most of the increment, never more than a third of what is left, less the overhead.
fn clock_budget(remaining_ms: i64, increment_ms: i64, movestogo: Option<u64>) -> Duration {
    let remaining = remaining_ms.max(0) as u64;
    let increment = increment_ms.max(0) as u64;
    let share = remaining / movestogo.unwrap_or(DEFAULT_MOVES_TO_GO).max(1) + increment * 3 / 4;
    let ms = share.min(remaining / 3);
    Duration::from_millis(ms).saturating_sub(MOVE_OVERHEAD).max(MIN_MOVE_TIME)
}

mod options;
#[cfg(test)]
mod tests;
