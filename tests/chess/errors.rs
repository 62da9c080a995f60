//! Bad input gets the right typed error and never a panic: malformed FENs, malformed and
//! illegal moves in UCI and SAN.

use gambit::chess::fen::{BoardError, ParseFenError, PositionError};
use gambit::chess::{Color, Game, IllegalMoveError, MoveError, Position, SanError, UciError, Variant};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn fen_error(fen: &str, variant: Variant) -> ParseFenError {
    match Position::from_fen(fen, variant) {
        Ok(_) => panic!("{fen:?} should not parse"),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            e
        }
    }
}

/// A malformed FEN, its variant, and a check that the error is the expected one.
type FenCase = (&'static str, Variant, fn(&ParseFenError) -> bool);

#[test]
fn malformed_fens_name_the_bad_field() {
    use ParseFenError as E;
    use Variant::{Minichess7 as M, Standard as S};
    let cases: Vec<FenCase> = vec![
        ("", S, |e| matches!(e, E::Empty)),
        ("   ", S, |e| matches!(e, E::Empty)),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", S, |e| matches!(e, E::FieldCount { found: 3 })),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 x", S, |e| matches!(e, E::FieldCount { found: 7 })),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", S, |e| {
            matches!(e, E::Board(BoardError::RankCount { found: 7, .. }))
        }),
        ("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", S, |e| {
            matches!(e, E::Board(BoardError::RankLength { rank: 7, found: 9, .. }))
        }),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", S, |e| {
            matches!(e, E::Board(BoardError::RankLength { rank: 1, found: 7, .. }))
        }),
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", S, |e| {
            matches!(e, E::Board(BoardError::RankLength { .. }))
        }),
        ("rnbqkbnr/ppxppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", S, |e| {
            matches!(e, E::Board(BoardError::UnknownPiece('x')))
        }),
        ("rnbqkbnr/pppppppp/08/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", S, |e| {
            matches!(e, E::Board(BoardError::UnknownPiece('0')))
        }),
        ("rnbqkbnr/pppppppp/8/8/3C4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", S, |e| {
            matches!(e, E::Board(BoardError::PieceNotInVariant('C', ..)))
        }),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", S, |e| matches!(e, E::Turn(t) if t == "x")),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqK - 0 1", S, |e| matches!(e, E::Castling { .. })),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", S, |e| matches!(e, E::Castling { .. })),
        // Shredder-FEN reads in standard chess too, but only for the corner rooks.
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KB - 0 1", S, |e| {
            matches!(e, E::Position(PositionError::CastlingRight { right: 'B', .. }))
        }),
        ("rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", S, |e| {
            matches!(e, E::Position(PositionError::CastlingRight { right: 'k', .. }))
        }),
        ("rnbq1bnr/ppppkppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", S, |e| {
            matches!(e, E::Position(PositionError::CastlingRight { right: 'k', .. }))
        }),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", S, |e| matches!(e, E::EnPassant { .. })),
        ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1", S, |e| matches!(e, E::EnPassant { .. })),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", S, |e| matches!(e, E::EnPassant { .. })),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", S, |e| matches!(e, E::HalfmoveClock(_))),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -1", S, |e| matches!(e, E::FullmoveNumber(_))),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 abc", S, |e| matches!(e, E::FullmoveNumber(_))),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", S, |e| {
            matches!(e, E::Position(PositionError::MissingKing(Color::White)))
        }),
        ("rnbqkbnr/pppppppp/8/8/8/3k4/PPPPPPPP/RNBQKBNR w KQkq - 0 1", S, |e| {
            matches!(e, E::Position(PositionError::TooManyKings(Color::Black)))
        }),
        ("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", S, |e| {
            matches!(e, E::Position(PositionError::OppositeCheck(Color::Black)))
        }),
        ("8/8/8/8/8/8/3k4/4K3 b - - 0 1", S, |e| matches!(e, E::Position(PositionError::OppositeCheck(Color::White)))),
        ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", S, |e| matches!(e, E::Position(PositionError::PawnOnBackRank(_)))),
        ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", S, |e| matches!(e, E::Position(PositionError::PawnOnBackRank(_)))),
        ("4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", S, |e| {
            matches!(e, E::Position(PositionError::TooManyPawns { count: 9, .. }))
        }),
        ("QQQQ4/4k3/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", S, |e| {
            matches!(e, E::Position(PositionError::TooManyPieces { count: 20, .. }))
        }),
        ("nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR/7 w - - 0 1", M, |e| {
            matches!(e, E::Board(BoardError::RankCount { found: 8, expected: 7 }))
        }),
        ("nbqkacr/fpppppf/8/7/7/FPPPPPF/NBQKACR w - - 0 1", M, |e| {
            matches!(e, E::Board(BoardError::RankLength { rank: 5, found: 8, .. }))
        }),
        ("nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w K - 0 1", M, |e| matches!(e, E::Castling { .. })),
        ("nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - c5 0 1", M, |e| matches!(e, E::EnPassant { .. })),
        ("nbqkacr/fpppppf/7/3QQ2/3Q3/FPPPPPF/NBQKACR w - - 0 1", M, |e| {
            matches!(e, E::Position(PositionError::TooManyPieces { count: 17, .. }))
        }),
        ("nbqkacr/fpppppf/7/7/7/1PPPPPF/PBQKACR w - - 0 1", M, |e| {
            matches!(e, E::Position(PositionError::PawnOnBackRank(_)))
        }),
        ("k6/7/PPPPPPP/7/2P1P2/7/3K3 w - - 0 1", M, |e| {
            matches!(e, E::Position(PositionError::TooManyPawns { count: 9, .. }))
        }),
        ("pbqkacr/fpppp1f/7/7/7/FPPPPPF/NBQKACR w - - 0 1", M, |e| {
            matches!(e, E::Position(PositionError::PawnOnBackRank(_)))
        }),
    ];
    assert!(cases.len() >= 20);
    for (fen, variant, expected) in cases {
        let err = fen_error(fen, variant);
        assert!(expected(&err), "{fen:?}: unexpected error {err:?}");
    }
}

