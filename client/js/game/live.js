// What happens on the game page as it happens, for whoever reacts to it rather than draws it:
// the sounds (sounds.js), the your-move signal (signal.js) and blind mode's announcements
// (blind.js). The controller passes on each message the follower applied; each listener hears
// it with `live`: false when it is the page catching up — the `state` a page loads with, and
// the events the server replays after a reconnect — so nothing is played or announced for
// moves that were made while the page was away. Also here: the low-time warning, a synthetic
// `{type: 'lowTime', ms}` heard once a game when the seated player's own running clock passes
// ten seconds.

import { LOW_MS, remaining } from '../clock.js';
import { isCorrespondence } from '../corres.js';

/**
 * After a `resume` or `watch` with a version, the server replays the events missed at once:
 * those arriving this soon after asking are taken as the replay. (A live move in that moment
 * goes unannounced, which is better than a burst of stale ones.)
 */
const REPLAY_MS = 1000;

export class LiveEvents {
  constructor(ctrl) {
    this.ctrl = ctrl;
    this.listeners = new Set();
    this.replayUntil = 0;
    this.lowTimer = null;
    this.lowWarned = false; // once per page and game: a clock that goes back up with increments does not warn again
  }

  /** Calls `handler(msg, live)` for each applied message (and the low-time warning); returns the function that stops it. */
  listen(handler) {
    this.listeners.add(handler);
    return () => this.listeners.delete(handler);
  }

  /** The controller (re)subscribed, after version `v` (undefined: afresh, a `state` comes). */
  subscribed(v) {
    this.replayUntil = v === undefined ? 0 : performance.now() + REPLAY_MS;
  }

  /** The follower applied `msg` (the controller's own bookkeeping, such as `clockAt`, is done). */
  applied(msg) {
    const live = msg.type !== 'state' ? performance.now() > this.replayUntil : false;
    this.tell(msg, live);
    this.watchClock();
  }

  tell(msg, live) {
    for (const handler of [...this.listeners]) {
      try {
        handler(msg, live);
      } catch (e) {
        console.error('game event listener failed', e); // one listener's bug does not silence the others
      }
    }
  }

  /** Sets a timer for when the player's own running clock will pass LOW_MS, if it is above that now. */
  watchClock() {
    clearTimeout(this.lowTimer);
    this.lowTimer = null;
    const left = this.ownTimeLeft();
    if (left === null || this.lowWarned || left <= LOW_MS) return;
    this.lowTimer = setTimeout(() => {
      this.lowTimer = null;
      const now = this.ownTimeLeft();
      if (now === null) return;
      if (now > LOW_MS) {
        this.watchClock(); // an event moved the clock meanwhile
        return;
      }
      this.lowWarned = true;
      this.tell({ type: 'lowTime', ms: now }, true);
    }, left - LOW_MS + 20);
  }

  /** The seated player's time left while their clock runs, else null (and in correspondence, whose days need no ten-second warning). */
  ownTimeLeft() {
    const { game: g, seat, clockAt } = this.ctrl;
    if (!g?.clock || isCorrespondence(g.clock) || !seat || g.status !== 'ongoing' || g.clock.running !== seat.color) return null;
    return remaining(g.clock, clockAt, seat.color, performance.now());
  }
}
