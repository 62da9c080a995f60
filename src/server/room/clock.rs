//! A game's chess clock: Fischer time control (an initial time per side plus an increment
//! added after each of that side's moves), or correspondence's days per move (each move may
//! take that long; the mover gets the whole time again), and the room's part that keeps it
//! ([`RoomClock`]): started and stopped with the game, pressed by moves, and its flag.
//!
//! Time is read from `tokio::time::Instant` and passed in by the caller, so tests can run the
//! clock under `tokio::time::pause()` and the room can sleep until [`Clock::flag_at`].

use std::time::Duration;

use thiserror::Error;
use tokio::time::Instant;

use super::lag::{Arrival, Lag};
use crate::chess::{timeout_outcome, Color, Game, Outcome};
use crate::protocol::{ClockSpec, ClockView};
use crate::server::store::{StoredClock, StoredTimes};

/// The shortest initial time a game may have.
pub const MIN_INITIAL: Duration = Duration::from_secs(1);
/// The longest initial time a game may have.
pub const MAX_INITIAL: Duration = Duration::from_secs(3 * 60 * 60);
/// The largest increment a game may have.
pub const MAX_INCREMENT: Duration = Duration::from_secs(60);
/// The days per move a correspondence game may give (lichess's choices).
pub const CORRESPONDENCE_DAYS: [u32; 7] = [1, 2, 3, 5, 7, 10, 14];
/// A day of correspondence.
const DAY: Duration = Duration::from_secs(24 * 60 * 60);

/// A clock setting the server refuses.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClockError {
    #[error("clock: \"initial_ms\" must be between 1000 (1 s) and 10800000 (3 h), not {0}")]
    Initial(u64),
    #[error("clock: \"increment_ms\" must be between 0 and 60000 (60 s), not {0}")]
    Increment(u64),
    #[error("days: a correspondence game gives 1, 2, 3, 5, 7, 10 or 14 days a move, not {0}")]
    Days(u32),
}

/// Both sides' times and which one is running.
#[derive(Clone, Debug)]
pub struct Clock {
    spec: ClockSpec,
    increment: Duration,
    /// Time left as of the last press (or stop), indexed by `Color::index()`.
    remaining: [Duration; 2],
    /// The side whose time is running and since when.
    running: Option<(Color, Instant)>,
    /// Correspondence: the days each move may take (and no flag falls by itself).
    days: Option<u32>,
}

impl Clock {
    /// A stopped clock with the initial time on both sides, if the setting is in range.
    pub fn new(spec: ClockSpec) -> Result<Clock, ClockError> {
        let initial = Duration::from_millis(spec.initial_ms);
        let increment = Duration::from_millis(spec.increment_ms);
        if !(MIN_INITIAL..=MAX_INITIAL).contains(&initial) {
            return Err(ClockError::Initial(spec.initial_ms));
        }
        if increment > MAX_INCREMENT {
            return Err(ClockError::Increment(spec.increment_ms));
        }
        Ok(Clock { spec, increment, remaining: [initial; 2], running: None, days: None })
    }

    /// A stopped correspondence clock of `days` per move, if that is one of
    /// [`CORRESPONDENCE_DAYS`].
    pub fn correspondence(days: u32) -> Result<Clock, ClockError> {
        if !CORRESPONDENCE_DAYS.contains(&days) {
            return Err(ClockError::Days(days));
        }
        let per_move = DAY * days;
        let spec = ClockSpec { initial_ms: millis(per_move), increment_ms: 0 };
        Ok(Clock { spec, increment: Duration::ZERO, remaining: [per_move; 2], running: None, days: Some(days) })
    }

    /// A correspondence clock's days per move.
    pub fn days(&self) -> Option<u32> {
        self.days
    }

    /// Sets both sides' time left (a game read back from the store); the clock stays stopped.
    pub fn set_remaining(&mut self, white: Duration, black: Duration) {
        self.remaining = [white, black];
        self.running = None;
    }

