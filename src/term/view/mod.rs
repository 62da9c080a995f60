//! What the terminal knows about one game, kept up to date from the server's events, and the
//! text shown for it: the board, the move list, the FEN, the status line, and a plain-words note
//! for each event.

use std::time::{Duration, Instant};

use crate::chess::{Color, EndReason, MoveNumbers, Outcome, Position, UciMove, Variant};
use crate::protocol::{
    Applied, ClockView, Follower, GameResult, GameState, OfferKind, PlayerName, SeatView, ServerMessage, Status,
};

use super::board::{self, Marks};
use super::clock;

/// Width at which the move list wraps.
const MOVES_WIDTH: usize = 72;

/// The client's view of a game: the game as the protocol's [`Follower`] follows it, and what
/// the terminal adds — the positions read from its FENs, whose seat this is, the board's
/// orientation, and when the clock was last heard of.
#[derive(Clone, Debug)]
pub struct GameView {
    /// The game, and the one rule for which messages apply (versions, consistency).
    follower: Follower,
    /// Where the game started, for move numbers; None if the server sent a FEN we cannot read.
    initial: Option<Position>,
    position: Option<Position>,
    /// The seat this client holds; None for a spectator.
    me: Option<Color>,
    flipped: bool,
    /// When the clock in the game's state arrived: the running side counts down from there.
    clock_at: Instant,
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
        let mut view = GameView {
            follower: Follower::from_state(state),
            initial: None,
            position: None,
            me,
            flipped: false,
            clock_at: Instant::now(),
        };
        view.read_positions();
        view
    }

    /// The game as followed.
    fn g(&self) -> &GameState {
        self.follower.state()
    }

    fn variant(&self) -> Variant {
        Variant::from(self.g().variant)
    }

    /// The clock as last heard of, and when.
    fn clock(&self) -> Option<(ClockView, Instant)> {
        self.g().clock.map(|c| (c, self.clock_at))
    }

    /// Reads the start and current positions from the state's FENs.
    fn read_positions(&mut self) {
        let variant = self.variant();
        self.initial = Position::from_fen(&self.g().initial_fen, variant).ok();
        self.position = Position::from_fen(&self.g().fen, variant).ok();
    }

    /// The game's id.
    pub fn game(&self) -> &str {
        &self.g().game
    }

    /// The version of the last event applied (for `resume` and `watch` after a reconnect).
    pub fn version(&self) -> u64 {
        self.g().v
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
        &self.g().legal
    }

    pub fn is_over(&self) -> bool {
        self.g().status == Status::Ended
    }

    /// True when this client holds the seat to move in a game under way.
    pub fn my_turn(&self) -> bool {
        self.g().status == Status::Ongoing && self.me == Some(self.g().turn)
    }

    /// The opponent's pending offer, if there is one this client may answer.
    pub fn offer_to_me(&self) -> Option<OfferKind> {
        let me = self.me?;
        self.g().offer.filter(|o| o.by != me).map(|o| o.kind)
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
        match self.g().status {
            Status::Ended => Some("The game is over.".into()),
            Status::Waiting => Some("The game has not started yet: waiting for an opponent to join.".into()),
            Status::Ongoing if self.g().turn != me => {
                Some(format!("It is not your move yet — {}", end_sentence(&self.waiting_for(self.g().turn))))
            }
            Status::Ongoing => None,
        }
    }

    /// Applies one message from the server; says what to show. Whether it applies at all is
    /// the protocol's [`Follower`]'s rule: events already seen change nothing (a replay after a
    /// reconnect is harmless), and one that does not follow on asks for a fresh `state`.
    pub fn apply(&mut self, message: &ServerMessage) -> Update {
        let (plies_before, seats_before) = (self.g().moves.len(), self.g().seats.clone());
        match self.follower.apply(message) {
            Applied::Applied => {}
            Applied::Ignored => return Update::default(),
            Applied::Resync => return Update { resync: true, ..Update::default() },
        }
        let new_clock = match message {
            ServerMessage::State(_) => true,
            ServerMessage::Move { clock, .. }
            | ServerMessage::End { clock, .. }
            | ServerMessage::Berserk { clock, .. } => clock.is_some(),
            _ => false,
        };
        if new_clock {
            self.clock_at = Instant::now();
        }
        match message {
            ServerMessage::State(_) => {
                self.read_positions();
                let plies = self.g().moves.len();
                let mut notes = Vec::new();
                if plies < plies_before {
                    let n = plies_before - plies;
                    notes
                        .push(format!("{} taken back.", if n == 1 { "One move".into() } else { format!("{n} moves") }));
                }
                Update::redraw(notes)
            }
            ServerMessage::Move { fen, turn, .. } => {
                self.position = Position::from_fen(fen, self.variant()).ok();
                let numbered = self.numbered(self.g().san.len() - 1);
                Update::redraw(vec![format!("{} played {numbered}.", capitalise(&self.who(turn.other())))])
            }
            ServerMessage::End { .. } => {
                Update::redraw(self.ratings_line().into_iter().chain(self.match_line()).collect())
            }
            ServerMessage::Rematch { next, .. } => {
                Update::note(format!("Rematch agreed: game {next}, colours swapped."))
            }
            ServerMessage::Offer { kind, by, .. } => Update::note(self.offer_note(*kind, *by)),
            ServerMessage::Berserk { color, .. } => {
                let note =
                    format!("{} berserked: half the time, a point more for a win.", capitalise(&self.who(*color)));
                Update { notes: vec![note], redraw: true, ..Update::default() }
            }
            ServerMessage::Declined { kind, by, .. } => Update::note(self.declined_note(*kind, *by)),
            ServerMessage::Seats { seats, claim, .. } => {
                let mut notes = Vec::new();
                if let Some(claim) = claim.filter(|c| Some(c.by) == self.me) {
                    notes.push(claim_note(claim.in_ms));
                }
                for side in [Color::White, Color::Black] {
                    if Some(side) == self.me {
                        continue;
                    }
                    if let Some(note) = seat_note(side, &seats_before[side], &seats[side]) {
                        notes.push(note);
                    }
                }
                // A game that has just begun is drawn again; other seat changes are notes.
                let began = seats_before.any(|s| matches!(s, SeatView::Open)) && self.g().status == Status::Ongoing;
                Update { notes, redraw: began, ..Update::default() }
            }
            _ => Update::default(),
        }
    }

    /// A rated game's new ratings, as the terminal prints them when it ends:
    /// "Ratings: Alice 1662? (+162), Bob 1338? (−162)" ("?": provisional). None when unrated.
    pub fn ratings_line(&self) -> Option<String> {
        let ratings = self.g().ratings?;
        let one = |side: Color| {
            let r = ratings[side];
            let sign = match r.change {
                c if c > 0 => format!("+{c}"),
                c if c < 0 => format!("\u{2212}{}", c.unsigned_abs()),
                _ => "±0".to_string(),
            };
            let mark = if r.provisional { "?" } else { "" };
            format!("{} {}{mark} ({sign})", label(&self.g().seats[side], side), r.rating)
        };
        Some(format!("Ratings: {}, {}", one(Color::White), one(Color::Black)))
    }

    /// The running score of the match, as the terminal prints it when a game ends:
    /// "Match: Alice 1½ – ½ Bob (2 games)". None before any game of the match has counted.
    pub fn match_line(&self) -> Option<String> {
        let score = self.g().score;
        if score.games == 0 {
            return None;
        }
        let name = |side: Color| label(&self.g().seats[side], side);
        let games = if score.games == 1 { "1 game".to_string() } else { format!("{} games", score.games) };
        Some(format!(
            "Match: {} {} – {} {} ({games})",
            name(Color::White),
            score.white,
            score.black,
            name(Color::Black)
        ))
    }

    // ---- words ----------------------------------------------------------------------------

    /// Who sits on `side`, for sentences: "you", "Level 3", "Alice", "White" (an open seat).
    fn who(&self, side: Color) -> String {
        if self.me == Some(side) {
            return "you".into();
        }
        label(&self.g().seats[side], side)
    }

    fn waiting_for(&self, side: Color) -> String {
        let who = label(&self.g().seats[side], side);
        match &self.g().seats[side] {
            // The bot by its label, rating and all: "Level 6 · ~1500 is thinking…".
            bot @ SeatView::Bot { .. } => format!("{} is thinking…", bot.shown().unwrap_or(&who)),
            SeatView::Engine(_) => format!("{who} is thinking…"),
            SeatView::Human { online: false, .. } => format!("waiting for {who} (offline)"),
            _ => format!("waiting for {who}"),
        }
    }

    fn offer_note(&self, kind: OfferKind, by: Color) -> String {
        let what = match kind {
            OfferKind::Draw => "a draw",
            OfferKind::Undo => "to take back the last move",
            OfferKind::Rematch => "a rematch",
        };
        if self.me == Some(by) {
            let opponent = self.who(by.other());
            return match kind {
                OfferKind::Draw => format!("You offered a draw; waiting for {opponent}'s answer."),
                OfferKind::Undo => format!("You asked to take back your last move; waiting for {opponent}'s answer."),
                OfferKind::Rematch => format!("You offered a rematch; waiting for {opponent}'s answer."),
            };
        }
        let verb = match kind {
            OfferKind::Draw | OfferKind::Rematch => "offers",
            OfferKind::Undo => "asks",
        };
        let who = capitalise(&self.who(by));
        if self.me.is_some() {
            let accept = match kind {
                OfferKind::Draw => "draw",
                OfferKind::Undo => "undo",
                OfferKind::Rematch => "rematch",
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
            OfferKind::Rematch => "rematch offer",
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

    /// The `i`-th move (from 0) with its number: "1. e4", "1... e5".
    fn numbered(&self, i: usize) -> String {
        format!("{} {}", self.numbers().prefix(i), self.g().san.get(i).map_or("?", String::as_str))
    }

    /// How this game's moves are numbered, from its start position.
    fn numbers(&self) -> MoveNumbers {
        self.initial.as_ref().map(MoveNumbers::from_start).unwrap_or_default()
    }

    /// "1. e4 e5 2. Nf3", wrapped, or a note that no move was played yet.
    fn move_list(&self) -> String {
        let tokens = self.numbers().tokens(self.g().san.iter().map(String::as_str));
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
            match &self.g().seats[side] {
                bot @ SeatView::Bot { .. } => bot.shown().unwrap_or_default().to_string(),
                SeatView::Human { online, name, account } => {
                    // A name chosen without an account is marked: anyone may choose any free name.
                    let guest = if !account && name != PlayerName::ANONYMOUS { " (guest)" } else { "" };
                    let away = if *online { "" } else { " (offline)" };
                    format!("{name}{guest}{away}")
                }
                SeatView::Engine(engine) => engine.label.clone(),
                SeatView::Open => "open seat".into(),
            }
        };
        let mut header = format!(
            "Game {} · {} · White: {} · Black: {}",
            self.g().game,
            self.variant(),
            label(Color::White),
            label(Color::Black)
        );
        if self.g().watchers > 0 {
            header.push_str(&format!(" · {} watching", self.g().watchers));
        }
        if let Some(clocks) = self.clocks_line() {
            header.push('\n');
            header.push_str(&clocks);
        }
        header
    }

    /// "White 4:58 · Black 5:00 (5+3)", as of now, for a timed game; the running side is marked.
    pub fn clocks_line(&self) -> Option<String> {
        let (view, at) = self.clock()?;
        let elapsed = at.elapsed();
        let side = |s: Color| {
            let time = clock::format_time(clock::remaining(&view, s, elapsed));
            let mark = if view.running == Some(s) { " ⏱" } else { "" };
            format!("{} {time}{mark}", colour_name(s))
        };
        let spec = crate::protocol::ClockSpec { initial_ms: view.initial_ms, increment_ms: view.increment_ms };
        let mut line = format!("{} · {} ({})", side(Color::White), side(Color::Black), clock::time_control_name(spec));
        // No clock runs before both first moves; the side to move has a while, or the game is
        // aborted.
        if let Some(ms) = view.first_move_ms.filter(|_| self.g().status == Status::Ongoing) {
            let left = Duration::from_millis(ms).saturating_sub(elapsed).as_secs();
            line.push_str(&format!(" · {} has {left} s for a first move", colour_name(self.g().turn)));
        }
        Some(line)
    }

    /// The line that says where the game is: whose move, who is thinking, or how it ended.
    pub fn status_line(&self) -> String {
        match self.g().status {
            Status::Ended => self.outcome_line(),
            Status::Waiting if self.me.is_some() => "Waiting for an opponent to join…".into(),
            Status::Waiting => "Waiting for a player to join.".into(),
            Status::Ongoing => {
                let to_move = format!("{} to move", colour_name(self.g().turn));
                let check = if self.g().check { "Check! " } else { "" };
                if self.g().legal.is_empty() {
                    // The end of the game follows at once.
                    format!("{check}{to_move}.")
                } else if self.me == Some(self.g().turn) {
                    format!("{check}{to_move} — your move.")
                } else if self.me.is_some()
                    || matches!(self.g().seats[self.g().turn], SeatView::Bot { .. } | SeatView::Engine(_))
                {
                    format!("{check}{to_move} — {}", end_sentence(&self.waiting_for(self.g().turn)))
                } else {
                    format!("{check}{to_move}.")
                }
            }
        }
    }

    /// "Checkmate — Black wins (0-1)", with how it went for a player.
    fn outcome_line(&self) -> String {
        let result = self.g().result.map_or("*", GameResult::as_str);
        let winner = self.g().result.and_then(GameResult::winner);
        let mut line = match (winner, self.g().reason, &self.clock()) {
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
                let last_move = self.g().moves.last().and_then(|m| match m.parse::<UciMove>() {
                    Ok(UciMove::Normal { from, to, .. }) => Some((from, to)),
                    _ => None,
                });
                let check = if self.g().check { pos.king(pos.turn()) } else { None };
                out.push_str(&board::render(pos, bottom, Marks { last_move, check }));
            }
            None => out.push_str("(the server sent a position this client cannot read)\n"),
        }
        out.push_str(&self.move_list());
        out.push('\n');
        if let Some(opening) = &self.g().opening {
            out.push_str(&format!("Opening: {} {}\n", opening.eco, opening.name));
        }
        out.push_str(&format!("FEN: {}\n", self.g().fen));
        out.push_str(&self.status_line());
        out.push('\n');
        out
    }
}

fn colour_name(side: Color) -> &'static str {
    side.fold("White", "Black")
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

/// Who sits on `side` in sentences and the header: their name ("Alice", "Level 3"), or the
/// side ("Black") for a person who gave none, since two "Anonymous" players tell nothing apart.
fn label(seat: &SeatView, side: Color) -> String {
    match seat.name() {
        Some(name) if !(matches!(seat, SeatView::Human { .. }) && name == PlayerName::ANONYMOUS) => name.to_string(),
        _ => colour_name(side).to_string(),
    }
}

/// What a change of the opponent's seat is worth saying: "Alice joined — the game begins.".
fn seat_note(side: Color, before: &SeatView, after: &SeatView) -> Option<String> {
    let who = label(after, side);
    match (before, after) {
        (SeatView::Open, SeatView::Human { .. }) => Some(format!("{who} joined — the game begins.")),
        (SeatView::Human { online: true, .. }, SeatView::Human { online: false, .. }) => {
            Some(format!("{who} went offline."))
        }
        (SeatView::Human { online: false, .. }, SeatView::Human { online: true, .. }) => {
            Some(format!("{who} is back online."))
        }
        _ => None,
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
mod tests;
