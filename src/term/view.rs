//! What the terminal knows about one game, kept up to date from the server's events, and the
//! text shown for it: the board, the move list, the FEN, the status line, and a plain-words note
//! for each event.

use std::time::Instant;

use crate::chess::{Color, EndReason, MoveNumbers, Outcome, Position, UciMove, Variant};
use crate::protocol::{
    Applied, ClockView, Follower, GameId, GameResult, GameState, OfferKind, OfferView, SeatView, Seats, ServerMessage,
    Status,
};

use super::board::{self, Marks};
use super::clock;

/// Width at which the move list wraps.
const MOVES_WIDTH: usize = 72;

/// The client's copy of a game.
#[derive(Clone, Debug)]
pub struct GameView {
    game: GameId,
    variant: Variant,
    /// Where the game started, for move numbers; None if the server sent a FEN we cannot read.
    initial: Option<Position>,
    position: Option<Position>,
    fen: String,
    moves: Vec<String>,
    san: Vec<String>,
    turn: Color,
    status: Status,
    result: Option<GameResult>,
    reason: Option<EndReason>,
    seats: Seats,
    legal: Vec<String>,
    check: bool,
    watchers: usize,
    offer: Option<OfferView>,
    /// The seat this client holds; None for a spectator.
    me: Option<Color>,
    flipped: bool,
    /// The clock of a timed game as of the last event that carried it, and when that came.
    clock: Option<(ClockView, Instant)>,
    /// Decides which messages apply (versions, consistency): the protocol's one rule.
    follower: Follower,
}

/// What an event changed, for the screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Update {
    /// Lines to print, in order, before any board.
    pub notes: Vec<String>,
    /// The board and status should be drawn again.
    pub redraw: bool,
    /// The view is out of step with the server: ask it for a fresh `state`.
    pub resync: bool,
}

impl Update {
    fn note(text: String) -> Update {
        Update { notes: vec![text], ..Update::default() }
    }

    fn redraw(notes: Vec<String>) -> Update {
        Update { notes, redraw: true, ..Update::default() }
    }

    /// Adds what `other` changed after what this one did.
    pub fn merge(&mut self, other: Update) {
        self.notes.extend(other.notes);
        self.redraw |= other.redraw;
        self.resync |= other.resync;
    }
}

impl GameView {
    /// The view of a game as a `state` shows it, seen by the holder of `me` (None: a spectator).
    pub fn new(state: GameState, me: Option<Color>) -> GameView {
        let variant = Variant::from(state.variant);
        let mut view = GameView {
            game: state.game.clone(),
            variant,
            initial: None,
            position: None,
            fen: String::new(),
            moves: Vec::new(),
            san: Vec::new(),
            turn: Color::White,
            status: Status::Waiting,
            result: None,
            reason: None,
            seats: state.seats,
            legal: Vec::new(),
            check: false,
            watchers: 0,
            offer: None,
            me,
            flipped: false,
            clock: None,
            follower: Follower::from_state(state.clone()),
        };
        view.replace(state);
        view
    }

    fn replace(&mut self, state: GameState) {
        self.variant = Variant::from(state.variant);
        self.initial = Position::from_fen(&state.initial_fen, self.variant).ok();
        self.position = Position::from_fen(&state.fen, self.variant).ok();
        self.game = state.game;
        self.fen = state.fen;
        self.moves = state.moves;
        self.san = state.san;
        self.turn = state.turn;
        self.status = state.status;
        self.result = state.result;
        self.reason = state.reason;
        self.seats = state.seats;
        self.legal = state.legal;
        self.check = state.check;
        self.watchers = state.watchers;
        self.offer = state.offer;
        self.clock = state.clock.map(|c| (c, Instant::now()));
    }

    /// The game's id.
    pub fn game(&self) -> &str {
        &self.game
    }

    /// The version of the last event applied (for `resume` and `watch` after a reconnect).
    pub fn version(&self) -> u64 {
        self.follower.state().map_or(0, |s| s.v)
    }

    /// The seat this client holds, if any.
    pub fn me(&self) -> Option<Color> {
        self.me
    }

    /// The current position, if the server's FEN could be read.
    pub fn position(&self) -> Option<&Position> {
        self.position.as_ref()
    }

    /// The legal moves in UCI, as the server listed them.
    pub fn legal(&self) -> &[String] {
        &self.legal
    }

    pub fn is_over(&self) -> bool {
        self.status == Status::Ended
    }

