//! The lichess-compatible API over real HTTP: tokens and their refusals here, and a whole
//! game between a Bot API client and a Board API client driven by berserk, the real Python
//! client of lichess's API (tests/api/lichess_clients.py, with python-chess checking every
//! position). Under CI=true a missing python3, berserk or chess fails the test.

use std::process::Stdio;

use serde_json::json;

use crate::server_support::{start, Server};

/// A new account's session cookie and a token of it with `scopes`.
pub async fn account_with_token(server: &Server, username: &str, scopes: &[&str]) -> (String, String) {
    let cookie = server.sign_up(username, "correct horse").await;
    let made =
        server.post("/api/tokens", &[("Cookie", &cookie)], json!({ "description": "test", "scopes": scopes })).await;
    assert_eq!(made.status, 201, "{}", made.body);
    let token = made.json()["token"].as_str().expect("a token").to_string();
    (cookie, token)
}

/// True if python3 with berserk and chess can run; under CI it must.
pub fn python_clients() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import berserk, chess"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        crate::services::missing("python3 with berserk and chess", "they are not installed (.ci/run installs them)");
    }
    ok
}

#[tokio::test]
async fn tokens_are_made_listed_tested_and_revoked_as_on_lichess() {
    let server = start().await;
    let (cookie, token) = account_with_token(&server, "Tokens", &["board:play", "challenge:read"]).await;
    assert!(token.starts_with("gmb_"));
    let bearer = format!("Bearer {token}");

    let me = server.http("GET", "/api/account", &[("Authorization", &bearer)], "").await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(me.json()["username"], "Tokens");
    assert_eq!(me.json()["id"], "tokens");

    // lichess's refusals: an unknown token, no token, a missing scope, bad fields.
    let unknown = server.http("GET", "/api/account", &[("Authorization", "Bearer gmb_nope")], "").await;
    assert_eq!((unknown.status, unknown.json()), (401, json!({ "error": "No such token" })));
    assert_eq!(server.http("GET", "/api/account", &[], "").await.status, 401);
    let upgrade = server.http("POST", "/api/bot/account/upgrade", &[("Authorization", &bearer)], "").await;
    assert_eq!((upgrade.status, upgrade.json()), (403, json!({ "error": "Missing scope" })));
    let bad =
        server.post("/api/tokens", &[("Cookie", &cookie)], json!({ "description": "x", "scopes": ["fly"] })).await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    let blank = server.post("/api/tokens", &[("Cookie", &cookie)], json!({ "description": " ", "scopes": [] })).await;
    assert_eq!(blank.status, 400, "{}", blank.body);
    // A token cannot make tokens: only the logged-in person can.
    let by_token = server.post("/api/tokens", &[("Authorization", &bearer)], json!({ "description": "x" })).await;
    assert_eq!(by_token.status, 401, "{}", by_token.body);

    let test = server.http("POST", "/api/token/test", &[], &format!("{token},gmb_nope")).await;
    assert_eq!(
        test.json()[&token],
        json!({ "userId": "tokens", "scopes": "challenge:read,board:play", "expires": null })
    );
    assert_eq!(test.json()["gmb_nope"], json!(null));

    let list = server.http("GET", "/api/tokens", &[("Cookie", &cookie)], "").await;
    let tokens = list.json()["tokens"].clone();
    assert_eq!(tokens.as_array().map(Vec::len), Some(1), "{}", list.body);
    assert!(!list.body.contains(&token), "the token itself is shown once only");
    let id = tokens[0]["id"].as_i64().expect("an id");
    // Someone else cannot revoke it.
    let (other, _) = account_with_token(&server, "Other", &[]).await;
    assert_eq!(server.http("DELETE", &format!("/api/tokens/{id}"), &[("Cookie", &other)], "").await.status, 404);
    assert_eq!(server.http("DELETE", &format!("/api/tokens/{id}"), &[("Cookie", &cookie)], "").await.status, 204);
    assert_eq!(server.http("GET", "/api/account", &[("Authorization", &bearer)], "").await.status, 401);
}

