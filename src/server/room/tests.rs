//! Room tests: the actor through its handle, under paused time where clocks matter.

#![cfg(test)]

use std::time::Duration;

use super::*;
use crate::chess::EndReason;
use crate::protocol::{ClockSpec, SeatSpec, Status};
use crate::server::metrics::Metrics;
use crate::server::store::{GameStore, NoStore, SqliteStore};
use tokio::sync::broadcast;

async fn join(room: &RoomHandle, color: Color) -> Result<Seated, Refusal> {
    room.call(Command::Join { color: Some(color), player: Player::default() }).await?.into_seated()
}

async fn act(room: &RoomHandle, token: String, action: Action) -> Result<(), Refusal> {
    room.call(Command::act(token, action)).await?.into_done()
}

async fn state(room: &RoomHandle) -> Result<GameState, Refusal> {
    room.call(Command::State).await?.into_state()
}

fn context() -> RoomContext {
    RoomContext {
        config: RoomConfig::default(),
        metrics: Arc::new(Metrics::new()),
        store: Arc::new(NoStore),
        ratings: Arc::new(SqliteStore::open(":memory:").expect("store")),
        lobby: mpsc::unbounded_channel().0,
        relay: None,
        notices: None,
    }
}

fn timed(initial_ms: u64, fen: Option<&str>) -> NewGame {
    NewGame {
        fen: fen.map(str::to_string),
        clock: Some(ClockSpec { initial_ms, increment_ms: 0 }),
        as_side: Some(Color::White),
        ..NewGame::default()
    }
}

/// The next versioned event's JSON.
async fn next_event(rx: &mut broadcast::Receiver<Broadcast>) -> serde_json::Value {
    loop {
        let b = rx.recv().await.expect("room open");
        if b.v.is_some() {
            return serde_json::from_str(&b.text).expect("json");
        }
    }
}

/// Under paused time the room's own timers end a game with nobody sending anything: a first
/// move not made in time aborts it, with no result and no time used (no clock runs before both
/// sides have moved); once both have moved, the flag falls exactly when the time is up.
#[tokio::test(start_paused = true)]
async fn the_first_move_wait_aborts_and_the_flag_falls_with_no_message_under_paused_time() {
    let created = spawn("paused01".into(), timed(60_000, None), Player::default(), context()).expect("room").created;
    let mut rx = created.sub.rx;
    tokio::time::sleep(Duration::from_secs(3600)).await; // waiting: nothing runs
    let start = tokio::time::Instant::now();
    join(&created.handle, Color::Black).await.expect("join");
    assert_eq!(next_event(&mut rx).await["type"], "seats");
    let state = next_event(&mut rx).await;
    assert_eq!(state["clock"]["white_ms"], 60_000, "{state}");
    assert_eq!(state["clock"]["running"], serde_json::Value::Null, "{state}");
    assert_eq!(state["clock"]["first_move_ms"], 30_000, "{state}");
    let end = next_event(&mut rx).await;
    assert_eq!(tokio::time::Instant::now() - start, Duration::from_secs(30));
    assert_eq!(
        (end["type"].as_str(), end["result"].as_str(), end["reason"].as_str()),
        (Some("end"), Some("*"), Some("aborted"))
    );
    assert_eq!((end["clock"]["white_ms"].as_u64(), end["clock"]["black_ms"].as_u64()), (Some(60_000), Some(60_000)));

    let created = spawn("paused1b".into(), timed(60_000, None), Player::default(), context()).expect("room").created;
    let white = created.seat.clone().expect("seat").1;
    let mut rx = created.sub.rx;
    let black = join(&created.handle, Color::Black).await.expect("join").token;
    tokio::time::sleep(Duration::from_secs(20)).await;
    act(&created.handle, white, Action::play("e2e4")).await.expect("move");
    tokio::time::sleep(Duration::from_secs(25)).await;
    act(&created.handle, black, Action::play("e7e5")).await.expect("reply");
    let start = tokio::time::Instant::now();
    let mut moves = Vec::new();
    let end = loop {
        let e = next_event(&mut rx).await;
        if e["type"] == "move" {
            moves.push(e["clock"].clone());
        }
        if e["type"] == "end" {
            break e;
        }
    };
    // The first moves cost nothing; Black's started White's clock.
    assert_eq!(moves[0]["first_move_ms"], 30_000, "{moves:?}");
    assert_eq!((moves[0]["white_ms"].as_u64(), moves[0]["running"].as_str()), (Some(60_000), None), "{moves:?}");
    assert_eq!((moves[1]["black_ms"].as_u64(), moves[1]["running"].as_str()), (Some(60_000), Some("white")));
    assert_eq!(moves[1]["first_move_ms"], serde_json::Value::Null, "{moves:?}");
    assert_eq!(tokio::time::Instant::now() - start, Duration::from_secs(60));
    assert_eq!(
        (end["type"].as_str(), end["result"].as_str(), end["reason"].as_str()),
        (Some("end"), Some("0-1"), Some("timeout"))
    );
    assert_eq!(end["clock"]["white_ms"], 0, "{end}");
}

