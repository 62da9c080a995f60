//! Correspondence games over real sockets: made through lichess's challenge with `days`,
//! played with days per move, the player to move told by a notification, the game kept
//! across the real binary being killed and started again, and rated in its own category.
//! (The deadline and its claim, which take days, are the room's tests under paused time:
//! src/server/room/tests.rs.)

use serde_json::{json, Value};

use crate::api::{account_with_token, post_form, Lines};
use crate::server_support::{scratch, Process, Server};

const SCOPES: [&str; 4] = ["challenge:read", "challenge:write", "board:play", "follow:read"];

/// The game as a spectator's WebSocket sees it.
async fn state_of(server: &Server, game: &str) -> Value {
    let mut watcher = server.client().await;
    watcher.send(json!({"type":"watch","game":game})).await;
    watcher.recv_type("state").await
}

/// The next notification on a page's event stream.
async fn next_notification(stream: &mut Lines) -> Value {
    loop {
        let line = stream.next().await;
        if line["type"] == "notification" {
            return line["notification"].clone();
        }
    }
}

#[tokio::test]
async fn a_correspondence_game_outlives_a_killed_server_and_is_rated_as_correspondence() {
    let dir = scratch("corres");
    let db = dir.join("gambit.db");
    let db = db.to_str().expect("utf-8 path");
    let first = Process::start(db, &[]).await;
    let (_, ann) = account_with_token(&first.server, "Ann", &SCOPES).await;
    let (_, bob) = account_with_token(&first.server, "Bob", &SCOPES).await;

    let bad = post_form(&first.server, "/api/challenge/Ann", &bob, "days=4").await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    let both = post_form(&first.server, "/api/challenge/Ann", &bob, "days=3&clock.limit=60").await;
    assert_eq!(both.status, 400, "{}", both.body);
    let challenge = post_form(&first.server, "/api/challenge/Ann", &bob, "days=3&rated=true&color=white").await;
    assert_eq!(challenge.status, 200, "{}", challenge.body);
    let challenge = challenge.json();
    assert_eq!(challenge["timeControl"], json!({"type": "correspondence", "daysPerTurn": 3}), "{challenge}");
    assert_eq!(challenge["speed"], "correspondence");
    let id = challenge["id"].as_str().expect("id").to_string();
    let (_, mut ann_page) = Lines::open(&first.server, "/api/stream/event?notifications=true", &ann).await;
    assert_eq!(post_form(&first.server, &format!("/api/challenge/{id}/accept"), &ann, "").await.status, 200);
    let game = id;

    let state = state_of(&first.server, &game).await;
    let three_days = 3 * 24 * 60 * 60 * 1000;
    assert_eq!(state["clock"]["days"], 3, "{state}");
    assert_eq!(state["clock"]["initial_ms"], three_days);
    assert!(state["clock"].get("first_move_ms").is_none(), "no first-move countdown: {state}");
    assert_eq!(state["clock"]["running"], "white", "the days run from the start");

    let moved = post_form(&first.server, &format!("/api/board/game/{game}/move/e2e4"), &bob, "").await;
    assert_eq!(moved.status, 200, "{}", moved.body);
    let told = next_notification(&mut ann_page).await;
    assert_eq!((&told["kind"], &told["text"]), (&json!("corresMove"), &json!("Your move against Bob")), "{told}");
    assert_eq!(told["url"], json!(format!("/g/{game}")));

    // Killed: no shutdown code runs. Started again on the same file, the game goes on.
    first.kill();
    let second = Process::start(db, &[]).await;
    let state = state_of(&second.server, &game).await;
    assert_eq!((&state["status"], &state["moves"]), (&json!("ongoing"), &json!(["e2e4"])), "{state}");
    assert_eq!((&state["clock"]["days"], &state["clock"]["running"]), (&json!(3), &json!("black")));
    let black_ms = state["clock"]["black_ms"].as_u64().expect("black's time");
    assert!(black_ms > three_days - 60_000 && black_ms <= three_days, "a fresh three days: {state}");
    let playing =
        second.server.http("GET", "/api/account/playing", &[("Authorization", &format!("Bearer {ann}"))], "").await;
    let now_playing = playing.json()["nowPlaying"][0].clone();
    assert_eq!((&now_playing["gameId"], &now_playing["isMyTurn"]), (&json!(game), &json!(true)), "{now_playing}");
    assert_eq!(now_playing["speed"], "correspondence");
    let answered = post_form(&second.server, &format!("/api/board/game/{game}/move/e7e5"), &ann, "").await;
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(post_form(&second.server, &format!("/api/board/game/{game}/resign"), &bob, "").await.status, 200);
    let ann_user = second.server.http("GET", "/api/user/Ann", &[], "").await.json();
    assert_eq!(ann_user["perfs"]["correspondence"]["games"], 1, "{ann_user}");
    assert!(ann_user["perfs"]["correspondence"]["rating"].as_i64().is_some_and(|r| r > 1500), "{ann_user}");
    drop(second);
    let _ = std::fs::remove_dir_all(&dir);
}
