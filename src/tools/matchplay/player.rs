//! The players of a match: what a SPEC names, and the bot, agent or engine behind it.

use std::fmt;
use std::time::Duration;

use crate::bots::agents::{agent, AGENTS};
use crate::bots::search::Skill;
use crate::bots::{AlphaBeta, Bot, Level, Limits};
use crate::chess::{Game, Move, Variant};
use crate::uci_client::{parse_command, CommandError, Engine, EngineConfig, Reply};

/// A player as named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spec {
    /// `level1` … `level12`.
    Level(Level),
    /// One of the CS3243 agents: `dummy`, `random`, `greedy`, `smart`, `minimax4`.
    Agent(&'static str),
    /// `uci:PATH[,Name=Value...]`: an external UCI engine.
    Uci(EngineConfig),
    /// `skill:DEPTH,LINES,WEAKNESS`: the engine weakened by hand, as levels 5–10 are
    /// ([`Skill`]). The calibration uses these as stepping stones between level 4 and level 5,
    /// whose strengths are too far apart to measure against each other.
    Skill(Skill),
    /// `gambit:PATH[,Name=Value...]` or `gambit:@REV[,...]`: another build of gambit, run as
    /// `gambit uci` with those options (`Level=7`), so that an A/B match needs no wrapper
    /// script. `binary` is the program once [`Spec::prepare`] has found or built it.
    Gambit { build: Build, options: Vec<(String, String)>, variant: Variant, binary: Option<String> },
}

/// Which gambit a `gambit:` player is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Build {
    /// A gambit binary on disk.
    File(String),
    /// The gambit of a commit (anything `git rev-parse` reads: a hash, a tag, `HEAD~3`), built
    /// once into `target/match-builds/HASH/` of this checkout.
    Commit(String),
}

impl Spec {
    /// Parses a SPEC; the error names what is wrong with it.
    pub fn parse(text: &str, variant: Variant) -> Result<Spec, String> {
        let expected = "expected level1..level12, dummy, random, greedy, smart, minimax4, skill:DEPTH,LINES,WEAKNESS, uci:PATH[,Name=Value...] or gambit:PATH|@COMMIT[,Name=Value...]";
        let trimmed = text.trim();
        if let Some(rest) = trimmed.strip_prefix("gambit:") {
            let (target, options) = parse_command(rest).map_err(|e| match e {
                CommandError::NoPath => format!(
                    "player {text:?} names no gambit: write gambit:PATH (a binary) or gambit:@COMMIT, e.g. gambit:@HEAD~1"
                ),
                CommandError::BadOption(part) => {
                    format!("bad option {part:?} in player {text:?}: expected Name=Value, e.g. Level=7")
                }
            })?;
            let build = match target.strip_prefix('@') {
                Some("") => return Err(format!("player {text:?} names no commit after @, e.g. gambit:@HEAD~1")),
                Some(rev) if rev.starts_with('-') || rev.chars().any(char::is_whitespace) => {
                    return Err(format!("{rev:?} in player {text:?} is not a commit"))
                }
                Some(rev) => Build::Commit(rev.to_string()),
                None => Build::File(target),
            };
            return Ok(Spec::Gambit { build, options, variant, binary: None });
        }
        if let Some(rest) = trimmed.strip_prefix("uci:") {
            return match parse_command(rest) {
                Ok((path, options)) => Ok(Spec::Uci(EngineConfig { path, args: Vec::new(), options, variant })),
                Err(CommandError::NoPath) => {
                    Err(format!("player {text:?} names no engine: write uci:PATH, e.g. uci:/usr/games/stockfish"))
                }
                Err(CommandError::BadOption(part)) => Err(format!(
                    "bad engine option {part:?} in player {text:?}: expected Name=Value, e.g. Skill Level=0"
                )),
            };
        }
        if let Some(rest) = trimmed.strip_prefix("skill:") {
            return parse_skill(rest).map(Spec::Skill).map_err(|why| format!("bad player {text:?}: {why}"));
        }
        // `level` and the number as written, so no sign and no leading zero.
        if let Some(number) = trimmed.strip_prefix("level").filter(|n| !n.starts_with(['0', '+'])) {
            if let Ok(level) = number.parse::<u8>().map_err(drop).and_then(|n| Level::new(n).map_err(drop)) {
                return Ok(Spec::Level(level));
            }
        }
        if let Some(name) = AGENTS.iter().find(|&&a| a == trimmed) {
            return Ok(Spec::Agent(name));
        }
        Err(format!("unknown player {text:?}: {expected}"))
    }

