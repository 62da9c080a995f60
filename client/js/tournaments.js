// The tournaments, `/tournaments`: the arenas (`GET /api/tournament`) and round robins
// (`GET /api/roundrobin`) being played, about to start and finished, each a link to its page
// (`/tournament/{id}`, `/roundrobin/{id}`) with its terms, players and time; asked again every
// 10 s while the page is in view. A logged-in player also gets the forms that make one
// (tournament/forms.js). How the lists read is in tournament/list.js.

import { me } from './account.js';
import { getJson } from './api.js';
import { escapeHtml, pick, setHtml } from './ui.js';
import { loginPath, refusalText } from './tournament/common.js';
import { installCreateForms } from './tournament/forms.js';
import { arenaItemHtml, parseArenaList, parseRoundRobinList, roundRobinItemHtml, STAGES } from './tournament/list.js';
import { Poller } from './poll.js';

/** How often the lists are asked for again while in view. */
const REFRESH_MS = 10000;

/** The most finished tournaments listed. */
const FINISHED_SHOWN = 20;

const SECTIONS = {
  started: ['Playing now', 'No tournament is being played right now.'],
  created: ['Starting soon', 'No tournament is about to start.'],
  finished: ['Finished', 'No tournament has finished yet.'],
};

class TournamentsPage {
  constructor(root) {
    document.title = 'gambit · Tournaments';
    root.innerHTML = `
      <div class="tournaments-page">
        <h1>Tournaments</h1>
        <p id="tournaments-error" class="error" role="alert"></p>
        <div class="tournaments-layout">
          <div class="tournaments-lists">
            ${STAGES.map((stage) => `
            <section class="tournament-section" aria-labelledby="tournaments-${stage}-title">
              <h2 id="tournaments-${stage}-title">${SECTIONS[stage][0]}</h2>
              <ul id="tournaments-${stage}" class="tournament-list" aria-busy="true"><li class="none">Loading…</li></ul>
            </section>`).join('')}
          </div>
          <aside class="tournaments-create" aria-label="Make a tournament">
            <div id="tournaments-login" class="card" hidden><p id="tournaments-login-text"></p></div>
            <div id="tournaments-forms" class="tournaments-forms"></div>
          </aside>
        </div>
      </div>`;
    this.dom = pick(root, {
      error: '#tournaments-error', login: '#tournaments-login', loginText: '#tournaments-login-text', forms: '#tournaments-forms',
      ...Object.fromEntries(STAGES.map((stage) => [stage, `#tournaments-${stage}`])),
    });
  }

  async start() {
    this.poller = new Poller(() => this.load(), { everyMs: REFRESH_MS });
    this.poller.now();
    const who = await me();
    if (who) {
      installCreateForms(this.dom.forms);
    } else {
      this.dom.login.hidden = false;
      this.dom.loginText.innerHTML = `<a href="${escapeHtml(loginPath('/tournaments'))}">Log in</a> to make a tournament or to join one.`;
    }
  }

  /** Both lists; each shows what it can, and a list that could not be had says so. */
  async load() {
    const [arenaAnswer, rrAnswer] = await Promise.all([getJson('/api/tournament'), getJson('/api/roundrobin')]);
    const arenas = arenaAnswer.status === 200 ? parseArenaList(arenaAnswer.data) : null;
    const roundRobins = rrAnswer.status === 200 ? parseRoundRobinList(rrAnswer.data) : null;
    const problems = [];
    if (!arenas) problems.push(`Arenas: ${arenaAnswer.status === 200 ? 'the server sent a list this page cannot read.' : refusalText(arenaAnswer)}`);
    if (!roundRobins) problems.push(`Round robins: ${rrAnswer.status === 200 ? 'the server sent a list this page cannot read.' : refusalText(rrAnswer)}`);
    this.dom.error.textContent = problems.join(' ');
    if (!arenas && !roundRobins) return false; // nothing new to show: keep what is there, ask again
    const now = new Date();
    for (const stage of STAGES) {
      const items = [
        ...(arenas?.[stage] ?? []).map((a) => ({ at: a.finishesAt, html: arenaItemHtml(a, stage, 0, now) })),
        ...(roundRobins?.[stage] ?? []).map((r) => ({ at: r.createdAt, html: roundRobinItemHtml(r, stage) })),
      ];
      // Finished ones of both kinds together, newest first; the others arenas first, each in its order.
      if (stage === 'finished') items.sort((x, y) => (y.at ?? 0) - (x.at ?? 0));
      const shown = stage === 'finished' ? items.slice(0, FINISHED_SHOWN) : items;
      const list = this.dom[stage];
      setHtml(list, shown.length ? shown.map((i) => i.html).join('') : `<li class="none">${SECTIONS[stage][1]}</li>`);
      list.setAttribute('aria-busy', 'false');
      list.dataset.count = String(shown.length);
    }
    return false;
  }
}

/** Starts the tournaments page inside `root`. */
export function startTournaments(root) {
  const page = new TournamentsPage(root);
  page.start();
  return page;
}
