//! deploy/nginx.conf in front of a real gambit: the page and the API through it, a game played
//! over WebSockets through it, and the per-address limits counting each client behind it (the
//! proxy trusted, `X-Forwarded-For` passed on).

use crate::server_support;
use crate::services;

use std::net::{IpAddr, SocketAddr};

use serde_json::json;
use server_support::{human, start_with, test_config, Client, Server};
use services::nginx::Nginx;

fn ip(text: &str) -> IpAddr {
    text.parse().expect("ip")
}

/// A plain GET through `addr`: status and body.
async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    Server::external(addr).get(path).await
}

/// Waits for the `move` event of `uci` (players see their own moves too).
async fn sees_move(client: &mut Client, uci: &str) {
    loop {
        let m = client.recv_type("move").await;
        if m["uci"] == uci {
            return;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_played_through_nginx_and_clients_are_counted_behind_it() {
    let mut config = test_config();
    config.trusted_proxies = vec![ip("127.0.0.1")];
    config.per_address.max_connections = 2;
    let server = start_with(config).await;
    let Some(nginx) = Nginx::start(&[server.addr]) else { return };
    let front = nginx.addr;

    let (status, page) = get(front, "/").await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<html") || page.contains("<!doctype") || page.contains("<!DOCTYPE"), "{page}");
    let (status, list) = get(front, "/api/games").await;
    assert_eq!(status, 200, "{list}");

    // Two players from two addresses, both through nginx.
    let mut white = Client::connect_from(front, ip("127.0.0.2")).await;
    let (game, _) = white.create(human(), human(), Some("white")).await;
    let mut black = Client::connect_from(front, ip("127.0.0.3")).await;
    black.join(&game, "black").await;
    white.send(json!({"type":"move","game":game,"uci":"e2e4","id":1})).await;
    sees_move(&mut black, "e2e4").await;
    black.send(json!({"type":"move","game":game,"uci":"e7e5","id":2})).await;
    sees_move(&mut white, "e7e5").await;

    // 127.0.0.4 may hold two connections: its third is refused, as it would be without nginx,
    // and other clients behind the same proxy are not affected.
    let _first = Client::connect_from(front, ip("127.0.0.4")).await;
    let _second = Client::connect_from(front, ip("127.0.0.4")).await;
    let mut third = Client::connect_from(front, ip("127.0.0.4")).await;
    let refused = third.recv().await;
    assert_eq!(refused["code"], "too_many", "{refused}");
    assert!(refused["message"].as_str().unwrap_or_default().contains("your address"), "{refused}");
    assert_eq!(third.recv_close_code().await, Some(1013));
    let mut other = Client::connect_from(front, ip("127.0.0.5")).await;
    other.send(json!({"type":"list","id":7})).await;
    assert_eq!(other.recv_type("games").await["type"], "games");

    // The players' connections are still there after all this.
    white.send(json!({"type":"move","game":game,"uci":"g1f3","id":3})).await;
    sees_move(&mut black, "g1f3").await;
}

/// deploy/compose.yaml cannot be run here (no Docker), so what it relies on is checked: its
/// nginx starts from the shipped nginx.conf with the one upstream line replaced, and its nodes'
/// command lines are ones `gambit serve` accepts (they fail only on the database, which is the
/// compose's own PostgreSQL).
#[test]
fn the_compose_file_uses_the_tested_nginx_conf_and_valid_node_commands() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let compose = std::fs::read_to_string(root.join("deploy/compose.yaml")).expect("compose.yaml");
    let conf = std::fs::read_to_string(root.join("deploy/nginx.conf")).expect("nginx.conf");
    let sed = compose.split("sed 's/").nth(1).expect("the sed of the upstream line");
    let replaced = sed.split('/').next().expect("its pattern");
    assert_eq!(conf.matches(replaced).count(), 1, "nginx.conf has exactly one {replaced:?}");
    assert!(root.join("deploy/Dockerfile").exists());
    let commands: Vec<Vec<String>> = compose
        .split("command: [")
        .skip(1)
        .map(|rest| serde_json::from_str(&format!("[{}]", rest.split(']').next().expect("list"))).expect("a JSON list"))
        .filter(|args: &Vec<String>| args.first().is_some_and(|a| a == "serve"))
        .collect();
    assert_eq!(commands.len(), 3, "three nodes");
    for args in commands {
        // On a free local port, so nothing here is disturbed; the database cannot be reached.
        let mut args = args.clone();
        let listen = args.iter().position(|a| a == "--listen").expect("--listen") + 1;
        args[listen] = "127.0.0.1:0".into();
        let db = args.iter().position(|a| a == "--db").expect("--db") + 1;
        args[db] = "postgres://gambit:gambit@127.0.0.1:1/gambit".into();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gambit")).args(&args).output().expect("gambit");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("cannot open the database postgres://gambit:***@127.0.0.1:1/gambit"), "{args:?}: {err}");
    }
}
