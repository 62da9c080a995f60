//! `gambit match`: plays games between two players — bot levels, the CS3243 reference agents or
//! external UCI engines — and reports W/D/L, the score and an Elo estimate with a 95% interval.
//!
//! Games come in pairs that share a short random opening, with colours swapped, so that the
//! games differ and neither colour is favoured. A game still going after 300 plies is drawn.

mod builds;
mod opening;
mod player;
mod stats;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, SystemTime};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rand::Rng;

use self::opening::Openings;
pub use self::player::Spec;
use self::player::{Budget, Forfeit, Player, Turn};
use self::stats::{format_elo, Tally};
use super::ToolError;
use crate::chess::{write_pgn, Color, EndReason, Game, Outcome, PgnTags, Variant};

/// A game still going after this many plies (the opening included) is drawn.
pub const MAX_PLIES: usize = 300;

const SPEC_HELP: &str = "\
SPEC is one of:
  level1 .. level12         gambit's bot levels (levels 5-12 think for --movetime or --nodes per move)
  dummy, random, greedy, smart, minimax4
                            the reference agents of the NUS CS3243 7x7 minichess project
                            (they move at once and play either variant)
  skill:DEPTH,LINES,WEAKNESS
                            the engine weakened as levels 5-10 are: searched to DEPTH, then a
                            pick among its best LINES moves, WEAKNESS 0 (best) to 128 (any of
                            them alike); the calibration's stepping stones, e.g. skill:1,8,128
  uci:PATH[,Name=Value...]  an external UCI engine and the options to set on it, separated
                            by commas, e.g. \"uci:/usr/games/stockfish,Skill Level=0,Threads=1\"
                            (quote it for the shell). For minichess7 the engine must offer
                            UCI_Variant minichess7. An engine that overruns its time, plays an
                            illegal move or dies forfeits that game.
  gambit:PATH[,Name=Value...]
  gambit:@COMMIT[,Name=Value...]
                            another build of gambit, run as `gambit uci` with those options
                            (e.g. Level=7), for A/B matches: a binary on disk, or the gambit of
                            a commit of this checkout (a hash, tag or HEAD~1), built once into
                            target/match-builds/ and found there by later matches

Games 1, 3, 5, ... have --white as White; games 2, 4, 6, ... swap colours and replay the same
opening. Each pair starts from its own short random opening (8 plies in standard chess, 4 to 6
in minichess7, 4 from a random start in chess960) that the engine judges balanced. A game is
drawn after 300 plies. The report on stdout counts wins, draws and losses for --white's player.";

#[derive(Args, Debug)]
#[command(after_help = SPEC_HELP)]
pub struct MatchArgs {
    /// The first player, from whose side results are reported; White in games 1, 3, 5, ...
    #[arg(long, value_name = "SPEC")]
    pub white: String,
    /// The second player; White in games 2, 4, 6, ...
    #[arg(long, value_name = "SPEC")]
    pub black: String,
    /// How many games to play (pairs share an opening with colours swapped)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub games: u32,
    /// standard, chess960 or minichess7
    #[arg(long, default_value = "standard")]
    pub variant: Variant,
    /// Thinking time per move in milliseconds for levels 5-12 and UCI engines (the others move at once)
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub movetime: u64,
    /// Nodes per move for levels 5-12, skill: players and UCI engines (`go nodes N`) instead of
    /// --movetime: a budget the machine's load cannot change. A UCI engine still forfeits a
    /// move it has not answered within twice --movetime and a second
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000_000))]
    pub nodes: Option<u64>,
    /// Write every game to this file as PGN, one after another
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,
    /// Seed for the openings and the bots' random choices, to replay a match (default: random)
    #[arg(long)]
    pub seed: Option<u64>,
    /// Games to play at the same time, each in its own thread with its own players
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub concurrency: u32,
}

/// What every game of the match shares.
struct Settings {
    first: Spec,
    second: Spec,
    variant: Variant,
    budget: Budget,
    games: u32,
    seed: u64,
}

/// How a game ended, for the report.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ending {
    /// By the rules on the board: checkmate, stalemate, repetition, …
    Rules(EndReason),
    /// Drawn after [`MAX_PLIES`].
    Adjudicated,
    /// Lost off the board by the given player (true: the first player).
    Forfeit(Forfeit, bool),
}

