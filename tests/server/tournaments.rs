//! Round robins over real HTTP, with the real binary killed and started again midway: five
//! players, ten games (each player two Whites and two Blacks) played through the Board API,
//! rounds started as the last ends, and the crosstable with its Sonneborn–Berger tie-break
//! as computed by hand (src/server/tournaments/round_robin.rs has the sums).

use std::time::Duration;

use serde_json::{json, Value};

use crate::api::{account_with_token, post_form};
use crate::server_support::{scratch, Process, Server};

const SCOPES: [&str; 3] = ["tournament:write", "board:play", "challenge:read"];

async fn view(server: &Server, id: &str) -> Value {
    let (status, body) = server.get(&format!("/api/roundrobin/{id}")).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).expect("json")
}

/// The tournament once `ready` holds of it (the server makes a round's games as the last
/// round's last game ends; nothing pushes that over HTTP, so this looks every few ms).
async fn when(server: &Server, id: &str, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let t = view(server, id).await;
        if ready(&t) {
            return t;
        }
        assert!(tokio::time::Instant::now() < deadline, "{what}: {t}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Who wins each pairing (by the players' letters): the hand-computed table's results.
fn winner(a: &str, b: &str) -> Option<String> {
    let pair = |x: &str, y: &str| (a == x && b == y) || (a == y && b == x);
    let won = |w: &str| Some(w.to_string());
    if pair("Ada", "Bea") || pair("Ada", "Dee") {
        won("Ada")
    } else if pair("Ada", "Eve") {
        won("Eve")
    } else if pair("Bea", "Cy0") || pair("Bea", "Dee") {
        won("Bea")
    } else if pair("Cy0", "Dee") || pair("Cy0", "Eve") {
        won("Cy0")
    } else {
        None // Ada–Cy0, Bea–Eve, Dee–Eve: draws
    }
}

/// Plays the games of round `r` (1-based) to the table's results through the Board API.
async fn play_round(server: &Server, t: &Value, r: usize, tokens: &[(&str, String)]) {
    let token = |name: &str| tokens.iter().find(|(n, _)| *n == name).map(|(_, t)| t.clone()).expect("a player");
    for board in t["rounds"][r - 1].as_array().expect("boards") {
        let (white, black) = (board["white"].as_str().expect("white"), board["black"].as_str().expect("black"));
        let game = board["game"].as_str().expect("a game once the round is on");
        let mv = |who: &str, uci: &str| {
            let (token, path) = (token(who), format!("/api/board/game/{game}/move/{uci}"));
            async move { assert_eq!(post_form(server, &path, &token, "").await.status, 200, "{path}") }
        };
        mv(white, "e2e4").await;
        mv(black, "e7e5").await;
        match winner(white, black) {
            Some(w) => {
                let loser = if w == white { black } else { white };
                let path = format!("/api/board/game/{game}/resign");
                assert_eq!(post_form(server, &path, &token(loser), "").await.status, 200);
            }
            None => {
                for who in [white, black] {
                    let path = format!("/api/board/game/{game}/draw/yes");
                    assert_eq!(post_form(server, &path, &token(who), "").await.status, 200);
                }
            }
        }
    }
}

#[tokio::test]
async fn a_round_robin_of_five_survives_a_restart_and_ranks_by_sonneborn_berger() {
    let dir = scratch("roundrobin");
    let db = dir.join("gambit.db");
    let db = db.to_str().expect("utf-8 path");
    let first = Process::start(db, &[]).await;
    let s = &first.server;
    let mut tokens = Vec::new();
    for name in ["Ada", "Bea", "Cy0", "Dee", "Eve"] {
        tokens.push((name, account_with_token(s, name, &SCOPES).await.1));
    }
    let token = |i: usize| tokens[i].1.clone();

    // Refused, changing nothing: no name, a bad clock, a missing scope.
    assert_eq!(post_form(s, "/api/roundrobin", &token(0), "clock.limit=600").await.status, 400);
    assert_eq!(post_form(s, "/api/roundrobin", &token(0), "name=Club&clock.limit=0").await.status, 400);
    let (_, reader) = account_with_token(s, "Reader", &["board:play"]).await;
    assert_eq!(post_form(s, "/api/roundrobin", &reader, "name=Club&clock.limit=600").await.status, 403);

    let made = post_form(s, "/api/roundrobin", &token(0), "name=Club night&clock.limit=600&password=knight").await;
    assert_eq!(made.status, 200, "{}", made.body);
    let id = made.json()["id"].as_str().expect("id").to_string();
    assert_eq!((&made.json()["status"], &made.json()["private"]), (&json!("created"), &json!(true)));
    let join = |i: usize, form: &'static str| {
        let (path, token) = (format!("/api/roundrobin/{id}/join"), token(i));
        async move { post_form(s, &path, &token, form).await }
    };
    assert_eq!(join(1, "password=bishop").await.status, 400, "a wrong password");
    for i in 1..5 {
        assert_eq!(join(i, "password=knight").await.status, 200);
    }
    let early = post_form(s, &format!("/api/roundrobin/{id}/start"), &token(1), "").await;
    assert_eq!(early.status, 400, "only the creator starts it: {}", early.body);
    assert_eq!(post_form(s, &format!("/api/roundrobin/{id}/start"), &token(0), "").await.status, 200);
    let t = when(s, &id, "round 1 on", |t| t["rounds"][0][0]["game"].is_string()).await;
    assert_eq!(t["rounds"].as_array().map(Vec::len), Some(5));
    let boards: Vec<&Value> =
        t["rounds"].as_array().expect("rounds").iter().flat_map(|r| r.as_array().expect("games")).collect();
    assert_eq!(boards.len(), 10, "every pair once");
    for name in ["Ada", "Bea", "Cy0", "Dee", "Eve"] {
        let whites = boards.iter().filter(|b| b["white"] == name).count();
        let blacks = boards.iter().filter(|b| b["black"] == name).count();
        assert_eq!((whites, blacks), (2, 2), "{name}");
    }
    assert_eq!(join(4, "password=knight").await.status, 400, "too late to join");

    play_round(s, &t, 1, &tokens).await;
    let t = when(s, &id, "round 2 on", |t| t["round"] == 2 && t["rounds"][1][0]["game"].is_string()).await;
    play_round(s, &t, 2, &tokens).await;
    let t = when(s, &id, "round 3 on", |t| t["round"] == 3 && t["rounds"][2][0]["game"].is_string()).await;

    // Killed mid-tournament: started again, it goes on where it was.
    first.kill();
    let second = Process::start(db, &[]).await;
    let s = &second.server;
    assert_eq!(view(s, &id).await["round"], 3);
    play_round(s, &t, 3, &tokens).await;
    for r in 4..=5 {
        let t =
            when(s, &id, "the next round on", |t| t["round"] == r && t["rounds"][r - 1][0]["game"].is_string()).await;
        play_round(s, &t, r, &tokens).await;
    }
    let t = when(s, &id, "finished", |t| t["status"] == "finished").await;
    let table: Vec<(Value, Value, Value, Value)> = t["crosstable"]
        .as_array()
        .expect("crosstable")
        .iter()
        .map(|r| (r["rank"].clone(), r["name"].clone(), r["points"].clone(), r["sonnebornBerger"].clone()))
        .collect();
    assert_eq!(
        table,
        [
            (json!(1), json!("Ada"), json!(2.5), json!(4.25)),
            (json!(2), json!("Bea"), json!(2.5), json!(4.0)),
            (json!(3), json!("Cy0"), json!(2.5), json!(3.75)),
            (json!(4), json!("Eve"), json!(2), json!(4.0)),
            (json!(5), json!("Dee"), json!(0.5), json!(1.0)),
        ],
        "{t}"
    );
    let listed = s.get("/api/roundrobin").await.1;
    assert!(listed.contains(&id), "{listed}");
    drop(second);
    let _ = std::fs::remove_dir_all(&dir);
}
