//! The text log: follows a game like a spectator (not counted as a watcher) and appends one
//! line per event to `<log-dir>/<game>.log`, for people to read or `tail -f`.
//!
//! ```text
//! 2025-01-31 18:04:05Z v3 white 2. Nf3 (g1f3)
//! 2025-01-31 18:04:09Z v8 end 0-1 by checkmate
//! ```

use std::path::PathBuf;
use std::time::SystemTime;

use tokio::io::AsyncWriteExt;
use tokio::sync::broadcast::error::RecvError;

use crate::chess::{MoveNumbers, Outcome, Position};
use crate::protocol::{GameId, GameState, OfferKind, SeatView, ServerMessage};
use crate::server::room::{Command, Reply, RoomHandle};

/// Starts logging `game` into `dir`. Failures are logged, never fatal to the game.
pub fn start(dir: PathBuf, game: GameId, handle: RoomHandle) {
    tokio::spawn(async move {
        if let Err(e) = run(dir, &game, handle).await {
            tracing::warn!(game = %game, error = %e, "text log stopped");
        }
    });
}

async fn run(dir: PathBuf, game: &str, handle: RoomHandle) -> std::io::Result<()> {
    tokio::fs::create_dir_all(&dir).await?;
    let path = dir.join(format!("{game}.log"));
    let mut file = tokio::fs::OpenOptions::new().create(true).append(true).open(&path).await?;
    // The start position, which the moves are numbered from; then, from version 0, every
    // event of the game, as long as the room still holds them all.
    let Ok(state) = handle.call(Command::State).await.and_then(Reply::into_state) else { return Ok(()) };
    let mut log = Log::default();
    log.learn_start(&state);
    let Ok(sub) = handle.call(Command::Observe { v: Some(0) }).await.and_then(Reply::into_subscription) else {
        return Ok(());
    };
    let mut rx = sub.rx;
    let mut seen = sub.v;
    for text in sub.initial {
        log.write(&mut file, &text).await?;
    }
    loop {
        match rx.recv().await {
            Ok(event) => {
                if event.v.is_some_and(|v| v <= seen) {
                    continue;
                }
                seen = event.v.unwrap_or(seen);
                log.write(&mut file, &event.text).await?;
            }
            Err(RecvError::Lagged(_)) => {
                let Ok((v, text)) = handle.call(Command::Snapshot).await.and_then(Reply::into_snapshot) else { break };
                seen = v;
                log.write(&mut file, &text).await?;
            }
            Err(RecvError::Closed) => break,
        }
    }
    file.flush().await
}

/// What the log remembers between lines: how the game's moves are numbered.
#[derive(Default)]
struct Log {
    numbers: MoveNumbers,
}

impl Log {
    async fn write(&mut self, file: &mut tokio::fs::File, event: &str) -> std::io::Result<()> {
        let Some(line) = self.describe(event) else { return Ok(()) };
        file.write_all(format!("{} {line}\n", timestamp(SystemTime::now())).as_bytes()).await
    }

    /// One line for an event: version, who, what. None for messages not worth a line.
    fn describe(&mut self, event: &str) -> Option<String> {
        let message: ServerMessage = serde_json::from_str(event).ok()?;
        if let ServerMessage::State(state) = &message {
            self.learn_start(state);
        }
        describe(&message, self.numbers)
    }

    /// Numbers moves from the start position of `state`'s game.
    fn learn_start(&mut self, state: &GameState) {
        if let Ok(start) = Position::from_fen(&state.initial_fen, state.variant.into()) {
            self.numbers = MoveNumbers::from_start(&start);
        }
    }
}

fn seat(view: &SeatView) -> String {
    match view {
        SeatView::Human { online: true, name, .. } => format!("human {name} (online)"),
        SeatView::Human { online: false, name, .. } => format!("human {name} (offline)"),
        SeatView::Bot { level, .. } => format!("bot level {level}"),
        SeatView::Engine(engine) => format!("engine {}", engine.label),
        SeatView::Open => "open".into(),
    }
}

fn kind(kind: OfferKind) -> &'static str {
    match kind {
        OfferKind::Draw => "a draw",
        OfferKind::Undo => "to take back",
        OfferKind::Rematch => "a rematch",
    }
}

