// The your-move signal, for a player whose game tab is out of sight (`document.hidden`): the
// title becomes "● Your move — gambit" and the favicon gets a dot (favicon-move.svg), both back
// as they were once the tab is visible again or it is no longer their move; and, if the person
// turned notifications on (the top bar's settings) and the browser allows them, a notification
// when the opponent's move arrives, closed again when they come back.
//
// Other views set the title as they redraw (status.js): while the signal is up, a watch on the
// <title> element keeps what they write as the title to restore, and puts the signal back.

import { SIDE_NAMES } from '../ui.js';
import { moveWords } from '../blindText.js';
import { setting } from '../settings.js';

export const SIGNAL_TITLE = '● Your move — gambit';
const ICON = '/assets/favicon.svg';
const ICON_MOVE = '/assets/favicon-move.svg';

export class YourMoveSignal {
  constructor(ctrl) {
    this.ctrl = ctrl;
    this.on = false;
    this.baseTitle = document.title;
    this.notification = null;
    this.titleWatch = null;
    document.addEventListener('visibilitychange', () => this.update());
  }

  /** A message the controller applied (see live.js). */
  heard(msg, live) {
    const wasOn = this.on;
    this.update();
    // A notification only for the opponent's live move that made it our move, not for hiding the tab.
    if (live && msg.type === 'move' && this.on && !wasOn) this.notify(msg);
    if (!this.on) this.closeNotification();
  }

  /** Raises or lowers the signal as the tab's visibility and the turn now say. */
  update() {
    const want = document.hidden && this.ctrl.myTurn() && !this.ctrl.pending;
    if (want === this.on) return;
    this.on = want;
    if (want) {
      this.baseTitle = document.title;
      this.watchTitle(true);
      document.title = SIGNAL_TITLE;
    } else {
      this.watchTitle(false);
      document.title = this.baseTitle;
      this.closeNotification();
    }
    setIcon(want ? ICON_MOVE : ICON);
    document.documentElement.dataset.yourMove = String(want);
  }

  watchTitle(on) {
    this.titleWatch?.disconnect();
    this.titleWatch = null;
    const title = document.querySelector('title');
    if (!on || !title || typeof MutationObserver !== 'function') return;
    this.titleWatch = new MutationObserver(() => {
      if (document.title === SIGNAL_TITLE) return;
      this.baseTitle = document.title;
      document.title = SIGNAL_TITLE;
    });
    this.titleWatch.observe(title, { childList: true, characterData: true, subtree: true });
  }

  notify(msg) {
    if (!setting('notify') || typeof Notification !== 'function' || Notification.permission !== 'granted') return;
    const g = this.ctrl.game;
    const mover = g.turn === 'white' ? 'black' : 'white';
    const before = g.boards[g.boards.length - 2];
    try {
      this.closeNotification();
      this.notification = new Notification(`Your move (${SIDE_NAMES[g.turn]})`, {
        body: moveWords({ san: msg.san, uci: msg.uci, color: mover, before }),
        icon: ICON_MOVE,
        tag: `gambit-${this.ctrl.id}`, // one per game: a newer move replaces the older notification
      });
      this.notification.onclick = () => {
        window.focus();
        this.closeNotification();
      };
    } catch {
      // Some browsers (Android's) show notifications only from a service worker: the title and icon still say it.
    }
  }

  closeNotification() {
    this.notification?.close();
    this.notification = null;
  }
}

/** Points the page's icon at `href`. */
function setIcon(href) {
  const link = document.querySelector('link[rel="icon"]');
  if (link && link.getAttribute('href') !== href) link.setAttribute('href', href);
}
