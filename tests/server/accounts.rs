//! Accounts over real HTTP and WebSockets: signing up, logging in and out, every refusal, the
//! session cookie on the WebSocket, seats that follow the account to another device, rated
//! games changing both ratings, the player pages, and all of it surviving a restart.

use crate::server_support;

use std::time::Duration;

use serde_json::{json, Value};
use server_support::{scratch, start, start_with, test_config, Client, Server};

const PASSWORD: &str = "correct horse";

fn credentials(username: &str, password: &str) -> Value {
    json!({"username": username, "password": password})
}

#[tokio::test]
async fn sign_up_log_in_log_out_and_the_cookie() {
    let server = start().await;
    let answer = server.post("/api/signup", &[], credentials("Alice", PASSWORD)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.json(), json!({"username": "Alice", "playing": []}));
    let set = answer.header("set-cookie").expect("cookie");
    for part in ["gambit_session=", "HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=2592000"] {
        assert!(set.contains(part), "{part} in {set}");
    }
    assert!(!set.contains("Secure"), "plain HTTP: {set}");
    let cookie = answer.cookie();
    let token = cookie.trim_start_matches("gambit_session=");
    assert_eq!(token.len(), 32, "a long random token: {cookie}");

    let me = server.http("GET", "/api/me", &[("Cookie", &cookie)], "").await;
    assert_eq!((me.status, me.json()["username"].clone()), (200, json!("Alice")));
    assert_eq!(server.http("GET", "/api/me", &[], "").await.body, "null");

    // Logging in ignores case and opens a second session; logging out ends only its own.
    let again = server.post("/api/login", &[], credentials("aLiCe", PASSWORD)).await;
    assert_eq!((again.status, again.json()["username"].clone()), (200, json!("Alice")));
    let second = again.cookie();
    assert_ne!(second, cookie);
    let out = server.post("/api/logout", &[("Cookie", &cookie)], json!({})).await;
    assert_eq!(out.status, 204);
    assert!(out.header("set-cookie").is_some_and(|c| c.contains("Max-Age=0")), "{}", out.head);
    assert_eq!(server.http("GET", "/api/me", &[("Cookie", &cookie)], "").await.body, "null");
    assert_eq!(server.http("GET", "/api/me", &[("Cookie", &second)], "").await.status, 200);
    // Logging out with no session is fine too.
    assert_eq!(server.post("/api/logout", &[], json!({})).await.status, 204);
    // Behind an HTTPS proxy the cookie is never sent in the clear.
    let https = server.post("/api/login", &[("X-Forwarded-Proto", "https")], credentials("alice", PASSWORD)).await;
    assert!(https.header("set-cookie").is_some_and(|c| c.contains("Secure")), "{}", https.head);
}

#[tokio::test]
async fn every_refusal_says_why_and_changes_nothing() {
    let server = start().await;
    server.sign_up("Bob_1", PASSWORD).await;
    let refused = |status: u16, answer: &server_support::HttpAnswer, needle: &str| {
        assert_eq!(answer.status, status, "{}", answer.body);
        let error = answer.json()["error"].as_str().unwrap_or_default().to_string();
        assert!(error.contains(needle), "{needle:?} in {error:?}");
        assert!(answer.header("set-cookie").is_none(), "no session for a refusal");
    };
    // Taken, ignoring case.
    refused(409, &server.post("/api/signup", &[], credentials("bob_1", PASSWORD)).await, "taken");
    // Bad usernames and passwords.
    refused(400, &server.post("/api/signup", &[], credentials("ab", PASSWORD)).await, "3 to 20");
    refused(400, &server.post("/api/signup", &[], credentials(&"x".repeat(21), PASSWORD)).await, "3 to 20");
    refused(400, &server.post("/api/signup", &[], credentials("with space", PASSWORD)).await, "letters, digits");
    refused(400, &server.post("/api/signup", &[], credentials("Zoë", PASSWORD)).await, "letters, digits");
    refused(400, &server.post("/api/signup", &[], credentials("Carol", "short")).await, "at least 8");
    // Bodies that are not the credentials.
    refused(400, &server.http("POST", "/api/signup", &[], "{not json").await, "username");
    refused(400, &server.post("/api/signup", &[], json!({"username": "Carol"})).await, "password");
    refused(400, &server.post("/api/login", &[], json!({"username": 7, "password": PASSWORD})).await, "username");
    refused(
        400,
        &server.post("/api/signup", &[], json!({"username": "Carol", "password": PASSWORD, "admin": true})).await,
        "admin",
    );
    // None of that made an account.
    assert_eq!(server.get("/api/players/Carol").await.0, 404);
    assert_eq!(server.get("/api/players/ab").await.0, 404);

    // A wrong password and an unknown user get the very same answer.
    let wrong = server.post("/api/login", &[], credentials("Bob_1", "not the password")).await;
    let unknown = server.post("/api/login", &[], credentials("Nobody", "not the password")).await;
    assert_eq!((wrong.status, unknown.status), (401, 401));
    assert_eq!(wrong.body, unknown.body);
    assert_eq!(wrong.json()["error"], "wrong username or password");
}

