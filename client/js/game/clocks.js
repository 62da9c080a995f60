// The clocks in the player bars: both sides' time as of now, counted down locally from the
// clock the server last sent (when it arrived is the controller's `clockAt`).

import { otherColor } from '../chess.js';
import { formatTime, LOW_MS, remaining, timeControlName } from '../clock.js';
import { pick, SIDE_NAMES } from '../ui.js';

/** The clock's place in a player bar (players.js), filled in by `ClocksView`. */
export const template = '<span class="clock" hidden></span>';

export class ClocksView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    this.dom = pick(root, { top: '#player-top .clock', bottom: '#player-bottom .clock' });
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
    if (g) {
      const now = performance.now();
      for (const [node, color] of [[this.dom.bottom, ctrl.orientation], [this.dom.top, otherColor(ctrl.orientation)]]) {
        node.id = `clock-${color}`;
        node.dataset.color = color;
        node.hidden = !g.clock;
        if (!g.clock) continue;
        const ms = remaining(g.clock, ctrl.clockAt, color, now);
        node.textContent = formatTime(ms);
        node.classList.toggle('running', running && g.clock.running === color);
        node.classList.toggle('low', ms < LOW_MS);
        node.setAttribute('aria-label', `${SIDE_NAMES[color]}'s clock: ${formatTime(ms)} left (${timeControlName(g.clock)})`);
      }
    }
    if (running && !this.ticker) this.ticker = setInterval(() => this.render(), 100);
    if (!running && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
  }
}
