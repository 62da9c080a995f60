//! The shared follow cases (tests/data/protocol/follow.json) through the Rust follower,
//! `gambit::protocol::Follower`. tests/js/ runs the same cases through the web client's
//! follower (client/js/follow.js), so the two keep one rule.

use gambit::chess::{EndReason, Outcome};
use gambit::protocol::{Applied, Follower, GameResult, GameState, ServerMessage};
use serde_json::{json, Value};

fn outcome(applied: Applied) -> &'static str {
    match applied {
        Applied::Applied => "applied",
        Applied::Ignored => "ignored",
        Applied::Resync => "resync",
    }
}

/// The fields a case expects, read off the follower as the JSON the server would send.
fn observed(state: &GameState, awaiting: bool) -> Value {
    let state = serde_json::to_value(state).expect("state serialises");
    json!({
        "v": state["v"], "moves": state["moves"], "san": state["san"], "fen": state["fen"],
        "turn": state["turn"], "status": state["status"], "result": state["result"],
        "reason": state["reason"], "offer": state["offer"], "match": state["match"], "next": state["next"],
        "opening": state.get("opening").cloned().unwrap_or(Value::Null),
        "awaiting": awaiting,
    })
}

#[test]
fn the_shared_follow_cases() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/protocol/follow.json");
    let text = std::fs::read_to_string(path).expect("tests/data/protocol/follow.json");
    let file: Value = serde_json::from_str(&text).expect("the cases are JSON");
    let cases = file["cases"].as_array().expect("a list of cases");
    assert!(cases.len() >= 10, "only {} cases", cases.len());
    for case in cases {
        let name = case["name"].as_str().unwrap_or("?");
        let mut follower: Option<Follower> = None;
        if !case["state"].is_null() {
            let state: ServerMessage = serde_json::from_value(case["state"].clone())
                .unwrap_or_else(|e| panic!("{name}: the start is not a server message: {e}"));
            assert_eq!(Follower::follow(&mut follower, &state), Applied::Applied, "{name}: the start state");
        }
        let events = case["events"].as_array().expect("events");
        let outcomes = case["outcomes"].as_array().expect("outcomes");
        assert_eq!(events.len(), outcomes.len(), "{name}: one outcome per event");
        for (i, (event, expected)) in events.iter().zip(outcomes).enumerate() {
            let message: ServerMessage = serde_json::from_value(event.clone())
                .unwrap_or_else(|e| panic!("{name}: event {i} is not a server message: {e}: {event}"));
            let got = outcome(Follower::follow(&mut follower, &message));
            assert_eq!(Some(got), expected.as_str(), "{name}: event {i}: {event}");
        }
        let expect = &case["expect"];
        let Some(follower) = &follower else {
            assert!(expect.is_null(), "{name}: no state followed, yet the case expects {expect}");
            continue;
        };
        let seen = observed(follower.state(), follower.awaiting());
        for (field, want) in expect.as_object().expect("expect is an object") {
            assert_eq!(&seen[field.as_str()], want, "{name}: {field}");
        }
    }
}

#[test]
fn endings_are_worded_as_the_shared_table_says() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/protocol/outcomes.json");
    let table: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("outcomes.json")).expect("JSON");
    let cases = table["cases"].as_array().expect("cases");
    // Every reason, as a win for either side and as a draw; an abort only as no result.
    assert_eq!(cases.len(), 3 * (EndReason::ALL.len() - 1) + 1);
    for case in cases {
        let result: GameResult = serde_json::from_value(case["result"].clone()).expect("a result");
        let reason: EndReason = serde_json::from_value(case["reason"].clone()).expect("a reason");
        let text = Outcome { winner: result.winner(), reason }.headline();
        assert_eq!(Some(text.as_str()), case["text"].as_str(), "{case}");
    }
}
