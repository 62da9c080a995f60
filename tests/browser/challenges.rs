//! Challenges by name and API tokens in a real browser (headless Chromium over WebDriver,
//! helpers in tests/browser_support/): two logged-in players, each in a browser of their own,
//! the challenged one on a phone-sized screen. The answers travel over each page's event
//! stream (`/api/stream/event`), read by the page with `fetch`.
//!
//! Without chromium and chromedriver these tests fail when CI=true and are skipped otherwise.

use crate::browser_support;
use crate::server_support;

use browser_support::*;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use server_support::{start, Server};

pub(crate) const PASSWORD: &str = "correct horse battery";

/// A username no other run of these tests has used: `tag` and the process id.
pub(crate) fn unique_name(tag: &str) -> String {
    format!("{tag}{}", std::process::id() % 10_000_000)
}

/// Types `text` into the input `id`, replacing what it held.
pub(crate) async fn type_into(c: &Client, id: &str, text: &str) {
    let input = c.wait().at_most(WAIT).for_element(Locator::Id(id)).await.unwrap_or_else(|e| panic!("#{id}: {e}"));
    input.clear().await.expect("clear");
    input.send_keys(text).await.expect("type");
}

/// Signs up as `username` at `/signup` and waits for the lobby, logged in, its challenges
/// loaded from the event stream (so a challenge from now on arrives as news).
pub(crate) async fn sign_up(c: &Client, server: &Server, username: &str) {
    open(c, server, "/signup").await;
    type_into(c, "username", username).await;
    type_into(c, "password", PASSWORD).await;
    click_css(c, "#account-submit").await;
    wait_js(
        c,
        "the lobby, logged in",
        &format!(
            "return location.pathname === '/' && document.getElementById('account-name')?.textContent === {username:?}"
        ),
    )
    .await;
    wait_settled(c).await;
}

/// Waits until the top bar's challenges are loaded from a freshly opened event stream.
pub(crate) async fn wait_settled(c: &Client) {
    wait_js(
        c,
        "the event stream open",
        "return document.getElementById('challenge-toggle')?.dataset.settled === 'true'",
    )
    .await;
}

