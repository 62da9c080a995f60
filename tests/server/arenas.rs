//! An arena run to its end over real HTTP with the real binary, killed and started again midway
//! and after the end: four people (through the Board API) and two of the server's computer
//! levels. Every result is scripted, so each pairing, colour, sheet and the final table are
//! known by hand (worked through below with lichess's rules: win 2, draw 1, loss 0, doubled
//! after two wins in a row; the free player meets the free player of the nearest score but not
//! their last opponent; White to whoever has had fewer Whites).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::api::{account_with_token, post_form};
use crate::server_support::{scratch, Process, Server};

const SCOPES: [&str; 3] = ["tournament:write", "board:play", "challenge:read"];
/// How soon a free player is paired when someone they may meet is free too.
const PAIRED_WITHIN: Duration = Duration::from_secs(1);

pub(crate) async fn view(server: &Server, id: &str) -> Value {
    let (status, body) = server.get(&format!("/api/tournament/{id}")).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).expect("json")
}

/// The games going on, as (White, Black) by name, with their ids.
pub(crate) fn duels(t: &Value) -> Vec<((String, String), String)> {
    let name = |d: &Value, i: usize| d["p"][i]["n"].as_str().expect("a name").to_string();
    t["duels"]
        .as_array()
        .expect("duels")
        .iter()
        .map(|d| ((name(d, 0), name(d, 1)), d["id"].as_str().expect("id").to_string()))
        .collect()
}

