//! `gambit loadtest failover`: how long a cluster's games stop when their node dies. G games are
//! created through the first server given (so that node owns them), white on it and black on
//! the others; the players move in turn; after the warm-up the tool kills the first server's
//! process (SIGKILL, `--kill-pid`). White's connections drop: each reconnects to the next
//! server and resumes its seat by token. For each game the figure is the time from the kill to
//! the first move accepted (acknowledged) after it.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use clap::Args;
use futures::{SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use serde::Serialize;
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

use super::client::{Connector, Ws};
use super::stats::{Latency, Stats};
use super::wire;
use super::CommonArgs;

/// `loadtest failover` arguments.
#[derive(Args, Debug, Clone)]
pub struct FailoverArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Games played through the node that is killed
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub games: u32,
    /// The process id of the first --url's server, killed with SIGKILL after the warm-up
    #[arg(long, value_name = "PID")]
    pub kill_pid: u32,
    /// Seconds of play before the kill
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub warmup: u64,
    /// Seconds after the kill to wait for every game to go on
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub wait: u64,
    /// Pause between one move and the next in each game, in milliseconds (each side moves
    /// every two of them)
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    pub interval_ms: u64,
}

/// The figures of a failover run.
#[derive(Clone, Debug, Serialize)]
pub struct FailoverReport {
    pub url: String,
    pub games: usize,
    /// Games that had a move accepted after the kill.
    pub recovered: usize,
    /// Games still stuck when the wait ran out.
    pub stuck: usize,
    /// Games that ended (or could not start) before the kill: not counted.
    pub left_out: usize,
    /// From the kill to each game's first move accepted after it.
    pub kill_to_first_move: Latency,
    /// What went wrong, by kind (a few expected while the game changes hands).
    pub errors: std::collections::BTreeMap<String, u64>,
}

impl std::fmt::Display for FailoverReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let l = &self.kill_to_first_move;
        writeln!(f, "scenario        failover")?;
        writeln!(f, "servers         {}", self.url)?;
        writeln!(
            f,
            "games           {} ({} recovered, {} stuck, {} left out)",
            self.games, self.recovered, self.stuck, self.left_out
        )?;
        writeln!(
            f,
            "kill -> move    p50 {:.0} ms  p99 {:.0} ms  max {:.0} ms  ({} games)",
            l.p50_ms, l.p99_ms, l.max_ms, l.count
        )?;
        for (kind, n) in &self.errors {
            writeln!(f, "error           {kind}: {n}")?;
        }
        Ok(())
    }
}

/// How one game's run ended.
enum Outcome {
    /// The first move accepted after the kill came this long after it.
    Recovered(Duration),
    Stuck,
    LeftOut,
}

