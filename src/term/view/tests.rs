//! Tests of the terminal view: what each event shows, the board, the move list and the status line.

use super::*;
use crate::chess::{Game, Move};
use crate::protocol::{GameResult, MatchScore, PlayerName, Seats, VariantName};

fn state_of(game: &Game, v: u64, seats: Seats) -> GameState {
    GameState {
        game: "g1".into(),
        v,
        variant: game.variant().into(),
        initial_fen: game.initial_position().fen(),
        fen: game.position().fen(),
        moves: game.history().iter().map(|p| p.mv.to_string()).collect(),
        san: game.history().iter().map(|p| p.san.clone()).collect(),
        turn: game.turn(),
        status: if game.is_over() { Status::Ended } else { Status::Ongoing },
        result: None,
        reason: None,
        seats,
        legal: game.legal_moves().iter().map(Move::to_string).collect(),
        check: game.position().is_check(),
        clock: None,
        watchers: 0,
        offer: None,
        claim: None,
        score: MatchScore::default(),
        next: None,
        rated: false,
        ratings: None,
        opening: None,
    }
}

fn vs_bot() -> Seats {
    Seats { white: SeatView::human(true, None, false), black: SeatView::bot(3) }
}

fn move_event(game: &mut Game, v: u64, uci: &str) -> ServerMessage {
    let san = game.play_uci(uci).unwrap().san.clone();
    ServerMessage::Move {
        game: "g1".into(),
        v,
        uci: uci.into(),
        san,
        fen: game.position().fen(),
        turn: game.turn(),
        ply: game.ply(),
        legal: game.legal_moves().iter().map(Move::to_string).collect(),
        check: game.position().is_check(),
        clock: None,
        opening: None,
    }
}

#[test]
fn a_game_against_a_bot_in_words() {
    let mut game = Game::new(Variant::Standard);
    let mut view = GameView::new(state_of(&game, 1, vs_bot()), Some(Color::White));
    let text = view.render();
    let bot = crate::bots::Level::new(3).expect("level 3").label();
    assert!(text.starts_with(&format!("Game g1 · standard · White: you · Black: {bot}\n")), "{text}");
    assert!(text.contains("Moves: none yet\n"), "{text}");
    assert!(text.contains("FEN: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"), "{text}");
    assert!(text.ends_with("White to move — your move.\n"), "{text}");
    assert!(view.my_turn());

    let update = view.apply(&move_event(&mut game, 2, "e2e4"));
    assert_eq!(update, Update { notes: vec!["You played 1. e4.".into()], redraw: true, resync: false });
    assert!(!view.my_turn());
    assert_eq!(view.status_line(), format!("Black to move — {bot} is thinking…"));
    assert_eq!(view.why_not_my_turn(), Some(format!("It is not your move yet — {bot} is thinking…")));

    let update = view.apply(&move_event(&mut game, 3, "e7e5"));
    assert_eq!(update.notes, vec!["Level 3 played 1... e5.".to_string()]);
    let text = view.render();
    assert!(text.contains("Moves: 1. e4 e5\n"), "{text}");
    assert!(text.contains(" 5  ·  ·  ·  · [♟] ·  ·  ·  5"), "{text}");
    assert_eq!(view.version(), 3);

    // A replayed event changes nothing.
    assert_eq!(view.apply(&move_event(&mut game.clone(), 3, "g1f3")), Update::default());

    let end = ServerMessage::End {
        game: "g1".into(),
        v: 4,
        result: GameResult::BlackWins,
        reason: EndReason::Resignation,
        clock: None,
        score: MatchScore::default(),
        ratings: None,
    };
    assert!(view.apply(&end).redraw);
    assert!(view.is_over());
    assert_eq!(view.status_line(), "White resigned — Black wins (0-1). You lost.");
}

