// Registered players' current ratings, for showing beside their names (the game page's player
// bars, the lobby's seeks and games). The protocol's seats and lists carry a bot's rating but
// not a person's: those come from `GET /api/players/{name}`, asked once per player per page and
// kept, so lists that redraw several times a second cost no more requests. Whoever shows a
// rating passes `onLoad` to be told when an answer arrives, and draws again.

import { getJson } from './api.js';

/** username → {ratings} once answered, or null while asked (or when the player is unknown). */
const known = new Map();
/** Who to tell when an answer arrives. */
const listeners = new Set();

/**
 * `username`'s rating in `category`, as `{rating, provisional}`, or null when not known (yet):
 * the first call asks the server, and `onLoad` (if given) is called once it answered.
 */
export function ratingFor(username, category, onLoad) {
  if (typeof username !== 'string' || !username || !category) return null;
  if (onLoad) listeners.add(onLoad);
  if (!known.has(username)) {
    known.set(username, null);
    ask(username);
  }
  const r = known.get(username)?.[category];
  return r && Number.isFinite(r.rating) ? { rating: r.rating, provisional: Boolean(r.provisional) } : null;
}

async function ask(username) {
  const { status, data } = await getJson(`/api/players/${encodeURIComponent(username)}`);
  if (status !== 200 || !data || typeof data.ratings !== 'object' || data.ratings === null) return;
  known.set(username, data.ratings);
  for (const tell of listeners) tell();
}
