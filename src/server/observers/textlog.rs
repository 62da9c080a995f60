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

use crate::server::protocol::{GameId, OfferKind, SeatView, ServerMessage, Side};
use crate::server::room::RoomHandle;

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
    // From version 0: every event of the game, as long as the room still holds them all.
    let Ok(sub) = handle.observe(Some(0)).await else { return Ok(()) };
    let mut rx = sub.rx;
    let mut seen = sub.v;
    for text in sub.initial {
        write(&mut file, &text).await?;
    }
    loop {
        match rx.recv().await {
            Ok(event) => {
                if event.v.is_some_and(|v| v <= seen) {
                    continue;
                }
                seen = event.v.unwrap_or(seen);
                write(&mut file, &event.text).await?;
            }
            Err(RecvError::Lagged(_)) => {
                let Ok((v, text)) = handle.snapshot().await else { break };
                seen = v;
                write(&mut file, &text).await?;
            }
            Err(RecvError::Closed) => break,
        }
    }
    file.flush().await
}

async fn write(file: &mut tokio::fs::File, event: &str) -> std::io::Result<()> {
    let Some(line) = describe(event) else { return Ok(()) };
    file.write_all(format!("{} {line}\n", timestamp(SystemTime::now())).as_bytes()).await
}

fn seat(view: SeatView) -> String {
    match view {
        SeatView::Human { online: true } => "human (online)".into(),
        SeatView::Human { online: false } => "human (offline)".into(),
        SeatView::Bot { level } => format!("bot level {level}"),
        SeatView::Open => "open".into(),
    }
}

fn kind(kind: OfferKind) -> &'static str {
    match kind {
        OfferKind::Draw => "a draw",
        OfferKind::Undo => "to take back",
    }
}

/// One line for an event: version, who, what. None for messages that are not worth a line.
fn describe(event: &str) -> Option<String> {
    let message: ServerMessage = serde_json::from_str(event).ok()?;
    Some(match message {
        ServerMessage::State(s) => format!(
            "v{} state: {} moves [{}], fen {}, white {}, black {}{}",
            s.v,
            s.moves.len(),
            s.san.join(" "),
            s.fen,
            seat(s.seats.white),
            seat(s.seats.black),
            s.result.map(|r| format!(", result {r}")).unwrap_or_default()
        ),
        ServerMessage::Move { v, uci, san, turn, ply, .. } => {
            let mover = turn.other();
            let number = if mover == Side::White { format!("{}.", ply.div_ceil(2)) } else { format!("{}...", ply / 2) };
            format!("v{v} {} {number} {san} ({uci})", mover.name())
        }
        ServerMessage::End { v, result, reason, .. } => format!("v{v} end {result} by {}", reason.replace('_', " ")),
        ServerMessage::Offer { v, kind: k, by, .. } => format!("v{v} {} offers {}", by.name(), kind(k)),
        ServerMessage::Declined { v, kind: k, by, .. } => {
            format!("v{v} {} declines {}'s offer of {}", by.other().name(), by.name(), kind(k))
        }
        ServerMessage::Seats { v, seats, .. } => {
            format!("v{v} seats: white {}, black {}", seat(seats.white), seat(seats.black))
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
        let mv = r#"{"type":"move","game":"g","v":3,"uci":"g1f3","san":"Nf3","fen":"x","turn":"black","ply":3,"legal":[],"check":false,"clock":null}"#;
        assert_eq!(describe(mv).as_deref(), Some("v3 white 2. Nf3 (g1f3)"));
        let mv = r#"{"type":"move","game":"g","v":4,"uci":"d8h4","san":"Qh4#","fen":"x","turn":"white","ply":4,"legal":[],"check":true,"clock":null}"#;
        assert_eq!(describe(mv).as_deref(), Some("v4 black 2... Qh4# (d8h4)"));
        let end = r#"{"type":"end","game":"g","v":5,"result":"0-1","reason":"checkmate"}"#;
        assert_eq!(describe(end).as_deref(), Some("v5 end 0-1 by checkmate"));
    }
}
