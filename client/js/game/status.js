// The status line and the notice at the top of the game page's panel: whose move, who is
// thinking, or how the game ended; the last thing that went wrong; and the running score of a
// match of rematches, once a game of it has counted.

import { otherColor } from '../chess.js';
import { headline } from '../outcome.js';
import { matchLine } from '../social.js';
import { pick, seatName, SIDE_NAMES } from '../ui.js';

export const template = `
          <p id="match" class="match" hidden><span class="match-label">Match</span> <span id="match-score"></span></p>
          <p id="status" class="status" role="status" aria-live="polite">Connecting…</p>
          <p id="notice" class="notice" role="alert"></p>`;

export class StatusView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    this.dom = pick(root, { status: '#status', notice: '#notice', match: '#match', score: '#match-score' });
  }

  render() {
    const { status, notice, match, score } = this.dom;
    const g = this.ctrl.game;
    status.textContent = statusText(this.ctrl);
    notice.textContent = this.ctrl.notice;
    document.title = `gambit · ${status.textContent}`;
    // White's name first, as the board's colours are now: "Alice 1½ – ½ Bob".
    const line = g ? matchLine(g.match, seatName(g.seats.white), seatName(g.seats.black)) : null;
    match.hidden = line === null;
    score.textContent = line ?? '';
  }
}

/** The sentence at the top of the panel: whose move, who is thinking, or how it ended. */
export function statusText(ctrl) {
  const g = ctrl.game;
  if (ctrl.unreadable) return ctrl.unreadable;
  if (ctrl.missing) return `No such game: this server has no game ${ctrl.id}.`;
  if (!g) return 'Connecting…';
  if (g.status === 'ended') return endText(g);
  const open = ['white', 'black'].filter((c) => g.seats[c].kind === 'open');
  if (g.status === 'waiting' || open.length) {
    return ctrl.seat ? 'Waiting for your friend to open the invite link…' : `Waiting for a player (${open.map((c) => SIDE_NAMES[c]).join(', ')} seat open)`;
  }
  const seat = g.seats[g.turn];
  const check = g.check ? 'Check! ' : '';
  if (seat.kind === 'bot' || seat.kind === 'engine') return `${check}${seatName(seat)} is thinking…`;
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
