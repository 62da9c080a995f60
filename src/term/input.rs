//! What the player types: a command word or a move, and turning a move typed in UCI or SAN into
//! the UCI the server takes, checked against the position first so a typo never reaches it.

use thiserror::Error;

use crate::chess::{Move, Position, SanError, UciMove};

/// One line of input, understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Nothing typed.
    Empty,
    Help,
    /// Take back (against a bot), offer to take back, or accept the opponent's undo offer.
    Undo,
    /// Offer a draw, or accept the opponent's offer.
    Draw,
    /// Refuse the opponent's pending offer.
    Decline,
    Resign,
    /// Call the game off (only before both sides have moved).
    Abort,
    /// Claim the game (`true`: the win, `false`: a draw) of an opponent who has left.
    Claim {
        win: bool,
    },
    /// After the end: offer a rematch, or accept the opponent's offer.
    Rematch,
    /// In an arena game, before one's first move: halve one's time for a point more on a win.
    Berserk,
    /// Write a line in the chat (the players' room for a player, the spectators' room for a
    /// spectator).
    Say(String),
    /// Turn the board around.
    Flip,
    Quit,
    /// Anything else: a move in UCI or SAN, to be checked against the position.
    Move(String),
}

/// Reads one line. Command words are case-insensitive; moves keep their case, because in SAN
/// `Bc4` (bishop) and `bc4` (pawn) are different moves.
pub fn parse(line: &str) -> Command {
    let text = line.trim();
    if let Some(said) = text.strip_prefix("say ").or_else(|| text.strip_prefix("Say ")) {
        return Command::Say(said.trim().to_string());
    }
    match text.to_ascii_lowercase().as_str() {
        "" => Command::Empty,
        "help" | "?" | "h" => Command::Help,
        "undo" | "takeback" | "take back" => Command::Undo,
        "draw" | "offer draw" | "accept" => Command::Draw,
        "decline" | "refuse" => Command::Decline,
        "resign" => Command::Resign,
        "abort" => Command::Abort,
        "claim" | "claim win" => Command::Claim { win: true },
        "claim draw" => Command::Claim { win: false },
        "rematch" | "again" => Command::Rematch,
        "berserk" => Command::Berserk,
        "say" => Command::Say(String::new()),
        "flip" => Command::Flip,
        "quit" | "exit" | "bye" => Command::Quit,
        _ => Command::Move(text.to_string()),
    }
}

/// The text of `help`: the commands and the board's legend.
pub fn help(spectator: bool) -> String {
    let commands = if spectator {
        "You are watching this game. Commands:\n\
         \x20 say TEXT  write in the spectators' chat\n\
         \x20 flip      turn the board around\n\
         \x20 quit      stop watching\n\
         \x20 help      this text\n"
    } else {
        "Type a move in UCI (e2e4, e7e8q) or SAN (e4, Nf3, exd5, O-O, e8=Q), or a command:\n\
         \x20 undo      take back your last move against a bot; against a person, ask to take it back\n\
         \x20           (or accept their request)\n\
         \x20 draw      offer a draw, or accept your opponent's offer\n\
         \x20 decline   refuse your opponent's offer\n\
         \x20 resign    give up the game\n\
         \x20 abort     call the game off, with no result, before both sides have moved\n\
         \x20 claim     once your opponent has been away for the grace period: take the win\n\
         \x20           (claim draw: call it a draw)\n\
         \x20 rematch   once the game is over: offer to play again (or accept the offer)\n\
         \x20 berserk   in an arena game, before your first move: half your time for a point\n\
         \x20           more if you win\n\
         \x20 say TEXT  write to your opponent (the players' chat)\n\
         \x20 flip      turn the board around\n\
         \x20 quit      leave (the game stays on the server)\n\
         \x20 help      this text\n"
    };
    format!(
        "{commands}\
         Board: ♔ ♕ ♖ ♗ ♘ ♙ are White's king, queen, rook, bishop, knight and pawn,\n\
         \x20      ♚ ♛ ♜ ♝ ♞ ♟ Black's; · is an empty square.\n\
         Minichess7 adds C empress (rook + knight), A princess (bishop + knight) and F ferz (one step\n\
         diagonally): uppercase for White, lowercase for Black.\n\
         [x] marks the squares of the last move, (x) a king in check.\n"
    )
}

