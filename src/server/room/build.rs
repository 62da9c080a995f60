//! Making a room's parts: a new game from a create request, a stored game restored after a
//! restart (or shown from the archive), and the game as the store is to hold it.

use tokio::time::Instant;

use super::chat::Chat;
use super::clock::RoomClock;
use super::record::Record;
use super::seats::Seats;
use super::snapshot::View;
use super::RESTART_GAP;
use crate::chess::{Color, Game, StartPosition, Variant};
use crate::protocol::{GameId, MatchScore, NewGame, Refusal, SeatSpec};
use crate::server::accounts::Player;
use crate::server::engines::Engines;
use crate::server::store::{now_ms, StoredGame};

/// What a room is made of, new or restored, before anyone is at it.
pub(super) struct Setup {
    pub(super) id: GameId,
    pub(super) game: Game,
    pub(super) seats: Seats,
    pub(super) clock: RoomClock,
    pub(super) record: Record,
    pub(super) chat: Chat,
    /// The version of the game's last event.
    pub(super) v: u64,
}

/// The creator's seat in a new game, if they take one: their side and token.
pub(super) type CreatorSeat = Option<(Color, String)>;

pub(super) fn bad(message: impl Into<String>) -> Refusal {
    Refusal::bad_request(message)
}

/// The game and clock `spec` asks for, or why it cannot be played.
pub(super) fn playable(spec: &NewGame) -> Result<(Game, RoomClock), Refusal> {
    let variant = Variant::from(spec.variant);
    let fen = match (&spec.fen, variant) {
        (Some(fen), _) => fen.clone(),
        // Each Chess960 game draws its own start unless one is given.
        (None, Variant::Chess960) => StartPosition::random(&mut rand::rng()).fen(),
        (None, _) => variant.initial_fen().to_string(),
    };
    let game = Game::from_fen(variant, &fen, spec.rules.into()).map_err(|e| bad(format!("bad FEN: {e}")))?;
    if let Some(outcome) = game.outcome() {
        // A game born finished would be a room and a stored game with nothing to play.
        return Err(Refusal::game_over(format!(
            "that position is already decided ({outcome}); there is nothing to play"
        )));
    }
    if spec.clock.is_some() && spec.days.is_some() {
        return Err(bad("give either a clock or days per move, not both"));
    }
    let clock = RoomClock::of(spec.clock, spec.days).map_err(|e| bad(e.to_string()))?.allow_berserk(spec.berserkable);
    if spec.rated {
        rateable(spec, !game.is_custom_start())?;
    }
    Ok((game, clock))
}

/// Refuses a rated game that could not be rated fairly: untimed (no category), from a chosen
/// position, or with a computer in a seat.
fn rateable(spec: &NewGame, from_start: bool) -> Result<(), Refusal> {
    if spec.clock.is_none() && spec.days.is_none() {
        return Err(bad("a rated game needs a clock or days per move; untimed games are casual"));
    }
    if !from_start {
        return Err(bad("a rated game starts from the usual position; games from a FEN are casual"));
    }
    if !matches!((&spec.white, &spec.black), (SeatSpec::Human, SeatSpec::Human)) {
        return Err(bad("a rated game is between two people; games against the computer are casual"));
    }
    Ok(())
}

/// The parts of a new game from a create request, and the creator's seat (side and token) if
/// they take one. A game with both seats filled at once (a bot opponent) starts now.
pub(super) fn new(
    id: GameId,
    spec: NewGame,
    player: &Player,
    engines: &Engines,
) -> Result<(Setup, CreatorSeat), Refusal> {
    let (game, clock) = playable(&spec)?;
    let mut seats = Seats::from_spec(spec.white.clone(), spec.black.clone(), game.variant(), engines)?;
    let creator = if spec.open { None } else { seats.creator(spec.as_side)? };
    if spec.rated && player.account.is_none() {
        return Err(Refusal::login_required("log in to play rated games"));
    }
    let seat = creator.map(|side| {
        let token = player.seat_token(&id);
        seats.take(side, &token, player);
        (side, token)
    });
    let record = Record::new(&game, now_ms(), MatchScore::default(), spec.rated, None);
    let setup = Setup { id, game, seats, clock, record, chat: Chat::default(), v: 0 };
    // The room starts the clock once it is assembled.
    Ok((setup, seat))
}

/// The parts of a stored game after a restart: the moves are played again, players are away
/// until they resume, and the clock goes on from the times stored, starting now, so the
/// downtime is charged to nobody.
pub(super) fn restore(stored: StoredGame) -> Result<Setup, Refusal> {
    let game = replay(&stored)?;
    let seats = Seats::restore(stored.white, stored.black, Instant::now())?;
    let clock = RoomClock::restore(stored.clock, stored.times).map_err(|e| bad(e.to_string()))?;
    // Events sent before the restart whose version was still being written are covered
    // by the gap: no client can hold a version the new room will give to another event.
    let v = stored.v + RESTART_GAP;
    let chat = Chat::restore(&stored.id, &stored.chat);
    let record = Record::new(&game, stored.created_ms, stored.score.into(), stored.rated, stored.ratings);
    // The room starts the clock (if the game is on) once it is assembled.
    Ok(Setup { id: stored.id, game, seats, clock, record, chat, v })
}

/// The game `view` shows, at version `v`, as the store is to hold it now.
pub(super) fn stored(view: &View, v: u64) -> StoredGame {
    let (game, record) = (view.game, view.record);
    let outcome = game.outcome();
    StoredGame {
        id: view.id.clone(),
        variant: game.variant(),
        initial_fen: game.initial_position().fen(),
        rules: game.rules(),
        white: view.seats.seat(Color::White).stored(),
        black: view.seats.seat(Color::Black).stored(),
        clock: view.clock.stored(),
        times: view.clock.times(Instant::now()),
        moves: game.history().iter().map(|p| p.mv.to_string()).collect(),
        v,
        outcome,
        created_ms: record.created_ms(),
        ended_ms: outcome.map(|_| record.created_ms()),
        score: record.score().into(),
        // A game is stored when it is made, before anyone has written anything.
        chat: Vec::new(),
        rated: record.rated(),
        ratings: record.ratings(),
    }
}

/// A stored game's moves played again from its initial position, ended as it ended.
pub(super) fn replay(stored: &StoredGame) -> Result<Game, Refusal> {
    let mut game = Game::from_fen(stored.variant, &stored.initial_fen, stored.rules)
        .map_err(|e| bad(format!("stored FEN: {e}")))?;
    for (i, uci) in stored.moves.iter().enumerate() {
        game.play_uci(uci).map_err(|e| bad(format!("stored move {} ({uci}): {e}", i + 1)))?;
    }
    if let Some(outcome) = stored.outcome {
        if !game.is_over() {
            game.end(outcome);
        }
    }
    Ok(game)
}
