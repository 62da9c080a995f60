//! What the browser tests share: chromedriver and headless Chromium sessions (each a fresh
//! profile, so its own cookies and localStorage), waiting on the page, clicking and dragging on
//! the board, and the steps every scenario takes (open the lobby, choose a name). Used by
//! the modules of tests/browser/, whose main.rs declares `mod server_support;` too.

#![allow(dead_code)] // each test crate uses a different part

use std::net::TcpListener as StdListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};

use crate::server_support::Server;

/// How long any one expectation may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// The browsers share two cores with everything else: one scenario at a time.
pub static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A chromedriver process on a free port; killed on drop.
pub struct Driver {
    child: Child,
    port: u16,
    chromium: PathBuf,
    profiles: Vec<PathBuf>,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        for dir in &self.profiles {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

pub fn find(env: &str, candidates: &[&str]) -> Option<PathBuf> {
    if let Ok(path) = std::env::var(env) {
        return Some(PathBuf::from(path));
    }
    candidates.iter().map(PathBuf::from).find(|p| p.exists())
}

/// Starts chromedriver, or says why not: None means "skip" (only allowed outside CI).
pub async fn driver() -> Option<Driver> {
    let chromium = find("CHROMIUM", &["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]);
    let chromedriver = find("CHROMEDRIVER", &["/usr/bin/chromedriver"]);
    let (Some(chromium), Some(chromedriver)) = (chromium, chromedriver) else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("chromium and chromedriver are required in CI: apt-get install -y chromium chromium-driver");
        }
        eprintln!(
            "note: skipping browser test: chromium/chromedriver not found (apt-get install chromium chromium-driver)"
        );
        return None;
    };
    let port = StdListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("free port");
    let child = Command::new(&chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let driver = Driver { child, port, chromium, profiles: Vec::new() };
    let deadline = Instant::now() + WAIT;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not start listening");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Some(driver)
}

impl Driver {
    /// Where chromedriver listens: for WebDriver endpoints fantoccini has no method for (the
    /// DevTools protocol through `/session/{id}/goog/cdp/execute`, see tests/browser/feel.rs).
    pub fn addr(&self) -> std::net::SocketAddr {
        std::net::SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// A new browser with its own fresh profile (so its own localStorage).
    pub async fn browser(&mut self, width: u32, height: u32) -> Client {
        let profile = std::env::temp_dir().join(format!("gambit-chromium-{}-{}", std::process::id(), rand_suffix()));
        self.profiles.push(profile.clone());
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": self.chromium,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1",
                    format!("--window-size={width},{height}"),
                    format!("--user-data-dir={}", profile.display()),
                ],
                // Headless windows have a minimum width; a phone's viewport needs emulation.
                "mobileEmulation": { "deviceMetrics": { "width": width, "height": height, "pixelRatio": 1.0 } },
            }),
        );
        // Keep the page's console, for `console_errors`.
        caps.insert("goog:loggingPrefs".into(), json!({ "browser": "ALL" }));
        let url = format!("http://127.0.0.1:{}", self.port);
        let mut builder = ClientBuilder::new(HttpConnector::new());
        builder.capabilities(caps);
        builder.connect(&url).await.expect("start a chromium session")
    }

    /// The console lines of browser `c` at level SEVERE (errors, failed loads) since the last
    /// call, as "source: message". WebDriver has no standard log command: this is chromedriver's.
    pub async fn console_errors(&self, c: &Client) -> Vec<String> {
        let log = self.session_post(c, "se/log", &json!({ "type": "browser" })).await;
        let entries = log["value"].as_array().cloned().unwrap_or_default();
        entries
            .iter()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| format!("{}: {}", e["source"].as_str().unwrap_or("?"), e["message"].as_str().unwrap_or("")))
            .collect()
    }

    /// `POST /session/{id}/{endpoint}` to chromedriver for browser `c`, with `body`.
    pub async fn session_post(&self, c: &Client, endpoint: &str, body: &Value) -> Value {
        session_post(self.addr(), c, endpoint, body).await
    }
}

/// One DevTools command for browser `c` through chromedriver (at `driver`)'s
/// `goog/cdp/execute`: its result.
pub async fn cdp(driver: std::net::SocketAddr, c: &Client, cmd: &str, params: Value) -> Value {
    session_post(driver, c, "goog/cdp/execute", &json!({ "cmd": cmd, "params": params })).await["value"].take()
}

