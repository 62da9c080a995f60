// The lobby's "Tournaments" box, as lichess's lobby has one: the arenas and round robins being
// played and about to start (tournament/list.js chooses and words them), each a link to its
// page, and a link to all of them on `/tournaments`. Asked for when the lobby opens and every
// 30 s while it is in view. With none to list it says so and links to where one is made; it
// stays hidden while neither list can be had (a server without tournaments answers 404).

import { getJson } from '../api.js';
import { setHtml } from '../ui.js';
import { currentItemHtml, currentTournaments, parseArenaList, parseRoundRobinList } from './list.js';
import { Poller } from '../poll.js';

/** How often the box asks again while the lobby is in view. */
const REFRESH_MS = 30000;

class TournamentsBox {
  constructor(section) {
    this.section = section;
    section.innerHTML = `
      <h2 id="lobby-tournaments-title"><a href="/tournaments">Tournaments</a></h2>
      <ul id="lobby-tournament-list" class="tournament-list"></ul>
      <p class="hint"><a href="/tournaments" id="lobby-tournaments-all">All tournaments</a>: finished ones, and making your own.</p>`;
    this.list = section.querySelector('#lobby-tournament-list');
    this.poller = new Poller(() => this.load(), { everyMs: REFRESH_MS });
    this.poller.now();
  }

  async load() {
    const [arenaAnswer, rrAnswer] = await Promise.all([getJson('/api/tournament'), getJson('/api/roundrobin')]);
    const arenas = arenaAnswer.status === 200 ? parseArenaList(arenaAnswer.data) : null;
    const roundRobins = rrAnswer.status === 200 ? parseRoundRobinList(rrAnswer.data) : null;
    // Neither list could be had (a passing failure, or a server without tournaments): the box
    // keeps what it showed, or stays hidden.
    if (!arenas && !roundRobins) return false;
    const items = currentTournaments(arenas, roundRobins);
    const now = new Date();
    setHtml(this.list, items.length
      ? items.map((item) => currentItemHtml(item, 0, now)).join('')
      : '<li class="none">No tournament is being played or about to start: <a href="/tournaments">make one</a>.</li>');
    this.list.dataset.count = String(items.length);
    this.section.hidden = false;
    return false;
  }
}

/** Fills the lobby's Tournaments box `section` (hidden until there is something to show). */
export function installTournaments(section) {
  return section ? new TournamentsBox(section) : null;
}
