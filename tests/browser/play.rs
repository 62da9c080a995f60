//! The web client in a real browser: headless Chromium, driven over WebDriver (chromedriver)
//! by fantoccini, against the real server on 127.0.0.1:0. The tests click, drag and type as a
//! person would, and read what the page shows. Screenshots land in target/screenshots/.
//!
//! Without chromium and chromedriver these tests fail when CI=true (CI must run them) and are
//! skipped with a note otherwise. `apt-get install chromium chromium-driver` installs both.
//! The helpers they share with tests/browser/accounts.rs are in tests/browser_support/.

use crate::browser_support;
use crate::server_support;

use std::time::Duration;

use browser_support::*;
use fantoccini::{Client, Locator};
use gambit::server::room::ClaimGrace;
use serde_json::{json, Value};
use server_support::{start, start_with, test_config};

/// Lobby (the levels offered with their ratings) → a game against level 1; three moves by clicking and one by dragging, each answered;
/// a reload mid-game shows the same board and moves; undo; resign; the result shows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_the_computer_click_drag_reload_undo_resign() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let c = driver.browser(1280, 900).await;

    open_lobby(&c, &server).await;
    // Every level is offered with its rating, as the server rates it.
    let labels: Vec<String> = gambit::bots::Level::ALL.iter().map(|l| l.label()).collect();
    let script = format!(
        "return JSON.stringify([...document.querySelectorAll('#bot-level option')].map((o) => o.textContent)) === {:?}",
        serde_json::to_string(&labels).expect("JSON")
    );
    wait_js(&c, "the levels labelled with their ratings", &script).await;
    c.find(Locator::Id("bot-level")).await.expect("level").select_by_value("1").await.expect("level 1");
    click_css(&c, "#play-bot").await;
    choose_name(&c, "Ann").await;
    wait_js(
        &c,
        "the game page",
        "return location.pathname.startsWith('/g/') && document.getElementById('app').dataset.status === 'ongoing'",
    )
    .await;
    assert_eq!(
        c.execute("return document.getElementById('app').dataset.seat", vec![]).await.ok(),
        Some(json!("white"))
    );
    assert!(status(&c).await.contains("Your move"), "{}", status(&c).await);

    // Three moves by clicking: each time the bot answers.
    for n in 1..=3u64 {
        let mv = some_legal_move(&c).await;
        click_move(&c, &mv).await;
        wait_plies(&c, 2 * n).await;
        let pos = position(&c).await;
        assert!(pos.contains(&mv[2..4]), "{mv} not shown in {pos}");
    }
    // One by drag and drop.
    let mv = some_legal_move(&c).await;
    drag_move(&c, &mv).await;
    wait_plies(&c, 8).await;
    wait_status(&c, "Your move").await;
    assert_eq!(move_list(&c).await.lines().filter(|l| l.contains('.')).count(), 4, "{}", move_list(&c).await);
    screenshot(&c, "game-standard.png").await;

    // Reload: the same board and move list come back.
    let (before_pos, before_moves) = (position(&c).await, move_list(&c).await);
    c.refresh().await.expect("reload");
    wait_plies(&c, 8).await;
    assert_eq!(position(&c).await, before_pos);
    assert_eq!(move_list(&c).await, before_moves);
    assert_eq!(
        c.execute("return document.getElementById('app').dataset.seat", vec![]).await.ok(),
        Some(json!("white"))
    );

    // Review an earlier position, then back to live.
    click_css(&c, "#moves [data-ply='2']").await;
    wait_js(&c, "the review bar", "return !document.getElementById('review-bar').hidden").await;
    assert_ne!(position(&c).await, before_pos);
    click_css(&c, "#live").await;
    assert_eq!(position(&c).await, before_pos);

    // A typed move in SAN or UCI.
    let mv = some_legal_move(&c).await;
    c.find(Locator::Id("move-input")).await.expect("move box").send_keys(&format!("{mv}\n")).await.expect("type");
    wait_plies(&c, 10).await;

    // Undo takes back my move and the bot's reply.
    click_css(&c, "#undo").await;
    wait_plies(&c, 8).await;
    assert_eq!(position(&c).await, before_pos);

    // Resign, confirm: the result shows.
    click_css(&c, "#resign").await;
    click_css(&c, "#resign-confirm").await;
    let line = wait_status(&c, "wins").await;
    assert_eq!(line, "White resigned — Black wins");

    // The lobby lists the finished game.
    open(&c, &server, "/").await;
    wait_js(&c, "the game in the list", "return document.querySelector('#games a.status-ended') !== null").await;
    screenshot(&c, "lobby.png").await;
    let _ = c.close().await;
}

