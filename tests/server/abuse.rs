//! One client must not be able to exhaust the server: each attack of the hardening review,
//! reproduced against a real server (the real binary where memory, CPU, descriptors or the
//! database file are what is at stake), and the bound it must now stay within. Where an
//! honest client must still be served, it comes from another loopback address than the
//! attacker (127.0.0.2 attacks, 127.0.0.3 is honest). Every attack is bounded in count and time.

use crate::server_support;

use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use server_support::{bot, connect_tcp_from, human, scratch, start_with, test_config, Client, Server, TIMEOUT};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use gambit::server::limits::AddressConfig;

const ATTACKER: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));
const HONEST: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 3));
/// KiB in a MiB: RSS is read in KiB.
const MIB: u64 = 1024;

// ---- the real binary --------------------------------------------------------------------------

/// `gambit serve` as a child process on a free port, killed and reaped when dropped.
struct Served {
    child: Child,
    server: Server,
    stderr: PathBuf,
}

impl Served {
    /// Starts `gambit serve` with these extra arguments and `--db` in `dir`; with `nofile`, under
    /// that open-file limit (`ulimit -n`).
    async fn start(dir: &Path, args: &[&str], nofile: Option<u32>) -> Served {
        let addr: SocketAddr = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("free port");
        let db = dir.join("gambit.db");
        let stderr = dir.join(format!("serve-{}.log", addr.port()));
        let mut serve: Vec<String> =
            ["serve", "--listen", &addr.to_string(), "--db", db.to_str().expect("utf-8")].map(String::from).to_vec();
        serve.extend(args.iter().map(|a| a.to_string()));
        let mut command = match nofile {
            // The shell sets the limit and becomes the server (exec), so the pid is the server's.
            Some(n) => {
                let mut c = Command::new("sh");
                c.arg("-c").arg(format!("ulimit -n {n} && exec \"$0\" \"$@\"")).arg(env!("CARGO_BIN_EXE_gambit"));
                c.args(&serve);
                c
            }
            None => {
                let mut c = Command::new(env!("CARGO_BIN_EXE_gambit"));
                c.args(&serve);
                c
            }
        };
        let log = std::fs::File::create(&stderr).expect("log file");
        let child = command.stdout(Stdio::null()).stderr(log).spawn().expect("start gambit serve");
        let served = Served { child, server: Server::external(addr), stderr };
        for _ in 0..400 {
            if TcpStream::connect(addr).await.is_ok() {
                return served;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("gambit serve did not start on {addr}: {}", served.log());
    }

    fn addr(&self) -> SocketAddr {
        self.server.addr
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Resident memory now, in KiB.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).expect("proc status");
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
        line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("VmRSS value")
    }

    /// CPU time used so far (user + system), in clock ticks (1/100 s).
    fn cpu_ticks(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).expect("proc stat");
        // Fields after the command name (which is in parentheses and may hold spaces).
        let fields: Vec<&str> = stat.rsplit_once(')').expect("stat").1.split_whitespace().collect();
        let field = |i: usize| fields[i].parse::<u64>().expect("number");
        // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
        field(11) + field(12)
    }

    /// Stops the server with SIGTERM and waits for it.
    fn stop(mut self) {
        let _ = Command::new("kill").arg(self.pid().to_string()).status();
        let _ = self.child.wait();
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---- raw WebSocket frames -----------------------------------------------------------------------

/// A WebSocket spoken by hand, to send what a well-behaved client library would not.
struct RawWs {
    stream: TcpStream,
    buf: Vec<u8>,
}

/// One client frame: FIN set, masked with the all-zero key (so the payload goes as it is).
fn frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    assert!(payload.len() < 126);
    let mut out = vec![0x80 | opcode, 0x80 | payload.len() as u8, 0, 0, 0, 0];
    out.extend_from_slice(payload);
    out
}

impl RawWs {
    /// Opens a WebSocket from `source`, with a small receive buffer if asked.
    async fn open(addr: SocketAddr, source: IpAddr, recv_buffer: Option<u32>) -> RawWs {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        if let Some(size) = recv_buffer {
            socket.set_recv_buffer_size(size).expect("buffer size");
        }
        socket.bind(SocketAddr::new(source, 0)).expect("bind");
        let mut stream = socket.connect(addr).await.expect("connect");
        let request = format!(
            "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).await.expect("handshake");
        let mut ws = RawWs { stream, buf: Vec::new() };
        let head = ws.read_until_blank_line().await;
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        ws
    }

    async fn read_until_blank_line(&mut self) -> String {
        loop {
            if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.buf[..end]).to_string();
                self.buf.drain(..end + 4);
                return head;
            }
            self.fill().await.expect("response head");
        }
    }

    /// Reads more bytes; None once the connection has ended.
    async fn fill(&mut self) -> Option<()> {
        let mut chunk = [0u8; 16 * 1024];
        match tokio::time::timeout(TIMEOUT, self.stream.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => {
                self.buf.extend_from_slice(&chunk[..n]);
                Some(())
            }
            _ => None,
        }
    }