#[tokio::test]
async fn a_login_flood_is_rate_limited_per_address_and_per_account() {
    let server = start().await;
    server.sign_up("Target", PASSWORD).await;
    let mut limited = None;
    for attempt in 0..30 {
        let answer = server.post("/api/login", &[], credentials("Target", &format!("guess-{attempt}"))).await;
        if answer.status == 429 {
            limited = Some((attempt, answer));
            break;
        }
        assert_eq!(answer.status, 401, "{}", answer.body);
    }
    let (attempt, answer) = limited.expect("a flood of wrong passwords is stopped");
    assert!(attempt <= 10, "stopped after {attempt} tries");
    assert!(answer.json()["error"].as_str().unwrap_or_default().contains("try again in"), "{}", answer.body);
    assert!(answer.header("retry-after").is_some(), "{}", answer.head);
    // While limited, even the right password is not checked.
    assert_eq!(server.post("/api/login", &[], credentials("Target", PASSWORD)).await.status, 429);

    // The account's own limit holds from another address too (a fresh server, so the
    // address's limit is not what stops it).
    let mut config = test_config();
    config.accounts.login_burst = 1000;
    let server = start_with(config).await;
    server.sign_up("Target", PASSWORD).await;
    let statuses: Vec<u16> = {
        let mut all = Vec::new();
        for attempt in 0..12 {
            all.push(server.post("/api/login", &[], credentials("target", &format!("guess-{attempt}"))).await.status);
        }
        all
    };
    assert!(statuses.contains(&429), "the account is limited: {statuses:?}");
}

#[tokio::test]
async fn another_sites_pages_cannot_act_with_the_cookie() {
    let server = start().await;
    let cookie = server.sign_up("Dana", PASSWORD).await;
    let evil = [("Origin", "https://evil.example"), ("Cookie", cookie.as_str())];
    // The WebSocket upgrade and every state-changing request are refused.
    assert_eq!(server.client_with(&evil).await.err(), Some(403));
    let logout = server.post("/api/logout", &evil, json!({})).await;
    assert_eq!(logout.status, 403, "{}", logout.body);
    assert!(logout.json()["error"].as_str().unwrap_or_default().contains("evil.example"));
    assert_eq!(server.post("/api/login", &evil, credentials("Dana", PASSWORD)).await.status, 403);
    assert_eq!(server.post("/api/signup", &evil, credentials("Mallory", PASSWORD)).await.status, 403);
    // The session still works: the refused logout did nothing.
    assert_eq!(server.http("GET", "/api/me", &[("Cookie", &cookie)], "").await.status, 200);
    // The server's own pages may.
    let own = format!("http://{}", server.addr);
    let host = server.addr.to_string();
    let headers = [("Origin", own.as_str()), ("Cookie", cookie.as_str()), ("Host", host.as_str())];
    assert!(server.client_with(&headers).await.is_ok());
}