/// Runs tests/api/lichess_clients.py: a bot account on `bot_at` and a person's board client
/// on `board_at` (one server twice, or two nodes of one cluster), signed up on `bot_at`.
pub async fn play_through_berserk(bot_at: &Server, board_at: &Server) {
    let (_, bot) = account_with_token(bot_at, "Botty", &["bot:play", "challenge:read", "challenge:write"]).await;
    let (_, board) = account_with_token(bot_at, "Alice", &["board:play", "challenge:read", "challenge:write"]).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/lichess_clients.py");
    let (bot_url, board_url) = (bot_at.url(""), board_at.url(""));
    let run = tokio::process::Command::new("python3")
        .args([script, &bot_url, &bot, "Botty", &board_url, &board, "Alice"])
        .output();
    let output = tokio::time::timeout(std::time::Duration::from_secs(120), run).await.expect("in time").expect("ran");
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success() && out.trim() == "ok", "stdout:\n{out}\nstderr:\n{err}");
}

#[tokio::test]
async fn a_bot_and_a_board_client_play_through_berserk() {
    if !python_clients() {
        return;
    }
    let server = start().await;
    play_through_berserk(&server, &server).await;
}

/// An ndjson stream of the API read as it comes, on a connection of its own.
pub(crate) struct Lines {
    reader: tokio::io::BufReader<tokio::net::TcpStream>,
    pending: std::collections::VecDeque<String>,
    partial: String,
}

impl Lines {
    /// GETs `path` with `token`: the status and, for a 200, the stream.
    pub(crate) async fn open(server: &Server, path: &str, token: &str) -> (u16, Lines) {
        Lines::request(server, "GET", path, token, "").await
    }

    /// Any request whose answer streams: `form` is a form body (none if empty), `token` a
    /// Bearer token (none if empty).
    async fn request(server: &Server, method: &str, path: &str, token: &str, form: &str) -> (u16, Lines) {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let mut stream = tokio::net::TcpStream::connect(server.addr).await.expect("connect");
        let mut request = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\n");
        if !token.is_empty() {
            request.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        request.push_str(&format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
            form.len()
        ));
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut reader = tokio::io::BufReader::new(stream);
        let mut status_line = String::new();
        reader.read_line(&mut status_line).await.expect("status");
        let status = status_line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).await.expect("header");
            if header == "\r\n" || header.is_empty() {
                break;
            }
        }
        (status, Lines { reader, pending: Default::default(), partial: String::new() })
    }

    /// The next JSON line (keep-alive empty lines skipped), within the test's patience.
    pub(crate) async fn next(&mut self) -> serde_json::Value {
        use tokio::io::{AsyncBufReadExt, AsyncReadExt};
        let read = async {
            loop {
                if let Some(line) = self.pending.pop_front() {
                    if !line.trim().is_empty() {
                        return serde_json::from_str(&line).expect("a JSON line");
                    }
                    continue;
                }
                // One chunk of the chunked body: its size in hex, then the bytes.
                let mut size = String::new();
                self.reader.read_line(&mut size).await.expect("chunk size");
                let size = usize::from_str_radix(size.trim(), 16).expect("hex size");
                assert!(size > 0, "the stream ended");
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk).await.expect("chunk");
                self.partial.push_str(&String::from_utf8_lossy(&chunk[..size]));
                while let Some((line, rest)) = self.partial.split_once('\n') {
                    self.pending.push_back(line.to_string());
                    self.partial = rest.to_string();
                }
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(10), read).await.expect("a line in time")
    }
}

/// A form POST with a token: the answer.
pub(crate) async fn post_form(
    server: &Server,
    path: &str,
    token: &str,
    form: &str,
) -> crate::server_support::HttpAnswer {
    let auth = format!("Bearer {token}");
    let headers = [("Authorization", auth.as_str()), ("Content-Type", "application/x-www-form-urlencoded")];
    server.http("POST", path, &headers, form).await
}