/// `POST /session/{id}/{endpoint}` to chromedriver (at `driver`) for browser `c`, with `body`:
/// for the endpoints fantoccini has no method for, over plain HTTP. Chromedriver keeps the socket
/// open after answering, so the answer is read by its Content-Length.
pub async fn session_post(driver: std::net::SocketAddr, c: &Client, endpoint: &str, body: &Value) -> Value {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let id = c.session_id().await.expect("session id").expect("a session");
    let body = body.to_string();
    let request = format!(
        "POST /session/{id}/{endpoint} HTTP/1.1\r\nHost: {driver}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(driver).await.expect("reach chromedriver");
    stream.write_all(request.as_bytes()).await.expect("send to chromedriver");
    let read = async {
        let mut answer = Vec::new();
        let mut chunk = [0u8; 65536];
        loop {
            let n = stream.read(&mut chunk).await.expect("read chromedriver's answer");
            assert!(n > 0, "chromedriver closed before answering {endpoint}");
            answer.extend_from_slice(&chunk[..n]);
            let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
            let head = String::from_utf8_lossy(&answer[..end]).to_string();
            let length = head
                .lines()
                .find_map(|l| l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case("content-length")))
                .and_then(|(_, v)| v.trim().parse::<usize>().ok())
                .expect("a Content-Length");
            if answer.len() - (end + 4) >= length {
                let body = String::from_utf8_lossy(&answer[end + 4..end + 4 + length]).to_string();
                assert!(head.starts_with("HTTP/1.1 200"), "{endpoint}: {head} {body}");
                return serde_json::from_str::<Value>(&body).expect("chromedriver's JSON");
            }
        }
    };
    tokio::time::timeout(WAIT, read).await.expect("chromedriver answered in time")
}

