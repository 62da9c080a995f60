//! A game's chess clock: Fischer time control (an initial time per side plus an increment
//! added after each of that side's moves), and the room's part that keeps it ([`RoomClock`]):
//! started and stopped with the game, pressed by moves, and its flag.
//!
//! Time is read from `tokio::time::Instant` and passed in by the caller, so tests can run the
//! clock under `tokio::time::pause()` and the room can sleep until [`Clock::flag_at`].

use std::time::Duration;

use thiserror::Error;
use tokio::time::Instant;

use crate::chess::{timeout_outcome, Color, Game, Outcome};
use crate::protocol::{ClockSpec, ClockView};
use crate::server::store::{StoredClock, StoredTimes};

/// The shortest initial time a game may have.
pub const MIN_INITIAL: Duration = Duration::from_secs(1);
/// The longest initial time a game may have.
pub const MAX_INITIAL: Duration = Duration::from_secs(3 * 60 * 60);
/// The largest increment a game may have.
pub const MAX_INCREMENT: Duration = Duration::from_secs(60);

/// A clock setting the server refuses.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClockError {
    #[error("clock: \"initial_ms\" must be between 1000 (1 s) and 10800000 (3 h), not {0}")]
    Initial(u64),
    #[error("clock: \"increment_ms\" must be between 0 and 60000 (60 s), not {0}")]
    Increment(u64),
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
        Ok(Clock { spec, increment, remaining: [initial; 2], running: None })
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

    /// The running side has moved at `now`: its time used is charged, the increment added, and
    /// the other side's time starts. Does nothing on a stopped clock.
    pub fn press(&mut self, now: Instant) {
        if let Some(side) = self.running() {
            self.stop(now);
            let left = &mut self.remaining[side.index()];
            *left = left.saturating_add(self.increment);
            self.running = Some((!side, now));
        }
    }

    /// When the running side's time runs out, if a side is running.
    pub fn flag_at(&self) -> Option<Instant> {
        self.running.map(|(side, since)| since + self.remaining[side.index()])
    }

    /// The side whose time has run out by `now`, if any.
    pub fn flagged(&self, now: Instant) -> Option<Color> {
        self.running().filter(|side| self.remaining(*side, now).is_zero())
    }

    /// The clock as sent in events, as of `now`.
    pub fn view(&self, now: Instant) -> ClockView {
        let ms = |side: Color| u64::try_from(self.remaining(side, now).as_millis()).unwrap_or(u64::MAX);
        ClockView {
            initial_ms: self.spec.initial_ms,
            increment_ms: self.spec.increment_ms,
            white_ms: ms(Color::White),
            black_ms: ms(Color::Black),
            running: self.running(),
        }
    }
}

/// Time kept back from a bot's budget, for the answer to reach the room before the flag.
const BOT_MARGIN: Duration = Duration::from_millis(50);

/// How long a bot may think with `remaining` on its clock: its configured time, but no more than
/// a twentieth of what is left plus half the increment, and always short of the flag.
fn think_budget(configured: Duration, remaining: Duration, increment: Duration) -> Duration {
    configured.min(remaining / 20 + increment / 2).min(remaining.saturating_sub(BOT_MARGIN))
}

/// The room's clock: the chess clock of a timed game, none for an untimed one.
#[derive(Clone, Debug, Default)]
pub(super) struct RoomClock {
    clock: Option<Clock>,
}

impl RoomClock {
    pub(super) fn new(clock: Option<Clock>) -> RoomClock {
        RoomClock { clock }
    }

    /// The clock of a stored game, stopped, with the times stored (if any).
    pub(super) fn restore(spec: Option<StoredClock>, times: Option<StoredTimes>) -> Result<RoomClock, ClockError> {
        let Some(spec) = spec else { return Ok(RoomClock::default()) };
        let mut clock = Clock::new(spec.into())?;
        if let Some(t) = times {
            clock.set_remaining(Duration::from_millis(t.white_ms), Duration::from_millis(t.black_ms));
        }
        Ok(RoomClock::new(Some(clock)))
    }

    /// True for a timed game.
    pub(super) fn is_timed(&self) -> bool {
        self.clock.is_some()
    }

    /// The time control, if the game is timed.
    pub(super) fn spec(&self) -> Option<ClockSpec> {
        self.clock.as_ref().map(Clock::spec)
    }

    /// The clock as sent in events, as of `now`.
    pub(super) fn view(&self, now: Instant) -> Option<ClockView> {
        self.clock.as_ref().map(|c| c.view(now))
    }

    /// Both sides' times at `now`, as stored.
    pub(super) fn times(&self, now: Instant) -> Option<StoredTimes> {
        self.view(now).map(|view| StoredTimes { white_ms: view.white_ms, black_ms: view.black_ms })
    }

    /// When the running side's flag falls, while `game` goes on.
    pub(super) fn flag_at(&self, game: &Game) -> Option<Instant> {
        self.clock.as_ref().filter(|_| !game.is_over()).and_then(Clock::flag_at)
    }

    /// The end of `game` if the running side's time is up at `now`: a loss, or a draw when the
    /// opponent cannot mate (docs/rules.md, "Time controls").
    pub(super) fn flag(&self, game: &Game, now: Instant) -> Option<Outcome> {
        if game.is_over() {
            return None;
        }
        let flagged = self.clock.as_ref()?.flagged(now)?;
        Some(timeout_outcome(game.position(), flagged))
    }

    /// True if the running side's time is up at `now`.
    pub(super) fn flagged(&self, now: Instant) -> bool {
        self.clock.as_ref().and_then(|c| c.flagged(now)).is_some()
    }

    /// Runs the clock of `turn` while the game is `ongoing`, stops it otherwise. True if this
    /// started a clock that was not running.
    pub(super) fn sync(&mut self, ongoing: bool, turn: Color, now: Instant) -> bool {
        let Some(clock) = &mut self.clock else { return false };
        let was_running = clock.running().is_some();
        if ongoing {
            clock.start(turn, now);
        } else {
            clock.stop(now);
        }
        ongoing && !was_running
    }

    /// Stops the clock at `now` (the game ended, or paused).
    pub(super) fn stop(&mut self, now: Instant) {
        if let Some(clock) = &mut self.clock {
            clock.stop(now);
        }
    }

    /// The clock as it will be after a move that arrived at `now` (stopped if the move `ends`
    /// the game), for the room to store with the move before it keeps it.
    pub(super) fn pressed(&self, now: Instant, ends: bool) -> RoomClock {
        let mut pressed = self.clone();
        if let Some(clock) = &mut pressed.clock {
            clock.press(now);
            if ends {
                clock.stop(now);
            }
        }
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

        clock.press(Instant::now());
        let view = clock.view(Instant::now());
        assert_eq!((view.white_ms, view.black_ms, view.running), (5_500, 5_000, Some(Color::Black)));

        tokio::time::advance(Duration::from_millis(4_999)).await;
        assert_eq!(clock.flagged(Instant::now()), None);
        tokio::time::advance(Duration::from_millis(1)).await;
        assert_eq!(clock.flagged(Instant::now()), Some(Color::Black));
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
        assert_eq!(clock.flagged(Instant::now()), Some(Color::Black));
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
}