#[tokio::test(start_paused = true)]
async fn a_flag_against_a_lone_knight_draws() {
    let spec = timed(5_000, Some("4k1n1/8/8/8/8/8/8/R3K3 w - - 0 1"));
    let created = spawn("paused02".into(), spec, Player::default(), context()).expect("room").created;
    let white = created.seat.clone().expect("seat").1;
    let mut rx = created.sub.rx;
    let black = join(&created.handle, Color::Black).await.expect("join").token;
    act(&created.handle, white, Action::play("a1a2")).await.expect("move");
    act(&created.handle, black, Action::play("g8f6")).await.expect("reply");
    let end = loop {
        let e = next_event(&mut rx).await;
        if e["type"] == "end" {
            break e;
        }
    };
    assert_eq!(end["result"], "1/2-1/2", "{end}");
    assert_eq!(end["reason"], "timeout", "{end}");
}

#[tokio::test(start_paused = true)]
async fn undo_keeps_the_time_used_and_runs_the_side_to_move() {
    let created = spawn("paused03".into(), timed(60_000, None), Player::default(), context()).expect("room").created;
    let white = created.seat.clone().expect("seat").1;
    let mut rx = created.sub.rx;
    let black = join(&created.handle, Color::Black).await.expect("join").token;
    act(&created.handle, white.clone(), Action::play("e2e4")).await.expect("move");
    act(&created.handle, black.clone(), Action::play("e7e5")).await.expect("reply");
    tokio::time::sleep(Duration::from_secs(10)).await;
    act(&created.handle, white.clone(), Action::play("g1f3")).await.expect("move");
    tokio::time::sleep(Duration::from_secs(5)).await;
    act(&created.handle, black.clone(), Action::play("b8c6")).await.expect("reply");
    // White offers to take back (both have moved), Black accepts: both moves go.
    act(&created.handle, white, Action::Undo).await.expect("offer");
    act(&created.handle, black, Action::Undo).await.expect("accept");
    // The state that follows the moves (the one after the join came before them).
    let mut moved = false;
    let state = loop {
        let e = next_event(&mut rx).await;
        moved |= e["type"] == "move";
        if moved && e["type"] == "state" {
            break e;
        }
    };
    assert_eq!(state["moves"], serde_json::json!(["e2e4", "e7e5"]), "{state}");
    assert_eq!(state["clock"]["white_ms"], 50_000, "{state}");
    assert_eq!(state["clock"]["black_ms"], 55_000, "{state}");
    assert_eq!(state["clock"]["running"], "white", "{state}");
}

#[test]
fn the_grace_grows_with_the_time_control() {
    let grace = ClaimGrace::default();
    let clock = |initial_s: u64, increment_s: u64| {
        Some(ClockSpec { initial_ms: initial_s * 1000, increment_ms: increment_s * 1000 })
    };
    assert_eq!(grace.for_clock(clock(60, 0)), Duration::from_secs(15));
    assert_eq!(grace.for_clock(clock(600, 0)), Duration::from_secs(30));
    assert_eq!(grace.for_clock(clock(900, 10)), Duration::from_secs(65));
    assert_eq!(grace.for_clock(clock(3 * 3600, 0)), Duration::from_secs(120));
    assert_eq!(grace.for_clock(None), Duration::from_secs(120));
}