    /// True when this client holds the seat to move in a game under way.
    pub fn my_turn(&self) -> bool {
        self.status == Status::Ongoing && self.me == Some(self.turn)
    }

    /// The opponent's pending offer, if there is one this client may answer.
    pub fn offer_to_me(&self) -> Option<OfferKind> {
        let me = self.me?;
        self.offer.filter(|o| o.by != me).map(|o| o.kind)
    }

    /// Turns the board around.
    pub fn flip(&mut self) {
        self.flipped = !self.flipped;
    }

    /// Why a move cannot be played now, if it cannot; checked before anything is sent.
    pub fn why_not_my_turn(&self) -> Option<String> {
        let Some(me) = self.me else {
            return Some("You are watching; spectators cannot move.".into());
        };
        match self.status {
            Status::Ended => Some("The game is over.".into()),
            Status::Waiting => Some("The game has not started yet: waiting for an opponent to join.".into()),
            Status::Ongoing if self.turn != me => {
                Some(format!("It is not your move yet — {}", end_sentence(&self.waiting_for(self.turn))))
            }
            Status::Ongoing => None,
        }
    }

    /// Applies one message from the server; says what to show. Whether it applies at all is
    /// the protocol's [`Follower`]'s rule: events already seen change nothing (a replay after a
    /// reconnect is harmless), and one that does not follow on asks for a fresh `state`.
    pub fn apply(&mut self, message: &ServerMessage) -> Update {
        match self.follower.apply(message) {
            Applied::Applied => {}
            Applied::Ignored => return Update::default(),
            Applied::Resync => return Update { resync: true, ..Update::default() },
        }
        match message {
            ServerMessage::State(state) if state.game == self.game => {
                let before = self.moves.len();
                self.replace(state.clone());
                let after = self.moves.len();
                let mut notes = Vec::new();
                if after < before {
                    let n = before - after;
                    notes
                        .push(format!("{} taken back.", if n == 1 { "One move".into() } else { format!("{n} moves") }));
                }
                Update::redraw(notes)
            }
            ServerMessage::Move { game, v, uci, san, fen, turn, legal, check, clock, .. } if *game == self.game => {
                let mover = turn.other();
                self.moves.push(uci.clone());
                self.san.push(san.clone());
                self.fen = fen.clone();
                self.position = Position::from_fen(fen, self.variant).ok();
                self.turn = *turn;
                self.legal = legal.clone();
                self.check = *check;
                self.offer = None;
                if let Some(clock) = clock {
                    self.clock = Some((*clock, Instant::now()));
                }
                if self.status == Status::Waiting {
                    self.status = Status::Ongoing;
                }
                let numbered = self.numbered(self.san.len() - 1);
                Update::redraw(vec![format!("{} played {numbered}.", capitalise(&self.who(mover)))])
            }
            ServerMessage::End { game, v, result, reason, clock } if *game == self.game => {
                if let Some(clock) = clock {
                    self.clock = Some((*clock, Instant::now()));
                }
                self.status = Status::Ended;
                self.result = Some(*result);
                self.reason = Some(*reason);
                self.legal.clear();
                self.offer = None;
                Update::redraw(Vec::new())
            }
            ServerMessage::Offer { game, v, kind, by } if *game == self.game => {
                self.offer = Some(OfferView { kind: *kind, by: *by });
                Update::note(self.offer_note(*kind, *by))
            }
            ServerMessage::Declined { game, v, kind, by } if *game == self.game => {
                self.offer = None;
                Update::note(self.declined_note(*kind, *by))
            }
            ServerMessage::Seats { game, v, seats, claim } if *game == self.game => {
                let before = self.seats;
                self.seats = *seats;
                let mut notes = Vec::new();
                if let Some(claim) = claim.filter(|c| Some(c.by) == self.me) {
                    notes.push(claim_note(claim.in_ms));
                }
                for side in [Color::White, Color::Black] {
                    if Some(side) == self.me {
                        continue;
                    }
                    if let Some(note) = self.seat_note(side, seat(&before, side), seat(seats, side)) {
                        notes.push(note);
                    }
                }
                if self.status == Status::Waiting
                    && !matches!(seats.white, SeatView::Open)
                    && !matches!(seats.black, SeatView::Open)
                {
                    self.status = Status::Ongoing;
                    return Update::redraw(notes);
                }
                Update { notes, ..Update::default() }
            }
            ServerMessage::Watchers { game, count } if *game == self.game => {
                self.watchers = *count;
                Update::default()
            }
            _ => Update::default(),
        }
    }

