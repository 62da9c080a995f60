//! Accounts, ratings and the archive in a real browser (headless Chromium over WebDriver, as in
//! tests/browser/play.rs, whose helpers are in tests/browser_support/). Each browser is its own
//! session with its own cookies: signing up in one logs in that one only.
//!
//! Without chromium and chromedriver these tests fail when CI=true and are skipped otherwise.

use crate::browser_support;
use crate::server_support;

use std::time::{Duration, Instant};

use browser_support::*;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use server_support::{start, start_with, test_config, Server};

/// A username no other run of these tests has used: a letter, the process id, and `tag`.
fn unique_name(tag: &str) -> String {
    format!("{tag}{}", std::process::id() % 10_000_000)
}

const PASSWORD: &str = "correct horse battery";

/// Types `text` into the input `id`, replacing what it held.
async fn type_into(c: &Client, id: &str, text: &str) {
    let input = c.wait().at_most(WAIT).for_element(Locator::Id(id)).await.unwrap_or_else(|e| panic!("#{id}: {e}"));
    input.clear().await.expect("clear");
    input.send_keys(text).await.expect("type");
}

/// Fills in the form at `/login` or `/signup` (`page`) and sends it.
async fn submit_account_form(c: &Client, server: &Server, page: &str, username: &str, password: &str) {
    open(c, server, page).await;
    type_into(c, "username", username).await;
    type_into(c, "password", password).await;
    click_css(c, "#account-submit").await;
}

/// Waits until the top bar names `username`, linking to their page, with "Log out".
async fn wait_logged_in(c: &Client, username: &str) {
    let script = format!(
        "const a = document.getElementById('account-name');
         return !!a && a.textContent === {username:?} && a.getAttribute('href') === '/@/' + {username:?}
           && document.getElementById('logout')?.textContent === 'Log out' && document.getElementById('name-box').hidden"
    );
    wait_js(c, &format!("{username} in the top bar"), &script).await;
}

/// Waits until the top bar offers "Log in" and "Sign up" (and no account).
async fn wait_logged_out(c: &Client) {
    wait_js(
        c,
        "Log in and Sign up in the top bar",
        "return document.getElementById('login-link')?.textContent === 'Log in'
           && document.getElementById('signup-link')?.textContent === 'Sign up'
           && !document.getElementById('account-name') && !document.getElementById('logout')",
    )
    .await;
}

/// Signs up as `username` and waits for the lobby, logged in.
async fn sign_up(c: &Client, server: &Server, username: &str) {
    submit_account_form(c, server, "/signup", username, PASSWORD).await;
    wait_js(c, "the lobby after signing up", "return location.pathname === '/' && !!document.getElementById('games')")
        .await;
    wait_logged_in(c, username).await;
}

/// The game id of the game page `c` shows.
async fn game_id(c: &Client) -> String {
    let path = current_path(c).await;
    path.strip_prefix("/g/").unwrap_or_else(|| panic!("not a game page: {path}")).to_string()
}