#[test]
fn fen_errors_read_well() {
    let err = fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", Variant::Standard);
    assert_eq!(err.to_string(), "bad en passant field \"e6\": no black pawn can just have stepped two squares past e6");
    let err = fen_error("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", Variant::Standard);
    assert_eq!(err.to_string(), "impossible position: black is in check but it is not black's turn");
}

#[test]
fn malformed_uci_moves() {
    let pos = Position::new(Variant::Standard);
    for text in ["", "e2", "e2e", "e2e4e5", "e2e9", "i2i4", "e2e4k", "e7e8Q", "e2e2", "é2e4", "E2E4", "e2-e4", " e2e4"]
    {
        match pos.parse_uci(text) {
            Err(UciError::Parse(e)) => assert!(e.to_string().contains("UCI"), "{text:?}: {e}"),
            other => panic!("{text:?}: expected a parse error, got {other:?}"),
        }
    }
}

#[test]
fn illegal_uci_moves_say_why() {
    use IllegalMoveError as I;
    let start = Position::new(Variant::Standard);
    let illegal = |pos: &Position, text: &str| match pos.parse_uci(text) {
        Err(UciError::Illegal(e)) => e,
        other => panic!("{text:?}: expected an illegal-move error, got {other:?}"),
    };
    assert!(matches!(illegal(&start, "e2e5"), I::Illegal(_)));
    assert!(matches!(illegal(&start, "e3e4"), I::NoPiece(_)));
    assert!(matches!(illegal(&start, "e7e5"), I::NotYourPiece { owner: Color::Black, turn: Color::White, .. }));
    assert!(matches!(illegal(&start, "e1g1"), I::Illegal(_)));
    assert!(matches!(illegal(&start, "0000"), I::NullMove));
    assert!(matches!(illegal(&start, "e2e4q"), I::Illegal(_)));
    assert!(matches!(illegal(&start, "b1d2"), I::Illegal(_)));
    let promo = Position::from_fen("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", Variant::Standard).unwrap();
    assert!(matches!(illegal(&promo, "a7a8"), I::MissingPromotion(_)));
    assert_eq!(promo.parse_uci("a7a8n").map(|m| m.to_string()), Ok("a7a8n".to_string()));
    let mini = Position::new(Variant::Minichess7);
    assert!(matches!(illegal(&mini, "g2h3"), I::OffBoard(_)));
    assert!(matches!(illegal(&mini, "b2b4"), I::Illegal(_)), "no double step in minichess7");
    // A pawn on minichess7's last rank stays a pawn and cannot move.
    let stuck = Position::from_fen("P2k3/7/7/7/7/7/3K3 w - - 0 1", Variant::Minichess7).unwrap();
    assert!(stuck.legal_moves().iter().all(|m| m.from != "a7".parse().unwrap()));
    assert!(matches!(illegal(&stuck, "a7b7"), I::Illegal(_)));
}

#[test]
fn malformed_and_illegal_san() {
    let start = Position::new(Variant::Standard);
    for text in ["", "Z", "Zf3", "N", "e9", "Nf", "e8=K", "e8=P", "Pe4", "O-O-O-O", "xe4", "e4+x"] {
        assert!(matches!(start.parse_san(text), Err(SanError::Syntax(_))), "{text:?}: {:?}", start.parse_san(text));
    }
    for text in ["Nf6", "e5", "O-O", "Ke2", "Bb5", "Qxd7", "exd5", "Ng1e2", "1e4", "e2e5"] {
        assert!(matches!(start.parse_san(text), Err(SanError::Illegal(_))), "{text:?}");
    }
    let two_knights = Position::from_fen("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", Variant::Standard).unwrap();
    let err = two_knights.parse_san("Nd2").unwrap_err();
    assert!(matches!(&err, SanError::Ambiguous { candidates, .. } if candidates == "Nbd2, Nfd2"), "{err}");
    assert_eq!(two_knights.parse_san("Nfd2").map(|m| m.to_string()), Ok("f1d2".to_string()));
}

#[test]
fn a_finished_game_refuses_moves_and_bad_moves_change_nothing() {
    let mut game = Game::new(Variant::Standard);
    for m in ["f2f3", "e7e5", "g2g4"] {
        game.play_uci(m).unwrap();
    }
    let before = game.position().fen();
    assert!(matches!(game.play_uci("e2e5"), Err(MoveError::Illegal(_))));
    assert!(matches!(game.play_uci("zz"), Err(MoveError::Uci(_))));
    assert!(matches!(game.play_san("Qh5"), Err(MoveError::San(_))));
    assert_eq!(game.position().fen(), before);
    assert_eq!(game.ply(), 3);
    game.play_san("Qh4#").unwrap();
    assert!(game.is_over());
    assert!(matches!(game.play_uci("a2a3"), Err(MoveError::GameOver)));
    assert!(game.legal_moves().is_empty());
    let _ = START;
}
