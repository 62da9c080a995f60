// The lobby's Friends panel, logged in only: the players one follows (friends.js says how each
// reads), from `GET /api/friends` when the lobby opens, every 5 s while the page is in view (poll.js), and
// each time the event stream (re)opens. Challenge opens the challenge form (challengeForm.js)
// in the panel, for that friend.

import { getJson } from './api.js';
import { ChallengeForm } from './challengeForm.js';
import { onEvent } from './events.js';
import { FRIENDS_EMPTY, friendRows, parseFriends } from './friends.js';
import { Poller } from './poll.js';
import { pick, setHtml } from './ui.js';

/** How often the panel asks again while the page is in view. */
const REFRESH_MS = 5000;

class FriendsPanel {
  constructor(section) {
    this.section = section;
    section.innerHTML = `
      <h2 id="friends-title">Friends</h2>
      <ul id="friends-list" class="friend-list" aria-labelledby="friends-title" aria-busy="true"></ul>
      <p id="friends-none" class="hint" hidden>${FRIENDS_EMPTY}</p>
      <div id="friends-challenge" class="friends-challenge"></div>`;
    this.dom = pick(section, { list: '#friends-list', none: '#friends-none', challenge: '#friends-challenge' });
    this.form = new ChallengeForm(this.dom.challenge, { toggle: false });
    this.dom.list.addEventListener('click', (e) => {
      const button = e.target.closest('button.friend-challenge');
      if (button) this.form.show(button.dataset.name);
    });
    section.hidden = false;
    this.poller = new Poller(() => this.load(), { everyMs: REFRESH_MS });
    onEvent((event) => {
      if (event.type === 'streamOpen') this.poller.now();
    });
    this.poller.now();
  }

  /** `GET /api/friends`; true once there is nothing more to ask (logged out). */
  async load() {
    const answer = await getJson('/api/friends');
    if (answer.status === 401) {
      // Logged out meanwhile (in another tab): nobody's friends to show.
      this.section.hidden = true;
      return true;
    }
    if (answer.status !== 200) return false; // a passing failure: the next turn asks again
    const friends = parseFriends(answer.data);
    const d = this.dom;
    // Drawn afresh only when something changed, so a button under the pointer or the focus stays.
    setHtml(d.list, friendRows(friends));
    d.list.setAttribute('aria-busy', 'false');
    d.list.dataset.count = String(friends.length); // for the curious and the browser tests
    d.none.hidden = friends.length > 0;
    return false;
  }
}

/** Shows the Friends panel in `section` (the lobby's `#friends`); call it only when logged in. */
export function installFriends(section) {
  return section ? new FriendsPanel(section) : null;
}