/// A friend game: A creates it from a position, B opens the invite link and takes black, C
/// watches; every move shows for all three; a promotion through the picker mates.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn friends_play_and_a_spectator_follows_to_checkmate() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(1100, 850).await;
    let b = driver.browser(1100, 850).await;
    let c = driver.browser(375, 812).await;

    open_lobby(&a, &server).await;
    click_css(&a, "#options summary").await;
    // White: king c6, pawn g7. Black: king a8, pawn h5. 1. Kb6 h4 2. g8=Q#.
    a.find(Locator::Id("fen")).await.expect("fen").send_keys("k7/6P1/2K5/7p/8/8/8/8 w - - 0 1").await.expect("type");
    click_css(&a, "#play-friend").await;
    choose_name(&a, "Alice").await;
    let invite = invite_link(&a).await;
    assert!(invite.contains("/g/"), "{invite}");
    wait_status(&a, "Waiting for your friend").await;

    b.goto(&invite).await.expect("open invite");
    click_css(&b, "#join-black").await;
    choose_name(&b, "Bob").await;
    wait_js(&b, "black's seat", "return document.getElementById('app').dataset.seat === 'black'").await;
    wait_status(&b, "White to move").await;
    assert_eq!(
        b.execute("return document.querySelector('svg.board').dataset.orientation", vec![]).await.ok(),
        Some(json!("black"))
    );

    c.goto(&invite).await.expect("open as spectator");
    wait_status(&c, "White to move").await;
    assert_eq!(
        c.execute("return document.getElementById('app').dataset.seat", vec![]).await.ok(),
        Some(json!("spectator"))
    );
    // A spectator has no controls.
    assert!(c.find(Locator::Css("#move-form:not([hidden])")).await.is_err());
    wait_status(&a, "Your move").await;

    // The spectator's connection drops: "reconnecting…" shows; the move made meanwhile arrives
    // when it is back (a `watch` with its last version).
    disconnect(&c).await;
    click_move(&a, "c6b6").await;
    wait_plies(&a, 1).await;
    assert_eq!(plies(&c).await, 0);
    reconnect(&c).await;
    for p in [&a, &b, &c] {
        wait_plies(p, 1).await;
    }
    assert!(position(&c).await.contains("b6K"));
    wait_status(&b, "Your move").await;
    drag_move(&b, "h5h4").await;
    for p in [&a, &b, &c] {
        wait_plies(p, 2).await;
    }
    assert!(position(&c).await.contains("h4p"));

    // The promotion: the picker offers the pieces; the queen mates. Black is offline meanwhile
    // and learns of it when it resumes its seat.
    disconnect(&b).await;
    // The spectator is told black is away; white, that it may claim once the grace is over.
    wait_js(
        &c,
        "the away line",
        "const c = document.getElementById('claim'); return !c.hidden && c.textContent === 'Black is away.'",
    )
    .await;
    wait_js(
        &a,
        "the count-down",
        "return /^You can claim victory in \\d+ s$/.test(document.getElementById('claim-countdown')?.textContent)",
    )
    .await;
    click_move(&a, "g7g8").await;
    click_css(&a, ".promotion [data-promo='q']").await;
    wait_plies(&a, 3).await;
    reconnect(&b).await;
    for p in [&a, &b, &c] {
        wait_plies(p, 3).await;
        let line = wait_status(p, "Checkmate").await;
        assert_eq!(line, "Checkmate — White wins");
    }
    assert!(position(&c).await.contains("g8Q"));
    assert_eq!(move_list(&c).await.split_whitespace().collect::<Vec<_>>(), ["1.", "Kb6", "h4", "2.", "g8=Q#"]);
    screenshot(&c, "game-mobile-spectator.png").await;
    for p in [a, b, c] {
        let _ = p.close().await;
    }
}

