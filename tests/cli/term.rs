//! The terminal client (`gambit play`, `gambit watch`) as a user runs it: the real binary with
//! scripted stdin against the real server on 127.0.0.1:0. Input is adaptive: the test reads the
//! board's `FEN:` line and answers "your move" with a legal move of that position. Every read
//! is under a timeout, and the child is killed if the test fails.

use crate::server_support;

use std::net::SocketAddr;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::TcpListener;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::task::AbortHandle;

use gambit::chess::{Move, Position, Variant};
use server_support::{human, start, Client};

/// How long the client may take to print any one expected line.
const WAIT: Duration = Duration::from_secs(20);

/// A running `gambit` process: its stdin to type into and its stdout read line by line.
struct Term {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    transcript: Vec<String>,
}

impl Term {
    fn spawn(args: &[&str], with_stdin: bool) -> Term {
        Term::spawn_with(args, with_stdin, &[])
    }

    /// As `spawn`, with these environment variables set.
    fn spawn_with(args: &[&str], with_stdin: bool, env: &[(&str, &str)]) -> Term {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gambit"))
            .args(args)
            .envs(env.iter().copied())
            .stdin(if with_stdin { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start gambit");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Term { child, stdin, stdout, transcript: Vec::new() }
    }

    fn output(&self) -> String {
        self.transcript.join("\n")
    }

    /// The next line of output; fails the test on timeout or end of output.
    async fn line(&mut self) -> String {
        match tokio::time::timeout(WAIT, self.stdout.next_line()).await {
            Ok(Ok(Some(line))) => {
                self.transcript.push(line.clone());
                line
            }
            Ok(_) => panic!("output ended; so far:\n{}", self.output()),
            Err(_) => panic!("no output for {WAIT:?}; so far:\n{}", self.output()),
        }
    }

    /// Reads up to and including the first line containing `needle`.
    async fn until(&mut self, needle: &str) -> String {
        loop {
            let line = self.line().await;
            if line.contains(needle) {
                return line;
            }
        }
    }

    async fn type_line(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin");
        stdin.write_all(format!("{text}\n").as_bytes()).await.expect("write stdin");
        stdin.flush().await.expect("flush stdin");
    }

    /// Closes stdin, reads the rest of the output and waits for the exit.
    async fn finish(mut self) -> (ExitStatus, String, String) {
        drop(self.stdin.take());
        while let Ok(Ok(Some(line))) = tokio::time::timeout(WAIT, self.stdout.next_line()).await {
            self.transcript.push(line);
        }
        let status = tokio::time::timeout(WAIT, self.child.wait())
            .await
            .unwrap_or_else(|_| panic!("gambit did not exit; output:\n{}", self.output()))
            .expect("wait");
        let mut stderr = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            let _ = tokio::time::timeout(WAIT, err.read_to_string(&mut stderr)).await;
        }
        (status, self.output(), stderr)
    }
}

fn ws_url(addr: SocketAddr) -> String {
    format!("ws://{addr}/ws")
}

/// Reads until the client asks for a move in a position not answered yet; returns its FEN.
async fn next_turn(term: &mut Term, answered: &mut Vec<String>) -> String {
    let mut fen = None;
    loop {
        let line = term.line().await;
        if let Some(f) = line.strip_prefix("FEN: ") {
            fen = Some(f.to_string());
        }
        if line.ends_with("your move.") {
            let fen = fen.clone().unwrap_or_else(|| panic!("no FEN before the prompt:\n{}", term.output()));
            if !answered.contains(&fen) {
                answered.push(fen.clone());
                return fen;
            }
        }
    }
}

/// Plays `n` moves against the bot, alternately typed in SAN and UCI; returns their SAN.
async fn play_moves(term: &mut Term, variant: Variant, n: usize, answered: &mut Vec<String>) -> Vec<String> {
    let mut played = Vec::new();
    for i in 0..n {
        let fen = next_turn(term, answered).await;
        let pos = Position::from_fen(&fen, variant).expect("the client shows a valid FEN");
        let legal: Vec<Move> = pos.legal_moves().to_vec();
        // Vary the choice so the game does not shuffle back and forth.
        let mv = legal[(i * 7) % legal.len()];
        let san = pos.san(mv);
        let typed = if i % 2 == 0 { san.clone() } else { mv.to_string() };
        term.type_line(&typed).await;
        played.push(san);
    }
    played
}

#[tokio::test(flavor = "multi_thread")]
async fn plays_a_short_game_against_a_bot_then_resigns() {
    let server = start().await;
    let url = ws_url(server.addr);
    let mut term = Term::spawn(&["play", &url, "--vs-bot", "1"], true);
    let intro = term.until("created").await;
    assert!(intro.contains("you play white against Level 1"), "{intro}");

    // Checked before anything is sent: an illegal move and nonsense get plain words.
    let mut answered = Vec::new();
    let first = next_turn(&mut term, &mut answered).await;
    assert_eq!(first, Variant::Standard.initial_fen());
    term.type_line("e2e5").await;
    let refusal = term.until("not legal").await;
    assert_eq!(refusal, "That move is not legal: e2e5 is not a legal move in this position");
    term.type_line("castle please").await;
    term.until("I don't understand \"castle please\"").await;
    term.type_line("e4").await;
    term.until("You played 1. e4.").await;
    // The board in between says "Level 1 is thinking…" — unless the bot's answer came in the
    // same batch as our move, when the client draws once, after both (seen under load).
    let reply = term.until("Level 1 played 1... ").await;
    assert!(reply.ends_with('.'), "{reply}");

    let played = play_moves(&mut term, Variant::Standard, 4, &mut answered).await;
    term.until("Level 1 played 5... ").await;
    term.type_line("resign").await;
    term.until("White resigned — Black wins (0-1). You lost.").await;
    let (status, out, stderr) = term.finish().await;
    assert!(status.success(), "{status}: {stderr}\n{out}");

    // Every move of ours and every reply of the bot was announced, with its number.
    for (i, san) in played.iter().enumerate() {
        let number = i + 2;
        assert!(out.contains(&format!("You played {number}. {san}.")), "{san}:\n{out}");
        assert!(out.contains(&format!("Level 1 played {number}... ")), "reply to {san}:\n{out}");
    }
    // The last board lists the whole game and marks the last move.
    let moves = out.lines().rev().find(|l| l.starts_with("Moves: ")).expect("a move list");
    assert!(moves.starts_with("Moves: 1. e4 "), "{moves}");
    assert!(moves.contains(&format!("5. {}", played[3])), "{moves}");
    assert!(out.contains('[') && out.contains(" 1  ") && out.contains("    a  b  c  d  e  f  g  h"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn plays_minichess_as_black_and_leaves_at_end_of_input() {
    let server = start().await;
    let url = ws_url(server.addr);
    let args = ["play", &url, "--vs-bot", "2", "--color", "black", "--variant", "minichess7"];
    let mut term = Term::spawn(&args, true);
    term.until("you play black against Level 2").await;
    let mut answered = Vec::new();
    let played = play_moves(&mut term, Variant::Minichess7, 3, &mut answered).await;
    // Wait for our last move to be shown, then leave by closing stdin.
    term.until(&format!("You played 3... {}.", played[2])).await;
    let (status, out, stderr) = term.finish().await;
    assert!(status.success(), "{status}: {stderr}\n{out}");
    // Level 2 may, rarely, mate within four moves; then the client has already left.
    let mated = out.contains("Checkmate — White wins");
    assert!(mated || out.contains("End of input: leaving the game."), "{out}");
    // Black at the bottom of a 7x7 board: files run g to a.
    assert!(out.contains("    g  f  e  d  c  b  a"), "{out}");
    let level2 = gambit::bots::Level::new(2).expect("level 2").label();
    assert!(out.contains(&format!("· minichess7 · White: {level2} · Black: you")), "{out}");
    assert!(out.contains("Level 2 played 1. "), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_friend_joins_offers_are_answered_and_a_draw_is_agreed() {
    let server = start().await;
    let url = ws_url(server.addr);
    let mut term = Term::spawn(&["play", &url, "--name", "Alice"], true);
    let invite = term.until("A friend joins with:").await;
    let game = invite.rsplit(' ').next().expect("game id").to_string();
    assert!(invite.ends_with(&format!("gambit play {url} --game {game}")), "{invite}");
    term.until("Waiting for an opponent to join…").await;
    term.type_line("e4").await;
    term.until("The game has not started yet").await;

    let mut black = Client::connect(server.addr).await;
    black.join(&game, "black").await;
    assert_eq!(black.recv_type("state").await["seats"]["white"]["name"], "Alice", "--name is sent");
    term.until("Black joined — the game begins.").await;
    term.until("White to move — your move.").await;
    term.type_line("decline").await;
    term.until("There is no offer to decline.").await;
    term.type_line("e2e4").await;
    term.until("You played 1. e4.").await;
    term.until("Black to move — waiting for Black.").await;
    term.type_line("d4").await;
    term.until("It is not your move yet — waiting for Black.").await;

    let seen = black.recv_type("move").await;
    assert_eq!(seen["uci"], "e2e4");
    black.send(json!({"type":"move","game":game,"uci":"e7e5"})).await;
    term.until("Black played 1... e5.").await;

    black.send(json!({"type":"draw","game":game})).await;
    term.until("Black offers a draw — type draw to accept or decline to refuse.").await;
    term.type_line("decline").await;
    term.until("You declined Black's draw offer.").await;

    black.send(json!({"type":"undo","game":game})).await;
    term.until("Black asks to take back the last move — type undo to accept or decline to refuse.").await;
    term.type_line("undo").await;
    term.until("One move taken back.").await;
    term.until("Moves: 1. e4").await;

    black.send(json!({"type":"draw","game":game})).await;
    term.until("Black offers a draw").await;
    term.type_line("draw").await;
    term.until("Draw agreed (1/2-1/2)").await;
    let (status, out, stderr) = term.finish().await;
    assert!(status.success(), "{status}: {stderr}\n{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_game_started_by_mistake_is_aborted() {
    let server = start().await;
    let url = ws_url(server.addr);
    let mut term = Term::spawn(&["play", &url, "--vs-bot", "2", "--color", "black"], true);
    term.until("Level 2 played 1. ").await;
    term.type_line("abort").await;
    term.until("Game aborted (*)").await;
    let (status, out, stderr) = term.finish().await;
    assert!(status.success(), "{status}: {stderr}\n{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_spectator_follows_a_game_to_checkmate() {
    let server = start().await;
    let mut white = Client::connect(server.addr).await;
    let (game, _) = white.create(human(), human(), Some("white")).await;
    let mut black = Client::connect(server.addr).await;
    black.join(&game, "black").await;
    // Two moves before the spectator arrives: it starts from a state with both.
    white.send(json!({"type":"move","game":game,"uci":"f2f3"})).await;
    black.recv_type("move").await;
    black.send(json!({"type":"move","game":game,"uci":"e7e5"})).await;
    white.recv_type("move").await;
    white.recv_type("move").await;

    let mut term = Term::spawn(&["watch", &ws_url(server.addr), &game], false);
    term.until(&format!("Watching game {game}.")).await;
    term.until("Moves: 1. f3 e5").await;
    term.until("White to move.").await;

    white.send(json!({"type":"move","game":game,"uci":"g2g4"})).await;
    black.recv_type("move").await;
    term.until("White played 2. g4.").await;
    black.send(json!({"type":"move","game":game,"uci":"d8h4"})).await;
    term.until("Black played 2... Qh4#.").await;
    term.until("Checkmate — Black wins (0-1)").await;
    let (status, out, stderr) = term.finish().await;
    assert!(status.success(), "{status}: {stderr}\n{out}");
    // The mated king in parentheses, the queen's move in brackets, White at the bottom.
    assert!(out.contains(" 1  ♖  ♘  ♗  ♕ (♔) ♗  ♘  ♖  1"), "{out}");
    assert!(out.contains(" 4  ·  ·  ·  ·  ·  ·  ♙ [♛] 4"), "{out}");
    assert!(out.contains("Moves: 1. f3 e5 2. g4 Qh4#"), "{out}");
    assert!(!out.contains("your move"), "{out}");
}

/// `gambit watch --tv` waits for a game, follows the featured one, and when it ends goes on to
/// the next the server features, by itself.
#[tokio::test(flavor = "multi_thread")]
async fn watching_tv_follows_one_featured_game_after_another() {
    let server = start().await;
    let mut term = Term::spawn(&["watch", &ws_url(server.addr), "--tv"], false);
    term.until("gambit TV (best): waiting for the next game").await;
    let mut white = Client::connect(server.addr).await;
    let (first, _) = white.create(human(), human(), Some("white")).await;
    let mut black = Client::connect(server.addr).await;
    black.join(&first, "black").await;
    term.until(&format!("gambit TV (best): game {first}.")).await;
    let mut second_white = Client::connect(server.addr).await;
    let (second, _) = second_white.create(human(), human(), Some("white")).await;
    let mut second_black = Client::connect(server.addr).await;
    second_black.join(&second, "black").await;
    white.send(json!({"type":"move","game":first,"uci":"e2e4"})).await;
    term.until("White played 1. e4.").await;
    white.send(json!({"type":"resign","game":first})).await;
    term.until("White resigned").await;
    term.until(&format!("gambit TV (best): game {second}.")).await;
    drop(term); // killed on drop: TV goes on until the watcher leaves
}

/// A TCP relay in front of the server whose connections can be cut, to drop the client's link.
struct Relay {
    addr: SocketAddr,
    links: Arc<Mutex<Vec<AbortHandle>>>,
}

impl Relay {
    async fn start(target: SocketAddr) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind relay");
        let addr = listener.local_addr().expect("relay addr");
        let links = Arc::new(Mutex::new(Vec::new()));
        let registry = links.clone();
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let link = tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                registry.lock().expect("relay registry").push(link.abort_handle());
            }
        });
        Relay { addr, links }
    }

    /// Drops every open connection (new ones still go through).
    fn cut(&self) {
        for link in self.links.lock().expect("relay registry").drain(..) {
            link.abort();
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn reconnects_after_a_dropped_connection_and_plays_on() {
    let server = start().await;
    let relay = Relay::start(server.addr).await;
    let mut term = Term::spawn(&["play", &ws_url(relay.addr), "--vs-bot", "1"], true);
    let mut answered = Vec::new();
    play_moves(&mut term, Variant::Standard, 1, &mut answered).await;
    term.until("Level 1 played 1... ").await;

    relay.cut();
    term.until("Connection lost — reconnecting…").await;
    term.until("Reconnected.").await;
    // The seat is resumed: a move in the position shown before the cut goes through.
    let last_fen = term.transcript.iter().rev().find_map(|l| l.strip_prefix("FEN: ")).expect("a FEN line");
    let pos = Position::from_fen(last_fen, Variant::Standard).expect("FEN");
    let mv = pos.legal_moves()[0];
    term.type_line(&mv.to_string()).await;
    term.until(&format!("You played 2. {}.", pos.san(mv))).await;
    term.until("Level 1 played 2... ").await;
    term.type_line("resign").await;
    term.until("White resigned — Black wins (0-1)").await;
    let (status, out, stderr) = term.finish().await;
    assert!(status.success(), "{status}: {stderr}\n{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_seek_is_accepted_friends_chat_and_play_a_rematch() {
    let server = start().await;
    let url = ws_url(server.addr);
    let mut term = Term::spawn(&["play", &url, "--seek", "--time", "5+3", "--color", "white", "--name", "Alice"], true);
    let posted = term.until("Seek ").await;
    assert!(posted.contains("waiting for someone to accept it"), "{posted}");
    let seek = posted.split(' ').nth(1).expect("seek id").to_string();
    let (code, listed, stderr) = run_to_end(&["seeks", &url]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let line = listed.lines().find(|l| l.starts_with(&seek)).unwrap_or_else(|| panic!("{listed}"));
    assert!(line.contains("Alice") && line.contains("5+3") && line.ends_with("white"), "{line}");

    let mut bob = Client::connect(server.addr).await;
    bob.send(json!({"type":"accept_seek","seek":seek,"name":"Bob"})).await;
    let joined = bob.recv_type("joined").await;
    let game = joined["game"].as_str().expect("game").to_string();
    let intro = term.until("you play white against Bob").await;
    assert!(intro.contains(&game), "{intro}");

    term.type_line("say hello Bob <b>").await;
    let line = bob.recv_type("chat").await;
    assert_eq!(
        (&line["from"], &line["text"], &line["room"]),
        (&json!("Alice"), &json!("hello Bob <b>"), &json!("players"))
    );
    bob.send(json!({"type":"chat","game":game,"room":"players","text":"hi Alice"})).await;
    term.until("[players] Bob: hi Alice").await;
    term.type_line("say").await;
    term.until("Type say and your message").await;

    term.type_line("resign").await;
    term.until("Match: Alice 0 – 1 Bob (1 game)").await;
    term.until("Type rematch to play again").await;
    term.type_line("rematch").await;
    assert_eq!(bob.recv_type("offer").await["kind"], "rematch");
    bob.send(json!({"type":"rematch","game":game})).await;
    term.until("Rematch agreed").await;
    term.until("the rematch — you play black").await;
    // The new game goes on in the same session: Bob, now White, moves and Alice sees it.
    let next = bob.recv_type("rematch").await["next"].as_str().expect("next").to_string();
    let token = joined["token"].as_str().expect("token");
    bob.send(json!({"type":"resume","game":next,"token":token})).await;
    assert_eq!(bob.recv_type("joined").await["color"], "white");
    bob.send(json!({"type":"move","game":next,"uci":"e2e4"})).await;
    term.until("Bob played 1. e4.").await;
    let (status, out, stderr) = term.finish().await;
    assert!(status.success(), "{status}: {stderr}\n{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn logs_in_keeps_the_session_privately_and_plays_under_the_username() {
    let server = start().await;
    server.sign_up("Quinn", "correct horse").await;
    let url = ws_url(server.addr);
    let home = server_support::scratch("term-login");
    let config = home.to_str().expect("utf-8");

    // A wrong password: one line, exit 2, nothing kept.
    let env = [("XDG_CONFIG_HOME", config), ("GAMBIT_PASSWORD", "not it")];
    let (status, _, stderr) =
        Term::spawn_with(&["play", &url, "--login", "quinn", "--vs-bot", "1"], false, &env).finish().await;
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("could not log in: wrong username or password"), "{stderr}");
    assert!(!home.join("gambit/sessions.json").exists());
    // No password and no terminal to ask on.
    let env = [("XDG_CONFIG_HOME", config)];
    let (status, _, stderr) = Term::spawn_with(&["play", &url, "--login", "quinn"], false, &env).finish().await;
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("GAMBIT_PASSWORD"), "{stderr}");

    let env = [("XDG_CONFIG_HOME", config), ("GAMBIT_PASSWORD", "correct horse")];
    let mut term = Term::spawn_with(&["play", &url, "--login", "quinn", "--vs-bot", "1"], true, &env);
    term.until("Logged in as quinn").await;
    term.until("your move").await;
    let file = home.join("gambit/sessions.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).expect("sessions file").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "only the user may read it");
    }
    let sessions: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
    let token = sessions[server.addr.to_string()].as_str().expect("a session for this server").to_string();
    let cookie = format!("gambit_session={token}");
    let me = server.http("GET", "/api/me", &[("Cookie", &cookie)], "").await;
    let game = me.json()["playing"][0].as_str().expect("the game is the account's").to_string();
    let (_, state) = server.get(&format!("/api/games/{game}")).await;
    assert!(state.contains("\"name\":\"Quinn\""), "plays under the username: {state}");
    term.type_line("quit").await;
    let _ = term.finish().await;

    // Later runs use the kept session without logging in again.
    let env = [("XDG_CONFIG_HOME", config)];
    let mut term = Term::spawn_with(&["play", &url, "--vs-bot", "2", "--name", "Someone"], true, &env);
    term.until("your move").await;
    let me = server.http("GET", "/api/me", &[("Cookie", &cookie)], "").await;
    assert_eq!(me.json()["playing"].as_array().map(Vec::len), Some(2), "{}", me.body);
    term.type_line("quit").await;
    let _ = term.finish().await;
    let _ = std::fs::remove_dir_all(&home);
}

#[tokio::test(flavor = "multi_thread")]
async fn plays_as_an_api_tokens_account_and_refuses_a_bad_token() {
    let server = start().await;
    let cookie = server.sign_up("Tess", "correct horse").await;
    let made = server
        .post("/api/tokens", &[("Cookie", &cookie)], json!({"description": "terminal", "scopes": ["board:play"]}))
        .await;
    let token = made.json()["token"].as_str().expect("a token").to_string();
    let url = ws_url(server.addr);
    let home = server_support::scratch("term-token");
    let env = [("XDG_CONFIG_HOME", home.to_str().expect("utf-8"))];

    // Not a token at all: clap's one line and exit 2; an unknown one: the server's refusal.
    let (status, _, stderr) = Term::spawn_with(&["play", &url, "--token", "two words"], false, &env).finish().await;
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("personal API token"), "{stderr}");
    let (status, _, stderr) =
        Term::spawn_with(&["play", &url, "--token", "gmb_nope", "--vs-bot", "1"], false, &env).finish().await;
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("401"), "{stderr}");

    let mut term = Term::spawn_with(&["play", &url, "--token", &token, "--vs-bot", "1"], true, &env);
    term.until("your move").await;
    let me = server.http("GET", "/api/me", &[("Cookie", &cookie)], "").await;
    let game = me.json()["playing"][0].as_str().expect("the game is the token's account's").to_string();
    let (_, state) = server.get(&format!("/api/games/{game}")).await;
    assert!(state.contains("\"name\":\"Tess\""), "plays under the username: {state}");
    assert!(!home.join("gambit/sessions.json").exists(), "a token is kept nowhere");
    term.type_line("quit").await;
    let _ = term.finish().await;
    let _ = std::fs::remove_dir_all(&home);
}

#[tokio::test(flavor = "multi_thread")]
async fn setup_mode_builds_a_position_refuses_every_bad_command_and_plays_from_it() {
    let server = start().await;
    let url = ws_url(server.addr);
    let mut term = Term::spawn(&["play", &url, "--setup", "--vs-bot", "1"], true);
    term.until("Set up the position").await;
    term.until("Ready: 20 legal moves").await;
    term.type_line("help").await;
    term.until("fen FEN").await;
    for (bad, says) in [
        ("fly", "\"fly\" is not a setup command"),
        ("+ X e4", "'X' is not a piece letter"),
        ("+ C e4", "C is a minichess7 piece"),
        ("+ K i9", "\"i9\" is not a square of this board"),
        ("+ K", "is not a setup command (+ LETTER SQUARE"),
        ("- d4", "d4 is already empty"),
        ("= red", "= takes white or black"),
        ("castling maybe", "castling takes on or off"),
        ("enpassant 2", "enpassant takes on or off"),
        ("fen 8/8 w", "the board has 2 ranks; this one needs 8"),
    ] {
        term.type_line(bad).await;
        term.until(says).await;
    }
    term.type_line("clear").await;
    term.until("Not playable yet: impossible position: white has no king").await;
    term.type_line("done").await;
    term.until("cannot start from here: impossible position: white has no king").await;
    for line in ["+ K e1", "+ k e8", "+ Q d1", "+ p a3", "castling off", "= black"] {
        term.type_line(line).await;
        term.until("FEN: ").await;
    }
    term.until("Ready:").await;
    term.type_line("done").await;
    let created = term.until("created").await;
    let game = created.split_whitespace().nth(1).expect("the game id").to_string();
    let (_, state) = server.get(&format!("/api/games/{game}")).await;
    let state: serde_json::Value = serde_json::from_str(&state).expect("json");
    assert_eq!(state["initial_fen"], "4k3/8/8/8/8/p7/8/3QK3 b - - 0 1", "{state}");
    term.type_line("quit").await;
    let (status, out, stderr) = term.finish().await;
    assert!(status.success(), "{status}: {stderr}\n{out}");

    // minichess7: the fairy pieces are placed like the others.
    let mut term = Term::spawn(&["play", &url, "--setup", "--variant", "minichess7", "--vs-bot", "1"], true);
    term.until("Ready:").await;
    for line in ["clear", "+ K d1", "+ k d7", "+ C a1", "+ f g7"] {
        term.type_line(line).await;
        term.until("FEN: ").await;
    }
    term.type_line("done").await;
    let created = term.until("created").await;
    let game = created.split_whitespace().nth(1).expect("the game id").to_string();
    let (_, state) = server.get(&format!("/api/games/{game}")).await;
    assert!(state.contains("\"initial_fen\":\"3k2f/7/7/7/7/7/C2K3 w - - 0 1\""), "{state}");
    term.type_line("quit").await;
    let _ = term.finish().await;

    // Input that ends before done makes no game, and says so.
    let (status, _, stderr) = Term::spawn(&["play", &url, "--setup"], false).finish().await;
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the input ended before done"), "{stderr}");
}

/// Runs the binary to its end without input; (exit code, stderr).
async fn run_to_end(args: &[&str]) -> (Option<i32>, String, String) {
    let term = Term::spawn(args, false);
    let (status, out, stderr) = term.finish().await;
    (status.code(), out, stderr)
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_arguments_unreachable_servers_and_unknown_games_are_one_line_errors() {
    let server = start().await;
    let url = ws_url(server.addr);
    // A port nobody listens on: bind one, then free it.
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        listener.local_addr().expect("addr")
    };
    let unreachable = ws_url(closed);
    let mut white = Client::connect(server.addr).await;
    let (game, _) = white.create(human(), human(), Some("white")).await;

    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["play", &unreachable, "--vs-bot", "1"], "cannot connect to"),
        (vec!["watch", &unreachable, "abcd2345"], "cannot connect to"),
        (vec!["watch", &url, "nosuchgame"], "there is no game \"nosuchgame\""),
        (vec!["play", &url, "--game", "nosuchgame"], "there is no game \"nosuchgame\""),
        (vec!["play", &url, "--game", &game, "--color", "white"], "the white seat is taken"),
        (vec!["play", &url, "--game", &game, "--color", "white"], "to watch the game instead: gambit watch"),
        (vec!["play", &url, "--vs-bot", "13"], "--vs-bot"),
        (vec!["play", &url, "--vs-bot", "1", "--game", "abc"], "cannot be used with"),
        (vec!["play", &url, "--color", "green"], "green"),
        (vec!["play", &url, "--variant", "atomic"], "atomic"),
        (vec!["play", &url, "--name", "<b>x</b>"], "'<' cannot be in a name"),
        (vec!["play", &url, "--name", "  "], "at least one character"),
        (vec!["play", "wss://example.org/ws"], "not supported"),
        (vec!["watch"], "which game?"),
        (vec!["watch", &url], "which game?"),
        (vec!["watch", &url, "--tv", "blitz"], "the TV channels are best and bot"),
    ];
    for (args, needle) in cases {
        let (code, out, stderr) = run_to_end(&args).await;
        assert_eq!(code, Some(2), "{args:?}: {stderr}\n{out}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: expected {needle:?} in {stderr}");
    }
}
