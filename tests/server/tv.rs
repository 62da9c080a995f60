//! gambit TV over real sockets: the WebSocket's `tv` subscription told its channel's featured
//! game at once and at every change (switching to the next game when the shown one ends), the
//! bot channel, and lichess's `/api/tv/channels` and `/api/tv/feed`.

use serde_json::{json, Value};

use crate::api::Lines;
use crate::server_support::{bot, human, human_game, start, Client};

/// The next `tv` message, skipping others.
async fn next_tv(client: &mut Client) -> Value {
    client.recv_type("tv").await
}

#[tokio::test]
async fn tv_features_a_game_until_it_ends_then_switches_to_the_next() {
    let server = start().await;
    let mut viewer = server.client().await;
    viewer.send(json!({"type":"tv","channel":"colour"})).await;
    viewer.expect_error("bad_request").await;
    viewer.send(json!({"type":"tv","channel":"best"})).await;
    assert_eq!(next_tv(&mut viewer).await, json!({"type":"tv","channel":"best","game":null}));

    let (mut white, _black, first, _, _) = human_game(&server).await;
    assert_eq!(next_tv(&mut viewer).await["game"], json!(first), "the first game between people");
    let mut bots = server.client().await;
    bots.send(json!({"type":"tv","channel":"bot"})).await;
    assert_eq!(next_tv(&mut bots).await["game"], json!(null));

    // A busier game does not take the screen from one in progress.
    let (mut second_white, _second_black, second, _, _) = human_game(&server).await;
    let mut fans = Vec::new();
    for _ in 0..2 {
        let mut fan = server.client().await;
        fan.send(json!({"type":"watch","game":second})).await;
        fan.recv_type("state").await;
        fans.push(fan);
    }
    // A game with a computer seat goes to the bot channel only. A person holds the other seat:
    // two bots at levels 1 and 2 can finish a game inside one games-list period, and TV rightly
    // never features a game that ended before it was listed.
    let mut creator = server.client().await;
    let (bot_game, _) = creator.create(human(), bot(1), Some("white")).await;
    assert_eq!(next_tv(&mut bots).await["game"], json!(bot_game));

    let channels = server.get("/api/tv/channels").await;
    let channels: Value = serde_json::from_str(&channels.1).expect("json");
    assert_eq!(channels["best"]["gameId"], json!(first), "{channels}");
    assert_eq!(channels["bot"]["gameId"], json!(bot_game), "{channels}");
    assert_eq!(channels["best"]["color"], "white");

    // The feed: the featured game, then its moves.
    let (status, mut feed) = Lines::open(&server, "/api/tv/feed", "").await;
    assert_eq!(status, 200);
    let featured = feed.next().await;
    assert_eq!((&featured["t"], &featured["d"]["id"]), (&json!("featured"), &json!(first)), "{featured}");
    assert_eq!(featured["d"]["players"][0]["color"], "white");
    white.play(&first, "e2e4").await;
    let moved = feed.next().await;
    assert_eq!((&moved["t"], &moved["d"]["lm"]), (&json!("fen"), &json!("e2e4")), "{moved}");

    // The shown game ends: the next (the most watched) is featured, on the socket and the feed.
    white.send(json!({"type":"resign","game":first})).await;
    assert_eq!(next_tv(&mut viewer).await["game"], json!(second));
    let next = feed.next().await;
    assert_eq!((&next["t"], &next["d"]["id"]), (&json!("featured"), &json!(second)), "{next}");
    second_white.play(&second, "d2d4").await;
    assert_eq!(feed.next().await["d"]["lm"], "d2d4");
}
