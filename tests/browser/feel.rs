//! How the game feels beyond the board, in a real browser (headless Chromium over WebDriver,
//! helpers in tests/browser_support/): sounds, and blind mode as a screen reader meets it.
//!
//! Headless Chromium has no speaker, so the sound is checked where the page asks the Web Audio
//! API for it (each sound starts oscillators); blind mode is checked through Chromium's
//! accessibility tree (the DevTools protocol's `Accessibility.getFullAXTree`), which is what a
//! screen reader reads, not merely the DOM.
//!
//! Without chromium and chromedriver these tests fail when CI=true and are skipped otherwise.

use crate::browser_support;
use crate::server_support;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use browser_support::*;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use server_support::start;

/// Counts the oscillators the page starts (each sound starts at least one): wraps the
/// prototype's method, so it holds whenever the page creates its AudioContext.
const COUNT_OSCILLATORS: &str = "window.oscillators = 0;
    const proto = (window.AudioContext || window.webkitAudioContext).prototype;
    const make = proto.createOscillator;
    proto.createOscillator = function () { window.oscillators += 1; return make.apply(this, arguments); };";

async fn oscillators(c: &Client) -> u64 {
    c.execute("return window.oscillators", vec![]).await.ok().and_then(|v| v.as_u64()).unwrap_or(0)
}

/// The text of every live region in the accessibility tree (its node's name and all its
/// descendants' names), with the region's `live` politeness: what a screen reader would speak.
fn live_regions(tree: &Value) -> Vec<(String, String)> {
    let nodes = tree["nodes"].as_array().cloned().unwrap_or_default();
    let by_id: HashMap<&str, &Value> = nodes.iter().filter_map(|n| Some((n["nodeId"].as_str()?, n))).collect();
    fn text(node: &Value, by_id: &HashMap<&str, &Value>, out: &mut String) {
        if let Some(name) = node["name"]["value"].as_str() {
            out.push_str(name);
            out.push(' ');
        }
        for child in node["childIds"].as_array().into_iter().flatten() {
            if let Some(child) = child.as_str().and_then(|id| by_id.get(id)) {
                text(child, by_id, out);
            }
        }
    }
    let mut regions = Vec::new();
    for node in &nodes {
        let live = node["properties"].as_array().into_iter().flatten().find(|p| p["name"] == "live");
        if let Some(politeness) = live.and_then(|p| p["value"]["value"].as_str()) {
            let mut said = String::new();
            text(node, &by_id, &mut said);
            regions.push((politeness.to_string(), said));
        }
    }
    regions
}

/// Waits until a polite live region of the accessibility tree says `words`.
async fn wait_spoken(driver: SocketAddr, c: &Client, words: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        let tree = cdp(driver, c, "Accessibility.getFullAXTree", json!({})).await;
        let regions = live_regions(&tree);
        if regions.iter().any(|(live, said)| live == "polite" && said.contains(words)) {
            return;
        }
        assert!(Instant::now() < deadline, "no live region says {words:?}; they say {regions:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Alice (in the browser) plays Bob (over a WebSocket). A move sounds, for her own move and
/// for his; muted, neither does. Then in blind mode she hears his move through a live region
/// of the accessibility tree, and plays hers by typing, in SAN, in the command box.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sounds_and_blind_mode() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let chromedriver = driver.addr();
    let server = start().await;
    let a = driver.browser(1100, 850).await;
    let (game, mut bob) = friend_game_with_bob(&a, &server).await;
    let bob_moves = |uci: &str| json!({"type": "move", "game": game, "uci": uci});

    // a) A move sounds: Alice's own (her click is also the gesture that lets the page start
    // audio) and Bob's answer.
    a.execute(COUNT_OSCILLATORS, vec![]).await.expect("count oscillators");
    click_move(&a, "e2e4").await;
    wait_plies(&a, 1).await;
    wait_js(&a, "a sound for my move", "return window.oscillators > 0").await;
    let before = oscillators(&a).await;
    bob.send(bob_moves("e7e5")).await;
    wait_plies(&a, 2).await;
    wait_js(&a, "a sound for Bob's move", &format!("return window.oscillators > {before}")).await;

    // Muted (the top bar's button, pressed), neither side's move sounds.
    click_css(&a, "#sound-toggle").await;
    wait_js(
        &a,
        "the mute button pressed",
        "return document.getElementById('sound-toggle').getAttribute('aria-pressed') === 'true'",
    )
    .await;
    let muted = oscillators(&a).await;
    click_move(&a, "g1f3").await;
    wait_plies(&a, 3).await;
    bob.send(bob_moves("b8c6")).await;
    wait_plies(&a, 4).await;
    assert_eq!(oscillators(&a).await, muted, "a muted page made sounds");

    // b) Blind mode, from the settings panel: the board gives way to the text interface.
    click_css(&a, "#prefs-toggle").await;
    click_css(&a, "#blind-mode").await;
    wait_js(
        &a,
        "blind mode in the board's place",
        "return document.getElementById('board-host').hidden && !document.getElementById('blind').hidden",
    )
    .await;
    // A move typed in SAN is played, and announced once the server confirms it.
    let command = a.find(Locator::Id("blind-command")).await.expect("the command box");
    command.send_keys("Bc4\n").await.expect("type a move");
    wait_plies(&a, 5).await;
    wait_spoken(chromedriver, &a, "White plays bishop c4").await;
    // Bob's answer is spoken.
    bob.send(bob_moves("g8f6")).await;
    wait_plies(&a, 6).await;
    wait_spoken(chromedriver, &a, "Black plays knight f6").await;
    // A command's answer is spoken too.
    command.send_keys("p N\n").await.expect("type a command");
    wait_spoken(chromedriver, &a, "White knights: b1, f3. Black knights: c6, f6.").await;
    let _ = a.close().await;
}
