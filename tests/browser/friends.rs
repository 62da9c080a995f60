//! Friends in a real browser (headless Chromium over WebDriver, helpers in
//! tests/browser_support/): following a player from their page, seeing them come online in the
//! lobby's Friends panel, challenging them from it, and the challenge's notification arriving
//! on another page they have open (the top bar's bell, fed by the event stream).
//!
//! Without chromium and chromedriver these tests fail when CI=true and are skipped otherwise.

use crate::browser_support;
use crate::challenges::{sign_up, text_of, type_into, unique_name, wait_incoming, wait_settled, PASSWORD};
use crate::server_support;

use browser_support::*;
use fantoccini::{Client, Locator};
use server_support::{start, Server};

/// Logs in as `username` at `/login` and waits for the lobby with its event stream open.
async fn log_in(c: &Client, server: &Server, username: &str) {
    open(c, server, "/login").await;
    type_into(c, "username", username).await;
    type_into(c, "password", PASSWORD).await;
    click_css(c, "#account-submit").await;
    wait_js(
        c,
        "the lobby, logged in",
        &format!("return document.getElementById('account-name')?.textContent === {username:?}"),
    )
    .await;
    wait_settled(c).await;
}

/// The Friends panel's row of `name`: `(online, status)` once it matches `check` (JS over
/// `li`, the row).
async fn wait_friend(c: &Client, name: &str, what: &str, check: &str) {
    let script = format!(
        "const li = document.querySelector('#friends li.friend[data-name={name:?}]');
         return !!li && ({check})"
    );
    wait_js(c, what, &script).await;
}

/// Alice follows Bob from his page; her lobby's Friends panel shows him offline, then online
/// as soon as he logs in (no reload). She challenges him from the panel; Bob, on the
/// leaderboard page, sees the bell count one unread notification with the challenge's words,
/// reads it, accepts the challenge from the top bar, and both are seated in the same game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_followed_friend_comes_online_is_challenged_from_the_panel_and_notified_on_another_page() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(1280, 800).await;
    let b = driver.browser(375, 800).await;
    let (alice, bob) = (unique_name("fa"), unique_name("fb"));
    server.sign_up(&bob, PASSWORD).await; // an account, not online
    sign_up(&a, &server, &alice).await;

    open(&a, &server, &format!("/@/{bob}")).await;
    wait_js(&a, "the Follow button", "const f = document.getElementById('follow'); return !!f && f.offsetParent !== null && f.textContent === 'Follow'").await;
    click_css(&a, "#follow").await;
    wait_js(&a, "following", "return document.getElementById('follow').textContent === 'Unfollow'").await;

    open(&a, &server, "/").await;
    wait_friend(
        &a,
        &bob,
        "Bob offline in the panel",
        "!li.classList.contains('online') && li.querySelector('.friend-status').textContent === 'offline'",
    )
    .await;
    log_in(&b, &server, &bob).await;
    wait_friend(
        &a,
        &bob,
        "Bob online in the panel",
        "li.classList.contains('online') && li.querySelector('.friend-status').textContent === 'online'",
    )
    .await;
    screenshot(&a, "friends-panel.png").await;

    // Bob goes to another page; Alice challenges him from the panel.
    open(&b, &server, "/leaderboard").await;
    wait_settled(&b).await;
    click_css(&a, &format!("#friends li.friend[data-name={bob:?}] .friend-challenge")).await;
    a.wait()
        .at_most(WAIT)
        .for_element(Locator::Id("challenge-time"))
        .await
        .expect("the form")
        .select_by_value("5+3")
        .await
        .expect("a preset");
    click_css(&a, "#challenge-send").await;

    // The bell on Bob's page: one unread, with the challenge's words; reading it clears it.
    wait_js(
        &b,
        "one unread notification",
        "const n = document.getElementById('notifications-count');
         return !!n && !n.hidden && n.textContent === '1'",
    )
    .await;
    click_css(&b, "#notifications-toggle").await;
    let words = format!("{alice} challenges you: 5+3 casual blitz");
    wait_js(
        &b,
        "the notification in the panel",
        &format!(
            "const li = document.querySelector('#notifications-panel li.notification.unread');
             return !!li && li.querySelector('.notification-text').textContent === {words:?}"
        ),
    )
    .await;
    click_css(&b, "#notifications-panel li.notification .notification-open").await;
    wait_js(&b, "read", "return document.getElementById('notifications-count').hidden").await;
    assert_eq!(text_of(&b, "#notifications-panel li.notification.unread").await, "", "nothing unread");

    // Bob accepts from the top bar; both sit in the same game.
    let panel_open = "return !document.getElementById('challenge-panel').hidden";
    if b.execute(panel_open, vec![]).await.ok() != Some(serde_json::json!(true)) {
        click_css(&b, "#challenge-toggle").await;
    }
    wait_incoming(&b, &alice).await;
    click_css(&b, "li.challenge.incoming .challenge-accept").await;
    let seated = "const app = document.getElementById('app');
         return location.pathname.startsWith('/g/') && ['white', 'black'].includes(app.dataset.seat) && app.dataset.seat";
    let a_seat = wait_js(&a, "Alice at the game", seated).await;
    let b_seat = wait_js(&b, "Bob at the game", seated).await;
    assert_ne!(a_seat, b_seat, "one on each side");
    assert_eq!(current_path(&a).await, current_path(&b).await, "the same game");
    for c in [&a, &b] {
        assert!(driver.console_errors(c).await.is_empty(), "{:?}", driver.console_errors(c).await);
    }
    for p in [a, b] {
        let _ = p.close().await;
    }
}
