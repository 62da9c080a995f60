//! `gambit bot`: one move from a bot level in a position, printed in UCI ("0000" if none).

use clap::Args;

use super::ToolError;
use crate::bots::{Level, Limits};
use crate::chess::{Game, Rules, Variant};

#[derive(Args, Debug)]
pub struct BotArgs {
    /// Bot level, 1 to 12
    #[arg(long)]
    pub level: Level,
    /// standard, chess960 or minichess7
    #[arg(long, default_value = "standard")]
    pub variant: Variant,
    /// Position to move in (default: the variant's initial position)
    #[arg(long)]
    pub fen: Option<String>,
    /// Seed for the bot's random choices, to make them reproducible
    #[arg(long, allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// Thinking time for levels 5–12 in milliseconds (levels 1–4 answer at once)
    #[arg(long, default_value_t = 1000, allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub movetime: u64,
}

/// The chosen move in UCI, or "0000" when there is no legal move.
pub fn run(args: &BotArgs) -> Result<String, ToolError> {
    let fen = args.fen.as_deref().unwrap_or(args.variant.initial_fen());
    let game = Game::from_fen(args.variant, fen, Rules::default()).map_err(|e| ToolError(format!("bad FEN: {e}")))?;
    let mut bot = args.level.bot(args.seed);
    let chosen = bot.choose(&game, &Limits::movetime(args.movetime));
    Ok(chosen.map_or_else(|| "0000".to_string(), |m| m.to_string()))
}