    /// True for the players that think for `--movetime`: levels 5–12 and engines.
    pub fn uses_movetime(&self) -> bool {
        match self {
            Spec::Level(level) => level.searches(),
            Spec::Agent(_) => false,
            Spec::Uci(_) | Spec::Skill(_) | Spec::Gambit { .. } => true,
        }
    }

    /// Finds (or, for a commit, builds) the program of a `gambit:` player; every other
    /// player is ready as it is. The error says what is missing.
    pub fn prepare(self) -> Result<Spec, String> {
        let Spec::Gambit { build, options, variant, binary: None } = self else { return Ok(self) };
        let binary = match &build {
            Build::File(path) if std::path::Path::new(path).is_file() => path.clone(),
            Build::File(path) => return Err(format!("gambit:{path}: no gambit binary there")),
            Build::Commit(rev) => super::builds::binary_at(rev)?,
        };
        Ok(Spec::Gambit { build, options, variant, binary: Some(binary) })
    }

    /// The UCI engine behind a prepared `gambit:` player.
    fn engine_config(&self) -> Option<EngineConfig> {
        match self {
            Spec::Uci(config) => Some(config.clone()),
            Spec::Gambit { options, variant, binary: Some(binary), .. } => Some(EngineConfig {
                path: binary.clone(),
                args: vec!["uci".to_string()],
                options: options.clone(),
                variant: *variant,
            }),
            _ => None,
        }
    }
}

/// The SPEC as written back: `level5`, `smart`, `uci:/usr/games/stockfish,Skill Level=0`.
impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spec::Level(level) => write!(f, "level{}", level.get()),
            Spec::Agent(name) => f.write_str(name),
            Spec::Skill(skill) => write!(f, "skill:{},{},{}", skill.depth, skill.lines, skill.weakness),
            Spec::Uci(config) => {
                write!(f, "uci:{}", config.path)?;
                write_options(f, &config.options)
            }
            Spec::Gambit { build, options, .. } => {
                match build {
                    Build::File(path) => write!(f, "gambit:{path}")?,
                    Build::Commit(rev) => write!(f, "gambit:@{rev}")?,
                }
                write_options(f, options)
            }
        }
    }
}

/// `,Name=Value` for each option.
fn write_options(f: &mut fmt::Formatter<'_>, options: &[(String, String)]) -> fmt::Result {
    options.iter().try_for_each(|(name, value)| write!(f, ",{name}={value}"))
}

/// The `DEPTH,LINES,WEAKNESS` of a `skill:` player.
fn parse_skill(text: &str) -> Result<Skill, String> {
    let usage =
        "expected skill:DEPTH,LINES,WEAKNESS with DEPTH 1-64, LINES 1-64 and WEAKNESS 0-128, e.g. skill:1,8,128";
    let numbers: Vec<Option<u32>> = text.split(',').map(|n| n.trim().parse().ok()).collect();
    match numbers[..] {
        [Some(depth @ 1..=64), Some(lines @ 1..=64), Some(weakness @ 0..=128)] => {
            Ok(Skill { depth, lines: lines as usize, weakness: weakness as i32 })
        }
        _ => Err(usage.to_string()),
    }
}

/// Why a player lost a game without being beaten on the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Forfeit {
    /// No move within the movetime plus the slack.
    Timeout,
    /// A move that is not legal (or no move at all while the game goes on).
    IllegalMove,
    /// The engine exited in the middle of the game.
    EngineDied,
}

