//! Tests of the UCI engine loop: commands, options, limits, bad input.

use super::*;

/// A writer the tests can read back.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn session(input: &str) -> Vec<String> {
    let buffer = Buffer::default();
    Engine::new(Output::new(Box::new(buffer.clone()))).run(input.as_bytes());
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    text.lines().map(str::to_string).collect()
}

#[test]
fn clock_budget_shares_the_clock() {
    // 60 s, no increment: 2 s less the overhead.
    assert_eq!(clock_budget(60_000, 0, None), Duration::from_millis(1_970));
    // The increment adds three quarters.
    assert_eq!(clock_budget(60_000, 1_000, None), Duration::from_millis(2_720));
    // movestogo shares the clock among fewer moves, but never more than a third.
    assert_eq!(clock_budget(60_000, 0, Some(2)), Duration::from_millis(19_970));
    // Nearly flagged: the minimum.
    assert_eq!(clock_budget(20, 0, None), MIN_MOVE_TIME);
    assert_eq!(clock_budget(-500, 0, None), MIN_MOVE_TIME);
}

#[test]
fn go_parses_every_limit() {
    let (go, warnings) =
        GoParams::parse(&["wtime", "1000", "btime", "2000", "winc", "10", "binc", "20", "movestogo", "5"]);
    assert!(warnings.is_empty());
    assert_eq!(
        go,
        GoParams {
            wtime: Some(1000),
            btime: Some(2000),
            winc: Some(10),
            binc: Some(20),
            movestogo: Some(5),
            ..GoParams::default()
        }
    );
    assert_eq!(go.limits(Color::Black).movetime, Some(clock_budget(2000, 20, Some(5))));
    assert!(go.limits(Color::Black).early_stop, "a share of the clock may be cut short");
    let (go, _) = GoParams::parse(&["movetime", "100", "depth", "7", "nodes", "5000"]);
    let limits = go.limits(Color::White);
    assert_eq!((limits.movetime, limits.depth, limits.nodes), (Some(Duration::from_millis(100)), Some(7), Some(5000)));
    assert!(!limits.early_stop, "a fixed movetime is used to the end");
    // A clock share shorter than the movetime is the clock's; a longer one leaves the movetime.
    let (go, _) = GoParams::parse(&["wtime", "600000", "movetime", "100"]);
    assert!(!go.limits(Color::White).early_stop);
    let (go, _) = GoParams::parse(&["wtime", "3000", "movetime", "1000"]);
    assert!(go.limits(Color::White).early_stop);
    let (go, _) = GoParams::parse(&["infinite"]);
    let limits = go.limits(Color::White);
    assert_eq!((limits.movetime, limits.depth), (None, Some(INFINITE_DEPTH)));
    let (go, warnings) = GoParams::parse(&["depth", "x", "bogus", "searchmoves", "e2e4", "d2d4", "depth", "2"]);
    assert_eq!(go.depth, Some(2));
    assert_eq!(warnings.len(), 3, "{warnings:?}");
}

#[test]
fn position_keeps_the_old_one_on_errors() {
    assert!(parse_position(Variant::Standard, &["startpos", "moves", "e2e4", "e7e5"]).is_ok());
    assert!(parse_position(Variant::Standard, &["startpos", "moves", "e2e5"]).is_err());
    assert!(parse_position(Variant::Standard, &["fen", "garbage"]).is_err());
    assert!(parse_position(Variant::Standard, &["fen"]).is_err());
    assert!(parse_position(Variant::Standard, &[]).is_err());
    assert!(parse_position(Variant::Standard, &["startpos", "e2e4"]).is_err());
    let game = parse_position(Variant::Minichess7, &["startpos"]).unwrap();
    assert_eq!(game.position().fen(), Variant::Minichess7.initial_fen());
}

#[test]
fn moves_go_on_after_a_threefold_repetition() {
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    let mut args = vec!["startpos", "moves"];
    args.extend(shuffle);
    args.extend(shuffle);
    args.extend(["e2e4"]);
    let game = parse_position(Variant::Standard, &args).unwrap();
    assert!(!game.is_over());
    assert_eq!(game.turn(), Color::Black);
}

#[test]
fn a_scripted_session() {
    let lines = session("uci\nisready\nsetoption name Level value 2\nposition startpos moves e2e4\ngo depth 1\nquit\n");
    assert!(lines.contains(&"uciok".to_string()), "{lines:?}");
    assert!(lines.contains(&"readyok".to_string()));
    let best = lines.iter().find_map(|l| l.strip_prefix("bestmove ")).expect("a bestmove");
    let game = parse_position(Variant::Standard, &["startpos", "moves", "e2e4", best]);
    assert!(game.is_ok(), "{best} is not legal");
}
