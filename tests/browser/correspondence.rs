//! A correspondence game in a real browser (headless Chromium over WebDriver, helpers in
//! tests/browser_support/), on a phone-sized screen: a move made on the board is only shown
//! until *Submit move* sends it (a mistap is never final), *Cancel* takes it back, and the
//! deadline of the side to move is shown. The opponent is a Board API program.
//!
//! Without chromium and chromedriver these tests fail when CI=true and are skipped otherwise.

use crate::browser_support;
use crate::challenges::{accept_board_app_challenge, sign_up, unique_name};
use crate::server_support;

use browser_support::*;
use serde_json::{json, Value};
use server_support::{start, Server};

/// The moves the server has for `game`.
async fn server_moves(server: &Server, game: &str) -> Vec<String> {
    let (status, body) = server.get(&format!("/api/games/{game}")).await;
    assert_eq!(status, 200, "{body}");
    let state: Value = serde_json::from_str(&body).expect("json");
    state["moves"].as_array().expect("moves").iter().map(|m| m.as_str().unwrap_or("").to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_move_waits_for_submit_and_cancel_takes_it_back() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(390, 844).await;
    let (alice, bob) = (unique_name("corra"), unique_name("corrb"));
    sign_up(&a, &server, &alice).await;
    // Bob, a board app, challenges Alice to 3 days a move; she accepts and plays White.
    let (game, shown, bearer) = accept_board_app_challenge(&a, &server, &alice, &bob, "days=3").await;
    assert!(shown.contains("3 days"), "{shown}");
    let form = [("Authorization", bearer.as_str()), ("Content-Type", "application/x-www-form-urlencoded")];
    let deadline = wait_js(
        &a,
        "the deadline shown",
        "const d = document.getElementById('corres-deadline'); return !!d && !d.hidden && d.textContent",
    )
    .await;
    assert!(deadline.as_str().is_some_and(|d| !d.is_empty()), "{deadline}");

    // A move on the board waits: shown with Submit and Cancel, not sent.
    click_move(&a, "e2e4").await;
    let asked = wait_js(
        &a,
        "the confirmation",
        "const c = document.getElementById('corres-confirm'); return !!c && !c.hidden && document.getElementById('corres-move').textContent",
    )
    .await;
    assert_eq!(asked, json!("Your move: e4"));
    screenshot(&a, "correspondence-confirm-390.png").await;
    assert!(server_moves(&server, &game).await.is_empty(), "nothing sent before Submit");
    // Cancel: gone, and still nothing sent.
    click_css(&a, "#corres-cancel").await;
    wait_js(&a, "the confirmation gone", "return document.getElementById('corres-confirm').hidden").await;
    assert!(server_moves(&server, &game).await.is_empty(), "nothing sent after Cancel");
    assert_eq!(plies(&a).await, 0);

    // Another move, submitted: now it is played.
    click_move(&a, "d2d4").await;
    wait_js(&a, "the confirmation again", "return !document.getElementById('corres-confirm').hidden").await;
    click_css(&a, "#corres-submit").await;
    wait_plies(&a, 1).await;
    assert_eq!(server_moves(&server, &game).await, ["d2d4"]);

    // Bob answers through the Board API; Alice's page shows it at once.
    let moved = server.http("POST", &format!("/api/board/game/{game}/move/d7d5"), &form, "").await;
    assert_eq!(moved.status, 200, "{}", moved.body);
    wait_plies(&a, 2).await;
    let _ = a.close().await;
}
