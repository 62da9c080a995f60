//! Computer analysis of a finished game on its page, in a real browser (headless Chromium over
//! WebDriver, helpers in tests/browser_support/): the request button once the game ends, the
//! evaluation graph with a point per position, the blunder marked in the move list, the graph
//! stepping the board, the engine's best move drawn as an arrow, each player's summary, and the
//! stored analysis shown again after a reload.
//!
//! Without chromium and chromedriver these tests fail when CI=true and are skipped otherwise.

use crate::browser_support;
use crate::server_support;

use browser_support::*;
use std::time::Duration;

use fantoccini::Client;
use serde_json::{json, Value};
use server_support::{start_with, test_config};

/// The game: 1.e4 e5 2.Nf3 Qh4?? 3.Nxh4 — Black loses the queen for nothing — then Black resigns.
const MOVES: [&str; 5] = ["e2e4", "e7e5", "g1f3", "d8h4", "f3h4"];

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// The ply the page shows (the game's length when it shows the final position).
async fn shown_ply(c: &Client) -> Value {
    c.execute(&on_page("return page.review ?? page.game.moves.length;"), vec![]).await.expect("the ply shown")
}

/// The UCI of the best-move arrow on the board, or null when none is drawn.
async fn arrow(c: &Client) -> Value {
    js(c, "return document.getElementById('best-arrow')?.dataset.uci ?? null").await
}

/// Waits until the best-move arrow on the board is `uci`.
async fn wait_arrow(c: &Client, uci: &str) {
    let script = format!("return document.getElementById('best-arrow')?.dataset.uci === {uci:?}");
    wait_js(c, &format!("the arrow {uci}"), &script).await;
}