/// Runs the scenario.
pub async fn run(args: &FailoverArgs, connector: &Connector, stats: Arc<Stats>) -> Result<FailoverReport, String> {
    if connector.servers() < 2 {
        return Err("failover needs at least two --url: the node to kill first, then the survivors".into());
    }
    let killed_at: Arc<OnceLock<Instant>> = Arc::new(OnceLock::new());
    let deadline = Instant::now() + Duration::from_secs(args.warmup + args.wait);
    let connector = Arc::new(connector.clone());
    let mut tasks = Vec::new();
    for i in 0..args.games as usize {
        let game = GameRun {
            i,
            connector: connector.clone(),
            killed_at: killed_at.clone(),
            deadline,
            interval: Duration::from_millis(args.interval_ms),
            stats: stats.clone(),
            rng: rand::rngs::SmallRng::seed_from_u64(i as u64),
        };
        tasks.push(tokio::spawn(game.run()));
        // Spread the creates a little, as people would.
        if i % 20 == 19 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    tokio::time::sleep(Duration::from_secs(args.warmup)).await;
    let killed = std::process::Command::new("kill").args(["-KILL", &args.kill_pid.to_string()]).status();
    let _ = killed_at.set(Instant::now());
    if !killed.is_ok_and(|s| s.success()) {
        return Err(format!("could not kill process {}", args.kill_pid));
    }
    let mut times = Vec::new();
    let (mut stuck, mut left_out) = (0, 0);
    for task in tasks {
        match task.await {
            Ok(Outcome::Recovered(t)) => times.push(t),
            Ok(Outcome::Stuck) => stuck += 1,
            Ok(Outcome::LeftOut) | Err(_) => left_out += 1,
        }
    }
    Ok(FailoverReport {
        url: args.common.url(),
        games: args.games as usize,
        recovered: times.len(),
        stuck,
        left_out,
        kill_to_first_move: Latency::of_durations(&times)
            .map_err(|e| format!("cannot make the latency histogram: {e}"))?,
        errors: stats.errors(),
    })
}

/// One game: its two players' connections and what they know of the game.
struct GameRun {
    i: usize,
    connector: Arc<Connector>,
    killed_at: Arc<OnceLock<Instant>>,
    deadline: Instant,
    interval: Duration,
    stats: Arc<Stats>,
    rng: rand::rngs::SmallRng,
}

/// A seat: its connection (None while lost), server, token.
struct Player {
    ws: Option<Ws>,
    server: usize,
    token: String,
}

/// What the players know of the game: the last version seen, whose turn, the legal moves.
#[derive(Default)]
struct View {
    v: u64,
    white_to_move: bool,
    legal: Vec<String>,
    over: bool,
}

impl View {
    fn update(&mut self, m: &Value) {
        let v = m["v"].as_u64().unwrap_or(0);
        match m["type"].as_str() {
            Some("state" | "move") if v > self.v => {
                self.v = v;
                self.white_to_move = m["turn"] == "white";
                self.legal = m["legal"]
                    .as_array()
                    .map_or_else(Vec::new, |l| l.iter().filter_map(|u| u.as_str().map(str::to_string)).collect());
                self.over = m["status"] == "ended";
            }
            Some("end") => self.over = true,
            _ => {}
        }
    }
}

/// The next text message on `ws` as JSON; None when the connection is gone or nothing came.
async fn next(ws: &mut Ws, wait: Duration) -> Option<Value> {
    loop {
        match tokio::time::timeout(wait, ws.next()).await.ok()?? {
            Ok(Message::Text(text)) => return serde_json::from_str(&text).ok(),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

impl GameRun {
    async fn run(mut self) -> Outcome {
        let Some((game, mut white, mut black, mut view)) = self.start().await else { return Outcome::LeftOut };
        let mut id = 10;
        while Instant::now() < self.deadline {
            if view.over || view.legal.is_empty() {
                return if self.killed_at.get().is_some() { Outcome::Stuck } else { Outcome::LeftOut };
            }
            let uci = view.legal[self.rng.random_range(0..view.legal.len())].clone();
            let sent = Instant::now();
            let player = if view.white_to_move { &mut white } else { &mut black };
            id += 1;
            match self.play(player, &game, &uci, id, &mut view).await {
                Some(true) => {
                    if let Some(&killed) = self.killed_at.get() {
                        if sent >= killed {
                            return Outcome::Recovered(Instant::now().duration_since(killed));
                        }
                    }
                    tokio::time::sleep(self.interval).await;
                }
                // Refused (the game is changing hands): look at the game afresh and go on.
                Some(false) => tokio::time::sleep(Duration::from_millis(100)).await,
                None => self.reconnect(player, &game, &mut view).await,
            }
        }
        Outcome::Stuck
    }

    /// Creates the game on the first server and seats black on another.
    async fn start(&mut self) -> Option<(String, Player, Player, View)> {
        let servers = self.connector.servers();
        let mut white_ws = self.connector.connect_to(0, self.i).await.ok()?;
        white_ws.send(Message::text(wire::create(1))).await.ok()?;
        let (game, token) = loop {
            let m = next(&mut white_ws, Duration::from_secs(15)).await?;
            if m["type"] == "created" {
                break (m["game"].as_str()?.to_string(), m["token"].as_str()?.to_string());
            }
        };
        let black_server = 1 + self.i % (servers - 1);
        let mut black_ws = self.connector.connect_to(black_server, self.i).await.ok()?;
        black_ws.send(Message::text(wire::join(&game, 2))).await.ok()?;
        let mut view = View::default();
        let mut black_token = None;
        // `joined`, then the state as of the join.
        while black_token.is_none() || view.legal.is_empty() {
            let m = next(&mut black_ws, Duration::from_secs(15)).await?;
            view.update(&m);
            if m["type"] == "joined" {
                black_token = Some(m["token"].as_str()?.to_string());
            }
        }
        let black_token = black_token?;
        let white = Player { ws: Some(white_ws), server: 0, token };
        let black = Player { ws: Some(black_ws), server: black_server, token: black_token };
        Some((game, white, black, view))
    }

    /// Plays `uci`: Some(true) once acknowledged, Some(false) if refused, None if the
    /// connection is gone.
    async fn play(&self, player: &mut Player, game: &str, uci: &str, id: u64, view: &mut View) -> Option<bool> {
        let ws = player.ws.as_mut()?;
        if ws.send(Message::text(wire::play(game, uci, id))).await.is_err() {
            player.ws = None;
            return None;
        }
        let wait_until = Instant::now() + Duration::from_secs(15);
        // The ack and the move's event (or a fresh state that has it) come in either order,
        // and a state rebuilt on another node can even come before the ack. Only the mover can
        // hand the turn over, so a newer view with the other side to move has the move.
        let (before, mover_white) = (view.v, view.white_to_move);
        let mut acked = false;
        while !(acked && (view.over || (view.v > before && view.white_to_move != mover_white))) {
            let left = wait_until.saturating_duration_since(Instant::now());
            let Some(m) = next(ws, left).await else {
                // Name the silence, so a slow recovery says what it waited for.
                if Instant::now() >= wait_until {
                    self.stats.error(if acked { "no_event_after_ack" } else { "no_answer" });
                }
                player.ws = None;
                return if acked { Some(true) } else { None };
            };
            view.update(&m);
            match m["type"].as_str() {
                Some("ack") if m["id"] == id => acked = true,
                Some("error") if m["id"] == id => {
                    self.stats.error(m["code"].as_str().unwrap_or("error"));
                    return Some(false);
                }
                _ => {}
            }
        }
        Some(true)
    }

    /// A lost seat: connect to the next server and resume by token, until it works or time runs out.
    async fn reconnect(&self, player: &mut Player, game: &str, view: &mut View) {
        let servers = self.connector.servers();
        while Instant::now() < self.deadline {
            player.server = (player.server + 1) % servers;
            let Ok(mut ws) = self.connector.connect_to(player.server, self.i).await else {
                self.stats.error("reconnect");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            };
            if ws.send(Message::text(wire::resume(game, &player.token))).await.is_err() {
                continue;
            }
            loop {
                let Some(m) = next(&mut ws, Duration::from_secs(15)).await else {
                    self.stats.error("no_answer_to_resume");
                    break;
                };
                view.update(&m);
                if m["type"] == "error" {
                    self.stats.error(m["code"].as_str().unwrap_or("error"));
                    break;
                }
                if m["type"] == "state" {
                    player.ws = Some(ws);
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
