// The lobby's "Your games", logged in only: the player's games in progress (playing.js says how
// each reads) from `GET /api/account/playing` when the lobby opens, each time the event stream
// (re)opens or tells of a game that started or finished or of a notification (an opponent's
// correspondence move comes as one), and every 30 s while the page is in view. Hidden while
// there is no game to list.

import { getJson } from './api.js';
import { onEvent } from './events.js';
import { parsePlaying, playingHtml } from './playing.js';
import { setHtml } from './ui.js';

/** How often the list asks again while the page is in view. */
const REFRESH_MS = 30000;

/** The stream's events after which the list may have changed. */
const CHANGES = new Set(['streamOpen', 'gameStart', 'gameFinish', 'notification']);

class YourGames {
  constructor(section) {
    this.section = section;
    this.list = section.querySelector('#my-games');
    this.loading = false;
    this.again = false; // something changed while a request was on its way: ask once more
    this.stopped = false;
    onEvent((event) => {
      if (CHANGES.has(event?.type)) this.load();
    });
    this.timer = setInterval(() => {
      if (document.visibilityState === 'visible') this.load();
    }, REFRESH_MS);
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') this.load();
    });
    this.load();
  }

  /** `GET /api/account/playing`, one request at a time. */
  async load() {
    if (this.stopped) return;
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = true;
    const answer = await getJson('/api/account/playing');
    this.loading = false;
    if (answer.status === 401) {
      // Logged out meanwhile (in another tab): no games of anyone's to show.
      this.stop();
      return;
    }
    if (answer.status === 200) this.show(parsePlaying(answer.data));
    // A passing failure: the next tick asks again.
    if (this.again) {
      this.again = false;
      this.load();
    }
  }

  show(games) {
    // Drawn afresh only when something changed, so a link under the pointer or the focus stays.
    setHtml(this.list, playingHtml(games));
    this.list.dataset.count = String(games.length); // for the curious and the browser tests
    this.section.hidden = games.length === 0;
  }

  stop() {
    this.stopped = true;
    clearInterval(this.timer);
    this.section.hidden = true;
  }
}

/** Shows "Your games" in `section` (the lobby's `#your-games`); call it only when logged in. */
export function installYourGames(section) {
  return section ? new YourGames(section) : null;
}
