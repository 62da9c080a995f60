//! The floor under `gambit loadtest fanout` on a given machine: what plain loopback TCP costs
//! when one process sends a small frame to each of N sockets and another process, on the same
//! machine, receives them — no WebSocket, no JSON, no game, no server. gambit's fan-out figure
//! (docs/performance.md) cannot be better than this on the same machine; run the two side by
//! side to see how much of a fan-out's latency is the server's own.
//!
//!     cargo run --release --example fanout_floor -- 10000 30
//!
//! Arguments: connections (default 10,000), frames sent to every connection, one a second
//! (default 30). The sender and the receiver are both tokio multi-threaded runtimes, as the
//! server and `gambit loadtest` are; the frame is 300 bytes, about the size of a `move` event.

use std::net::SocketAddr;
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{broadcast, mpsc};

const FRAME: usize = 300;

fn now_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as u64)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| match args.get(i) {
        None => Ok(default),
        Some(a) => a.parse::<usize>().ok().filter(|&n| n > 0).ok_or(format!("not a positive number: {a}")),
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("cannot start a tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The receiver is this program again, in its own process: `recv ADDRESS CONNECTIONS`.
    if args.first().map(String::as_str) == Some("recv") {
        let (Some(addr), Ok(n)) = (args.get(1).and_then(|a| a.parse().ok()), number(2, 0)) else {
            eprintln!("usage: fanout_floor recv ADDRESS CONNECTIONS");
            return ExitCode::from(2);
        };
        return runtime.block_on(receive(addr, n));
    }
    let (connections, frames) = match (number(0, 10_000), number(1, 30)) {
        (Ok(c), Ok(f)) => (c, f),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("{e}\nusage: fanout_floor [CONNECTIONS] [FRAMES]");
            return ExitCode::from(2);
        }
    };
    runtime.block_on(send(connections, frames))
}

/// Accepts `connections` sockets, one task each fed by a broadcast channel, as gambit's writers
/// are, then sends one timestamped frame to all of them every second.
async fn send(connections: usize, frames: usize) -> ExitCode {
    let listener = match TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cannot listen on a loopback port: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (Ok(addr), Ok(exe)) = (listener.local_addr(), std::env::current_exe()) else {
        eprintln!("cannot find the listening address or this program's own path");
        return ExitCode::FAILURE;
    };
    let mut child = match Command::new(exe)
        .args(["recv", &addr.to_string(), &connections.to_string()])
        .stdout(Stdio::inherit())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot start the receiver: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (tx, _) = broadcast::channel::<Arc<[u8]>>(16);
    for _ in 0..connections {
        let Ok((mut socket, _)) = listener.accept().await else {
            eprintln!("accept failed (is the open-file limit above twice the connections?)");
            let _ = child.kill();
            return ExitCode::FAILURE;
        };
        let _ = socket.set_nodelay(true);
        let mut rx = tx.subscribe();
        tokio::spawn(async move {
            while let Ok(frame) = rx.recv().await {
                if socket.write_all(&frame).await.is_err() {
                    break;
                }
            }
        });
    }
    // A first frame, not counted, once every socket is up: the first write on a fresh connection
    // costs more than the steady state the figure is about (the loadtest, too, starts timing
    // only after the spectators have the game's state).
    tokio::time::sleep(Duration::from_secs(1)).await;
    let _ = tx.send(vec![0u8; FRAME].into());
    for _ in 0..frames {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let mut frame = vec![b'x'; FRAME];
        frame[..8].copy_from_slice(&now_us().to_le_bytes());
        let _ = tx.send(frame.into());
    }
    // Closing 10,000 sockets is a burst of its own: not while the last frame is on its way.
    tokio::time::sleep(Duration::from_secs(1)).await;
    drop(tx);
    match tokio::task::spawn_blocking(move || child.wait()).await {
        Ok(Ok(status)) if status.success() => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

/// Opens `n` connections, reads frames until the sender closes them, and prints the latency
/// of every frame: sender's clock at sending to receiver's clock at reading (one machine).
async fn receive(addr: SocketAddr, n: usize) -> ExitCode {
    let (tx, mut rx) = mpsc::unbounded_channel::<u64>();
    for _ in 0..n {
        let Ok(mut socket) = TcpStream::connect(addr).await else {
            eprintln!("connect failed");
            return ExitCode::FAILURE;
        };
        let tx = tx.clone();
        tokio::spawn(async move {
            let mut frame = [0u8; FRAME];
            while socket.read_exact(&mut frame).await.is_ok() {
                let mut stamp = [0u8; 8];
                stamp.copy_from_slice(&frame[..8]);
                let sent = u64::from_le_bytes(stamp);
                if sent > 0 {
                    let _ = tx.send(now_us().saturating_sub(sent));
                }
            }
        });
    }
    drop(tx);
    let mut latencies = Vec::new();
    while let Some(us) = rx.recv().await {
        latencies.push(us);
    }
    if latencies.is_empty() {
        eprintln!("no frames received");
        return ExitCode::FAILURE;
    }
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)] as f64 / 1000.0;
    println!(
        "connections {n}  frames {}  p50 {:.2} ms  p90 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
        latencies.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    );
    ExitCode::SUCCESS
}
