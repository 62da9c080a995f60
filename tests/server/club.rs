//! The club around the games over real HTTP and WebSockets: following and blocking at
//! lichess's paths (`/api/rel/…`), the friends panel's answer (`/api/friends`), and
//! notifications — kept until read, and told at once on the event stream of a page that asks
//! for them.

use serde_json::{json, Value};

use crate::api::{account_with_token, post_form, Lines};
use crate::server_support::{start, Server};

const SCOPES: [&str; 5] = ["follow:read", "follow:write", "challenge:read", "challenge:write", "board:play"];

async fn get(server: &Server, path: &str, token: &str) -> crate::server_support::HttpAnswer {
    server.http("GET", path, &[("Authorization", &format!("Bearer {token}"))], "").await
}

/// The caller's friends, by name: (online, playing, seeking).
async fn friends(server: &Server, token: &str) -> Vec<(String, bool, Option<String>, bool)> {
    let answer = get(server, "/api/friends", token).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let list = answer.json()["friends"].as_array().cloned().unwrap_or_default();
    list.iter()
        .map(|f| {
            let name = f["name"].as_str().unwrap_or_default().to_string();
            let online = f["online"] == json!(true);
            let playing = f["playing"].as_str().map(str::to_string);
            (name, online, playing, f["seeking"] == json!(true))
        })
        .collect()
}

/// The next line of `stream` of type `kind`, skipping others.
async fn next_of(stream: &mut Lines, kind: &str) -> Value {
    loop {
        let line = stream.next().await;
        if line["type"] == kind {
            return line;
        }
    }
}

#[tokio::test]
async fn players_follow_unfollow_and_block_at_lichess_paths_and_see_their_friends() {
    let server = start().await;
    let (_, ann) = account_with_token(&server, "Ann", &SCOPES).await;
    let (bob_cookie, bob) = account_with_token(&server, "Bob", &SCOPES).await;
    let (_, _cy) = account_with_token(&server, "Cyd", &SCOPES).await;
    let (_, reader) = account_with_token(&server, "Reader", &["follow:read"]).await;

    // Refusals, each changing nothing.
    assert_eq!(post_form(&server, "/api/rel/follow/nobody", &ann, "").await.status, 404);
    assert_eq!(post_form(&server, "/api/rel/befriend/Bob", &ann, "").await.status, 404);
    let own = post_form(&server, "/api/rel/follow/ann", &ann, "").await;
    assert_eq!((own.status, own.json()), (400, json!({"error": "You cannot follow or block yourself."})));
    let scope = post_form(&server, "/api/rel/follow/Bob", &reader, "").await;
    assert_eq!((scope.status, scope.json()), (403, json!({"error": "Missing scope"})));
    assert_eq!(server.http("POST", "/api/rel/follow/Bob", &[], "").await.status, 401);
    assert_eq!(server.http("GET", "/api/friends", &[], "").await.status, 401, "a visitor has no friends panel");
    assert!(friends(&server, &ann).await.is_empty());

    for name in ["bob", "Cyd", "Cyd"] {
        let followed = post_form(&server, &format!("/api/rel/follow/{name}"), &ann, "").await;
        assert_eq!((followed.status, followed.json()), (200, json!({"ok": true})), "following twice is fine");
    }
    let following = get(&server, "/api/rel/following", &ann).await;
    assert!(following.head.contains("application/x-ndjson"), "{}", following.head);
    let names: Vec<Value> =
        following.body.lines().map(|l| serde_json::from_str::<Value>(l).expect("a user")["username"].clone()).collect();
    assert_eq!(names, [json!("Bob"), json!("Cyd")]);
    let bob_seen_by_ann = get(&server, "/api/user/Bob", &ann).await.json();
    assert_eq!((&bob_seen_by_ann["following"], &bob_seen_by_ann["followsYou"]), (&json!(true), &json!(false)));
    let ann_seen_by_bob = get(&server, "/api/user/Ann", &bob).await.json();
    assert_eq!((&ann_seen_by_bob["following"], &ann_seen_by_bob["followsYou"]), (&json!(false), &json!(true)));
    assert!(!server.get("/api/user/Ann").await.1.contains("followsYou"), "a visitor is told nothing of it");

    // Offline, then online with an event stream, seeking in the lobby, then playing.
    assert_eq!(friends(&server, &ann).await, [("Bob".into(), false, None, false), ("Cyd".into(), false, None, false)]);
    let (_, _bob_online) = Lines::open(&server, "/api/stream/event", &bob).await;
    assert_eq!(friends(&server, &ann).await[0], ("Bob".into(), true, None, false), "online ones first");
    let mut bob_socket = server.client_with(&[("Cookie", &bob_cookie)]).await.expect("socket");
    bob_socket.send(json!({"type":"seek","clock":{"initial_ms":300000,"increment_ms":0}})).await;
    bob_socket.recv_type("seeking").await;
    assert_eq!(friends(&server, &ann).await[0], ("Bob".into(), true, None, true));
    bob_socket.send(json!({"type":"cancel_seek"})).await;
    let ai = post_form(&server, "/api/challenge/ai", &bob, "level=1&clock.limit=600").await;
    let game = ai.json()["id"].as_str().expect("a game").to_string();
    assert_eq!(friends(&server, &ann).await[0], ("Bob".into(), true, Some(game), false));

    // Blocking ends following; unfollowing someone blocked keeps the block.
    assert_eq!(post_form(&server, "/api/rel/block/Bob", &ann, "").await.status, 200);
    let blocked = get(&server, "/api/user/Bob", &ann).await.json();
    assert_eq!((&blocked["following"], &blocked["blocking"]), (&json!(false), &json!(true)));
    assert_eq!(post_form(&server, "/api/rel/unfollow/Bob", &ann, "").await.status, 200);
    assert_eq!(get(&server, "/api/user/Bob", &ann).await.json()["blocking"], json!(true));
    assert_eq!(friends(&server, &ann).await, [("Cyd".into(), false, None, false)]);
    assert_eq!(post_form(&server, "/api/rel/unblock/Bob", &ann, "").await.status, 200);
    assert_eq!(get(&server, "/api/user/Bob", &ann).await.json()["blocking"], json!(false));
}