#[tokio::test]
async fn bots_are_made_from_new_accounts_play_only_through_the_api_and_not_rated_against_people() {
    let server = start().await;
    let all = ["bot:play", "board:play", "challenge:read", "challenge:write"];
    let (_, veteran) = account_with_token(&server, "Veteran", &all).await;
    let (bot_cookie, bot) = account_with_token(&server, "Robo", &all).await;

    // An account with a game cannot become a bot; one without can, once and for good.
    let ai = post_form(&server, "/api/challenge/ai", &veteran, "level=1&color=white").await;
    assert_eq!(ai.status, 201, "{}", ai.body);
    let refused = post_form(&server, "/api/bot/account/upgrade", &veteran, "").await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(refused.json()["error"].as_str().is_some_and(|e| e.contains("played games")), "{}", refused.body);
    assert_eq!(post_form(&server, "/api/bot/account/upgrade", &bot, "").await.status, 200);
    assert_eq!(post_form(&server, "/api/bot/account/upgrade", &bot, "").await.status, 200, "already one");
    let me = server.http("GET", "/api/account", &[("Authorization", &format!("Bearer {bot}"))], "").await;
    assert_eq!(me.json()["title"], "BOT");

    // A bot plays through the Bot API only: not the lobby, not the Board API.
    let mut web = server.client_with(&[("Cookie", &bot_cookie)]).await.expect("a socket");
    web.send(json!({"type":"create"})).await;
    assert!(web.expect_error("bad_request").await["message"].as_str().is_some_and(|m| m.contains("Bot API")));
    let game = ai.json()["id"].as_str().expect("game").to_string();
    let board = post_form(&server, &format!("/api/board/game/{game}/resign"), &bot, "").await;
    assert_eq!(board.status, 400, "{}", board.body);

    // Rated games between a bot and a person need the operator's leave; casual ones do not.
    for (from, to) in [(&bot, "Veteran"), (&veteran, "Robo")] {
        let rated = post_form(&server, &format!("/api/challenge/{to}"), from, "rated=true&clock.limit=300").await;
        assert_eq!(rated.status, 400, "{}", rated.body);
    }
    let casual = post_form(&server, "/api/challenge/Robo", &veteran, "clock.limit=300&clock.increment=2").await;
    assert_eq!(casual.status, 200, "{}", casual.body);
    assert_eq!(casual.json()["challenger"]["name"], "Veteran");
    assert_eq!(casual.json()["destUser"]["title"], "BOT");

    // Someone else's game is no game of theirs: 404, and it is unchanged.
    let theirs = post_form(&server, &format!("/api/bot/game/{game}/move/e2e4"), &bot, "").await;
    assert_eq!(theirs.status, 404, "{}", theirs.body);
    let exported = server.http("GET", &format!("/game/export/{game}"), &[("Accept", "application/json")], "").await;
    assert_eq!(exported.json()["status"], "started");
    assert_eq!(exported.json()["moves"], "");
}

