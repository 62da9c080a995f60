// A correspondence game on the game page (days per move, corres.js): the deadline of the side to
// move as a local day and time, and the box that confirms a move. In correspondence a move is
// never sent straight from the board: it is shown there tentatively, with "Submit move" and
// "Cancel" (a slip of the finger on a phone must not be final). The controller keeps the
// tentative move (ctrl.js); this draws it.
//
// The server's clock says it all: `running` is the side to move and its `*_ms` the time left
// until its deadline, counted down locally from when the clock arrived (the controller's
// `clockAt`, a performance.now() time). Once the deadline has passed the game goes on until the
// opponent claims it: the claim box (prompts.js) offers that, from `corresClaim`. The state's
// `claim` says the same, but only a `state` or `seats` event brings it: after a move, the clock
// is what is current.
//
// The functions are pure, so Node's test runner checks them (tests/js/corres.test.mjs).

import { otherColor } from '../chess.js';
import { remaining } from '../clock.js';
import { formatDeadline, isCorrespondence } from '../corres.js';
import { pick } from '../ui.js';

/**
 * The side to move in correspondence game model `g` and its time left as of `now`, for a clock
 * that arrived at `at` (both performance.now() times): `{mover, left}`; null when the game is
 * not a correspondence game under way (over, waiting for a player, or on a clock).
 */
export function moverTimeLeft(g, at, now) {
  const clock = g?.clock;
  if (!isCorrespondence(clock) || g.status !== 'ongoing') return null;
  const mover = clock.running;
  if (mover !== 'white' && mover !== 'black') return null;
  return { mover, left: remaining(clock, at, mover, now) };
}

/**
 * Who may claim correspondence game `g`, as the server has it: the side not to move, once the
 * mover's time is up. `{by, mover, left}` (`left` the mover's time, 0 once the deadline has
 * passed); null when the game is not a correspondence game under way.
 */
export function corresClaim(g, at, now) {
  const t = moverTimeLeft(g, at, now);
  return t ? { by: otherColor(t.mover), mover: t.mover, left: t.left } : null;
}

/**
 * The deadline of the side to move as a wall-clock time (ms since 1970): `origin`
 * (performance.timeOrigin) turns the page's times into the wall clock's. Null when there is none.
 */
export function deadlineMs(g, at, now, origin) {
  const t = moverTimeLeft(g, at, now);
  return t ? origin + now + t.left : null;
}

/** The text of the deadline: "Deadline: Tue 14:05", as `nowDate` sees it. */
export function deadlineText(ms, nowDate = new Date()) {
  return `Deadline: ${formatDeadline(new Date(ms), nowDate)}`;
}

/** The deadline line, under the status. */
export const deadlineTemplate = '<p id="corres-deadline" class="corres-deadline" hidden></p>';

/** The move confirmation, with the buttons by the player's own bar. */
export const confirmTemplate = `
          <div id="corres-confirm" class="confirm corres-confirm" hidden>
            <span id="corres-move" class="corres-move"></span>
            <button type="button" id="corres-submit" class="primary">Submit move</button>
            <button type="button" id="corres-cancel">Cancel</button>
          </div>`;

/** The longest a timer may wait (setTimeout's limit, about 24.8 days). */
const MAX_TIMER = 2 ** 31 - 1;

export class CorresView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    this.dom = pick(root, {
      deadline: '#corres-deadline', confirm: '#corres-confirm', move: '#corres-move', submit: '#corres-submit', cancel: '#corres-cancel',
    });
    this.dom.submit.addEventListener('click', () => ctrl.submitMove());
    this.dom.cancel.addEventListener('click', () => ctrl.cancelMove());
    this.timer = null;
    this.timerFor = null; // the deadline the timer waits for
  }

  render() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    const now = performance.now();
    const t = moverTimeLeft(g, ctrl.clockAt, now);
    const d = this.dom;
    d.deadline.hidden = !t;
    if (t) {
      const at = deadlineMs(g, ctrl.clockAt, now, performance.timeOrigin);
      // To the minute: the line does not change as the page redraws within it.
      const shown = Math.round(at / 60000) * 60000;
      const text = deadlineText(shown);
      if (d.deadline.textContent !== text) d.deadline.textContent = text;
      d.deadline.title = `${ctrl.seat?.color === t.mover ? 'Your' : `${t.mover === 'white' ? 'White' : 'Black'}'s`} time for this move runs out ${new Date(shown).toLocaleString()}`;
      d.deadline.classList.toggle('mine', ctrl.seat?.color === t.mover);
      d.deadline.classList.toggle('passed', t.left <= 0);
      this.wake(t.left > 0 ? at : null);
    } else {
      this.wake(null);
    }
    const tentative = ctrl.tentative;
    d.confirm.hidden = !tentative;
    if (tentative) {
      const text = `Your move: ${tentative.san || tentative.uci}`;
      if (d.move.textContent !== text) d.move.textContent = text;
      d.submit.disabled = !ctrl.connected;
    }
  }

  /**
   * Redraws the page when the deadline at `at` (wall-clock ms) passes: the claim becomes
   * possible then, with no message from the server. Null: no deadline to wait for.
   */
  wake(at) {
    if (at === this.timerFor) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.timerFor = at;
    if (at === null) return;
    const wait = Math.min(MAX_TIMER, Math.max(0, at - Date.now()) + 50);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerFor = null;
      this.ctrl.redraw();
    }, wait);
  }
}
