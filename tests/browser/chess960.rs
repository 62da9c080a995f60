//! Chess960 in a real browser (headless Chromium over WebDriver, helpers in
//! tests/browser_support/): Alice accepts a Chess960 challenge from start 272 from a Board API
//! program, castles short by clicking her king and then her own rook on g1 (the square the
//! king lands on), and the board shows her opponent's long castling, where the rook stays put.
//!
//! Without chromium and chromedriver these tests fail when CI=true and are skipped otherwise.

use crate::browser_support;
use crate::challenges::{accept_board_app_challenge, sign_up, unique_name};
use crate::server_support;

use browser_support::*;
use server_support::start;

const START_272: &str = "bbnrknrq/pppppppp/8/8/8/8/PPPPPPPP/BBNRKNRQ w KQkq - 0 1";

/// The piece the board shows on `sq` ("wK"-style letters as `position` lists them), if any.
fn on(position: &str, sq: &str) -> Option<String> {
    position.split_whitespace().find(|p| p.starts_with(sq)).map(|p| p[sq.len()..].to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn castling_by_putting_the_king_on_its_rook() {
    let _one = ONE_AT_A_TIME.lock().await;
    let Some(mut driver) = driver().await else { return };
    let server = start().await;
    let a = driver.browser(1280, 800).await;
    let (alice, bob) = (unique_name("fra"), unique_name("frb"));
    sign_up(&a, &server, &alice).await;
    let fen: String = START_272.replace(' ', "+").replace('/', "%2F");
    let terms = format!("variant=chess960&clock.limit=600&fen={fen}");
    let (game, shown, bearer) = accept_board_app_challenge(&a, &server, &alice, &bob, &terms).await;
    assert!(shown.contains("Chess960"), "{shown}");
    let form = [("Authorization", bearer.as_str()), ("Content-Type", "application/x-www-form-urlencoded")];
    let bob_moves = |uci: &'static str| {
        let (server, game, form) = (&server, game.clone(), form);
        async move {
            let made = server.http("POST", &format!("/api/board/game/{game}/move/{uci}"), &form, "").await;
            assert_eq!(made.status, 200, "{uci}: {}", made.body);
        }
    };

    click_move(&a, "f1g3").await;
    wait_plies(&a, 1).await;
    bob_moves("c8b6").await;
    wait_plies(&a, 2).await;
    // The king, then its own rook on g1: that castles (the rook is not picked up instead).
    click_move(&a, "e1g1").await;
    wait_plies(&a, 3).await;
    let board = position(&a).await;
    assert_eq!((on(&board, "g1").as_deref(), on(&board, "f1").as_deref()), (Some("K"), Some("R")), "{board}");
    assert!(move_list(&a).await.contains("O-O"), "{}", move_list(&a).await);

    // Black's long castling: the king from e8 to c8, the rook staying on d8.
    bob_moves("e8d8").await;
    wait_plies(&a, 4).await;
    let board = position(&a).await;
    assert_eq!(
        (on(&board, "c8").as_deref(), on(&board, "d8").as_deref(), on(&board, "e8")),
        (Some("k"), Some("r"), None),
        "{board}"
    );
    assert!(move_list(&a).await.contains("O-O-O"), "{}", move_list(&a).await);
    screenshot(&a, "chess960-castled-1280.png").await;
    assert_eq!(driver.console_errors(&a).await, Vec::<String>::new());
}