#[tokio::test]
async fn an_unknown_session_token_is_simply_anonymous() {
    let server = start().await;
    server.sign_up("Erin", PASSWORD).await;
    let stolen = "gambit_session=0123456789abcdef0123456789abcdef";
    assert_eq!(server.http("GET", "/api/me", &[("Cookie", stolen)], "").await.body, "null");
    let mut client = server.client_with(&[("Cookie", stolen)]).await.expect("connects");
    // Anonymous: cannot take the registered name, cannot play rated, cannot resume by account.
    client.send(json!({"type":"create","white":{"kind":"human"},"black":{"kind":"human"},"name":"erin"})).await;
    let refused = client.expect_error("bad_request").await;
    assert!(refused["message"].as_str().unwrap_or_default().contains("registered player"), "{refused}");
    client
        .send(json!({"type":"create","white":{"kind":"human"},"black":{"kind":"human"},
        "clock":{"initial_ms":300000,"increment_ms":3000},"rated":true}))
        .await;
    client.expect_error("login_required").await;
    client.send(json!({"type":"create","white":{"kind":"human"},"black":{"kind":"human"},"name":"Frank"})).await;
    let created = client.recv_type("created").await;
    let game = created["game"].as_str().expect("game").to_string();
    let state = client.recv_type("state").await;
    assert_eq!(state["seats"]["white"]["name"], "Frank");
    client.send(json!({"type":"resume","game":game})).await;
    let refused = client.expect_error("bad_request").await;
    assert!(refused["message"].as_str().unwrap_or_default().contains("token"), "{refused}");
}

/// A logged-in WebSocket client.
async fn logged_in(server: &Server, cookie: &str) -> Client {
    server.client_with(&[("Cookie", cookie)]).await.expect("connects")
}

#[tokio::test]
async fn a_seat_follows_the_account_to_another_device() {
    let server = start().await;
    let laptop_cookie = server.sign_up("Gina", PASSWORD).await;
    let mut laptop = logged_in(&server, &laptop_cookie).await;
    // The name given is ignored: a logged-in player is their username.
    laptop
        .send(json!({"type":"create","white":{"kind":"human"},"black":{"kind":"bot","level":1},"name":"Someone"}))
        .await;
    let created = laptop.recv_type("created").await;
    let game = created["game"].as_str().expect("game").to_string();
    let state = laptop.recv_type("state").await;
    assert_eq!(state["seats"]["white"]["name"], "Gina");
    laptop.play(&game, "e2e4").await;
    let me = server.http("GET", "/api/me", &[("Cookie", &laptop_cookie)], "").await;
    assert_eq!(me.json()["playing"], json!([game]));
    laptop.close().await;

    // Another device: log in again, resume with no token.
    let phone_cookie = server.post("/api/login", &[], credentials("gina", PASSWORD)).await.cookie();
    let mut phone = logged_in(&server, &phone_cookie).await;
    phone.send(json!({"type":"resume","game":game})).await;
    let joined = phone.recv_type("joined").await;
    assert_eq!(joined["color"], "white", "{joined}");
    assert_eq!(joined["token"], created["token"], "the same seat");
    let state = phone.recv_type("state").await;
    assert_eq!(state["moves"][0], "e2e4", "{state}");
    // The bot's answer: in the state already, or still to come.
    let now = if state["moves"].as_array().map(Vec::len) == Some(2) { state } else { phone.recv_type("move").await };
    phone.play(&game, now["legal"][0].as_str().expect("a legal move")).await;

    // Someone else's account holds no seat there.
    let other = server.sign_up("Hank", PASSWORD).await;
    let mut stranger = logged_in(&server, &other).await;
    stranger.send(json!({"type":"resume","game":game})).await;
    stranger.expect_error("not_a_player").await;
}

/// Creates a rated 5+3 game by `white` and seats `black`: (game, white client, black client).
async fn rated_game(server: &Server, white: &str, black: &str) -> (String, Client, Client) {
    let mut w = logged_in(server, white).await;
    w.send(json!({"type":"create","white":{"kind":"human"},"black":{"kind":"human"},"as":"white",
        "clock":{"initial_ms":300000,"increment_ms":3000},"rated":true}))
        .await;
    let game = w.recv_type("created").await["game"].as_str().expect("game").to_string();
    assert_eq!(w.recv_type("state").await["rated"], true);
    let mut b = logged_in(server, black).await;
    b.join(&game, "black").await;
    (game, w, b)
}

