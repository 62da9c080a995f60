// The player bars beside the board's top and bottom edges: who sits on each side, their rating
// in a rated game, whether they are online, which side is to move. Each bar also holds that
// side's clock and first-move count-down (clocks.js), and in an arena game the berserk button
// and, once a side has berserked, its ⚡ (berserk.js).

import { otherColor } from '../chess.js';
import { ratingFor } from '../playerRatings.js';
import { categoryOf, formatRating } from '../ratings.js';
import { escapeHtml, guestMark, pick, seatName, setHtml, SIDE_NAMES } from '../ui.js';
import { buttonTemplate as berserkButton, markHtml as berserkMark } from './berserk.js';
import { template as clock, countdownTemplate as countdown } from './clocks.js';

/**
 * The bar at `position`, 'top' or 'bottom': name, rating, the berserk button (hidden but for the
 * player's own, when they may) and clock; the first-move count-down under them.
 */
export function template(position) {
  return `<div class="player player-${position}" id="player-${position}"><span class="who"></span>${berserkButton}${clock}${countdown}</div>`;
}

/**
 * A seat's name: a logged-in player's links to their page; a name chosen without an account
 * is marked "guest", since anyone may choose any name no account holds.
 */
export function nameHtml(seat, suffix = '') {
  const name = escapeHtml(seatName(seat)) + escapeHtml(suffix);
  if (seat?.kind !== 'human') return `<span class="name">${name}</span>`;
  if (seat.account) return `<a class="name account" href="/@/${encodeURIComponent(seat.name)}" title="a registered player">${name}</a>`;
  return `<span class="name">${name}</span>${guestMark(seat)}`;
}

export class PlayersView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    this.dom = pick(root, { top: '#player-top', bottom: '#player-bottom' });
    // A registered player's rating arrived: the bars show it.
    this.onRating = () => this.render();
  }

  /**
   * The rating beside `color`'s name in a rated game, "1500?" while provisional, or '': the new
   * rating once the game has changed it, else the player's current one (a bot's label carries
   * its rating already).
   */
  ratingText(color) {
    const g = this.ctrl.game;
    const seat = g.seats[color];
    if (!g.rated || seat.kind !== 'human' || !seat.account) return '';
    const r = g.status === 'ended' && g.ratings?.[color] ? g.ratings[color] : ratingFor(seat.name, categoryOf(g.variant, g.clock), this.onRating);
    return r ? formatRating(r.rating, r.provisional) : '';
  }

  render() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    const bottom = ctrl.orientation;
    for (const [node, position, color] of [[this.dom.bottom, 'bottom', bottom], [this.dom.top, 'top', otherColor(bottom)]]) {
      const seat = g.seats[color];
      const you = ctrl.seat?.color === color ? ' (you)' : '';
      const online = seat.kind === 'human' ? `<span class="dot ${seat.online ? 'on' : 'off'}" title="${seat.online ? 'online' : 'offline'}"></span>` : '';
      const toMove = g.status === 'ongoing' && g.turn === color ? ' to-move' : '';
      node.className = `player player-${position}${toMove}`;
      const rating = this.ratingText(color);
      const rated = rating ? `<span class="rating" title="rating">${escapeHtml(rating)}</span>` : '';
      const berserked = g.berserk?.[color] ? berserkMark : '';
      setHtml(node.querySelector('.who'), `<span class="swatch ${color}" aria-hidden="true"></span>${online}${nameHtml(seat, you)}${rated}${berserked}<span class="side">${SIDE_NAMES[color]}</span>`);
    }
  }
}
