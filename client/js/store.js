// Seat tokens kept in localStorage, one per game, so a reload or a new tab on the same browser
// takes the seat back. Storage can be unavailable (private windows, quotas): then the seat lasts
// as long as the page, which is the best that can be done.

const PREFIX = 'gambit:seat:';

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
