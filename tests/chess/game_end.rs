//! How games end, on crafted positions: mate, stalemate, each draw rule, minichess7's own
//! rules, and the rule options.

use gambit::chess::{Color, EndReason, Game, Outcome, Repetition, Rules, Variant};

fn game(variant: Variant, fen: &str) -> Game {
    Game::from_fen(variant, fen, Rules::default()).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn play(game: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        if let Err(e) = game.play_san(m) {
            panic!("{m} after {:?}: {e}", game.history().iter().map(|p| p.san.as_str()).collect::<Vec<_>>());
        }
    }
}

#[test]
fn checkmate() {
    let mut g = Game::new(Variant::Standard);
    play(&mut g, "f3 e5 g4");
    assert_eq!(g.outcome(), None);
    play(&mut g, "Qh4#");
    assert_eq!(g.outcome(), Some(Outcome::win(Color::Black, EndReason::Checkmate)));
    assert_eq!(g.outcome().map(|o| o.result()), Some("0-1"));
    assert_eq!(g.history().last().map(|p| p.san.as_str()), Some("Qh4#"));
}

#[test]
fn stalemate() {
    let mut g = game(Variant::Standard, "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1");
    play(&mut g, "Qf7");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::Stalemate)));
    // A game may also start stalemated.
    let g = game(Variant::Standard, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::Stalemate)));
}

#[test]
fn threefold_repetition() {
    let mut g = Game::new(Variant::Standard);
    play(&mut g, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    assert_eq!(g.outcome(), None, "the start position has occurred twice so far");
    play(&mut g, "Ng8");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::ThreefoldRepetition)));
    // Undo reopens the game.
    g.undo();
    assert_eq!(g.outcome(), None);
}

#[test]
fn repetition_counts_en_passant_only_when_it_can_be_taken() {
    // The FEN records c6, but bxc6 would expose the king to the rook: no capture is possible,
    // so the position is the same one that returns after the kings shuffle.
    let mut g = game(Variant::Standard, "8/8/3p4/KPp4r/8/8/8/4k3 w - c6 0 2");
    play(&mut g, "Ka4 Ke2 Ka5 Ke1 Ka4 Ke2 Ka5");
    assert_eq!(g.outcome(), None);
    play(&mut g, "Ke1");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::ThreefoldRepetition)));

    // When the capture is possible, the first position differs from its returns: the same
    // shuffle has produced it only twice.
    let mut g = game(Variant::Standard, "8/8/3p4/1Pp4r/8/K7/8/4k3 w - c6 0 2");
    play(&mut g, "Ka4 Ke2 Ka3 Ke1 Ka4 Ke2 Ka3 Ke1");
    assert_eq!(g.outcome(), None);
}

#[test]
fn fifty_move_rule() {
    let mut g = game(Variant::Standard, "8/8/8/4k3/8/8/8/R3K3 w - - 98 60");
    play(&mut g, "Ra2");
    assert_eq!(g.outcome(), None);
    play(&mut g, "Kd5");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::FiftyMoves)));
    // A pawn move resets the count in standard chess.
    let mut g = game(Variant::Standard, "8/8/8/4k3/8/8/P7/R3K3 w - - 99 60");
    play(&mut g, "a3");
    assert_eq!(g.position().halfmoves(), 0);
    assert_eq!(g.outcome(), None);
    // Mate on the hundredth ply is still mate.
    let mut g = game(Variant::Standard, "7k/8/6K1/8/8/8/8/R7 w - - 99 80");
    play(&mut g, "Ra8#");
    assert_eq!(g.outcome(), Some(Outcome::win(Color::White, EndReason::Checkmate)));
}

#[test]
fn insufficient_material() {
    let mut g = game(Variant::Standard, "8/8/8/4k3/8/8/3r4/3BK3 w - - 0 1");
    play(&mut g, "Kxd2");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::InsufficientMaterial)));
    for (fen, drawn) in [
        ("8/8/8/4k3/8/8/8/4K3 w - - 0 1", true),
        ("8/8/8/4k3/8/8/8/4KN2 w - - 0 1", true),
        ("8/8/8/4k3/8/8/8/2B1K3 w - - 0 1", true),
        ("8/8/8/4k1b1/8/8/8/2B1K3 w - - 0 1", true), // bishops on squares of one colour
        ("8/8/8/4kb2/8/8/8/2B1K3 w - - 0 1", false), // opposite colours: mate is possible
        ("8/8/8/4k3/8/8/8/3NKN2 w - - 0 1", false),  // two knights can mate with help
        ("8/8/8/4kn2/8/8/8/2B1K3 w - - 0 1", false),
        ("8/8/8/4k3/8/8/P7/4K3 w - - 0 1", false),
    ] {
        let g = game(Variant::Standard, fen);
        assert_eq!(g.outcome() == Some(Outcome::draw(EndReason::InsufficientMaterial)), drawn, "{fen}");
    }
    // Minichess7 has no insufficient-material rule: bare kings play on until the move counter ends it.
    let g = game(Variant::Minichess7, "3k3/7/7/7/7/7/3K3 w - - 0 1");
    assert_eq!(g.outcome(), None);
}