/// The next `seats` event.
async fn next_seats(rx: &mut broadcast::Receiver<Broadcast>) -> serde_json::Value {
    loop {
        let e = next_event(rx).await;
        if e["type"] == "seats" {
            return e;
        }
    }
}

fn untimed() -> NewGame {
    NewGame { clock: None, ..timed(60_000, None) }
}

/// Black drops; within the 120 s grace of an untimed game White cannot claim, and once
/// Black is back there is nothing to claim: the game goes on.
#[tokio::test(start_paused = true)]
async fn a_reconnect_within_the_grace_keeps_the_game() {
    let created = spawn("claim001".into(), untimed(), Player::default(), context()).expect("room").created;
    let white = created.seat.clone().expect("seat").1;
    let mut rx = created.sub.rx;
    let black = join(&created.handle, Color::Black).await.expect("join").token;
    next_seats(&mut rx).await;
    created.handle.tell(Command::Leave { token: black.clone() }).await;
    let away = next_seats(&mut rx).await;
    assert_eq!(away["seats"]["black"]["online"], false, "{away}");
    assert_eq!(away["claim"], serde_json::json!({"by": "white", "in_ms": 120_000}), "{away}");
    tokio::time::sleep(Duration::from_secs(100)).await;
    let early = act(&created.handle, white.clone(), Action::Claim { result: ClaimKind::Win }).await.unwrap_err();
    assert!(early.message.contains("claim in 20 s"), "{early:?}");
    let now = state(&created.handle).await.expect("state");
    assert_eq!(now.claim.map(|c| (c.by, c.in_ms)), Some((Color::White, 20_000)));
    created.handle.call(Command::Resume { token: black.clone(), account: None, v: None }).await.expect("resume");
    let back = next_seats(&mut rx).await;
    assert_eq!((back["seats"]["black"]["online"].as_bool(), back["claim"].is_null()), (Some(true), true), "{back}");
    tokio::time::sleep(Duration::from_secs(60)).await;
    let refused = act(&created.handle, white, Action::Claim { result: ClaimKind::Win }).await.unwrap_err();
    assert!(refused.message.contains("connected"), "{refused:?}");
    assert!(act(&created.handle, black, Action::Claim { result: ClaimKind::Win }).await.is_err(), "White is here");
    assert_eq!(state(&created.handle).await.expect("state").status, crate::protocol::Status::Ongoing);
}

/// Black drops and stays away: when the grace runs out a `seats` event tells White, with
/// no message needed, and White's claim ends the game.
#[tokio::test(start_paused = true)]
async fn a_claim_after_the_grace_ends_the_game() {
    for (kind, result) in [(ClaimKind::Win, "1-0"), (ClaimKind::Draw, "1/2-1/2")] {
        // 3+0: a grace of 15 s.
        let created =
            spawn("claim002".into(), timed(180_000, None), Player::default(), context()).expect("room").created;
        let white = created.seat.clone().expect("seat").1;
        let mut rx = created.sub.rx;
        let black = join(&created.handle, Color::Black).await.expect("join").token;
        next_seats(&mut rx).await;
        act(&created.handle, white.clone(), Action::play("e2e4")).await.expect("move");
        let start = tokio::time::Instant::now();
        created.handle.tell(Command::Leave { token: black }).await;
        assert_eq!(next_seats(&mut rx).await["claim"]["in_ms"], 15_000);
        let open = next_seats(&mut rx).await;
        assert_eq!(tokio::time::Instant::now() - start, Duration::from_secs(15));
        assert_eq!(open["claim"], serde_json::json!({"by": "white", "in_ms": 0}), "{open}");
        act(&created.handle, white, Action::Claim { result: kind }).await.expect("claim");
        let end = next_event(&mut rx).await;
        assert_eq!((end["type"].as_str(), end["result"].as_str()), (Some("end"), Some(result)), "{end}");
        assert_eq!(end["reason"], "abandoned");
    }
}