    /// The setting this clock was made from.
    pub fn spec(&self) -> ClockSpec {
        self.spec
    }

    /// The increment added after each move.
    pub fn increment(&self) -> Duration {
        self.increment
    }

    /// The side whose time is running, if any.
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(side, _)| side)
    }

    /// `side`'s time left at `now`.
    pub fn remaining(&self, side: Color, now: Instant) -> Duration {
        let left = self.remaining[side.index()];
        match self.running {
            Some((running, since)) if running == side => left.saturating_sub(now.saturating_duration_since(since)),
            _ => left,
        }
    }

    /// Starts `side`'s time at `now`; a clock already running for that side keeps running.
    pub fn start(&mut self, side: Color, now: Instant) {
        if self.running() != Some(side) {
            self.stop(now);
            self.running = Some((side, now));
        }
    }

    /// Stops the clock at `now`, charging the running side for the time it used.
    pub fn stop(&mut self, now: Instant) {
        if let Some((side, _)) = self.running {
            self.remaining[side.index()] = self.remaining(side, now);
            self.running = None;
        }
    }

    /// The running side has moved at `now`: its time used, less `credit` (lag compensation: no
    /// more than the move took, so a side's time never grows by it), is charged, the increment
    /// added, and the other side's time starts. Does nothing on a stopped clock.
    pub fn press(&mut self, now: Instant, credit: Duration) {
        if let Some((side, since)) = self.running {
            self.stop(now);
            let credit = credit.min(now.saturating_duration_since(since));
            let left = &mut self.remaining[side.index()];
            *left = match self.days {
                // Each move has the whole time: what was left of it does not carry over.
                Some(_) => Duration::from_millis(self.spec.initial_ms),
                None => left.saturating_add(credit).saturating_add(self.increment),
            };
            self.running = Some((!side, now));
        }
    }

    /// How long the running side has been thinking at `now`.
    pub fn elapsed(&self, now: Instant) -> Option<Duration> {
        self.running.map(|(_, since)| now.saturating_duration_since(since))
    }

    /// `side`'s time left as of the last press (or stop): what it has to spend this turn.
    pub fn banked(&self, side: Color) -> Duration {
        self.remaining[side.index()]
    }

    /// When the running side's time runs out, if a side is running.
    pub fn flag_at(&self) -> Option<Instant> {
        self.running.map(|(side, since)| since + self.remaining[side.index()])
    }

    /// The clock as sent in events, as of `now`.
    pub fn view(&self, now: Instant) -> ClockView {
        let ms = |side: Color| millis(self.remaining(side, now));
        ClockView {
            initial_ms: self.spec.initial_ms,
            increment_ms: self.spec.increment_ms,
            white_ms: ms(Color::White),
            black_ms: ms(Color::Black),
            running: self.running(),
            first_move_ms: None,
            days: self.days,
            berserkable: false,
        }
    }
}

/// A duration in whole milliseconds, as events carry it.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Time kept back from a bot's budget, for the answer to reach the room before the flag.
const BOT_MARGIN: Duration = Duration::from_millis(50);

/// How long a bot may think with `remaining` on its clock: its configured time, but no more than
/// a twentieth of what is left plus half the increment, and always short of the flag.
fn think_budget(configured: Duration, remaining: Duration, increment: Duration) -> Duration {
    configured.min(remaining / 20 + increment / 2).min(remaining.saturating_sub(BOT_MARGIN))
}

/// Where the game stands, as the clock needs to know it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Turn {
    /// Both seats are taken and the game is not over.
    pub(super) ongoing: bool,
    /// The side to move.
    pub(super) side: Color,
    /// Moves played in this game.
    pub(super) moves: usize,
    /// A person (or a program through the API) is to move, not the server's computer.
    pub(super) human: bool,
}

