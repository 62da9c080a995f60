//! Engine seats in a real browser (headless Chromium over WebDriver, helpers in
//! tests/browser_support/): the lobby's "Play an engine" card offers the server's engines with
//! a strength setting, the board names the engine by its label, and an engine that keeps
//! crashing is reported in the chat as the server's own lines before it resigns. The engines
//! are the fake ones of tests/data/engines.
//!
//! Without chromium and chromedriver these tests fail when CI=true and are skipped otherwise.

mod browser_support;
mod server_support;

use browser_support::*;
use std::sync::Arc;
use std::time::Duration;

use fantoccini::Client;
use gambit::server::engines::{parse_engine_spec, Engines};
use serde_json::Value;
use server_support::{start_with, test_config};

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_offers_engines_and_the_game_names_them() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let dir = format!("{}/tests/data/engines", env!("CARGO_MANIFEST_DIR"));
    let specs = [format!("Fake={dir}/fake_engine.sh"), format!("Crash={dir}/crash.sh")];
    let specs: Vec<_> = specs.iter().map(|s| parse_engine_spec(s).expect("spec")).collect();
    let engines = tokio::task::spawn_blocking(move || Engines::probe(&specs)).await.expect("probe").expect("engines");
    let mut config = test_config();
    config.room.engine_movetime = Duration::from_millis(200);
    config.room.engines = Arc::new(engines);
    let server = start_with(config).await;
    let c = driver.browser(1280, 900).await;

    open_lobby(&c, &server).await;
    wait_js(&c, "the engine card", "return !document.getElementById('engine-form').hidden").await;
    let names = js(&c, "return [...document.querySelectorAll('#engine-name option')].map((o) => o.textContent)").await;
    assert_eq!(names, serde_json::json!(["Fake", "Crash"]));
    // Skill Level is offered first, from its weakest.
    assert_eq!(js(&c, "return document.getElementById('engine-setting').value").await, "Skill Level");
    assert_eq!(js(&c, "return document.getElementById('engine-value').value").await, "0");
    click_css(&c, "#play-engine").await;
    choose_name(&c, "Ann").await;
    wait_js(
        &c,
        "the game page",
        "return location.pathname.startsWith('/g/') && document.getElementById('app').dataset.status === 'ongoing'",
    )
    .await;
    wait_js(&c, "the engine's label", "return document.body.innerText.includes('Fake · Skill Level 0')").await;
    click_move(&c, "b1c3").await;
    wait_plies(&c, 2).await;
    assert!(position(&c).await.contains("f6"), "{}", position(&c).await);

    // An engine that always crashes: three server lines, set apart, then it resigns.
    open_lobby(&c, &server).await;
    wait_js(&c, "the engine card", "return !document.getElementById('engine-form').hidden").await;
    c.find(fantoccini::Locator::Id("engine-name")).await.expect("engine").select_by_value("1").await.expect("Crash");
    click_css(&c, "#play-engine").await;
    wait_js(&c, "the game page", "return document.getElementById('app').dataset.status === 'ongoing'").await;
    click_move(&c, "b1c3").await;
    wait_js(&c, "the end", "return document.getElementById('app').dataset.status === 'ended'").await;
    let script = "return document.querySelectorAll('#chat-log .chat-line[data-system=\"true\"]').length";
    wait_js(&c, "three server lines", &format!("return ({}) === 3", script.trim_start_matches("return "))).await;
    let _ = c.close().await;
}
