// The clocks in the player bars: both sides' time as of now, counted down locally from the
// clock the server last sent (when it arrived is the controller's `clockAt`).
//
// No clock runs until both sides have made their first move (as on lichess): meanwhile the
// clock view carries `first_move_ms`, the time the side to move has left to make its first
// move before the server aborts the game, and `running` is null. That count-down shows in the
// bar of the side to move ("White has 27 s to make a first move"), kept by the same ticker.
//
// A correspondence game's clock (days per move) shows each side's time left for its move in
// days and hours ("2 d 5 h", "45 min"), ticking once a second rather than ten times.

import { otherColor } from '../chess.js';
import { formatTime, LOW_MS, remaining, timeControlName } from '../clock.js';
import { daysName, formatDaysLeft, isCorrespondence } from '../corres.js';
import { pick, SIDE_NAMES } from '../ui.js';

/** The clock's place in a player bar (players.js), filled in by `ClocksView`. */
export const template = '<span class="clock" hidden></span>';

/** The first-move count-down's place in a player bar, under the name. */
export const countdownTemplate = '<span class="first-move" role="timer" hidden></span>';

/**
 * The first-move count-down of game model `g`, whose clock arrived at `at`: the ms the side to
 * move has left as of `now`, or null when there is none (both have moved, untimed, or over).
 */
export function firstMoveLeft(g, at, now) {
  const ms = g?.status === 'ongoing' ? g.clock?.first_move_ms : undefined;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return null;
  return Math.max(0, ms - (now - at));
}

/** Under this much time left for a correspondence move, the clock shows in red. */
export const CORRES_LOW_MS = 60 * 60 * 1000;

/**
 * How a clock reads, `ms` left on `clock` (a clock view): `{text, low, label}`, the label for
 * assistive technology after the side's name ("2 d 5 h left for the move (3 days per move)").
 */
export function clockFace(clock, ms) {
  if (isCorrespondence(clock)) {
    const text = formatDaysLeft(ms);
    return { text, low: ms < CORRES_LOW_MS, label: `${text} left for the move (${daysName(clock.days)} per move)` };
  }
  const text = formatTime(ms);
  return { text, low: ms < LOW_MS, label: `${text} left (${timeControlName(clock)})` };
}

/** "White has 27 s to make a first move", or "You have 27 s …" for the seated player. */
export function firstMoveText(color, left, you) {
  const s = Math.ceil(left / 1000);
  return you ? `You have ${s} s to make your first move` : `${SIDE_NAMES[color]} has ${s} s to make a first move`;
}

export class ClocksView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    this.dom = pick(root, {
      top: '#player-top .clock', bottom: '#player-bottom .clock',
      topCountdown: '#player-top .first-move', bottomCountdown: '#player-bottom .first-move',
    });
    this.ticker = null;
  }

  /**
   * Writes both clocks as of now, and keeps a ticker running while a side's time runs: only the
   * clock text changes between events, so the ticker touches nothing else.
   */
  render() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    const running = Boolean(g?.clock?.running) && g.status === 'ongoing';
    const now = performance.now();
    const first = firstMoveLeft(g, ctrl.clockAt, now);
    if (g) {
      this.renderCountdown(first);
      for (const [node, color] of [[this.dom.bottom, ctrl.orientation], [this.dom.top, otherColor(ctrl.orientation)]]) {
        node.id = `clock-${color}`;
        node.dataset.color = color;
        node.hidden = !g.clock;
        if (!g.clock) continue;
        const ms = remaining(g.clock, ctrl.clockAt, color, now);
        const face = clockFace(g.clock, ms);
        if (node.textContent !== face.text) node.textContent = face.text;
        node.classList.toggle('running', running && g.clock.running === color);
        node.classList.toggle('low', face.low);
        node.setAttribute('aria-label', `${SIDE_NAMES[color]}'s clock: ${face.label}`);
      }
    }
    const ticking = running || (first !== null && first > 0);
    // Days and hours change slowly: once a second is plenty.
    if (ticking && !this.ticker) this.ticker = setInterval(() => this.render(), isCorrespondence(g?.clock) ? 1000 : 100);
    if (!ticking && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  /** The first-move count-down in the bar of the side to move (`left` ms, or null for none). */
  renderCountdown(left) {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    for (const [node, color] of [[this.dom.bottomCountdown, ctrl.orientation], [this.dom.topCountdown, otherColor(ctrl.orientation)]]) {
      const shown = left !== null && g.turn === color;
      node.hidden = !shown;
      if (!shown) continue;
      // Only the text changes each tick: the timer role keeps screen readers from reading it out every time.
      const text = firstMoveText(color, left, ctrl.seat?.color === color);
      if (node.textContent !== text) node.textContent = text;
      node.classList.toggle('low', left < LOW_MS);
    }
  }
}
