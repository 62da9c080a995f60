//! The `gambit` command line: parses arguments and calls the library.

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use gambit::chess::perft::perft;
use gambit::chess::{Move, Position, Variant};
use gambit::tools::{analyse, bot, loadtest, matchplay, uci, ToolError};

#[derive(Parser)]
#[command(name = "gambit", version, about = "A multiplayer chess server and the tools around it")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the game server: WebSocket play and watching, the JSON API, metrics
    Serve(Box<gambit::server::ServeArgs>),
    /// Play a game from the terminal: create one (against a friend or a bot) or join one
    Play(gambit::term::PlayArgs),
    /// Follow a game live from the terminal until it ends
    Watch(gambit::term::WatchArgs),
    /// List the open challenges (seeks) on a server; accept one with gambit play --accept SEEK
    Seeks(gambit::term::SeeksArgs),
    /// Count the leaf nodes of the legal move tree to a depth (the standard move generator check)
    Perft(PerftArgs),
    /// Print the move a bot level would play in a position, in UCI ("0000" if there is none)
    Bot(bot::BotArgs),
    /// Run as a UCI engine on stdin/stdout, for chess GUIs and tools
    Uci(uci::UciArgs),
    /// Play a match between two bots, agents or UCI engines and estimate the Elo difference
    Match(matchplay::MatchArgs),
    /// Analyse the games of a PGN file with the engine: annotated PGN ([%eval] comments, NAGs) on stdout
    Analyse(analyse::AnalyseArgs),
    /// Load-test a running server: spectator fan-out, many games at once, idle connections
    Loadtest(loadtest::LoadtestArgs),
}

#[derive(Args)]
struct PerftArgs {
    /// standard, chess960 or minichess7
    #[arg(long, default_value = "standard")]
    variant: Variant,
    /// Start from this position instead of the variant's initial one
    #[arg(long)]
    fen: Option<String>,
    /// Plies to search, 0 to 20
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(0..=20))]
    depth: u32,
    /// Print each legal root move with its count ("<uci>: <nodes>") before the total
    #[arg(long)]
    divide: bool,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if err.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            return fail("no command given; run `gambit --help` to see the commands");
        }
        Err(err) if !err.use_stderr() => {
            // --help and --version
            print!("{err}");
            return ExitCode::SUCCESS;
        }
        Err(err) => return fail(&one_line(&err.render().to_string())),
    };
    let outcome = match cli.command {
        Command::Serve(args) => {
            init_tracing();
            if let Err(err) = gambit::server::run(&args) {
                eprintln!("error: {err}");
                return ExitCode::from(err.exit_code());
            }
            Ok(())
        }
        Command::Play(args) => gambit::term::play(&args).map_err(|e| ToolError(e.to_string())),
        Command::Watch(args) => gambit::term::watch(&args).map_err(|e| ToolError(e.to_string())),
        Command::Seeks(args) => gambit::term::seeks(&args).map_err(|e| ToolError(e.to_string())),
        Command::Perft(args) => return run_perft(args),
        Command::Bot(args) => bot::run(&args).map(|m| println!("{m}")),
        Command::Uci(args) => uci::run(&args),
        Command::Match(args) => matchplay::run(&args),
        Command::Analyse(args) => analyse::run(&args),
        Command::Loadtest(args) => return run_loadtest(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(ToolError(message)) => fail(&message),
    }
}

/// Logs to stderr, filtered by RUST_LOG (default: info).
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi).with_writer(std::io::stderr).init();
}

/// Usage errors as one line: clap's message without its usage block.
fn one_line(message: &str) -> String {
    let cut = ["\n\nUsage:", "\n\nFor more information"]
        .iter()
        .filter_map(|marker| message.find(marker))
        .min()
        .unwrap_or(message.len());
    message[..cut].split_whitespace().collect::<Vec<_>>().join(" ")
}

fn fail(message: &str) -> ExitCode {
    let message = message.strip_prefix("error: ").unwrap_or(message);
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// Exit 0 when the run completed (whatever its figures), 1 when it could not be made (the
/// server is not there), 2 for a bad argument.
fn run_loadtest(args: &loadtest::LoadtestArgs) -> ExitCode {
    match loadtest::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}

fn run_perft(args: PerftArgs) -> ExitCode {
    let fen = args.fen.as_deref().unwrap_or(args.variant.initial_fen());
    let pos = match Position::from_fen(fen, args.variant) {
        Ok(pos) => pos,
        Err(err) => return fail(&format!("bad FEN: {err}")),
    };
    let root: Vec<Move> = pos.legal_moves().to_vec();
    let total = if args.depth == 0 {
        1
    } else {
        let counts = divide_in_parallel(&pos, &root, args.depth - 1);
        if args.divide {
            for (m, n) in root.iter().zip(&counts) {
                println!("{m}: {n}");
            }
        }
        counts.iter().sum()
    };
    println!("Nodes searched: {total}");
    ExitCode::SUCCESS
}

/// The subtree count below each root move, the root moves shared out over the machine's cores.
fn divide_in_parallel(pos: &Position, root: &[Move], below: u32) -> Vec<u64> {
    let next = AtomicUsize::new(0);
    let bar = ProgressBar::new(root.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} perft {pos}/{len} root moves [{elapsed_precise}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(root.len().max(1));
    let mut counts = vec![0u64; root.len()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    // Each worker takes the next root move until none is left.
                    let mut done = Vec::new();
                    while let Some(&m) = root.get(next.fetch_add(1, Ordering::Relaxed)) {
                        done.push((m, perft(&pos.after(m), below)));
                        bar.inc(1);
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            for (m, n) in worker.join().unwrap_or_default() {
                if let Some(i) = root.iter().position(|&r| r == m) {
                    counts[i] = n;
                }
            }
        }
    });
    bar.finish_and_clear();
    counts
}
