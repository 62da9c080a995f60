//! Named openings: lichess's CC0 table (`data/openings/`, ECO code, name, moves), built into
//! the binary and matched by position, so a game that reaches a named position by another
//! move order (a transposition) is named too.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{Game, Position, Variant};

/// A named opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The ECO code, `"C60"`.
    pub eco: &'static str,
    /// `"Ruy Lopez"`, `"Sicilian Defense: Najdorf Variation"`.
    pub name: &'static str,
}

/// The table's files, as shipped (see data/openings/README.md for where they come from).
const FILES: [&str; 5] = [
    include_str!("../../data/openings/a.tsv"),
    include_str!("../../data/openings/b.tsv"),
    include_str!("../../data/openings/c.tsv"),
    include_str!("../../data/openings/d.tsv"),
    include_str!("../../data/openings/e.tsv"),
];

/// A named position: its opening, and how many moves its line takes (the longer line wins
/// when two name one position).
type Table = HashMap<u64, (Opening, usize)>;

/// The table, built on first use: every line played out from the start position with our own
/// SAN reader, keyed by the Zobrist hash of the position it reaches.
fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Table::new();
        for line in FILES.iter().flat_map(|file| file.lines().skip(1)) {
            if let Some((hash, plies, opening)) = named_position(line) {
                let entry = table.entry(hash).or_insert((opening, plies));
                if plies > entry.1 {
                    *entry = (opening, plies);
                }
            }
        }
        table
    })
}

/// One `eco<TAB>name<TAB>movetext` line: the position it names. A line that does not play out
/// is skipped (the table is data, not code: one bad line must not take the others down).
fn named_position(line: &'static str) -> Option<(u64, usize, Opening)> {
    let mut fields = line.split('\t');
    let (eco, name, movetext) = (fields.next()?, fields.next()?, fields.next()?);
    let mut position = Position::new(Variant::Standard);
    let mut plies = 0;
    for token in movetext.split_whitespace().filter(|t| !t.ends_with('.')) {
        let m = position.parse_san(token).ok()?;
        position.play_unchecked(m);
        plies += 1;
    }
    Some((position.hash(), plies, Opening { eco, name }))
}

/// The opening this position is named for, if any (standard chess only).
pub fn named(position: &Position) -> Option<Opening> {
    if position.variant() != Variant::Standard {
        return None;
    }
    table().get(&position.hash()).map(|(opening, _)| *opening)
}

/// The opening of a game: the last named position its moves reached, kept once the game has
/// left the book. Only standard games from the usual start position have one.
pub fn of_game(game: &Game) -> Option<Opening> {
    if !from_the_start(game) {
        return None;
    }
    game.positions().iter().skip(1).rev().find_map(named)
}

/// The opening after one more move: the new position's name, or the one before.
pub fn after(before: Option<Opening>, game: &Game) -> Option<Opening> {
    if !from_the_start(game) {
        return None;
    }
    named(game.position()).or(before)
}

/// True for a standard game from the usual start position: the only games the table names.
fn from_the_start(game: &Game) -> bool {
    game.variant() == Variant::Standard && game.initial_position().hash() == Position::new(Variant::Standard).hash()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opening_of(moves: &str) -> Option<Opening> {
        let mut game = Game::new(Variant::Standard);
        for san in moves.split_whitespace() {
            game.play_san(san).expect("legal");
        }
        of_game(&game)
    }

    #[test]
    fn every_line_of_the_table_plays_out() {
        let lines = FILES.iter().flat_map(|f| f.lines().skip(1)).count();
        assert!(lines > 3000, "{lines}");
        let bad: Vec<&str> =
            FILES.iter().flat_map(|f| f.lines().skip(1)).filter(|l| named_position(l).is_none()).collect();
        assert!(bad.is_empty(), "lines that do not play out: {bad:?}");
        // Some lines name the same position; most positions have one name.
        assert!(table().len() > 3000, "{}", table().len());
    }

    #[test]
    fn known_lines_are_named() {
        let ruy = Opening { eco: "C60", name: "Ruy Lopez" };
        assert_eq!(opening_of("e4 e5 Nf3 Nc6 Bb5"), Some(ruy));
        assert_eq!(opening_of("e4 c5").map(|o| o.name), Some("Sicilian Defense"));
        assert_eq!(
            opening_of("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6").map(|o| o.name),
            Some("Sicilian Defense: Najdorf Variation")
        );
        assert_eq!(opening_of("d4 d5 c4").map(|o| (o.eco, o.name)), Some(("D06", "Queen's Gambit")));
        assert_eq!(opening_of("e4 e6").map(|o| o.name), Some("French Defense"));
        assert_eq!(opening_of(""), None, "the start position has no name");
    }

    #[test]
    fn a_transposition_is_named_and_a_name_is_kept_out_of_book() {
        let ruy = Some(Opening { eco: "C60", name: "Ruy Lopez" });
        assert_eq!(opening_of("Nf3 Nc6 e4 e5 Bb5"), ruy, "another move order");
        // Out of the book: the last name reached stays.
        assert_eq!(opening_of("e4 e5 Nf3 Nc6 Bb5 h6 h3 h5 a3"), ruy);
        // after() follows a game move by move.
        let mut game = Game::new(Variant::Standard);
        let mut opening = None;
        for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "h6", "h3"] {
            game.play_san(san).expect("legal");
            opening = after(opening, &game);
        }
        assert_eq!(opening, ruy);
    }

    #[test]
    fn only_standard_games_from_the_start_have_one() {
        let mut mini = Game::new(Variant::Minichess7);
        let m = mini.legal_moves()[0];
        mini.play(m).expect("legal");
        assert_eq!(of_game(&mini), None);
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let mut from_fen = Game::from_fen(Variant::Standard, fen, Default::default()).expect("fen");
        from_fen.play_san("e4").expect("legal");
        from_fen.play_san("c5").expect("legal");
        assert_eq!(of_game(&from_fen).map(|o| o.name), Some("Sicilian Defense"), "the usual start, typed as FEN");
        let other = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1";
        let mut odd = Game::from_fen(Variant::Standard, other, Default::default()).expect("fen");
        odd.play_san("e4").expect("legal");
        assert_eq!(of_game(&odd), None);
    }
}
