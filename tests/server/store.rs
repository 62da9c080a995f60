//! The store contract, run against every store: SQLite (in memory) and PostgreSQL (a fresh
//! database on the test binary's own server). A change recorded is read back as it was, a
//! refused change leaves the others of its batch alone, and a closed store refuses work.

use crate::services;

use std::sync::Arc;

use gambit::chess::{Color, Outcome, Rules, Variant};
use gambit::protocol::name_key;
use gambit::server::ratings::{self, Category};
use gambit::server::store::{
    self, AnalysisRecord, AnalysisWrite, GameStore, PostgresStore, RatedEnd, RatedResult, Relation, SqliteStore,
    StoreError, StoreEvent, StoredAnalysis, StoredChat, StoredClock, StoredEval, StoredGame, StoredScore, StoredSeat,
    StoredTimes, Stores, CHAT_KEPT,
};
use gambit::server::token::TokenHash;

/// Every store to hold to the contract, with its name for messages.
async fn stores() -> Vec<(&'static str, Arc<dyn GameStore>)> {
    let mut stores: Vec<(&'static str, Arc<dyn GameStore>)> =
        vec![("sqlite", Arc::new(SqliteStore::open(":memory:").expect("open sqlite")))];
    if let Some(url) = services::postgres::database().await {
        stores.push(("postgres", Arc::new(PostgresStore::connect(&url).await.expect("connect postgres"))));
    }
    stores
}

/// A new game (White a person, Black level 3, 1+1) as the store records it; other tests start from it.
pub(crate) fn new_game(id: &str) -> StoredGame {
    StoredGame {
        id: id.into(),
        variant: Variant::Standard,
        initial_fen: Variant::Standard.initial_fen().into(),
        rules: Rules::default(),
        white: StoredSeat::Human {
            token: Some(TokenHash::of("white-token")),
            name: Some("Zoë W.".into()),
            account: None,
        },
        black: StoredSeat::Bot { level: 3 },
        clock: Some(StoredClock { initial_ms: 60_000, increment_ms: 1000, days: None, berserkable: false }),
        times: None,
        moves: Vec::new(),
        v: 0,
        outcome: None,
        created_ms: 1_700_000_000_000,
        ended_ms: None,
        score: StoredScore { white: 3, black: 1, games: 2 },
        chat: Vec::new(),
        rated: false,
        ratings: None,
    }
}

fn times(white_ms: u64, black_ms: u64) -> Option<StoredTimes> {
    Some(StoredTimes { white_ms, black_ms })
}

#[tokio::test]
async fn a_game_and_its_changes_read_back() {
    for (name, store) in stores().await {
        eprintln!("store: {name}");
        let store = &*store;
        store.record("g1", StoreEvent::Created(Box::new(new_game("g1")))).await.expect("created");
        for (ply, uci) in ["e2e4", "e7e5", "g1f3"].iter().enumerate() {
            let event = StoreEvent::Move { ply: ply + 1, uci: uci.to_string(), times: times(59_000, 58_000), v: 1 };
            store.record("g1", event).await.expect("move");
        }
        store.record("g1", StoreEvent::Version { v: 7 }).await.expect("v");
        store.record("g1", StoreEvent::Version { v: 5 }).await.expect("an older version changes nothing");
        store.record("g1", StoreEvent::Undo { ply: 2, times: times(57_000, 58_000), v: 6 }).await.expect("undo");
        let unfinished = store.unfinished().await.expect("unfinished");
        assert_eq!(unfinished.len(), 1);
        let g = &unfinished[0];
        assert_eq!(g.moves, ["e2e4", "e7e5"]);
        assert_eq!(g.v, 7);
        assert_eq!(g.times, times(57_000, 58_000));
        assert_eq!((&g.white, &g.black, g.clock), (&new_game("g1").white, &new_game("g1").black, new_game("g1").clock));
        assert!(store.finished(10).await.expect("finished").is_empty());

        let outcome = Outcome::win(gambit::chess::Color::Black, gambit::chess::EndReason::Resignation);
        let ended = StoreEvent::Ended { outcome, times: None, v: 9, rated: None };
        store.record("g1", ended).await.expect("ended");
        assert!(store.unfinished().await.expect("unfinished").is_empty());
        let finished = store.finished(10).await.expect("finished");
        assert_eq!(finished.len(), 1);
        assert_eq!(finished[0].outcome, Some(outcome));
        assert!(finished[0].ended_ms.is_some());
        assert_eq!(store.load("g1").await.expect("load").expect("found").moves.len(), 2);
        assert_eq!(store.load("nope").await.expect("load"), None);
    }
}

#[tokio::test]
async fn a_games_match_score_and_last_chat_lines_are_kept() {
    for (name, store) in stores().await {
        eprintln!("store: {name}");
        let store = &*store;
        store.record("c1", StoreEvent::Created(Box::new(new_game("c1")))).await.expect("created");
        let line = |players: bool, i: usize| StoredChat {
            players,
            from: "Zoë".into(),
            text: format!("line {i} <b>"),
            at_ms: 1_700_000_000_000 + i as i64,
        };
        let mut writes = Vec::new();
        for i in 0..CHAT_KEPT + 5 {
            writes.push(store.record("c1", StoreEvent::Chat(line(true, i))));
            if i % 50 == 0 {
                writes.push(store.record("c1", StoreEvent::Chat(line(false, i))));
            }
        }
        for write in writes {
            write.await.expect("chat line");
        }
        assert!(store.record("nope", StoreEvent::Chat(line(true, 0))).await.is_err(), "a line of no game");
        let g = store.load("c1").await.expect("load").expect("found");
        assert_eq!(g.score, StoredScore { white: 3, black: 1, games: 2 });
        let players: Vec<&StoredChat> = g.chat.iter().filter(|l| l.players).collect();
        assert_eq!(players.len(), CHAT_KEPT, "only the last lines of a room are kept");
        assert_eq!(players[0].text, "line 5 <b>");
        assert_eq!(players[CHAT_KEPT - 1], &line(true, CHAT_KEPT + 4));
        let spectators: Vec<&StoredChat> = g.chat.iter().filter(|l| !l.players).collect();
        assert_eq!(spectators, [&line(false, 0), &line(false, 50), &line(false, 100)]);
        store.record("c1", StoreEvent::Discarded).await.expect("discarded");
        assert_eq!(store.load("c1").await.expect("load"), None, "the chat goes with its game");
    }
}

#[tokio::test]
async fn refused_changes_leave_the_rest_of_the_batch_alone() {
    for (name, store) in stores().await {
        eprintln!("store: {name}");
        let store = &*store;
        // Queue everything before waiting, so the store commits it as one batch.
        let created = store.record("g1", StoreEvent::Created(Box::new(new_game("g1"))));
        let again = store.record("g1", StoreEvent::Created(Box::new(new_game("g1"))));
        let orphan = store.record("g2", StoreEvent::Move { ply: 1, uci: "e2e4".into(), times: None, v: 1 });
        let twice = store.record("g1", StoreEvent::Move { ply: 1, uci: "e2e4".into(), times: None, v: 1 });
        let clash = store.record("g1", StoreEvent::Move { ply: 1, uci: "d2d4".into(), times: None, v: 1 });
        let seat = store.record(
            "g9",
            StoreEvent::Seat { side: Color::Black, token: TokenHash::of("t"), name: None, account: None },
        );
        created.await.expect("created");
        assert!(again.await.unwrap_err().to_string().contains("already stored"));
        assert!(orphan.await.is_err(), "a move of a game that is not stored");
        twice.await.expect("first move");
        assert!(clash.await.is_err(), "a second move 1");
        assert!(seat.await.unwrap_err().to_string().contains("no game"));
        let g = store.load("g1").await.expect("load").expect("found");
        assert_eq!(g.moves, ["e2e4"]);
        assert_eq!(store.load("g2").await.expect("load"), None);
    }
}

#[tokio::test]
async fn an_analysis_is_claimed_by_one_runner_and_kept() {
    for (name, Stores { games, analyses: store, .. }) in every_face().await {
        eprintln!("store: {name}");
        games.record("an1", StoreEvent::Created(Box::new(new_game("an1")))).await.expect("created");
        let now = store::now_ms();
        let (fresh, stale) = (now - 15_000, now + 60_000);
        assert_eq!(store.analysis("an1", fresh).await.expect("read"), None);
        assert!(store.claim_analysis("an1", "one", fresh).await.expect("claim"));
        assert!(!store.claim_analysis("an1", "two", fresh).await.expect("claim"), "{name}: one runs at a time");
        store.write_analysis("an1", "one", AnalysisWrite::Progress(0.5)).await.expect("progress");
        assert_eq!(store.analysis("an1", fresh).await.expect("read"), Some(AnalysisRecord::Running { progress: 0.5 }));
        // A runner nobody heard from lately stopped: its claim is for the taking, and its late
        // writes change nothing.
        assert_eq!(store.analysis("an1", stale).await.expect("read"), None);
        assert!(store.claim_analysis("an1", "two", stale).await.expect("claim"), "{name}: a stale claim is taken");
        let analysis = StoredAnalysis {
            movetime_ms: 150,
            positions: vec![StoredEval { cp: Some(20), mate: None, best: Some("e2e4".into()) }],
        };
        store.write_analysis("an1", "one", AnalysisWrite::Done(analysis.clone())).await.expect("late write");
        assert_eq!(store.analysis("an1", fresh).await.expect("read"), Some(AnalysisRecord::Running { progress: 0.0 }));
        store.write_analysis("an1", "two", AnalysisWrite::Done(analysis.clone())).await.expect("done");
        let done = Some(AnalysisRecord::Done(analysis));
        assert_eq!(store.analysis("an1", stale).await.expect("read"), done, "{name}: a result never goes stale");
        assert!(!store.claim_analysis("an1", "three", stale).await.expect("claim"), "{name}: done is done");
        // A failed run lets the next request start afresh.
        games.record("an2", StoreEvent::Created(Box::new(new_game("an2")))).await.expect("created");
        assert!(store.claim_analysis("an2", "one", fresh).await.expect("claim"));
        store.write_analysis("an2", "one", AnalysisWrite::Abandon).await.expect("abandon");
        assert_eq!(store.analysis("an2", fresh).await.expect("read"), None);
        // An analysis goes with its game.
        games.record("an1", StoreEvent::Discarded).await.expect("discarded");
        assert_eq!(store.analysis("an1", fresh).await.expect("read"), None);
    }
}

#[tokio::test]
async fn seats_discards_and_closing() {
    for (name, store) in stores().await {
        eprintln!("store: {name}");
        let store = &*store;
        let mut open = new_game("g1");
        open.black = StoredSeat::Human { token: None, name: None, account: None };
        store.record("g1", StoreEvent::Created(Box::new(open))).await.expect("created");
        let token = TokenHash::of("black-token");
        let name = Some("Bob".to_string());
        store
            .record("g1", StoreEvent::Seat { side: Color::Black, token, name: name.clone(), account: None })
            .await
            .expect("seat");
        let g = store.load("g1").await.expect("load").expect("found");
        assert_eq!(g.black, StoredSeat::Human { token: Some(token), name, account: None });
        store.record("g1", StoreEvent::Discarded).await.expect("discarded");
        assert_eq!(store.load("g1").await.expect("load"), None);
        store.close().await;
        let late = store.record("g1", StoreEvent::Created(Box::new(new_game("g1")))).await;
        assert!(matches!(late, Err(StoreError::Closed)), "{late:?}");
        assert!(matches!(store.unfinished().await, Err(StoreError::Closed)));
    }
}

#[tokio::test]
async fn every_field_reads_back_as_written() {
    for (name, store) in stores().await {
        let mut game = new_game("full");
        game.variant = Variant::Minichess7;
        game.initial_fen = Variant::Minichess7.initial_fen().into();
        game.rules = Rules { castling: false, en_passant: false, repetition: gambit::chess::Repetition::EightMove };
        game.white = StoredSeat::Human { token: None, name: None, account: None };
        game.times = times(1_234, 5_678);
        game.v = 42;
        store.record("full", StoreEvent::Created(Box::new(game.clone()))).await.expect("created");
        let read = store.load("full").await.expect("load").expect("found");
        assert_eq!(read, game, "{name}");
        let untimed = StoredGame { id: "untimed".into(), clock: None, ..new_game("untimed") };
        store.record("untimed", StoreEvent::Created(Box::new(untimed.clone()))).await.expect("created");
        assert_eq!(store.load("untimed").await.expect("load"), Some(untimed), "{name}");
    }
}

#[tokio::test]
async fn the_archive_is_newest_first_and_limited() {
    for (name, store) in stores().await {
        for id in ["a", "b", "c"] {
            store.record(id, StoreEvent::Created(Box::new(new_game(id)))).await.expect("created");
            let move1 = StoreEvent::Move { ply: 1, uci: "e2e4".into(), times: None, v: 1 };
            store.record(id, move1).await.expect("move");
            let outcome = Outcome::draw(gambit::chess::EndReason::Agreement);
            store.record(id, StoreEvent::Ended { outcome, times: None, v: 2, rated: None }).await.expect("ended");
            // Ends a few milliseconds apart, so the order is by end time.
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let finished = store.finished(2).await.expect("finished");
        let ids: Vec<&str> = finished.iter().map(|g| g.id.as_str()).collect();
        assert_eq!(ids, ["c", "b"], "{name}");
        assert!(finished.iter().all(|g| g.moves == ["e2e4"]), "{name}: {finished:?}");
    }
}

// ---- PostgreSQL only -------------------------------------------------------------------------

#[tokio::test]
async fn postgres_serves_one_server_at_a_time() {
    let Some(url) = services::postgres::database().await else { return };
    // Started together on a new database: one migrates and serves, the others are told why not.
    let (a, b, c) =
        tokio::join!(PostgresStore::connect(&url), PostgresStore::connect(&url), PostgresStore::connect(&url));
    let mut opened: Vec<PostgresStore> = Vec::new();
    for result in [a, b, c] {
        match result {
            Ok(store) => opened.push(store),
            Err(e) => assert!(matches!(e, StoreError::Locked { .. }), "{e}"),
        }
    }
    assert_eq!(opened.len(), 1, "exactly one server has the database");
    let store = opened.pop().expect("one");
    store.record("g1", StoreEvent::Created(Box::new(new_game("g1")))).await.expect("created");
    let second = PostgresStore::connect(&url).await.err().expect("locked").to_string();
    assert!(second.contains("in use by another gambit server"), "{second}");
    // Closed, it lets the next one in, with what it wrote.
    store.close().await;
    let next = PostgresStore::connect(&url).await.expect("the database is free again");
    assert_eq!(next.load("g1").await.expect("load").map(|g| g.id), Some("g1".to_string()));
}

#[tokio::test]
async fn postgres_written_by_a_newer_gambit_is_refused_with_a_reason() {
    let Some(url) = services::postgres::database().await else { return };
    PostgresStore::connect(&url).await.expect("migrate").close().await;
    services::postgres::Postgres::execute(&url, "UPDATE gambit_schema SET version = 99").await;
    let err = PostgresStore::connect(&url).await.err().expect("refused");
    assert!(err.to_string().contains("newer gambit"), "{err}");
}

#[tokio::test]
async fn postgres_damaged_game_fails_only_itself() {
    let Some(url) = services::postgres::database().await else { return };
    let store = PostgresStore::connect(&url).await.expect("connect");
    for id in ["good", "bad"] {
        store.record(id, StoreEvent::Created(Box::new(new_game(id)))).await.expect("created");
    }
    services::postgres::Postgres::execute(&url, "UPDATE games SET rules = 'not json' WHERE id = 'bad'").await;
    let unfinished = store.unfinished().await.expect("unfinished");
    assert_eq!(unfinished.iter().map(|g| g.id.as_str()).collect::<Vec<_>>(), ["good"]);
    let damaged = store.load("bad").await;
    assert!(matches!(damaged, Err(StoreError::Damaged { ref game, .. }) if game == "bad"), "{damaged:?}");
}

#[tokio::test]
async fn postgres_that_cannot_be_reached_is_a_clear_error() {
    if services::postgres::Postgres::get().is_none() {
        return;
    }
    let port = services::free_port();
    let started = std::time::Instant::now();
    let err = PostgresStore::connect(&format!("postgres://gambit:secret@127.0.0.1:{port}/gambit")).await.err();
    let err = err.expect("nobody listens there").to_string();
    assert!(err.contains(&format!("127.0.0.1:{port}")) && !err.contains("secret"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "gave up in {:?}", started.elapsed());
}

/// Every face of every store: games, accounts, ratings and analyses.
async fn every_face() -> Vec<(&'static str, Stores)> {
    let mut stores = vec![("sqlite", Stores::of(Arc::new(SqliteStore::open(":memory:").expect("open sqlite"))))];
    if let Some(url) = services::postgres::database().await {
        stores.push(("postgres", Stores::of(Arc::new(PostgresStore::connect(&url).await.expect("connect postgres")))));
    }
    stores
}

fn seat_of(account: i64, name: &str) -> StoredSeat {
    StoredSeat::Human { token: Some(TokenHash::of(name)), name: Some(name.into()), account: Some(account) }
}

#[tokio::test]
async fn accounts_sessions_and_ratings_read_back() {
    for (name, Stores { games, accounts, ratings: rating_store, .. }) in every_face().await {
        eprintln!("store: {name}");
        let alice = accounts.create_account("Alice".into(), "hash-a".into(), vec![1; 32], 1000).await.expect("create");
        let alice = alice.expect("a new name");
        assert_eq!(accounts.create_account("ALICE".into(), "h".into(), vec![2; 32], 1000).await.expect("ok"), None);
        let bob = accounts.create_account("Bob".into(), "hash-b".into(), vec![3; 32], 1000).await.expect("ok");
        let bob = bob.expect("a new name");
        let found = accounts.account("aLiCe").await.expect("read").expect("found");
        assert_eq!(found, alice);
        assert_eq!(
            (found.username.as_str(), found.password_hash.as_str(), found.seat_key.len()),
            ("Alice", "hash-a", 32)
        );
        assert_eq!(accounts.account("carol").await.expect("read"), None);

        // Sessions: found while used, gone once idle too long or ended.
        let (s1, s2) = (TokenHash::of("session-1"), TokenHash::of("session-2"));
        accounts.create_session(s1, alice.id, 10_000).await.expect("session");
        accounts.create_session(s2, alice.id, 10_000).await.expect("session");
        assert_eq!(accounts.session(s1, 20_000, 30_000).await.expect("read").map(|a| a.id), Some(alice.id));
        // Used at 20 000: still alive at 45 000, though 35 000 after it was made.
        assert!(accounts.session(s1, 45_000, 30_000).await.expect("read").is_some());
        assert_eq!(accounts.session(s2, 45_000, 30_000).await.expect("read"), None, "idle too long");
        assert_eq!(accounts.session(s2, 10_000, 30_000).await.expect("read"), None, "and deleted");
        accounts.end_session(s1).await.expect("end");
        assert_eq!(accounts.session(s1, 46_000, 30_000).await.expect("read"), None);

        // Log out everywhere else; a new password ends every other session, in one change.
        let [s3, s4, s5] = ["session-3", "session-4", "session-5"].map(TokenHash::of);
        for s in [s3, s4] {
            accounts.create_session(s, alice.id, 100_000).await.expect("session");
        }
        accounts.create_session(TokenHash::of("bob-session"), bob.id, 100_000).await.expect("session");
        accounts.end_sessions(alice.id, Some(s3)).await.expect("end others");
        let alive = |s: TokenHash| {
            let accounts = accounts.clone();
            async move { accounts.session(s, 100_001, 30_000).await.expect("read").map(|a| a.id) }
        };
        assert_eq!((alive(s3).await, alive(s4).await), (Some(alice.id), None));
        assert_eq!(alive(TokenHash::of("bob-session")).await, Some(bob.id), "another account's stay");
        accounts.create_session(s5, alice.id, 100_000).await.expect("session");
        accounts.set_password(alice.id, "hash-new".into(), Some(s5)).await.expect("new password");
        assert_eq!((alive(s3).await, alive(s5).await), (None, Some(alice.id)));
        assert_eq!(accounts.account("alice").await.expect("read").expect("found").password_hash, "hash-new");
        accounts.end_sessions(alice.id, None).await.expect("end all");
        assert_eq!(alive(s5).await, None);

        // Names that look like a username find it (TR39 skeletons, ignoring case).
        for like in ["alice", "ALICE", "Alic\u{435}"] {
            let found = accounts.username_like(&name_key(like)).await.expect("read");
            assert_eq!(found.as_deref(), Some("Alice"), "{like:?}");
        }
        assert_eq!(accounts.username_like(&name_key("Alicia")).await.expect("read"), None);

        // A rated game: the seats' accounts, the flag, the rating change, once only.
        let mut game = new_game("rated1");
        (game.white, game.black, game.rated) = (seat_of(alice.id, "Alice"), seat_of(bob.id, "Bob"), true);
        games.record("rated1", StoreEvent::Created(Box::new(game))).await.expect("created");
        assert_eq!(accounts.playing(alice.id).await.expect("read"), ["rated1"]);
        let result =
            RatedResult { white: alice.id, black: bob.id, category: Category::Blitz, white_score: 1.0, at_ms: 5000 };
        let rated = Some(RatedEnd { result, update: ratings::rate });
        assert_eq!(rating_store.rating_change("rated1").await.expect("read"), None, "not before the end");
        let outcome = Outcome::from_result("1-0", "resignation").expect("outcome");
        games.record("rated1", StoreEvent::Ended { outcome, times: None, v: 3, rated }).await.expect("ended");
        let change = rating_store.rating_change("rated1").await.expect("read").expect("rated with the end");
        assert!(change.white.change > 0 && change.black.change < 0, "{change:?}");
        // Replayed (a restart may replay an ending), the end rates nothing twice.
        let again = Some(RatedEnd { result: RatedResult { white_score: 0.0, ..result }, update: ratings::rate });
        games.record("rated1", StoreEvent::Ended { outcome, times: None, v: 3, rated: again }).await.expect("again");
        assert_eq!(rating_store.rating_change("rated1").await.expect("read"), Some(change), "a game is rated once");
        // An end that cannot be stored (no such game) changes no rating either.
        let lost = StoreEvent::Ended { outcome, times: None, v: 3, rated };
        assert!(games.record("nosuch", lost).await.is_err());
        assert_eq!(accounts.ratings(alice.id).await.expect("read")[0].games, 1, "only rated1 counted");
        let back = games.load("rated1").await.expect("load").expect("found");
        assert_eq!((back.rated, back.ratings), (true, Some(change)));
        assert_eq!(back.white, seat_of(alice.id, "Alice"));
        assert!(accounts.playing(alice.id).await.expect("read").is_empty());
        let results = accounts.results(alice.id).await.expect("read");
        assert_eq!((results.wins, results.draws, results.losses), (1, 0, 0));
        assert_eq!(accounts.results(bob.id).await.expect("read").losses, 1);
        let (total, page) = accounts.games_of(bob.id, 0, 20).await.expect("read");
        assert_eq!((total, page.len(), page[0].id.as_str()), (1, 1, "rated1"));
        assert_eq!(accounts.games_of(bob.id, 20, 20).await.expect("read").1.len(), 0);

        // Many more games: the deviations fall until both are on the leaderboard, best first.
        assert!(accounts.leaderboard(Category::Blitz, 110.0, 100).await.expect("read").is_empty());
        for n in 0..30 {
            let score = if n % 3 == 0 { 0.0 } else { 1.0 };
            let result = RatedResult { white_score: score, at_ms: 10_000 + n, ..result };
            let id = format!("more{n}");
            let mut game = new_game(&id);
            (game.white, game.black, game.rated) = (seat_of(alice.id, "Alice"), seat_of(bob.id, "Bob"), true);
            games.record(&id, StoreEvent::Created(Box::new(game))).await.expect("created");
            games.record(&id, StoreEvent::Move { ply: 1, uci: "e2e4".into(), times: None, v: 2 }).await.expect("move");
            let rated = Some(RatedEnd { result, update: ratings::rate });
            games.record(&id, StoreEvent::Ended { outcome, times: None, v: 3, rated }).await.expect("ended");
        }
        let ratings = accounts.ratings(alice.id).await.expect("read");
        assert_eq!(ratings.len(), 1);
        assert_eq!((ratings[0].category, ratings[0].games), (Category::Blitz, 31));
        assert!(ratings[0].rd < 110.0, "{:?}", ratings[0]);
        let history = accounts.rating_history(alice.id).await.expect("read");
        assert_eq!(history.len(), 31);
        assert!(history.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
        let board = accounts.leaderboard(Category::Blitz, 110.0, 100).await.expect("read");
        let names: Vec<&str> = board.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Alice", "Bob"], "Alice won two in three");
        assert!(accounts.leaderboard(Category::Rapid, 110.0, 100).await.expect("read").is_empty());
        assert_eq!(accounts.leaderboard(Category::Blitz, 110.0, 1).await.expect("read").len(), 1);
    }
}

#[tokio::test]
async fn relations_and_notifications_read_back_and_outlive_the_process() {
    let dir = crate::server_support::scratch("store-club");
    let file = dir.join("club.db");
    let file_store = || Stores::of(Arc::new(SqliteStore::open(file.to_str().expect("path")).expect("open file")));
    let mut faces = every_face().await;
    faces.push(("sqlite file", file_store()));
    for (name, Stores { games, accounts, relations, notifications, .. }) in faces {
        eprintln!("store: {name}");
        let mut ids = Vec::new();
        for who in ["Ann", "Bo", "Cy"] {
            ids.push(
                accounts.create_account(who.into(), "h".into(), vec![1; 32], 0).await.expect("ok").expect("new").id,
            );
        }
        let (ann, bo, cy) = (ids[0], ids[1], ids[2]);
        relations.set_relation(ann, bo, Some(Relation::Follow), 10).await.expect("follow");
        relations.set_relation(ann, cy, Some(Relation::Follow), 11).await.expect("follow");
        relations.set_relation(cy, bo, Some(Relation::Follow), 12).await.expect("follow");
        relations.set_relation(bo, ann, Some(Relation::Block), 13).await.expect("block");
        assert_eq!(relations.relation(ann, bo).await.expect("read"), Some(Relation::Follow));
        assert_eq!(relations.relation(bo, cy).await.expect("read"), None);
        let followed: Vec<String> =
            relations.related(ann, Relation::Follow).await.expect("read").into_iter().map(|a| a.username).collect();
        assert_eq!(followed, ["Bo", "Cy"], "{name}: by name");
        let mut followers = relations.relating(bo, Relation::Follow).await.expect("read");
        followers.sort();
        assert_eq!(followers, [ann, cy]);
        assert_eq!(relations.relating(ann, Relation::Block).await.expect("read"), [bo]);
        // Blocking replaces following; clearing forgets.
        relations.set_relation(ann, bo, Some(Relation::Block), 20).await.expect("block");
        assert_eq!(relations.relation(ann, bo).await.expect("read"), Some(Relation::Block));
        assert_eq!(relations.relating(bo, Relation::Follow).await.expect("read"), [cy]);
        relations.set_relation(ann, bo, None, 21).await.expect("clear");
        assert_eq!(relations.relation(ann, bo).await.expect("read"), None);

        // Notifications: newest first, the oldest beyond what is kept go, read ones stay read.
        for n in 0..5 {
            let id = notifications
                .add_notification(ann, "challenge".into(), format!("{{\"text\":\"n{n}\"}}"), 100 + n, 4)
                .await
                .expect("add");
            assert!(id > 0);
        }
        notifications.add_notification(bo, "friendGame".into(), "{}".into(), 200, 4).await.expect("add");
        let (unread, list) = notifications.notifications(ann, 3).await.expect("list");
        assert_eq!(unread, 4, "{name}: the fifth oldest went");
        let bodies: Vec<&str> = list.iter().map(|n| n.body.as_str()).collect();
        assert_eq!(bodies, [r#"{"text":"n4"}"#, r#"{"text":"n3"}"#, r#"{"text":"n2"}"#]);
        assert_eq!(notifications.read_notifications(ann, Some(vec![list[0].id, list[1].id])).await.expect("read"), 2);
        // Another's ids change nothing of theirs.
        assert_eq!(notifications.read_notifications(bo, Some(vec![list[2].id])).await.expect("read"), 1);
        let (_, list) = notifications.notifications(ann, 10).await.expect("list");
        assert_eq!(list.iter().map(|n| n.read).collect::<Vec<_>>(), [true, true, false, false]);
        assert_eq!(notifications.read_notifications(ann, None).await.expect("all"), 0);
        games.close().await;
    }
    // What the file holds is still there once it is opened again (as soon as the closed
    // store's thread has let go of the file).
    let reopened = async {
        loop {
            match SqliteStore::open(file.to_str().expect("path")) {
                Ok(store) => return Stores::of(Arc::new(store)),
                Err(StoreError::Locked { .. }) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
                Err(e) => panic!("reopen: {e}"),
            }
        }
    };
    let Stores { accounts, relations, notifications, .. } =
        tokio::time::timeout(std::time::Duration::from_secs(10), reopened).await.expect("reopened in time");
    let ann = accounts.account("ann").await.expect("read").expect("kept").id;
    assert_eq!(relations.relating(ann, Relation::Block).await.expect("read").len(), 1);
    let (unread, list) = notifications.notifications(ann, 10).await.expect("list");
    assert_eq!((unread, list.len()), (0, 4));
}
