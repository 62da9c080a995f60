// The computer levels a seat may have, as the lobby and the board editor offer them. The
// choices are written at once as "Level N"; the labels with the levels' calibrated ratings
// ("Level 6 · ~950", docs/bots.md) come from GET /api/levels, asked once a page load, so the
// ratings live in one place: the server.

import { getJson } from './api.js';

/** The levels, weakest first: 1–4 follow one-move rules, 5–12 are the engine (12 at full strength). */
export const LEVELS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/** `<option>`s for a level `<select>`, with `selected` chosen. */
export function levelOptions(selected) {
  return LEVELS.map((n) => `<option value="${n}"${n === selected ? ' selected' : ''}>Level ${n}</option>`).join('');
}

let asked = null;

/** The server's levels, `[{level, rating, label}]`, or null when it could not say. */
function serverLevels() {
  asked ??= getJson('/api/levels').then(({ status, data }) => (status === 200 && Array.isArray(data) ? data : null));
  return asked;
}

/** Puts the server's labels on the level choices under `root` (selects marked `data-levels`). */
export async function labelLevels(root) {
  const levels = await serverLevels();
  if (!levels) return; // "Level N" stays: still a good choice without the rating
  for (const option of root.querySelectorAll('select[data-levels] option')) {
    const known = levels.find((l) => String(l.level) === option.value);
    if (known && typeof known.label === 'string') option.textContent = known.label;
  }
}
