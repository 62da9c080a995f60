//! The SQLite store: changes written and read back, refusals, and files it must not open.

use super::*;

fn new_game(id: &str) -> StoredGame {
    StoredGame {
        id: id.into(),
        variant: Variant::Standard,
        initial_fen: Variant::Standard.initial_fen().into(),
        rules: Rules::default(),
        white: StoredSeat::Human { token: Some(TokenHash::of("white-token")) },
        black: StoredSeat::Bot { level: 3 },
        clock: Some(StoredClock { initial_ms: 60_000, increment_ms: 1000 }),
        times: None,
        moves: Vec::new(),
        v: 0,
        outcome: None,
        created_ms: 1_700_000_000_000,
        ended_ms: None,
    }
}

fn times(white_ms: u64, black_ms: u64) -> Option<StoredTimes> {
    Some(StoredTimes { white_ms, black_ms })
}

#[tokio::test]
async fn a_game_and_its_changes_read_back() {
    let store = SqliteStore::open(":memory:").expect("open");
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
    assert_eq!((g.white, g.black, g.clock), (new_game("g1").white, new_game("g1").black, new_game("g1").clock));
    assert!(store.finished(10).await.expect("finished").is_empty());

    let outcome = Outcome::win(crate::chess::Color::Black, crate::chess::EndReason::Resignation);
    let ended = StoreEvent::Ended { outcome, times: None, v: 9 };
    store.record("g1", ended).await.expect("ended");
    assert!(store.unfinished().await.expect("unfinished").is_empty());
    let finished = store.finished(10).await.expect("finished");
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0].outcome, Some(outcome));
    assert!(finished[0].ended_ms.is_some());
    assert_eq!(store.load("g1").await.expect("load").expect("found").moves.len(), 2);
    assert_eq!(store.load("nope").await.expect("load"), None);
}

#[tokio::test]
async fn refused_changes_leave_the_rest_of_the_batch_alone() {
    let store = SqliteStore::open(":memory:").expect("open");
    // Queue everything before waiting, so the store commits it as one batch.
    let created = store.record("g1", StoreEvent::Created(Box::new(new_game("g1"))));
    let again = store.record("g1", StoreEvent::Created(Box::new(new_game("g1"))));
    let orphan = store.record("g2", StoreEvent::Move { ply: 1, uci: "e2e4".into(), times: None, v: 1 });
    let twice = store.record("g1", StoreEvent::Move { ply: 1, uci: "e2e4".into(), times: None, v: 1 });
    let clash = store.record("g1", StoreEvent::Move { ply: 1, uci: "d2d4".into(), times: None, v: 1 });
    let seat = store.record("g9", StoreEvent::Seat { side: Color::Black, token: TokenHash::of("t") });
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

#[tokio::test]
async fn seats_discards_and_closing() {
    let store = SqliteStore::open(":memory:").expect("open");
    let mut open = new_game("g1");
    open.black = StoredSeat::Human { token: None };
    store.record("g1", StoreEvent::Created(Box::new(open))).await.expect("created");
    let token = TokenHash::of("black-token");
    store.record("g1", StoreEvent::Seat { side: Color::Black, token }).await.expect("seat");
    let g = store.load("g1").await.expect("load").expect("found");
    assert_eq!(g.black, StoredSeat::Human { token: Some(token) });
    store.record("g1", StoreEvent::Discarded).await.expect("discarded");
    assert_eq!(store.load("g1").await.expect("load"), None);
    store.close().await;
    let late = store.record("g1", StoreEvent::Created(Box::new(new_game("g1")))).await;
    assert!(matches!(late, Err(StoreError::Closed)), "{late:?}");
    assert!(matches!(store.unfinished().await, Err(StoreError::Closed)));
}

#[test]
fn a_file_from_a_newer_server_is_refused_with_a_reason() {
    let dir = std::env::temp_dir().join(format!("gambit-newer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("newer.db");
    let _ = std::fs::remove_file(&path);
    {
        let conn = Connection::open(&path).expect("create");
        conn.pragma_update(None, "user_version", schema::LATEST as i64 + 1).expect("version");
    }
    let err = SqliteStore::open(path.to_str().expect("utf-8")).err().expect("refused");
    assert!(err.to_string().contains("newer gambit"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