/// Minichess 7x7 against the computer, with a bad FEN first: the server's reason shows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn minichess_board_and_fen_errors() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let c = driver.browser(1280, 900).await;

    open_lobby(&c, &server).await;
    click_css(&c, "#options summary").await;
    c.find(Locator::Id("fen")).await.expect("fen").send_keys("8/8/8/8/8/8/8/8 w - - 0 1").await.expect("type");
    click_css(&c, "#play-bot").await;
    choose_name(&c, "Mini").await;
    let error = wait_js(&c, "the FEN error", "return document.getElementById('create-error').textContent").await;
    assert!(error.as_str().is_some_and(|e| e.to_lowercase().contains("king")), "{error}");
    assert_eq!(current_path(&c).await, "/");

    c.find(Locator::Id("fen")).await.expect("fen").clear().await.expect("clear");
    c.find(Locator::Id("variant")).await.expect("variant").select_by_value("minichess7").await.expect("minichess");
    c.find(Locator::Id("bot-level")).await.expect("level").select_by_value("2").await.expect("level 2");
    click_css(&c, "#play-bot").await;
    wait_js(&c, "the 7x7 game", "return document.getElementById('app').dataset.status === 'ongoing' && document.querySelector('svg.board')?.dataset.size === '7'").await;
    let pos = position(&c).await;
    for piece in ["C", "A", "F", "c", "a", "f"] {
        assert!(pos.split(' ').any(|p| p.ends_with(piece)), "no {piece} in {pos}");
    }
    for n in 1..=2u64 {
        let mv = some_legal_move(&c).await;
        click_move(&c, &mv).await;
        wait_plies(&c, 2 * n).await;
    }
    wait_status(&c, "Your move").await;
    screenshot(&c, "game-minichess7.png").await;
    assert!(plies(&c).await >= 4);
    let _ = c.close().await;
}

/// A timed game against the computer: the lobby's time control is sent, the games list names it,
/// both clocks show and stand still until both sides have moved, then the running one is
/// highlighted and ticks down.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timed_game_against_the_computer_shows_ticking_clocks() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let c = driver.browser(1280, 900).await;

    open_lobby(&c, &server).await;
    click_css(&c, "#options summary").await;
    c.find(Locator::Id("time-control")).await.expect("time control").select_by_value("3+2").await.expect("3+2");
    click_css(&c, "#play-bot").await;
    choose_name(&c, "Tim").await;
    wait_js(&c, "the timed game", "return document.getElementById('app').dataset.status === 'ongoing'").await;
    let clock_text = |side: &str| format!("return document.getElementById('clock-{side}')?.textContent || ''");
    // No clock runs before both sides have moved.
    wait_js(
        &c,
        "both clocks",
        "return document.getElementById('clock-white')?.textContent === '3:00' \
         && document.getElementById('clock-black')?.textContent === '3:00'",
    )
    .await;
    let running = c.execute("return document.querySelector('.clock.running')?.id", vec![]).await.expect("js");
    assert_eq!(running, json!(null));

    // A move passes the turn to the bot, whose answer starts White's clock.
    let mv = some_legal_move(&c).await;
    click_move(&c, &mv).await;
    wait_plies(&c, 2).await;
    wait_js(&c, "White's clock running", "return document.querySelector('.clock.running')?.id === 'clock-white'").await;
    let first = c.execute(&clock_text("white"), vec![]).await.expect("js");
    // The running clock ticks down locally, with no message from the server.
    wait_js(
        &c,
        "White's clock to tick",
        &format!("return document.getElementById('clock-white').textContent !== {first}"),
    )
    .await;
    let white = c.execute(&clock_text("white"), vec![]).await.expect("js");
    assert!(white.as_str().is_some_and(|t| t.starts_with("2:5")), "{white}");
    screenshot(&c, "game-timed.png").await;

    // The games list shows the time control.
    open(&c, &server, "/").await;
    wait_js(&c, "the game in the list", "return document.querySelector('#games .time-control')?.textContent === '3+2'")
        .await;
    let _ = c.close().await;
}

