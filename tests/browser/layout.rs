//! The game page as a player sees it, in a real headless Chromium (tests/browser_support/): no
//! console errors on the ordinary pages, for a visitor and for a logged-in player; a draw offer
//! shown pending on its button and withdrawn; no clock running before both sides' first moves,
//! and the game aborted when White does not make one in time; and at 1280x800, 1366x768 and
//! 375x800 everything a player needs within the viewport, with screenshots of each
//! (target/screenshots/layout-*.png; docs/screenshots/ holds copies).
//!
//! One test, the scenarios in sequence with one chromedriver: browsers take seconds to start,
//! and CI's time is short.

use crate::browser_support;
use crate::server_support;

use std::time::{Duration, Instant};

use browser_support::*;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use server_support::{start_with, test_config, Server};

/// What a player needs during a game, by CSS selector: each must be on screen, not covered.
const NEEDED: &[(&str, &str)] = &[
    ("board", "svg.board"),
    ("White's clock", "#clock-white"),
    ("Black's clock", "#clock-black"),
    ("the top name", "#player-top .name"),
    ("the bottom name", "#player-bottom .name"),
    ("the move list", "#moves"),
    ("resign", "#resign"),
    ("offer draw", "#draw"),
    ("the chat input", "#chat-input"),
];

/// The needed elements that are not wholly inside the viewport, or are hidden under something
/// else at their centre (a panel scrolled away from them), with their rectangles.
async fn off_screen(c: &Client) -> Vec<String> {
    let selectors: Vec<Value> = NEEDED.iter().map(|(name, css)| json!([name, css])).collect();
    let script = "
        const out = [];
        if (window.scrollY !== 0 || window.scrollX !== 0) out.push(`page scrolled to ${scrollX},${scrollY}`);
        for (const [name, css] of arguments[0]) {
            const n = document.querySelector(css);
            if (!n) { out.push(`${name}: missing`); continue; }
            const r = n.getBoundingClientRect();
            const inside = r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0
                && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
            const hit = inside && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            if (!inside || !hit || !(n === hit || n.contains(hit))) {
                out.push(`${name} at ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)} in ${innerWidth}x${innerHeight}`);
            }
        }
        return out;";
    let v = c.execute(script, vec![Value::Array(selectors)]).await.expect("measure the page");
    v.as_array().into_iter().flatten().map(|s| s.as_str().unwrap_or("?").to_string()).collect()
}

/// The text of the element `css`, "" when there is none.
async fn text(c: &Client, css: &str) -> String {
    let script = format!("return document.querySelector({css:?})?.textContent ?? ''");
    c.execute(&script, vec![]).await.ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// The seconds the first-move count-down in the bar `bar` ('top' or 'bottom') shows, once it shows.
async fn countdown(c: &Client, bar: &str) -> u64 {
    let script = format!(
        "const t = document.querySelector('#player-{bar} .first-move:not([hidden])')?.textContent || '';
         const s = /(\\d+) s/.exec(t); return s && Number(s[1]);"
    );
    wait_js(c, &format!("the {bar} count-down"), &script).await.as_u64().expect("seconds")
}

/// Waits until a second has passed on the first-move count-down in the bar `bar`.
async fn countdown_ticks(c: &Client, bar: &str) {
    let from = countdown(c, bar).await;
    let script = format!(
        "const t = document.querySelector('#player-{bar} .first-move:not([hidden])')?.textContent || '';
         const s = /(\\d+) s/.exec(t); return s !== null && Number(s[1]) < {from};"
    );
    wait_js(c, &format!("the {bar} count-down below {from} s"), &script).await;
}

/// Both clocks show `shown` and neither runs.
async fn clocks_stopped_at(c: &Client, shown: &str) {
    for side in ["white", "black"] {
        assert_eq!(text(c, &format!("#clock-{side}")).await, shown, "{side}'s clock");
    }
    let running = c.execute("return document.querySelectorAll('.clock.running').length", vec![]).await;
    assert_eq!(running.ok(), Some(json!(0)), "no clock runs before both first moves");
}

/// Makes browser `c`'s viewport `width`x`height` (a phone's below 700 pixels wide), through the
/// DevTools protocol as Chromium's own device emulation does.
async fn emulate(driver: &Driver, c: &Client, width: u32, height: u32) {
    let params = json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700});
    let cmd = json!({"cmd": "Emulation.setDeviceMetricsOverride", "params": params});
    driver.session_post(c, "goog/cdp/execute", &cmd).await;
}

/// Asserts that `c` logged no error since the last look, naming the page.
async fn no_console_errors(driver: &Driver, c: &Client, page: &str) {
    let errors = driver.console_errors(c).await;
    assert!(errors.is_empty(), "console errors on {page}: {errors:#?}");
}

