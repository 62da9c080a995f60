//! Three real `gambit serve` processes as one cluster, on a PostgreSQL and a Redis these tests
//! start themselves: a game whose players and spectator sit on three nodes; the owner killed
//! (SIGKILL) in a human, a bot and a timed game; a clean stop handing games over; Redis
//! restarted; PostgreSQL stopped and started; a rolling restart during a bot game.

use crate::server_support;
use crate::services;

use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use server_support::{bot, human, Client, Server};
use services::postgres::Postgres;
use services::redis::Redis;

/// One node: `gambit serve --cluster` as a child process on a free port.
struct Node {
    name: String,
    child: Child,
    server: Server,
    db: String,
    redis: String,
}

impl Node {
    async fn start(name: &str, db: &str, redis: &str) -> Node {
        Node::start_on(name, db, redis, None).await
    }

    /// `addr`: the address to listen on again (a restarted node), else a free one.
    async fn start_on(name: &str, db: &str, redis: &str, addr: Option<SocketAddr>) -> Node {
        let addr =
            addr.unwrap_or_else(|| TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("free port"));
        let log = std::env::temp_dir().join(format!("gambit-cluster-{}-{name}.log", std::process::id()));
        let child = Command::new(env!("CARGO_BIN_EXE_gambit"))
            .args(["serve", "--listen", &addr.to_string(), "--db", db, "--cluster", redis, "--node", name])
            .args(["--bot-delay", "200", "--bot-movetime", "100"])
            .args(["--max-connections-per-ip", "10000", "--resumes-per-minute", "10000"])
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).map(Stdio::from).unwrap_or(Stdio::null()))
            .spawn()
            .expect("start gambit serve");
        let node = Node {
            name: name.to_string(),
            child,
            server: Server::external(addr),
            db: db.to_string(),
            redis: redis.to_string(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while tokio::net::TcpStream::connect(addr).await.is_err() {
            assert!(Instant::now() < deadline, "node {name} did not start on {addr}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        node
    }

    fn addr(&self) -> SocketAddr {
        self.server.addr
    }

    async fn client(&self) -> Client {
        self.server.client().await
    }

    /// SIGKILL: the node ends with no shutdown code run.
    fn kill(mut self) {
        self.child.kill().expect("kill");
        self.child.wait().expect("wait");
    }

    /// SIGTERM, and waits until the process has ended.
    async fn terminate(mut self) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().expect("kill -TERM");
        assert!(sent.success());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if self.child.try_wait().expect("wait").is_some() {
                return;
            }
            assert!(Instant::now() < deadline, "node {} did not stop after SIGTERM", self.name);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// SIGSTOP or SIGCONT: a node that freezes (a long pause, a partition) and comes back.
    fn signal(&self, signal: &str) {
        let sent = Command::new("kill").args([signal, &self.child.id().to_string()]).status().expect("kill");
        assert!(sent.success());
    }

    /// The same node started again on its address.
    async fn restart(self) -> Node {
        let (name, db, redis, addr) = (self.name.clone(), self.db.clone(), self.redis.clone(), self.addr());
        self.terminate().await;
        Node::start_on(&name, &db, &redis, Some(addr)).await
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// PostgreSQL (a database of its own on the binary's shared server), Redis and three nodes;
/// None when the services are not installed outside CI.
struct Cluster {
    nodes: Vec<Node>,
    redis: Redis,
}

impl Cluster {
    async fn start(name: &str) -> Option<Cluster> {
        let db = services::postgres::database().await?;
        let redis = Redis::start(name)?;
        let mut nodes = Vec::new();
        for i in 1..=3 {
            nodes.push(Node::start(&format!("n{i}"), &db, &redis.url()).await);
        }
        Some(Cluster { nodes, redis })
    }

    /// A node of this cluster by name.
    fn node(&self, name: &str) -> &Node {
        self.nodes.iter().find(|n| n.name == name).expect("node")
    }

    /// Takes a node out of the cluster's list (to kill or stop it).
    fn take(&mut self, name: &str) -> Node {
        let i = self.nodes.iter().position(|n| n.name == name).expect("node");
        self.nodes.remove(i)
    }
}

/// `GET path` on `node` as JSON.
async fn get_json(node: &Node, path: &str) -> (u16, Value) {
    let (status, body) = node.server.get(path).await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// The names of the live nodes in an `/api/cluster` answer.
fn node_names(cluster: &Value) -> Vec<&str> {
    cluster["nodes"].as_array().expect("nodes").iter().filter_map(|n| n["name"].as_str()).collect()
}

/// The node `/api/games/{id}` says holds `game`, asked of `node`.
async fn owner(node: &Node, game: &str) -> String {
    let (status, body) = get_json(node, &format!("/api/games/{game}")).await;
    assert_eq!(status, 200, "{body}");
    body["node"].as_str().expect("a node in cluster mode").to_string()
}

/// Tries `uci` until it is accepted (a service the cluster needs is coming back).
async fn play_when_back(client: &mut Client, game: &str, uci: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let answer = client.answer(json!({"type":"move","game":game,"uci":uci})).await;
        if answer["type"] == "ack" {
            return;
        }
        assert!(Instant::now() < deadline, "play resumes: {answer}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Waits for the move `uci`: its event, or a fresh `state` that has it as its last move (what
/// a follower gets when it missed events, as when a game changes nodes).
async fn see_move(client: &mut Client, uci: &str) -> Value {
    loop {
        let m = client.recv().await;
        if m["type"] == "move" && m["uci"] == uci {
            return m;
        }
        if m["type"] == "state" && moves(&m).last().is_some_and(|last| last == uci) {
            return m;
        }
        assert_ne!(m["type"], "error", "{m}");
    }
}

/// Resumes a seat on `node`; the client and the state it gets.
async fn resume(node: &Node, game: &str, token: &str) -> (Client, Value) {
    resume_at(&node.server, game, token).await
}

fn moves(state: &Value) -> Vec<String> {
    state["moves"].as_array().expect("moves").iter().map(|m| m.as_str().expect("uci").to_string()).collect()
}

/// A human game created on n1 (white), joined on n2 (black), watched on n3.
async fn spread_game(cluster: &Cluster) -> (Client, Client, Client, String, String, String) {
    let mut white = cluster.node("n1").client().await;
    let (game, white_token) = white.create(human(), human(), Some("white")).await;
    white.recv_type("state").await;
    let mut black = cluster.node("n2").client().await;
    let black_token = black.join(&game, "black").await;
    let state = black.recv_type("state").await;
    assert_eq!(state["status"], "ongoing", "{state}");
    let mut spectator = cluster.node("n3").client().await;
    spectator.send(json!({"type":"watch","game":game})).await;
    spectator.recv_type("state").await;
    (white, black, spectator, game, white_token.expect("token"), black_token)
}

/// The lichess-compatible API across nodes: the bot's program on n1, the person's board app on
/// n2. The challenges reach the other node's event stream, the game made where the bot accepts
/// streams its moves to the board app on the other node, and who is online is the cluster's.
#[tokio::test]
async fn lichess_api_clients_on_two_nodes_play_one_game() {
    if !crate::api::python_clients() {
        return;
    }
    let Some(cluster) = Cluster::start("cluster-api").await else { return };
    crate::api::play_through_berserk(&cluster.node("n1").server, &cluster.node("n2").server).await;
}

#[tokio::test]
async fn players_and_a_spectator_on_three_nodes_play_one_game() {
    let Some(cluster) = Cluster::start("cluster-spread").await else { return };
    let (mut white, mut black, mut spectator, game, _, _) = spread_game(&cluster).await;
    assert_eq!(owner(cluster.node("n3"), &game).await, "n1", "the node that created the game holds it");

    let line = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"];
    let mut versions = Vec::new();
    for (i, uci) in line.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 { (&mut white, &mut black) } else { (&mut black, &mut white) };
        let event = mover.play(&game, uci).await;
        see_move(other, uci).await;
        let seen = see_move(&mut spectator, uci).await;
        assert_eq!(seen["v"], event["v"], "one version everywhere");
        versions.push(seen["v"].as_u64().expect("v"));
    }
    assert!(versions.windows(2).all(|w| w[1] == w[0] + 1), "consecutive versions across nodes: {versions:?}");

    // The lobby is the cluster's: every node lists the game (within a moment: nodes share
    // their lists a few times a second).
    for node in &cluster.nodes {
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            let (_, list) = get_json(node, "/api/games").await;
            let listed = list.as_array().expect("list").iter().any(|g| g["game"] == game.as_str());
            if listed {
                break;
            }
            assert!(Instant::now() < deadline, "{} lists the game: {list}", node.name);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    // Resume by version works on any node: the missed events are replayed.
    let (_, state) = get_json(cluster.node("n2"), &format!("/api/games/{game}")).await;
    assert_eq!(moves(&state), line);
    let mut late = cluster.node("n3").client().await;
    late.send(json!({"type":"watch","game":game,"v":versions[3]})).await;
    assert_eq!(late.recv_event().await["uci"], "f1b5", "the replay starts after the version given");
    assert_eq!(late.recv_event().await["uci"], "a7a6");

    // A refused move is refused across nodes too, and changes nothing.
    black.send(json!({"type":"move","game":game,"uci":"e1e2","id":9})).await;
    black.expect_error("not_your_turn").await;

    // The live nodes, each with its games and connections as of its last heartbeat (each second).
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let (status, nodes) = get_json(cluster.node("n2"), "/api/cluster").await;
        assert_eq!(status, 200);
        let list = nodes["nodes"].as_array().expect("nodes");
        assert_eq!(node_names(&nodes), ["n1", "n2", "n3"], "{nodes}");
        assert_eq!(nodes["node"], "n2");
        let n1 = list.iter().find(|n| n["name"] == "n1").expect("n1");
        assert!(n1["heartbeat_age_ms"].as_i64().expect("age") < 5000, "{n1}");
        if n1["games"] == 1 && n1["connections"] == 1 {
            break;
        }
        assert!(Instant::now() < deadline, "n1 reports its game and connection: {n1}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Names and an abort cross nodes too: a game held by n2, joined from n3, watched from n1.
    let mut alice = cluster.node("n2").client().await;
    alice.send(json!({"type":"create","white":human(),"black":human(),"as":"white","name":"Alice"})).await;
    let named = alice.recv_type("created").await["game"].as_str().expect("id").to_string();
    let mut bob = cluster.node("n3").client().await;
    bob.send(json!({"type":"join","game":named,"name":"Bob"})).await;
    let bob_token = bob.recv_type("joined").await["token"].as_str().expect("token").to_string();
    let state = bob.recv_type("state").await;
    assert_eq!(
        (state["seats"]["white"]["name"].as_str(), state["seats"]["black"]["name"].as_str()),
        (Some("Alice"), Some("Bob"))
    );
    let mut watcher = cluster.node("n1").client().await;
    watcher.send(json!({"type":"watch","game":named})).await;
    assert_eq!(watcher.recv_type("state").await["seats"]["black"]["name"], "Bob");
    bob.send(json!({"type":"abort","game":named})).await;
    let end = watcher.recv_type("end").await;
    assert_eq!((end["result"].as_str(), end["reason"].as_str()), (Some("*"), Some("aborted")), "{end}");
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let (_, list) = get_json(cluster.node("n1"), "/api/games").await;
        if !list.as_array().expect("list").iter().any(|g| g["game"] == named.as_str()) {
            break;
        }
        assert!(Instant::now() < deadline, "the aborted game leaves every node's list: {list}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Chat crosses nodes, each line to its own room's members: Alice on n2 writes to Bob on n3;
    // the watcher on n1 reads only the spectators' room (which, the game over, the players read).
    alice.send(json!({"type":"chat","game":named,"room":"players","text":"sorry, wrong button"})).await;
    let line = bob.recv_type("chat").await;
    assert_eq!((&line["from"], &line["text"]), (&json!("Alice"), &json!("sorry, wrong button")));
    watcher.send(json!({"type":"chat","game":named,"room":"spectators","text":"<i>no worries</i>"})).await;
    let heard = watcher.recv_type("chat").await;
    assert_eq!((&heard["room"], &heard["text"]), (&json!("spectators"), &json!("<i>no worries</i>")), "not Alice's");
    assert_eq!(bob.recv_type("chat").await["text"], "<i>no worries</i>");
    // A rematch across nodes: Bob (n3) offers, Alice (n2) accepts, the watcher (n1) hears of it.
    bob.send(json!({"type":"rematch","game":named})).await;
    alice.recv_type("offer").await;
    alice.send(json!({"type":"rematch","game":named})).await;
    let next = watcher.recv_type("rematch").await["next"].as_str().expect("next").to_string();
    bob.send(json!({"type":"resume","game":next,"token":bob_token})).await;
    assert_eq!(bob.recv_type("joined").await["color"], "white", "colours swapped, on another node");
    let state = bob.recv_type("state").await;
    assert_eq!((&state["seats"]["black"]["name"], &state["status"]), (&json!("Alice"), &json!("ongoing")));

    // A seek posted on n1 is listed on n3 and accepted there: both sit down.
    let mut lobby = cluster.node("n3").client().await;
    lobby.send(json!({"type":"list"})).await;
    let mut carol = cluster.node("n1").client().await;
    carol.send(json!({"type":"seek","name":"Carol","color":"black"})).await;
    let seek = carol.recv_type("seeking").await["seek"].clone();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let seeks = lobby.recv_type("seeks").await;
        if seeks["seeks"].as_array().expect("seeks").iter().any(|s| s["seek"] == seek && s["name"] == "Carol") {
            break;
        }
        assert!(Instant::now() < deadline, "n3 lists n1's seek: {seeks}");
    }
    let mut dan = cluster.node("n3").client().await;
    dan.send(json!({"type":"accept_seek","seek":seek,"name":"Dan"})).await;
    let joined = dan.recv_type("joined").await;
    assert_eq!(joined["color"], "white");
    let mine = carol.recv_type("joined").await;
    assert_eq!((&mine["game"], &mine["color"]), (&joined["game"], &json!("black")));
    let mut eve = cluster.node("n2").client().await;
    eve.send(json!({"type":"accept_seek","seek":seek})).await;
    eve.expect_error("no_such_seek").await;

    // Accounts live in the shared database: sign up on n1, play a rated game from n1 and n3,
    // resume on n2 without a token, and read the ratings from any node.
    let fran = cluster.node("n1").server.sign_up("Fran", "correct horse").await;
    let gus = cluster.node("n3").server.sign_up("Gus", "correct horse").await;
    let mut fran_ws = cluster.node("n1").server.client_with(&[("Cookie", &fran)]).await.expect("connect");
    fran_ws
        .send(json!({"type":"create","white":{"kind":"human"},"black":{"kind":"human"},"as":"white",
            "clock":{"initial_ms":180000,"increment_ms":2000},"rated":true}))
        .await;
    let rated = fran_ws.recv_type("created").await["game"].as_str().expect("game").to_string();
    let mut gus_ws = cluster.node("n3").server.client_with(&[("Cookie", &gus)]).await.expect("connect");
    gus_ws.join(&rated, "black").await;
    fran_ws.play(&rated, "e2e4").await;
    gus_ws.close().await;
    let mut gus_again = cluster.node("n2").server.client_with(&[("Cookie", &gus)]).await.expect("connect");
    gus_again.send(json!({"type":"resume","game":rated})).await;
    assert_eq!(gus_again.recv_type("joined").await["color"], "black", "the account's seat, on another node");
    gus_again.play(&rated, "e7e5").await;
    gus_again.send(json!({"type":"resign","game":rated})).await;
    let end = fran_ws.recv_type("end").await;
    assert!(end["ratings"]["white"]["change"].as_i64().is_some_and(|c| c > 0), "{end}");
    assert_eq!(gus_again.recv_type("end").await["ratings"], end["ratings"]);
    let (status, page) = get_json(cluster.node("n2"), "/api/players/fran").await;
    assert_eq!((status, &page["ratings"]["blitz"]["rating"]), (200, &end["ratings"]["white"]["rating"]), "{page}");
}

#[tokio::test]
async fn a_killed_owner_loses_no_move_and_the_game_goes_on() {
    let Some(mut cluster) = Cluster::start("cluster-kill-human").await else { return };
    let (mut white, mut black, mut spectator, game, white_token, _) = spread_game(&cluster).await;
    white.play(&game, "d2d4").await;
    black.play(&game, "d7d5").await;
    white.play(&game, "c2c4").await;
    see_move(&mut spectator, "c2c4").await;

    let killed = Instant::now();
    cluster.take("n1").kill();
    drop(white);
    // Black, on a surviving node, moves at once: the move waits for a survivor to take the
    // game, then is accepted.
    black.send(json!({"type":"move","game":game,"uci":"e7e6","id":2})).await;
    let event = see_move(&mut black, "e7e6").await;
    let failover = killed.elapsed();
    assert!(failover < Duration::from_secs(6), "the game was taken over in {failover:?}");
    let new_owner = owner(cluster.node("n2"), &game).await;
    assert_ne!(new_owner, "n1");
    see_move(&mut spectator, "e7e6").await;
    // The new room knows black is still there (on n2), and counts the spectator (on n3).
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let (_, state) = get_json(cluster.node("n3"), &format!("/api/games/{game}")).await;
        if state["seats"]["black"]["online"] == true && state["watchers"] == 1 {
            assert_eq!(state["seats"]["white"]["online"], false, "white's connection died with n1");
            break;
        }
        assert!(Instant::now() < deadline, "the seats after the move: {state}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // White reconnects to another node and resumes by token: every acknowledged move is there.
    let (mut white, state) = resume(cluster.node("n3"), &game, &white_token).await;
    assert_eq!(moves(&state), ["d2d4", "d7d5", "c2c4", "e7e6"]);
    assert!(state["v"].as_u64() >= event["v"].as_u64(), "{state}");
    white.play(&game, "b1c3").await;
    see_move(&mut black, "b1c3").await;
}

/// How many times `game` has been claimed: its epoch in PostgreSQL, which every claim raises.
async fn epoch(db: &str, game: &str) -> i64 {
    let (client, connection) = tokio_postgres::connect(db, tokio_postgres::NoTls).await.expect("connect");
    let task = tokio::spawn(connection);
    let row = client.query_one("SELECT epoch FROM games WHERE id = $1", &[&game]).await.expect("epoch");
    drop(client);
    let _ = task.await;
    row.get(0)
}

#[tokio::test]
async fn a_dead_nodes_game_is_taken_once_however_many_ask_for_it_at_once() {
    let Some(mut cluster) = Cluster::start("cluster-take-once").await else { return };
    let (mut white, mut black, _spectator, game, _, _) = spread_game(&cluster).await;
    white.play(&game, "e2e4").await;
    see_move(&mut black, "e2e4").await;
    let db = cluster.node("n2").db.clone();
    let before = epoch(&db, &game).await;

    // The owner dies, and eight spectators on n2 ask for the game at once: each request finds
    // the game without a live owner when the lease runs out, while n2's lease task looks for
    // orphans too. The game must be claimed once, not once per request: a second claim on the
    // same node started a second room from the same stored version, whose events the
    // followers dropped as already seen.
    cluster.take("n1").kill();
    drop(white);
    let mut watchers = Vec::new();
    for _ in 0..8 {
        watchers.push(cluster.node("n2").client().await);
    }
    let states = futures::future::join_all(watchers.iter_mut().map(|w| async {
        w.send(json!({"type":"watch","game":game})).await;
        w.recv_type("state").await
    }))
    .await;
    for state in &states {
        assert_eq!(moves(state), ["e2e4"], "{state}");
    }
    // Black moves: acknowledged and seen (`play` waits for both), and seen by every follower
    // on n2.
    black.play(&game, "e7e5").await;
    for w in &mut watchers {
        see_move(w, "e7e5").await;
    }
    assert_eq!(epoch(&db, &game).await, before + 1, "one claim after the owner died");
}

#[tokio::test]
async fn a_node_that_lost_its_lease_cannot_write_a_move() {
    let Some(cluster) = Cluster::start("cluster-fence").await else { return };
    let (mut old_white, mut black, _spectator, game, white_token, _) = spread_game(&cluster).await;
    old_white.play(&game, "e2e4").await;
    black.play(&game, "e7e5").await;

    // n1, the owner, freezes past its lease: another node takes the game and play goes on.
    cluster.node("n1").signal("-STOP");
    tokio::time::sleep(Duration::from_millis(4500)).await;
    let (mut white, state) = resume(cluster.node("n3"), &game, &white_token).await;
    assert_eq!(moves(&state), ["e2e4", "e7e5"]);
    white.play(&game, "g1f3").await;
    black.play(&game, "g8f6").await;

    // n1 wakes up still holding its old room, where g1f3 is legal again. A move through it is
    // refused: either its write fails the lease check, or the room is gone already and the new
    // owner finds the move illegal. Never is it stored.
    cluster.node("n1").signal("-CONT");
    let answer = old_white.answer(json!({"type":"move","game":game,"uci":"g1f3"})).await;
    assert_eq!(answer["type"], "error", "{answer}");
    let fenced =
        answer["code"] == "server_error" && answer["message"].as_str().is_some_and(|m| m.contains("no longer owns"));
    assert!(fenced || answer["code"] == "illegal_move", "{answer}");
    let (_, state) = get_json(cluster.node("n2"), &format!("/api/games/{game}")).await;
    assert_eq!(moves(&state), ["e2e4", "e7e5", "g1f3", "g8f6"]);
    // n1 drops its stale room: the game is the new owner's, from every node.
    let deadline = Instant::now() + Duration::from_secs(5);
    while owner(cluster.node("n1"), &game).await == "n1" {
        assert!(Instant::now() < deadline, "n1 still claims the game");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (_, state) = get_json(cluster.node("n1"), &format!("/api/games/{game}")).await;
    assert_eq!(moves(&state), ["e2e4", "e7e5", "g1f3", "g8f6"], "n1 shows the game as it is now");
}

#[tokio::test]
async fn a_bot_game_keeps_playing_when_its_node_dies() {
    let Some(mut cluster) = Cluster::start("cluster-kill-bots").await else { return };
    let mut creator = cluster.node("n1").client().await;
    let (game, _) = creator.create(bot(2), bot(2), None).await;
    let mut spectator = cluster.node("n2").client().await;
    spectator.send(json!({"type":"watch","game":game})).await;
    spectator.recv_type("state").await;
    // A few moves on n1, then n1 dies.
    for _ in 0..3 {
        spectator.recv_type("move").await;
    }
    cluster.take("n1").kill();
    let killed = Instant::now();
    drop(creator);
    // Nobody sends anything: the game goes on on a survivor, and the spectator follows it
    // (a fresh state after the jump in versions, then moves).
    let mut last_ply = 0;
    let mut moves_after = 0;
    while moves_after < 3 {
        let m = spectator.try_recv(Duration::from_secs(10)).await.expect("the game goes on after the kill");
        match m["type"].as_str() {
            Some("move") => {
                let ply = m["ply"].as_u64().expect("ply");
                assert!(ply > last_ply || last_ply == 0, "moves in order: {ply} after {last_ply}");
                last_ply = ply;
                moves_after += 1;
            }
            Some("state") => last_ply = m["moves"].as_array().map_or(0, |a| a.len() as u64),
            Some("end") => break,
            _ => {}
        }
    }
    assert!(killed.elapsed() < Duration::from_secs(15));
    assert_ne!(owner(cluster.node("n3"), &game).await, "n1");
}

#[tokio::test]
async fn a_timed_game_is_not_charged_for_the_dead_node() {
    let Some(mut cluster) = Cluster::start("cluster-kill-clock").await else { return };
    let mut white = cluster.node("n2").client().await;
    white
        .send(json!({"type":"create","white":human(),"black":human(),"as":"white",
                     "clock":{"initial_ms":60_000,"increment_ms":0}}))
        .await;
    let created = white.recv_type("created").await;
    let game = created["game"].as_str().expect("game").to_string();
    // The game lives on n2; black plays from n3.
    let mut black = cluster.node("n3").client().await;
    black.join(&game, "black").await;
    white.play(&game, "e2e4").await;
    let before = black.play(&game, "e7e5").await;
    let white_ms = before["clock"]["white_ms"].as_u64().expect("clock");

    // White is to move when n2 dies; white's connection was there too.
    let token = created["token"].as_str().expect("token").to_string();
    cluster.take("n2").kill();
    drop(white);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (mut white, state) = resume(cluster.node("n1"), &game, &token).await;
    assert_eq!(moves(&state), ["e2e4", "e7e5"]);
    let event = white.play(&game, "g1f3").await;
    let after = event["clock"]["white_ms"].as_u64().expect("clock");
    // The clock goes on from the last stored move; the dead node's time is not charged beyond
    // the failover itself (here at most a few seconds).
    assert!(after <= white_ms && white_ms - after < 6_000, "white had {white_ms} ms, then {after} ms");
    assert_eq!(state["status"], "ongoing");
}

#[tokio::test]
async fn a_stopped_node_hands_its_games_over_and_tells_clients_to_reconnect() {
    let Some(mut cluster) = Cluster::start("cluster-handoff").await else { return };
    let (mut white, mut black, mut spectator, game, white_token, _) = spread_game(&cluster).await;
    white.play(&game, "e2e4").await;
    see_move(&mut spectator, "e2e4").await;

    let stopped = Instant::now();
    let n1 = cluster.take("n1");
    let terminated = tokio::spawn(n1.terminate());
    assert_eq!(white.recv_close_code().await, Some(1012), "clients are told to reconnect");
    terminated.await.expect("stopped");
    // The game passes on without waiting for a lease to run out. Two nodes may race to take it
    // over; the one that loses refuses the move it was sent ("no longer owns game …; try
    // again", the store's fencing), and the client sends it again, as the error asks.
    play_when_back(&mut black, &game, "e7e5").await;
    assert!(stopped.elapsed() < Duration::from_secs(5), "handed over in {:?}", stopped.elapsed());
    let (mut white, state) = resume(cluster.node("n2"), &game, &white_token).await;
    assert_eq!(moves(&state), ["e2e4", "e7e5"]);
    white.play(&game, "g1f3").await;
    see_move(&mut spectator, "g1f3").await;
    let (_, nodes) = get_json(cluster.node("n2"), "/api/cluster").await;
    assert_eq!(node_names(&nodes), ["n2", "n3"], "a stopped node leaves the list at once");
}

#[tokio::test]
async fn a_redis_restart_loses_no_move() {
    let Some(mut cluster) = Cluster::start("cluster-redis").await else { return };
    let (mut white, mut black, mut spectator, game, _, _) = spread_game(&cluster).await;
    white.play(&game, "e2e4").await;
    see_move(&mut spectator, "e2e4").await;

    black.play(&game, "e7e5").await;
    see_move(&mut spectator, "e7e5").await;

    cluster.redis.kill();
    // While Redis is away, the player on the owner's node still plays (the owner needs no bus
    // for its own room): the move is stored and acknowledged; its event reaches the others once
    // Redis is back. The player on another node cannot reach the owner meanwhile.
    white.send(json!({"type":"move","game":game,"uci":"d2d4","id":4})).await;
    loop {
        let m = white.recv().await;
        assert_ne!(m["type"], "error", "{m}");
        if m["type"] == "ack" {
            break;
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    cluster.redis.resume();
    let state = get_json(cluster.node("n3"), &format!("/api/games/{game}")).await.1;
    assert_eq!(moves(&state), ["e2e4", "e7e5", "d2d4"], "{state}");
    // Black, on another node, plays on once the nodes have reconnected.
    play_when_back(&mut black, &game, "g8f6").await;
    // The spectator, which missed events, is brought up to date (a fresh state or the events).
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let m = spectator.try_recv(Duration::from_secs(15)).await.expect("the spectator hears again");
        let caught_up = (m["type"] == "state" && moves(&m).len() >= 3) || (m["type"] == "move" && m["uci"] == "d2d4");
        if caught_up {
            break;
        }
        assert!(Instant::now() < deadline);
    }
}

#[tokio::test]
async fn a_postgres_outage_refuses_moves_then_play_resumes() {
    let Some(postgres) = Postgres::own("cluster-pg") else { return };
    let Some(redis) = Redis::start("cluster-pg-redis") else { return };
    let db = postgres.database().await;
    let nodes = [Node::start("n1", &db, &redis.url()).await, Node::start("n2", &db, &redis.url()).await];
    let mut white = nodes[0].client().await;
    let (game, _) = white.create(human(), human(), Some("white")).await;
    let mut black = nodes[1].client().await;
    black.join(&game, "black").await;
    white.play(&game, "e2e4").await;
    see_move(&mut black, "e2e4").await;

    postgres.pause();
    black.send(json!({"type":"move","game":game,"uci":"e7e5","id":6})).await;
    let refused = black.expect_error("server_error").await;
    assert!(refused["message"].as_str().is_some_and(|m| m.contains("unavailable")), "{refused}");
    postgres.resume();
    // Back: leases are renewed (or the game taken over) and black's move goes through.
    play_when_back(&mut black, &game, "e7e5").await;
    let (_, state) = get_json(&nodes[0], &format!("/api/games/{game}")).await;
    assert_eq!(moves(&state), ["e2e4", "e7e5"]);
}

#[tokio::test]
async fn a_rolling_restart_of_every_node_does_not_stop_a_bot_game() {
    let Some(mut cluster) = Cluster::start("cluster-rolling").await else { return };
    let mut creator = cluster.node("n1").client().await;
    let (game, _) = creator.create(bot(1), bot(1), None).await;
    drop(creator);
    let mut plies = Vec::new();
    for name in ["n1", "n2", "n3"] {
        let node = cluster.take(name);
        let node = node.restart().await;
        cluster.nodes.push(node);
        // Each time, the game has gone on.
        tokio::time::sleep(Duration::from_millis(800)).await;
        let watcher = cluster.nodes.iter().find(|n| n.name != name).expect("another node");
        let (_, state) = get_json(watcher, &format!("/api/games/{game}")).await;
        plies.push(state["moves"].as_array().map_or(0, Vec::len));
    }
    assert!(plies.windows(2).all(|w| w[1] >= w[0]), "{plies:?}");
    let (_, state) = get_json(cluster.node("n1"), &format!("/api/games/{game}")).await;
    let last = state["moves"].as_array().map_or(0, Vec::len);
    assert!(last > plies[0] || state["status"] == "ended", "the game kept going: {plies:?} then {last}");
}

#[tokio::test]
async fn nginx_in_front_of_three_nodes_survives_losing_one() {
    let Some(mut cluster) = Cluster::start("cluster-nginx").await else { return };
    let upstreams: Vec<SocketAddr> = cluster.nodes.iter().map(Node::addr).collect();
    let Some(nginx) = services::nginx::Nginx::start(&upstreams) else { return };
    let front = Server::external(nginx.addr);

    let mut white = front.client().await;
    let (game, white_token) = white.create(human(), human(), Some("white")).await;
    let white_token = white_token.expect("token");
    let mut black = front.client().await;
    let black_token = black.join(&game, "black").await;
    white.play(&game, "e2e4").await;
    black.play(&game, "c7c5").await;

    // The node holding the game dies; both players come back through the same address.
    let holder = owner(cluster.node("n2"), &game).await;
    cluster.take(&holder).kill();
    drop((white, black));
    let (mut white, state) = resume_at(&front, &game, &white_token).await;
    assert_eq!(moves(&state), ["e2e4", "c7c5"]);
    let (mut black, _) = resume_at(&front, &game, &black_token).await;
    white.play(&game, "g1f3").await;
    see_move(&mut black, "g1f3").await;
    black.play(&game, "d7d6").await;
    let (status, page) = front.get("/").await;
    assert_eq!(status, 200, "{page}");
}

/// Resumes a seat through `server` (a node or the balancer), retrying while the cluster takes
/// the game over.
async fn resume_at(server: &Server, game: &str, token: &str) -> (Client, Value) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let mut client = server.client().await;
        client.send(json!({"type":"resume","game":game,"token":token})).await;
        let answer = client.recv().await;
        if answer["type"] == "joined" {
            let state = client.recv_type("state").await;
            return (client, state);
        }
        assert!(Instant::now() < deadline, "resume: {answer}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test]
async fn gambit_watch_given_two_nodes_moves_on_when_its_node_stops() {
    use tokio::io::AsyncBufReadExt;
    let Some(mut cluster) = Cluster::start("cluster-watch").await else { return };
    let mut creator = cluster.node("n2").client().await;
    let (game, _) = creator.create(bot(1), bot(1), None).await;
    let urls = [cluster.node("n1").addr(), cluster.node("n3").addr()].map(|a| format!("ws://{a}/ws"));
    let mut watch = tokio::process::Command::new(env!("CARGO_BIN_EXE_gambit"))
        .args(["watch", &urls[0], &urls[1], &game])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("gambit watch");
    let mut lines = tokio::io::BufReader::new(watch.stdout.take().expect("stdout")).lines();
    let mut transcript = Vec::new();
    let mut next_line = async || {
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line()).await;
        let line = line.expect("gambit watch went quiet").expect("read").expect("gambit watch ended");
        transcript.push(line.clone());
        line
    };
    while !next_line().await.starts_with("FEN:") {}
    // The node it watches through (n1) stops: told to reconnect, it goes on to n3.
    let n1 = cluster.take("n1");
    n1.terminate().await;
    while next_line().await != "Reconnected." {}
    // And the game is still followed: boards keep coming.
    while !next_line().await.starts_with("FEN:") {}
    while !next_line().await.starts_with("FEN:") {}
    let _ = creator;
}

#[tokio::test]
async fn loadtest_failover_measures_a_killed_node_and_every_game_goes_on() {
    let Some(mut cluster) = Cluster::start("cluster-loadtest").await else { return };
    let n1 = cluster.take("n1");
    let urls: Vec<String> = [n1.addr(), cluster.node("n2").addr(), cluster.node("n3").addr()]
        .iter()
        .map(|a| format!("ws://{a}/ws"))
        .collect();
    let json = std::env::temp_dir().join(format!("gambit-failover-{}.json", std::process::id()));
    let pid = n1.child.id().to_string();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_gambit"))
        .args(["loadtest", "failover", "--url", &urls[0], "--url", &urls[1], "--url", &urls[2]])
        .args(["--games", "12", "--kill-pid", &pid, "--warmup", "2", "--wait", "15", "--json"])
        .arg(&json)
        .output()
        .await
        .expect("gambit loadtest");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("report")).expect("json");
    let _ = std::fs::remove_file(&json);
    assert_eq!(report["recovered"], 12, "{report}");
    let max = report["kill_to_first_move"]["max_ms"].as_f64().expect("max");
    assert!(max > 0.0 && max < 5000.0, "every game moves again within 5 s: {report}");
    drop(n1);
}

/// An arena's players on three nodes: the node that runs it (and holds its games) is killed; a
/// survivor takes the arena over once the lease runs out, registers the game that ended
/// meanwhile, and pairs again.
#[tokio::test]
async fn an_arena_keeps_pairing_when_its_node_is_killed() {
    use crate::api::{account_with_token, post_form};
    use crate::arenas::{duels, paired, still_free, view, Players};
    let Some(mut cluster) = Cluster::start("cluster-arena").await else { return };
    let scopes = ["tournament:write", "board:play"];
    let n1 = Server::external(cluster.node("n1").addr());
    let n3 = Server::external(cluster.node("n3").addr());
    let (_, org) = account_with_token(&n1, "Org", &scopes).await;
    let mut tokens = Vec::new();
    for name in ["Ann", "Ben", "Cat", "Dan"] {
        tokens.push((name, account_with_token(&n1, name, &scopes).await.1));
    }
    let p = Players(tokens);
    // Made on n2, which runs it; entered through every node.
    let n2 = Server::external(cluster.node("n2").addr());
    let starts = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("time").as_millis() + 1500;
    let form = format!("name=Cluster night&clockTime=1&clockIncrement=0&seconds=120&startDate={starts}&rated=false");
    let made = post_form(&n2, "/api/tournament", &org, &form).await;
    assert_eq!(made.status, 200, "{}", made.body);
    let id = made.json()["id"].as_str().expect("id").to_string();
    for (name, node) in [("Ann", &n1), ("Ben", &n2), ("Cat", &n3), ("Dan", &n1)] {
        let joined = post_form(node, &format!("/api/tournament/{id}/join"), p.token(name), "").await;
        assert_eq!(joined.status, 200, "{name}: {}", joined.body);
    }
    let g = paired(&n3, &id, &[("Ann", "Ben"), ("Cat", "Dan")], Instant::now(), false).await;
    for game in &g {
        assert_eq!(owner(cluster.node("n1"), game).await, "n2", "the arena's games are made on its node");
    }
    p.open(&n1, &g[0], "Ann", "Ben").await;
    p.open(&n3, &g[1], "Cat", "Dan").await;
    p.resign(&n3, &g[0], "Ben").await;
    still_free(&n1, &id, &g[0], &["Ann", "Ben"]).await;

    // The arena's node dies with Cat–Dan going on. Dan resigns through n1: once a survivor
    // holds the game and another the arena, Ann (2) meets Cat (2) and Ben meets Dan.
    let killed = Instant::now();
    cluster.take("n2").kill();
    let resigned = post_form(&n1, &format!("/api/board/game/{}/resign", g[1]), p.token("Dan"), "").await;
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    let g = paired(&n3, &id, &[("Ann", "Cat"), ("Ben", "Dan")], killed, false).await;
    let failover = killed.elapsed();
    assert!(failover < Duration::from_secs(15), "paired again {failover:?} after the kill");
    // It goes on: a result through either survivor counts, and the standing is the arena's.
    p.open(&n1, &g[0], "Ann", "Cat").await;
    p.resign(&n3, &g[0], "Cat").await;
    still_free(&n1, &id, &g[0], &["Ann", "Cat"]).await;
    let t = view(&n3, &id).await;
    assert_eq!(t["standing"]["players"][0]["name"], "Ann", "{t}");
    assert_eq!(t["standing"]["players"][0]["sheet"], json!({ "scores": "22", "fire": true }), "{t}");
    assert_eq!(duels(&t).len(), 1, "Ben–Dan still going: {t}");
}
