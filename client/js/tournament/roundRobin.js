// A round robin's page, `/roundrobin/{id}`: the name and terms, where it stands (waiting for
// players, round 2 of 5, who won), Join / Withdraw and — for its creator, before it starts —
// Start; the crosstable (rows by rank, columns by entry number, the diagonal blacked out,
// points and Sonneborn–Berger) and the rounds with their games. The page asks
// `GET /api/roundrobin/{id}` every 2 s while in view (../poll.js) until it is finished.
//
// The rules — what the JSON means, what shows, the markup — are in roundRobinRules.js; here
// they are put on the page.

import { me } from '../account.js';
import { getJson } from '../api.js';
import { formatDeadline } from '../corres.js';
import { escapeHtml, pick, setHtml } from '../ui.js';
import { ActionBar } from './actions.js';
import { playersText, POLL_MS, refusalText } from './common.js';
import { Poller } from '../poll.js';
import {
  crosstableHtml, parseRoundRobin, roundRobinActions, roundRobinTerms, roundsHtml, statusLine,
} from './roundRobinRules.js';

class RoundRobinPage {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.path = `/roundrobin/${encodeURIComponent(id)}`;
    this.api = `/api/roundrobin/${encodeURIComponent(id)}`;
    this.model = null;
    this.viewer = null;
    document.title = 'gambit · Round robin';
    root.innerHTML = `
      <div class="tournament-page roundrobin-page" id="roundrobin" data-id="${escapeHtml(id)}" data-status="loading">
        <header class="tournament-head">
          <p class="tournament-kind"><a href="/tournaments">Tournaments</a> · Round robin</p>
          <h1 id="rr-name">Loading…</h1>
          <p id="rr-terms" class="tournament-terms"></p>
        </header>
        <p id="rr-error" class="error" role="alert"></p>
        <div id="rr-body" class="rr-body" hidden>
          <section class="card tournament-status" aria-label="Status">
            <p id="rr-status" class="status" role="status" aria-live="polite"></p>
            <div id="rr-actions"></div>
          </section>
          <section class="card" aria-labelledby="rr-crosstable-title">
            <h2 id="rr-crosstable-title">Crosstable <span id="rr-count" class="hint"></span></h2>
            <div class="table-scroll">
              <table id="rr-crosstable" class="data-table crosstable" aria-labelledby="rr-crosstable-title">
                <thead></thead>
                <tbody></tbody>
              </table>
            </div>
            <p class="hint">Each row is a player, each numbered column the player with that number: the points the row's player took from that one. SB: Sonneborn–Berger, the tie-break: the final points of each player one beat, plus half those of each one drew with.</p>
          </section>
          <section class="card" aria-labelledby="rr-rounds-title">
            <h2 id="rr-rounds-title">Rounds</h2>
            <div id="rr-rounds" class="rr-rounds"></div>
          </section>
        </div>
      </div>`;
    this.dom = pick(root, {
      page: '#roundrobin', name: '#rr-name', terms: '#rr-terms', error: '#rr-error', body: '#rr-body', status: '#rr-status',
      actions: '#rr-actions', count: '#rr-count', head: '#rr-crosstable thead', table: '#rr-crosstable tbody', rounds: '#rr-rounds',
    });
    this.actions = new ActionBar(this.dom.actions, {
      base: this.api, page: this.path, prefix: 'rr', onDone: () => this.poller?.now(),
    });
  }

  async start() {
    this.viewer = await me();
    this.poller = new Poller(() => this.load(), { everyMs: POLL_MS });
    this.poller.now();
  }

  /** One answer of the server; true when there is no more to follow. */
  async load() {
    const answer = await getJson(this.api);
    if (answer.status === 404) {
      this.gone();
      return true;
    }
    const r = answer.status === 200 ? parseRoundRobin(answer.data) : null;
    if (!r) {
      this.dom.error.textContent = answer.status === 200 ? 'The server sent a round robin this page cannot read; trying again.' : refusalText(answer);
      return false;
    }
    this.dom.error.textContent = '';
    this.model = r;
    this.render();
    return r.status === 'finished';
  }

  /** No such round robin: the sentence that says so, and nothing else. */
  gone() {
    this.dom.page.dataset.status = 'missing';
    this.dom.name.textContent = 'No such round robin';
    this.dom.terms.textContent = '';
    this.dom.body.hidden = true;
    this.dom.error.textContent = 'There is no round robin at this address: the link may be mistyped. The round robins this server knows are on the Tournaments page.';
    document.title = 'gambit · No such round robin';
  }

  render() {
    const r = this.model;
    const d = this.dom;
    d.page.dataset.status = r.status;
    d.body.hidden = false;
    d.name.textContent = r.name;
    document.title = `gambit · ${r.name}`;
    const made = [r.createdBy ? `by ${r.createdBy}` : '', r.createdAt !== null ? formatDeadline(new Date(r.createdAt)) : ''].filter(Boolean).join(', ');
    d.terms.textContent = [roundRobinTerms(r), r.private ? 'Private (password)' : '', made ? `created ${made}` : ''].filter(Boolean).join(' · ');
    d.status.textContent = statusLine(r, this.viewer);
    this.actions.render(roundRobinActions(r, this.viewer));
    d.count.textContent = `(${playersText(r.players.length)})`;
    const { head, body } = crosstableHtml(r, this.viewer);
    setHtml(d.head, head);
    setHtml(d.table, body);
    setHtml(d.rounds, roundsHtml(r));
  }
}

/** Starts the page of round robin `id` inside `root`. */
export function startRoundRobin(root, id) {
  const page = new RoundRobinPage(root, id);
  page.start();
  return page;
}