/// A friend game whose black player closes the browser: white is told the opponent left and
/// sees the count-down to the claim, then the claim buttons; "Claim victory" ends the game,
/// 1-0 by abandonment, on the page and in the HTTP API.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opponent_leaves_and_white_claims_the_win() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let mut config = test_config();
    let grace = Duration::from_millis(3000);
    config.room.claim_grace = ClaimGrace { min: grace, max: grace };
    let server = start_with(config).await;
    let a = driver.browser(1100, 850).await;
    let b = driver.browser(1100, 850).await;

    open_lobby(&a, &server).await;
    click_css(&a, "#play-friend").await;
    choose_name(&a, "Alice").await;
    let invite = invite_link(&a).await;
    let game = invite.rsplit('/').next().expect("game id").to_string();
    b.goto(&invite).await.expect("open invite");
    click_css(&b, "#join-black").await;
    choose_name(&b, "Bob").await;
    wait_js(&b, "black's seat", "return document.getElementById('app').dataset.seat === 'black'").await;

    // A couple of moves each; nobody is away, so no notice.
    for (n, (player, mv)) in [(&a, "e2e4"), (&b, "e7e5"), (&a, "g1f3"), (&b, "b8c6")].into_iter().enumerate() {
        wait_status(player, "Your move").await;
        click_move(player, mv).await;
        wait_plies(&a, n as u64 + 1).await;
    }
    wait_plies(&b, 4).await;
    assert_eq!(a.execute("return document.getElementById('claim').hidden", vec![]).await.ok(), Some(json!(true)));

    // Black leaves: white sees the notice and a count-down, and no buttons yet.
    let _ = b.close().await;
    let first = wait_js(
        &a,
        "the away notice with a count-down",
        "const c = document.getElementById('claim'); const t = document.getElementById('claim-countdown')?.textContent || '';
         return !c.hidden && c.textContent.includes('Your opponent left the game.') && /^You can claim victory in \\d+ s$/.test(t) && t",
    )
    .await;
    assert!(a.find(Locator::Id("claim-win")).await.is_err(), "claim buttons before the grace ran out");
    let seconds =
        |text: &Value| text.as_str().and_then(|t| t.split_whitespace().nth(5)?.parse::<u64>().ok()).unwrap_or(0);
    assert!((1..=3).contains(&seconds(&first)), "{first}");
    if seconds(&first) > 1 {
        // It counts down locally, with no message from the server.
        let script = format!(
            "const t = document.getElementById('claim-countdown')?.textContent; return t && t !== {first} && t"
        );
        let later = wait_js(&a, "the count-down to tick", &script).await;
        assert!(seconds(&later) < seconds(&first), "{first} then {later}");
    }
    screenshot(&a, "game-claim-countdown.png").await;
    assert!(a.find(Locator::Css("#player-top .dot.off")).await.is_ok(), "black shown offline");

    // The grace runs out: the buttons show.
    wait_js(
        &a,
        "the claim buttons",
        "return !!document.querySelector('#claim-win:not([disabled])') && !!document.getElementById('claim-draw')",
    )
    .await;
    assert_eq!(
        a.find(Locator::Id("claim-win")).await.expect("button").text().await.ok().as_deref(),
        Some("Claim victory")
    );
    assert_eq!(
        a.find(Locator::Id("claim-draw")).await.expect("button").text().await.ok().as_deref(),
        Some("Call it a draw")
    );
    screenshot(&a, "game-claim.png").await;

    click_css(&a, "#claim-win").await;
    let line = wait_status(&a, "wins").await;
    assert_eq!(line, "Black left the game — White wins");
    wait_js(
        &a,
        "the notice gone",
        "return document.getElementById('claim').hidden && document.getElementById('app').dataset.status === 'ended'",
    )
    .await;
    assert_eq!(a.execute(&on_page("return page.game.result;"), vec![]).await.ok(), Some(json!("1-0")));

    let (code, body) = server.get(&format!("/api/games/{game}")).await;
    assert_eq!(code, 200, "{body}");
    let state: Value = serde_json::from_str(&body).expect("game JSON");
    assert_eq!(state["result"], "1-0", "{state}");
    assert_eq!(state["reason"], "abandoned", "{state}");
    assert_eq!(state["claim"], Value::Null, "{state}");
    let _ = a.close().await;
}