    /// The server's frames up to its close frame: the opcodes seen, and the close code (None
    /// when the connection ended without one).
    async fn frames_until_close(&mut self) -> (Vec<u8>, Option<u16>) {
        let mut opcodes = Vec::new();
        loop {
            while let Some((opcode, payload, used)) = parse_frame(&self.buf) {
                self.buf.drain(..used);
                opcodes.push(opcode);
                if opcode == 0x8 {
                    return (opcodes, (payload.len() >= 2).then(|| u16::from_be_bytes([payload[0], payload[1]])));
                }
            }
            if self.fill().await.is_none() {
                return (opcodes, None);
            }
        }
    }
}

/// A server frame at the start of `buf`: opcode, payload, bytes used.
fn parse_frame(buf: &[u8]) -> Option<(u8, Vec<u8>, usize)> {
    let (opcode, short) = (*buf.first()? & 0x0F, *buf.get(1)? & 0x7F);
    let (len, start) = match short {
        126 => (u16::from_be_bytes([*buf.get(2)?, *buf.get(3)?]) as usize, 4),
        127 => (u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?) as usize, 10),
        n => (n as usize, 2),
    };
    let payload = buf.get(start..start + len)?.to_vec();
    Some((opcode, payload, start + len))
}

/// Sends a raw HTTP request from `source` and returns the whole response.
async fn http_from(addr: SocketAddr, source: IpAddr, request: &str) -> String {
    let mut stream = connect_tcp_from(addr, source).await;
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut response = Vec::new();
    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut response)).await.expect("timeout").expect("read");
    String::from_utf8_lossy(&response).to_string()
}

fn get(path: &str, host: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
}