#[tokio::test]
async fn rated_games_refuse_what_cannot_be_rated() {
    let server = start().await;
    let ivy = server.sign_up("Ivy", PASSWORD).await;
    let mut client = logged_in(&server, &ivy).await;
    let timed = json!({"initial_ms":300000,"increment_ms":3000});
    for (spec, needle) in [
        (json!({"white":{"kind":"human"},"black":{"kind":"human"},"rated":true}), "clock"),
        (
            json!({"white":{"kind":"human"},"black":{"kind":"human"},"rated":true,"clock":timed,
                   "fen":"4k3/8/8/8/8/8/8/4K2R w K - 0 1"}),
            "usual position",
        ),
        (json!({"white":{"kind":"human"},"black":{"kind":"bot","level":2},"rated":true,"clock":timed}), "computer"),
    ] {
        let mut create = spec.clone();
        create["type"] = json!("create");
        let refused = client.answer(create).await;
        assert_eq!(refused["code"], "bad_request", "{spec}: {refused}");
        assert!(refused["message"].as_str().unwrap_or_default().contains(needle), "{needle}: {refused}");
    }
    // An anonymous player may not join a rated game, nor the creator the other seat.
    client
        .send(json!({"type":"create","white":{"kind":"human"},"black":{"kind":"human"},"as":"white",
        "clock":timed,"rated":true}))
        .await;
    let game = client.recv_type("created").await["game"].as_str().expect("game").to_string();
    let mut anonymous = server.client().await;
    anonymous.send(json!({"type":"join","game":game})).await;
    anonymous.expect_error("login_required").await;
    let mut again = logged_in(&server, &ivy).await;
    again.send(json!({"type":"join","game":game,"color":"black"})).await;
    again.expect_error("bad_request").await;
    // A rated seek: only for logged-in players, to post and to accept.
    let seek = json!({"type":"seek","clock":timed,"rated":true});
    anonymous.send(seek.clone()).await;
    anonymous.expect_error("login_required").await;
    client.send(seek).await;
    let id = client.recv_type("seeking").await["seek"].clone();
    anonymous.send(json!({"type":"accept_seek","seek":id})).await;
    anonymous.expect_error("login_required").await;
    // The refusal left the seek open: the creator's other device may not take it, a
    // logged-in player may.
    let mut own = logged_in(&server, &ivy).await;
    own.send(json!({"type":"accept_seek","seek":id})).await;
    own.expect_error("bad_request").await;
    let sam = server.sign_up("Sam", PASSWORD).await;
    let mut sam = logged_in(&server, &sam).await;
    sam.send(json!({"type":"accept_seek","seek":id})).await;
    let game = sam.recv_type("joined").await["game"].clone();
    assert!(game.is_string(), "{game}");
    assert_eq!(client.recv_type("joined").await["game"], game, "the creator sits down");
}