    // ---- words ----------------------------------------------------------------------------

    /// Who sits on `side`, for sentences: "you", "Level 3", "White".
    fn who(&self, side: Color) -> String {
        if self.me == Some(side) {
            return "you".into();
        }
        match seat(&self.seats, side) {
            SeatView::Bot { level } => format!("Level {level}"),
            _ => colour_name(side).into(),
        }
    }

    fn waiting_for(&self, side: Color) -> String {
        match seat(&self.seats, side) {
            SeatView::Bot { level } => format!("Level {level} is thinking…"),
            SeatView::Human { online: false } => format!("waiting for {} (offline)", colour_name(side)),
            _ => format!("waiting for {}", colour_name(side)),
        }
    }

    fn offer_note(&self, kind: OfferKind, by: Color) -> String {
        let what = match kind {
            OfferKind::Draw => "a draw",
            OfferKind::Undo => "to take back the last move",
        };
        if self.me == Some(by) {
            let opponent = self.who(by.other());
            return match kind {
                OfferKind::Draw => format!("You offered a draw; waiting for {opponent}'s answer."),
                OfferKind::Undo => format!("You asked to take back your last move; waiting for {opponent}'s answer."),
            };
        }
        let verb = match kind {
            OfferKind::Draw => "offers",
            OfferKind::Undo => "asks",
        };
        let who = capitalise(&self.who(by));
        if self.me.is_some() {
            let accept = match kind {
                OfferKind::Draw => "draw",
                OfferKind::Undo => "undo",
            };
            format!("{who} {verb} {what} — type {accept} to accept or decline to refuse.")
        } else {
            format!("{who} {verb} {what}.")
        }
    }

    fn declined_note(&self, kind: OfferKind, by: Color) -> String {
        let what = match kind {
            OfferKind::Draw => "draw offer",
            OfferKind::Undo => "request to take back",
        };
        let refuser = self.who(by.other());
        if self.me == Some(by) {
            format!("{} declined your {what}.", capitalise(&refuser))
        } else if self.me == Some(by.other()) {
            format!("You declined {}'s {what}.", self.who(by))
        } else {
            format!("{} declined {}'s {what}.", capitalise(&refuser), self.who(by))
        }
    }

    fn seat_note(&self, side: Color, before: SeatView, after: SeatView) -> Option<String> {
        let name = colour_name(side);
        match (before, after) {
            (SeatView::Open, SeatView::Human { .. }) => Some(format!("{name} joined — the game begins.")),
            (SeatView::Human { online: true }, SeatView::Human { online: false }) => {
                Some(format!("{name} went offline."))
            }
            (SeatView::Human { online: false }, SeatView::Human { online: true }) => {
                Some(format!("{name} is back online."))
            }
            _ => None,
        }
    }

    /// The `i`-th move (from 0) with its number: "1. e4", "1... e5".
    fn numbered(&self, i: usize) -> String {
        format!("{} {}", self.numbers().prefix(i), self.san.get(i).map_or("?", String::as_str))
    }

    /// How this game's moves are numbered, from its start position.
    fn numbers(&self) -> MoveNumbers {
        self.initial.as_ref().map(MoveNumbers::from_start).unwrap_or_default()
    }

    /// "1. e4 e5 2. Nf3", wrapped, or a note that no move was played yet.
    fn move_list(&self) -> String {
        let tokens = self.numbers().tokens(self.san.iter().map(String::as_str));
        if tokens.is_empty() {
            return "Moves: none yet".into();
        }
        let mut out = String::from("Moves:");
        let mut width = out.len();
        for token in tokens {
            let len = token.chars().count();
            if width + 1 + len > MOVES_WIDTH {
                out.push_str("\n      ");
                width = 6;
            }
            out.push(' ');
            out.push_str(&token);
            width += 1 + len;
        }
        out
    }

    /// "Game abcd2345 · standard · White: you · Black: Level 1 · 2 watching".
    fn header(&self) -> String {
        let label = |side: Color| -> String {
            if self.me == Some(side) {
                return "you".into();
            }
            match seat(&self.seats, side) {
                SeatView::Bot { level } => format!("Level {level}"),
                SeatView::Human { online: true } => "human".into(),
                SeatView::Human { online: false } => "human (offline)".into(),
                SeatView::Open => "open seat".into(),
            }
        };
        let mut header = format!(
            "Game {} · {} · White: {} · Black: {}",
            self.game,
            self.variant,
            label(Color::White),
            label(Color::Black)
        );
        if self.watchers > 0 {
            header.push_str(&format!(" · {} watching", self.watchers));
        }
        if let Some(clocks) = self.clocks_line() {
            header.push('\n');
            header.push_str(&clocks);
        }
        header
    }