async fn text_of(c: &Client, css: &str) -> String {
    let script = format!("return document.querySelector({css:?})?.textContent ?? null");
    c.execute(&script, vec![]).await.ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// Presses `key` (a WebDriver key code) on whatever has the focus.
async fn press(c: &Client, key: char) {
    let keys =
        KeyActions::new("keyboard".to_string()).then(KeyAction::Down { value: key }).then(KeyAction::Up { value: key });
    c.perform_actions(keys).await.expect("press a key");
}

const ARROW_LEFT: char = '\u{e012}';
const ARROW_RIGHT: char = '\u{e014}';

/// Alice signs up in one browser (a wrong password is refused with the server's words first,
/// on the login form), starts a game against the computer as her account — no name asked —
/// and plays a move; she logs out and the top bar offers "Log in" again. In another browser she
/// logs in: the lobby lists the game under "Your games"; opening it seats her (no token is
/// stored in that browser: the account's seat is asked for), and she plays the next move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_sign_up_log_out_log_in_elsewhere_and_resume() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(1200, 900).await;
    let b = driver.browser(1200, 900).await;
    let alice = unique_name("al");

    // Anonymous at first: "Log in", "Sign up" and the leaderboard in the top bar.
    open_lobby(&a, &server).await;
    wait_logged_out(&a).await;
    assert_eq!(text_of(&a, "#leaderboard-link").await, "Leaderboard");
    assert_eq!(
        a.execute("return document.getElementById('rated').disabled", vec![]).await.ok(),
        Some(json!(true)),
        "no rated games before logging in"
    );

    // The form's hints say what a username may hold, while typing.
    open(&a, &server, "/signup").await;
    type_into(&a, "username", "a b").await;
    wait_js(
        &a,
        "the username hint",
        "return document.getElementById('username-hint').textContent.startsWith('A space cannot be in a username')",
    )
    .await;
    sign_up(&a, &server, &alice).await;
    screenshot(&a, "account-lobby.png").await;

    // Taken: the server's refusal shows on the form.
    submit_account_form(&b, &server, "/signup", &alice.to_uppercase(), PASSWORD).await;
    let taken = wait_js(&b, "the refusal", "return document.getElementById('account-error').textContent").await;
    assert!(taken.as_str().is_some_and(|t| !t.is_empty()), "{taken}");
    assert_eq!(current_path(&b).await, "/signup");

    // Alice plays the computer as her account: the seat carries her username.
    open_lobby(&a, &server).await;
    wait_js(&a, "the rated switch enabled", "return !document.getElementById('rated').disabled").await;
    click_css(&a, "#play-bot").await;
    wait_js(
        &a,
        "the game page",
        "return location.pathname.startsWith('/g/') && document.getElementById('app').dataset.status === 'ongoing'",
    )
    .await;
    assert_eq!(
        a.execute("return document.getElementById('name-dialog')?.open ?? false", vec![]).await.ok(),
        Some(json!(false)),
        "no name asked of an account"
    );
    let game = game_id(&a).await;
    wait_js(
        &a,
        "her username at the board",
        &format!(
            "return document.querySelector('#player-bottom .name')?.textContent === {:?}",
            format!("{alice} (you)")
        ),
    )
    .await;
    assert!(text_of(&a, "#game-mode").await.starts_with("Casual"), "{}", text_of(&a, "#game-mode").await);
    let mv = some_legal_move(&a).await;
    click_move(&a, &mv).await;
    wait_plies(&a, 2).await;
    wait_status(&a, "Your move").await;

    // She logs out: the top bar offers "Log in" again.
    click_css(&a, "#logout").await;
    wait_logged_out(&a).await;
    let me = a.execute("return fetch('/api/me').then((r) => r.text())", vec![]).await;
    assert_eq!(me.ok(), Some(json!("null")), "the session is over");

    // Elsewhere: a wrong password first, refused in the server's words; then the right one.
    submit_account_form(&b, &server, "/login", &alice, "not the password").await;
    let refused = wait_js(&b, "the refusal", "return document.getElementById('account-error').textContent").await;
    assert_eq!(refused, json!("wrong username or password"));
    submit_account_form(&b, &server, "/login", &alice.to_lowercase(), PASSWORD).await;
    wait_js(&b, "the lobby after logging in", "return location.pathname === '/' && !!document.getElementById('games')")
        .await;
    wait_logged_in(&b, &alice).await;
    let stored = format!("return localStorage.getItem('gambit:seat:{game}')");
    assert_eq!(b.execute(&stored, vec![]).await.ok(), Some(Value::Null), "no token for the game in this browser");

    // The lobby lists the game under "Your games".
    let link = format!("#my-games a[href='/g/{game}']");
    wait_js(
        &b,
        "the game under Your games",
        &format!("return !document.getElementById('your-games').hidden && !!document.querySelector({link:?})"),
    )
    .await;
    assert_eq!(text_of(&b, "#my-games-title").await, "Your games");
    screenshot(&b, "account-your-games.png").await;
    click_css(&b, &link).await;

    // Seated by the account, with no token stored in this browser: the next move is hers.
    wait_js(&b, "white's seat", "return document.getElementById('app').dataset.seat === 'white'").await;
    wait_plies(&b, 2).await;
    wait_status(&b, "Your move").await;
    let stored = format!("return JSON.parse(localStorage.getItem('gambit:seat:{game}'))?.color");
    assert_eq!(
        b.execute(&stored, vec![]).await.ok(),
        Some(json!("white")),
        "the token from `joined` is kept like any seat's"
    );
    let mv = some_legal_move(&b).await;
    click_move(&b, &mv).await;
    wait_plies(&b, 4).await;
    wait_status(&b, "Your move").await;
    for p in [a, b] {
        let _ = p.close().await;
    }
}

