// The status line and the notice at the top of the game page's panel: whose move, who is
// thinking, or how the game ended; and the last thing that went wrong.

import { otherColor } from '../chess.js';
import { headline } from '../outcome.js';
import { pick, SIDE_NAMES } from '../ui.js';

export const template = `
          <p id="status" class="status" role="status" aria-live="polite">Connecting…</p>
          <p id="notice" class="notice" role="alert"></p>`;

export class StatusView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    this.dom = pick(root, { status: '#status', notice: '#notice' });
  }

  render() {
    const { status, notice } = this.dom;
    status.textContent = statusText(this.ctrl);
    notice.textContent = this.ctrl.notice;
    document.title = `gambit · ${status.textContent}`;
  }
}

/** The sentence at the top of the panel: whose move, who is thinking, or how it ended. */
export function statusText(ctrl) {
  const g = ctrl.game;
  if (ctrl.missing) return 'There is no such game on this server (it may have finished a while ago).';
  if (!g) return 'Connecting…';
  if (g.status === 'ended') return endText(g);
  const open = ['white', 'black'].filter((c) => g.seats[c].kind === 'open');
  if (g.status === 'waiting' || open.length) {
    return ctrl.seat ? 'Waiting for your friend to open the invite link…' : `Waiting for a player (${open.map((c) => SIDE_NAMES[c]).join(', ')} seat open)`;
  }
  const seat = g.seats[g.turn];
  const check = g.check ? 'Check! ' : '';
  if (seat.kind === 'bot') return `${check}Level ${seat.level} is thinking…`;
  if (ctrl.seat?.color === g.turn) return `${check}Your move (${SIDE_NAMES[g.turn]})`;
  return `${check}${SIDE_NAMES[g.turn]} to move`;
}

/** How a finished game ended, e.g. "Checkmate — White wins": the server's own wording. */
function endText(g) {
  if (!g.result) return 'Game over';
  if (g.result === '1/2-1/2' && g.reason === 'timeout' && g.clock) {
    // A flag fell, but the other side had too little left to ever mate: say whose.
    const flagged = g.clock.black_ms === 0 && g.clock.white_ms !== 0 ? 'black' : 'white';
    return `Draw — ${SIDE_NAMES[flagged]}'s time ran out but ${SIDE_NAMES[otherColor(flagged)]} cannot mate`;
  }
  return headline(g.result, g.reason);
}