/// Nobody can claim against a bot, nor a game that has not started.
#[tokio::test(start_paused = true)]
async fn claims_need_an_absent_person() {
    let spec = NewGame { black: SeatSpec::Bot { level: 1 }, ..untimed() };
    let created = spawn("claim003".into(), spec, Player::default(), context()).expect("room").created;
    let white = created.seat.clone().expect("seat").1;
    let e = act(&created.handle, white, Action::Claim { result: ClaimKind::Win }).await.unwrap_err();
    assert!(e.message.contains("computer"), "{e:?}");
    let waiting = spawn("claim004".into(), untimed(), Player::default(), context()).expect("room").created;
    let white = waiting.seat.clone().expect("seat").1;
    let e = act(&waiting.handle, white, Action::Claim { result: ClaimKind::Draw }).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotYourTurn, "{e:?}");
}

/// A store that refuses moves (a full disk, say) and takes everything else.
struct RefusesMoves;

impl GameStore for RefusesMoves {
    fn record(
        &self,
        _game: &str,
        event: crate::server::store::StoreEvent,
    ) -> futures::future::BoxFuture<'static, Result<(), StoreError>> {
        let refused = matches!(event, crate::server::store::StoreEvent::Move { .. });
        Box::pin(async move {
            if refused {
                Err(StoreError::Write("disk full".into()))
            } else {
                Ok(())
            }
        })
    }
    fn unfinished(&self) -> futures::future::BoxFuture<'static, Result<Vec<StoredGame>, StoreError>> {
        NoStore.unfinished()
    }
    fn finished(&self, limit: usize) -> futures::future::BoxFuture<'static, Result<Vec<StoredGame>, StoreError>> {
        NoStore.finished(limit)
    }
    fn load(&self, game: &str) -> futures::future::BoxFuture<'static, Result<Option<StoredGame>, StoreError>> {
        NoStore.load(game)
    }
    fn close(&self) -> futures::future::BoxFuture<'static, ()> {
        NoStore.close()
    }
}

/// Durable before visible: a move the store does not take is neither played nor sent.
#[tokio::test]
async fn a_move_the_store_refuses_is_not_played() {
    let ctx = RoomContext { store: Arc::new(RefusesMoves), ..context() };
    let created = spawn("refused1".into(), untimed(), Player::default(), ctx).expect("room").created;
    let white = created.seat.clone().expect("seat").1;
    let mut rx = created.sub.rx;
    join(&created.handle, Color::Black).await.expect("join");
    next_seats(&mut rx).await;
    let before = state(&created.handle).await.expect("state");
    let e = act(&created.handle, white, Action::play("e2e4")).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::ServerError, "{e:?}");
    assert!(e.message.contains("disk full"), "{e:?}");
    assert_eq!(state(&created.handle).await.expect("state"), before);
    assert!(rx.try_recv().is_err(), "nothing was broadcast");
}

/// An archived game is shown as the room restored from it shows it: the same state (at the
/// version the restored room starts from) and the same PGN, with no room made.
#[tokio::test]
async fn an_archived_game_shows_as_its_restored_room() {
    let stored = StoredGame {
        id: "archive1".into(),
        variant: crate::chess::Variant::Standard,
        initial_fen: crate::chess::Variant::Standard.initial_fen().into(),
        rules: crate::chess::Rules::default(),
        white: crate::server::store::StoredSeat::Human {
            token: Some(crate::server::token::TokenHash::of("a seat token")),
            name: Some("Ann".into()),
            account: None,
        },
        black: crate::server::store::StoredSeat::Bot { level: 1 },
        clock: Some(crate::server::store::StoredClock {
            initial_ms: 60_000,
            increment_ms: 1_000,
            days: None,
            berserkable: false,
        }),
        times: Some(crate::server::store::StoredTimes { white_ms: 41_000, black_ms: 57_500 }),
        moves: ["f2f3", "e7e5", "g2g4", "d8h4"].map(String::from).to_vec(),
        v: 9,
        outcome: None,
        created_ms: 1_700_000_000_000,
        ended_ms: Some(1_700_000_060_000),
        score: Default::default(),
        chat: Vec::new(),
        rated: false,
        ratings: None,
    };
    let (shown, pgn) = archived(&stored).expect("archived");
    assert_eq!((shown.v, shown.status, shown.reason), (9 + RESTART_GAP, Status::Ended, Some(EndReason::Checkmate)));
    let (handle, _) = restore(stored, context()).expect("restored");
    // The restored room's first event is its state, one version on.
    let live = state(&handle).await.expect("state");
    assert_eq!(GameState { v: shown.v + 1, ..shown }, live);
    assert_eq!(pgn, handle.call(Command::Pgn).await.and_then(Reply::into_pgn).expect("pgn"));
    assert!(pgn.contains("[White \"Ann\"]") && pgn.contains("0-1"), "{pgn}");
}

