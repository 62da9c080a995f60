// The lobby's "Your games", logged in only: the player's games in progress (playing.js says how
// each reads) from `GET /api/account/playing` when the lobby opens, each time the event stream
// (re)opens or tells of a game that started or finished or of a notification (an opponent's
// correspondence move comes as one), and every 30 s while the page is in view (poll.js). Hidden while
// there is no game to list.

import { getJson } from './api.js';
import { onEvent } from './events.js';
import { Poller } from './poll.js';
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
    this.poller = new Poller(() => this.load(), { everyMs: REFRESH_MS });
    onEvent((event) => {
      if (CHANGES.has(event?.type)) this.poller.now();
    });
    this.poller.now();
  }

  /** `GET /api/account/playing`; true once there is nothing more to ask (logged out). */
  async load() {
    const answer = await getJson('/api/account/playing');
    if (answer.status === 401) {
      // Logged out meanwhile (in another tab): no games of anyone's to show.
      this.section.hidden = true;
      return true;
    }
    // A passing failure: the next turn asks again.
    if (answer.status === 200) this.show(parsePlaying(answer.data));
    return false;
  }

  show(games) {
    // Drawn afresh only when something changed, so a link under the pointer or the focus stays.
    setHtml(this.list, playingHtml(games));
    this.list.dataset.count = String(games.length); // for the curious and the browser tests
    this.section.hidden = games.length === 0;
  }
}

/** Shows "Your games" in `section` (the lobby's `#your-games`); call it only when logged in. */
export function installYourGames(section) {
  return section ? new YourGames(section) : null;
}
