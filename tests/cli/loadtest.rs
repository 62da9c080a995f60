//! `gambit loadtest` against a real server started in this process: each scenario at a small
//! size through the real binary, checking its JSON figures (every move reached every follower,
//! latencies were recorded, memory was read), and the errors for bad arguments.

use crate::server_support;

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;
use tokio::process::Command;
use tokio::sync::Mutex;

use server_support::Server;

/// The scenarios run one at a time: the idle one reads this process's memory, which another
/// scenario running beside it would disturb; and the machine stays usable.
static SERIAL: Mutex<()> = Mutex::const_new(());

async fn gambit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gambit")).args(args).output().await.expect("run gambit")
}

fn ws_url(server: &Server) -> String {
    format!("ws://{}/ws", server.addr)
}

fn json_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("gambit-loadtest-{}-{name}.json", std::process::id()))
}

/// Runs a scenario with `--json` and returns its figures, after checking it exited 0.
async fn run_scenario(name: &str, args: &[&str]) -> Value {
    let path = json_path(name);
    let mut all: Vec<&str> = vec!["loadtest"];
    all.extend_from_slice(args);
    let path_text = path.to_string_lossy().to_string();
    all.extend_from_slice(&["--json", &path_text]);
    let out = gambit(&all).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{all:?}: {:?}\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("scenario"), "no table on stdout: {stdout}");
    let text = std::fs::read_to_string(&path).expect("JSON file written");
    let _ = std::fs::remove_file(&path);
    serde_json::from_str(&text).expect("the JSON file parses")
}

fn number(figures: &Value, pointer: &str) -> u64 {
    figures.pointer(pointer).and_then(Value::as_u64).unwrap_or_else(|| panic!("no {pointer} in {figures:#}"))
}

fn float(figures: &Value, pointer: &str) -> f64 {
    figures.pointer(pointer).and_then(Value::as_f64).unwrap_or_else(|| panic!("no {pointer} in {figures:#}"))
}

/// Every follower got every event, in order, with no error.
fn assert_nothing_lost(figures: &Value) {
    assert_eq!(number(figures, "/lost"), 0, "{figures:#}");
    assert_eq!(number(figures, "/out_of_order"), 0, "{figures:#}");
    assert_eq!(number(figures, "/resyncs"), 0, "{figures:#}");
    assert_eq!(figures["errors"], serde_json::json!({}), "{figures:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fanout_reaches_every_spectator() {
    let _serial = SERIAL.lock().await;
    let server = server_support::start().await;
    let url = ws_url(&server);
    let args = ["fanout", "--url", &url, "--spectators", "200", "--rate", "10", "--duration", "2", "--sources", "4"];
    let figures = run_scenario("fanout", &args).await;
    assert_eq!(figures["scenario"], "fanout");
    assert_eq!(number(&figures, "/connections/opened"), 202);
    assert_eq!(number(&figures, "/connections/failed"), 0);
    assert_nothing_lost(&figures);
    let moves = number(&figures, "/moves_sent");
    assert!(moves >= 10, "{figures:#}");
    // Each spectator timed each move; each move was acknowledged and seen by the opponent.
    assert_eq!(number(&figures, "/latency/move_to_spectator/count"), moves * 200);
    assert_eq!(number(&figures, "/latency/move_to_ack/count"), moves);
    assert_eq!(number(&figures, "/latency/move_to_opponent/count"), moves);
    let p50 = float(&figures, "/latency/move_to_spectator/p50_ms");
    let p99 = float(&figures, "/latency/move_to_spectator/p99_ms");
    let max = float(&figures, "/latency/move_to_spectator/max_ms");
    assert!(0.0 < p50 && p50 <= p99 && p99 <= max, "{figures:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_are_played_and_followed() {
    let _serial = SERIAL.lock().await;
    let server = server_support::start().await;
    let url = ws_url(&server);
    let args =
        ["games", "--url", &url, "--games", "20", "--spectators", "2", "--interval-ms", "100", "--duration", "2"];
    let figures = run_scenario("games", &args).await;
    assert_eq!(figures["scenario"], "games");
    assert_eq!(number(&figures, "/games"), 20);
    assert_eq!(number(&figures, "/connections/opened"), 80);
    assert!(number(&figures, "/games_started") >= 20, "{figures:#}");
    assert_nothing_lost(&figures);
    let moves = number(&figures, "/moves_sent");
    assert!(moves >= 100, "{figures:#}");
    assert!(float(&figures, "/moves_per_sec") > 0.0);
    assert_eq!(number(&figures, "/latency/move_to_ack/count"), moves);
    assert_eq!(number(&figures, "/latency/move_to_opponent/count"), moves);
    assert_eq!(number(&figures, "/latency/move_to_spectator/count"), moves * 2);
    assert!(float(&figures, "/latency/move_to_ack/p99_ms") > 0.0);
    // Events: each move reaches both players and both spectators, plus seats and ends.
    assert!(number(&figures, "/events_received") >= moves * 4, "{figures:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_have_their_memory_read() {
    let _serial = SERIAL.lock().await;
    let server = server_support::start().await;
    let url = ws_url(&server);
    // The server runs in this process, so its pid is ours.
    let pid = std::process::id().to_string();
    let args = ["idle", "--url", &url, "--connections", "200", "--server-pid", &pid, "--hold", "0"];
    let figures = run_scenario("idle", &args).await;
    assert_eq!(figures["scenario"], "idle");
    assert_eq!(number(&figures, "/connections/opened"), 200);
    assert!(number(&figures, "/rss_before_bytes") > 0, "{figures:#}");
    assert!(number(&figures, "/rss_after_bytes") > 0, "{figures:#}");
    assert!(float(&figures, "/bytes_per_connection") > 0.0, "{figures:#}");
    assert_eq!(figures["errors"], serde_json::json!({}), "{figures:#}");
}

/// Exit code and the stderr text of a run expected to fail.
async fn failure(args: &[&str]) -> (i32, String) {
    let out = gambit(args).await;
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line expected: {stderr}");
    (out.status.code().unwrap_or(-1), stderr)
}

#[tokio::test]
async fn bad_arguments_are_refused() {
    let (code, stderr) = failure(&["loadtest", "fanout", "--spectators", "0"]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--spectators"), "{stderr}");
    let (code, stderr) = failure(&["loadtest", "games", "--games", "5", "--url", "http://127.0.0.1:8080/ws"]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("ws://"), "{stderr}");
    let (code, stderr) = failure(&["loadtest", "fanout", "--spectators", "5", "--rate", "0"]).await;
    assert_eq!(code, 2, "{stderr}");
    let (code, stderr) = failure(&["loadtest", "idle", "--connections", "10"]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--server-pid"), "{stderr}");
}

#[tokio::test]
async fn an_absent_server_is_one_clear_error() {
    // Bind a port and let it go, so that nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let url = format!("ws://127.0.0.1:{port}/ws");
    let (code, stderr) = failure(&["loadtest", "fanout", "--url", &url, "--spectators", "5", "--duration", "1"]).await;
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("cannot reach the server"), "{stderr}");
    // A process that does not exist is a bad argument.
    let (code, stderr) = failure(&["loadtest", "idle", "--url", &url, "--connections", "5", "--server-pid", "0"]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("process 0"), "{stderr}");
}