pub fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Runs `script` (a function body returning a value) until it returns something truthy.
pub async fn wait_js(c: &Client, what: &str, script: &str) -> Value {
    let deadline = Instant::now() + WAIT;
    loop {
        let value = c.execute(script, vec![]).await.unwrap_or(Value::Null);
        let truthy = !matches!(&value, Value::Null | Value::Bool(false)) && value != json!("") && value != json!(0);
        if truthy {
            return value;
        }
        if Instant::now() > deadline {
            let status = c.execute("return document.getElementById('status')?.textContent", vec![]).await;
            panic!("timed out waiting for {what}; last value {value}; status line {status:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub async fn plies(c: &Client) -> u64 {
    let v = c.execute("return Number(document.getElementById('app').dataset.plies || -1)", vec![]).await;
    v.ok().and_then(|v| v.as_i64()).map_or(0, |n| n.max(0) as u64)
}

pub async fn wait_plies(c: &Client, n: u64) {
    wait_js(c, &format!("{n} moves"), &format!("return document.getElementById('app').dataset.plies === '{n}'")).await;
}

pub async fn status(c: &Client) -> String {
    c.find(Locator::Id("status")).await.expect("status line").text().await.unwrap_or_default()
}

pub async fn wait_status(c: &Client, contains: &str) -> String {
    let script = format!("return (document.getElementById('status')?.textContent || '').includes({contains:?})");
    wait_js(c, &format!("status containing {contains:?}"), &script).await;
    status(c).await
}

/// What the board shows: every piece on its square, e.g. "a1R a2P …".
pub async fn position(c: &Client) -> String {
    let v = c.execute("return document.querySelector('svg.board').dataset.position", vec![]).await;
    v.ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

pub async fn move_list(c: &Client) -> String {
    c.find(Locator::Id("moves")).await.expect("move list").text().await.unwrap_or_default()
}

pub async fn square(c: &Client, sq: &str) -> Element {
    c.find(Locator::Css(&format!("rect.sq[data-square='{sq}']"))).await.unwrap_or_else(|e| panic!("square {sq}: {e}"))
}

/// Clicks the element `css` once it exists, finding it afresh if the page redrew it meanwhile.
pub async fn click_css(c: &Client, css: &str) {
    let mut last = None;
    for _ in 0..5 {
        let element =
            c.wait().at_most(WAIT).for_element(Locator::Css(css)).await.unwrap_or_else(|e| panic!("{css}: {e}"));
        match element.click().await {
            Ok(()) => return,
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("click {css}: {last:?}");
}

/// Clicks square `sq`, finding it afresh if the board was redrawn between finding and clicking
/// (an opponent's move or a seat change redraws it).
pub async fn click_square(c: &Client, sq: &str) {
    let mut last = None;
    for _ in 0..5 {
        match square(c, sq).await.click().await {
            Ok(()) => return,
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("click {sq}: {last:?}");
}

/// Plays `uci` by clicking its two squares.
pub async fn click_move(c: &Client, uci: &str) {
    click_square(c, &uci[0..2]).await;
    click_square(c, &uci[2..4]).await;
}

/// The viewport coordinates of the centre of square `sq`. (Coordinates, not elements: the
/// board redraws its squares when a piece is picked up.)
pub async fn centre(c: &Client, sq: &str) -> (f64, f64) {
    let script = format!(
        "const r = document.querySelector(\"rect.sq[data-square='{sq}']\").getBoundingClientRect();
         return [r.left + r.width / 2, r.top + r.height / 2];"
    );
    let v = c.execute(&script, vec![]).await.unwrap_or_else(|e| panic!("square {sq}: {e}"));
    (v[0].as_f64().unwrap_or(0.0), v[1].as_f64().unwrap_or(0.0))
}

/// Plays `uci` by dragging the piece with the mouse, through a point on the way.
pub async fn drag_move(c: &Client, uci: &str) {
    let from = centre(c, &uci[0..2]).await;
    let to = centre(c, &uci[2..4]).await;
    drag(c, from, to).await;
}

/// Drags with the mouse from one viewport point to another, through a point on the way.
pub async fn drag(c: &Client, (fx, fy): (f64, f64), (tx, ty): (f64, f64)) {
    let mouse = MouseActions::new("mouse".to_string())
        .then(PointerAction::MoveTo { duration: None, x: fx.round(), y: fy.round() })
        .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
        .then(PointerAction::MoveTo {
            duration: Some(Duration::from_millis(100)),
            x: (fx + 12.0).round(),
            y: (fy - 9.0).round(),
        })
        .then(PointerAction::MoveTo { duration: Some(Duration::from_millis(200)), x: tx.round(), y: ty.round() })
        .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
    c.perform_actions(mouse).await.expect("drag and drop");
}

/// A script that runs `body` (a function body) with `page` bound to the game page's controller.
/// The page keeps no global for it: the client's entry module exports it, and a dynamic
/// `import()` of that module yields the page's own instance. WebDriver waits for the promise.
pub fn on_page(body: &str) -> String {
    // The page's own main.js (its URL carries the assets' version): the same module instance.
    format!(
        "return import(document.querySelector('script[type=module]').src).then((m) => {{ const page = m.page; {body} }});"
    )
}

/// A legal move for the player now, preferring ones that develop a knight or bishop (not a
/// promotion, so a click pair suffices), from the page's own model.
pub async fn some_legal_move(c: &Client) -> String {
    let script = on_page(
        "const g = page.game; const legal = g.legal.filter(m => m.length === 4);
        const board = g.boards[g.boards.length - 1];
        const nice = legal.find(m => 'NBnb'.includes(board.get(m.slice(0, 2)) || '-'));
        return nice || legal[0] || null;",
    );
    let v = wait_js(c, "a legal move", &script).await;
    v.as_str().expect("a move").to_string()
}

/// Cuts the page's connection and keeps it down until [`reconnect`]; waits for the badge.
pub async fn disconnect(c: &Client) {
    c.execute(&on_page("page.conn.stopped = true; page.conn.drop();"), vec![]).await.expect("drop");
    wait_js(c, "the reconnecting badge", "return !document.getElementById('connection').hidden").await;
}

/// Lets the page reconnect on its own back-off path and waits until it is back.
pub async fn reconnect(c: &Client) {
    c.execute(&on_page("page.conn.stopped = false; page.conn.reconnectSoon();"), vec![]).await.expect("reconnect");
    wait_js(c, "the connection back", "return document.getElementById('connection').hidden").await;
}

pub async fn screenshot(c: &Client, name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(dir.join(name), png).expect("write screenshot");
}

pub async fn open(c: &Client, server: &Server, path: &str) {
    c.goto(&server.url(path)).await.expect("open page");
}

/// Opens the lobby and waits until it shows the list of games.
pub async fn open_lobby(c: &Client, server: &Server) {
    open(c, server, "/").await;
    wait_js(c, "the lobby", "return document.querySelector('#games .none, #games a') !== null").await;
}

/// Alice, in browser `a`, invites a friend from the lobby; Bob takes Black over a WebSocket.
/// Returns the game id and Bob's client once it is Alice's move.
pub async fn friend_game_with_bob(a: &Client, server: &Server) -> (String, crate::server_support::Client) {
    open_lobby(a, server).await;
    click_css(a, "#play-friend").await;
    choose_name(a, "Alice").await;
    let invite = invite_link(a).await;
    let game = invite.rsplit('/').next().expect("a game id").to_string();
    let mut bob = crate::server_support::Client::connect(server.addr).await;
    bob.join(&game, "black").await;
    wait_status(a, "Your move").await;
    (game, bob)
}

/// The invite link a seated creator is shown, once it shows.
pub async fn invite_link(c: &Client) -> String {
    let script = "const i = document.getElementById('invite'); return i && !i.hidden && document.getElementById('invite-link').value";
    wait_js(c, "the invite link", script).await.as_str().expect("link").to_string()
}

pub async fn current_path(c: &Client) -> String {
    c.current_url().await.map(|u| u.path().to_string()).unwrap_or_default()
}

/// Types `name` into the name dialog and presses Enter. The dialog opens when a browser with no
/// name stored takes a seat (create or join), or from the top bar's control.
pub async fn choose_name(c: &Client, name: &str) {
    wait_js(c, "the name dialog", "return document.getElementById('name-dialog')?.open").await;
    let input = c.find(Locator::Id("name-input")).await.expect("the name box");
    input.clear().await.expect("clear the name box");
    input.send_keys(&format!("{name}\n")).await.expect("type a name");
}
