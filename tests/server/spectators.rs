//! Many spectators of one game all receive every move, in order.

use crate::server_support;

use serde_json::json;
use server_support::{human_game, start};

const MOVES: [&str; 10] = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3", "d7d6"];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_spectators_see_every_move_in_order() {
    let server = start().await;
    let (mut white, mut black, game, _, _) = human_game(&server).await;
    let mut spectators = Vec::new();
    for _ in 0..200 {
        let mut s = server.client().await;
        s.send(json!({"type":"watch","game":game})).await;
        spectators.push(s);
    }
    for s in &mut spectators {
        let state = s.recv_type("state").await;
        assert_eq!(state["v"], 1);
    }
    for (i, uci) in MOVES.iter().enumerate() {
        let mover = if i % 2 == 0 { &mut white } else { &mut black };
        mover.send(json!({"type":"move","game":game,"uci":uci})).await;
        // Both players see the move before the next one is sent, so none is out of turn.
        for player in [&mut white, &mut black] {
            assert_eq!(player.recv_type("move").await["uci"], *uci);
        }
    }
    // Every spectator is counted (the players are not).
    let (_, state) = server.get(&format!("/api/games/{game}")).await;
    let state: serde_json::Value = serde_json::from_str(&state).unwrap();
    assert_eq!(state["watchers"], 200);
    let checks = spectators.into_iter().map(|mut s| {
        tokio::spawn(async move {
            let mut seen = Vec::new();
            while seen.len() < MOVES.len() {
                let Some(m) = s.try_recv(std::time::Duration::from_secs(5)).await else {
                    panic!("spectator stalled after {seen:?}");
                };
                if m["type"] == "move" {
                    assert_eq!(m["v"].as_u64(), Some(2 + seen.len() as u64), "{m}");
                    seen.push(m["uci"].as_str().unwrap_or_default().to_string());
                } else {
                    assert_eq!(m["type"], "watchers", "{m}");
                }
            }
            seen
        })
    });
    for check in checks.collect::<Vec<_>>() {
        assert_eq!(check.await.expect("spectator task"), MOVES);
    }
}