#[tokio::test]
async fn a_rated_game_changes_both_ratings_and_shows_on_the_player_pages() {
    let server = start().await;
    let (jack, kate) = (server.sign_up("Jack", PASSWORD).await, server.sign_up("Kate", PASSWORD).await);
    let (game, mut white, mut black) = rated_game(&server, &jack, &kate).await;
    white.play(&game, "e2e4").await;
    black.play(&game, "e7e5").await;
    black.send(json!({"type":"resign","game":game})).await;
    let end = white.recv_type("end").await;
    assert_eq!(end["result"], "1-0");
    let ratings = &end["ratings"];
    let (up, down) = (ratings["white"]["change"].as_i64(), ratings["black"]["change"].as_i64());
    assert!(up.is_some_and(|c| c > 0) && down.is_some_and(|c| c < 0), "{end}");
    assert_eq!(up.map(|c| -c), down, "two new players move by the same amount");
    assert_eq!(ratings["white"]["rating"].as_i64(), up.map(|c| 1500 + c));
    assert_eq!(ratings["white"]["provisional"], true);
    assert_eq!(black.recv_type("end").await["ratings"], *ratings, "both players see it");
    // A spectator arriving later sees it in the state.
    let mut late = server.client().await;
    late.send(json!({"type":"watch","game":game})).await;
    assert_eq!(late.recv_type("state").await["ratings"], *ratings);

    let (status, page) = server.get("/api/players/jack").await;
    assert_eq!(status, 200, "{page}");
    let page: Value = serde_json::from_str(&page).expect("json");
    assert_eq!(page["username"], "Jack");
    assert_eq!(page["ratings"]["blitz"]["games"], 1);
    assert_eq!(page["ratings"]["blitz"]["rating"], ratings["white"]["rating"]);
    assert_eq!(page["ratings"]["blitz"]["provisional"], true);
    assert_eq!(page["ratings"]["bullet"], json!({"rating":1500,"rd":500,"provisional":true,"games":0}));
    assert_eq!((page["wins"].as_u64(), page["draws"].as_u64(), page["losses"].as_u64()), (Some(1), Some(0), Some(0)));
    assert_eq!(page["history"]["blitz"].as_array().map(Vec::len), Some(1), "{page}");
    let (_, kate_page) = server.get("/api/players/Kate").await;
    assert!(kate_page.contains("\"losses\":1"), "{kate_page}");

    let (status, history) = server.get("/api/players/Jack/games").await;
    assert_eq!(status, 200);
    let history: Value = serde_json::from_str(&history).expect("json");
    assert_eq!((history["total"].as_u64(), history["pages"].as_u64()), (Some(1), Some(1)));
    let entry = &history["games"][0];
    assert_eq!(entry["game"], game.as_str());
    assert_eq!(
        (entry["rated"].clone(), entry["category"].clone(), entry["color"].clone()),
        (json!(true), json!("blitz"), json!("white"))
    );
    assert_eq!(entry["white"]["change"], ratings["white"]["change"]);
    assert_eq!(entry["black"]["name"], "Kate");
    let (status, pgn) = server.get("/api/players/Jack/games.pgn").await;
    assert_eq!(status, 200);
    assert!(pgn.contains("[White \"Jack\"]") && pgn.contains("[Black \"Kate\"]") && pgn.contains("1. e4 e5"), "{pgn}");

    for (path, status) in [
        ("/api/players/Jack/games?page=0", 400),
        ("/api/players/Jack/games?page=x", 400),
        ("/api/players/Jack/games?pages=1", 400),
        ("/api/players/Jack/games?page=2", 200),
        ("/api/players/Nobody", 404),
        ("/api/players/Nobody/games", 404),
        ("/api/players/Nobody/games.pgn", 404),
        ("/api/leaderboard", 400),
        ("/api/leaderboard?category=hyper", 400),
        ("/api/leaderboard?category=blitz", 200),
    ] {
        assert_eq!(server.get(path).await.0, status, "{path}");
    }
    // New players are provisional: not on the leaderboard yet.
    let (_, board) = server.get("/api/leaderboard?category=blitz").await;
    assert_eq!(serde_json::from_str::<Value>(&board).expect("json"), json!({"category":"blitz","players":[]}));
}

#[tokio::test]
async fn an_aborted_rated_game_changes_no_rating() {
    let server = start().await;
    let (lena, mike) = (server.sign_up("Lena", PASSWORD).await, server.sign_up("Mike", PASSWORD).await);
    let (game, mut white, _black) = rated_game(&server, &lena, &mike).await;
    white.play(&game, "e2e4").await;
    white.send(json!({"type":"abort","game":game})).await;
    let end = white.recv_type("end").await;
    assert!(end.get("ratings").is_none(), "{end}");
    let (_, page) = server.get("/api/players/Lena").await;
    assert!(page.contains("\"blitz\":{\"rating\":1500,\"rd\":500,\"provisional\":true,\"games\":0}"), "{page}");
}