impl Ending {
    fn name(self) -> &'static str {
        match self {
            Ending::Rules(reason) => reason.name(),
            Ending::Adjudicated => "adjudicated",
            Ending::Forfeit(kind, _) => kind.name(),
        }
    }
}

/// The order endings are listed in the report.
const ENDING_ORDER: [&str; 12] = [
    "checkmate",
    "out_of_moves",
    "stalemate",
    "no_moves",
    "threefold_repetition",
    "eight_move_repetition",
    "fifty_moves",
    "insufficient_material",
    "adjudicated",
    "forfeit_timeout",
    "forfeit_illegal_move",
    "forfeit_engine_died",
];

/// One finished game.
struct GameRecord {
    /// 1-based.
    number: u32,
    first_is_white: bool,
    outcome: Outcome,
    ending: Ending,
    pgn: Option<String>,
}

impl GameRecord {
    /// The first player's colour in this game.
    fn first_color(&self) -> Color {
        if self.first_is_white {
            Color::White
        } else {
            Color::Black
        }
    }
}

/// The running totals.
#[derive(Default)]
struct Totals {
    first: Tally,
    first_as_white: Tally,
    first_as_black: Tally,
    endings: BTreeMap<usize, u32>,
    forfeits: [u32; 2],
}

impl Totals {
    fn add(&mut self, record: &GameRecord) {
        let by_colour = if record.first_is_white { &mut self.first_as_white } else { &mut self.first_as_black };
        for tally in [&mut self.first, by_colour] {
            match record.outcome.winner {
                None => tally.draws += 1,
                Some(c) if c == record.first_color() => tally.wins += 1,
                Some(_) => tally.losses += 1,
            }
        }
        let rank = ENDING_ORDER.iter().position(|&n| n == record.ending.name()).unwrap_or(ENDING_ORDER.len());
        *self.endings.entry(rank).or_default() += 1;
        if let Ending::Forfeit(_, by_first) = record.ending {
            self.forfeits[usize::from(!by_first)] += 1;
        }
    }
}

