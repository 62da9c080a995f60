//! The board as a place to study, in a real browser (headless Chromium over WebDriver, helpers
//! in tests/browser_support/): the opening named under the status as a game is played.
//!
//! Without chromium and chromedriver these tests fail when CI=true and are skipped otherwise.

use crate::browser_support;
use crate::server_support;

use browser_support::*;
use serde_json::json;
use server_support::start;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_opening_is_named_as_the_game_is_played() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(1100, 850).await;
    let (game, mut bob) = friend_game_with_bob(&a, &server).await;
    let opening = "document.getElementById('game-opening')";
    let hidden = a.execute(&format!("return {opening}.hidden"), vec![]).await.ok();
    assert_eq!(hidden, Some(json!(true)), "no name before a move");

    for (ply, uci) in ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"].into_iter().enumerate() {
        if ply % 2 == 0 {
            click_move(&a, uci).await;
        } else {
            bob.send(json!({"type":"move","game":game,"uci":uci})).await;
        }
        wait_plies(&a, ply as u64 + 1).await;
        if ply == 0 {
            wait_js(&a, "the first name", &format!("return {opening}.textContent === \"B00 · King's Pawn Game\""))
                .await;
        }
    }
    wait_js(&a, "Ruy Lopez", &format!("return {opening}.textContent === 'C60 · Ruy Lopez' && !{opening}.hidden")).await;
    let _ = a.close().await;
}
