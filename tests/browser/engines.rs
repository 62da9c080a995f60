//! Engine seats in a real browser (headless Chromium over WebDriver, helpers in
//! tests/browser_support/): the lobby's "Play an engine" card offers the server's engines with
//! a strength setting, the board names the engine by its label, and an engine that keeps
//! crashing is reported in the chat as the server's own lines before it resigns (the fake
//! engines of tests/data/engines); the board editor offers the real Stockfish, for the variants
//! it plays, and it plays from the editor's position.
//!
//! Without chromium and chromedriver (or /usr/games/stockfish) these tests fail when CI=true
//! and are skipped otherwise.

use crate::browser_support;
use crate::common;
use crate::server_support;

use browser_support::*;
use std::sync::Arc;
use std::time::Duration;

use fantoccini::Client;
use gambit::server::engines::{parse_engine_spec, Engines};
use serde_json::{json, Value};
use server_support::{start_with, test_config, Server};

const STOCKFISH: &str = "/usr/games/stockfish";

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// A server offering these `NAME=PATH` engines, thinking 200 ms a move.
async fn server_with(specs: &[String]) -> Server {
    let specs: Vec<_> = specs.iter().map(|s| parse_engine_spec(s).expect("spec")).collect();
    let engines = tokio::task::spawn_blocking(move || Engines::probe(&specs)).await.expect("probe").expect("engines");
    let mut config = test_config();
    config.room.engine_movetime = Duration::from_millis(200);
    config.room.engines = Arc::new(engines);
    start_with(config).await
}

async fn select(c: &Client, css: &str, value: &str) {
    let element = c.find(fantoccini::Locator::Css(css)).await.unwrap_or_else(|e| panic!("{css}: {e}"));
    element.select_by_value(value).await.unwrap_or_else(|e| panic!("select {value} in {css}: {e}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_offers_engines_and_the_game_names_them() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let dir = format!("{}/tests/data/engines", env!("CARGO_MANIFEST_DIR"));
    let server = server_with(&[format!("Fake={dir}/fake_engine.sh"), format!("Crash={dir}/crash.sh")]).await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_seats_stockfish_from_a_set_up_position() {
    if !common::installed(STOCKFISH) {
        return;
    }
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = server_with(&[format!("Stockfish={STOCKFISH}")]).await;
    let c = driver.browser(1200, 1000).await;

    // White mates at once (Ra8#); the player takes Black, so the engine moves first.
    let fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";
    let url = format!("/editor?variant=standard&fen={}", fen.replace(' ', "%20"));
    // Every computer seat offers Stockfish after the levels; it plays standard chess only.
    let engines = "return ['editor-level', 'editor-white-level', 'editor-black-level'].map((id) =>
        [...document.querySelectorAll(`#${id} optgroup option`)].map((o) => o.textContent).join())";
    open(&c, &server, &url).await;
    wait_js(&c, "the engines offered", &format!("{engines}.every((names) => names === 'Stockfish')")).await;
    select(&c, "#editor-level", "engine:Stockfish").await;
    select(&c, "#editor-variant", "minichess7").await;
    wait_js(&c, "no engine for minichess7", &format!("{engines}.every((names) => names === '')")).await;
    assert_eq!(js(&c, "return document.getElementById('editor-level').value").await, "1", "back to the default level");
    assert_eq!(js(&c, "return document.getElementById('editor-level-strength').hidden").await, true);
    open(&c, &server, &url).await;
    wait_js(&c, "the engines again", &format!("{engines}.every((names) => names === 'Stockfish')")).await;
    wait_js(&c, "a valid position", "return !document.getElementById('editor-bot').disabled").await;

    // Chosen, the engine shows its strength settings as the lobby does, Skill Level from 0.
    assert_eq!(js(&c, "return document.getElementById('editor-level-strength').hidden").await, true);
    select(&c, "#editor-level", "engine:Stockfish").await;
    select(&c, "#editor-color", "black").await;
    assert_eq!(js(&c, "return document.getElementById('editor-level-strength').hidden").await, false);
    assert_eq!(js(&c, "return document.getElementById('editor-level-setting').value").await, "Skill Level");
    assert_eq!(js(&c, "return document.getElementById('editor-level-value').value").await, "0");
    // A value out of range is the server's to refuse, as ever.
    let value = c.find(fantoccini::Locator::Id("editor-level-value")).await.expect("the value");
    value.clear().await.expect("clear the value");
    value.send_keys("99").await.expect("type a value");
    click_css(&c, "#editor-bot").await;
    choose_name(&c, "Ann").await;
    let refusal = wait_js(&c, "the refusal", "return document.getElementById('editor-error').textContent").await;
    assert!(refusal.as_str().is_some_and(|r| r.contains("Skill Level of Stockfish goes from 0 to 20")), "{refusal}");
    assert_eq!(current_path(&c).await, "/editor");

    value.clear().await.expect("clear the value");
    value.send_keys("20").await.expect("type a value");
    click_css(&c, "#editor-bot").await;
    wait_js(&c, "the game page", "return location.pathname.startsWith('/g/')").await;
    wait_js(&c, "the engine's label", "return document.body.innerText.includes('Stockfish · Skill Level 20')").await;
    wait_status(&c, "Checkmate — White wins").await;
    assert_eq!(plies(&c).await, 1);
    assert!(position(&c).await.contains("a8R"), "{}", position(&c).await);
    assert_eq!(js(&c, "return document.getElementById('app').dataset.status").await, json!("ended"));
    let _ = c.close().await;
}