#[tokio::test]
async fn accounts_sessions_and_ratings_survive_a_restart() {
    let dir = scratch("accounts-restart");
    let mut config = test_config();
    config.db = dir.join("gambit.db").to_str().expect("utf-8").to_string();
    let server = start_with(config.clone()).await;
    let (nina, owen) = (server.sign_up("Nina", PASSWORD).await, server.sign_up("Owen", PASSWORD).await);
    let (game, mut white, mut black) = rated_game(&server, &nina, &owen).await;
    white.play(&game, "e2e4").await;
    white.send(json!({"type":"resign","game":game})).await;
    let ratings = black.recv_type("end").await["ratings"].clone();
    drop((white, black));
    drop(server);
    tokio::time::sleep(Duration::from_millis(800)).await;

    let server = start_with(config).await;
    // The session cookie still works; the password still does; the name is still taken.
    let me = server.http("GET", "/api/me", &[("Cookie", &nina)], "").await;
    assert_eq!((me.status, me.json()["username"].clone()), (200, json!("Nina")), "{}", me.body);
    assert_eq!(server.post("/api/login", &[], credentials("owen", PASSWORD)).await.status, 200);
    assert_eq!(server.post("/api/signup", &[], credentials("NINA", PASSWORD)).await.status, 409);
    let (_, page) = server.get("/api/players/Owen").await;
    let page: Value = serde_json::from_str(&page).expect("json");
    assert_eq!(page["ratings"]["blitz"]["rating"], ratings["black"]["rating"], "{page}");
    assert_eq!(page["wins"], 1);
    // The finished game shows its rating change from the archive.
    let (_, state) = server.get(&format!("/api/games/{game}")).await;
    assert_eq!(serde_json::from_str::<Value>(&state).expect("json")["ratings"], ratings);
    drop(server);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_rematch_is_rated_too_and_its_seats_follow_the_accounts() {
    let server = start().await;
    let (pia, rex) = (server.sign_up("Pia", PASSWORD).await, server.sign_up("Rex", PASSWORD).await);
    let (game, mut white, mut black) = rated_game(&server, &pia, &rex).await;
    white.play(&game, "e2e4").await;
    white.send(json!({"type":"resign","game":game})).await;
    let first = white.recv_type("end").await["ratings"].clone();
    black.send(json!({"type":"rematch","game":game})).await;
    white.recv_type("offer").await;
    white.send(json!({"type":"rematch","game":game})).await;
    let next = white.recv_type("rematch").await["next"].as_str().expect("next").to_string();

    // Rex, now White, opens the rematch on another device: no token, the account's seat.
    let mut phone = logged_in(&server, &rex).await;
    phone.send(json!({"type":"resume","game":next})).await;
    assert_eq!(phone.recv_type("joined").await["color"], "white");
    let state = phone.recv_type("state").await;
    assert_eq!((&state["rated"], state.get("ratings")), (&json!(true), None), "{state}");
    phone.play(&next, "d2d4").await;
    // Pia carries on with the token she had.
    let mut pia_again = logged_in(&server, &pia).await;
    pia_again.send(json!({"type":"resume","game":next})).await;
    assert_eq!(pia_again.recv_type("joined").await["color"], "black");
    pia_again.play(&next, "d7d5").await;
    phone.send(json!({"type":"resign","game":next})).await;
    let second = pia_again.recv_type("end").await["ratings"].clone();
    assert!(second["black"]["change"].as_i64().is_some_and(|c| c > 0), "{second}");
    assert_eq!(
        second["black"]["rating"].as_i64(),
        first["white"]["rating"].as_i64().zip(second["black"]["change"].as_i64()).map(|(a, b)| a + b),
        "the second game starts from the first's rating"
    );
    let (_, page) = server.get("/api/players/Pia").await;
    assert!(page.contains("\"games\":2"), "{page}");
}

/// The `gambit_device=…` pair from an answer's `Set-Cookie` headers.
fn device_cookie(answer: &server_support::HttpAnswer) -> String {
    answer
        .head
        .lines()
        .filter_map(|l| l.strip_prefix("set-cookie: "))
        .find(|c| c.starts_with("gambit_device="))
        .and_then(|c| c.split(';').next())
        .expect("a device cookie")
        .to_string()
}

/// Strangers guessing from ever new addresses cannot lock the owner out: a browser that logged
/// in before (its device cookie) and an address the owner logged in from are not held by the
/// account's limit on strangers. (Before, one bucket per account was shared by attackers and
/// owner alike: one wrong guess a second kept the owner's right password at 429.)
#[tokio::test]
async fn strangers_guessing_cannot_lock_the_owner_out() {
    let mut config = test_config();
    // Clients are told apart by X-Forwarded-For, as behind the server's own proxy.
    config.trusted_proxies = vec!["127.0.0.1".parse().expect("ip")];
    let server = start_with(config).await;
    let post = |ip: String, password: &'static str, cookie: Option<String>| {
        let server = &server;
        async move {
            let mut headers = vec![("X-Forwarded-For", ip)];
            if let Some(cookie) = cookie {
                headers.push(("Cookie", cookie));
            }
            let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            server.post("/api/login", &headers, credentials("Olga", password)).await
        }
    };
    let home = "198.51.100.7".to_string();
    let signed = server.post("/api/signup", &[("X-Forwarded-For", home.as_str())], credentials("Olga", PASSWORD)).await;
    assert_eq!(signed.status, 200, "{}", signed.body);
    // The owner logs in once from home; the browser keeps its device cookie (sent to /api/login only).
    let first = post(home.clone(), PASSWORD, None).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let device = device_cookie(&first);
    let set = first.head.lines().find(|l| l.contains("gambit_device=")).expect("set").to_string();
    for part in ["HttpOnly", "SameSite=Strict", "Path=/api/login"] {
        assert!(set.contains(part), "{part} in {set}");
    }

    // Strangers guess from a new address each time until the account holds them off.
    let mut held = false;
    for n in 1..=30 {
        let answer = post(format!("203.0.113.{n}"), "wrong guess", None).await;
        assert!(matches!(answer.status, 401 | 429), "{}", answer.body);
        if answer.status == 429 {
            held = true;
            assert!(answer.header("retry-after").is_some(), "{}", answer.head);
            break;
        }
    }
    assert!(held, "guesses at one account from many addresses are limited");
    assert_eq!(
        post("203.0.113.99".into(), PASSWORD, None).await.status,
        429,
        "a stranger waits, right password or not"
    );

    // The owner is not: with the device cookie from anywhere, and from home without it.
    let answer = post("192.0.2.44".into(), PASSWORD, Some(device.clone())).await;
    assert_eq!(answer.status, 200, "the owner's browser on another network: {}", answer.body);
    assert_eq!(post(home.clone(), PASSWORD, None).await.status, 200, "the owner's address");
    // A device cookie is the account's own: made up, or another account's, it counts for nothing.
    let forged = device.rsplit_once('.').map(|(head, _)| format!("{head}.{}", "0".repeat(32))).expect("mac");
    assert_eq!(post("192.0.2.45".into(), PASSWORD, Some(forged)).await.status, 429);
    // And the device's own guesses are limited too: a stolen cookie is no key.
    let mut limited = false;
    for _ in 0..10 {
        if post("192.0.2.46".into(), "wrong guess", Some(device.clone())).await.status == 429 {
            limited = true;
            break;
        }
    }
    assert!(limited, "wrong guesses with a device cookie are limited by that cookie");
}

