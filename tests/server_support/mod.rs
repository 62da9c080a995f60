//! Helpers for the server tests: a real server on 127.0.0.1:0 and real WebSocket clients,
//! every receive under a timeout so a hang fails the test instead of blocking it.

#![allow(dead_code)] // each test crate uses a different part

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use gambit::server::limits::AddressConfig;
use gambit::server::ServerConfig;

/// How long a test waits for any one message.
pub const TIMEOUT: Duration = Duration::from_secs(15);

/// A running server; dropping it shuts the server down.
pub struct Server {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Fast timings for tests: short bot thinking and bot-vs-bot pauses; per-address limits out
/// of the way, since every test client comes from 127.0.0.1 (tests/server/abuse.rs tests them).
pub fn test_config() -> ServerConfig {
    let mut config = ServerConfig::default();
    config.room.engine_movetime = Duration::from_millis(150);
    config.room.bot_delay = Duration::from_millis(10);
    config.room.watcher_batch = Duration::from_millis(50);
    config.per_address = AddressConfig {
        max_connections: 100_000,
        max_unfinished: 100_000,
        creates_per_minute: 100_000,
        resumes_per_minute: 100_000,
        chats_per_minute: 100_000,
    };
    config
}

pub async fn start() -> Server {
    start_with(test_config()).await
}

pub async fn start_with(config: ServerConfig) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let signal = async move {
            let _ = stopped.await;
        };
        if let Err(e) = gambit::server::serve_until(config, listener, signal).await {
            panic!("server failed: {e}");
        }
    });
    Server { addr, stop: Some(stop) }
}

impl Server {
    /// A server running elsewhere (another process) at `addr`; dropping this does not stop it.
    pub fn external(addr: SocketAddr) -> Server {
        Server { addr, stop: None }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn client(&self) -> Client {
        Client::connect(self.addr).await
    }

    /// A plain HTTP GET: status and body.
    pub async fn get(&self, path: &str) -> (u16, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = TcpStream::connect(self.addr).await.expect("connect");
        let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut response = Vec::new();
        tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut response)).await.expect("timeout").expect("read");
        let text = String::from_utf8_lossy(&response).to_string();
        let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
        (status, dechunk(&body))
    }
}

/// An HTTP answer: its status, its head (lower-cased header lines) and its body.
pub struct HttpAnswer {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl HttpAnswer {
    /// The body as JSON (Null if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The value of the first header `name` (lower case), if any.
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| l.strip_prefix(&format!("{name}: ")).map(str::to_string))
    }

    /// The session cookie's `name=value` from `Set-Cookie`, for the next requests' `Cookie`.
    pub fn cookie(&self) -> String {
        let set = self.header("set-cookie").expect("a Set-Cookie header");
        set.split(';').next().expect("cookie").trim().to_string()
    }
}

impl Server {
    /// Any HTTP request with these extra headers and body: the whole answer.
    pub async fn http(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> HttpAnswer {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = TcpStream::connect(self.addr).await.expect("connect");
        let mut request = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        let typed = headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("content-type"));
        if !body.is_empty() && typed {
            request.push_str(&format!("Content-Length: {}\r\n", body.len()));
        } else if !body.is_empty() {
            request.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
        } else if method == "POST" {
            request.push_str("Content-Length: 0\r\n");
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut response = Vec::new();
        tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut response)).await.expect("timeout").expect("read");
        let text = String::from_utf8_lossy(&response).to_string();
        let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let head = head.lines().map(|l| match l.split_once(": ") {
            Some((k, v)) => format!("{}: {v}", k.to_ascii_lowercase()),
            None => l.to_string(),
        });
        HttpAnswer { status, head: head.collect::<Vec<_>>().join("\n"), body: dechunk(body) }
    }

    /// `POST` of a JSON body.
    pub async fn post(&self, path: &str, headers: &[(&str, &str)], body: Value) -> HttpAnswer {
        self.http("POST", path, headers, &body.to_string()).await
    }

    /// Signs `username` up with `password`: the session cookie (`gambit_session=…`).
    pub async fn sign_up(&self, username: &str, password: &str) -> String {
        let answer = self.post("/api/signup", &[], json!({"username": username, "password": password})).await;
        assert_eq!(answer.status, 200, "sign up {username}: {}", answer.body);
        answer.cookie()
    }

    /// A WebSocket client sending these headers on the upgrade (a cookie, an origin).
    pub async fn client_with(&self, headers: &[(&str, &str)]) -> Result<Client, u16> {
        Client::connect_with(self.addr, headers).await
    }
}

