//! The board editor (/editor) in a real browser (headless Chromium over WebDriver, helpers in
//! tests/browser_support/): setting up positions of both variants by click, drag and FEN, the
//! server's verdict on them, and a game started from one.
//!
//! Without chromium and chromedriver these tests fail when CI=true and are skipped otherwise.

use crate::browser_support;
use crate::server_support;

use browser_support::*;
use fantoccini::{Client, Locator};
use serde_json::json;
use server_support::start;

const MINI_START: &str = "nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1";
const STARTS: [&str; 3] = ["#editor-friend", "#editor-bot", "#editor-watch"];

async fn fen_field(c: &Client) -> String {
    let v = c.execute("return document.getElementById('editor-fen').value", vec![]).await.expect("the FEN field");
    v.as_str().unwrap_or_default().to_string()
}

async fn wait_fen(c: &Client, fen: &str) {
    wait_js(c, &format!("the FEN {fen}"), &format!("return document.getElementById('editor-fen').value === {fen:?}"))
        .await;
}

/// Waits until `#editor-status` shows the server's verdict (not a check on its way) containing `text`.
async fn wait_verdict(c: &Client, text: &str) -> String {
    let script = format!(
        "const s = document.getElementById('editor-status');
         return s.dataset.state !== 'pending' && s.textContent.includes({text:?}) && s.textContent"
    );
    wait_js(c, &format!("the editor's status {text:?}"), &script).await.as_str().unwrap_or_default().to_string()
}

/// Whether each start button is enabled, in the order of `STARTS`.
async fn starts_enabled(c: &Client) -> Vec<bool> {
    let mut out = Vec::new();
    for css in STARTS {
        let v = c.execute(&format!("return !document.querySelector('{css}').disabled"), vec![]).await;
        out.push(v.ok().and_then(|v| v.as_bool()).unwrap_or(false));
    }
    out
}

async fn select(c: &Client, css: &str, value: &str) {
    let element = c.wait().at_most(WAIT).for_element(Locator::Css(css)).await.unwrap_or_else(|e| panic!("{css}: {e}"));
    element.select_by_value(value).await.unwrap_or_else(|e| panic!("select {value} in {css}: {e}"));
}

/// The viewport centre of the element `css`.
async fn element_centre(c: &Client, css: &str) -> (f64, f64) {
    let script = format!(
        "const r = document.querySelector(\"{css}\").getBoundingClientRect();
         return [r.left + r.width / 2, r.top + r.height / 2];"
    );
    let v = c.execute(&script, vec![]).await.unwrap_or_else(|e| panic!("{css}: {e}"));
    (v[0].as_f64().unwrap_or(0.0), v[1].as_f64().unwrap_or(0.0))
}