/// Why a typed move cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveInputError {
    /// Neither UCI nor SAN.
    #[error("{0:?} is neither a move nor a command; type a move like e2e4 or Nf3, or help")]
    NotAMove(String),
    /// Well-formed, but not legal in this position.
    #[error("{0}")]
    Illegal(String),
    /// SAN that fits more than one legal move.
    #[error("{0}")]
    Ambiguous(String),
}

/// The legal move `text` names in `pos`, written in UCI (`e2e4`) or SAN (`Nf3`, `O-O`, `e8=Q`).
/// `legal` is the server's list of legal moves in UCI, which also knows the game's rule options
/// (castling or en passant may be switched off); an empty list is not consulted.
pub fn resolve(pos: &Position, legal: &[String], text: &str) -> Result<Move, MoveInputError> {
    let text = text.trim();
    let mv = match text.parse::<UciMove>() {
        // The rules core also reads the king onto its own rook (`e1h1`) as castling, as the
        // board lets one castle.
        Ok(uci) => uci.to_move(pos).map_err(|e| MoveInputError::Illegal(e.to_string()))?,
        Err(_) => from_san(pos, text)?,
    };
    let uci = mv.to_string();
    if !legal.is_empty() && !legal.contains(&uci) {
        return Err(MoveInputError::Illegal(format!("{uci} is not allowed by this game's rules")));
    }
    Ok(mv)
}