/// Waits until the graph shows with one point per position (the start and each ply).
async fn wait_graph(c: &Client, positions: usize) {
    let script = format!(
        "const g = document.getElementById('eval-graph');
         return g !== null && !document.getElementById('analysis').hidden
           && g.querySelectorAll('.point[data-ply]').length === {positions}"
    );
    wait_js(c, &format!("the evaluation graph with {positions} points"), &script).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_is_analysed_on_its_page() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let mut config = test_config();
    // A short think per position keeps the test quick; Qh4?? is a blunder at any depth.
    config.analysis.movetime = Duration::from_millis(30);
    let server = start_with(config).await;
    let a = driver.browser(1100, 900).await;

    // Alice (White, in the browser) invites Bob (Black, over the WebSocket).
    let (game, mut bob) = friend_game_with_bob(&a, &server).await;
    let hidden = js(&a, "return document.getElementById('analysis-box').hidden").await;
    assert_eq!(hidden, json!(true), "no analysis while the game is on");

    for (ply, uci) in MOVES.into_iter().enumerate() {
        if ply % 2 == 0 {
            click_move(&a, uci).await;
        } else {
            bob.send(json!({"type":"move","game":game,"uci":uci})).await;
        }
        wait_plies(&a, ply as u64 + 1).await;
    }
    bob.send(json!({"type":"resign","game":game})).await;
    wait_js(&a, "the game over", "return document.getElementById('app').dataset.status === 'ended'").await;

    // The button appears on the page that saw the game end, with no reload.
    wait_js(
        &a,
        "the request button",
        "const b = document.getElementById('analysis-request');
         return b !== null && !b.hidden && !b.disabled && b.offsetParent !== null",
    )
    .await;
    assert_eq!(arrow(&a).await, Value::Null, "no arrow before the analysis");
    click_css(&a, "#analysis-request").await;
    let positions = MOVES.len() + 1;
    wait_graph(&a, positions).await;
    let order = js(&a, "return [...document.querySelectorAll('#eval-graph .point')].map(p => p.dataset.ply)").await;
    let expected: Vec<String> = (0..positions).map(|i| i.to_string()).collect();
    assert_eq!(order, json!(expected), "a point per position, in order");
    assert_eq!(js(&a, "return document.getElementById('analysis-progress').hidden").await, json!(true));
    assert_eq!(js(&a, "return document.getElementById('analysis-request').hidden").await, json!(true));

    // The server's result, to compare the page with.
    let (code, body) = server.get(&format!("/api/games/{game}/analysis")).await;
    assert_eq!(code, 200, "{body}");
    let analysis: Value = serde_json::from_str(&body).expect("analysis JSON");
    assert_eq!(analysis["status"], "done", "{analysis}");
    assert_eq!(analysis["plies"][3]["judgement"], "blunder", "Qh4 is a blunder: {analysis}");

    // Qh4 carries "??" after its SAN, the better move in its tooltip; the graph marks it too.
    let qh4 = js(
        &a,
        "const b = document.querySelector(\"#moves .mv[data-ply='4']\");
         return [b.textContent, b.querySelector('.judgement.blunder')?.textContent ?? null, b.title]",
    )
    .await;
    assert_eq!(qh4[0], "Qh4??", "{qh4}");
    assert_eq!(qh4[1], "??", "{qh4}");
    let best_san = analysis["plies"][3]["best"]["san"].as_str().expect("a best move for Black");
    assert_eq!(qh4[2], format!("Blunder. {best_san} was best."), "{qh4}");
    let judged =
        js(&a, "return document.querySelector(\"#eval-graph .point[data-ply='4']\").classList.contains('blunder')")
            .await;
    assert_eq!(judged, json!(true), "the blunder's point is marked");
    let white_moves =
        js(&a, "return [1, 3, 5].map(p => document.querySelector(`#moves .mv[data-ply='${p}']`).textContent)").await;
    assert_eq!(white_moves, json!(["e4", "Nf3", "Nxh4"]), "White's good moves carry no mark");

    // The summary: a row per player, under the names on the page; Black's blunder counted.
    let rows = js(
        &a,
        "return [...document.querySelectorAll('#analysis-summary tbody tr')].map(r =>
           [r.dataset.color, r.querySelector('th').textContent, r.querySelector('[data-stat=blunders]').textContent,
            r.querySelector('[data-stat=acpl]').textContent])",
    )
    .await;
    assert_eq!(rows[0][0], "white", "{rows}");
    assert_eq!(rows[0][1], "Alice", "{rows}");
    assert_eq!(rows[1][0], "black", "{rows}");
    assert_eq!(rows[1][2], analysis["players"]["black"]["blunders"].to_string(), "{rows}");
    assert_ne!(rows[1][2], "0", "{rows}");
    assert!(rows[1][3].as_str().is_some_and(|s| s.parse::<u32>().is_ok()), "{rows}");

    // The final position: marked on the graph, no arrow (there is no next move to suggest).
    assert_eq!(js(&a, "return document.getElementById('eval-graph').dataset.current").await, json!("5"));
    assert_eq!(arrow(&a).await, Value::Null, "no arrow on the final position");

    // A click on the graph's point after 1...e5 steps the board there, with the engine's move for White.
    let final_position = position(&a).await;
    click_css(&a, "#eval-graph .point[data-ply='2']").await;
    wait_js(&a, "the board at ply 2", "return document.getElementById('eval-graph').dataset.current === '2'").await;
    assert_eq!(shown_ply(&a).await, json!(2));
    let after_e5 = position(&a).await;
    assert_ne!(after_e5, final_position);
    for piece in ["e4P", "e5p", "g1N", "d8q"] {
        assert!(after_e5.split(' ').any(|p| p == piece), "{piece} in {after_e5}");
    }
    let current = js(&a, "return document.querySelector(\"#moves .mv[aria-current]\")?.dataset.ply").await;
    assert_eq!(current, json!("2"), "the move list follows the graph");
    let best = analysis["plies"][2]["best"]["uci"].as_str().expect("a best move after 1...e5").to_string();
    wait_arrow(&a, &best).await;

    // Stepping on with the move list's buttons: the arrow follows each position.
    click_css(&a, "#move-next").await;
    wait_js(&a, "the board at ply 3", "return document.getElementById('eval-graph').dataset.current === '3'").await;
    let best = analysis["plies"][3]["best"]["uci"].as_str().expect("Black's best move").to_string();
    wait_arrow(&a, &best).await;
    click_css(&a, "#move-first").await;
    wait_js(&a, "the start position", "return document.getElementById('eval-graph').dataset.current === '0'").await;
    assert_eq!(shown_ply(&a).await, json!(0));
    let best = analysis["plies"][0]["best"]["uci"].as_str().expect("a best first move").to_string();
    wait_arrow(&a, &best).await;
    click_css(&a, "#move-last").await;
    wait_js(&a, "the final position again", "return document.getElementById('eval-graph').dataset.current === '5'")
        .await;
    assert_eq!(arrow(&a).await, Value::Null, "no arrow on the final position");
    assert_eq!(position(&a).await, final_position);
    screenshot(&a, "analysis.png").await;

    // A reload (anyone coming later) shows the stored analysis at once: no button, no progress.
    a.refresh().await.expect("reload");
    wait_graph(&a, positions).await;
    let shown = js(
        &a,
        "return [document.getElementById('analysis-request').hidden, document.getElementById('analysis-progress').hidden,
                 document.querySelector(\"#moves .mv[data-ply='4']\").textContent]",
    )
    .await;
    assert_eq!(shown, json!([true, true, "Qh4??"]));
    click_css(&a, "#eval-graph .point[data-ply='3']").await;
    wait_js(
        &a,
        "the board at ply 3 after the reload",
        "return document.getElementById('eval-graph').dataset.current === '3'",
    )
    .await;
    wait_js(&a, "the arrow after the reload", "return document.getElementById('best-arrow') !== null").await;
    let _ = a.close().await;
}

