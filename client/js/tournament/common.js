// What the tournament pages (arenas and round robins) share, as rules: how a count-down and a
// time to go read ("4:59", "in 12 min"), points with halves ("2½"), how a tournament's terms
// read ("3+2 Blitz · Rated · Standard"), a refusal's words (the server's `{"error": "…"}`, or
// lichess's `{"error": {"field": ["…"]}}` of a form), and the body of a form POST (the
// tournament endpoints take lichess's form fields). Pure, so Node's test runner checks it
// (tests/js/tournament.test.mjs).

import { errorText } from '../api.js';
import { describeTimeControl, VARIANTS } from '../challenges.js';
import { formatDaysLeft } from '../corres.js';

/** How often a tournament's page asks the server again while it is in view. */
export const POLL_MS = 2000;

/** A variant key as people read it ("Standard", "Minichess 7×7"). */
export function variantName(key) {
  return VARIANTS[key] || (typeof key === 'string' && key ? key : 'Standard');
}

/**
 * A count-down of `seconds` as a clock reads: "4:59", "1:02:03"; whole seconds, rounded up
 * (so "0:00" shows only once the time is up); "0:00" for nothing or nonsense.
 */
export function formatCountdown(seconds) {
  const total = Number.isFinite(seconds) ? Math.max(0, Math.ceil(seconds)) : 0;
  const h = Math.floor(total / 3600);
  const m = Math.floor(total / 60) % 60;
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/**
 * A time to go in round words, for the lists: "45 s", "12 min", "1 h 20 min", "2 d 3 h";
 * minutes rounded up, so that "1 min" is the least one reads until the last minute.
 */
export function aboutTime(seconds) {
  const total = Number.isFinite(seconds) ? Math.max(0, seconds) : 0;
  if (total < 60) return `${Math.ceil(total)} s`;
  return formatDaysLeft(total * 1000);
}

/** Seconds left of `seconds` told `elapsedMs` ago; null when nothing was told. */
export function secondsLeft(seconds, elapsedMs) {
  if (!Number.isFinite(seconds)) return null;
  return Math.max(0, seconds - Math.max(0, Number(elapsedMs) || 0) / 1000);
}

/** Points as a crosstable writes them: "0", "½", "1", "2½"; "" for none. */
export function formatPoints(points) {
  if (!Number.isFinite(points)) return '';
  const halves = Math.round(points * 2);
  const whole = Math.floor(halves / 2);
  if (halves % 2 === 0) return String(whole);
  return whole === 0 ? '½' : `${whole}½`;
}

/** A number as a table shows it: at most two decimals, no trailing zeros ("2.25", "3"). */
export function formatDecimal(value) {
  if (!Number.isFinite(value)) return '';
  return String(Math.round(value * 100) / 100);
}

/** Whether two usernames are the same account's (usernames do not differ by case alone). */
export function sameName(a, b) {
  return typeof a === 'string' && typeof b === 'string' && a !== '' && a.toLowerCase() === b.toLowerCase();
}

/** An arena's clock (`{limit, increment}` in seconds) as people read it: "3+2", "½+0"; "?" for none. */
export function arenaClockName(clock) {
  if (!clock) return '?';
  return describeTimeControl({ type: 'clock', limit: clock.limit, increment: clock.increment });
}

/** The names the forms' fields read by, for a refusal that names a field. */
const FIELD_NAMES = {
  name: 'Name', clockTime: 'Clock', clockIncrement: 'Increment', minutes: 'Duration', waitMinutes: 'Starts in',
  variant: 'Variant', rated: 'Rated', berserkable: 'Berserk', streakable: 'Streaks', 'conditions.bots': 'Computer players',
  password: 'Password', 'clock.limit': 'Clock', 'clock.increment': 'Increment', days: 'Days per move', level: 'Level',
};

/**
 * The words to show for a refused request (`{status, data}` from api.js): the server's
 * `error` text; or, for lichess's form errors `{"error": {"field": ["message", …]}}`, each
 * message after the field's name ("Duration: must be at least 5"); else what the status means.
 */
export function refusalText(answer) {
  const error = answer?.data?.error;
  if (error && typeof error === 'object' && !Array.isArray(error)) {
    const parts = [];
    for (const [field, messages] of Object.entries(error)) {
      const list = (Array.isArray(messages) ? messages : [messages]).filter((m) => typeof m === 'string' && m);
      if (!list.length) continue;
      const label = field === 'global' || field === '' ? '' : FIELD_NAMES[field] || field;
      parts.push(label ? `${label}: ${list.join(' ')}` : list.join(' '));
    }
    if (parts.length) return parts.join(' · ');
  }
  if (answer?.status === 401) return typeof error === 'string' && error ? error : 'Log in first.';
  if (answer?.status === 404 && !(typeof error === 'string' && error)) return 'The server does not know this tournament.';
  return errorText({ status: answer?.status ?? 0, data: answer?.data ?? null });
}

/**
 * The body of a form POST: each field as text, `true`/`false` for a switch; fields that are
 * null, undefined or '' are left out (the server takes an absent field for its default).
 */
export function formBody(fields) {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(fields || {})) {
    if (value === null || value === undefined || value === '') continue;
    body.append(key, String(value));
  }
  return body;
}

/** "1 player", "12 players". */
export function playersText(n) {
  const count = Number.isInteger(n) && n > 0 ? n : 0;
  return `${count} ${count === 1 ? 'player' : 'players'}`;
}

/** The login form's address, coming back to `path` afterwards. */
export function loginPath(path) {
  return `/login?next=${encodeURIComponent(path)}`;
}