/// Two new accounts play a rated 5+3 game from a seek: Alice posts it rated, Bob accepts; the
/// lists say "Rated". Two moves, Alice resigns: both end screens show both new ratings with
/// their changes, Bob's up and Alice's down. Alice's page lists the game, shows her blitz
/// rating and draws its point on the graph; the leaderboard shows its table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_blitz_game_changes_both_ratings() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(1200, 900).await;
    let b = driver.browser(1200, 900).await;
    let (alice, bob) = (unique_name("ra"), unique_name("rb"));
    sign_up(&a, &server, &alice).await;
    sign_up(&b, &server, &bob).await;

    // Alice seeks a rated 5+3 game.
    a.find(Locator::Id("seek-time")).await.expect("time").select_by_value("5+3").await.expect("5+3");
    wait_js(&a, "the rated switch enabled", "return !document.getElementById('seek-rated').disabled").await;
    click_css(&a, "#seek-rated").await;
    click_css(&a, "#post-seek").await;
    wait_js(&a, "her seek, waiting", "return document.querySelector('#seeks .seek #cancel-seek') !== null").await;
    assert!(text_of(&a, "#seeks .seek.mine").await.contains("Rated"), "{}", text_of(&a, "#seeks .seek.mine").await);

    // Bob sees it as rated and accepts: both sit down.
    wait_js(&b, "Alice's seek", "return document.querySelector('#seeks .seek .accept-seek') !== null").await;
    let row = text_of(&b, "#seeks .seek").await;
    assert!(row.contains("Rated") && row.contains(&alice) && row.contains("5+3"), "{row}");
    click_css(&b, "#seeks .seek .accept-seek").await;
    let seated =
        "return location.pathname.startsWith('/g/') && document.getElementById('app').dataset.status === 'ongoing'";
    for p in [&a, &b] {
        wait_js(p, "the rated game", seated).await;
        wait_js(
            p,
            "Rated on the game page",
            "return document.getElementById('game-mode').textContent === 'Rated · Blitz 5+3'",
        )
        .await;
    }
    let game = game_id(&a).await;
    assert_eq!(game_id(&b).await, game);
    let seat = "return document.getElementById('app').dataset.seat";
    let a_white = a.execute(seat, vec![]).await.ok() == Some(json!("white"));
    let (white, black) = if a_white { (&a, &b) } else { (&b, &a) };
    let (white_name, black_name) = if a_white { (&alice, &bob) } else { (&bob, &alice) };

    // Two moves, then Alice resigns.
    for (n, (player, mv)) in [(white, "e2e4"), (black, "e7e5")].into_iter().enumerate() {
        wait_status(player, "Your move").await;
        click_move(player, mv).await;
        wait_plies(&a, n as u64 + 1).await;
    }
    wait_plies(&b, 2).await;
    click_css(&a, "#resign").await;
    click_css(&a, "#resign-confirm").await;

    // Both end screens: each player's new rating and its change, the winner's up.
    let line = |name: &str, sign: &str| -> String { format!("^{name} [0-9]+\\??\\s\\({sign}[0-9]+\\)$") };
    let (white_sign, black_sign) = if a_white { ("[\u{2212}-]", "\\+") } else { ("\\+", "[\u{2212}-]") };
    for p in [&a, &b] {
        let script = format!(
            "const w = document.getElementById('rating-white')?.textContent || '';
             const b = document.getElementById('rating-black')?.textContent || '';
             return !document.getElementById('game-ratings').hidden
               && new RegExp({:?}, 'u').test(w) && new RegExp({:?}, 'u').test(b) && [w, b]",
            line(white_name, white_sign),
            line(black_name, black_sign)
        );
        let shown = wait_js(p, "both ratings on the end screen", &script).await;
        println!("end screen: {shown}");
    }
    wait_status(&a, "resigned").await;
    screenshot(&b, "game-rated-end.png").await;

    // Alice's page: the game in her history, her blitz rating, a point on the graph.
    open(&a, &server, &format!("/@/{alice}")).await;
    wait_js(
        &a,
        "the game in her history",
        &format!("return !!document.querySelector(\"#history a[href='/g/{game}']\")"),
    )
    .await;
    assert_eq!(text_of(&a, "#player-name").await, alice);
    let blitz = text_of(&a, "#rating-blitz .rating").await;
    assert!(blitz.trim_end_matches('?').parse::<u32>().is_ok(), "blitz rating {blitz:?}");
    assert_ne!(blitz, "1500?", "the game moved it");
    assert_eq!(text_of(&a, "#rating-blitz .games").await, "1");
    assert_eq!(text_of(&a, "#losses").await, "1");
    assert_eq!(text_of(&a, "#wins").await, "0");
    let points = a.execute("return document.querySelectorAll('svg#rating-graph circle').length", vec![]).await;
    assert!(points.as_ref().ok().and_then(Value::as_u64).is_some_and(|n| n >= 1), "{points:?}");
    assert!(a.find(Locator::Css("svg#rating-graph polyline")).await.is_ok(), "a line for blitz");
    let history_row = text_of(&a, "#history tbody tr").await;
    assert!(
        history_row.contains(&bob) && history_row.contains("Lost") && history_row.contains('\u{2212}'),
        "{history_row}"
    );
    let download = a.execute("return document.getElementById('download-all').getAttribute('href')", vec![]).await;
    assert_eq!(download.ok(), Some(json!(format!("/api/players/{alice}/games.pgn"))));
    screenshot(&a, "player-page.png").await;

    // No player of that name: said so.
    open(&a, &server, "/@/nobody_here").await;
    wait_js(
        &a,
        "the missing player",
        "return document.getElementById('player-name').textContent === 'No player called nobody_here'",
    )
    .await;

    // The leaderboard loads its table (empty: new ratings are provisional), blitz by default.
    open(&a, &server, "/leaderboard").await;
    wait_js(&a, "the leaderboard table", "return document.getElementById('leaderboard')?.dataset.loaded !== undefined")
        .await;
    assert_eq!(
        a.execute("return document.getElementById('tab-blitz').getAttribute('aria-current')", vec![]).await.ok(),
        Some(json!("page"))
    );
    click_css(&a, "#tab-rapid").await;
    wait_js(
        &a,
        "the rapid leaderboard",
        "return location.search === '?category=rapid' && document.getElementById('leaderboard')?.dataset.loaded !== undefined
           && document.getElementById('tab-rapid').getAttribute('aria-current') === 'page'",
    )
    .await;
    for p in [a, b] {
        let _ = p.close().await;
    }
}