#[tokio::test]
async fn the_event_stream_starts_with_games_in_progress_and_challenges_waiting() {
    let server = start().await;
    let all = ["board:play", "challenge:read", "challenge:write"];
    let (ann_cookie, ann) = account_with_token(&server, "Ann", &all).await;
    let (ben_cookie, ben) = account_with_token(&server, "Ben", &all).await;
    let ai = post_form(&server, "/api/challenge/ai", &ann, "level=2&clock.limit=600").await;
    let game = ai.json()["id"].as_str().expect("game").to_string();
    let challenge = post_form(&server, "/api/challenge/Ann", &ben, "color=black").await;
    let challenge = challenge.json()["id"].as_str().expect("challenge").to_string();

    let (status, mut events) = Lines::open(&server, "/api/stream/event", &ann).await;
    assert_eq!(status, 200);
    let first = events.next().await;
    assert_eq!((&first["type"], &first["game"]["id"]), (&json!("gameStart"), &json!(game)), "{first}");
    assert_eq!(first["game"]["source"], "ai");
    let second = events.next().await;
    assert_eq!((&second["type"], &second["challenge"]["id"]), (&json!("challenge"), &json!(challenge)));
    assert_eq!(second["challenge"]["finalColor"], "black");

    // Withdrawn: Ann hears it; Ann resigns the AI game: she hears it finish.
    assert_eq!(post_form(&server, &format!("/api/challenge/{challenge}/cancel"), &ben, "").await.status, 200);
    assert_eq!(events.next().await["type"], "challengeCanceled");
    assert_eq!(post_form(&server, &format!("/api/board/game/{game}/resign"), &ann, "").await.status, 200);
    let finish = events.next().await;
    assert_eq!((&finish["type"], &finish["game"]["status"]["name"]), (&json!("gameFinish"), &json!("resign")));

    // Games started on the web are the account's too: one against the computer at once, one
    // between two people when the second sits down.
    let mut web = server.client_with(&[("Cookie", &ann_cookie)]).await.expect("a socket");
    let (vs_bot, _) = web.create(crate::server_support::human(), crate::server_support::bot(1), Some("white")).await;
    let started = events.next().await;
    assert_eq!((&started["type"], &started["game"]["id"]), (&json!("gameStart"), &json!(vs_bot)), "{started}");
    let (people, _) = web.create(crate::server_support::human(), crate::server_support::human(), Some("black")).await;
    let mut ben_web = server.client_with(&[("Cookie", &ben_cookie)]).await.expect("a socket");
    ben_web.join(&people, "white").await;
    let started = events.next().await;
    assert_eq!((&started["game"]["id"], &started["game"]["color"]), (&json!(people), &json!("black")), "{started}");

    // A spectator's stream of a finished game is its one line; a game stream is refused to
    // someone who does not play in it.
    let (status, _) = Lines::open(&server, &format!("/api/board/game/stream/{game}"), &ben).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn an_open_challenge_seats_whoever_comes_and_streams_are_limited_per_token() {
    let server = start().await;
    let (_, host) = account_with_token(&server, "Host", &["challenge:write", "board:play"]).await;
    let open = post_form(&server, "/api/challenge/open", &host, "clock.limit=180&clock.increment=2").await;
    assert_eq!(open.status, 200, "{}", open.body);
    let game = open.json()["id"].as_str().expect("game").to_string();
    assert!(open.json()["urlWhite"].as_str().is_some_and(|u| u.ends_with(&format!("/g/{game}?color=white"))));
    let mut white = server.client().await;
    white.join(&game, "white").await;
    let mut black = server.client().await;
    black.join(&game, "black").await;
    assert_eq!(black.recv_type("state").await["status"], "ongoing");
    let bad = post_form(&server, "/api/challenge/open", &host, "clock.limit=-1").await;
    assert_eq!(bad.status, 400, "{}", bad.body);

    // 32 streams at once per token; the 33rd is refused (a closed one frees its slot: the
    // unit test of `StreamSlots`).
    let mut open_streams = Vec::new();
    for _ in 0..32 {
        let (status, lines) = Lines::open(&server, "/api/stream/event", &host).await;
        assert_eq!(status, 200);
        open_streams.push(lines);
    }
    let (status, _) = Lines::open(&server, "/api/stream/event", &host).await;
    assert_eq!(status, 429);
}

#[tokio::test]
async fn a_board_seek_waits_for_its_taker_and_anyone_may_stream_the_game() {
    let server = start().await;
    let (_, seeker) = account_with_token(&server, "Seeker", &["board:play"]).await;
    let (taker_cookie, _) = account_with_token(&server, "Taker", &[]).await;
    let (_, mut events) = Lines::open(&server, "/api/stream/event", &seeker).await;
    let bad = post_form(&server, "/api/board/seek", &seeker, "time=500").await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    let (status, mut seek) =
        Lines::request(&server, "POST", "/api/board/seek", &seeker, "time=5&increment=3&color=white").await;
    assert_eq!(status, 200);

    // A person in the lobby takes it: the held request ends naming the game, which starts.
    let mut taker = server.client_with(&[("Cookie", &taker_cookie)]).await.expect("a socket");
    taker.send(json!({"type":"list"})).await;
    let seeks = taker.recv_type("seeks").await;
    let id = seeks["seeks"][0]["seek"].as_str().expect("the seek is listed").to_string();
    assert_eq!(seeks["seeks"][0]["name"], "Seeker");
    assert_eq!(seeks["seeks"][0]["clock"], json!({"initial_ms": 300000, "increment_ms": 3000}));
    taker.send(json!({"type":"accept_seek","seek":id})).await;
    assert_eq!(taker.recv_type("joined").await["color"], "black");
    let game = seek.next().await["id"].as_str().expect("the game").to_string();
    let started = events.next().await;
    assert_eq!((&started["game"]["id"], &started["game"]["color"]), (&json!(game), &json!("white")), "{started}");

    // Anyone may follow it: the game, then each move's position.
    let (status, mut watch) = Lines::request(&server, "GET", &format!("/api/stream/game/{game}"), "", "").await;
    assert_eq!(status, 200);
    let first = watch.next().await;
    assert_eq!(
        (&first["id"], &first["turns"], &first["player"]),
        (&json!(game), &json!(0), &json!("white")),
        "{first}"
    );
    assert_eq!(first["players"]["black"]["user"]["name"], "Taker");
    assert_eq!(post_form(&server, &format!("/api/board/game/{game}/move/e2e4"), &seeker, "").await.status, 200);
    let moved = watch.next().await;
    assert_eq!(moved["lm"], "e2e4");
    assert_eq!(moved["fen"], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert!(moved["wc"].as_u64().is_some_and(|s| s > 290), "{moved}");
}
