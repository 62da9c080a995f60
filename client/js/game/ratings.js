// Rated or casual, under the status line; and at the end of a rated game, each player's new
// rating with its change — "Alice 1662 (+162)", "Bob 1338 (−162)", a "?" after a provisional
// rating — from the `ratings` of `end` (or of the `state` of a finished game). Above them, the
// opening the game has reached ("C60 · Ruy Lopez").

import { timeControlName } from '../clock.js';
import { daysName, isCorrespondence } from '../corres.js';
import { CATEGORY_NAMES, categoryOf, changeDirection, formatChange, formatRating, modeName } from '../ratings.js';
import { pick, seatName } from '../ui.js';

export const template = `
          <p id="game-opening" class="game-opening" hidden></p>
          <p id="game-mode" class="game-mode"></p>
          <div id="game-ratings" class="game-ratings" hidden aria-label="Ratings after the game">
            <p id="rating-white" class="rating-line"></p>
            <p id="rating-black" class="rating-line"></p>
          </div>`;

export class RatingsView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    this.dom = pick(root, {
      opening: '#game-opening', mode: '#game-mode', box: '#game-ratings', white: '#rating-white', black: '#rating-black',
    });
    this.shown = '';
  }

  render() {
    const g = this.ctrl.game;
    const d = this.dom;
    d.opening.hidden = !g.opening;
    d.opening.textContent = g.opening ? `${g.opening.eco} · ${g.opening.name}` : '';
    d.mode.textContent = modeText(g);
    d.mode.dataset.rated = String(Boolean(g.rated));
    const ratings = g.status === 'ended' ? g.ratings : null;
    d.box.hidden = !ratings;
    if (!ratings) return;
    // Rebuilt only when something changed: the lines are read out as they are.
    const key = JSON.stringify([ratings, seatName(g.seats.white), seatName(g.seats.black)]);
    if (key === this.shown) return;
    this.shown = key;
    for (const color of ['white', 'black']) line(d[color], seatName(g.seats[color]), ratings[color]);
  }
}

/**
 * The game's kind under the status: "Rated · Blitz 5+3", "Casual · untimed", and for
 * correspondence "Casual · 3 days per move", "Rated · Correspondence · 3 days per move".
 */
export function modeText(g) {
  const category = g.rated ? categoryOf(g.variant, g.clock) : null;
  if (isCorrespondence(g.clock)) {
    const perMove = `${daysName(g.clock.days)} per move`;
    return [modeName(g.rated), ...(category ? [CATEGORY_NAMES[category]] : []), perMove].join(' · ');
  }
  const time = timeControlName(g.clock);
  return `${modeName(g.rated)} · ${category ? `${CATEGORY_NAMES[category]} ${time}` : time}`;
}

/** Fills `node` with "Name 1662? (+162)", the change in its own span to colour it. */
function line(node, name, r) {
  if (!r) {
    node.replaceChildren(name);
    return;
  }
  const change = document.createElement('span');
  change.className = `rating-change ${changeDirection(r.change)}`;
  change.textContent = formatChange(r.change);
  const rating = document.createElement('strong');
  rating.className = 'rating';
  rating.textContent = formatRating(r.rating, r.provisional);
  const parts = [`${name} `, rating];
  if (change.textContent) parts.push(' (', change, ')');
  node.replaceChildren(...parts);
}
