// The player bars above and below the board: who sits on each side, whether they are online,
// which side is to move. Each bar also holds that side's clock (clocks.js).

import { otherColor } from '../chess.js';
import { escapeHtml, guestMark, pick, seatName, setHtml, SIDE_NAMES } from '../ui.js';
import { template as clock } from './clocks.js';

/** The bar at `position`, 'top' or 'bottom'. */
export function template(position) {
  return `<div class="player player-${position}" id="player-${position}"><span class="who"></span>${clock}</div>`;
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
      setHtml(node.querySelector('.who'), `<span class="swatch ${color}" aria-hidden="true"></span>${online}${nameHtml(seat, you)}<span class="side">${SIDE_NAMES[color]}</span>`);
    }
  }
}
