// Chess clocks in the page: names of time controls, the time left written like a clock, and
// the count-down between events. The server is the authority: each `state`, `move` and `end`
// carries both times as of that event, and the page only counts the running side down locally
// from when the event arrived, until the next event corrects it. A correspondence game's clock
// (days per move, corres.js) is counted the same way, and written in days and hours.

import { daysName, daysOfChoice } from './corres.js';

/** The time controls offered in the lobby, as [label, minutes, increment seconds]. */
export const PRESETS = [
  ['1+0 bullet', 1, 0],
  ['3+2 blitz', 3, 2],
  ['5+3 blitz', 5, 3],
  ['10+5 rapid', 10, 5],
  ['15+10 rapid', 15, 10],
];

/** Under this many milliseconds a clock is shown in red, with tenths. */
export const LOW_MS = 10000;

/**
 * "5+3" for a clock setting (or a clock view), "3 days" for correspondence — a clock view
 * carrying `days`, or `days` given apart, as game summaries do (their `clock` is null) —,
 * "untimed" for none.
 */
export function timeControlName(clock, days = clock?.days) {
  if (Number.isInteger(days) && days > 0) return daysName(days);
  if (!clock) return 'untimed';
  const minutes = clock.initial_ms / 60000;
  const shown = Number.isInteger(minutes) ? String(minutes) : String(Math.round(minutes * 100) / 100);
  return `${shown}+${Math.round(clock.increment_ms / 1000)}`;
}

/** A setting from minutes and increment seconds, or null when they are not numbers. */
export function clockSpec(minutes, incrementSeconds) {
  const m = Number(minutes);
  const inc = Number(incrementSeconds);
  if (!Number.isFinite(m) || !Number.isFinite(inc)) return null;
  return { initial_ms: Math.round(m * 60000), increment_ms: Math.round(inc * 1000) };
}

/**
 * What a time control choice of the lobby's select asks `create` for: `{clock}` (null for
 * untimed) or `{days}`. `choice` is `untimed`, `custom` (then `custom` holds `{minutes,
 * increment}` as typed), a preset `M+I`, or days `dN`.
 */
export function timeControlFields(choice, custom = {}) {
  const days = daysOfChoice(choice);
  if (days !== null) return { days };
  if (choice === 'untimed' || !choice) return { clock: null };
  if (choice === 'custom') return { clock: clockSpec(custom.minutes, custom.increment) };
  const [m, inc] = String(choice).split('+');
  return { clock: clockSpec(m, inc) };
}

/** `side`'s time left at `now` (performance.now()), for a clock view received at `at`. */
export function remaining(clock, at, side, now) {
  const left = side === 'white' ? clock.white_ms : clock.black_ms;
  if (clock.running !== side) return left;
  return Math.max(0, left - (now - at));
}

/** "4:58", "1:02:03", or "0:09.4" when under ten seconds. */
export function formatTime(ms) {
  const total = Math.max(0, Math.floor(ms));
  const secs = Math.floor(total / 1000);
  const h = Math.floor(secs / 3600);
  const m = Math.floor(secs / 60) % 60;
  const s = String(secs % 60).padStart(2, '0');
  if (h > 0) return `${h}:${String(m).padStart(2, '0')}:${s}`;
  if (total < LOW_MS) return `${m}:${s}.${Math.floor((total % 1000) / 100)}`;
  return `${m}:${s}`;
}