/// The board field of a FEN.
fn placement(fen: &str) -> &str {
    fen.split(' ').next().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn build_a_position_in_the_editor_and_play_it() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let c = driver.browser(1200, 1000).await;

    // The lobby links to the editor, which opens on the standard start, checked by the server.
    open_lobby(&c, &server).await;
    click_css(&c, "#editor-link").await;
    wait_js(
        &c,
        "the editor",
        "return location.pathname === '/editor' && document.getElementById('editor-fen') !== null",
    )
    .await;
    wait_fen(&c, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").await;
    let verdict = wait_verdict(&c, "Valid position").await;
    assert_eq!(verdict, "Valid position · 20 legal moves");
    assert_eq!(starts_enabled(&c).await, vec![true; 3]);

    // minichess7: its start position, and a princess (a fairy piece) placed by click.
    select(&c, "#editor-variant", "minichess7").await;
    wait_fen(&c, MINI_START).await;
    wait_js(&c, "a 7x7 board", "return document.querySelector('svg.board').dataset.size === '7'").await;
    click_css(&c, ".palette-piece[data-piece='A']").await;
    wait_js(
        &c,
        "the princess chosen",
        "return document.querySelector(\".palette-piece[data-piece='A']\").getAttribute('aria-pressed') === 'true'",
    )
    .await;
    click_square(&c, "d4").await;
    wait_fen(&c, "nbqkacr/fpppppf/7/3A3/7/FPPPPPF/NBQKACR w - - 0 1").await;
    assert!(position(&c).await.contains("d4A"), "the board shows the princess");
    wait_verdict(&c, "Valid position").await;

    // Black's king removed with the delete tool: the server's reason, and nothing can start.
    click_css(&c, "#editor-delete").await;
    click_square(&c, "d7").await;
    wait_fen(&c, "nbq1acr/fpppppf/7/3A3/7/FPPPPPF/NBQKACR w - - 0 1").await;
    // The server's own words (it may prefix them, e.g. "bad FEN: "), as it wrote them.
    let verdict = wait_verdict(&c, "impossible position").await;
    assert!(verdict.ends_with("impossible position: black has no king"), "{verdict}");
    assert_eq!(starts_enabled(&c).await, vec![false; 3]);

    // The king dragged back from the palette, the princess dragged across the board.
    let from = element_centre(&c, ".palette-piece[data-piece='k']").await;
    let to = centre(&c, "d7").await;
    drag(&c, from, to).await;
    wait_fen(&c, "nbqkacr/fpppppf/7/3A3/7/FPPPPPF/NBQKACR w - - 0 1").await;
    let (from, to) = (centre(&c, "d4").await, centre(&c, "b4").await);
    drag(&c, from, to).await;
    wait_fen(&c, "nbqkacr/fpppppf/7/1A5/7/FPPPPPF/NBQKACR w - - 0 1").await;
    wait_verdict(&c, "Valid position").await;
    assert_eq!(starts_enabled(&c).await, vec![true; 3]);

    // A FEN that cannot be read is refused on the page; an empty standard board by the server.
    let field = c.find(Locator::Id("editor-fen")).await.expect("the FEN field");
    field.clear().await.expect("clear the FEN");
    field.send_keys("nbqkacr/9").await.expect("type a FEN");
    wait_js(
        &c,
        "the FEN refused",
        "return document.getElementById('editor-fen-error').textContent.includes('Cannot read')",
    )
    .await;
    assert_eq!(starts_enabled(&c).await, vec![false; 3]);
    select(&c, "#editor-variant", "standard").await;
    wait_js(&c, "an 8x8 board", "return document.querySelector('svg.board').dataset.size === '8'").await;
    click_css(&c, "#editor-clear").await;
    wait_fen(&c, "8/8/8/8/8/8/8/8 w - - 0 1").await;
    let verdict = wait_verdict(&c, "impossible position").await;
    assert!(verdict.ends_with("impossible position: white has no king"), "{verdict}");
    assert_eq!(starts_enabled(&c).await, vec![false; 3]);

    // A valid standard position: the start with a few pieces taken off, castling rights following.
    click_css(&c, "#editor-initial").await;
    wait_verdict(&c, "Valid position · 20 legal moves").await;
    // The delete tool is still chosen from before (a click would put it down).
    let pressed =
        c.execute("return document.getElementById('editor-delete').getAttribute('aria-pressed')", vec![]).await;
    assert_eq!(pressed.ok(), Some(json!("true")), "the delete tool stays chosen");
    for sq in ["b1", "g8", "d8", "h1"] {
        click_square(&c, sq).await;
    }
    let fen = "rnb1kb1r/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBN1 w Qkq - 0 1";
    wait_fen(&c, fen).await;
    wait_verdict(&c, "Valid position").await;
    let editor_position = position(&c).await;
    assert!(editor_position.contains("e1K") && !editor_position.contains("d8q"), "{editor_position}");
    assert_eq!(fen_field(&c).await, fen);

    // Against the computer at level 1, as White: the game starts from that position.
    select(&c, "#editor-level", "1").await;
    select(&c, "#editor-color", "white").await;
    click_css(&c, "#editor-bot").await;
    choose_name(&c, "Editor").await;
    wait_js(&c, "the game page", "return /^\\/g\\/[a-z0-9]+$/.test(location.pathname)").await;
    wait_status(&c, "Your move").await;
    assert_eq!(position(&c).await, editor_position, "the game's board is the editor's");
    let bot = c
        .execute("return document.querySelector('.player') && document.body.textContent.includes('Level 1')", vec![])
        .await
        .expect("players");
    assert_eq!(bot, json!(true), "the computer plays at level 1");

    // And back: "Continue from here in the editor" opens the board's position.
    let href = c.execute("return document.getElementById('to-editor').href", vec![]).await.expect("the link");
    let href = href.as_str().expect("a link").to_string();
    assert!(href.contains("/editor?variant=standard&fen="), "{href}");
    click_css(&c, "#to-editor").await;
    wait_js(&c, "the editor again", "return location.pathname === '/editor'").await;
    wait_verdict(&c, "Valid position").await;
    assert_eq!(placement(&fen_field(&c).await), placement(fen));
    assert_eq!(position(&c).await, editor_position);
    let _ = c.close().await;
}