/// Waits for the games `pairs` (White, Black) to be going on, and answers their ids: within
/// [`PAIRED_WITHIN`] of `since` when `timed`.
pub(crate) async fn paired(
    server: &Server,
    id: &str,
    pairs: &[(&str, &str)],
    since: Instant,
    timed: bool,
) -> Vec<String> {
    loop {
        let t = view(server, id).await;
        let on = duels(&t);
        let found: Vec<Option<String>> = pairs
            .iter()
            .map(|(w, b)| on.iter().find(|((dw, db), _)| dw == w && db == b).map(|(_, g)| g.clone()))
            .collect();
        if found.iter().all(Option::is_some) {
            if timed {
                assert!(since.elapsed() < PAIRED_WITHIN, "{pairs:?} paired after {:?}", since.elapsed());
            }
            return found.into_iter().flatten().collect();
        }
        assert!(since.elapsed() < Duration::from_secs(20), "waiting for {pairs:?}: {on:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Once the arena has seen `ended` end (and so made whatever pairings that called for), none
/// of `names` is in a game: they wait.
pub(crate) async fn still_free(server: &Server, id: &str, ended: &str, names: &[&str]) {
    let since = Instant::now();
    let on = loop {
        let on = duels(&view(server, id).await);
        if on.iter().all(|(_, g)| g != ended) {
            break on;
        }
        assert!(since.elapsed() < Duration::from_secs(15), "{ended} still going: {on:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    for ((w, b), _) in on {
        assert!(!names.contains(&w.as_str()) && !names.contains(&b.as_str()), "{names:?} should wait: {w}–{b}");
    }
}

pub(crate) struct Players(pub(crate) Vec<(&'static str, String)>);

impl Players {
    pub(crate) fn token(&self, name: &str) -> &str {
        &self.0.iter().find(|(n, _)| *n == name).expect("a player").1
    }

    /// `loser` resigns `game`; the moment it is done.
    pub(crate) async fn resign(&self, server: &Server, game: &str, loser: &str) -> Instant {
        let answer = post_form(server, &format!("/api/board/game/{game}/resign"), self.token(loser), "").await;
        assert_eq!(answer.status, 200, "{loser} resigns {game}: {}", answer.body);
        Instant::now()
    }

    /// White and Black play a move each: a game both sides have started.
    pub(crate) async fn open(&self, server: &Server, game: &str, white: &str, black: &str) {
        for (who, uci) in [(white, "e2e4"), (black, "e7e5")] {
            let answer = post_form(server, &format!("/api/board/game/{game}/move/{uci}"), self.token(who), "").await;
            assert_eq!(answer.status, 200, "{who} plays {uci} in {game}: {}", answer.body);
        }
    }
}

#[tokio::test]
async fn an_arena_of_four_people_and_two_computers_pairs_at_once_scores_streaks_and_keeps_its_table() {
    let dir = scratch("arena");
    let db = dir.join("gambit.db");
    let db = db.to_str().expect("utf-8 path");
    let first = Process::start(db, &[]).await;
    let s = &first.server;
    let (_, org) = account_with_token(s, "Org", &SCOPES).await;
    let mut players = Vec::new();
    for name in ["Ann", "Ben", "Cat", "Dan"] {
        players.push((name, account_with_token(s, name, &SCOPES).await.1));
    }
    let p = Players(players);

    // Refused, changing nothing: a bad clock, too short, a missing scope, a bad start.
    for form in ["clockTime=2.5", "clockTime=1&seconds=5", "minutes=1&seconds=20", "waitMinutes=4"] {
        let answer = post_form(s, "/api/tournament", &org, form).await;
        assert_eq!(answer.status, 400, "{form}: {}", answer.body);
    }
    let (_, reader) = account_with_token(s, "Reader", &["board:play"]).await;
    assert_eq!(post_form(s, "/api/tournament", &reader, "name=Club").await.status, 403);
    // An arena that allows no bots takes none.
    let closed = post_form(s, "/api/tournament", &org, "name=No bots&clockTime=1&minutes=20").await;
    assert_eq!(closed.status, 200, "{}", closed.body);
    let closed = closed.json()["id"].as_str().expect("id").to_string();
    let refused = post_form(s, &format!("/api/tournament/{closed}/bot"), &org, "level=1").await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    let (_, robo) = account_with_token(s, "Robo", &["bot:play", "tournament:write"]).await;
    assert_eq!(post_form(s, "/api/bot/account/upgrade", &robo, "").await.status, 200);
    let refused = post_form(s, &format!("/api/tournament/{closed}/join"), &robo, "").await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(refused.body.contains("does not allow bots"), "{}", refused.body);

    // Starts in 2 s, lasts 25 s; 1+0, streaks and bots on.
    let starts = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("time").as_millis() + 2000;
    let form = format!(
        "name=Club night&clockTime=1&clockIncrement=0&seconds=25&startDate={starts}&conditions.bots=true&rated=false"
    );
    let made = post_form(s, "/api/tournament", &org, &form).await;
    assert_eq!(made.status, 200, "{}", made.body);
    let id = made.json()["id"].as_str().expect("id").to_string();
    assert_eq!((&made.json()["status"], &made.json()["fullName"]), (&json!(10), &json!("Club night Arena")));
    let join = |name: &'static str| {
        let (path, token) = (format!("/api/tournament/{id}/join"), p.token(name).to_string());
        async move { post_form(s, &path, &token, "").await }
    };
    for name in ["Ann", "Ben", "Cat", "Dan"] {
        let joined = join(name).await;
        assert_eq!(joined.status, 200, "{}", joined.body);
    }
    // Only the creator seats computers, and a level once.
    let not_creator = post_form(s, &format!("/api/tournament/{id}/bot"), p.token("Ann"), "level=1").await;
    assert_eq!(not_creator.status, 400, "{}", not_creator.body);
    assert_eq!(post_form(s, &format!("/api/tournament/{id}/bot"), &org, "level=99").await.status, 400);

    // The start: all on 0, in entry order: Ann–Ben, Cat–Dan.
    let start = Instant::now();
    let g = paired(s, &id, &[("Ann", "Ben"), ("Cat", "Dan")], start, false).await;
    assert_eq!(view(s, &id).await["status"], 20);
    p.open(s, &g[0], "Ann", "Ben").await;
    p.open(s, &g[1], "Cat", "Dan").await;
    // Ben resigns: Ann 2, and they just met — nobody else is free, so both wait.
    p.resign(s, &g[0], "Ben").await;
    still_free(s, &id, &g[0], &["Ann", "Ben"]).await;
    // Dan resigns: Cat 2. All four free: Ann (2) meets Cat (2), Ben (0) meets Dan (0), at once;
    // each pair has had a White each, so the better placed one is White.
    let at = p.resign(s, &g[1], "Dan").await;
    let g = paired(s, &id, &[("Ann", "Cat"), ("Ben", "Dan")], at, true).await;
    p.open(s, &g[0], "Ann", "Cat").await;
    p.open(s, &g[1], "Ben", "Dan").await;
    // Cat resigns: Ann 2+2, on fire. Cat waits with her.
    p.resign(s, &g[0], "Cat").await;
    still_free(s, &id, &g[0], &["Ann", "Cat"]).await;
    let fire = view(s, &id).await;
    assert_eq!(fire["standing"]["players"][0]["sheet"], json!({ "scores": "22", "fire": true }), "{fire}");

    // Killed with Ben–Dan going on: started again, the arena goes on as it was.
    first.kill();
    let second = Process::start(db, &[]).await;
    let s = &second.server;
    assert_eq!(duels(&view(s, &id).await).len(), 1);
    // Dan resigns: Ben 2. Free: Ann (4), Ben (2), Cat (2), Dan (0). Ann meets Ben (Cat was her
    // last opponent), Black as she has had two Whites; Cat meets Dan, Dan White (two Blacks).
    let at = p.resign(s, &g[1], "Dan").await;
    let g = paired(s, &id, &[("Ben", "Ann"), ("Dan", "Cat")], at, true).await;
    p.open(s, &g[0], "Ben", "Ann").await;
    p.open(s, &g[1], "Dan", "Cat").await;
    // Ben resigns: Ann on fire wins 4 (8 in all). Ann and Ben wait.
    p.resign(s, &g[0], "Ben").await;
    still_free(s, &id, &g[0], &["Ann", "Ben"]).await;

    // The computers come in: Level 1 meets Ann (Ben was her last opponent), White as she has
    // had more Whites; then Level 2 meets Ben, White too: Ben has had two Whites to one Black.
    assert_eq!(post_form(s, &format!("/api/tournament/{id}/bot"), &org, "level=1").await.status, 200);
    let at = Instant::now();
    let vs_l1 = paired(s, &id, &[("Level 1", "Ann")], at, true).await.remove(0);
    assert_eq!(post_form(s, &format!("/api/tournament/{id}/bot"), &org, "level=1").await.status, 400, "once");
    assert_eq!(post_form(s, &format!("/api/tournament/{id}/bot"), &org, "level=2").await.status, 200);
    let at = Instant::now();
    let vs_l2 = paired(s, &id, &[("Level 2", "Ben")], at, true).await.remove(0);
    // Dan resigns to Cat: Cat 2+0+2, no streak (a loss between). Cat and Dan wait.
    p.resign(s, &g[1], "Dan").await;
    still_free(s, &id, &g[1], &["Cat", "Dan"]).await;
    // Ann resigns to Level 1: her streak ends at 8. Free: Ann (8), Cat (4), Level 1 (2), Dan (0):
    // Ann meets Cat (Level 1 was her last), Cat White (fewer Whites); Level 1 meets Dan, Dan White.
    let at = p.resign(s, &vs_l1, "Ann").await;
    let last = paired(s, &id, &[("Cat", "Ann"), ("Dan", "Level 1")], at, true).await;
    // Ben resigns to Level 2. Ben and Level 2 wait for the end.
    p.resign(s, &vs_l2, "Ben").await;
    still_free(s, &id, &vs_l2, &["Ben", "Level 2"]).await;

    // A berserk halves the berserker's clock; the arena's view counts it; a second is refused.
    let berserk = post_form(s, &format!("/api/board/game/{}/berserk", last[0]), p.token("Cat"), "").await;
    assert_eq!(berserk.status, 200, "{}", berserk.body);
    let again = post_form(s, &format!("/api/board/game/{}/berserk", last[0]), p.token("Cat"), "").await;
    assert_eq!(again.status, 400, "{}", again.body);
    let state = s.get(&format!("/api/games/{}", last[0])).await.1;
    let state: Value = serde_json::from_str(&state).expect("json");
    assert_eq!(state["clock"]["white_ms"], 30_000, "{state}");

    // The bell: the games still going (Cat–Ann, Dan–Level 1) count for nobody.
    let deadline = Instant::now() + Duration::from_secs(40);
    let t = loop {
        let t = view(s, &id).await;
        if t["isFinished"] == true {
            break t;
        }
        assert!(Instant::now() < deadline, "the arena did not finish: {t}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // Ann 2 2 4 0 = 8; Cat 2 0 2 = 4; Level 1 2 and Level 2 2 (one game each) before Ben 0 2 0 0
    // = 2 (four games); Dan 0 0 0. Sheets newest first, as lichess writes them.
    let expected = [
        ("Ann", 8, "0422"),
        ("Cat", 4, "202"),
        ("Level 1", 2, "2"),
        ("Level 2", 2, "2"),
        ("Ben", 2, "0020"),
        ("Dan", 0, "000"),
    ];
    let table = |t: &Value| -> Vec<(String, u64, String)> {
        t["standing"]["players"]
            .as_array()
            .expect("players")
            .iter()
            .map(|p| {
                let name = p["name"].as_str().expect("name").to_string();
                (name, p["score"].as_u64().expect("score"), p["sheet"]["scores"].as_str().expect("sheet").to_string())
            })
            .collect()
    };
    let want: Vec<(String, u64, String)> =
        expected.iter().map(|(n, s, c)| (n.to_string(), *s, c.to_string())).collect();
    assert_eq!(table(&t), want, "{t}");
    let podium: Vec<&str> =
        t["podium"].as_array().expect("podium").iter().map(|p| p["name"].as_str().unwrap_or("")).collect();
    assert_eq!(podium, ["Ann", "Cat", "Level 1"]);
    assert_eq!(t["podium"][0]["nb"], json!({ "game": 4, "berserk": 0, "win": 3 }));
    assert_eq!(t["stats"]["games"], 8, "{t}");
    assert!(post_form(s, &format!("/api/tournament/{id}/join"), p.token("Dan"), "").await.status == 400);

    // Stored: the same table after a restart, and as lichess's results ndjson.
    second.kill();
    let third = Process::start(db, &[]).await;
    let s = &third.server;
    let t = view(s, &id).await;
    assert_eq!(table(&t), want, "{t}");
    let (status, results) = s.get(&format!("/api/tournament/{id}/results?sheet=true")).await;
    assert_eq!(status, 200);
    let lines: Vec<Value> = results.lines().map(|l| serde_json::from_str(l).expect("ndjson")).collect();
    assert_eq!(lines.len(), 6, "{results}");
    assert_eq!(lines[0]["username"], "Ann");
    assert_eq!((&lines[0]["rank"], &lines[0]["score"]), (&json!(1), &json!(8)));
    assert_eq!(lines[2]["title"], "BOT");
    let listed = s.get("/api/tournament").await.1;
    let listed: Value = serde_json::from_str(&listed).expect("json");
    assert!(listed["finished"].as_array().expect("finished").iter().any(|t| t["id"] == id.as_str()), "{listed}");
    drop(third);
    let _ = std::fs::remove_dir_all(&dir);
}
