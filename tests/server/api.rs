//! The lichess-compatible API over real HTTP: tokens and their refusals here, and a whole
//! game between a Bot API client and a Board API client driven by berserk, the real Python
//! client of lichess's API (tests/api/lichess_clients.py, with python-chess checking every
//! position). Under CI=true a missing python3, berserk or chess fails the test.

use std::process::Stdio;

use serde_json::json;

use crate::server_support::{start, Server};

/// A new account's session cookie and a token of it with `scopes`.
async fn account_with_token(server: &Server, username: &str, scopes: &[&str]) -> (String, String) {
    let cookie = server.sign_up(username, "correct horse").await;
    let made =
        server.post("/api/tokens", &[("Cookie", &cookie)], json!({ "description": "test", "scopes": scopes })).await;
    assert_eq!(made.status, 201, "{}", made.body);
    let token = made.json()["token"].as_str().expect("a token").to_string();
    (cookie, token)
}

/// True if python3 with berserk and chess can run; under CI it must.
fn python_clients() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import berserk, chess"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        crate::services::missing("python3 with berserk and chess", "they are not installed (.ci/run installs them)");
    }
    ok
}

#[tokio::test]
async fn tokens_are_made_listed_tested_and_revoked_as_on_lichess() {
    let server = start().await;
    let (cookie, token) = account_with_token(&server, "Tokens", &["board:play", "challenge:read"]).await;
    assert!(token.starts_with("gmb_"));
    let bearer = format!("Bearer {token}");

    let me = server.http("GET", "/api/account", &[("Authorization", &bearer)], "").await;
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(me.json()["username"], "Tokens");
    assert_eq!(me.json()["id"], "tokens");

    // lichess's refusals: an unknown token, no token, a missing scope, bad fields.
    let unknown = server.http("GET", "/api/account", &[("Authorization", "Bearer gmb_nope")], "").await;
    assert_eq!((unknown.status, unknown.json()), (401, json!({ "error": "No such token" })));
    assert_eq!(server.http("GET", "/api/account", &[], "").await.status, 401);
    let upgrade = server.http("POST", "/api/bot/account/upgrade", &[("Authorization", &bearer)], "").await;
    assert_eq!((upgrade.status, upgrade.json()), (403, json!({ "error": "Missing scope" })));
    let bad =
        server.post("/api/tokens", &[("Cookie", &cookie)], json!({ "description": "x", "scopes": ["fly"] })).await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    let blank = server.post("/api/tokens", &[("Cookie", &cookie)], json!({ "description": " ", "scopes": [] })).await;
    assert_eq!(blank.status, 400, "{}", blank.body);
    // A token cannot make tokens: only the logged-in person can.
    let by_token = server.post("/api/tokens", &[("Authorization", &bearer)], json!({ "description": "x" })).await;
    assert_eq!(by_token.status, 401, "{}", by_token.body);

    let test = server.http("POST", "/api/token/test", &[], &format!("{token},gmb_nope")).await;
    assert_eq!(
        test.json()[&token],
        json!({ "userId": "tokens", "scopes": "challenge:read,board:play", "expires": null })
    );
    assert_eq!(test.json()["gmb_nope"], json!(null));

    let list = server.http("GET", "/api/tokens", &[("Cookie", &cookie)], "").await;
    let tokens = list.json()["tokens"].clone();
    assert_eq!(tokens.as_array().map(Vec::len), Some(1), "{}", list.body);
    assert!(!list.body.contains(&token), "the token itself is shown once only");
    let id = tokens[0]["id"].as_i64().expect("an id");
    // Someone else cannot revoke it.
    let (other, _) = account_with_token(&server, "Other", &[]).await;
    assert_eq!(server.http("DELETE", &format!("/api/tokens/{id}"), &[("Cookie", &other)], "").await.status, 404);
    assert_eq!(server.http("DELETE", &format!("/api/tokens/{id}"), &[("Cookie", &cookie)], "").await.status, 204);
    assert_eq!(server.http("GET", "/api/account", &[("Authorization", &bearer)], "").await.status, 401);
}

#[tokio::test]
async fn a_bot_and_a_board_client_play_through_berserk() {
    if !python_clients() {
        return;
    }
    let server = start().await;
    let (_, bot) = account_with_token(&server, "Botty", &["bot:play", "challenge:read", "challenge:write"]).await;
    let (_, board) = account_with_token(&server, "Alice", &["board:play", "challenge:read", "challenge:write"]).await;
    let url = server.url("");
    let url = url.trim_end_matches('/');
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/lichess_clients.py");
    let run = tokio::process::Command::new("python3").args([script, url, &bot, "Botty", &board, "Alice"]).output();
    let output = tokio::time::timeout(std::time::Duration::from_secs(120), run).await.expect("in time").expect("ran");
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success() && out.trim() == "ok", "stdout:\n{out}\nstderr:\n{err}");
}