#[test]
fn check_and_checkmate_for_a_spectator() {
    let mut game = Game::new(Variant::Standard);
    let humans = Seats { white: SeatView::human(true, None, false), black: SeatView::human(true, None, false) };
    let mut view = GameView::new(state_of(&game, 1, humans), None);
    assert_eq!(view.status_line(), "White to move.");
    for (v, uci) in [(2, "f2f3"), (3, "e7e5"), (4, "g2g4")] {
        view.apply(&move_event(&mut game, v, uci));
    }
    let update = view.apply(&move_event(&mut game, 5, "d8h4"));
    assert_eq!(update.notes, vec!["Black played 2... Qh4#.".to_string()]);
    let text = view.render();
    // The checked king in parentheses, the queen's move in brackets.
    assert!(text.contains(" 1  ♖  ♘  ♗  ♕ (♔) ♗  ♘  ♖  1"), "{text}");
    assert!(text.contains(" 4  ·  ·  ·  ·  ·  ·  ♙ [♛] 4"), "{text}");
    assert!(text.contains("Moves: 1. f3 e5 2. g4 Qh4#\n"), "{text}");
    let end = ServerMessage::End {
        game: "g1".into(),
        v: 6,
        result: GameResult::BlackWins,
        reason: EndReason::Checkmate,
        clock: None,
        score: MatchScore::default(),
        ratings: None,
    };
    view.apply(&end);
    assert!(view.render().ends_with("Checkmate — Black wins (0-1)\n"));
    assert_eq!(view.why_not_my_turn().as_deref(), Some("You are watching; spectators cannot move."));
}

#[test]
fn check_is_called_out() {
    let mut game = Game::new(Variant::Standard);
    let mut view = GameView::new(state_of(&game, 1, vs_bot()), Some(Color::Black));
    for (v, uci) in [(2, "e2e4"), (3, "f7f5"), (4, "d1h5")] {
        view.apply(&move_event(&mut game, v, uci));
    }
    assert_eq!(view.status_line(), "Check! Black to move — your move.");
    // Black sits at the bottom: rank 1 on top, files reversed.
    let text = view.render();
    assert!(text.contains("    h  g  f  e  d  c  b  a\n"), "{text}");
    assert!(text.contains(" 8  ♜  ♞  ♝ (♚) ♛  ♝  ♞  ♜  8"), "{text}");
    view.flip();
    assert!(view.render().contains("    a  b  c  d  e  f  g  h\n"));
}

#[test]
fn offers_and_declines_in_plain_words() {
    let game = Game::new(Variant::Standard);
    let humans = Seats { white: SeatView::human(true, None, false), black: SeatView::human(true, None, false) };
    let mut view = GameView::new(state_of(&game, 1, humans), Some(Color::White));
    let offer = ServerMessage::Offer { game: "g1".into(), v: 2, kind: OfferKind::Draw, by: Color::Black };
    assert_eq!(
        view.apply(&offer).notes,
        vec!["Black offers a draw — type draw to accept or decline to refuse.".to_string()]
    );
    assert_eq!(view.offer_to_me(), Some(OfferKind::Draw));
    let declined = ServerMessage::Declined { game: "g1".into(), v: 3, kind: OfferKind::Draw, by: Color::Black };
    assert_eq!(view.apply(&declined).notes, vec!["You declined Black's draw offer.".to_string()]);
    assert_eq!(view.offer_to_me(), None);
    let mine = ServerMessage::Offer { game: "g1".into(), v: 4, kind: OfferKind::Undo, by: Color::White };
    assert_eq!(
        view.apply(&mine).notes,
        vec!["You asked to take back your last move; waiting for Black's answer.".to_string()]
    );
    let refused = ServerMessage::Declined { game: "g1".into(), v: 5, kind: OfferKind::Undo, by: Color::White };
    assert_eq!(view.apply(&refused).notes, vec!["Black declined your request to take back.".to_string()]);
    let berserk = ServerMessage::Berserk { game: "g1".into(), v: 6, color: Color::Black, clock: None };
    assert_eq!(view.apply(&berserk).notes, vec!["Black berserked: half the time, a point more for a win.".to_string()]);
    let offline = Seats { white: SeatView::human(true, None, false), black: SeatView::human(false, None, false) };
    let seats = ServerMessage::Seats { game: "g1".into(), v: 7, seats: offline, claim: None };
    assert_eq!(view.apply(&seats).notes, vec!["Black went offline.".to_string()]);
}

