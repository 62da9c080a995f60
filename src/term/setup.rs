//! `gambit play --setup`: the setup mode of the CS246 chess design, before the game starts.
//! The player places and removes pieces, chooses who moves and which rules apply, and `done`
//! starts the game from that position once it is one a game can start from (the reason is
//! shown until then). The board is drawn again after each command.
//!
//! Commands: `+ K e1` (place; fairy letters C, A, F in minichess7), `- e1` (remove),
//! `= white|black` (side to move), `castling on|off`, `enpassant on|off`, `fen FEN`, `clear`,
//! `start`, `done`, `help`, `quit`.

use super::board::glyph;
use super::TermError;
use crate::chess::{Color, Game, Piece, Role, Rules, StartPosition, Variant};
use crate::protocol::RulesSpec;

/// A position being set up.
#[derive(Clone, Debug)]
pub struct Setup {
    variant: Variant,
    /// Row-major from rank 1, file a: `squares[rank * size + file]`.
    squares: Vec<Option<Piece>>,
    turn: Color,
    /// The rule toggles the game will be created with.
    castling: bool,
    en_passant: bool,
    /// The castling and en passant fields of a FEN loaded with `fen`, kept until the board
    /// changes (the board alone cannot say whether a king or rook has moved).
    loaded: Option<(String, String)>,
}

/// What a command asks of the loop.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// The position changed (or was shown): draw it again.
    Changed,
    /// Text to print, nothing changed.
    Say(String),
    /// Start the game from this FEN with these rules.
    Done { fen: String, castling: bool, en_passant: bool },
    /// Leave without a game.
    Quit,
}

impl Setup {
    /// The variant's start position, White to move, every rule on.
    pub fn new(variant: Variant) -> Setup {
        let mut setup = Setup {
            variant,
            squares: vec![None; usize::from(variant.size()).pow(2)],
            turn: Color::White,
            castling: true,
            en_passant: true,
            loaded: None,
        };
        // The start FEN is the variant's own: it always reads.
        let _ = setup.load(variant.initial_fen());
        setup.loaded = None;
        setup
    }

    fn size(&self) -> usize {
        usize::from(self.variant.size())
    }