/// Display names: Alice chooses hers from the top bar and creates a friend game; Bob opens the
/// invite and is asked for a name as he takes the seat (a name with markup is refused in the
/// dialog, and by the server when sent anyway); each then sees both names at the board, and the
/// lobby's list names them. A name is shown as text, whatever it holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_choose_names_and_see_each_other() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(1100, 850).await;
    let b = driver.browser(1100, 850).await;

    // Alice has no name yet; she chooses one from the top bar. It is kept across a reload.
    open_lobby(&a, &server).await;
    assert_eq!(
        a.find(Locator::Id("change-name")).await.expect("control").text().await.ok().as_deref(),
        Some("Choose a name")
    );
    click_css(&a, "#change-name").await;
    choose_name(&a, "  Alice ").await;
    let named = "return !document.getElementById('name-dialog').open && document.getElementById('my-name')?.textContent === 'Alice'";
    wait_js(&a, "her name in the top bar", named).await;
    a.refresh().await.expect("reload");
    wait_js(&a, "her name after a reload", named).await;

    // With a name stored, creating asks nothing more.
    click_css(&a, "#play-friend").await;
    let invite = invite_link(&a).await;
    wait_js(
        &a,
        "Alice at the board, and the open seat",
        "const q = (s) => document.querySelector(s)?.textContent;
         return q('#player-bottom .name') === 'Alice (you)' && q('#player-top .name') === 'Open seat'",
    )
    .await;

    // Bob takes black: with no name stored, the dialog asks first. A name with markup in it is
    // refused there, with the reason; cancelling takes no seat.
    b.goto(&invite).await.expect("open invite");
    click_css(&b, "#join-black").await;
    choose_name(&b, "<b>x</b>").await;
    let error =
        wait_js(&b, "the refusal in the dialog", "return document.getElementById('name-error').textContent").await;
    assert_eq!(error, json!("“<” cannot be in a name: use letters, digits, spaces, “_”, “-” and “.”"));
    assert_eq!(
        b.execute("return document.getElementById('name-input').getAttribute('aria-invalid')", vec![]).await.ok(),
        Some(json!("true"))
    );
    screenshot(&b, "name-dialog.png").await;
    click_css(&b, "#name-cancel").await;
    wait_js(&b, "the dialog closed", "return !document.getElementById('name-dialog').open").await;
    assert_eq!(
        b.execute("return document.getElementById('app').dataset.seat", vec![]).await.ok(),
        Some(json!("spectator"))
    );
    assert!(b.find(Locator::Css("#join-black")).await.is_ok(), "the seat is still open");

    // The server is the authority: a `join` carrying that name anyway is refused with its words,
    // which the page shows in the notice and in the dialog, which asks again; Bob's name goes.
    b.execute(&on_page("page.join('black', '<b>x</b>');"), vec![]).await.expect("join");
    let refusal = wait_js(
        &b,
        "the server's refusal in the dialog",
        "return document.getElementById('name-dialog').open && document.getElementById('name-error').textContent",
    )
    .await;
    let refusal = refusal.as_str().expect("text").to_string();
    assert!(refusal.starts_with("bad message: '<' cannot be in a name"), "{refusal}");
    assert_eq!(b.find(Locator::Id("notice")).await.expect("notice").text().await.ok(), Some(refusal.clone()));
    choose_name(&b, "Bob").await;
    wait_js(&b, "black's seat", "return document.getElementById('app').dataset.seat === 'black'").await;
    wait_js(&b, "his name in the top bar", "return document.getElementById('my-name')?.textContent === 'Bob'").await;

    // Each sees both names, their own marked.
    for (p, mine, theirs) in [(&a, "Alice", "Bob"), (&b, "Bob", "Alice")] {
        let script = format!(
            "const q = (s) => document.querySelector(s)?.textContent;
             return q('#player-bottom .name') === '{mine} (you)' && q('#player-top .name') === '{theirs}'"
        );
        wait_js(p, &format!("{mine} and {theirs} at the board"), &script).await;
    }
    screenshot(&b, "game-names.png").await;

    // The lobby's list names the players, each marked a guest (a name chosen without an account).
    open(&b, &server, "/").await;
    wait_js(
        &b,
        "the names in the games list",
        "return [...document.querySelectorAll('#games .players')].some((p) =>
           [...p.querySelectorAll('.name')].map((n) => n.textContent).join(' vs ') === 'Alice vs Bob'
           && p.querySelectorAll('.guest').length === 2)",
    )
    .await;

    // Whatever a seat's name holds, it shows as text: markup (which no server should send)
    // stays visible characters, not elements.
    let markup = on_page(
        "const g = page.game;
         page.handle({ type: 'seats', game: page.id, v: g.v + 1, claim: null,
           seats: { white: g.seats.white, black: { kind: 'human', online: true, name: '<b>x</b>' } } });",
    );
    a.execute(&markup, vec![]).await.expect("a seat named with markup");
    wait_js(
        &a,
        "the markup shown as text",
        "const n = document.querySelector('#player-top .name'); return n.textContent === '<b>x</b>' && !n.querySelector('b')",
    )
    .await;
    for p in [a, b] {
        let _ = p.close().await;
    }
}

