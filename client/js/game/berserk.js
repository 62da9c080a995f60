// Berserk in an arena game (lichess's): before their own first move a player may halve their
// time for a point more if they win. The button sits beside the player's own clock, in their
// player bar; once a side has berserked, a ⚡ beside its name says so (players.js draws that,
// on TV too). Who berserked is the follower's (follow.js, `g.berserk`); the controller sends
// `berserk` (ctrl.js). `canBerserk` decides when the button shows; it is pure, so Node's test
// runner checks it (tests/js/berserk.test.mjs).

import { otherColor } from '../chess.js';
import { hasMoved } from '../follow.js';
import { pick } from '../ui.js';

/** What the button says when pointed at. */
export const BERSERK_TITLE = 'Berserk: half your time for a point more if you win';

/** The button's place in a player bar (players.js), before the clock; `BerserkView` shows it. */
export const buttonTemplate = `<button type="button" class="berserk" title="${BERSERK_TITLE}" aria-label="${BERSERK_TITLE}" hidden>⚡</button>`;

/** The mark after the name of a side that berserked. */
export const markHtml = '<span class="berserk-mark" role="img" aria-label="berserked" title="Berserked: half the time, a point more for a win">⚡</span>';

/**
 * Whether the holder of seat `seat` (`{color}`, or null for a spectator) may berserk in game
 * model `g` now: the game is under way on a berserkable clock, they have not made their first
 * move, and they have not berserked yet.
 */
export function canBerserk(g, seat) {
  const color = seat?.color;
  if (!g || (color !== 'white' && color !== 'black')) return false;
  if (g.status !== 'ongoing' || !g.clock?.berserkable) return false;
  return !hasMoved(color, g.moves.length) && !g.berserk?.[color];
}

export class BerserkView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    this.dom = pick(root, { top: '#player-top .berserk', bottom: '#player-bottom .berserk' });
    for (const button of [this.dom.top, this.dom.bottom]) button.addEventListener('click', () => ctrl.berserk());
  }

  /** The button in the bar of the player's own colour (bottom, unless the board is flipped). */
  render() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    const shown = !ctrl.archived && canBerserk(g, ctrl.seat);
    for (const [node, color] of [[this.dom.bottom, ctrl.orientation], [this.dom.top, otherColor(ctrl.orientation)]]) {
      const mine = shown && color === ctrl.seat.color;
      node.hidden = !mine;
      if (mine) node.id = 'berserk';
      else node.removeAttribute('id');
      node.disabled = !ctrl.connected || Boolean(ctrl.berserkSent);
    }
  }
}
