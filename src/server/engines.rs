//! The external UCI engines a server offers as seats (`gambit serve --engine`): what each
//! spec says, what the engine announced when it was probed at startup, the strength settings
//! a seat may choose, and the engine configuration a seat's process is started with.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::chess::Variant;
use crate::protocol::{PlayerName, Refusal, VariantName};
use crate::uci_client::{parse_command, Engine, EngineConfig, EngineInfo, UciError};

/// The options a seat may choose: the engine's strength, nothing that costs the server more
/// (Hash, Threads) or touches its files (paths).
pub const STRENGTH_OPTIONS: [&str; 2] = ["Skill Level", "UCI_Elo"];

/// One `--engine "NAME=PATH[,Option=Value…]"`, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    pub name: String,
    pub path: String,
    /// Set on every process of this engine, in the order given.
    pub options: Vec<(String, String)>,
}

/// Why an `--engine` cannot be offered; `gambit serve` stops with it.
#[derive(Debug, thiserror::Error)]
pub enum EngineSpecError {
    #[error("--engine {0:?}: expected NAME=PATH[,Option=Value...], e.g. Stockfish=/usr/games/stockfish")]
    Syntax(String),
    #[error("--engine {spec:?}: the name is not a player name: {why}")]
    BadName { spec: String, why: crate::protocol::NameError },
    #[error("--engine {0:?} is given twice; each engine needs its own name")]
    Duplicate(String),
    #[error("--engine {name}: {source}")]
    Unusable { name: String, source: UciError },
}

/// Parses `NAME=PATH[,Option=Value…]` (clap's value parser for `--engine`).
pub fn parse_engine_spec(text: &str) -> Result<EngineSpec, EngineSpecError> {
    let syntax = || EngineSpecError::Syntax(text.to_string());
    let (name, rest) = text.split_once('=').ok_or_else(syntax)?;
    let name = PlayerName::parse(name)
        .map_err(|why| EngineSpecError::BadName { spec: text.to_string(), why })?
        .as_str()
        .to_string();
    let (path, options) = parse_command(rest).map_err(|_| syntax())?;
    Ok(EngineSpec { name, path, options })
}

/// A strength setting a seat may choose, as `GET /api/engines` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EngineSetting {
    pub name: String,
    pub min: i64,
    pub max: i64,
    pub default: i64,
}

/// An engine of `GET /api/engines`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EngineListing {
    pub name: String,
    pub variants: Vec<VariantName>,
    pub settings: Vec<EngineSetting>,
}

/// An engine the server offers: its spec and what it announced.
#[derive(Clone, Debug)]
pub struct ServerEngine {
    pub spec: EngineSpec,
    pub info: EngineInfo,
}

impl ServerEngine {
    fn listing(&self) -> EngineListing {
        let variants = Variant::ALL.into_iter().filter(|v| self.info.supports(*v)).map(VariantName::from).collect();
        EngineListing { name: self.spec.name.clone(), variants, settings: self.settings() }
    }

    /// The strength options the engine announced as spins with bounds.
    fn settings(&self) -> Vec<EngineSetting> {
        STRENGTH_OPTIONS
            .iter()
            .filter_map(|name| {
                let o = self.info.option(name)?;
                let (min, max) = (o.min?, o.max?);
                let default = o.default.as_deref().and_then(|d| d.parse().ok()).unwrap_or(max).clamp(min, max);
                (o.kind == "spin").then(|| EngineSetting { name: o.name.clone(), min, max, default })
            })
            .collect()
    }
}

/// The engines a server offers, in the order given.
#[derive(Clone, Debug, Default)]
pub struct Engines {
    list: Vec<ServerEngine>,
}