/// Logging out takes the account from sockets opened before: one cannot create a rated game
/// or take a seat as the account any more, on this connection or any other of that session.
/// Log out everywhere ends every session; a password change ends every other one.
#[tokio::test]
async fn logging_out_reaches_open_sockets_everywhere() {
    let server = start().await;
    let cookie = server.sign_up("Pavel", PASSWORD).await;
    let mut socket = logged_in(&server, &cookie).await;
    let rated = json!({"type":"create","white":{"kind":"human"},"black":{"kind":"human"},"as":"white",
        "clock":{"initial_ms":300000,"increment_ms":3000},"rated":true});
    socket.send(rated.clone()).await;
    assert_eq!(socket.recv_type("created").await["type"], "created", "logged in: rated is fine");
    socket.recv_type("state").await;

    assert_eq!(server.post("/api/logout", &[("Cookie", &cookie)], json!({})).await.status, 204);
    socket.send(rated.clone()).await;
    let refused = socket.expect_error("login_required").await;
    assert!(refused["message"].as_str().unwrap_or_default().contains("log in"), "{refused}");
    // Nor may the socket go on under the account's name.
    socket.send(json!({"type":"create","white":{"kind":"human"},"black":{"kind":"human"},"as":"white"})).await;
    socket.recv_type("created").await;
    let state = socket.recv_type("state").await;
    assert_eq!(state["seats"]["white"], json!({"kind":"human","online":true,"name":"Anonymous"}), "{state}");

    // Log out everywhere: every session of the account ends, sockets included.
    let phone = server.post("/api/login", &[], credentials("Pavel", PASSWORD)).await.cookie();
    let laptop = server.post("/api/login", &[], credentials("Pavel", PASSWORD)).await.cookie();
    let mut on_phone = logged_in(&server, &phone).await;
    assert_eq!(server.post("/api/logout/everywhere", &[("Cookie", &laptop)], json!({})).await.status, 204);
    for c in [&phone, &laptop] {
        assert_eq!(server.http("GET", "/api/me", &[("Cookie", c)], "").await.body, "null");
    }
    on_phone.send(rated.clone()).await;
    on_phone.expect_error("login_required").await;
    assert_eq!(server.post("/api/logout/everywhere", &[], json!({})).await.status, 401, "not logged in");

    // A new password, given the current one: every other session ends, this one stays.
    let a = server.post("/api/login", &[], credentials("Pavel", PASSWORD)).await.cookie();
    let b = server.post("/api/login", &[], credentials("Pavel", PASSWORD)).await.cookie();
    let change = |cookie: String, current: &'static str, new: &'static str| {
        let server = &server;
        async move { server.post("/api/password", &[("Cookie", &cookie)], json!({"current": current, "new": new})).await }
    };
    assert_eq!(change(a.clone(), "not it at all", "battery staple").await.status, 401, "the current one is checked");
    assert_eq!(change(a.clone(), PASSWORD, "short").await.status, 400, "the new one is checked");
    assert_eq!(server.http("GET", "/api/me", &[("Cookie", &b)], "").await.status, 200, "refusals change nothing");
    assert_eq!(change(a.clone(), PASSWORD, "battery staple").await.status, 204);
    assert_eq!(server.http("GET", "/api/me", &[("Cookie", &a)], "").await.status, 200, "this session stays");
    assert_eq!(server.http("GET", "/api/me", &[("Cookie", &b)], "").await.body, "null", "the other ends");
    assert_eq!(server.post("/api/login", &[], credentials("Pavel", PASSWORD)).await.status, 401);
    assert_eq!(server.post("/api/login", &[], credentials("Pavel", "battery staple")).await.status, 200);
    let bad = server.http("POST", "/api/password", &[("Cookie", &a)], "{\"current\":1}").await;
    assert_eq!(bad.status, 400, "{}", bad.body);
}