    /// Carries out one line; an error says what is wrong with it, and changes nothing.
    pub fn command(&mut self, line: &str) -> Result<Step, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => Ok(Step::Say(String::new())),
            ["+", letter, square] => {
                let piece = self.piece(letter)?;
                let at = self.square(square)?;
                self.squares[at] = Some(piece);
                self.loaded = None;
                Ok(Step::Changed)
            }
            ["-", square] => {
                let at = self.square(square)?;
                if self.squares[at].take().is_none() {
                    return Err(format!("{square} is already empty"));
                }
                self.loaded = None;
                Ok(Step::Changed)
            }
            ["=", side] => {
                self.turn = match side.to_ascii_lowercase().as_str() {
                    "white" | "w" => Color::White,
                    "black" | "b" => Color::Black,
                    _ => return Err(format!("= takes white or black, not {side:?}")),
                };
                Ok(Step::Changed)
            }
            ["castling", on] => {
                self.castling = switch("castling", on)?;
                Ok(Step::Changed)
            }
            ["enpassant", on] => {
                self.en_passant = switch("enpassant", on)?;
                Ok(Step::Changed)
            }
            ["fen", ..] => {
                let fen = line.trim_start().trim_start_matches("fen").trim();
                self.load(fen)?;
                Ok(Step::Changed)
            }
            ["clear"] => {
                self.squares.iter_mut().for_each(|s| *s = None);
                self.loaded = None;
                Ok(Step::Changed)
            }
            ["start"] => {
                *self = Setup { castling: self.castling, en_passant: self.en_passant, ..Setup::new(self.variant) };
                Ok(Step::Changed)
            }
            ["start", which] if self.variant.king_takes_rook() => {
                let start = match *which {
                    "random" => StartPosition::random(&mut rand::rng()),
                    number => number.parse::<StartPosition>().map_err(|e| e.to_string())?,
                };
                self.load(&start.fen())?;
                Ok(Step::Changed)
            }
            ["done"] => match self.check() {
                Ok(_) => Ok(Step::Done { fen: self.fen(), castling: self.castling, en_passant: self.en_passant }),
                Err(why) => Err(format!("cannot start from here: {why}")),
            },
            ["help"] => Ok(Step::Say(help(self.variant))),
            ["quit"] => Ok(Step::Quit),
            [first, ..] => Err(format!(
                "{:?} is not a setup command ({}); type help",
                first,
                match *first {
                    "+" => "+ LETTER SQUARE, e.g. + K e1",
                    "-" => "- SQUARE, e.g. - e1",
                    "=" => "= white or = black",
                    "castling" | "enpassant" => "on or off",
                    "start" => "start, or in chess960 start N (0 to 959) or start random",
                    _ => "+, -, =, castling, enpassant, fen, clear, start, done, help, quit",
                }
            )),
        }
    }

    /// The piece a letter names, if this variant has it.
    fn piece(&self, letter: &str) -> Result<Piece, String> {
        let mut chars = letter.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return Err(format!("{letter:?} is not a piece letter (K Q R B N P; lower case for Black)"));
        };
        let allowed = match self.variant {
            Variant::Standard | Variant::Chess960 => "KQRBNP",
            Variant::Minichess7 => "KQRBNPCAF",
        };
        match Piece::from_char(c) {
            Some(piece) if allowed.contains(c.to_ascii_uppercase()) => Ok(piece),
            Some(_) => Err(format!("{c} is a minichess7 piece; this game is standard chess")),
            None => Err(format!("{c:?} is not a piece letter ({allowed}; lower case for Black)")),
        }
    }

    /// The index of a square of this board, such as `e1`.
    fn square(&self, text: &str) -> Result<usize, String> {
        let size = self.size();
        let bytes = text.as_bytes();
        let last_file = char::from(b'a' + self.variant.size() - 1);
        let bad = || format!("{text:?} is not a square of this board (a1 to {last_file}{size})");
        let [file, rank] = bytes else { return Err(bad()) };
        let file = usize::from(file.to_ascii_lowercase().wrapping_sub(b'a'));
        let rank = usize::from(rank.wrapping_sub(b'1'));
        if file >= size || rank >= size {
            return Err(bad());
        }
        Ok(rank * size + file)
    }

    /// Reads the board, side, castling and en passant of `fen`; the board stays as it was if
    /// the text cannot be read.
    fn load(&mut self, fen: &str) -> Result<(), String> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let Some(board) = fields.first() else { return Err("fen needs a position: fen FEN".into()) };
        let size = self.size();
        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != size {
            return Err(format!("the board has {} ranks; this one needs {size}", rows.len()));
        }
        let mut squares = vec![None; size * size];
        for (i, row) in rows.iter().enumerate() {
            let rank = size - 1 - i;
            let mut file = 0;
            for c in row.chars() {
                if let Some(n) = c.to_digit(10) {
                    file += n as usize;
                    continue;
                }
                let piece = self.piece(&c.to_string())?;
                if file >= size {
                    return Err(format!("rank {} has more than {size} squares", rank + 1));
                }
                squares[rank * size + file] = Some(piece);
                file += 1;
            }
            if file != size {
                return Err(format!("rank {} has {file} squares, not {size}", rank + 1));
            }
        }
        let turn = match fields.get(1).copied() {
            None | Some("w") => Color::White,
            Some("b") => Color::Black,
            Some(other) => return Err(format!("the side to move is w or b, not {other:?}")),
        };
        self.squares = squares;
        self.turn = turn;
        let field = |i: usize| fields.get(i).copied().unwrap_or("-").to_string();
        self.loaded = Some((field(2), field(3)));
        Ok(())
    }

    /// Castling rights: as loaded, or every right whose king and rook stand on their squares
    /// (standard chess: e1/e8 and the corners; Chess960: the king on its back rank and a rook
    /// on that side of it, written `K`/`Q` for the outermost, as X-FEN does).
    fn castling_field(&self) -> String {
        if !self.castling || !self.variant.has_castling() {
            return "-".into();
        }
        if let Some((rights, _)) = &self.loaded {
            return rights.clone();
        }
        let size = self.size();
        let standard = !self.variant.king_takes_rook();
        let mut rights = String::new();
        for (color, rank) in [(Color::White, 0), (Color::Black, size - 1)] {
            let at = |file: usize, role: Role| self.squares[rank * size + file] == Some(Piece::new(color, role));
            let Some(king) = (0..size).find(|&f| at(f, Role::King)).filter(|&k| !standard || k == 4) else {
                continue;
            };
            let kingside =
                if standard { at(size - 1, Role::Rook) } else { (king + 1..size).any(|f| at(f, Role::Rook)) };
            let queenside = if standard { at(0, Role::Rook) } else { (0..king).any(|f| at(f, Role::Rook)) };
            for (has, letter) in [(kingside, 'k'), (queenside, 'q')] {
                if has {
                    rights.push(if color == Color::White { letter.to_ascii_uppercase() } else { letter });
                }
            }
        }
        if rights.is_empty() {
            "-".into()
        } else {
            rights
        }
    }

    /// The position as FEN (halfmove clock 0, move 1).
    pub fn fen(&self) -> String {
        let size = self.size();
        let mut rows = Vec::new();
        for rank in (0..size).rev() {
            let mut row = String::new();
            let mut empty = 0;
            for file in 0..size {
                match self.squares[rank * size + file] {
                    Some(piece) => {
                        if empty > 0 {
                            row.push_str(&empty.to_string());
                            empty = 0;
                        }
                        row.push(piece.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                row.push_str(&empty.to_string());
            }
            rows.push(row);
        }
        let side = if self.turn == Color::White { "w" } else { "b" };
        let ep = match &self.loaded {
            Some((_, ep)) if self.en_passant => ep.clone(),
            _ => "-".into(),
        };
        format!("{} {side} {} {ep} 0 1", rows.join("/"), self.castling_field())
    }

    /// The rules the game would be played under.
    fn rules(&self) -> Rules {
        Rules { castling: self.castling, en_passant: self.en_passant, ..Rules::default() }
    }

    /// The number of legal moves if a game can start here, else why not (as the server
    /// would say it).
    pub fn check(&self) -> Result<usize, String> {
        let game = Game::from_fen(self.variant, &self.fen(), self.rules()).map_err(|e| e.to_string())?;
        if let Some(outcome) = game.outcome() {
            return Err(format!("that position is already decided ({outcome}); there is nothing to play"));
        }
        Ok(game.legal_moves().len())
    }

    /// The board, the FEN and whether a game can start from it.
    pub fn render(&self) -> String {
        let size = self.size();
        let letters: String = (0..size).map(|f| format!(" {} ", char::from(b'a' + f as u8))).collect();
        let letters = format!("   {}\n", letters.trim_end());
        let mut out = letters.clone();
        for rank in (0..size).rev() {
            out.push_str(&format!("{:>2} ", rank + 1));
            for file in 0..size {
                let shown = self.squares[rank * size + file].map_or('·', glyph);
                out.push_str(&format!(" {shown} "));
            }
            out.push_str(&format!(" {}\n", rank + 1));
        }
        out.push_str(&letters);
        let side = if self.turn == Color::White { "White" } else { "Black" };
        let on_off = |on: bool| if on { "on" } else { "off" };
        out.push_str(&format!(
            "{side} to move · castling {} · en passant {}\nFEN: {}\n",
            on_off(self.castling),
            on_off(self.en_passant),
            self.fen()
        ));
        out.push_str(&match self.check() {
            Ok(n) => format!("Ready: {n} legal moves. Type done to start.\n"),
            Err(why) => format!("Not playable yet: {why}\n"),
        });
        out
    }
}

/// The setup loop on the player's input: the position and rules to play from once `done`
/// accepts it, or None if the player quit.
pub async fn run(
    variant: Variant,
    lines: &mut super::session::InputLines,
) -> Result<Option<(String, RulesSpec)>, TermError> {
    let mut setup = Setup::new(variant);
    println!("Set up the position (help lists the commands; done starts the game).\n");
    print!("{}", setup.render());
    loop {
        let Ok(Some(line)) = lines.next_line().await else {
            return Err(TermError::Refused("the input ended before done: no game was made".into()));
        };
        match setup.command(&line) {
            Ok(Step::Changed) => print!("{}", setup.render()),
            Ok(Step::Say(text)) => print!("{text}"),
            Ok(Step::Quit) => return Ok(None),
            Ok(Step::Done { fen, castling, en_passant }) => {
                let rules = RulesSpec { castling, en_passant, ..RulesSpec::default() };
                return Ok(Some((fen, rules)));
            }
            Err(why) => println!("{why}"),
        }
    }
}

fn switch(name: &str, word: &str) -> Result<bool, String> {
    match word.to_ascii_lowercase().as_str() {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{name} takes on or off, not {word:?}")),
    }
}

/// The setup commands.
pub fn help(variant: Variant) -> String {
    let letters = match variant {
        Variant::Standard | Variant::Chess960 => "K Q R B N P",
        Variant::Minichess7 => "K Q R B N P, and the fairy pieces C (empress), A (princess), F (ferz)",
    };
    let starts = if variant.king_takes_rook() {
        "\x20 start 272     Chess960 start number 272 (0 to 959; start random for any)\n"
    } else {
        ""
    };
    format!(
        "Setup commands:\n\
         \x20 + K e1        place a piece: {letters}; upper case White, lower case Black\n\
         \x20 - e1          remove the piece on e1\n\
         \x20 = black       who moves first (white or black)\n\
         \x20 castling off  castling on or off for this game (enpassant on/off likewise)\n\
         \x20 fen FEN       set the whole position from a FEN\n\
         \x20 clear         empty the board;  start  the usual start position\n\
         {starts}\
         \x20 done          start the game from this position (once it is playable)\n\
         \x20 quit          leave without a game\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chess960_starts_by_number_with_their_rights() {
        let mut setup = Setup::new(Variant::Chess960);
        setup.command("start 272").expect("a start number");
        assert_eq!(setup.fen(), "bbnrknrq/pppppppp/8/8/8/8/PPPPPPPP/BBNRKNRQ w KQkq - 0 1");
        // Rights follow the rooks on any file: without the g1 rook White keeps only Q.
        setup.command("- g1").expect("a square");
        assert!(setup.fen().contains(" w Qkq "), "{}", setup.fen());
        assert!(setup.check().is_ok(), "{:?}", setup.check());
        for bad in ["start 960", "start x"] {
            let before = setup.fen();
            assert!(setup.command(bad).is_err(), "{bad}");
            assert_eq!(setup.fen(), before);
        }
        assert!(Setup::new(Variant::Standard).command("start 272").is_err(), "numbers are Chess960's");
    }

    #[test]
    fn the_start_position_reads_as_its_fen() {
        let setup = Setup::new(Variant::Standard);
        assert_eq!(setup.fen(), Variant::Standard.initial_fen());
        assert_eq!(setup.check(), Ok(20));
        let mini = Setup::new(Variant::Minichess7);
        assert_eq!(mini.fen(), Variant::Minichess7.initial_fen());
    }

    #[test]
    fn commands_change_the_position_and_bad_ones_change_nothing() {
        let mut s = Setup::new(Variant::Standard);
        assert_eq!(s.command("clear"), Ok(Step::Changed));
        assert!(s.check().is_err_and(|e| e.contains("no king")), "{:?}", s.check());
        assert!(s.command("done").is_err_and(|e| e.contains("cannot start from here")));
        s.command("+ K e1").expect("place");
        s.command("+ k e8").expect("place");
        s.command("+ R h1").expect("place");
        assert_eq!(s.fen(), "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        s.command("castling off").expect("castling");
        assert_eq!(s.fen(), "4k3/8/8/8/8/8/8/4K2R w - - 0 1");
        s.command("= black").expect("side");
        let before = s.fen();
        for bad in ["+ C d4", "+ X d4", "+ K i9", "+ KK e4", "- d4", "= red", "castling maybe", "fly", "+ K"] {
            assert!(s.command(bad).is_err(), "{bad}");
            assert_eq!(s.fen(), before, "{bad} changed nothing");
        }
        assert_eq!(
            s.command("done"),
            Ok(Step::Done { fen: "4k3/8/8/8/8/8/8/4K2R b - - 0 1".into(), castling: false, en_passant: true })
        );
    }

    #[test]
    fn a_fen_is_loaded_and_fairy_pieces_are_placed_in_minichess7() {
        let mut s = Setup::new(Variant::Minichess7);
        s.command("clear").expect("clear");
        s.command("+ K d1").expect("king");
        s.command("+ k d7").expect("king");
        s.command("+ C a1").expect("empress");
        s.command("+ f g7").expect("ferz");
        assert_eq!(s.fen(), "3k2f/7/7/7/7/7/C2K3 w - - 0 1");
        assert!(s.check().is_ok(), "{:?}", s.check());
        assert!(s.render().contains(" C "), "{}", s.render());
        let mut std = Setup::new(Variant::Standard);
        std.command("fen rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2").expect("fen");
        assert_eq!(std.fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 1");
        assert!(std.command("fen 8/8 w").is_err());
        assert!(std.command("fen").is_err());
        assert!(std.command("- a8").is_ok());
        assert_eq!(
            std.fen(),
            "1nbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQk - 0 1",
            "rights from the board now"
        );
    }
}
