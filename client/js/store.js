// What the page keeps in localStorage: the seat tokens, one per game, so a reload or a new tab
// on the same browser takes the seat back; the player's display name; and which chat rooms
// the player muted. Storage can be
// unavailable (private windows, quotas): then they last as long as the page, which is the best
// that can be done.

import { checkName } from './names.js';

const PREFIX = 'gambit:seat:';
/** The key of the display name (namebox.js follows changes made under it in other tabs). */
export const NAME_KEY = 'gambit:name';
// Without storage the name lasts as long as the page.
let pageName = null;

/** The seat held in game `id`: `{token, color}` or null. */
export function loadSeat(id) {
  try {
    const value = JSON.parse(localStorage.getItem(PREFIX + id) || 'null');
    if (value && typeof value.token === 'string' && (value.color === 'white' || value.color === 'black')) return value;
  } catch { /* unreadable or unavailable: no seat */ }
  return null;
}

/** Remembers the seat `{token, color}` in game `id`. */
export function saveSeat(id, seat) {
  try {
    localStorage.setItem(PREFIX + id, JSON.stringify({ token: seat.token, color: seat.color, at: Date.now() }));
  } catch { /* see above */ }
}

/** Forgets the seat in game `id` (the server no longer knows its token). */
export function forgetSeat(id) {
  try {
    localStorage.removeItem(PREFIX + id);
  } catch { /* see above */ }
}

/** The display name chosen on this browser, or null. One stored under an older rule counts as none. */
export function loadName() {
  let stored = pageName;
  try {
    stored = localStorage.getItem(NAME_KEY) ?? pageName;
  } catch { /* see above */ }
  return stored === null ? null : checkName(stored).name ?? null;
}

/** Remembers `name` (a valid one, see names.js) as this browser's display name. */
export function saveName(name) {
  pageName = name;
  try {
    localStorage.setItem(NAME_KEY, name);
  } catch { /* see above */ }
}

/**
 * Forgets the display name (on logging out: a name stored while logged in, or one an account
 * holds, would otherwise greet the next person on this browser, and the server refuses a guest
 * the name of an account).
 */
export function forgetName() {
  pageName = null;
  try {
    localStorage.removeItem(NAME_KEY);
  } catch { /* see above */ }
}

const MUTE_PREFIX = 'gambit:mute:';
// Without storage the mutes last as long as the page.
const mutes = new Set();

/** Whether this browser hides the chat room `room` ('players' or 'spectators'). */
export function loadMute(room) {
  try {
    return localStorage.getItem(MUTE_PREFIX + room) === '1';
  } catch {
    return mutes.has(room);
  }
}

/** Remembers whether the chat room `room` is hidden on this browser. */
export function saveMute(room, muted) {
  if (muted) mutes.add(room);
  else mutes.delete(room);
  try {
    if (muted) localStorage.setItem(MUTE_PREFIX + room, '1');
    else localStorage.removeItem(MUTE_PREFIX + room);
  } catch { /* see above */ }
}