impl Forfeit {
    pub const fn name(self) -> &'static str {
        match self {
            Forfeit::Timeout => "forfeit_timeout",
            Forfeit::IllegalMove => "forfeit_illegal_move",
            Forfeit::EngineDied => "forfeit_engine_died",
        }
    }
}

/// What a player did on its turn.
pub enum Turn {
    Move(Move),
    Forfeit(Forfeit),
}

/// A player ready to play: a bot (levels and agents, made afresh with each game's seed) or an
/// engine process (kept across games, told `ucinewgame`).
pub enum Player {
    Bot { spec: Spec, bot: Box<dyn Bot> },
    Engine(Box<Engine>),
}

impl Player {
    /// Makes the player; starting an engine can fail.
    pub fn new(spec: &Spec) -> Result<Player, String> {
        match spec.engine_config() {
            Some(config) => Ok(Player::Engine(Box::new(Engine::start(&config).map_err(|e| e.to_string())?))),
            None if matches!(spec, Spec::Gambit { .. }) => Err(format!("{spec}: not prepared (Spec::prepare)")),
            None => Ok(Player::Bot { spec: spec.clone(), bot: make_bot(spec, None) }),
        }
    }

    /// Gets ready for a game. Bots are rebuilt with the game's seed so that each game is
    /// reproducible however games are spread over threads.
    pub fn new_game(&mut self, seed: u64) -> Result<(), String> {
        match self {
            Player::Bot { spec, bot } => {
                *bot = make_bot(spec, Some(seed));
                Ok(())
            }
            Player::Engine(engine) => engine.new_game().map_err(|e| e.to_string()),
        }
    }

    /// The player's move in the game's position. Only an engine that cannot be restarted is an error.
    pub fn play(&mut self, game: &Game, budget: Budget) -> Result<Turn, String> {
        let pos = game.position();
        match self {
            Player::Bot { bot, .. } => {
                // A node budget alone: the same search whatever else the machine is doing.
                let limits = match budget.nodes {
                    Some(nodes) => Limits { nodes: Some(nodes), ..Limits::default() },
                    None => Limits { movetime: Some(budget.movetime), ..Limits::default() },
                };
                Ok(match bot.choose(game, &limits) {
                    Some(m) if pos.is_legal(m) => Turn::Move(m),
                    _ => Turn::Forfeit(Forfeit::IllegalMove),
                })
            }
            Player::Engine(engine) => {
                let reply = match budget.nodes {
                    Some(nodes) => engine.best_move_nodes(game, nodes, budget.movetime),
                    None => engine.best_move(game, budget.movetime),
                };
                Ok(match reply.map_err(|e| e.to_string())? {
                    Reply::BestMove(text) => match pos.parse_uci(&text) {
                        Ok(m) => Turn::Move(m),
                        Err(_) => Turn::Forfeit(Forfeit::IllegalMove),
                    },
                    Reply::TimedOut => Turn::Forfeit(Forfeit::Timeout),
                    Reply::Died => Turn::Forfeit(Forfeit::EngineDied),
                })
            }
        }
    }
}

/// What a searching player may spend on a move: `--movetime`, or `--nodes` if given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub movetime: Duration,
    pub nodes: Option<u64>,
}