/// One line for `message`, its moves numbered by `numbers`.
fn describe(message: &ServerMessage, numbers: MoveNumbers) -> Option<String> {
    Some(match message {
        ServerMessage::State(s) => format!(
            "v{} state: {} moves [{}], fen {}, white {}, black {}{}",
            s.v,
            s.moves.len(),
            s.san.join(" "),
            s.fen,
            seat(&s.seats.white),
            seat(&s.seats.black),
            s.result.map(|r| format!(", result {r}")).unwrap_or_default()
        ),
        ServerMessage::Move { v, uci, san, turn, ply, .. } => {
            let number = numbers.prefix(ply.saturating_sub(1));
            format!("v{v} {} {number} {san} ({uci})", turn.other().name())
        }
        ServerMessage::End { v, result, reason, .. } => {
            format!("v{v} end {result}: {}", Outcome { winner: result.winner(), reason: *reason }.headline())
        }
        ServerMessage::Offer { v, kind: k, by, .. } => format!("v{v} {} offers {}", by.name(), kind(*k)),
        ServerMessage::Declined { v, kind: k, by, .. } => {
            format!("v{v} {} declines {}'s offer of {}", by.other().name(), by.name(), kind(*k))
        }
        ServerMessage::Seats { v, seats, .. } => {
            format!("v{v} seats: white {}, black {}", seat(&seats.white), seat(&seats.black))
        }
        ServerMessage::Watchers { count, .. } => format!("watchers: {count}"),
        _ => return None,
    })
}

/// `YYYY-MM-DD HH:MM:SSZ` in UTC.
fn timestamp(at: SystemTime) -> String {
    humantime::format_rfc3339_seconds(at).to_string().replacen('T', " ", 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn dates() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01 00:00:00Z");
        assert_eq!(timestamp(UNIX_EPOCH + Duration::from_secs(951_782_400 + 3_661)), "2000-02-29 01:01:01Z");
    }

    #[test]
    fn lines() {
        let mut log = Log::default();
        let mv = r#"{"type":"move","game":"g","v":3,"uci":"g1f3","san":"Nf3","fen":"x","turn":"black","ply":3,"legal":[],"check":false,"clock":null}"#;
        assert_eq!(log.describe(mv).as_deref(), Some("v3 white 2. Nf3 (g1f3)"));
        let mv = r#"{"type":"move","game":"g","v":4,"uci":"d8h4","san":"Qh4#","fen":"x","turn":"white","ply":4,"legal":[],"check":true,"clock":null}"#;
        assert_eq!(log.describe(mv).as_deref(), Some("v4 black 2... Qh4# (d8h4)"));
        let end = r#"{"type":"end","game":"g","v":5,"result":"0-1","reason":"checkmate"}"#;
        assert_eq!(log.describe(end).as_deref(), Some("v5 end 0-1: Checkmate — Black wins"));
    }

    #[test]
    fn moves_are_numbered_from_a_custom_start() {
        let mut log = Log::default();
        let fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 3 12";
        let state = format!(
            r#"{{"type":"state","game":"g","v":0,"variant":"standard","initial_fen":"{fen}","fen":"{fen}","moves":[],"san":[],"turn":"black","status":"ongoing","result":null,"reason":null,"seats":{{"white":{{"kind":"open"}},"black":{{"kind":"open"}}}},"legal":[],"check":false,"clock":null,"watchers":0,"offer":null}}"#
        );
        assert!(log.describe(&state).is_some());
        let mv = r#"{"type":"move","game":"g","v":1,"uci":"e8d7","san":"Kd7","fen":"x","turn":"white","ply":1,"legal":[],"check":false,"clock":null}"#;
        assert_eq!(log.describe(mv).as_deref(), Some("v1 black 12... Kd7 (e8d7)"));
        let mv = r#"{"type":"move","game":"g","v":2,"uci":"e2e4","san":"e4","fen":"x","turn":"black","ply":2,"legal":[],"check":false,"clock":null}"#;
        assert_eq!(log.describe(mv).as_deref(), Some("v2 white 13. e4 (e2e4)"));
    }
}
