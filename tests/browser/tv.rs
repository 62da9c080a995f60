//! gambit TV in a real browser (headless Chromium over WebDriver): a visitor on `/tv` sees the
//! featured game between people drawn, with the other live games listed, and the page switches
//! to the next game by itself when the shown one ends.
//!
//! Without chromium and chromedriver these tests fail when CI=true and are skipped otherwise.

use crate::browser_support;
use crate::server_support;

use browser_support::*;
use serde_json::json;
use server_support::{human_game, start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tv_shows_the_featured_game_and_switches_when_it_ends() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let (mut white, _black, first, _, _) = human_game(&server).await;
    // Featured before the second game starts (a featured game keeps the screen while it goes
    // on; two games that start in the same moment would be told apart by their ids alone).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !server.get("/api/tv/channels").await.1.contains(&first) {
        assert!(std::time::Instant::now() < deadline, "the first game never featured");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let (_second_white, _second_black, second, _, _) = human_game(&server).await;
    let c = driver.browser(1280, 800).await;
    open(&c, &server, "/tv").await;
    let shown = |game: &str| {
        format!(
            "const g = document.getElementById('tv-game');
             return !!g && g.dataset.game === {game:?} && document.querySelectorAll('#tv-board [data-piece]').length === 32"
        )
    };
    wait_js(&c, "the first game featured and drawn", &shown(&first)).await;
    wait_js(
        &c,
        "the other game listed",
        &format!(
            "return !!document.querySelector('#tv-others li.tv-other[data-game={second:?}] a[href=\"/g/{second}\"]')"
        ),
    )
    .await;
    white.send(json!({"type":"resign","game":first})).await;
    wait_js(&c, "the next game featured", &shown(&second)).await;
    assert!(driver.console_errors(&c).await.is_empty(), "{:?}", driver.console_errors(&c).await);
    let _ = c.close().await;
}