    /// "White 4:58 · Black 5:00 (5+3)", as of now, for a timed game; the running side is marked.
    pub fn clocks_line(&self) -> Option<String> {
        let (view, at) = self.clock.as_ref()?;
        let elapsed = at.elapsed();
        let side = |s: Color| {
            let time = clock::format_time(clock::remaining(view, s, elapsed));
            let mark = if view.running == Some(s) { " ⏱" } else { "" };
            format!("{} {time}{mark}", colour_name(s))
        };
        let spec = crate::protocol::ClockSpec { initial_ms: view.initial_ms, increment_ms: view.increment_ms };
        Some(format!("{} · {} ({})", side(Color::White), side(Color::Black), clock::time_control_name(spec)))
    }

    /// The line that says where the game is: whose move, who is thinking, or how it ended.
    pub fn status_line(&self) -> String {
        match self.status {
            Status::Ended => self.outcome_line(),
            Status::Waiting if self.me.is_some() => "Waiting for an opponent to join…".into(),
            Status::Waiting => "Waiting for a player to join.".into(),
            Status::Ongoing => {
                let to_move = format!("{} to move", colour_name(self.turn));
                let check = if self.check { "Check! " } else { "" };
                if self.legal.is_empty() {
                    // The end of the game follows at once.
                    format!("{check}{to_move}.")
                } else if self.me == Some(self.turn) {
                    format!("{check}{to_move} — your move.")
                } else if self.me.is_some() || matches!(seat(&self.seats, self.turn), SeatView::Bot { .. }) {
                    format!("{check}{to_move} — {}", end_sentence(&self.waiting_for(self.turn)))
                } else {
                    format!("{check}{to_move}.")
                }
            }
        }
    }

    /// "Checkmate — Black wins (0-1)", with how it went for a player.
    fn outcome_line(&self) -> String {
        let result = self.result.map_or("*", GameResult::as_str);
        let winner = self.result.and_then(GameResult::winner);
        let mut line = match (winner, self.reason, &self.clock) {
            // A draw on time: say whose flag fell, and why it is not a loss.
            (None, Some(EndReason::Timeout), Some((view, _))) => {
                let flagged = if view.white_ms == 0 { Color::White } else { Color::Black };
                format!(
                    "Draw — {}'s time ran out but {} cannot mate",
                    colour_name(flagged),
                    colour_name(flagged.other())
                )
            }
            (_, Some(reason), _) => Outcome { winner, reason }.headline(),
            (Some(w), None, _) => format!("{} wins", colour_name(w)),
            (None, None, _) => "Draw".into(),
        };
        line.push_str(&format!(" ({result})"));
        match (self.me, winner) {
            (Some(me), Some(w)) if me == w => line.push_str(". You won!"),
            (Some(_), Some(_)) => line.push_str(". You lost."),
            _ => {}
        }
        line
    }

    /// Everything about the game as it stands: header, board, moves, FEN and status.
    pub fn render(&self) -> String {
        let bottom = match (self.me, self.flipped) {
            (Some(Color::Black), false) | (None | Some(Color::White), true) => Color::Black,
            _ => Color::White,
        };
        let mut out = self.header();
        out.push('\n');
        match &self.position {
            Some(pos) => {
                let last_move = self.moves.last().and_then(|m| match m.parse::<UciMove>() {
                    Ok(UciMove::Normal { from, to, .. }) => Some((from, to)),
                    _ => None,
                });
                let check = if self.check { pos.king(pos.turn()) } else { None };
                out.push_str(&board::render(pos, bottom, Marks { last_move, check }));
            }
            None => out.push_str("(the server sent a position this client cannot read)\n"),
        }
        out.push_str(&self.move_list());
        out.push('\n');
        out.push_str(&format!("FEN: {}\n", self.fen));
        out.push_str(&self.status_line());
        out.push('\n');
        out
    }
}

fn seat(seats: &Seats, side: Color) -> SeatView {
    match side {
        Color::White => seats.white,
        Color::Black => seats.black,
    }
}

