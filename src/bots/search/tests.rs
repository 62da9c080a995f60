//! Tests of the alpha-beta search: mates, quiet moves that matter, draws and contempt, pooled tables.

use super::*;
use crate::chess::{Rules, Variant};

fn search(variant: Variant, fen: &str, depth: u32) -> SearchResult {
    let game = Game::from_fen(variant, fen, Rules::default()).unwrap();
    AlphaBeta::new(Some(7)).search(&game, &Limits::depth(depth), &mut |_| {})
}

#[test]
fn reports_mate_distances() {
    // Back-rank mate in one.
    let r = search(Variant::Standard, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 4);
    assert_eq!((r.best.map(|m| m.to_string()), r.score), (Some("d1d8".into()), Score::Mate(1)));
    // Mate in two: 1. Rb8+ Rxb8 2. Rxb8#.
    let r = search(Variant::Standard, "r6k/6pp/8/8/8/8/1R6/1R4K1 w - - 0 1", 6);
    assert_eq!(r.score, Score::Mate(2), "{:?}", r.pv);
    assert_eq!(r.best.map(|m| m.to_string()), Some("b2b8".into()));
    // The side being mated sees it coming.
    let r = search(Variant::Standard, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", 4);
    assert!(matches!(r.score, Score::Cp(_) | Score::Mate(_)));
}

#[test]
fn the_quiescence_search_sees_a_capture_that_stalemates() {
    // Qxc7 wins the rook and leaves Black without a move, not in check. At depth 1 the position
    // after it is judged by the quiescence search alone, which finds no capture there and must
    // not stand on White's extra queen: the capture draws, and moving the queen away wins.
    let r = search(Variant::Standard, "k7/2r5/8/8/8/8/2Q5/K7 w - - 0 1", 1);
    assert_ne!(r.best.map(|m| m.to_string()).as_deref(), Some("c2c7"), "{:?}", r.pv);
    // A win, not the draw (which scores ±CONTEMPT): queen against rook, which Stockfish 15.1
    // puts at +256 at depth 10.
    assert!(matches!(r.score, Score::Cp(cp) if cp > 200), "{:?}", r.score);
}

#[test]
fn minichess7_wins_by_leaving_the_opponent_out_of_moves() {
    // White to move can leave Black, not in check, with only king moves into attack.
    let fen = "k6/7/7/7/2C4/7/1R1K3 w - - 0 1";
    let r = search(Variant::Minichess7, fen, 4);
    assert_eq!(r.score, Score::Mate(1), "{:?}", r.pv);
    let mut game = Game::from_fen(Variant::Minichess7, fen, Rules::default()).unwrap();
    game.play(r.best.unwrap()).unwrap();
    assert_eq!(game.outcome().map(|o| o.winner), Some(Some(crate::chess::Color::White)));
}

#[test]
fn the_only_good_quiet_move_is_found_wherever_it_is_ordered() {
    // Quiet moves, none a check, that Stockfish 15.1 (150,000 nodes, two lines) rates at least
    // 250 centipawns above the second best: late quiet moves are pruned or searched shallower
    // first, and that must not hide the one that matters.
    //
    // A fourth position was here while the written evaluation played: in
    // 6B1/6p1/3k2K1/p1p1b1P1/P1P1P3/7P/8/8 b, Ke7 traps the bishop on g8. The learnt one does
    // not see the trap: from depth 9 to 13 it scores Ke7 and the bishop's moves within 20
    // centipawns of each other, and picks either (docs/bots.md, "A learnt evaluation that
    // plays"). That is the evaluation's blind spot, not the pruning's, so it is not asked here.
    for (fen, best) in [
        ("2k4r/1ppb4/pn3rB1/3P2p1/3NP3/1P2R1KP/8/7R w - - 5 33", "g6f5"),
        ("r4rk1/pp4p1/2p4p/2b1N3/3Nq3/2P1B1P1/PP3Q1P/R5K1 w - - 1 22", "e3f4"),
        ("3qr1k1/p4r2/b6p/P7/6P1/1PRPpB1P/2P1K3/Q4R2 w - - 0 35", "c3c6"),
    ] {
        let r = search(Variant::Standard, fen, 10);
        assert_eq!(r.best.map(|m| m.to_string()).as_deref(), Some(best), "{fen}: {:?}", r.pv);
    }
}

#[test]
fn a_side_that_is_behind_repeats_the_position() {
    // Knight against rook, White shuffles; Ng1 now brings back a position the game has
    // already seen, which the search counts as a draw — better, even with contempt, than
    // the exchange deficit.
    let mut game = Game::from_fen(Variant::Standard, "r3k3/8/8/8/8/8/8/4K1N1 w - - 0 1", Rules::default()).unwrap();
    for m in ["g1f3", "e8d8", "f3g1", "d8e8", "g1f3", "e8d8"] {
        game.play_uci(m).unwrap();
    }
    let r = AlphaBeta::new(Some(3)).search(&game, &Limits::depth(5), &mut |_| {});
    assert_eq!(r.best.map(|m| m.to_string()), Some("f3g1".into()));
    assert_eq!(r.score, Score::Cp(-CONTEMPT));
    // The contempt it is given (UCI `Contempt`) is what the repetition scores, either way.
    for contempt in [0, -30, 100] {
        let mut engine = AlphaBeta::new(Some(3));
        engine.set_contempt(contempt);
        let r = engine.search(&game, &Limits::depth(5), &mut |_| {});
        assert_eq!((r.best.map(|m| m.to_string()), r.score), (Some("f3g1".into()), Score::Cp(-contempt)));
    }
    // Without that history the same position is worse than the draw: the exchange down,
    // though rook against knight counts only a quarter in the endgame (the side ahead has no
    // pawns and at most a bishop's worth more), so it is not a full exchange's worth.
    let fresh = Game::from_fen(Variant::Standard, game.position().fen().as_str(), Rules::default()).unwrap();
    let r = AlphaBeta::new(Some(3)).search(&fresh, &Limits::depth(5), &mut |_| {});
    assert!(matches!(r.score, Score::Cp(cp) if cp < -CONTEMPT), "{:?}", r.score);
}

#[test]
fn an_even_position_is_not_thrown_away_for_a_draw() {
    // The minichess7 game that level 5 once drew against `dummy`: after 1. Ff3 Ce5 2. Rg4
    // Af5 3. Nb3 Nb5 4. Na1 Na7 5. Nb3 Nb5 6. Na1, Na7 would repeat a third time.
    let mut game = Game::new(Variant::Minichess7);
    for san in ["Ff3", "Ce5", "Rg4", "Af5", "Nb3", "Nb5", "Na1", "Na7", "Nb3", "Nb5", "Na1"] {
        game.play_san(san).unwrap();
    }
    let r = AlphaBeta::new(Some(5)).search(&game, &Limits::depth(6), &mut |_| {});
    let m = r.best.unwrap();
    assert_ne!(m.to_string(), "b5a7", "{:?}", r.score);
    game.play(m).unwrap();
    assert_eq!(game.outcome(), None);
}

#[test]
fn engines_sharing_a_pool_hold_no_table_between_searches() {
    let pool = TablePool::new(12, 1);
    let game = Game::new(Variant::Standard);
    let mut engines: Vec<AlphaBeta> = (0..3).map(|seed| AlphaBeta::with_pool(Some(seed), pool.clone())).collect();
    for engine in &mut engines {
        let r = engine.search(&game, &Limits::depth(4), &mut |_| {});
        assert!(r.best.is_some());
        assert_eq!(pool.idle_count(), 1, "the table went back to the pool");
        assert!(!engine.heuristics.holds_memory(), "the continuation history was freed");
    }
    // An engine with a table of its own keeps what it learnt for the next move.
    let mut own = AlphaBeta::new(Some(0));
    own.search(&game, &Limits::depth(4), &mut |_| {});
    assert!(own.heuristics.holds_memory());
    // A pooled engine finds the same mate as one with a table of its own.
    let mate = Game::from_fen(Variant::Standard, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", Rules::default()).unwrap();
    let r = AlphaBeta::with_pool(Some(1), pool.clone()).search(&mate, &Limits::depth(3), &mut |_| {});
    assert_eq!(r.best.map(|m| m.to_string()).as_deref(), Some("a1a8"));
    assert_eq!(r.score, Score::Mate(1));
}

#[test]
fn no_move_when_the_game_is_over() {
    let r = search(Variant::Standard, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 3);
    assert_eq!(r.best, None);
}

#[test]
fn a_fixed_movetime_is_used_to_the_end() {
    // The start position is far from any depth cap, so only the clock can end the search; a
    // busy machine makes it later, never earlier.
    let game = Game::new(Variant::Standard);
    let start = std::time::Instant::now();
    let r = AlphaBeta::new(Some(3)).search(&game, &Limits::movetime(300), &mut |_| {});
    assert!(r.best.is_some());
    assert!(start.elapsed() >= Duration::from_millis(250), "stopped after {:?}", start.elapsed());
}