impl Engines {
    /// Starts each engine once to read its options and variants, then quits it. Blocks.
    pub fn probe(specs: &[EngineSpec]) -> Result<Engines, EngineSpecError> {
        let mut list: Vec<ServerEngine> = Vec::new();
        for spec in specs {
            if list.iter().any(|e| e.spec.name == spec.name) {
                return Err(EngineSpecError::Duplicate(spec.name.clone()));
            }
            let config = EngineConfig {
                path: spec.path.clone(),
                args: Vec::new(),
                options: spec.options.clone(),
                variant: Variant::Standard,
            };
            let info = Engine::probe(&config)
                .map_err(|source| EngineSpecError::Unusable { name: spec.name.clone(), source })?;
            list.push(ServerEngine { spec: spec.clone(), info });
        }
        Ok(Engines { list })
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// What `GET /api/engines` answers.
    pub fn listing(&self) -> Vec<EngineListing> {
        self.list.iter().map(ServerEngine::listing).collect()
    }

    pub fn get(&self, name: &str) -> Option<&ServerEngine> {
        self.list.iter().find(|e| e.spec.name == name)
    }

    /// The strength setting of a seat asking for engine `name` with `options` in `variant`,
    /// or why the server cannot give that seat.
    pub fn check_seat(
        &self,
        name: &str,
        options: &BTreeMap<String, serde_json::Value>,
        variant: Variant,
    ) -> Result<BTreeMap<String, i64>, Refusal> {
        let Some(engine) = self.get(name) else {
            let known: Vec<&str> = self.list.iter().map(|e| e.spec.name.as_str()).collect();
            return Err(Refusal::bad_engine_seat(format!(
                "there is no engine {name:?} on this server (engines: {})",
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            )));
        };
        if !engine.info.supports(variant) {
            return Err(Refusal::bad_engine_seat(format!(
                "{name} does not play {}",
                crate::uci_client::uci_variant_name(variant)
            )));
        }
        if options.len() > 1 {
            return Err(Refusal::bad_engine_seat("choose at most one strength setting (Skill Level or UCI_Elo)"));
        }
        let settings = engine.settings();
        let mut chosen = BTreeMap::new();
        for (option, value) in options {
            let Some(setting) = settings.iter().find(|s| s.name == *option) else {
                let allowed: Vec<&str> = settings.iter().map(|s| s.name.as_str()).collect();
                return Err(Refusal::bad_engine_seat(format!(
                    "{option:?} is not a strength setting of {name} (settings: {})",
                    if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") }
                )));
            };
            let Some(value) = value.as_i64() else {
                return Err(Refusal::bad_engine_seat(format!("{option} takes a whole number, not {value}")));
            };
            if !(setting.min..=setting.max).contains(&value) {
                return Err(Refusal::bad_engine_seat(format!(
                    "{option} of {name} goes from {} to {}; {value} is out of range",
                    setting.min, setting.max
                )));
            }
            chosen.insert(setting.name.clone(), value);
        }
        Ok(chosen)
    }

    /// How a seat's process of engine `name` is started: the spec's options, one thread
    /// unless the spec says otherwise (a seat must not take more CPUs than its permit), and
    /// the seat's strength (UCI_Elo only counts with UCI_LimitStrength on). None if the server
    /// no longer offers the engine (a game stored before a restart without it).
    pub fn config(&self, name: &str, strength: &BTreeMap<String, i64>, variant: Variant) -> Option<EngineConfig> {
        let engine = self.get(name)?;
        let mut options = engine.spec.options.clone();
        let given =
            |options: &[(String, String)], name: &str| options.iter().any(|(o, _)| o.eq_ignore_ascii_case(name));
        if !given(&options, "Threads") && engine.info.option("Threads").is_some() {
            options.push(("Threads".into(), "1".into()));
        }
        for (option, value) in strength {
            if option.eq_ignore_ascii_case("UCI_Elo") && engine.info.option("UCI_LimitStrength").is_some() {
                options.push(("UCI_LimitStrength".into(), "true".into()));
            }
            options.push((option.clone(), value.to_string()));
        }
        Some(EngineConfig { path: engine.spec.path.clone(), args: Vec::new(), options, variant })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        let spec = parse_engine_spec("Stockfish=/usr/games/stockfish,Hash=16, Threads = 2").unwrap();
        assert_eq!(spec.name, "Stockfish");
        assert_eq!(spec.path, "/usr/games/stockfish");
        assert_eq!(spec.options, [("Hash".into(), "16".into()), ("Threads".into(), "2".into())]);
        for bad in ["Stockfish", "=/usr/games/stockfish", "Stockfish=", "Bad/Name=/x", "S=/x,Hash"] {
            assert!(parse_engine_spec(bad).is_err(), "{bad}");
        }
    }
}