/// Creates a 5+3 friend game from the lobby as `name`; returns its id once the invite shows.
async fn timed_friend_game(c: &Client, server: &Server, name: &str) -> String {
    open_lobby(c, server).await;
    // The time control is among the game options, folded away: chosen as the page would.
    let script =
        "const t = document.getElementById('time-control'); t.value = '5+3'; t.dispatchEvent(new Event('change'));";
    c.execute(script, vec![]).await.expect("5+3");
    click_css(c, "#play-friend").await;
    choose_name(c, name).await;
    let invite = invite_link(c).await;
    invite.rsplit('/').next().expect("a game id").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn layout_offers_first_moves_and_a_quiet_console() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let began = Instant::now();
    // The first-move timer long enough not to end the game before the first moves are made.
    let mut config = test_config();
    config.room.first_move_timeout = Duration::from_secs(30);
    let server = start_with(config).await;
    let a = driver.browser(1280, 800).await;
    let b = driver.browser(1280, 800).await;

    // Alice creates a timed game; Bob takes Black through the invite link.
    let game = timed_friend_game(&a, &server, "Alice").await;
    no_console_errors(&driver, &a, "the lobby (visitor)").await;
    open(&b, &server, &format!("/g/{game}")).await;
    click_css(&b, "#join-black").await;
    choose_name(&b, "Bob").await;
    wait_status(&a, "Your move").await;

    // No clock runs before both sides have moved: a count-down to White's first move instead.
    countdown_ticks(&a, "bottom").await;
    assert!(text(&a, "#player-bottom .first-move").await.starts_with("You have"));
    assert!(text(&b, "#player-top .first-move").await.starts_with("White has"));
    clocks_stopped_at(&a, "5:00").await;
    click_move(&a, "e2e4").await;
    wait_plies(&b, 1).await;
    countdown_ticks(&a, "top").await;
    clocks_stopped_at(&a, "5:00").await;
    clocks_stopped_at(&b, "5:00").await;
    click_move(&b, "e7e5").await;
    wait_plies(&a, 2).await;
    // Now White's clock runs, and the count-downs are gone.
    wait_js(
        &a,
        "White's clock running",
        "const w = document.getElementById('clock-white');
         return w.classList.contains('running') && w.textContent === '4:59'",
    )
    .await;
    assert_eq!(text(&a, "#clock-black").await, "5:00");
    let countdowns = a.execute("return document.querySelectorAll('.first-move:not([hidden])').length", vec![]).await;
    assert_eq!(countdowns.ok(), Some(json!(0)));

    // A few moves and some chat.
    click_move(&a, "g1f3").await;
    wait_plies(&b, 3).await;
    click_move(&b, "b8c6").await;
    wait_plies(&a, 4).await;
    for (c, line) in [(&a, "Good luck!"), (&b, "Have fun")] {
        c.find(Locator::Id("chat-input"))
            .await
            .expect("chat input")
            .send_keys(&format!("{line}\n"))
            .await
            .expect("chat");
    }
    for c in [&a, &b] {
        wait_js(c, "both chat lines", "return document.querySelectorAll('#chat-log .chat-line').length === 2").await;
    }

    // A draw offer: pending on Alice's button, shown to Bob; withdrawn, gone for both.
    click_css(&a, "#draw").await;
    wait_js(&a, "the draw offer pending", "const d = document.getElementById('draw'); return d.getAttribute('aria-pressed') === 'true' && d.textContent.includes('withdraw')").await;
    wait_js(
        &b,
        "the offer shown to Bob",
        "const o = document.getElementById('offer'); return !o.hidden && o.textContent.includes('offers a draw')",
    )
    .await;
    click_css(&a, "#draw").await;
    wait_js(&b, "the offer gone for Bob", "return document.getElementById('offer').hidden").await;
    wait_js(&a, "the draw button at rest", "const d = document.getElementById('draw'); return d.textContent === 'Offer draw' && !d.disabled && document.getElementById('offer').hidden").await;
    // A takeback request the same way; while pending its button withdraws it rather than asking twice.
    click_css(&a, "#undo").await;
    wait_js(&a, "the takeback pending", "return document.getElementById('undo').textContent.includes('withdraw')")
        .await;
    wait_js(
        &b,
        "the takeback shown to Bob",
        "return document.getElementById('offer').textContent.includes('take back')",
    )
    .await;
    click_css(&a, "#undo").await;
    wait_js(&b, "the takeback gone for Bob", "return document.getElementById('offer').hidden").await;
    no_console_errors(&driver, &a, "a game (visitor)").await;
    no_console_errors(&driver, &b, "a game (visitor)").await;

    // Everything a player needs above the fold, at each size, on Alice's page with the clocks
    // running. The other sizes are emulated in her browser (starting a browser per size would
    // cost seconds each).
    for (width, height) in [(1280, 800), (1366, 768), (375, 800)] {
        if (width, height) != (1280, 800) {
            emulate(&driver, &a, width, height).await;
        }
        let script = format!("return innerWidth === {width} && innerHeight === {height}");
        wait_js(&a, &format!("the page at {width}x{height}"), &script).await;
        a.execute("document.activeElement?.blur(); window.scrollTo(0, 0);", vec![]).await.expect("to the top");
        let missing = off_screen(&a).await;
        screenshot(&a, &format!("layout-game-{width}x{height}.png")).await;
        assert!(missing.is_empty(), "at {width}x{height}, not all on screen: {missing:#?}");
    }
    emulate(&driver, &a, 1280, 800).await;
    no_console_errors(&driver, &a, "the game at each size").await;

    // The game ends; its page, the editor and a player's page, for a visitor...
    click_css(&a, "#resign").await;
    click_css(&a, "#resign-confirm").await;
    wait_js(&b, "the end", "return document.getElementById('app').dataset.status === 'ended'").await;
    a.refresh().await.expect("reload");
    wait_js(&a, "the finished game", "return document.getElementById('app').dataset.status === 'ended'").await;
    // A finished game nobody analysed offers the analysis (the server answers that there is none).
    wait_js(&a, "the analysis button", "return !document.getElementById('analysis-request').hidden").await;
    no_console_errors(&driver, &a, "a finished game (visitor)").await;
    open(&a, &server, "/editor").await;
    wait_js(&a, "the editor", "return document.querySelector('svg.board') !== null").await;
    no_console_errors(&driver, &a, "the editor (visitor)").await;

    // ... and for a logged-in player (Carol, with a guest name stored before, as on a shared browser).
    let signed_up = b
        .execute(
            "localStorage.setItem('gambit:name', 'Carol');
             return fetch('/api/signup', {method: 'POST', headers: {'Content-Type': 'application/json'},
               body: JSON.stringify({username: 'Carol', password: 'correct horse battery'})}).then((r) => r.status);",
            vec![],
        )
        .await;
    assert_eq!(signed_up.ok(), Some(json!(200)), "sign up");
    let logged_in = "return document.getElementById('account-name')?.textContent === 'Carol'";
    for (path, ready) in [
        ("/", "return document.querySelector('#games a') !== null"),
        (&format!("/g/{game}") as &str, "return document.getElementById('app').dataset.status === 'ended'"),
        ("/editor", "return document.querySelector('svg.board') !== null"),
        ("/@/Carol", "return document.getElementById('player-name')?.textContent === 'Carol'"),
    ] {
        open(&b, &server, path).await;
        wait_js(&b, &format!("{path} loaded"), ready).await;
        wait_js(&b, "logged in", logged_in).await;
        no_console_errors(&driver, &b, &format!("{path} (logged in)")).await;
    }
    // Logging out forgets the stored name: the top bar asks for one again.
    click_css(&b, "#logout").await;
    wait_js(&b, "logged out", "return document.getElementById('login-link') !== null").await;
    wait_js(&b, "no name kept", "return document.getElementById('change-name')?.textContent === 'Choose a name'").await;
    no_console_errors(&driver, &b, "a player's page after logging out").await;
    open(&a, &server, "/@/Carol").await;
    wait_js(&a, "Carol's page", "return document.getElementById('player-name')?.textContent === 'Carol'").await;
    no_console_errors(&driver, &a, "a player's page (visitor)").await;
    b.close().await.expect("close");

    // White does not make a first move in time: the game is aborted, with no result.
    let mut config = test_config();
    config.room.first_move_timeout = Duration::from_secs(2);
    let quick = start_with(config).await;
    let game = timed_friend_game(&a, &quick, "Alice").await;
    let mut bob = server_support::Client::connect(quick.addr).await;
    bob.join(&game, "black").await;
    wait_js(&a, "the first-move count-down", "return !document.querySelector('#player-bottom .first-move').hidden")
        .await;
    wait_status(&a, "Game aborted").await;
    let result = a.execute(&on_page("return page.game.result;"), vec![]).await.expect("the result");
    assert_eq!(result, json!("*"));
    assert!(
        a.execute("return document.getElementById('analysis-box').hidden", vec![]).await.ok() == Some(json!(true)),
        "no analysis offered for an aborted game"
    );
    clocks_stopped_at(&a, "5:00").await;
    no_console_errors(&driver, &a, "an aborted game").await;
    a.close().await.expect("close");
    eprintln!("layout: {:.1} s", began.elapsed().as_secs_f64());
}