/// The text of the file at `path` once it contains `needle` (written by another task, such as
/// the text log), or as it is after 5 s.
pub async fn read_when_it_has(path: &std::path::Path, needle: &str) -> String {
    let mut text = String::new();
    for _ in 0..100 {
        text = std::fs::read_to_string(path).unwrap_or_default();
        if text.contains(needle) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    text
}

/// A fresh, empty directory for one test's files (a database, logs).
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gambit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A TCP connection to `addr` from the loopback address `source`.
pub async fn connect_tcp_from(addr: SocketAddr, source: std::net::IpAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket.bind(SocketAddr::new(source, 0)).expect("bind the source address");
    socket.connect(addr).await.expect("connect")
}

/// Undoes HTTP chunked encoding if the body looks chunked.
fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    loop {
        let Some((size, after)) = rest.split_once("\r\n") else { return body.to_string() };
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else { return body.to_string() };
        if n == 0 {
            return out;
        }
        if after.len() < n {
            return body.to_string();
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A WebSocket client speaking JSON. Like a real client it reads all the time (a task of its
/// own queues what arrives), so the server's pings are answered at once and the round trip it
/// measures for lag compensation is the network's, not how long a test took to read.
pub struct Client {
    sink: futures::stream::SplitSink<Socket, Message>,
    frames: tokio::sync::mpsc::UnboundedReceiver<Message>,
    reader: tokio::task::JoinHandle<()>,
    /// Messages `play` read while waiting for its ack, handed out by the next receives: an
    /// opponent's reply or a system line can come before the ack, and must not be lost.
    pending: VecDeque<Value>,
}

impl Drop for Client {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Client {
    /// A client on this socket, reading it from now on.
    fn over(ws: Socket) -> Client {
        let (sink, mut stream) = ws.split();
        let (tx, frames) = tokio::sync::mpsc::unbounded_channel();
        let reader = tokio::spawn(async move {
            while let Some(Ok(frame)) = stream.next().await {
                if tx.send(frame).is_err() {
                    break;
                }
            }
        });
        Client { sink, frames, reader, pending: VecDeque::new() }
    }

    pub async fn connect(addr: SocketAddr) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws")).await.expect("websocket connect");
        Client::over(ws)
    }

    /// Connects with these extra headers on the upgrade; the HTTP status if it is refused.
    pub async fn connect_with(addr: SocketAddr, headers: &[(&str, &str)]) -> Result<Client, u16> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        use tokio_tungstenite::tungstenite::http::HeaderValue;
        let mut request = format!("ws://{addr}/ws").into_client_request().expect("request");
        for (name, value) in headers {
            let name = tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(name.as_bytes()).expect("name");
            request.headers_mut().insert(name, HeaderValue::from_str(value).expect("header value"));
        }
        match tokio_tungstenite::connect_async(request).await {
            Ok((ws, _)) => Ok(Client::over(ws)),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => Err(response.status().as_u16()),
            Err(e) => panic!("websocket connect: {e}"),
        }
    }

    /// Connects from the loopback address `source` (any of 127.0.0.0/8), so the server sees
    /// another client address.
    pub async fn connect_from(addr: SocketAddr, source: std::net::IpAddr) -> Client {
        let stream = connect_tcp_from(addr, source).await;
        let (ws, _) = tokio_tungstenite::client_async(format!("ws://{addr}/ws"), MaybeTlsStream::Plain(stream))
            .await
            .expect("websocket connect");
        Client::over(ws)
    }

    /// Stops reading the socket (keeping it open): from now on the client answers no ping, as a
    /// peer that hung would. What was already queued can still be received.
    pub fn stop_reading(&mut self) {
        self.reader.abort();
    }

    pub async fn send(&mut self, message: Value) {
        self.send_text(&message.to_string()).await;
    }

    pub async fn send_text(&mut self, text: &str) {
        self.sink.send(Message::text(text)).await.expect("send");
    }

    pub async fn send_binary(&mut self, bytes: Vec<u8>) {
        self.sink.send(Message::binary(bytes)).await.expect("send");
    }

    /// The next message, whatever it is. Panics after the timeout.
    pub async fn recv(&mut self) -> Value {
        self.try_recv(TIMEOUT).await.expect("no message before the timeout")
    }

    /// The next message, or None if the connection closed or nothing came within `wait`.
    pub async fn try_recv(&mut self, wait: Duration) -> Option<Value> {
        if let Some(m) = self.pending.pop_front() {
            return Some(m);
        }
        loop {
            let frame = tokio::time::timeout(wait, self.frames.recv()).await.ok()??;
            match frame {
                Message::Text(text) => return Some(serde_json::from_str(&text).expect("server sent bad JSON")),
                Message::Close(_) => return None,
                _ => continue,
            }
        }
    }

    /// The next message that is not a watcher count, games list or seeks list.
    pub async fn recv_event(&mut self) -> Value {
        loop {
            let m = self.recv().await;
            if m["type"] != "watchers" && m["type"] != "games" && m["type"] != "seeks" {
                return m;
            }
        }
    }

    /// The next message other than watcher counts, lists and seat changes.
    pub async fn recv_news(&mut self) -> Value {
        loop {
            let m = self.recv_event().await;
            if m["type"] != "seats" {
                return m;
            }
        }
    }

    /// Skips messages until one of type `ty`.
    pub async fn recv_type(&mut self, ty: &str) -> Value {
        loop {
            let m = self.recv().await;
            if m["type"] == ty {
                return m;
            }
        }
    }

    /// Expects an error with this code next (skipping watcher counts, seats and games lists).
    pub async fn expect_error(&mut self, code: &str) -> Value {
        loop {
            let m = self.recv().await;
            if matches!(m["type"].as_str(), Some("watchers" | "games" | "seeks" | "seats" | "ack")) {
                continue;
            }
            assert_eq!(m["type"], "error", "expected error {code}, got {m}");
            assert_eq!(m["code"], code, "{m}");
            return m;
        }
    }

    /// Creates a game with these seats; returns (game, token).
    pub async fn create(&mut self, white: Value, black: Value, as_side: Option<&str>) -> (String, Option<String>) {
        self.send(json!({"type":"create","white":white,"black":black,"as":as_side})).await;
        let created = self.recv_type("created").await;
        let game = created["game"].as_str().expect("game id").to_string();
        (game, created["token"].as_str().map(str::to_string))
    }

    /// Plays `uci` in `game` and waits for its ack and its move event (they come by different
    /// paths, in either order); returns the event. Panics if the move is refused. What else came
    /// meanwhile (but lists and watcher counts) is kept, in order, for the next receives.
    pub async fn play(&mut self, game: &str, uci: &str) -> Value {
        self.send(json!({"type":"move","game":game,"uci":uci,"id":1})).await;
        let (mut acked, mut event, mut kept) = (false, None, Vec::new());
        while !acked || event.is_none() {
            let m = self.recv().await;
            match m["type"].as_str() {
                Some("move") if m["uci"] == uci && event.is_none() => event = Some(m),
                Some("ack") => acked = true,
                Some("error") => panic!("{uci} refused: {m}"),
                Some("watchers" | "games" | "seeks") => {}
                _ => kept.push(m),
            }
        }
        self.pending.extend(kept);
        event.expect("move event")
    }

    /// Sends a request and returns the answer to it: its `ack` or its `error` (skipping events).
    pub async fn answer(&mut self, mut request: Value) -> Value {
        request["id"] = json!(77);
        self.send(request).await;
        loop {
            let m = self.recv().await;
            if m["type"] == "ack" || (m["type"] == "error" && m["id"] == 77) {
                return m;
            }
        }
    }

    /// Joins a game; returns the token.
    pub async fn join(&mut self, game: &str, color: &str) -> String {
        self.send(json!({"type":"join","game":game,"color":color})).await;
        let joined = self.recv_type("joined").await;
        assert_eq!(joined["color"], color);
        joined["token"].as_str().expect("token").to_string()
    }

    /// Skips messages until the server's close frame: its code, or None if the connection ended
    /// without one (a reset, or nothing within the timeout).
    pub async fn recv_close_code(&mut self) -> Option<u16> {
        loop {
            let frame = tokio::time::timeout(TIMEOUT, self.frames.recv()).await.ok()??;
            match frame {
                Message::Close(frame) => return frame.map(|f| u16::from(f.code)),
                _ => continue,
            }
        }
    }

    pub async fn close(mut self) {
        let _ = self.sink.close().await;
    }
}

pub fn human() -> Value {
    json!({"kind":"human"})
}

pub fn bot(level: u8) -> Value {
    json!({"kind":"bot","level":level})
}

/// Creates a human game: returns (white client, black client, game id, white token, black token),
/// both clients past their initial `state` (and the seats event of the join).
pub async fn human_game(server: &Server) -> (Client, Client, String, String, String) {
    let mut white = server.client().await;
    let (game, token) = white.create(human(), human(), Some("white")).await;
    let white_token = token.expect("creator token");
    let state = white.recv_type("state").await;
    assert_eq!(state["status"], "waiting");
    let mut black = server.client().await;
    let black_token = black.join(&game, "black").await;
    let state = black.recv_type("state").await;
    assert_eq!(state["status"], "ongoing");
    let seats = white.recv_type("seats").await;
    assert_eq!(seats["seats"]["black"]["kind"], "human");
    (white, black, game, white_token, black_token)
}

/// Alice (white) and Bob (black), named, at one game between people, and Cy watching it under
/// his name; every client past its first messages.
pub struct Table {
    pub alice: Client,
    pub bob: Client,
    pub cy: Client,
    pub game: String,
    pub alice_token: String,
    pub bob_token: String,
}

pub async fn table(server: &Server) -> Table {
    let mut alice = server.client().await;
    alice.send(json!({"type":"create","white":human(),"black":human(),"as":"white","name":"Alice"})).await;
    let created = alice.recv_type("created").await;
    let game = created["game"].as_str().expect("id").to_string();
    let alice_token = created["token"].as_str().expect("token").to_string();
    alice.recv_type("state").await;
    let mut bob = server.client().await;
    bob.send(json!({"type":"join","game":game,"name":"Bob"})).await;
    let bob_token = bob.recv_type("joined").await["token"].as_str().expect("token").to_string();
    bob.recv_type("state").await;
    alice.recv_type("seats").await;
    let mut cy = server.client().await;
    assert_eq!(cy.answer(json!({"type":"watch","game":game,"name":"Cy"})).await["type"], "ack");
    Table { alice, bob, cy, game, alice_token, bob_token }
}

/// `gambit serve` as a child process on a free port, on the database `db` (an SQLite file's
/// path or a PostgreSQL URL), with more `args`.
pub struct Process {
    child: std::process::Child,
    pub server: Server,
}

impl Process {
    pub async fn start(db: &str, args: &[&str]) -> Process {
        Process::start_env(db, args, &[]).await
    }

    /// As `start`, with these environment variables set for the server (e.g. a fault point).
    pub async fn start_env(db: &str, args: &[&str], env: &[(&str, &str)]) -> Process {
        // The port is free now; the moment until the child binds it is short.
        let addr: SocketAddr =
            std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("free port");
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_gambit"))
            .args(["serve", "--listen", &addr.to_string(), "--db", db])
            .args(args)
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start gambit serve");
        // Owned at once, so the child is killed and reaped on every path (Drop).
        let process = Process { child, server: Server::external(addr) };
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(addr).await.is_ok() {
                return process;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("gambit serve did not start on {addr}");
    }

    /// Waits (up to `TIMEOUT`) for the server to stop by itself, as at a fault point: true if
    /// it died of a signal (an abort), not by exiting.
    pub async fn stopped_dead(mut self) -> bool {
        use std::os::unix::process::ExitStatusExt;
        let started = std::time::Instant::now();
        while started.elapsed() < TIMEOUT {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.signal().is_some();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the server did not stop at its fault point");
    }

    /// SIGKILL: no shutdown code runs.
    pub fn kill(mut self) {
        self.child.kill().expect("kill");
        self.child.wait().expect("wait");
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