#[test]
fn waiting_then_joined() {
    let game = Game::new(Variant::Minichess7);
    let open = Seats { white: SeatView::human(true, None, false), black: SeatView::Open };
    let mut state = state_of(&game, 0, open);
    state.status = Status::Waiting;
    let mut view = GameView::new(state, Some(Color::White));
    assert_eq!(view.status_line(), "Waiting for an opponent to join…");
    assert!(view.why_not_my_turn().is_some_and(|w| w.contains("not started")));
    let bob = PlayerName::parse("Bob").ok();
    let joined = Seats { white: SeatView::human(true, None, false), black: SeatView::human(true, bob.as_ref(), false) };
    let update = view.apply(&ServerMessage::Seats { game: "g1".into(), v: 1, seats: joined, claim: None });
    assert_eq!(update, Update { notes: vec!["Bob joined — the game begins.".into()], redraw: true, resync: false });
    let text = view.render();
    // A name chosen without an account is marked as a guest's.
    assert!(text.contains("White: you · Black: Bob (guest)"), "{text}");
    assert!(text.contains("· minichess7 ·"), "{text}");
    let account = Seats { white: SeatView::human(true, None, false), black: SeatView::human(true, bob.as_ref(), true) };
    view.apply(&ServerMessage::Seats { game: "g1".into(), v: 2, seats: account, claim: None });
    assert!(view.render().contains("White: you · Black: Bob\n"), "an account's name is shown as it is");
    assert!(text.contains(" 1  ♘  ♗  ♕  ♔  A  C  ♖  1"), "{text}");
    assert!(text.ends_with("White to move — your move.\n"), "{text}");
    assert_eq!(VariantName::from(Variant::Minichess7), VariantName::Minichess7);
}

#[test]
fn undo_state_says_what_was_taken_back() {
    let mut game = Game::new(Variant::Standard);
    let mut view = GameView::new(state_of(&game, 1, vs_bot()), Some(Color::White));
    view.apply(&move_event(&mut game, 2, "e2e4"));
    view.apply(&move_event(&mut game, 3, "e7e5"));
    game.undo();
    game.undo();
    let update = view.apply(&ServerMessage::State(Box::new(state_of(&game, 4, vs_bot()))));
    assert_eq!(update, Update { notes: vec!["2 moves taken back.".into()], redraw: true, resync: false });
    assert!(view.render().contains("Moves: none yet"));
}

#[test]
fn move_numbers_from_a_black_to_move_start_and_wrapping() {
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 7";
    let mut game = Game::from_fen(Variant::Standard, fen, Default::default()).unwrap();
    let mut view = GameView::new(state_of(&game, 1, vs_bot()), Some(Color::Black));
    let update = view.apply(&move_event(&mut game, 2, "e7e5"));
    assert_eq!(update.notes, vec!["You played 7... e5.".to_string()]);
    view.apply(&move_event(&mut game, 3, "g1f3"));
    assert!(view.render().contains("Moves: 7... e5 8. Nf3\n"));
    // A long game wraps its move list.
    let mut long = state_of(&Game::new(Variant::Standard), 1, vs_bot());
    long.san = ["Nf3", "Nf6", "Ng1", "Ng8"].iter().cycle().take(60).map(|s| s.to_string()).collect();
    let text = GameView::new(long, None).render();
    let list: Vec<&str> =
        text.lines().skip_while(|l| !l.starts_with("Moves:")).take_while(|l| !l.starts_with("FEN")).collect();
    assert!(list.len() > 3, "{text}");
    assert!(list.iter().all(|l| l.chars().count() <= MOVES_WIDTH), "{text}");
    assert!(list[1].starts_with("       ") && list.last().unwrap().ends_with("30. Ng1 Ng8"), "{text}");
}