fn from_san(pos: &Position, text: &str) -> Result<Move, MoveInputError> {
    // However it is capitalised ("nf3", "o-o"), as long as it names one move.
    pos.parse_san_lenient(text).map_err(|err| match err {
        SanError::Syntax(_) => MoveInputError::NotAMove(text.to_string()),
        SanError::Illegal(_) => MoveInputError::Illegal(format!("{text} is not a legal move in this position")),
        SanError::Ambiguous { .. } => MoveInputError::Ambiguous(err.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{Game, Variant};

    fn legal(pos: &Position) -> Vec<String> {
        pos.legal_moves().iter().map(Move::to_string).collect()
    }

    fn uci(pos: &Position, text: &str) -> Result<String, MoveInputError> {
        resolve(pos, &legal(pos), text).map(|m| m.to_string())
    }

    #[test]
    fn help_names_every_command_and_the_legend() {
        let text = help(false);
        for word in ["undo", "draw", "decline", "resign", "flip", "quit", "help", "e2e4", "Nf3", "O-O", "e8=Q"] {
            assert!(text.contains(word), "{word}: {text}");
        }
        for legend in ["♔", "♚", "C empress", "A princess", "F ferz", "[x]", "(x)"] {
            assert!(text.contains(legend), "{legend}: {text}");
        }
        assert!(!help(true).contains("resign"));
    }

    #[test]
    fn commands_are_case_insensitive_words() {
        assert_eq!(parse("  help "), Command::Help);
        assert_eq!(parse("say  good game! "), Command::Say("good game!".into()));
        assert_eq!(parse("say"), Command::Say(String::new()));
        assert_eq!(parse("Rematch"), Command::Rematch);
        assert_eq!(parse("HELP"), Command::Help);
        assert_eq!(parse("?"), Command::Help);
        assert_eq!(parse("Undo"), Command::Undo);
        assert_eq!(parse("draw"), Command::Draw);
        assert_eq!(parse("decline"), Command::Decline);
        assert_eq!(parse("resign"), Command::Resign);
        assert_eq!(parse("Berserk"), Command::Berserk);
        assert_eq!(parse(" Abort "), Command::Abort);
        assert_eq!(parse("Claim"), Command::Claim { win: true });
        assert_eq!(parse("claim draw"), Command::Claim { win: false });
        assert_eq!(parse("flip"), Command::Flip);
        assert_eq!(parse("quit"), Command::Quit);
        assert_eq!(parse("exit"), Command::Quit);
        assert_eq!(parse(""), Command::Empty);
        assert_eq!(parse("   \t"), Command::Empty);
        assert_eq!(parse(" Nf3 "), Command::Move("Nf3".into()));
        assert_eq!(parse("e2e4"), Command::Move("e2e4".into()));
    }

    #[test]
    fn uci_and_san_resolve_to_the_same_move() {
        let pos = Position::new(Variant::Standard);
        assert_eq!(uci(&pos, "e2e4").unwrap(), "e2e4");
        assert_eq!(uci(&pos, "e4").unwrap(), "e2e4");
        assert_eq!(uci(&pos, "Nf3").unwrap(), "g1f3");
        assert_eq!(uci(&pos, "nf3").unwrap(), "g1f3");
        assert_eq!(uci(&pos, "g1f3").unwrap(), "g1f3");
    }

    #[test]
    fn castling_and_promotion() {
        let pos = Position::from_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1", Variant::Standard).unwrap();
        assert_eq!(uci(&pos, "O-O").unwrap(), "e1g1");
        assert_eq!(uci(&pos, "0-0-0").unwrap(), "e1c1");
        assert_eq!(uci(&pos, "e1g1").unwrap(), "e1g1");
        // The king onto its own rook castles, as on the board.
        assert_eq!(uci(&pos, "e1h1").unwrap(), "e1g1");
        assert_eq!(uci(&pos, "e1a1").unwrap(), "e1c1");
        assert_eq!(uci(&pos, "b8=Q").unwrap(), "b7b8q");
        assert_eq!(uci(&pos, "bxa8=N").unwrap(), "b7a8n");
        assert_eq!(uci(&pos, "b7b8r").unwrap(), "b7b8r");
        let err = uci(&pos, "b7b8").unwrap_err();
        assert!(err.to_string().contains("needs a promotion piece"), "{err}");
        // Chess960 from start 272 with the knights gone: the king takes its own rook.
        let pos =
            Position::from_fen("bbnrk1rq/pppppppp/8/8/8/8/PPPPPPPP/BB1RK1RQ w KQkq - 0 1", Variant::Chess960).unwrap();
        assert_eq!(uci(&pos, "O-O").unwrap(), "e1g1");
        assert_eq!(uci(&pos, "O-O-O").unwrap(), "e1d1");
        assert_eq!(uci(&pos, "e1d1").unwrap(), "e1d1");
        assert!(uci(&pos, "e1c1").is_err(), "the king's two-square step is castling only towards a corner rook");
    }

    #[test]
    fn illegal_and_nonsense_input_say_why() {
        let pos = Position::new(Variant::Standard);
        let err = uci(&pos, "e2e5").unwrap_err();
        assert!(matches!(err, MoveInputError::Illegal(_)), "{err:?}");
        assert!(err.to_string().contains("e2e5 is not a legal move"), "{err}");
        let err = uci(&pos, "Nf6").unwrap_err();
        assert_eq!(err.to_string(), "Nf6 is not a legal move in this position");
        let err = uci(&pos, "e7e5").unwrap_err();
        assert!(err.to_string().contains("black's"), "{err}");
        let err = uci(&pos, "hello").unwrap_err();
        assert!(matches!(err, MoveInputError::NotAMove(_)), "{err:?}");
        for junk in ["", "♔", "e2e4e5", "Zz9", "=Q", "O-O-O-O", "\u{0}"] {
            assert!(uci(&pos, junk).is_err(), "{junk:?}");
        }
    }

    #[test]
    fn ambiguous_san_lists_the_candidates() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/2N1K1N1 w - - 0 1", Variant::Standard).unwrap();
        let err = uci(&pos, "Ne2").unwrap_err();
        assert!(matches!(err, MoveInputError::Ambiguous(_)), "{err:?}");
        assert!(err.to_string().contains("Nge2"), "{err}");
        assert_eq!(uci(&pos, "Nge2").unwrap(), "g1e2");
    }

    #[test]
    fn the_servers_list_has_the_last_word() {
        // With castling switched off the server leaves e1g1 out of its list.
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1", Variant::Standard).unwrap();
        let without_castling: Vec<String> = legal(&pos).into_iter().filter(|m| m != "e1g1").collect();
        let err = resolve(&pos, &without_castling, "O-O").unwrap_err();
        assert!(err.to_string().contains("not allowed by this game's rules"), "{err}");
    }

    #[test]
    fn minichess_fairy_moves() {
        let mut game = Game::new(Variant::Minichess7);
        game.play_uci("c2c3").unwrap();
        game.play_uci("c6c5").unwrap();
        let pos = game.position();
        // The princess on e1 (bishop + knight) can jump to d3 or f3.
        assert_eq!(uci(pos, "Ad3").unwrap(), "e1d3");
        assert_eq!(uci(pos, "e1f3").unwrap(), "e1f3");
        // No promotion and no double step in minichess7.
        assert!(uci(pos, "d2d4").is_err());
    }
}
