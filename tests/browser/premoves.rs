//! Premoves, and arrows and circles drawn on the board, in a real browser: two people in a timed
//! friend game, each in their own headless Chromium. One test runs every scenario in turn with
//! the same browsers (a browser's start is the dear part).

use crate::browser_support;
use crate::server_support;

use std::net::SocketAddr;

use browser_support::*;
use fantoccini::Client;
use serde_json::{json, Value};
use server_support::start;

/// Makes the page record every message it sends, in `window.sent`, so a test can tell what went.
const RECORD_SENT: &str = "window.sent = []; const send = page.conn.send.bind(page.conn);
    page.conn.send = (m) => { window.sent.push(m); return send(m); }; return true;";

/// Makes the page keep its uncaught errors, in `window.pageErrors`.
const RECORD_ERRORS: &str = "window.pageErrors = [];
    addEventListener('error', (e) => window.pageErrors.push(String(e.message)));
    addEventListener('unhandledrejection', (e) => window.pageErrors.push(String(e.reason)));";

/// The squares of the premoves the board shows, sorted, e.g. "c4 f1".
async fn premove_marks(c: &Client) -> String {
    let script = "return [...document.querySelectorAll('svg.board rect.mark-premove')].map((r) => r.dataset.square).sort().join(' ')";
    c.execute(script, vec![]).await.ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// White's time left as of the page's last clock (a move event's clock is as of that move).
async fn white_ms(c: &Client) -> i64 {
    let v = c.execute(&on_page("return page.game.clock.white_ms;"), vec![]).await.expect("the clock");
    v.as_i64().expect("white_ms")
}

/// The `move` messages the page sent since it started recording.
async fn sent_moves(c: &Client) -> Vec<Value> {
    let v = c.execute("return window.sent.filter((m) => m.type === 'move')", vec![]).await.expect("sent");
    v.as_array().cloned().unwrap_or_default()
}

/// A press of the right button on `from` and its release on `to` (a click when they are the
/// same), with Shift held if `shift`. Through the DevTools protocol's mouse: chromedriver turns
/// WebDriver's pointer actions into touches under the mobile emulation every browser here has.
async fn right_drag(driver: SocketAddr, c: &Client, from: &str, to: &str, shift: bool) {
    let (fx, fy) = centre(c, from).await;
    let (tx, ty) = centre(c, to).await;
    let modifiers = if shift { 8 } else { 0 };
    for (kind, x, y, buttons) in [("mousePressed", fx, fy, 2), ("mouseMoved", tx, ty, 2), ("mouseReleased", tx, ty, 0)]
    {
        let event = json!({"type": kind, "x": x, "y": y, "button": "right", "buttons": buttons, "clickCount": 1, "modifiers": modifiers});
        cdp(driver, c, "Input.dispatchMouseEvent", event).await;
    }
}

/// The arrows and circles drawn, e.g. "arrow green a1a3, circle green h3h3".
async fn shapes(c: &Client) -> String {
    let script = "return [...document.querySelectorAll('svg.board .user-shapes > *')]
        .map((e) => `${e.classList.contains('user-circle') ? 'circle' : 'arrow'} ${e.dataset.brush} ${e.dataset.from}${e.dataset.to}`)
        .sort().join(', ')";
    c.execute(script, vec![]).await.ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// A timed friend game (3+2) between two browsers. (a) A premove is played the instant the
/// opponent moves, with no further input, flagged `premove`, and costs its player next to no
/// time. (b) A premove the opponent's move makes illegal is dropped: nothing is sent and its
/// highlight goes. (c) Right-drag draws an arrow (red with Shift), a right-click a circle; they
/// survive a reload; a left click clears them; the board has no context menu.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn premoves_and_drawn_arrows() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(1100, 850).await;
    let b = driver.browser(1100, 850).await;
    let chromedriver = driver.addr();

    open_lobby(&a, &server).await;
    click_css(&a, "#options summary").await;
    let control = a.find(fantoccini::Locator::Id("time-control")).await.expect("time control");
    control.select_by_value("3+2").await.expect("3+2");
    click_css(&a, "#play-friend").await;
    choose_name(&a, "Alice").await;
    let invite = invite_link(&a).await;
    b.goto(&invite).await.expect("open invite");
    click_css(&b, "#join-black").await;
    choose_name(&b, "Bob").await;
    wait_status(&a, "Your move").await;

    // The clocks start once both have moved.
    click_move(&a, "e2e4").await;
    wait_plies(&b, 1).await;
    click_move(&b, "e7e5").await;
    wait_plies(&a, 2).await;
    click_move(&a, "g1f3").await;
    wait_plies(&a, 3).await;
    wait_plies(&b, 3).await;

    // (a) During Black's turn White premoves Bc4; Black's move brings it at once.
    wait_js(&a, "the page's controller", &on_page(RECORD_SENT)).await;
    for c in [&a, &b] {
        c.execute(RECORD_ERRORS, vec![]).await.expect("record errors");
    }
    click_move(&a, "f1c4").await;
    assert_eq!(premove_marks(&a).await, "c4 f1");
    assert_eq!(plies(&a).await, 3, "a premove waits for the opponent");
    // White's clock stands still during Black's turn: this is what it will have when Black moves.
    let before = white_ms(&a).await;
    click_move(&b, "b8c6").await;
    wait_plies(&a, 5).await;
    wait_plies(&b, 5).await;
    let moves = wait_js(&a, "the moves", &on_page("return page.game.moves.join(' ');")).await;
    assert_eq!(moves.as_str(), Some("e2e4 e7e5 g1f3 b8c6 f1c4"));
    let sent = sent_moves(&a).await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!((sent[0]["uci"].as_str(), &sent[0]["premove"]), (Some("f1c4"), &Value::Bool(true)), "{sent:?}");
    // The mover's charge: the time before, plus the 2 s increment, less the time after.
    let charge = before + 2000 - white_ms(&a).await;
    assert!((0..=300).contains(&charge), "the premove cost {charge} ms");
    assert_eq!(premove_marks(&a).await, "");

    // (b) White premoves Bxf7; Black's d5 blocks the diagonal, so it is dropped, unsent.
    click_move(&a, "c4f7").await;
    assert_eq!(premove_marks(&a).await, "c4 f7");
    click_move(&b, "d7d5").await;
    wait_plies(&a, 6).await;
    wait_status(&a, "Your move").await;
    wait_js(&a, "the premove's highlight gone", "return !document.querySelector('svg.board rect.mark-premove')").await;
    assert_eq!(sent_moves(&a).await.len(), 1, "only the first premove was sent");
    let pending =
        a.execute(&on_page("return page.pending === null && page.premoves.queue.length === 0;"), vec![]).await;
    assert_eq!(pending.ok(), Some(Value::Bool(true)));

    // (c) Arrows and circles.
    right_drag(chromedriver, &a, "a1", "a3", false).await;
    right_drag(chromedriver, &a, "b1", "c3", true).await;
    right_drag(chromedriver, &a, "h3", "h3", false).await;
    assert_eq!(shapes(&a).await, "arrow green a1a3, arrow red b1c3, circle green h3h3");
    // The same circle again takes it away (and once more puts it back); no context menu on the board.
    right_drag(chromedriver, &a, "h3", "h3", false).await;
    assert_eq!(shapes(&a).await, "arrow green a1a3, arrow red b1c3");
    right_drag(chromedriver, &a, "h3", "h3", false).await;
    let menu = "return !document.querySelector('svg.board').dispatchEvent(new MouseEvent('contextmenu', {bubbles: true, cancelable: true}))";
    assert_eq!(a.execute(menu, vec![]).await.ok(), Some(Value::Bool(true)), "the context menu is not prevented");
    a.refresh().await.expect("reload");
    wait_plies(&a, 6).await;
    a.execute(RECORD_ERRORS, vec![]).await.expect("record errors");
    wait_js(
        &a,
        "the shapes back after a reload",
        "return document.querySelectorAll('svg.board .user-shapes > *').length === 3",
    )
    .await;
    assert_eq!(shapes(&a).await, "arrow green a1a3, arrow red b1c3, circle green h3h3");
    // A left click (here a tap: the emulation's touch makes the same pointer event) clears them.
    click_square(&a, "h5").await;
    assert_eq!(shapes(&a).await, "");
    screenshot(&a, "premoves.png").await;
    // Nothing went wrong in either page.
    for c in [&a, &b] {
        let errors = c.execute("return window.pageErrors", vec![]).await.expect("the errors");
        assert_eq!(errors, json!([]), "errors in the page");
    }
    for c in [a, b] {
        let _ = c.close().await;
    }
}