pub(crate) async fn text_of(c: &Client, css: &str) -> String {
    let script = format!("return document.querySelector({css:?})?.textContent ?? null");
    c.execute(&script, vec![]).await.ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// What `POST /api/token/test` says of `token`: its owner and scopes, or null.
async fn token_info(server: &Server, token: &str) -> Value {
    let answer = server.http("POST", "/api/token/test", &[], token).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.json()[token].clone()
}

/// Signs `name` up over HTTP as a Board API program would be: the `Authorization` header of a
/// token that plays, challenges and reads challenges.
async fn board_app(server: &Server, name: &str) -> String {
    let cookie = server.sign_up(name, PASSWORD).await;
    let scopes = ["board:play", "challenge:write", "challenge:read"];
    let made =
        server.post("/api/tokens", &[("Cookie", &cookie)], json!({"description": "app", "scopes": scopes})).await;
    assert_eq!(made.status, 201, "{}", made.body);
    format!("Bearer {}", made.json()["token"].as_str().expect("token"))
}

/// A Board API program `bob` challenges `alice` (signed up in `c`) on `terms` (a form body),
/// himself Black; she accepts in the top bar and is taken to the game as White. Returns the
/// game, the challenge as the top bar showed it, and Bob's `Authorization` header.
pub(crate) async fn accept_board_app_challenge(
    c: &Client,
    server: &Server,
    alice: &str,
    bob: &str,
    terms: &str,
) -> (String, String, String) {
    let bearer = board_app(server, bob).await;
    let form = [("Authorization", bearer.as_str()), ("Content-Type", "application/x-www-form-urlencoded")];
    let sent = server.http("POST", &format!("/api/challenge/{alice}"), &form, &format!("{terms}&color=black")).await;
    assert_eq!(sent.status, 200, "{}", sent.body);
    let shown = wait_incoming(c, bob).await;
    click_css(c, "li.challenge.incoming .challenge-accept").await;
    // The page may show the game for a moment before it has taken her seat: wait for the seat.
    wait_js(
        c,
        "Alice at the game, White",
        "return location.pathname.startsWith('/g/') && document.getElementById('app').dataset.seat === 'white'",
    )
    .await;
    let game = current_path(c).await.trim_start_matches("/g/").to_string();
    (game, shown, bearer)
}

/// Signs `name` up over HTTP and makes the account a bot's, as lichess-bot would with a token.
async fn make_bot(server: &Server, name: &str) {
    let cookie = server.sign_up(name, PASSWORD).await;
    let made = server
        .post("/api/tokens", &[("Cookie", &cookie)], json!({"description": "lichess-bot", "scopes": ["bot:play"]}))
        .await;
    assert_eq!(made.status, 201, "{}", made.body);
    let bearer = format!("Bearer {}", made.json()["token"].as_str().expect("the token"));
    let upgraded = server.post("/api/bot/account/upgrade", &[("Authorization", &bearer)], json!({})).await;
    assert_eq!(upgraded.status, 200, "{}", upgraded.body);
}

/// The challenge `c` (on bob's page) sends with the form's time control `time`.
async fn send_challenge(c: &Client, time: &str) {
    click_css(c, "#challenge-open").await;
    c.find(Locator::Id("challenge-time")).await.expect("time control").select_by_value(time).await.expect("a preset");
    click_css(c, "#challenge-send").await;
}

/// The incoming challenge in the top bar's panel, opened by its arrival: its text.
pub(crate) async fn wait_incoming(c: &Client, from: &str) -> String {
    let script = format!(
        "const li = document.querySelector('#challenge-panel:not([hidden]) li.challenge.incoming');
         return !!li && li.querySelector('.challenge-name')?.textContent === {from:?} && li.textContent"
    );
    wait_js(c, "the challenge in the top bar", &script).await.as_str().unwrap_or_default().to_string()
}

/// Alice makes an API token on /account/tokens (reached from her own page), sees it once and
/// in the list, and revokes it. She challenges Bob from his page; Bob (375 px wide) sees it
/// arrive in the top bar and declines it as too fast: Alice reads why. She challenges again,
/// Bob accepts, and both pages go to the same game, one player on each side. Last, the bots
/// page lists a bot account with a Challenge button that opens the same form under its row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn challenge_declined_with_a_reason_then_accepted() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(1200, 900).await;
    let b = driver.browser(375, 800).await;
    let (alice, bob, tinker) = (unique_name("ca"), unique_name("cb"), unique_name("cbot"));
    make_bot(&server, &tinker).await;
    tokio::join!(sign_up(&b, &server, &bob), sign_up(&a, &server, &alice));

    // A token: from her own page to the form; shown once, listed, and it works.
    open(&a, &server, &format!("/@/{alice}")).await;
    click_css(&a, "#tokens-link").await;
    type_into(&a, "token-description", "my board app").await;
    for scope in ["#scope-board-play", "#scope-challenge-read"] {
        click_css(&a, scope).await;
    }
    click_css(&a, "#token-create").await;
    let token = wait_js(
        &a,
        "the new token, shown once",
        "const t = document.getElementById('token-text');
         return !document.getElementById('token-made').hidden && t.value.startsWith('gmb_') && t.value",
    )
    .await;
    let token = token.as_str().expect("the token").to_string();
    let listed = wait_js(
        &a,
        "the token in the list",
        "const li = document.querySelector('#token-list li.token');
         return !!li && li.querySelector('.token-description').textContent === 'my board app'
           && li.querySelector('.token-scopes').textContent",
    )
    .await;
    let mut scopes: Vec<&str> = listed.as_str().unwrap_or_default().split(", ").collect();
    scopes.sort_unstable();
    assert_eq!(scopes, ["board:play", "challenge:read"], "{listed}");
    let info = token_info(&server, &token).await;
    assert_eq!(info["userId"], json!(alice.to_lowercase()), "{info}");
    let mut scopes: Vec<&str> = info["scopes"].as_str().unwrap_or_default().split(',').collect();
    scopes.sort_unstable();
    assert_eq!(scopes, ["board:play", "challenge:read"], "{info}");

    // Revoked, once confirmed: gone from the list, and from the server.
    click_css(&a, "#token-list .token-revoke").await;
    click_css(&a, "#token-list .token-revoke-yes").await;
    wait_js(&a, "the list without it", "return !!document.querySelector('#token-list li.none')").await;
    assert_eq!(token_info(&server, &token).await, Value::Null, "revoked");

    // Alice challenges Bob from his page: his dot says he is online.
    open(&a, &server, &format!("/@/{bob}")).await;
    wait_settled(&a).await;
    wait_js(&a, "Bob online", "return document.getElementById('player-online')?.classList.contains('on')").await;
    assert_eq!(
        a.execute("return document.getElementById('player-bot').hidden", vec![]).await.ok(),
        Some(json!(true)),
        "no BOT mark for a person"
    );
    send_challenge(&a, "1+0").await;
    wait_js(
        &a,
        "the wait",
        &format!("return document.getElementById('challenge-status').textContent === 'Waiting for {bob}…'"),
    )
    .await;

    // Bob's top bar: the challenge arrives, and he declines it as too fast.
    let shown = wait_incoming(&b, &alice).await;
    assert!(shown.contains("1+0 Bullet · Casual · Standard"), "{shown}");
    assert_eq!(text_of(&b, "#challenge-count").await, "1");
    screenshot(&b, "challenge-incoming-375.png").await;
    b.find(Locator::Css("li.challenge.incoming .challenge-reason"))
        .await
        .expect("the reason")
        .select_by_value("tooFast")
        .await
        .expect("too fast");
    click_css(&b, "li.challenge.incoming .challenge-decline").await;
    wait_js(&b, "the challenge gone", "return !document.querySelector('li.challenge.incoming')").await;

    // Alice reads why.
    let declined = wait_js(
        &a,
        "the reason",
        "const s = document.getElementById('challenge-status').textContent;
         return s.includes('declined: This time control is too fast for me') && s",
    )
    .await;
    assert_eq!(
        declined,
        json!(format!(
            "{bob} declined: This time control is too fast for me, please challenge again with a slower game."
        ))
    );

    // Bob opens a second tab: the first tab keeps the one event stream of his browser and
    // passes its events on, so the challenge shows in both.
    let first_tab = b.window().await.expect("the tab");
    let second_tab = b.new_window(true).await.expect("a new tab").handle;
    b.switch_to_window(second_tab.clone()).await.expect("to the new tab");
    open(&b, &server, "/").await;
    wait_settled(&b).await;
    let follows = "return document.documentElement.dataset.events === 'following'";
    wait_js(&b, "the second tab following the first", follows).await;

    // Again, slower: Bob accepts (in his first tab), and both go to the same game.
    send_challenge(&a, "5+3").await;
    let shown = wait_incoming(&b, &alice).await;
    assert!(shown.contains("5+3 Blitz"), "the second tab hears it: {shown}");
    b.close_window().await.expect("close the second tab");
    b.switch_to_window(first_tab).await.expect("back to the first tab");
    let shown = wait_incoming(&b, &alice).await;
    assert!(shown.contains("5+3 Blitz"), "{shown}");
    click_css(&b, "li.challenge.incoming .challenge-accept").await;
    let seated = "const app = document.getElementById('app');
         return location.pathname.startsWith('/g/') && ['white', 'black'].includes(app.dataset.seat) && app.dataset.seat";
    let a_seat = wait_js(&a, "Alice at the game", seated).await;
    let b_seat = wait_js(&b, "Bob at the game", seated).await;
    assert_ne!(a_seat, b_seat, "one on each side");
    assert_eq!(current_path(&a).await, current_path(&b).await, "the same game");

    // The bots page lists the bot account, offline, with its BOT mark and a Challenge button
    // that opens the same form under its row.
    open(&a, &server, "/bots").await;
    let row = format!("#bots tr[data-bot={tinker:?}]");
    wait_js(&a, "the bot listed", &format!("return !!document.querySelector({:?})", format!("{row} .bot-challenge")))
        .await;
    let shown = text_of(&a, &row).await;
    assert!(shown.contains(&tinker) && shown.contains("BOT") && shown.contains("offline"), "{shown}");
    click_css(&a, &format!("{row} .bot-challenge")).await;
    wait_js(
        &a,
        "the form under its row",
        &format!(
            "const form = document.getElementById('challenge-form');
             return !form.hidden && form.closest('tr').previousElementSibling.dataset.bot === {tinker:?}
               && document.getElementById('challenge-title').textContent === 'Challenge {tinker}'"
        ),
    )
    .await;
    screenshot(&a, "bots-page.png").await;
    for p in [a, b] {
        let _ = p.close().await;
    }
}