/// The room's clock: the chess clock of a timed game, none for an untimed one. Fair as
/// lichess's (docs/protocol.md, "Clocks"): no time runs until both sides have made their first
/// move, each of which has to come within the first-move timeout or the game is aborted; and
/// each side's network lag is credited back, within a bound (see `lag`).
#[derive(Clone, Debug, Default)]
pub(super) struct RoomClock {
    clock: Option<Clock>,
    /// While the game waits for a person's first move: their side and the deadline.
    first_move: Option<(Color, Instant)>,
    /// Each side's lag compensation, indexed by `Color::index()` (timed games only).
    lag: Option<[Lag; 2]>,
    /// An arena game: a side may halve its time before its first move.
    berserkable: bool,
}

impl RoomClock {
    pub(super) fn new(clock: Option<Clock>) -> RoomClock {
        // Seconds of lag are nothing to a move that may take days.
        let lag = clock.as_ref().filter(|c| c.days.is_none()).map(|c| [Lag::new(c.spec()), Lag::new(c.spec())]);
        RoomClock { clock, first_move: None, lag, berserkable: false }
    }

    /// Lets each side berserk (an arena game's clock).
    pub(super) fn allow_berserk(mut self, berserkable: bool) -> RoomClock {
        self.berserkable = berserkable && self.spec().is_some();
        self
    }