#[tokio::test]
async fn a_blocked_player_can_neither_challenge_nor_chat_to_the_one_who_blocked_them() {
    let server = start().await;
    let (_, ann) = account_with_token(&server, "Ann", &SCOPES).await;
    let (_, bob) = account_with_token(&server, "Bob", &SCOPES).await;
    // A game between them, made before the block.
    let challenge = post_form(&server, "/api/challenge/Ann", &bob, "clock.limit=600").await;
    let id = challenge.json()["id"].as_str().expect("challenge").to_string();
    assert_eq!(post_form(&server, &format!("/api/challenge/{id}/accept"), &ann, "").await.status, 200);
    let (_, mut ann_events) = Lines::open(&server, "/api/stream/event", &ann).await;
    let game = next_of(&mut ann_events, "gameStart").await["game"]["id"].as_str().expect("game").to_string();

    assert_eq!(post_form(&server, "/api/rel/block/Bob", &ann, "").await.status, 200);
    let refused = post_form(&server, "/api/challenge/Ann", &bob, "clock.limit=600").await;
    assert_eq!((refused.status, refused.json()), (400, json!({"error": "Ann does not accept challenges from you."})));
    let chat = |token: &str| {
        let path = format!("/api/board/game/{game}/chat");
        let token = token.to_string();
        let server = &server;
        async move { post_form(server, &path, &token, "room=player&text=hello").await }
    };
    let muted = chat(&bob).await;
    assert_eq!((muted.status, muted.json()), (400, json!({"error": "your opponent does not accept chat from you"})));
    assert_eq!(chat(&ann).await.status, 200, "the one who blocks may still write");
    let lines = get(&server, &format!("/api/board/game/{game}/chat"), &ann).await.json();
    assert_eq!(lines.as_array().map(Vec::len), Some(1), "only Ann's line: {lines}");
    // Unblocked, Bob is heard again.
    assert_eq!(post_form(&server, "/api/rel/unblock/Bob", &ann, "").await.status, 200);
    assert_eq!(chat(&bob).await.status, 200);
}