#[test]
fn outcomes_in_words() {
    let text = |winner, reason| Outcome { winner, reason }.headline();
    assert_eq!(text(Some(Color::Black), EndReason::Checkmate), "Checkmate — Black wins");
    assert_eq!(text(Some(Color::White), EndReason::OutOfMoves), "Black is out of valid moves — White wins");
    assert_eq!(text(None, EndReason::Agreement), "Draw agreed");
    assert_eq!(text(None, EndReason::Stalemate), "Stalemate — draw");
    assert_eq!(text(None, EndReason::Adjudication), "Draw by adjudication");
    assert_eq!(text(Some(Color::White), EndReason::Timeout), "Black ran out of time — White wins");
}

#[test]
fn clocks_in_the_header_and_a_draw_on_time() {
    let game = Game::new(Variant::Standard);
    let mut state = state_of(&game, 1, vs_bot());
    state.clock = Some(ClockView {
        initial_ms: 300_000,
        increment_ms: 3_000,
        white_ms: 298_400,
        black_ms: 300_000,
        running: None,
        first_move_ms: None,
        days: None,
        berserkable: false,
    });
    let mut view = GameView::new(state.clone(), Some(Color::White));
    let text = view.render();
    assert!(text.contains("\nWhite 4:58 · Black 5:00 (5+3)\n"), "{text}");
    // Before both first moves no clock runs: the countdown to the first move shows instead.
    let mut waiting = state;
    waiting.clock = waiting.clock.map(|c| ClockView { first_move_ms: Some(27_400), ..c });
    let text = GameView::new(waiting, Some(Color::White)).render();
    assert!(text.contains("(5+3) · White has 27 s for a first move\n"), "{text}");
    let clock = ClockView {
        initial_ms: 300_000,
        increment_ms: 3_000,
        white_ms: 0,
        black_ms: 12_000,
        running: None,
        first_move_ms: None,
        days: None,
        berserkable: false,
    };
    let end = ServerMessage::End {
        game: "g1".into(),
        v: 2,
        result: GameResult::Draw,
        reason: EndReason::Timeout,
        clock: Some(clock),
        score: MatchScore::default(),
        ratings: None,
    };
    assert!(view.apply(&end).redraw);
    assert_eq!(view.status_line(), "Draw — White's time ran out but Black cannot mate (1/2-1/2)");
    assert!(view.render().contains("White 0:00.0 · Black 0:12"));
}

#[test]
fn a_rated_end_prints_both_new_ratings() {
    use crate::protocol::{GameRatings, RatingChange};
    let game = Game::new(Variant::Standard);
    let seats = Seats {
        white: SeatView::human(true, PlayerName::parse("Alice").ok().as_ref(), true),
        black: SeatView::human(true, PlayerName::parse("Bob").ok().as_ref(), true),
    };
    let mut view = GameView::new(state_of(&game, 1, seats), Some(Color::White));
    let ratings = GameRatings {
        white: RatingChange { rating: 1662, change: 162, provisional: true },
        black: RatingChange { rating: 1420, change: -80, provisional: false },
    };
    let end = ServerMessage::End {
        game: "g1".into(),
        v: 2,
        result: GameResult::WhiteWins,
        reason: EndReason::Resignation,
        clock: None,
        score: MatchScore::default().plus(Some(Color::White)),
        ratings: Some(ratings),
    };
    let update = view.apply(&end);
    assert_eq!(update.notes[0], "Ratings: Alice 1662? (+162), Bob 1420 (\u{2212}80)");
    assert!(update.notes[1].starts_with("Match: Alice 1 – 0 Bob"), "{:?}", update.notes);
}

#[test]
fn the_opening_is_shown_under_the_moves() {
    let mut game = Game::new(Variant::Standard);
    let mut view = GameView::new(state_of(&game, 1, vs_bot()), Some(Color::White));
    assert!(!view.render().contains("Opening:"));
    let mut event = move_event(&mut game, 2, "e2e4");
    if let ServerMessage::Move { opening, .. } = &mut event {
        *opening = Some(crate::protocol::OpeningView { eco: "B00".into(), name: "King's Pawn Game".into() });
    }
    view.apply(&event);
    assert!(view.render().contains("Moves: 1. e4\nOpening: B00 King's Pawn Game\nFEN: "), "{}", view.render());
}