/// A chosen name may not pass for a registered one: case, look-alike letters of other scripts
/// (Unicode TR39 skeletons) and invisible characters are all caught; seats say which names
/// are accounts.
#[tokio::test]
async fn look_alikes_of_registered_names_are_refused_and_accounts_are_marked() {
    let server = start().await;
    let cookie = server.sign_up("Alice", PASSWORD).await;
    let mut anon = server.client().await;
    for (name, says) in [
        ("ALICE", "belongs to a registered player"),
        ("Alic\u{435}", "looks like Alice"),
        ("\u{410}lice", "looks like Alice"),
        ("Alice\u{34f}", "cannot be in a name"),
        ("Alice\u{fe0f}", "cannot be in a name"),
        ("\u{ff21}lice", "cannot be in a name"),
    ] {
        anon.send(json!({"type":"create","white":{"kind":"human"},"black":{"kind":"human"},"as":"white","name":name}))
            .await;
        let error = anon.expect_error("bad_request").await;
        assert!(error["message"].as_str().unwrap_or_default().contains(says), "{name:?}: {error}");
    }
    // Signing up a look-alike of a username is refused too.
    let answer = server.post("/api/signup", &[], credentials("ALlCE", PASSWORD)).await;
    assert_eq!(answer.status, 200, "capital I and l are told apart ignoring case: {}", answer.body);
    let answer = server.post("/api/signup", &[], credentials("rnary", PASSWORD)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let answer = server.post("/api/signup", &[], credentials("mary", PASSWORD)).await;
    assert_eq!(answer.status, 409, "m looks like rn: {}", answer.body);
    assert!(answer.json()["error"].as_str().unwrap_or_default().contains("rnary"), "{}", answer.body);

    // Seats: an account's is marked, a chosen name's is not.
    anon.send(json!({"type":"create","white":{"kind":"human"},"black":{"kind":"human"},"as":"white","name":"Alicia"}))
        .await;
    let game = anon.recv_type("created").await["game"].as_str().expect("game").to_string();
    anon.recv_type("state").await;
    let mut alice = logged_in(&server, &cookie).await;
    alice.join(&game, "black").await;
    let state = alice.recv_type("state").await;
    assert_eq!(state["seats"]["white"], json!({"kind":"human","online":true,"name":"Alicia"}), "{state}");
    assert_eq!(state["seats"]["black"], json!({"kind":"human","online":true,"name":"Alice","account":true}), "{state}");
}