#[tokio::test]
async fn notifications_are_told_at_once_to_pages_that_ask_and_kept_until_read() {
    let server = start().await;
    let (_, ann) = account_with_token(&server, "Ann", &SCOPES).await;
    let (_, bob) = account_with_token(&server, "Bob", &SCOPES).await;
    let (_, cy) = account_with_token(&server, "Cyd", &SCOPES).await;
    let (_, mut page) = Lines::open(&server, "/api/stream/event?notifications=true", &ann).await;
    let (_, mut program) = Lines::open(&server, "/api/stream/event", &ann).await;

    // A challenge: the event every client knows, then the page's notification.
    let challenge =
        post_form(&server, "/api/challenge/Ann", &bob, "clock.limit=300&clock.increment=3&rated=true").await;
    let id = challenge.json()["id"].as_str().expect("challenge").to_string();
    assert_eq!(next_of(&mut page, "challenge").await["challenge"]["id"], json!(id));
    let told = next_of(&mut page, "notification").await["notification"].clone();
    assert_eq!(told["kind"], "challenge");
    assert_eq!(told["text"], "Bob challenges you: 5+3 rated blitz");
    assert_eq!(told["read"], false);
    // A program of lichess's is never sent a type it does not know: after the challenge comes
    // its cancellation, nothing between.
    assert_eq!(program.next().await["type"], "challenge");
    assert_eq!(post_form(&server, &format!("/api/challenge/{id}/cancel"), &bob, "").await.status, 200);
    assert_eq!(program.next().await["type"], "challengeCanceled");

    // A game of a player one follows starting: once per follower, linking to the game.
    assert_eq!(post_form(&server, "/api/rel/follow/Ann", &cy, "").await.status, 200);
    let (_, mut cy_page) = Lines::open(&server, "/api/stream/event?notifications=true", &cy).await;
    let ai = post_form(&server, "/api/challenge/ai", &ann, "level=1&clock.limit=600").await;
    let game = ai.json()["id"].as_str().expect("game").to_string();
    let friend_game = next_of(&mut cy_page, "notification").await["notification"].clone();
    assert_eq!(friend_game["kind"], "friendGame");
    assert_eq!(friend_game["url"], json!(format!("/g/{game}")));
    assert!(
        friend_game["text"].as_str().is_some_and(|t| t.starts_with("Ann started a game against Level ")),
        "{friend_game}"
    );

    // Kept until read: listed newest first with the count; marked read by id or all at once.
    let listed = get(&server, "/api/notifications", &ann).await.json();
    assert_eq!(listed["unread"], 1, "{listed}");
    assert_eq!(listed["notifications"][0], told);
    let read = |token: &str, body: &str| {
        let headers = [("Authorization", format!("Bearer {token}")), ("Content-Type", "application/json".to_string())];
        let (server, body) = (&server, body.to_string());
        async move {
            let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            server.http("POST", "/api/notifications/read", &headers, &body).await
        }
    };
    let bad = read(&ann, r#"{"ids":"all"}"#).await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    let told_id = told["id"].as_i64().expect("an id");
    assert_eq!(read(&cy, &format!(r#"{{"ids":[{told_id}]}}"#)).await.json()["unread"], 1, "not Cy's to read");
    assert_eq!(get(&server, "/api/notifications", &ann).await.json()["unread"], 1);
    assert_eq!(read(&ann, &format!(r#"{{"ids":[{told_id}]}}"#)).await.json(), json!({"ok": true, "unread": 0}));
    assert_eq!(get(&server, "/api/notifications", &ann).await.json()["notifications"][0]["read"], true);
    assert_eq!(read(&cy, "").await.json(), json!({"ok": true, "unread": 0}));
    assert_eq!(server.http("GET", "/api/notifications", &[], "").await.status, 401);
}