fn status_of(response: &str) -> u16 {
    response.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// A config with the per-address limits as shipped (the other tests raise them).
fn shipped_limits() -> gambit::server::ServerConfig {
    let mut config = test_config();
    config.per_address = AddressConfig::default();
    config
}

/// Reads messages until one of these types; panics if none comes within the timeout, however
/// many other messages do.
async fn recv_one_of(client: &mut Client, types: &[&str]) -> Value {
    let wanted = async {
        loop {
            let m = client.recv().await;
            if types.iter().any(|t| m["type"] == *t) {
                return m;
            }
        }
    };
    tokio::time::timeout(TIMEOUT, wanted).await.unwrap_or_else(|_| panic!("no {types:?} within {TIMEOUT:?}"))
}

// ---- 1. ping flood --------------------------------------------------------------------------

#[tokio::test]
async fn a_ping_flood_is_closed_with_1008_and_memory_stays_bounded() {
    let dir = scratch("abuse-pings");
    let server = Served::start(&dir, &[], None).await;
    let before = server.rss_kib();

    // A peer that floods pings but reads: its pongs, then a 1008 close.
    let mut reader = RawWs::open(server.addr(), ATTACKER, None).await;
    let pings: Vec<u8> = (0..200).flat_map(|_| frame(0x9, &[b'p'; 125])).collect();
    reader.stream.write_all(&pings).await.expect("pings");
    let (opcodes, code) = reader.frames_until_close().await;
    assert_eq!(code, Some(1008), "close code after {} frames", opcodes.len());
    let pongs = opcodes.iter().filter(|&&op| op == 0xA).count();
    assert!(pongs < 200, "all {pongs} pings were answered: the flood was not cut off");

    // A peer that floods pings and never reads (its receive buffer small, so the server's
    // pongs back up): the server cuts it off, and its memory hardly moves meanwhile.
    let mut flood = RawWs::open(server.addr(), ATTACKER, Some(4096)).await;
    let chunk: Vec<u8> = (0..1000).flat_map(|_| frame(0x9, &[b'f'; 125])).collect();
    let start = Instant::now();
    let (mut sent, mut peak, mut cut_off) = (0u64, before, false);
    while start.elapsed() < Duration::from_secs(10) {
        match tokio::time::timeout(Duration::from_millis(500), flood.stream.write_all(&chunk)).await {
            Ok(Ok(())) => sent += 1000,
            Ok(Err(_)) => {
                cut_off = true;
                break;
            }
            Err(_) => {} // blocked: the server is not reading; it should be closing us
        }
        peak = peak.max(server.rss_kib());
    }
    peak = peak.max(server.rss_kib());
    assert!(cut_off, "a peer that sent {sent} pings without reading is still connected after 10 s");
    let growth = peak.saturating_sub(before);
    println!("ping flood: {sent} pings sent before the cut-off; RSS {before} KiB -> peak {peak} KiB");
    assert!(growth < 64 * MIB, "RSS grew by {growth} KiB under a ping flood");

    // And the server still serves.
    assert_eq!(status_of(&http_from(server.addr(), HONEST, &get("/healthz", "127.0.0.1")).await), 200);
}

// ---- 2. engine memory ---------------------------------------------------------------

#[tokio::test]
async fn engine_games_from_one_address_hold_no_engine_tables() {
    let dir = scratch("abuse-engine");
    // The create limits raised, so the engine's own bound is what holds.
    let args = ["--creates-per-minute", "100000", "--max-games-per-ip", "100000"];
    let server = Served::start(&dir, &args, None).await;
    let before = server.rss_kib();
    let (mut created, mut peak) = (0u32, before);
    // 20 s in CI; GAMBIT_ABUSE_SECS=60 runs the review's full minute.
    let seconds = std::env::var("GAMBIT_ABUSE_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(20);
    let start = Instant::now();
    let mut client: Option<Client> = None;
    // Level 12 against level 12 on a one-second clock: games that end in seconds, as fast as
    // one address can make them (a new connection every 40 games: one follows at most 64).
    while start.elapsed() < Duration::from_secs(seconds) {
        let c = match &mut client {
            Some(c) => c,
            None => client.insert(Client::connect_from(server.addr(), ATTACKER).await),
        };
        let clock = json!({"initial_ms":1000,"increment_ms":0});
        c.send(json!({"type":"create","white":bot(12),"black":bot(12),"clock":clock})).await;
        let answer = recv_one_of(c, &["created", "error"]).await;
        if answer["type"] == "created" {
            created += 1;
            if created % 40 == 0 {
                client = None;
            }
        } else {
            // Its eight unfinished games, or its messages too fast for one connection.
            assert!(matches!(answer["code"].as_str(), Some("too_many" | "rate_limited")), "{answer}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        peak = peak.max(server.rss_kib());
    }
    let after = server.rss_kib();
    peak = peak.max(after);
    println!("level 12 games: {created} created in {seconds} s; RSS {before} KiB -> peak {peak} KiB, end {after} KiB");
    assert!(created >= 40, "only {created} games were made: the attack did not run");
    let growth = peak.saturating_sub(before);
    assert!(growth < 200 * MIB, "RSS grew by {growth} KiB with {created} level 12 games");
}

// ---- 3. the server-wide game cap ------------------------------------------------------------

#[tokio::test]
async fn one_address_cannot_fill_the_server_and_born_finished_games_are_refused() {
    let mut config = shipped_limits();
    config.max_rooms = 60;
    let server = start_with(config).await;
    let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    let mut codes: std::collections::BTreeMap<String, u32> = Default::default();
    let mut attackers = Vec::new();
    for _ in 0..10 {
        attackers.push(Client::connect_from(server.addr, ATTACKER).await);
    }
    // Ten connections, twenty creates each: finished positions and games left unplayed.
    for round in 0..20 {
        for c in &mut attackers {
            let fen = if round % 2 == 0 { json!(mated) } else { json!(null) };
            c.send(json!({"type":"create","fen":fen,"white":human(),"black":bot(1),"as":"white"})).await;
            let answer = recv_one_of(c, &["created", "error"]).await;
            let key = if answer["type"] == "created" { "created".to_string() } else { answer["code"].to_string() };
            *codes.entry(key).or_default() += 1;
        }
    }
    println!("attacker's 200 creates: {codes:?}");
    let made = codes.get("created").copied().unwrap_or(0);
    assert!(made <= 30, "{made} games from one address in a minute");
    assert!(codes.contains_key("\"game_over\""), "finished positions are refused: {codes:?}");
    assert!(codes.contains_key("\"rate_limited\""), "{codes:?}");
    let live: Vec<Value> = serde_json::from_str(&server.get("/api/games").await.1).expect("list");
    assert_eq!(live.len() as u32, made, "no born-finished game is held");

    // An honest client elsewhere creates and plays as usual.
    let mut honest = Client::connect_from(server.addr, HONEST).await;
    let (game, token) = honest.create(human(), bot(1), Some("white")).await;
    assert!(token.is_some());
    honest.send(json!({"type":"move","game":game,"uci":"e2e4","id":1})).await;
    assert_eq!(recv_one_of(&mut honest, &["ack", "error"]).await["type"], "ack");
}

#[tokio::test]
async fn a_game_ended_before_any_move_is_not_archived() {
    let mut config = test_config();
    config.retention = Duration::from_millis(300);
    let server = start_with(config).await;
    let mut c = server.client().await;
    let (game, _) = c.create(human(), bot(1), Some("white")).await;
    c.send(json!({"type":"resign","game":game})).await;
    assert_eq!(c.recv_type("end").await["reason"], "resignation");
    // Shown while held...
    assert_eq!(server.get(&format!("/api/games/{game}")).await.0, 200);
    // ...then gone: not in memory, not in the archive.
    let mut status = 200;
    for _ in 0..100 {
        status = server.get(&format!("/api/games/{game}")).await.0;
        if status == 404 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(status, 404);
    assert_eq!(server.get("/api/games?status=finished").await.1.trim(), "[]");
}

// ---- 4. slowloris -------------------------------------------------------------------------------

#[tokio::test]
async fn half_sent_requests_from_one_address_do_not_starve_the_others() {
    // The test itself holds 1,100 sockets.
    rlimit::increase_nofile_limit(8192).expect("raise the open-file limit");
    let dir = scratch("abuse-slowloris");
    let server = Served::start(&dir, &["--header-timeout", "3"], Some(1024)).await;
    let mut held = Vec::new();
    for _ in 0..1100 {
        let mut stream = connect_tcp_from(server.addr(), ATTACKER).await;
        // A request head that never ends.
        let _ = stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").await;
        held.push(stream);
    }
    // The server answers others at once: three /healthz, each within a second.
    for _ in 0..3 {
        let started = Instant::now();
        let answer = tokio::time::timeout(
            Duration::from_secs(1),
            http_from(server.addr(), HONEST, &get("/healthz", "127.0.0.1")),
        )
        .await
        .expect("/healthz did not answer within 1 s");
        assert_eq!(status_of(&answer), 200, "{answer}");
        println!("/healthz under the attack: {:?}", started.elapsed());
    }
    // A WebSocket client elsewhere is served too.
    let mut honest = Client::connect_from(server.addr(), HONEST).await;
    honest.send(json!({"type":"list","id":1})).await;
    honest.recv_type("games").await;

    // The attacker holds at most its share; the rest were closed at once...
    tokio::time::sleep(Duration::from_millis(500)).await;
    let open = |held: &[TcpStream]| {
        let mut byte = [0u8; 1];
        held.iter()
            .filter(|s| matches!(s.try_read(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock))
            .count()
    };
    let still_open = open(&held);
    assert!(still_open <= 256, "{still_open} half-sent requests held from one address");
    // ...and the rest go when their heads do not arrive in time.
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(open(&held), 0, "half-sent requests outlived the header timeout");
    assert!(!server.log().contains("Too many open files"), "{}", server.log());
}

// ---- 5. two servers on one database -----------------------------------------------------------

#[tokio::test]
async fn a_second_server_on_the_same_database_is_refused() {
    let dir = scratch("abuse-twoservers");
    let first = Served::start(&dir, &[], None).await;
    let db = dir.join("gambit.db");
    let link = dir.join("other-name.db");
    std::os::unix::fs::symlink(&db, &link).expect("symlink");
    // The same command again (same address too), and the same file under another name.
    for (db, listen) in [(&db, first.addr().to_string()), (&link, "127.0.0.1:0".to_string())] {
        let second = Command::new(env!("CARGO_BIN_EXE_gambit"))
            .args(["serve", "--listen", &listen, "--db", db.to_str().expect("utf-8")])
            .output()
            .expect("run a second server");
        let stderr = String::from_utf8_lossy(&second.stderr);
        assert_eq!(second.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(&format!("PID {}", first.pid())), "{stderr}");
        assert!(stderr.contains("in use by another gambit server"), "{stderr}");
    }

    // A game with four moves; then the file is damaged as interleaved writes left it (a ply
    // missing), and the server started again.
    let mut white = Client::connect(first.addr()).await;
    let (game, _) = white.create(human(), human(), Some("white")).await;
    let mut black = Client::connect(first.addr()).await;
    black.join(&game, "black").await;
    for (i, uci) in ["e2e4", "e7e5", "g1f3", "b8c6"].into_iter().enumerate() {
        let mover = if i % 2 == 0 { &mut white } else { &mut black };
        mover.send(json!({"type":"move","game":game,"uci":uci,"id":i})).await;
        assert_eq!(recv_one_of(mover, &["ack", "error"]).await["type"], "ack");
    }
    // And a finished game, to be damaged another way.
    let (done, _) = white.create(human(), bot(1), Some("white")).await;
    white.send(json!({"type":"move","game":done,"uci":"e2e4","id":9})).await;
    assert_eq!(recv_one_of(&mut white, &["ack", "error"]).await["type"], "ack");
    white.send(json!({"type":"resign","game":done})).await;
    white.recv_type("end").await;
    first.stop();
    let conn = rusqlite::Connection::open(&db).expect("open the database");
    conn.execute("DELETE FROM moves WHERE game = ?1 AND ply = 3", [&game]).expect("damage");
    conn.execute("UPDATE moves SET uci = X'FF00' WHERE game = ?1", [&done]).expect("damage");
    drop(conn);

    // The server starts all the same; each damaged game answers for itself, the rest is fine.
    let again = Served::start(&dir, &[], None).await;
    let (status, archive) = again.server.get("/api/games?status=finished").await;
    assert_eq!((status, archive.trim()), (200, "[]"), "the unreadable game is left out of the archive");
    for (id, path) in [
        (&game, format!("/api/games/{game}")),
        (&game, format!("/api/games/{game}/pgn")),
        (&done, format!("/api/games/{done}")),
        (&done, format!("/api/games/{done}/pgn")),
    ] {
        let (status, body) = again.server.get(&path).await;
        assert_eq!(status, 422, "{path}: {body}");
        let error: Value = serde_json::from_str(&body).expect("JSON error");
        assert_eq!(error["code"], "damaged_game", "{body}");
        assert!(error["message"].as_str().unwrap().contains(id.as_str()), "{body}");
    }
    assert_eq!(again.server.get("/healthz").await.0, 200);
}

// ---- 6. Origin and Host ---------------------------------------------------------------------

/// Opens a WebSocket with an `Origin` header: the HTTP status of a refusal, or 101.
async fn upgrade_with_origin(addr: SocketAddr, origin: &str) -> u16 {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = format!("ws://{addr}/ws").into_client_request().expect("request");
    request.headers_mut().insert("origin", origin.parse().expect("header"));
    match tokio_tungstenite::connect_async(request).await {
        Ok(_) => 101,
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(e) => panic!("upgrade failed: {e}"),
    }
}

#[tokio::test]
async fn pages_of_other_sites_cannot_use_the_server() {
    let mut config = test_config();
    config.allowed_origins = vec!["https://friend.example".into()];
    let server = start_with(config).await;
    let addr = server.addr;
    assert_eq!(upgrade_with_origin(addr, "https://evil.example").await, 403);
    assert_eq!(upgrade_with_origin(addr, &format!("http://127.0.0.1:{}", addr.port() + 1)).await, 403);
    assert_eq!(upgrade_with_origin(addr, "null").await, 403);
    assert_eq!(upgrade_with_origin(addr, &format!("http://{addr}")).await, 101, "the server's own page");
    assert_eq!(upgrade_with_origin(addr, "https://friend.example").await, 101, "--allowed-origin");

    // DNS rebinding: another name pointed at 127.0.0.1 reaches the server with its own Host.
    let rebound = http_from(addr, HONEST, &get("/api/games", &format!("evil.example:{}", addr.port()))).await;
    assert_eq!(status_of(&rebound), 421, "{rebound}");
    for host in [format!("localhost:{}", addr.port()), addr.to_string(), "friend.example".into()] {
        assert_eq!(status_of(&http_from(addr, HONEST, &get("/api/games", &host)).await), 200, "{host}");
    }
}

#[tokio::test]
async fn answers_are_not_sniffed_and_the_page_is_not_an_asset() {
    let server = start_with(test_config()).await;
    let mut c = server.client().await;
    let (game, _) = c.create(human(), bot(1), Some("white")).await;
    for path in ["/api/games".to_string(), format!("/api/games/{game}"), format!("/api/games/{game}/pgn"), "/".into()] {
        let response = http_from(server.addr, HONEST, &get(&path, "127.0.0.1")).await.to_ascii_lowercase();
        assert!(response.contains("\r\nx-content-type-options: nosniff\r\n"), "{path}: {response}");
    }
    assert_eq!(server.get("/assets/index.html").await.0, 404);
    assert_eq!(server.get("/assets/js/board.js").await.0, 200);
}

#[tokio::test]
async fn behind_a_trusted_proxy_clients_are_counted_by_their_forwarded_address() {
    let mut config = test_config();
    config.trusted_proxies = vec!["127.0.0.1".parse().expect("ip")];
    config.per_address.max_connections = 2;
    let server = start_with(config).await;
    let addr = server.addr;
    // A WebSocket through the "proxy" (127.0.0.1) on behalf of `client`.
    let through_proxy = |client: &'static str| async move {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = format!("ws://{addr}/ws").into_client_request().expect("request");
        request.headers_mut().insert("x-forwarded-for", client.parse().expect("header"));
        tokio_tungstenite::connect_async(request).await.expect("upgrade").0
    };
    let _a = through_proxy("203.0.113.5").await;
    let _b = through_proxy("6.6.6.6, 203.0.113.5").await; // the left hop is the client's own claim
                                                          // Not from the proxy: the header is the client's own claim and counts for nothing; the
                                                          // third connection of 127.0.0.2 is closed at once, whatever address it claims.
    let claiming = |claimed: &'static str| async move {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = format!("ws://{addr}/ws").into_client_request().expect("request");
        request.headers_mut().insert("x-forwarded-for", claimed.parse().expect("header"));
        let stream = connect_tcp_from(addr, ATTACKER).await;
        tokio_tungstenite::client_async(request, stream).await.map(|(ws, _)| ws)
    };
    let _c1 = claiming("198.51.100.1").await.expect("first");
    let _c2 = claiming("198.51.100.2").await.expect("second");
    assert!(claiming("198.51.100.3").await.is_err(), "a claimed address let a third connection in");
    let mut third = through_proxy("203.0.113.5").await;
    use futures::StreamExt;
    let mut refused = None;
    while let Some(Ok(frame)) = third.next().await {
        match frame {
            tokio_tungstenite::tungstenite::Message::Text(text) => {
                let m: Value = serde_json::from_str(&text).expect("json");
                assert_eq!(m["code"], "too_many", "{m}");
                assert!(m["message"].as_str().unwrap().contains("your address"), "{m}");
            }
            tokio_tungstenite::tungstenite::Message::Close(frame) => {
                refused = frame.map(|f| u16::from(f.code));
                break;
            }
            _ => {}
        }
    }
    assert_eq!(refused, Some(1013));
    // Another client behind the same proxy is not affected.
    let mut other = through_proxy("203.0.113.6").await;
    use futures::SinkExt;
    other.send(tokio_tungstenite::tungstenite::Message::text(r#"{"type":"list","id":1}"#)).await.expect("send");
    let reply = other.next().await.expect("reply").expect("frame");
    assert!(reply.to_text().expect("text").contains("\"games\""), "{reply:?}");
    drop(server);
}

// ---- 7. resume storm ----------------------------------------------------------------------------

#[tokio::test]
async fn a_resume_storm_is_rate_limited_and_spares_the_opponent() {
    let server = start_with(shipped_limits()).await;
    let mut white = Client::connect_from(server.addr, HONEST).await;
    let (game, white_token) = white.create(human(), human(), Some("white")).await;
    let white_token = white_token.expect("token");
    let mut black = Client::connect_from(server.addr, ATTACKER).await;
    let black_token = black.join(&game, "black").await;
    white.recv_type("seats").await;
    black.close().await;

    // The black seat's holder reconnects in a loop: 300 times, or for 6 s.
    let (mut joined, mut limited) = (0u32, 0u32);
    let start = Instant::now();
    for _ in 0..300 {
        if start.elapsed() > Duration::from_secs(6) {
            break;
        }
        let mut c = Client::connect_from(server.addr, ATTACKER).await;
        c.send(json!({"type":"resume","game":game,"token":black_token})).await;
        let answer = recv_one_of(&mut c, &["joined", "error"]).await;
        match answer["type"].as_str() {
            Some("joined") => joined += 1,
            _ => {
                assert_eq!(answer["code"], "rate_limited", "{answer}");
                limited += 1;
            }
        }
        c.close().await;
    }
    assert!(joined <= 35, "{joined} resumes from one address in a few seconds");
    assert!(limited > 0);
    // The opponent heard of each seat change at most twice per resume let through.
    let mut seats = 0;
    while let Some(m) = white.try_recv(Duration::from_millis(500)).await {
        if m["type"] == "seats" {
            seats += 1;
        }
    }
    println!("resume storm: {joined} resumes let through, {limited} refused; White got {seats} seats events");
    assert!(seats <= 2 * joined + 2, "{seats} seats events for {joined} resumes");
    // Honest resumes from elsewhere still work.
    let mut again = Client::connect_from(server.addr, HONEST).await;
    again.send(json!({"type":"resume","game":game,"token":white_token})).await;
    assert_eq!(recv_one_of(&mut again, &["joined", "error"]).await["type"], "joined");
}

// ---- 8. unwatched bot games -------------------------------------------------------------------

/// The game's state from the HTTP API.
async fn state_of(server: &Server, game: &str) -> Value {
    let (status, body) = server.get(&format!("/api/games/{game}")).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).expect("state")
}

#[tokio::test]
async fn an_unwatched_bot_game_pauses_and_goes_on_for_a_spectator() {
    let dir = scratch("abuse-botpause");
    let args = ["--unwatched-bot-pause", "1", "--bot-movetime", "200", "--bot-delay", "0"];
    let server = Served::start(&dir, &args, None).await;
    let mut creator = Client::connect(server.addr()).await;
    let (untimed, _) = creator.create(bot(12), bot(12), None).await;
    let clock = json!({"initial_ms":600_000,"increment_ms":0});
    creator.send(json!({"type":"create","white":bot(12),"black":bot(12),"clock":clock})).await;
    let timed = creator.recv_type("created").await["game"].as_str().expect("id").to_string();
    // Both play while their creator watches.
    creator.recv_type("move").await;
    creator.close().await;

    // Nobody watches: within a second or two both stand still, and so does the CPU.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (untimed_before, timed_before) =
        (state_of(&server.server, &untimed).await, state_of(&server.server, &timed).await);
    let cpu_before = server.cpu_ticks();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let cpu = server.cpu_ticks() - cpu_before;
    let (untimed_after, timed_after) =
        (state_of(&server.server, &untimed).await, state_of(&server.server, &timed).await);
    assert_eq!(untimed_before["status"], "ongoing");
    assert_eq!(untimed_after["moves"], untimed_before["moves"], "the untimed game went on unwatched");
    assert_eq!(timed_after["moves"], timed_before["moves"], "the timed game went on unwatched");
    assert_eq!(timed_after["clock"], timed_before["clock"], "a paused game's clock runs");
    assert!(cpu <= 30, "the server used {cpu} ticks (1/100 s) of CPU in 3 s with only paused games");

    // A spectator comes: the game goes on.
    let mut spectator = Client::connect(server.addr()).await;
    spectator.send(json!({"type":"watch","game":untimed})).await;
    let plies = untimed_before["moves"].as_array().map_or(0, Vec::len);
    let next = spectator.recv_type("move").await;
    assert!(next["ply"].as_u64().unwrap() as usize > plies, "{next}");
    // The timed one's clock, stopped while paused (`running` null), runs again, and the
    // spectator is told so by a fresh state.
    assert!(timed_after["clock"]["running"].is_null(), "{}", timed_after["clock"]);
    spectator.send(json!({"type":"watch","game":timed})).await;
    let running = loop {
        let m = spectator.recv().await;
        if m["game"] == timed.as_str() && m["type"] == "state" && !m["clock"]["running"].is_null() {
            break m;
        }
    };
    assert_eq!(running["status"], "ongoing", "{running}");
}

// ---- 9. protocol violations -------------------------------------------------------------------

#[tokio::test]
async fn protocol_violations_close_with_1002_and_1007() {
    let server = start_with(test_config()).await;
    // A client frame must be masked.
    let mut unmasked = RawWs::open(server.addr, HONEST, None).await;
    unmasked.stream.write_all(&[0x81, 0x02, b'{', b'}']).await.expect("write");
    assert_eq!(unmasked.frames_until_close().await.1, Some(1002));
    // A text frame must be UTF-8.
    let mut latin1 = RawWs::open(server.addr, HONEST, None).await;
    latin1.stream.write_all(&frame(0x1, &[0x7b, 0xe9, 0xff, 0x7d])).await.expect("write");
    assert_eq!(latin1.frames_until_close().await.1, Some(1007));
    // A message over 64 KiB is not taken at all.
    let mut huge = RawWs::open(server.addr, HONEST, None).await;
    let mut big = vec![0x81, 0x80 | 127];
    big.extend_from_slice(&(70_000u64).to_be_bytes());
    big.extend_from_slice(&[0, 0, 0, 0]);
    big.extend(std::iter::repeat_n(b' ', 70_000));
    let _ = huge.stream.write_all(&big).await; // the server may close before it has read it all
    assert_eq!(huge.frames_until_close().await.1, Some(1009));
    // Reserved bits must be clear.
    let mut reserved = RawWs::open(server.addr, HONEST, None).await;
    let mut bad = frame(0x1, b"{}");
    bad[0] |= 0x40;
    reserved.stream.write_all(&bad).await.expect("write");
    assert_eq!(reserved.frames_until_close().await.1, Some(1002));
}

// ---- memory under a crowd of log-ins, and a long game's analysis ------------------------------

/// Samples `pid`'s resident memory every 10 ms until `stop` is set: the highest seen, in KiB.
fn rss_peak(pid: u32, stop: std::sync::Arc<std::sync::atomic::AtomicBool>) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut peak = 0;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
                let kib = status
                    .lines()
                    .find(|l| l.starts_with("VmRSS:"))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
                peak = peak.max(kib);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        peak
    })
}

/// 250 log-ins at once from 25 addresses (each within its own allowance) hash at most a few
/// passwords at a time: memory stays bounded, is given back after the burst, and an honest
/// game's moves are answered promptly meanwhile. (Before, every log-in hashed at once: 100 of
/// them took the server from 10 MB to 1.9 GB, and moves waited up to seconds.)
#[tokio::test]
async fn a_crowd_of_log_ins_keeps_memory_bounded_and_games_moving() {
    let dir = scratch("abuse-logins");
    let server = Served::start(&dir, &["--trusted-proxy", "127.0.0.1"], None).await;
    let addr = server.addr();
    // An honest game from its own address.
    let mut white = Client::connect_from(addr, HONEST).await;
    let (game, _) = white.create(human(), human(), Some("white")).await;
    white.recv_type("state").await;
    let mut black = Client::connect_from(addr, HONEST).await;
    black.join(&game, "black").await;
    black.recv_type("state").await;
    let before = server.rss_kib();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = rss_peak(server.pid(), stop.clone());

    // Unknown names are hashed too (against a decoy), so each counts like a real guess.
    let crowd: Vec<_> = (0..250)
        .map(|i| {
            tokio::spawn(async move {
                let proxy = Server::external(addr);
                let client = format!("10.9.{}.1", i % 25);
                let body = json!({"username": format!("ghost{i}"), "password": "no such password"});
                proxy.post("/api/login", &[("X-Forwarded-For", &client)], body).await.status
            })
        })
        .collect();
    let line = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3", "d7d6", "b1d2", "a7a6"];
    let mut slowest = Duration::ZERO;
    for (i, uci) in line.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 { (&mut white, &mut black) } else { (&mut black, &mut white) };
        let started = Instant::now();
        mover.play(&game, uci).await;
        slowest = slowest.max(started.elapsed());
        other.recv_event().await;
    }
    let mut statuses = std::collections::BTreeMap::new();
    for login in crowd {
        *statuses.entry(login.await.expect("login task")).or_insert(0) += 1;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = sampler.join().expect("sampler").max(before);
    // The burst over, the hashing memory goes back to the system.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = server.rss_kib();
    println!(
        "250 log-ins from 25 addresses: answers {statuses:?}; RSS {before} KiB -> peak {peak} KiB, \
         {after} KiB after; slowest move ack {slowest:?}"
    );
    assert!(statuses.keys().all(|s| matches!(s, 401 | 503)), "wrong password, or busy: {statuses:?}");
    assert!(statuses.get(&401).copied().unwrap_or(0) >= 50, "most were checked: {statuses:?}");
    assert!(peak < 512 * MIB, "RSS peaked at {peak} KiB");
    assert!(after < before + 64 * MIB, "RSS {after} KiB after the burst, {before} KiB before");
    assert!(slowest < Duration::from_secs(1), "a move waited {slowest:?} for its answer");
}

/// A long game, as a random walk that ends nothing: no mate, no stalemate, no repetition, a
/// pawn move or capture before the fifty-move rule (seeded: the same game every run).
fn long_game(plies: usize) -> gambit::chess::Game {
    use gambit::chess::{Game, Role, Variant};
    use rand::{seq::SliceRandom, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(2428);
    let mut game = Game::new(Variant::Standard);
    while game.ply() < plies {
        let mut moves: Vec<_> = game.legal_moves().into_iter().collect();
        moves.shuffle(&mut rng);
        let due = game.position().halfmoves() >= 90;
        // Quiet moves while the fifty-move count allows, then a pawn move (captures last:
        // material is what keeps the game going).
        let rank = |role: Role, captured: bool| {
            let push = role == Role::Pawn && !captured;
            match (due, push, captured) {
                (false, false, false) => 0,
                (false, true, _) | (true, false, true) => 1,
                (true, true, _) => 0,
                _ => 2,
            }
        };
        let mut best: Option<(u8, gambit::chess::Move)> = None;
        for mv in moves {
            let Ok(played) = game.play(mv) else { continue };
            let score = rank(played.role, played.captured.is_some());
            let ends = game.outcome().is_some();
            game.undo();
            if !ends && best.is_none_or(|(s, _)| score < s) {
                best = Some((score, mv));
            }
        }
        let (_, mv) = best.expect("a move that ends nothing");
        game.play(mv).expect("legal");
    }
    game
}

/// The analysis of a 2,400-ply game walks one replayed game: memory linear in the game's
/// length. (Before, every position was a copy of the game with its whole history: quadratic,
/// +307 MB for one 2,428-ply analysis.)
#[tokio::test]
async fn analysing_a_long_game_takes_memory_linear_in_its_length() {
    use gambit::server::store::{GameStore, SqliteStore, StoreEvent, StoredSeat};
    let game = long_game(2400);
    assert_eq!(game.ply(), 2400);
    // The finished game goes into the database through the store, as a server would write it.
    let dir = scratch("abuse-analysis");
    let db = dir.join("gambit.db");
    let store = SqliteStore::open(db.to_str().expect("utf-8")).expect("open");
    let seat = |name: &str| StoredSeat::Human {
        token: Some(gambit::server::token::TokenHash::of(name)),
        name: Some(name.into()),
        account: None,
    };
    let mut created = crate::store::new_game("longgame");
    (created.white, created.black, created.clock) = (seat("Wanda"), seat("Boris"), None);
    store.record("longgame", StoreEvent::Created(Box::new(created))).await.expect("created");
    let writes: Vec<_> = game
        .history()
        .iter()
        .enumerate()
        .map(|(i, played)| {
            let event = StoreEvent::Move { ply: i + 1, uci: played.mv.to_string(), times: None, v: i as u64 + 2 };
            store.record("longgame", event)
        })
        .collect();
    for write in futures::future::join_all(writes).await {
        write.expect("move");
    }
    let resigned = gambit::chess::Outcome::win(gambit::chess::Color::Black, gambit::chess::EndReason::Resignation);
    let ended = StoreEvent::Ended { outcome: resigned, times: None, v: 2402, rated: None };
    store.record("longgame", ended).await.expect("ended");
    store.close().await;
    drop(store);

    let server = Served::start(&dir, &["--analysis-movetime", "10"], None).await;
    let before = server.rss_kib();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = rss_peak(server.pid(), stop.clone());
    let asked = server.server.http("POST", "/api/games/longgame/analysis", &[], "").await;
    assert!(matches!(asked.status, 200 | 202), "{} {}", asked.status, asked.body);
    // Every position of the old way was copied when the analysis began; a few seconds of it
    // show the memory it holds.
    let mut progress = 0.0;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(4) {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let (status, body) = server.server.get("/api/games/longgame/analysis").await;
        assert_eq!(status, 200, "{body}");
        progress = serde_json::from_str::<Value>(&body).expect("json")["progress"].as_f64().unwrap_or(1.0);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = sampler.join().expect("sampler").max(before);
    let growth = peak - before;
    println!(
        "analysis of a 2,400-ply game: RSS {before} KiB -> peak {peak} KiB (+{growth} KiB) at progress {progress:.2}"
    );
    assert!(progress > 0.0, "the analysis ran");
    assert!(growth < 64 * MIB, "the analysis took {growth} KiB");
}