    /// `side` berserks, having made no move yet (`moved` false): its time is halved, as on
    /// lichess. Refused where the game does not allow it, after the side's first move, or a
    /// second time (before its first move, a side's time runs only once it is halved — no time
    /// runs before both sides have moved — so a side with less than the initial time has
    /// berserked already, also after a restart).
    pub(super) fn berserk(&mut self, side: Color, moved: bool) -> Result<(), &'static str> {
        let clock = self.clock.as_mut().filter(|_| self.berserkable).ok_or("this game allows no berserk")?;
        if moved {
            return Err("berserk is only possible before your first move");
        }
        let initial = Duration::from_millis(clock.spec.initial_ms);
        if clock.remaining[side.index()] < initial {
            return Err("you have berserked already");
        }
        clock.remaining[side.index()] = initial / 2;
        Ok(())
    }

    /// The clock of a new game: a clock, days per move, or neither.
    pub(super) fn of(clock: Option<ClockSpec>, days: Option<u32>) -> Result<RoomClock, ClockError> {
        Ok(RoomClock::new(match (clock, days) {
            (_, Some(days)) => Some(Clock::correspondence(days)?),
            (Some(spec), None) => Some(Clock::new(spec)?),
            (None, None) => None,
        }))
    }

    /// The clock of a stored game, stopped, with the times stored (if any).
    pub(super) fn restore(spec: Option<StoredClock>, times: Option<StoredTimes>) -> Result<RoomClock, ClockError> {
        let Some(spec) = spec else { return Ok(RoomClock::default()) };
        let mut clock = match spec.days {
            Some(days) => Clock::correspondence(days)?,
            None => Clock::new(ClockSpec { initial_ms: spec.initial_ms, increment_ms: spec.increment_ms })?,
        };
        if let Some(t) = times {
            clock.set_remaining(Duration::from_millis(t.white_ms), Duration::from_millis(t.black_ms));
        }
        Ok(RoomClock::new(Some(clock)).allow_berserk(spec.berserkable))
    }

    /// True for a timed game.
    pub(super) fn is_timed(&self) -> bool {
        self.clock.is_some()
    }

    /// The time control, if the game is on a clock (not a correspondence game).
    pub(super) fn spec(&self) -> Option<ClockSpec> {
        self.clock.as_ref().filter(|c| c.days.is_none()).map(Clock::spec)
    }

    /// A correspondence game's days per move.
    pub(super) fn days(&self) -> Option<u32> {
        self.clock.as_ref().and_then(Clock::days)
    }

    /// The clock as the store keeps it.
    pub(super) fn stored(&self) -> Option<StoredClock> {
        self.clock.as_ref().map(|c| StoredClock {
            initial_ms: c.spec.initial_ms,
            increment_ms: c.spec.increment_ms,
            days: c.days,
            berserkable: self.berserkable,
        })
    }

    /// In a correspondence game under way: the side to move and what is left of its time for
    /// the move (zero once the deadline has passed: its opponent may then claim the game).
    pub(super) fn deadline(&self, now: Instant) -> Option<(Color, Duration)> {
        let clock = self.clock.as_ref().filter(|c| c.days.is_some())?;
        let side = clock.running()?;
        Some((side, clock.remaining(side, now)))
    }

    /// The clock as sent in events, as of `now`.
    pub(super) fn view(&self, now: Instant) -> Option<ClockView> {
        let first_move_ms = self.first_move.map(|(_, at)| millis(at.saturating_duration_since(now)));
        self.clock.as_ref().map(|c| ClockView { first_move_ms, berserkable: self.berserkable, ..c.view(now) })
    }

    /// Both sides' times at `now`, as stored.
    pub(super) fn times(&self, now: Instant) -> Option<StoredTimes> {
        self.view(now).map(|view| StoredTimes { white_ms: view.white_ms, black_ms: view.black_ms })
    }

    /// When the game ends by the clock while `game` goes on: the running side's flag, once a
    /// move sent in time can no longer be on its way; or the end of the wait for a first move.
    pub(super) fn flag_at(&self, game: &Game) -> Option<Instant> {
        if game.is_over() {
            return None;
        }
        if let Some((_, at)) = self.first_move {
            return Some(at);
        }
        // A correspondence game does not end by the clock: the opponent may claim it.
        let clock = self.clock.as_ref().filter(|c| c.days.is_none())?;
        Some(clock.flag_at()? + self.grace(clock.running()?))
    }

    /// The end of `game` by the clock at `now`, if it has come: aborted when a first move did
    /// not come in time; a loss on time, or a draw when the opponent cannot mate (docs/rules.md,
    /// "Time controls").
    pub(super) fn flag(&self, game: &Game, now: Instant) -> Option<Outcome> {
        let at = self.flag_at(game)?;
        if now < at {
            return None;
        }
        if self.first_move.is_some() {
            return Some(Outcome::ABORTED);
        }
        let flagged = self.clock.as_ref()?.running()?;
        Some(timeout_outcome(game.position(), flagged))
    }

    /// True if a move that arrived at `now` (`arrival`: how, for a person's; None for the
    /// computer's) comes too late: the mover's time, less the lag credited, is used up, or the
    /// wait for a first move is over.
    pub(super) fn too_late(&self, now: Instant, arrival: Option<Arrival>) -> bool {
        if self.first_move.is_some_and(|(_, at)| now >= at) {
            return true;
        }
        // A correspondence move after its deadline still counts until the opponent claims.
        let Some(clock) = self.clock.as_ref().filter(|c| c.days.is_none()) else { return false };
        let (Some(side), Some(elapsed)) = (clock.running(), clock.elapsed(now)) else { return false };
        let credit = match (arrival, &self.lag) {
            (Some(arrival), Some(lag)) => lag[side.index()].credit_for(elapsed, arrival),
            _ => Duration::ZERO,
        };
        elapsed.saturating_sub(credit) >= clock.banked(side)
    }

    /// How long after `side`'s time is up a move of theirs may still count.
    fn grace(&self, side: Color) -> Duration {
        self.lag.as_ref().map_or(Duration::ZERO, |lag| lag[side.index()].grace())
    }

    /// Runs the clock of the side to move while the game is on and both sides have moved,
    /// stops it otherwise, and keeps the wait for a person's first move. True if what the
    /// clock shows changed (a clock started or stopped, a first-move wait began or ended).
    pub(super) fn sync(&mut self, turn: Turn, now: Instant, first_move_timeout: Duration) -> bool {
        let Some(clock) = &mut self.clock else { return false };
        let before = (clock.running(), self.first_move.map(|(side, _)| side));
        if !turn.ongoing {
            clock.stop(now);
            self.first_move = None;
        } else if turn.moves >= 2 || !turn.human || clock.days.is_some() {
            // The computer's time runs from its first move: it needs no grace, and its clock
            // is what ends a game whose engine stops answering. A correspondence game's days
            // run from the start: a first move is no different from the others.
            clock.start(turn.side, now);
            self.first_move = None;
        } else {
            // Before both first moves no time of a person's runs (a takeback into them stops
            // it again); they have a while to make the move.
            clock.stop(now);
            self.first_move = match self.first_move {
                Some((side, at)) if side == turn.side => Some((side, at)),
                _ => Some((turn.side, now + first_move_timeout)),
            };
        }
        before != (clock.running(), self.first_move.map(|(side, _)| side))
    }

    /// Stops the clock at `now` (the game ended, or paused).
    pub(super) fn stop(&mut self, now: Instant) {
        if let Some(clock) = &mut self.clock {
            clock.stop(now);
        }
        self.first_move = None;
    }

    /// The clock as it will be after a move that arrived at `now` (`arrival`: how, for a
    /// person's move; None for the computer's, which gets no lag credit), the game then standing
    /// at `next`: for the room to store with the move before it keeps it.
    pub(super) fn pressed(
        &self,
        now: Instant,
        arrival: Option<Arrival>,
        next: Turn,
        first_move_timeout: Duration,
    ) -> RoomClock {
        let mut pressed = self.clone();
        if let Some(clock) = &mut pressed.clock {
            if let (Some(side), Some(elapsed)) = (clock.running(), clock.elapsed(now)) {
                let credit = match (arrival, &mut pressed.lag) {
                    (Some(arrival), Some(lag)) => lag[side.index()].credit(elapsed, arrival),
                    _ => Duration::ZERO,
                };
                clock.press(now, credit);
            }
        }
        pressed.first_move = None;
        pressed.sync(next, now, first_move_timeout);
        pressed
    }

    /// How long `side`'s bot may think at `now` given its configured `movetime`, and how long
    /// the pause before it (`delay`) may be: on a clock, both shrink with the time left.
    pub(super) fn budget(
        &self,
        side: Color,
        now: Instant,
        movetime: Duration,
        delay: Duration,
    ) -> (Duration, Duration) {
        match &self.clock {
            Some(c) => {
                let remaining = c.remaining(side, now);
                (think_budget(movetime, remaining, c.increment()), delay.min(remaining / 20))
            }
            None => (movetime, delay),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(initial_ms: u64, increment_ms: u64) -> ClockSpec {
        ClockSpec { initial_ms, increment_ms }
    }

    #[test]
    fn settings_are_validated() {
        assert!(Clock::new(spec(1000, 0)).is_ok());
        assert!(Clock::new(spec(10_800_000, 60_000)).is_ok());
        assert_eq!(Clock::new(spec(999, 0)).unwrap_err(), ClockError::Initial(999));
        assert_eq!(Clock::new(spec(0, 0)).unwrap_err(), ClockError::Initial(0));
        assert_eq!(Clock::new(spec(10_800_001, 0)).unwrap_err(), ClockError::Initial(10_800_001));
        assert_eq!(Clock::new(spec(60_000, 60_001)).unwrap_err(), ClockError::Increment(60_001));
        assert!(Clock::new(spec(u64::MAX, u64::MAX)).is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn runs_presses_and_flags() {
        let mut clock = Clock::new(spec(5_000, 2_000)).unwrap();
        let t0 = Instant::now();
        // A stopped clock does not run.
        tokio::time::advance(Duration::from_secs(3)).await;
        assert_eq!(clock.remaining(Color::White, Instant::now()), Duration::from_secs(5));
        assert_eq!(clock.flag_at(), None);

        let start = Instant::now();
        clock.start(Color::White, start);
        assert_eq!(clock.flag_at(), Some(start + Duration::from_secs(5)));
        tokio::time::advance(Duration::from_millis(1500)).await;
        let view = clock.view(Instant::now());
        assert_eq!((view.white_ms, view.black_ms, view.running), (3_500, 5_000, Some(Color::White)));

        clock.press(Instant::now(), Duration::ZERO);
        let view = clock.view(Instant::now());
        assert_eq!((view.white_ms, view.black_ms, view.running), (5_500, 5_000, Some(Color::Black)));

        tokio::time::advance(Duration::from_millis(4_999)).await;
        assert!(!clock.remaining(Color::Black, Instant::now()).is_zero());
        tokio::time::advance(Duration::from_millis(1)).await;
        assert!(clock.remaining(Color::Black, Instant::now()).is_zero());
        assert_eq!(clock.flag_at(), Some(Instant::now()));
        assert!(Instant::now() > t0);

        // Stopping freezes both times; a flagged side never goes below zero.
        tokio::time::advance(Duration::from_secs(10)).await;
        clock.stop(Instant::now());
        let view = clock.view(Instant::now());
        assert_eq!((view.white_ms, view.black_ms, view.running), (5_500, 0, None));
    }

    #[tokio::test(start_paused = true)]
    async fn a_sleeping_task_wakes_at_the_flag() {
        let mut clock = Clock::new(spec(2_000, 0)).unwrap();
        let start = Instant::now();
        clock.start(Color::Black, start);
        let at = clock.flag_at().unwrap();
        tokio::time::sleep_until(at).await;
        assert_eq!(Instant::now() - start, Duration::from_secs(2));
        assert!(clock.remaining(Color::Black, Instant::now()).is_zero());
    }

    #[test]
    fn bot_budget_stays_inside_the_clock() {
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        assert_eq!(think_budget(s(1), s(300), s(2)), s(1));
        assert_eq!(think_budget(s(1), s(10), ms(0)), ms(500));
        assert_eq!(think_budget(s(1), ms(60), s(2)), ms(10));
        assert_eq!(think_budget(s(1), ms(30), s(2)), ms(0));
        for left in [0, 1, 49, 50, 51, 1000, 20_000] {
            assert!(think_budget(s(5), ms(left), s(60)) < ms(left).max(ms(1)));
        }
    }

    #[test]
    fn a_side_berserks_once_before_its_first_move_in_an_arena_game_only() {
        let arena = |spec| RoomClock::of(Some(spec), None).unwrap().allow_berserk(true);
        let mut clock = arena(spec(60_000, 1_000));
        let now = Instant::now();
        assert_eq!(clock.berserk(Color::Black, true), Err("berserk is only possible before your first move"));
        assert_eq!(clock.berserk(Color::White, false), Ok(()));
        assert_eq!(clock.times(now).map(|t| (t.white_ms, t.black_ms)), Some((30_000, 60_000)));
        assert_eq!(clock.berserk(Color::White, false), Err("you have berserked already"));
        assert!(clock.view(now).is_some_and(|v| v.berserkable));
        // Kept across a restart: the stored clock says so, and the halved time is the mark.
        let restored = RoomClock::restore(clock.stored(), clock.times(now)).unwrap();
        assert!(restored.clone().berserk(Color::White, false).is_err());
        assert!(restored.clone().berserk(Color::Black, false).is_ok());
        // Not in any other game: a casual game, a correspondence game, an untimed one.
        let mut casual = RoomClock::of(Some(spec(60_000, 0)), None).unwrap();
        assert_eq!(casual.berserk(Color::White, false), Err("this game allows no berserk"));
        let mut corres = RoomClock::of(None, Some(3)).unwrap().allow_berserk(true);
        assert_eq!(corres.berserk(Color::White, false), Err("this game allows no berserk"));
        let mut untimed = RoomClock::default().allow_berserk(true);
        assert_eq!(untimed.berserk(Color::White, false), Err("this game allows no berserk"));
    }
}