fn colour_name(side: Color) -> &'static str {
    match side {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Ends a sentence with a full stop unless it already ends in punctuation ("thinking…").
fn end_sentence(text: &str) -> String {
    if text.ends_with(['.', '…', '!', '?']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// What the player may do about an opponent who has left, `in_ms` from now.
fn claim_note(in_ms: u64) -> String {
    if in_ms == 0 {
        "Your opponent has not come back: type claim to take the win, or claim draw.".into()
    } else {
        let secs = in_ms.div_ceil(1000);
        format!("If your opponent is not back in {secs} s, you may claim the game (claim, or claim draw).")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{Game, Move};
    use crate::protocol::VariantName;

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
        }
    }

    fn vs_bot() -> Seats {
        Seats { white: SeatView::Human { online: true }, black: SeatView::Bot { level: 3 } }
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
        }
    }

    #[test]
    fn a_game_against_a_bot_in_words() {
        let mut game = Game::new(Variant::Standard);
        let mut view = GameView::new(state_of(&game, 1, vs_bot()), Some(Color::White));
        let text = view.render();
        assert!(text.starts_with("Game g1 · standard · White: you · Black: Level 3\n"), "{text}");
        assert!(text.contains("Moves: none yet\n"), "{text}");
        assert!(text.contains("FEN: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"), "{text}");
        assert!(text.ends_with("White to move — your move.\n"), "{text}");
        assert!(view.my_turn());

        let update = view.apply(&move_event(&mut game, 2, "e2e4"));
        assert_eq!(update, Update { notes: vec!["You played 1. e4.".into()], redraw: true, resync: false });
        assert!(!view.my_turn());
        assert_eq!(view.status_line(), "Black to move — Level 3 is thinking…");
        assert_eq!(view.why_not_my_turn().as_deref(), Some("It is not your move yet — Level 3 is thinking…"));

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
        };
        assert!(view.apply(&end).redraw);
        assert!(view.is_over());
        assert_eq!(view.status_line(), "White resigned — Black wins (0-1). You lost.");
    }

    #[test]
    fn check_and_checkmate_for_a_spectator() {
        let mut game = Game::new(Variant::Standard);
        let humans = Seats { white: SeatView::Human { online: true }, black: SeatView::Human { online: true } };
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
        let humans = Seats { white: SeatView::Human { online: true }, black: SeatView::Human { online: true } };
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
        let offline = Seats { white: SeatView::Human { online: true }, black: SeatView::Human { online: false } };
        let seats = ServerMessage::Seats { game: "g1".into(), v: 6, seats: offline, claim: None };
        assert_eq!(view.apply(&seats).notes, vec!["Black went offline.".to_string()]);
    }

    #[test]
    fn waiting_then_joined() {
        let game = Game::new(Variant::Minichess7);
        let open = Seats { white: SeatView::Human { online: true }, black: SeatView::Open };
        let mut state = state_of(&game, 0, open);
        state.status = Status::Waiting;
        let mut view = GameView::new(state, Some(Color::White));
        assert_eq!(view.status_line(), "Waiting for an opponent to join…");
        assert!(view.why_not_my_turn().is_some_and(|w| w.contains("not started")));
        let joined = Seats { white: SeatView::Human { online: true }, black: SeatView::Human { online: true } };
        let update = view.apply(&ServerMessage::Seats { game: "g1".into(), v: 1, seats: joined, claim: None });
        assert_eq!(
            update,
            Update { notes: vec!["Black joined — the game begins.".into()], redraw: true, resync: false }
        );
        let text = view.render();
        assert!(text.contains("· minichess7 ·"), "{text}");
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
        let update = view.apply(&ServerMessage::State(state_of(&game, 4, vs_bot())));
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
        });
        let mut view = GameView::new(state, Some(Color::White));
        let text = view.render();
        assert!(text.contains("\nWhite 4:58 · Black 5:00 (5+3)\n"), "{text}");
        let clock =
            ClockView { initial_ms: 300_000, increment_ms: 3_000, white_ms: 0, black_ms: 12_000, running: None };
        let end = ServerMessage::End {
            game: "g1".into(),
            v: 2,
            result: GameResult::Draw,
            reason: EndReason::Timeout,
            clock: Some(clock),
        };
        assert!(view.apply(&end).redraw);
        assert_eq!(view.status_line(), "Draw — White's time ran out but Black cannot mate (1/2-1/2)");
        assert!(view.render().contains("White 0:00.0 · Black 0:12"));
    }
}