/// A finished game leaves the server's memory (finished games are kept a second here); its link
/// still shows it, from the archive: the result, the moves, stepping back through them with the
/// buttons and the arrow keys, the PGN link — for the player who played it (whose stored token
/// the server no longer knows) and for anyone else. An unknown game says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archived_game_link_shows_the_finished_board() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let mut config = test_config();
    config.retention = Duration::from_millis(1000);
    let server = start_with(config).await;
    let a = driver.browser(1200, 900).await;
    let b = driver.browser(1200, 900).await;

    open_lobby(&a, &server).await;
    click_css(&a, "#play-bot").await;
    choose_name(&a, "Ann").await;
    wait_js(&a, "the game page", "return document.getElementById('app').dataset.status === 'ongoing'").await;
    for n in 1..=2u64 {
        let mv = some_legal_move(&a).await;
        click_move(&a, &mv).await;
        wait_plies(&a, 2 * n).await;
    }
    wait_status(&a, "Your move").await;
    click_css(&a, "#resign").await;
    click_css(&a, "#resign-confirm").await;
    assert_eq!(wait_status(&a, "wins").await, "White resigned — Black wins");
    let game = game_id(&a).await;
    let final_position = position(&a).await;
    let moves = move_list(&a).await;

    // The server forgets it: no longer among the games it holds, still in the archive.
    let deadline = Instant::now() + WAIT;
    loop {
        let (code, body) = server.get("/api/games").await;
        assert_eq!(code, 200, "{body}");
        if !body.contains(&game) {
            break;
        }
        assert!(Instant::now() < deadline, "the finished game stayed in memory: {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(server.get(&format!("/api/games/{game}")).await.0, 200, "in the archive");

    for (p, who) in [(&a, "the player"), (&b, "a visitor")] {
        open(p, &server, &format!("/g/{game}")).await;
        wait_js(
            p,
            &format!("the archived game for {who}"),
            "const app = document.getElementById('app');
             return app.dataset.archived === 'true' && app.dataset.status === 'ended'",
        )
        .await;
        assert_eq!(status(p).await, "White resigned — Black wins");
        assert_eq!(plies(p).await, 4);
        assert_eq!(position(p).await, final_position);
        assert_eq!(move_list(p).await, moves);
        assert_eq!(
            p.execute("return document.getElementById('pgn').getAttribute('href')", vec![]).await.ok(),
            Some(json!(format!("/api/games/{game}/pgn")))
        );
        assert_eq!(
            p.execute("return document.getElementById('connection').hidden", vec![]).await.ok(),
            Some(json!(true)),
            "no reconnecting badge: nothing to connect to"
        );
        assert!(p.find(Locator::Css("#move-form:not([hidden])")).await.is_err(), "nothing to play");
        assert!(p.find(Locator::Css("#rematch:not([hidden])")).await.is_err(), "no rematch from the archive");

        // Step back with the buttons, then the arrow keys; the first and last positions.
        click_css(p, "#move-prev").await;
        wait_js(p, "one move back", &on_page("return page.review === 3;")).await;
        assert_ne!(position(p).await, final_position);
        let label = text_of(p, "#review-label").await;
        assert!(label.starts_with("Reviewing: after 2. "), "{label}");
        p.execute("document.activeElement?.blur()", vec![]).await.expect("blur");
        press(p, ARROW_LEFT).await;
        wait_js(p, "two moves back", &on_page("return page.review === 2;")).await;
        click_css(p, "#move-first").await;
        wait_js(p, "the start", &on_page("return page.review === 0;")).await;
        assert!(position(p).await.contains("e2P"), "the start position: {}", position(p).await);
        p.execute("document.activeElement?.blur()", vec![]).await.expect("blur");
        press(p, ARROW_RIGHT).await;
        wait_js(p, "one move in", &on_page("return page.review === 1;")).await;
        click_css(p, "#move-last").await;
        wait_js(p, "the end again", &on_page("return page.review === null;")).await;
        assert_eq!(position(p).await, final_position);
    }
    screenshot(&b, "game-archived.png").await;

    // A game that never was.
    open(&b, &server, "/g/zzzzzzzz").await;
    wait_status(&b, "No such game").await;
    assert_eq!(
        b.execute("return document.getElementById('app').dataset.status", vec![]).await.ok(),
        Some(json!("missing"))
    );
    for p in [a, b] {
        let _ = p.close().await;
    }
}

/// After logging in, the browser goes only to a path on this site, whatever `next` says — the
/// classic bypasses that become another host once normalised included (`/..//evil.example`
/// landed on evil.example before) — and the player's own page changes the password and logs
/// out everywhere.
#[tokio::test]
async fn after_logging_in_the_browser_stays_on_this_site() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(1200, 900).await;
    let name = unique_name("nx");
    sign_up(&a, &server, &name).await;
    let host = server.addr.to_string();
    for next in ["/..//evil.example/x", "//evil.example", "/%2e%2e//evil.example", "/\\evil.example"] {
        click_css(&a, "#logout").await;
        wait_logged_out(&a).await;
        let path = format!("/login?next={}", urlencode(next));
        open(&a, &server, &path).await;
        type_into(&a, "username", &name).await;
        type_into(&a, "password", PASSWORD).await;
        click_css(&a, "#account-submit").await;
        wait_logged_in(&a, &name).await;
        let at = a.execute("return [location.host, location.pathname]", vec![]).await.expect("location");
        assert_eq!(at, json!([host, "/"]), "next={next}");
    }
    // A path on this site is followed.
    click_css(&a, "#logout").await;
    wait_logged_out(&a).await;
    open(&a, &server, "/login?next=%2Fleaderboard").await;
    type_into(&a, "username", &name).await;
    type_into(&a, "password", PASSWORD).await;
    click_css(&a, "#account-submit").await;
    wait_js(&a, "the leaderboard", "return location.pathname === '/leaderboard'").await;

    // The own page: a new password (other sessions end), then log out everywhere.
    open(&a, &server, &format!("/@/{name}")).await;
    type_into(&a, "password-current", PASSWORD).await;
    type_into(&a, "password-new", "a brand new secret").await;
    click_css(&a, "#password-change").await;
    wait_js(
        &a,
        "the password changed",
        "return /Password changed/.test(document.getElementById('security-status').textContent)",
    )
    .await;
    let relogin = server.post("/api/login", &[], json!({"username": name, "password": "a brand new secret"})).await;
    assert_eq!(relogin.status, 200, "the new password works: {}", relogin.body);
    click_css(&a, "#logout-everywhere").await;
    wait_js(&a, "the lobby", "return location.pathname === '/'").await;
    wait_logged_out(&a).await;
    let other = relogin.cookie();
    assert_eq!(server.http("GET", "/api/me", &[("Cookie", &other)], "").await.body, "null", "every session ended");
}

/// `text` percent-encoded for a query value.
fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