/// Replaces the page's `fetch` of `…/analysis` with canned answers, so the page's handling of
/// each answer can be seen: `window.analysisStub.get` and `.post` are lists of `[status, body]`,
/// taken in turn (the last one stays); the counts of requests are kept beside them.
const STUB: &str = "
    const real = window.fetch.bind(window);
    window.analysisStub = { get: [], post: [], gets: 0, posts: 0 };
    window.fetch = (path, init) => {
      if (!String(path).endsWith('/analysis')) return real(path, init);
      const s = window.analysisStub;
      const post = init?.method === 'POST';
      const list = post ? s.post : s.get;
      if (post) s.posts += 1; else s.gets += 1;
      const [status, body] = list.length > 1 ? list.shift() : list[0];
      return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }));
    };
    return true;";

/// The progress bar, refusals in the server's words, and a minichess7 game's graph and arrows
/// (a 7x7 board, squares a1..g7), with the server's answers canned in the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_refusals_and_minichess() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start_with(test_config()).await;
    let a = driver.browser(1100, 900).await;

    // Two players over the WebSocket; the browser watches.
    let mut white = server_support::Client::connect(server.addr).await;
    white.send(json!({"type":"create","variant":"minichess7","white":{"kind":"human"},"black":{"kind":"human"},"as":"white"})).await;
    let created = white.recv_type("created").await;
    let game = created["game"].as_str().expect("game id").to_string();
    let mut black = server_support::Client::connect(server.addr).await;
    black.join(&game, "black").await;
    white.play(&game, "b2b3").await;
    black.play(&game, "b6b5").await;
    open(&a, &server, &format!("/g/{game}")).await;
    wait_plies(&a, 2).await;
    wait_js(&a, "a 7x7 board", "return document.querySelector('svg.board').dataset.size === '7'").await;
    assert_eq!(js(&a, STUB).await, json!(true));
    js(
        &a,
        "window.analysisStub.get = [[404, {type: 'error', code: 'no_such_analysis', message: 'no analysis of this game'}]];
         window.analysisStub.post = [
           [429, {type: 'error', code: 'rate_limited', message: 'too many analyses are running; try again in a minute'}],
           [202, {status: 'running', progress: 0, plies: []}]];
         return true;",
    )
    .await;
    white.send(json!({"type":"resign","game":game})).await;
    wait_js(&a, "the game over", "return document.getElementById('app').dataset.status === 'ended'").await;

    // Asked, refused: the server's words, and the button stays to try again.
    wait_js(&a, "the request button", "return !document.getElementById('analysis-request').hidden").await;
    click_css(&a, "#analysis-request").await;
    let error = wait_js(
        &a,
        "the refusal",
        "const e = document.getElementById('analysis-error'); return !e.hidden && e.textContent",
    )
    .await;
    assert_eq!(error, json!("too many analyses are running; try again in a minute"));
    assert_eq!(js(&a, "return document.getElementById('analysis-request').hidden").await, json!(false));

    // Asked again: the progress while it runs, asked about every half second.
    js(&a, "window.analysisStub.get = [[200, {status: 'running', progress: 0.37, plies: []}]]; return true;").await;
    click_css(&a, "#analysis-request").await;
    wait_js(
        &a,
        "the progress",
        "return !document.getElementById('analysis-progress').hidden
           && document.getElementById('analysis-percent').textContent === '37%'
           && document.getElementById('analysis-progress-bar').value === 37",
    )
    .await;
    assert_eq!(
        js(&a, "return [document.getElementById('analysis-error').hidden, document.getElementById('analysis-request').hidden]").await,
        json!([true, true])
    );
    let gets = js(&a, "return window.analysisStub.gets").await.as_u64().unwrap_or(0);
    wait_js(&a, "the page polling", &format!("return window.analysisStub.gets >= {}", gets + 2)).await;

    // Done: a point per position, the mistake marked, the arrows on the 7x7 board.
    js(
        &a,
        "window.analysisStub.get = [[200, {status: 'done', progress: 1, movetime_ms: 30, initial: {cp: 15},
           plies: [
             {ply: 1, move: {uci: 'b2b3', san: 'b3'}, eval: {cp: 10}, best: {uci: 'c2c3', san: 'c3'}, judgement: null},
             {ply: 2, move: {uci: 'b6b5', san: 'b5'}, eval: {cp: 140}, best: {uci: 'g7a5', san: 'Ra5'}, judgement: 'mistake'}],
           players: {white: {inaccuracies: 0, mistakes: 0, blunders: 0, acpl: 5}, black: {inaccuracies: 0, mistakes: 1, blunders: 0, acpl: 130}}}]];
         return true;",
    )
    .await;
    let script = "const g = document.getElementById('eval-graph');
         return g !== null && !document.getElementById('analysis').hidden && document.getElementById('analysis-progress').hidden
           && g.querySelectorAll('.point[data-ply]').length === 3";
    wait_js(&a, "the graph", script).await;
    let b5 =
        js(&a, "const b = document.querySelector(\"#moves .mv[data-ply='2']\"); return [b.textContent, b.title]").await;
    assert_eq!(b5, json!(["b5?", "Mistake. Ra5 was best."]));
    let acpl =
        js(&a, "return document.querySelector('#analysis-summary tr[data-color=black] [data-stat=acpl]').textContent")
            .await;
    assert_eq!(acpl, json!("130"));
    click_css(&a, "#eval-graph .point[data-ply='0']").await;
    wait_arrow(&a, "c2c3").await;
    click_css(&a, "#eval-graph .point[data-ply='1']").await;
    wait_arrow(&a, "g7a5").await;
    // The arrow lies on the 7x7 board: from g7's centre towards a5's.
    let inside = js(
        &a,
        "const l = document.querySelector('#best-arrow line');
         const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map(k => Number(l.getAttribute(k)));
         return x1 > 600 && x1 < 700 && y1 < 100 && x2 < x1 && y2 > y1 && x2 > 0 && y2 < 300",
    )
    .await;
    assert_eq!(inside, json!(true), "the arrow from g7 towards a5");
    click_css(&a, "#eval-graph .point[data-ply='2']").await;
    wait_js(&a, "no arrow at the end", "return document.getElementById('best-arrow') === null").await;
    assert_eq!(js(&a, "return window.analysisStub.posts").await, json!(2));
    screenshot(&a, "analysis-minichess7.png").await;
    let _ = a.close().await;
}