/// Plays the match and prints the report.
pub fn run(args: &MatchArgs) -> Result<(), ToolError> {
    let first = Spec::parse(&args.white, args.variant).and_then(Spec::prepare).map_err(ToolError)?;
    let second = Spec::parse(&args.black, args.variant).and_then(Spec::prepare).map_err(ToolError)?;
    let seed = args.seed.unwrap_or_else(|| crate::bots::rng(None).random());
    let mut pgn = args.pgn.as_deref().map(PgnWriter::create).transpose()?;
    let with_pgn = pgn.is_some();
    let settings = Settings {
        first,
        second,
        variant: args.variant,
        budget: Budget { movetime: Duration::from_millis(args.movetime), nodes: args.nodes },
        games: args.games,
        seed,
    };
    let threads = args.concurrency.min(args.games);
    // Start one thread's players here, so that a bad engine is reported before any game.
    let mut ready = Some(Seats::new(&settings).map_err(ToolError)?);

    let bar = ProgressBar::new(u64::from(args.games));
    bar.set_style(
        ProgressStyle::with_template("{spinner} {pos}/{len} games {bar:20} {msg} [{elapsed_precise}, eta {eta}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // Name the first player in the bar only if that stays short.
    let name = settings.first.to_string();
    let whose = if name.chars().count() <= 16 { format!("{name} ") } else { String::new() };
    bar.set_message(format!("{whose}W/D/L 0/0/0"));
    bar.enable_steady_tick(Duration::from_millis(250));

    let next = AtomicU32::new(0);
    let abort = AtomicBool::new(false);
    let mut totals = Totals::default();
    let mut failure: Option<ToolError> = None;
    let (sender, results) = mpsc::channel::<Result<GameRecord, String>>();
    thread::scope(|scope| {
        for _ in 0..threads {
            let sender = sender.clone();
            let seats = ready.take();
            let (settings, next, abort) = (&settings, &next, &abort);
            scope.spawn(move || worker(settings, seats, next, abort, &sender, with_pgn));
        }
        drop(sender);
        for result in results {
            match result {
                Ok(record) => {
                    totals.add(&record);
                    let t = totals.first;
                    bar.inc(1);
                    bar.set_message(format!("{whose}W/D/L {}/{}/{}", t.wins, t.draws, t.losses));
                    if let (Some(writer), Some(text)) = (pgn.as_mut(), record.pgn) {
                        if let Err(e) = writer.add(record.number, text) {
                            abort.store(true, Ordering::Relaxed);
                            failure.get_or_insert(e);
                        }
                    }
                }
                Err(message) => {
                    abort.store(true, Ordering::Relaxed);
                    failure.get_or_insert(ToolError(message));
                }
            }
        }
    });
    bar.finish_and_clear();
    if totals.first.games() > 0 {
        print!("{}", report(&settings, &totals));
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The two players of one thread.
struct Seats {
    first: Player,
    second: Player,
}

impl Seats {
    fn new(settings: &Settings) -> Result<Seats, String> {
        Ok(Seats { first: Player::new(&settings.first)?, second: Player::new(&settings.second)? })
    }
}

/// One thread: takes the next game until none is left or the match is aborted.
fn worker(
    settings: &Settings,
    seats: Option<Seats>,
    next: &AtomicU32,
    abort: &AtomicBool,
    sender: &mpsc::Sender<Result<GameRecord, String>>,
    with_pgn: bool,
) {
    let mut seats = match seats.map_or_else(|| Seats::new(settings), Ok) {
        Ok(seats) => seats,
        Err(e) => {
            let _ = sender.send(Err(e));
            return;
        }
    };
    let mut openings = Openings::new();
    let mut last_opening: Option<(u32, Game)> = None;
    while !abort.load(Ordering::Relaxed) {
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= settings.games {
            break;
        }
        let pair = index / 2;
        let opening = match last_opening.take() {
            Some((p, moves)) if p == pair => moves,
            _ => openings.pick(settings.variant, derive_seed(settings.seed, 1, u64::from(pair))),
        };
        let result = play_game(settings, &mut seats, index, &opening, with_pgn);
        last_opening = Some((pair, opening));
        let failed = result.is_err();
        if sender.send(result).is_err() || failed {
            break;
        }
    }
}

/// Plays game `index` (0-based) of the match from the opening.
fn play_game(
    settings: &Settings,
    seats: &mut Seats,
    index: u32,
    opening: &Game,
    with_pgn: bool,
) -> Result<GameRecord, String> {
    let first_is_white = index.is_multiple_of(2);
    seats.first.new_game(derive_seed(settings.seed, 2, 2 * u64::from(index)))?;
    seats.second.new_game(derive_seed(settings.seed, 2, 2 * u64::from(index) + 1))?;
    let mut game = opening.clone();
    let ending = loop {
        if let Some(outcome) = game.outcome() {
            break Ending::Rules(outcome.reason);
        }
        if game.ply() >= MAX_PLIES {
            game.end(Outcome::draw(EndReason::Adjudication));
            break Ending::Adjudicated;
        }
        let mover = game.turn();
        let first_to_move = (mover == Color::White) == first_is_white;
        let player = if first_to_move { &mut seats.first } else { &mut seats.second };
        let forfeit = match player.play(&game, settings.budget)? {
            Turn::Move(m) => game.play(m).err().map(|_| Forfeit::IllegalMove),
            Turn::Forfeit(kind) => Some(kind),
        };
        if let Some(kind) = forfeit {
            let reason = match kind {
                Forfeit::Timeout => EndReason::Timeout,
                Forfeit::IllegalMove => EndReason::RulesInfraction,
                Forfeit::EngineDied => EndReason::Abandoned,
            };
            game.end(Outcome::win(!mover, reason));
            break Ending::Forfeit(kind, first_to_move);
        }
    };
    let outcome = game.outcome().unwrap_or(Outcome::draw(EndReason::Agreement));
    let (first, second) = (settings.first.to_string(), settings.second.to_string());
    let pgn = with_pgn.then(|| {
        let (white, black) = if first_is_white { (first, second) } else { (second, first) };
        let tags = PgnTags {
            event: "gambit match".into(),
            site: "?".into(),
            date: today(),
            round: (index + 1).to_string(),
            white,
            black,
        };
        write_pgn(&game, &tags)
    });
    Ok(GameRecord { number: index + 1, first_is_white, outcome, ending, pgn })
}

/// The report printed on stdout.
fn report(settings: &Settings, totals: &Totals) -> String {
    let (first, second) = (settings.first.to_string(), settings.second.to_string());
    let t = totals.first;
    let played = t.games();
    let stopped = if played < settings.games { format!(" (of {} planned)", settings.games) } else { String::new() };
    let budget = match settings.budget.nodes {
        Some(nodes) => format!("{nodes} nodes a move"),
        None => format!("movetime {} ms", settings.budget.movetime.as_millis()),
    };
    let mut out = format!(
        "{first} vs {second}, {}, {played} {}{stopped}, {budget}, seed {}\n",
        settings.variant,
        plural(played, "game", "games").1,
        settings.seed
    );
    out += &format!(
        "{first}: {}, {}, {} (W/D/L {}/{}/{}), score {:.1}%\n",
        counted(t.wins, "win", "wins"),
        counted(t.draws, "draw", "draws"),
        counted(t.losses, "loss", "losses"),
        t.wins,
        t.draws,
        t.losses,
        100.0 * t.score()
    );
    let (elo, low, high) = t.elo();
    out += &format!("Elo difference: {} (95% interval {} .. {})\n", format_elo(elo), format_elo(low), format_elo(high));
    let (w, b) = (totals.first_as_white, totals.first_as_black);
    out += &format!(
        "{first} as white: W/D/L {}/{}/{}; as black: W/D/L {}/{}/{}\n",
        w.wins, w.draws, w.losses, b.wins, b.draws, b.losses
    );
    let endings: Vec<String> = totals
        .endings
        .iter()
        .map(|(&rank, n)| format!("{} {n}", ENDING_ORDER.get(rank).copied().unwrap_or("other")))
        .collect();
    out += &format!("Endings: {}\n", endings.join(", "));
    if totals.forfeits.iter().any(|&n| n > 0) {
        out += &format!("Forfeits: {first} {}, {second} {}\n", totals.forfeits[0], totals.forfeits[1]);
    }
    out
}

/// `(n, "win")` or `(n, "wins")`.
fn plural(n: u32, one: &'static str, many: &'static str) -> (u32, &'static str) {
    (n, if n == 1 { one } else { many })
}

fn counted(n: u32, one: &'static str, many: &'static str) -> String {
    let (n, word) = plural(n, one, many);
    format!("{n} {word}")
}

/// Writes games to the PGN file in game order, each as soon as all earlier ones are written.
struct PgnWriter {
    path: PathBuf,
    file: BufWriter<File>,
    pending: BTreeMap<u32, String>,
    next: u32,
}

impl PgnWriter {
    fn create(path: &Path) -> Result<PgnWriter, ToolError> {
        let file =
            File::create(path).map_err(|e| ToolError(format!("cannot write PGN file {}: {e}", path.display())))?;
        Ok(PgnWriter { path: path.to_path_buf(), file: BufWriter::new(file), pending: BTreeMap::new(), next: 1 })
    }

    fn add(&mut self, number: u32, text: String) -> Result<(), ToolError> {
        self.pending.insert(number, text);
        while let Some(text) = self.pending.remove(&self.next) {
            let separator = if self.next > 1 { "\n" } else { "" };
            write!(self.file, "{separator}{text}")
                .and_then(|()| self.file.flush())
                .map_err(|e| ToolError(format!("cannot write PGN file {}: {e}", self.path.display())))?;
            self.next += 1;
        }
        Ok(())
    }
}

/// A seed for one purpose (`stream`: 1 openings, 2 players) and one item, from the match seed.
fn derive_seed(seed: u64, stream: u64, index: u64) -> u64 {
    splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ index)
}

/// The SplitMix64 finaliser: a fast, well-mixing map from u64 to u64.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Today's date (UTC) as PGN writes it, `YYYY.MM.DD`.
fn today() -> String {
    crate::chess::pgn_date(SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_pgn_shaped() {
        let date = today();
        assert_eq!(date.len(), 10);
        assert_eq!(date.matches('.').count(), 2);
    }

    #[test]
    fn seeds_differ_by_stream_and_index() {
        assert_ne!(derive_seed(1, 1, 0), derive_seed(1, 2, 0));
        assert_ne!(derive_seed(1, 1, 0), derive_seed(1, 1, 1));
        assert_eq!(derive_seed(7, 2, 3), derive_seed(7, 2, 3));
    }
}
