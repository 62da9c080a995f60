//! Round trips over every test position: FEN emit∘parse is the identity, every legal move's SAN
//! parses back to it, every legal move's UCI parses back to it, and make/undo restores the position.

use crate::common;

use gambit::chess::{Game, Position, Variant};

fn all_positions() -> Vec<(Variant, String)> {
    let mut out = Vec::new();
    for (variant, file) in [
        (Variant::Standard, "perft_wiki.epd"),
        (Variant::Standard, "perft_standard.epd"),
        (Variant::Minichess7, "perft_minichess7.epd"),
    ] {
        out.extend(common::load(file).into_iter().map(|c| (variant, c.fen)));
    }
    out
}

#[test]
fn fen_round_trips() {
    for (variant, fen) in all_positions() {
        let pos = Position::from_fen(&fen, variant).unwrap();
        assert_eq!(pos.fen(), fen);
        assert_eq!(Position::from_fen(&pos.fen(), variant).unwrap(), pos);
    }
}

#[test]
fn san_and_uci_of_every_legal_move_parse_back() {
    let mut checked = 0;
    for (variant, fen) in all_positions() {
        let root = Position::from_fen(&fen, variant).unwrap();
        // The root and every child: twenty-odd thousand moves in all.
        let mut positions = vec![root];
        positions.extend(root.legal_moves().iter().map(|&m| root.after(m)));
        for pos in positions {
            for &m in pos.legal_moves().iter() {
                let san = pos.san(m);
                assert_eq!(pos.parse_san(&san), Ok(m), "{} in {}", san, pos.fen());
                assert_eq!(pos.parse_uci(&m.to_string()), Ok(m), "{m} in {}", pos.fen());
                checked += 1;
            }
        }
    }
    assert!(checked > 20_000, "only {checked} moves checked");
}

#[test]
fn play_then_undo_restores_the_position() {
    for (variant, fen) in all_positions() {
        let pos = Position::from_fen(&fen, variant).unwrap();
        for &m in pos.legal_moves().iter() {
            let mut after = pos;
            let undo = after.play_unchecked(m);
            assert_eq!(
                Position::from_fen(&after.fen(), variant).map(|p| p.hash()),
                Ok(after.hash()),
                "hash after {m} in {fen}"
            );
            after.undo(m, &undo);
            assert_eq!(after, pos, "undo of {m} in {fen}");
        }
        // Through the game's move stack too: two plies deep and back.
        let mut game = Game::from_position(pos);
        if let Some(&m) = pos.legal_moves().first() {
            game.play(m).unwrap();
            if let Some(&reply) = game.legal_moves().first() {
                game.play(reply).unwrap();
            }
            while game.undo().is_some() {}
            assert_eq!(*game.position(), pos);
        }
    }
}