/// A correspondence game of one day a move: no first-move wait and no idle end, both players
/// away for hours; each move gives the mover the whole day again; once Black's day is over
/// the game goes on (a late move still counts) until White claims it, and the claim wins on
/// time. An early claim says how long is left; the mover cannot claim.
#[tokio::test(start_paused = true)]
async fn a_correspondence_deadline_is_claimed_not_flagged() {
    let mut config = RoomConfig { idle_timeout: Duration::from_secs(60), ..RoomConfig::default() };
    config.first_move_timeout = Duration::from_secs(30);
    let ctx = RoomContext { config, ..context() };
    let spec = NewGame { days: Some(1), ..untimed() };
    let created = spawn("corres01".into(), spec, Player::default(), ctx).expect("room").created;
    let white = created.seat.clone().expect("seat").1;
    let black = join(&created.handle, Color::Black).await.expect("join").token;
    for token in [&white, &black] {
        created.handle.tell(Command::Leave { token: token.clone() }).await;
    }
    let day = Duration::from_secs(24 * 60 * 60);
    tokio::time::sleep(Duration::from_secs(5 * 60 * 60)).await;
    let now = state(&created.handle).await.expect("state");
    assert_eq!(now.status, Status::Ongoing, "no first-move abort, no idle end");
    let clock = now.clock.expect("a clock");
    assert_eq!((clock.days, clock.running, clock.white_ms), (Some(1), Some(Color::White), 19 * 60 * 60 * 1000));
    assert!(now.claim.is_some_and(|c| c.by == Color::Black), "{:?}", now.claim);
    act(&created.handle, white.clone(), Action::play("e2e4")).await.expect("move");
    let clock = state(&created.handle).await.expect("state").clock.expect("clock");
    assert_eq!(
        (clock.white_ms, clock.black_ms, clock.running),
        (day.as_millis() as u64, day.as_millis() as u64, Some(Color::Black))
    );

    tokio::time::sleep(day - Duration::from_secs(3600)).await;
    let early = act(&created.handle, white.clone(), Action::Claim { result: ClaimKind::Win }).await.unwrap_err();
    assert!(early.message.contains("you can claim in 1 h"), "{early:?}");
    let mover = act(&created.handle, black.clone(), Action::Claim { result: ClaimKind::Win }).await.unwrap_err();
    assert!(mover.message.contains("it is your move"), "{mover:?}");
    tokio::time::sleep(Duration::from_secs(2 * 3600)).await;
    assert_eq!(state(&created.handle).await.expect("state").status, Status::Ongoing, "no flag falls by itself");
    act(&created.handle, black.clone(), Action::play("e7e5")).await.expect("a late move counts until claimed");
    tokio::time::sleep(day + Duration::from_secs(1)).await;
    act(&created.handle, black, Action::Claim { result: ClaimKind::Win }).await.expect("claim");
    let end = state(&created.handle).await.expect("state");
    assert_eq!(serde_json::to_value(end.result).expect("json"), serde_json::json!("0-1"));
    assert_eq!(end.reason, Some(EndReason::Timeout));
}

#[test]
fn correspondence_days_are_lichess_choices_and_not_with_a_clock() {
    for days in [0, 4, 15] {
        let refused = check(&NewGame { days: Some(days), ..untimed() }).unwrap_err();
        assert!(refused.message.contains("1, 2, 3, 5, 7, 10 or 14 days"), "{refused:?}");
    }
    let both = check(&NewGame { days: Some(3), ..timed(60_000, None) }).unwrap_err();
    assert!(both.message.contains("either a clock or days"), "{both:?}");
    assert!(check(&NewGame { days: Some(14), ..untimed() }).is_ok());
}