/// A game started by mistake: while fewer than two moves are played the page offers Abort
/// in Resign's place; aborting ends the game with no result and it leaves the lobby's list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_started_by_mistake_is_aborted() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(1100, 850).await;

    open_lobby(&a, &server).await;
    click_css(&a, "#play-friend").await;
    choose_name(&a, "Alice").await;
    wait_status(&a, "Waiting for your friend").await;
    let shown = "const v = (id) => !document.getElementById(id).hidden;
                 return v('abort') && !v('resign')";
    wait_js(&a, "Abort in Resign's place", shown).await;
    click_css(&a, "#abort").await;
    wait_status(&a, "Game aborted").await;
    assert!(a.find(Locator::Css("#abort:not([hidden])")).await.is_err(), "no Abort once it is over");

    open_lobby(&a, &server).await;
    let listed = a.execute("return document.querySelectorAll('#games a').length", vec![]).await.expect("list");
    assert_eq!(listed, json!(0), "an aborted game leaves the lobby");
    let _ = a.close().await;
}

/// Types `text` into the game page's chat box and presses Enter.
async fn send_chat(c: &Client, text: &str) {
    let ready = "const i = document.getElementById('chat-input'); return !document.getElementById('chat').hidden && !i.disabled";
    wait_js(c, "the chat box", ready).await;
    c.find(Locator::Id("chat-input")).await.expect("chat box").send_keys(&format!("{text}\n")).await.expect("type");
}

/// Waits until the game page shows the match score `score` ("Alice 1 – 0 Bob").
async fn wait_score(c: &Client, score: &str) {
    let script = format!("return document.getElementById('match-score')?.textContent === {score:?}");
    wait_js(c, &format!("the match score {score:?}"), &script).await;
}

/// A script's expression: the text of the chat lines of `room` the page shows, one per line.
fn chat_lines(room: &str) -> String {
    format!(
        "[...document.querySelectorAll('#chat .chat-line[data-room={room}]')].map((l) => l.textContent).join('\\n')"
    )
}