#[test]
fn minichess7_checkmate() {
    let g = game(Variant::Minichess7, "k6/1Q5/7/2C4/7/7/3K3 b - - 0 1");
    assert_eq!(g.outcome(), Some(Outcome::win(Color::White, EndReason::Checkmate)));
    // Delivered by a move, with # in its SAN.
    let mut g = game(Variant::Minichess7, "k6/7/7/2C4/7/1Q5/3K3 w - - 0 1");
    play(&mut g, "Qb6#");
    assert_eq!(g.outcome(), Some(Outcome::win(Color::White, EndReason::Checkmate)));
}

#[test]
fn minichess7_out_of_valid_moves_loses() {
    // Black is not in check and its king can step, but every step walks into an attack.
    let g = game(Variant::Minichess7, "k6/7/2C4/7/7/7/1R1K3 b - - 0 1");
    assert_eq!(g.outcome(), Some(Outcome::win(Color::White, EndReason::OutOfMoves)));
    // The same picture in standard chess, a knight covering a7 and b8, is a stalemate: a draw.
    let g = game(Variant::Standard, "k7/8/2N5/8/8/8/8/1R1K4 b - - 0 1");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::Stalemate)));
}

#[test]
fn minichess7_no_moves_at_all_draws() {
    // Black's king is walled in by its own pawns, which cannot move either.
    let g = game(Variant::Minichess7, "6K/7/7/7/7/pp5/kp5 b - - 0 1");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::NoMoves)));
}

#[test]
fn minichess7_counts_fifty_moves_without_capture() {
    let mut g = game(Variant::Minichess7, "3k3/1p5/7/7/7/5P1/3K3 w - - 98 60");
    play(&mut g, "f3");
    assert_eq!(g.position().halfmoves(), 99, "a pawn move does not reset the count in minichess7");
    assert_eq!(g.outcome(), None);
    play(&mut g, "b5");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::FiftyMoves)));
    // A capture does.
    let mut g = game(Variant::Minichess7, "3k3/7/7/2p4/3P3/7/3K3 w - - 99 60");
    play(&mut g, "dxc4");
    assert_eq!(g.position().halfmoves(), 0);
    assert_eq!(g.outcome(), None);
}

#[test]
fn castling_option_off() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let on = game(Variant::Standard, fen);
    assert!(on.legal_moves().iter().any(|m| m.to_string() == "e1g1"));
    let off = Rules { castling: false, ..Rules::default() };
    let mut g = Game::from_fen(Variant::Standard, fen, off).unwrap();
    assert!(g.legal_moves().iter().all(|m| !g.position().is_castling(*m)));
    assert!(g.play_uci("e1g1").is_err());
    assert!(g.play_san("O-O").is_err());
    assert_eq!(g.position().fen(), "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1");
}

#[test]
fn en_passant_option_off() {
    let mut on = Game::new(Variant::Standard);
    play(&mut on, "e4 a6 e5 d5");
    assert!(on.play_san("exd6").is_ok());
    let off = Rules { en_passant: false, ..Rules::default() };
    let mut g = Game::from_fen(Variant::Standard, Variant::Standard.initial_fen(), off).unwrap();
    play(&mut g, "e4 a6 e5 d5");
    assert_eq!(g.position().ep_square(), None);
    assert!(g.play_san("exd6").is_err());
    assert!(g.play_uci("e5d6").is_err());
}

#[test]
fn eight_move_repetition() {
    let rules = Rules { repetition: Repetition::EightMove, ..Rules::default() };
    let new = || Game::from_fen(Variant::Standard, Variant::Standard.initial_fen(), rules).unwrap();
    let mut g = new();
    play(&mut g, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    assert_eq!(g.outcome(), None);
    play(&mut g, "Ng8");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::EightMoveRepetition)));

    // Two different cycles: threefold would already draw at ply 8; eight_move does not.
    let mut g = new();
    play(&mut g, "Nf3 Nf6 Ng1 Ng8 Nc3 Nc6 Nb1 Nb8 Nf3 Nf6 Ng1 Ng8");
    assert_eq!(g.outcome(), None);
    let mut threefold = Game::new(Variant::Standard);
    play(&mut threefold, "Nf3 Nf6 Ng1 Ng8 Nc3 Nc6 Nb1 Nb8");
    assert_eq!(threefold.outcome(), Some(Outcome::draw(EndReason::ThreefoldRepetition)));

    // Minichess7 knows the rule too.
    let mut g = Game::from_fen(Variant::Minichess7, "3k3/p6/7/7/7/7/R2K3 w - - 0 1", rules).unwrap();
    play(&mut g, "Rb1 Kc7 Ra1 Kd7 Rb1 Kc7 Ra1");
    assert_eq!(g.outcome(), None);
    play(&mut g, "Kd7");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::EightMoveRepetition)));
}

#[test]
fn external_endings_and_pgn() {
    let mut g = Game::new(Variant::Standard);
    play(&mut g, "e4 e5");
    g.end(Outcome::win(Color::White, EndReason::Resignation));
    assert_eq!(g.outcome().map(|o| o.to_string()), Some("White wins by resignation".to_string()));
    assert!(g.play_san("Nf3").is_err());
}