fn make_bot(spec: &Spec, seed: Option<u64>) -> Box<dyn Bot> {
    match spec {
        Spec::Level(level) => level.bot(seed),
        // Spec::parse only makes Agent from AGENTS, so `agent` knows the name; level 1 is a
        // harmless stand-in that can never be reached.
        Spec::Agent(name) => agent(name, seed).unwrap_or_else(|| Level::ALL[0].bot(seed)),
        Spec::Skill(skill) => Box::new(AlphaBeta::new(seed).with_skill(Some(*skill))),
        Spec::Uci(_) | Spec::Gambit { .. } => Level::ALL[0].bot(seed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        for text in [
            "level1",
            "level8",
            "level10",
            "level11",
            "level12",
            "dummy",
            "random",
            "greedy",
            "smart",
            "minimax4",
            "skill:1,8,128",
        ] {
            assert_eq!(Spec::parse(text, Variant::Standard).unwrap().to_string(), text);
        }
        let spec = Spec::parse("uci:/usr/games/stockfish,Skill Level=0, Threads=1", Variant::Standard).unwrap();
        let Spec::Uci(config) = &spec else { panic!("{spec:?}") };
        assert_eq!(config.path, "/usr/games/stockfish");
        assert_eq!(config.options, [("Skill Level".into(), "0".into()), ("Threads".into(), "1".into())]);
        assert_eq!(spec.to_string(), "uci:/usr/games/stockfish,Skill Level=0,Threads=1");
        assert!(spec.uses_movetime());
        assert!(!Spec::parse("level4", Variant::Standard).unwrap().uses_movetime());
    }

    #[test]
    fn gambit_builds_parse_and_print_back() {
        for text in ["gambit:@HEAD~1", "gambit:@5ba6b6f,Level=7", "gambit:/tmp/gambit-old,Level=6,Hash=32"] {
            let spec = Spec::parse(text, Variant::Standard).unwrap();
            assert_eq!(spec.to_string(), text);
            assert!(spec.uses_movetime());
        }
        let Spec::Gambit { build, options, .. } = Spec::parse("gambit:@v1.0, Level = 7", Variant::Standard).unwrap()
        else {
            panic!("a gambit player")
        };
        assert_eq!((build, options), (Build::Commit("v1.0".into()), vec![("Level".into(), "7".into())]));
        for (bad, says) in [
            ("gambit:", "names no gambit"),
            ("gambit:@", "names no commit"),
            ("gambit:@--help", "is not a commit"),
            ("gambit:@HEAD,Level", "Name=Value"),
        ] {
            assert!(Spec::parse(bad, Variant::Standard).unwrap_err().contains(says), "{bad}");
        }
        let missing = Spec::parse("gambit:/nonexistent/gambit", Variant::Standard).unwrap().prepare();
        assert_eq!(missing.unwrap_err(), "gambit:/nonexistent/gambit: no gambit binary there");
        // Unprepared, it is no player at all.
        let unprepared = Spec::parse("gambit:/bin/true", Variant::Standard).unwrap();
        assert!(Player::new(&unprepared).is_err());
    }

    #[test]
    fn bad_specs_say_why() {
        let err = Spec::parse("level13", Variant::Standard).unwrap_err();
        assert_eq!(
            err,
            "unknown player \"level13\": expected level1..level12, dummy, random, greedy, smart, minimax4, skill:DEPTH,LINES,WEAKNESS, uci:PATH[,Name=Value...] or gambit:PATH|@COMMIT[,Name=Value...]"
        );
        for bad in [
            "",
            "level",
            "level0",
            "level+5",
            "level05",
            "level010",
            "level 5",
            "level256",
            "minimax",
            "stockfish",
            "Level1",
        ] {
            assert!(Spec::parse(bad, Variant::Standard).unwrap_err().starts_with("unknown player"), "{bad}");
        }
        for bad in
            ["skill:", "skill:1,8", "skill:0,8,10", "skill:1,8,129", "skill:1,0,10", "skill:a,b,c", "skill:1,8,10,2"]
        {
            assert!(Spec::parse(bad, Variant::Standard).unwrap_err().contains("expected skill:DEPTH"), "{bad}");
        }
        assert!(Spec::parse("uci:", Variant::Standard).unwrap_err().contains("names no engine"));
        assert!(Spec::parse("uci:/bin/x,Skill Level", Variant::Standard).unwrap_err().contains("Name=Value"));
        assert!(Spec::parse("uci:/bin/x,=3", Variant::Standard).unwrap_err().contains("Name=Value"));
    }
}