/// Two friends and a spectator around one board. Each chat room reaches only its readers (the
/// players' room never the spectator; the spectators' room the players only once the game is
/// over), and a line with markup shows as text. After Alice's fool's mate she offers a rematch,
/// Bob accepts, and all three pages move to the new game, colours swapped, the match score
/// shown and counted again when it ends. Then a seek posted in Alice's lobby is accepted from
/// Bob's: both land in its game, and Abort calls it off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn friends_chat_rematch_and_seek_in_three_browsers() {
    const XSS: &str = "<img src=x onerror=alert(1)>";
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(1100, 850).await;
    let b = driver.browser(1100, 850).await;
    let c = driver.browser(1100, 850).await;

    // Alice creates a friend game as Black; Bob takes White from the invite; Cy watches.
    open_lobby(&a, &server).await;
    click_css(&a, "#friend-form input[value='black']").await;
    click_css(&a, "#play-friend").await;
    choose_name(&a, "Alice").await;
    let invite = invite_link(&a).await;
    b.goto(&invite).await.expect("open invite");
    click_css(&b, "#join-white").await;
    choose_name(&b, "Bob").await;
    wait_js(&b, "white's seat", "return document.getElementById('app').dataset.seat === 'white'").await;
    c.goto(&invite).await.expect("open as spectator");
    wait_status(&c, "White to move").await;

    // Alice writes to the players; Cy, asked for a name as he first writes, to the spectators.
    send_chat(&a, "good luck").await;
    for p in [&a, &b] {
        wait_js(p, "Alice's line", &format!("return {} === 'Alice: good luck'", chat_lines("players"))).await;
    }
    send_chat(&c, XSS).await;
    choose_name(&c, "Cy").await;
    let literal = format!(
        "const t = document.querySelector('#chat .chat-line[data-room=spectators] .chat-text');
         return t?.textContent === {XSS:?} && t.parentNode.textContent === 'Cy: ' + {XSS:?} && !document.querySelector('#chat img')"
    );
    wait_js(&c, "Cy's line, as text", &literal).await;
    // Alice's line went out before Cy's, so by now it would have reached him.
    let players_room = format!("return {}", chat_lines("players"));
    assert_eq!(c.execute(&players_room, vec![]).await.ok(), Some(json!("")), "the spectator reads the players");

    // Fool's mate. Cy's line went out before the first move: the players have not read it.
    for (n, (player, mv)) in [(&b, "f2f3"), (&a, "e7e5"), (&b, "g2g4"), (&a, "d8h4")].into_iter().enumerate() {
        wait_status(player, "Your move").await;
        click_move(player, mv).await;
        wait_plies(&a, n as u64 + 1).await;
        if n == 0 {
            wait_plies(&b, 1).await;
            let spectators_room = format!("return {}", chat_lines("spectators"));
            for p in [&a, &b] {
                assert_eq!(p.execute(&spectators_room, vec![]).await.ok(), Some(json!("")), "before the end");
            }
        }
    }
    for p in [&a, &b, &c] {
        assert_eq!(wait_status(p, "Checkmate").await, "Checkmate — Black wins");
        wait_score(p, "Bob 0 – 1 Alice").await;
    }
    // Now the players read the spectators' room too.
    wait_js(&a, "Cy's line for the players", &literal).await;
    screenshot(&a, "game-chat-rematch.png").await;

    // Rematch: Alice offers, Bob accepts; every page moves to the new game, colours swapped.
    let first = current_path(&a).await;
    click_css(&a, "#rematch").await;
    wait_js(
        &b,
        "the rematch offer",
        "return document.getElementById('accept-offer')?.textContent === 'Accept rematch'",
    )
    .await;
    click_css(&b, "#accept-offer").await;
    let moved = format!(
        "return location.pathname !== {first:?} && document.getElementById('app').dataset.status === 'ongoing'"
    );
    for p in [&a, &b, &c] {
        wait_js(p, "the rematch", &moved).await;
        wait_score(p, "Alice 1 – 0 Bob").await;
    }
    let second = current_path(&a).await;
    assert_eq!(current_path(&b).await, second);
    assert_eq!(current_path(&c).await, second, "the spectator is carried along");
    for (p, seat) in [(&a, "white"), (&b, "black"), (&c, "spectator")] {
        let shown = p.execute("return document.getElementById('app').dataset.seat", vec![]).await.ok();
        assert_eq!(shown, Some(json!(seat)));
    }

    // Two moves, then Alice resigns: one game each.
    for (n, (player, mv)) in [(&a, "e2e4"), (&b, "e7e5")].into_iter().enumerate() {
        wait_status(player, "Your move").await;
        click_move(player, mv).await;
        wait_plies(&a, n as u64 + 1).await;
    }
    click_css(&a, "#resign").await;
    click_css(&a, "#resign-confirm").await;
    for p in [&a, &b, &c] {
        wait_score(p, "Alice 1 – 1 Bob").await;
    }

    // A seek from Alice's lobby, accepted from Bob's: both sit down in its game.
    open_lobby(&a, &server).await;
    click_css(&a, "#post-seek").await;
    wait_js(&a, "her seek, waiting", "return document.querySelector('#seeks .seek #cancel-seek') !== null").await;
    open_lobby(&b, &server).await;
    click_css(&b, "#seeks .seek .accept-seek").await;
    let seated =
        "return location.pathname.startsWith('/g/') && document.getElementById('app').dataset.status === 'ongoing'";
    for p in [&a, &b] {
        wait_js(p, "the seek's game", seated).await;
    }
    assert_eq!(current_path(&a).await, current_path(&b).await);
    let seat = "return document.getElementById('app').dataset.seat";
    let seats = [a.execute(seat, vec![]).await.ok(), b.execute(seat, vec![]).await.ok()];
    assert!(seats.contains(&Some(json!("white"))) && seats.contains(&Some(json!("black"))), "{seats:?}");
    click_css(&a, "#abort").await;
    for p in [&a, &b] {
        wait_status(p, "Game aborted").await;
    }
    for p in [a, b, c] {
        let _ = p.close().await;
    }
}
