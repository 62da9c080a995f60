// A player's page, `/@/{name}`: their ratings per category (with "?" while provisional), wins,
// draws and losses, the rating graph (ratingGraph.js), and their finished games, newest first, a
// page of 20 at a time, each linking to the game and its PGN, with a link to all of them as one
// PGN file. From `GET /api/players/{name}` and `…/games?page=N`. Everything the server sends
// is set as text. By the name: a dot when they are online, "BOT" for a bot account; on another
// player's page, logged in, Follow and Block (`/api/rel/…`), "Follows you", and the form that
// challenges them (challengeForm.js).

import { errorText, getJson, postJson } from './api.js';
import { changePassword, logoutEverywhere, me, passwordProblem, playerPath } from './account.js';
import { timeControlName } from './clock.js';
import { headline } from './outcome.js';
import { drawGraph } from './ratingGraph.js';
import { CATEGORIES, CATEGORY_NAMES, changeDirection, formatChange, formatRating, modeName, OUTCOME_NAMES, outcomeFor } from './ratings.js';
import { ChallengeForm } from './challengeForm.js';
import { pick } from './ui.js';

/** A table cell (`th` when `header`) holding `content`: text, or nodes. */
function cell(content, { header = false, className = '' } = {}) {
  const td = document.createElement(header ? 'th' : 'td');
  if (header) td.scope = 'row';
  if (className) td.className = className;
  if (content instanceof Node) td.append(content);
  else td.textContent = String(content);
  return td;
}

function link(href, text, className = '') {
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  if (className) a.className = className;
  return a;
}

/** A count as the server sent it, or 0 when it is not one. */
function count(n) {
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

class PlayerPage {
  constructor(root, name) {
    this.name = name;
    this.relation = { following: false, blocking: false }; // the viewer's, to this player
    const asked = Number(new URLSearchParams(location.search).get('page'));
    this.page = Number.isInteger(asked) && asked >= 1 ? asked : 1;
    this.pages = 1;
    root.innerHTML = `
      <div class="player-page">
        <h1 class="player-title"><span id="player-online" class="dot" hidden></span><span id="player-name"></span><span id="player-bot" class="bot-badge" title="A computer program playing through the Bot API" hidden>BOT</span></h1>
        <div id="player-relations" class="player-relations" hidden>
          <button type="button" id="follow"></button>
          <button type="button" id="block"></button>
          <span id="follows-you" class="follows-you" hidden>Follows you</span>
          <span id="relation-news" class="visually-hidden" role="status" aria-live="polite"></span>
        </div>
        <div id="player-challenge" class="player-challenge"></div>
        <p id="player-error" class="error" role="alert"></p>
        <div id="player-body" hidden>
          <div class="player-summary">
            <section class="card" aria-labelledby="ratings-title">
              <h2 id="ratings-title">Ratings</h2>
              <table id="player-ratings" class="data-table">
                <thead><tr><th scope="col">Category</th><th scope="col" class="num">Rating</th><th scope="col" class="num">Games</th></tr></thead>
                <tbody></tbody>
              </table>
              <p class="hint">A “?” marks a provisional rating: not enough rated games yet to be sure of it.</p>
              <p class="record" id="record">
                <span>Wins <strong id="wins">0</strong></span>
                <span>Draws <strong id="draws">0</strong></span>
                <span>Losses <strong id="losses">0</strong></span>
              </p>
            </section>
            <section class="card graph-card" aria-labelledby="graph-title">
              <h2 id="graph-title">Rating history</h2>
              <div id="graph-host" class="graph-host"></div>
            </section>
          </div>
          <section class="card history-card" aria-labelledby="history-title">
            <div class="history-head">
              <h2 id="history-title">Games</h2>
              <a id="download-all" download>Download all games</a>
            </div>
            <div class="table-scroll">
              <table id="history" class="data-table history">
                <thead><tr>
                  <th scope="col">Date</th><th scope="col">Opponent</th><th scope="col">Result</th><th scope="col" class="num">Rating</th>
                  <th scope="col">Game</th><th scope="col" class="num">Moves</th><th scope="col"><span class="visually-hidden">Links</span></th>
                </tr></thead>
                <tbody></tbody>
              </table>
            </div>
            <nav class="pager" aria-label="Pages of games">
              <button type="button" id="history-prev">‹ Newer</button>
              <span id="history-page" aria-live="polite"></span>
              <button type="button" id="history-next">Older ›</button>
            </nav>
          </section>
        </div>
      </div>`;
    this.dom = pick(root, {
      title: '#player-name', error: '#player-error', body: '#player-body', ratings: '#player-ratings tbody', wins: '#wins', draws: '#draws',
      losses: '#losses', graph: '#graph-host', history: '#history tbody', prev: '#history-prev', next: '#history-next', pageLabel: '#history-page',
      download: '#download-all', online: '#player-online', bot: '#player-bot', challenge: '#player-challenge',
      relations: '#player-relations', follow: '#follow', block: '#block', followsYou: '#follows-you', relationNews: '#relation-news',
    });
    const d = this.dom;
    d.title.textContent = name;
    document.title = `gambit · ${name}`;
    d.follow.addEventListener('click', () => this.relate(this.relation.following ? 'unfollow' : 'follow'));
    d.block.addEventListener('click', () => this.relate(this.relation.blocking ? 'unblock' : 'block'));
    d.prev.addEventListener('click', () => this.loadGames(this.page - 1));
    d.next.addEventListener('click', () => this.loadGames(this.page + 1));
  }

  async start() {
    const d = this.dom;
    const path = `/api/players/${encodeURIComponent(this.name)}`;
    const answer = await getJson(path);
    if (answer.status === 404) {
      d.title.textContent = `No player called ${this.name}`;
      document.title = 'gambit · no such player';
      return;
    }
    if (answer.status !== 200 || !answer.data) {
      d.error.textContent = errorText(answer);
      return;
    }
    const p = answer.data;
    // The account's own spelling of its name.
    if (typeof p.username === 'string' && p.username) this.name = p.username;
    d.title.textContent = this.name;
    document.title = `gambit · ${this.name}`;
    d.download.href = `/api/players/${encodeURIComponent(this.name)}/games.pgn`;
    d.download.setAttribute('download', `gambit-${this.name}.pgn`);
    this.renderRatings(p.ratings || {});
    d.wins.textContent = String(count(p.wins));
    d.draws.textContent = String(count(p.draws));
    d.losses.textContent = String(count(p.losses));
    const svg = drawGraph(document, p.history || {});
    if (svg) d.graph.replaceChildren(svg);
    else d.graph.replaceChildren(Object.assign(document.createElement('p'), { className: 'hint', textContent: 'No rated games yet.' }));
    d.body.hidden = false;
    this.showPresence(p);
    const who = await me();
    const own = Boolean(who) && who.username.toLowerCase() === this.name.toLowerCase();
    if (own) this.showSecurity();
    else this.showChallenge(who);
    if (who && !own) this.showRelations();
    await this.loadGames(this.page);
  }

  /** The online dot and the BOT mark by the name. */
  showPresence(p) {
    const d = this.dom;
    if (typeof p.online === 'boolean') {
      d.online.hidden = false;
      d.online.className = `dot ${p.online ? 'on' : 'off'}`;
      d.online.title = p.online ? 'Online' : 'Offline';
      d.online.setAttribute('role', 'img');
      d.online.setAttribute('aria-label', p.online ? 'online' : 'offline');
    }
    d.bot.hidden = p.bot !== true;
  }

  /** On another player's page: the challenge form when logged in, else the way to log in. */
  showChallenge(who) {
    const d = this.dom;
    if (who) {
      this.challengeForm = new ChallengeForm(d.challenge, { name: this.name });
      return;
    }
    const a = link(`/login?next=${encodeURIComponent(playerPath(this.name))}`, `Log in to challenge ${this.name}`);
    a.id = 'challenge-login';
    d.challenge.replaceChildren(a);
  }

  /**
   * On another player's page, logged in: Follow or Unfollow, Block or Unblock, and "Follows you",
   * from `GET /api/user/{name}` (its `following`, `blocking` and `followsYou`).
   */
  async showRelations() {
    const answer = await getJson(`/api/user/${encodeURIComponent(this.name)}`);
    if (answer.status !== 200 || !answer.data) return; // without them the page is whole all the same
    const u = answer.data;
    this.relation = { following: u.following === true, blocking: u.blocking === true };
    this.dom.followsYou.hidden = u.followsYou !== true;
    this.renderRelations();
    this.dom.relations.hidden = false;
  }

  renderRelations() {
    const d = this.dom;
    d.follow.textContent = this.relation.following ? 'Unfollow' : 'Follow';
    d.block.textContent = this.relation.blocking ? 'Unblock' : 'Block';
    d.follow.classList.toggle('primary', !this.relation.following && !this.relation.blocking);
  }

  /** `POST /api/rel/{action}/{name}` (follow, unfollow, block, unblock); the buttons follow the answer. */
  async relate(action) {
    const d = this.dom;
    // Busy, not disabled: a disabled button would drop the keyboard focus.
    if (d.relations.getAttribute('aria-busy') === 'true') return;
    d.relations.setAttribute('aria-busy', 'true');
    d.error.textContent = '';
    const answer = await postJson(`/api/rel/${action}/${encodeURIComponent(this.name)}`);
    d.relations.setAttribute('aria-busy', 'false');
    if (answer.status !== 200) {
      d.error.textContent = errorText(answer);
      return;
    }
    if (action === 'follow') this.relation.following = true;
    else if (action === 'unfollow') this.relation.following = false;
    else if (action === 'block') this.relation = { following: false, blocking: true }; // blocking ends following
    else this.relation.blocking = false;
    this.renderRelations();
    d.relationNews.textContent = {
      follow: `You follow ${this.name}.`, unfollow: `You no longer follow ${this.name}.`,
      block: `You blocked ${this.name}.`, unblock: `You unblocked ${this.name}.`,
    }[action];
  }

  /** On one's own page: a new password, and logging out on every device. */
  showSecurity() {
    const card = document.createElement('section');
    card.className = 'card security-card';
    card.setAttribute('aria-labelledby', 'security-title');
    card.innerHTML = `
      <h2 id="security-title">Security</h2>
      <form id="password-form" class="stack">
        <label>Current password <input type="password" id="password-current" autocomplete="current-password" required></label>
        <label>New password <input type="password" id="password-new" autocomplete="new-password" required></label>
        <button type="submit" id="password-change">Change password</button>
        <p class="hint">Changing it logs you out on every other device.</p>
      </form>
      <p><button type="button" id="logout-everywhere">Log out everywhere</button></p>
      <p id="security-status" role="status"></p>
      <p><a href="/account/tokens" id="tokens-link">API access tokens</a>: let programs (a board app, lichess-bot) play as you.</p>`;
    this.dom.body.append(card);
    const d = pick(card, { form: '#password-form', current: '#password-current', next: '#password-new', everywhere: '#logout-everywhere', status: '#security-status' });
    d.form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const problem = passwordProblem(d.next.value);
      if (problem) {
        d.status.textContent = problem;
        return;
      }
      const answer = await changePassword(d.current.value, d.next.value);
      d.status.textContent = answer.status === 204 ? 'Password changed; every other device is logged out.' : errorText(answer);
      if (answer.status === 204) d.form.reset();
    });
    d.everywhere.addEventListener('click', async () => {
      d.everywhere.disabled = true;
      const answer = await logoutEverywhere();
      if (answer.status === 204) {
        location.assign('/');
        return;
      }
      d.everywhere.disabled = false;
      d.status.textContent = errorText(answer);
    });
  }

  renderRatings(ratings) {
    const rows = CATEGORIES.map((category) => {
      const r = ratings[category];
      const tr = document.createElement('tr');
      tr.id = `rating-${category}`;
      tr.dataset.category = category;
      const rating = r ? formatRating(r.rating, r.provisional) : '?';
      tr.append(cell(CATEGORY_NAMES[category], { header: true }), cell(rating, { className: 'num rating' }), cell(count(r?.games), { className: 'num games' }));
      if (r?.provisional) tr.classList.add('provisional');
      return tr;
    });
    this.dom.ratings.replaceChildren(...rows);
  }

  /** Shows page `page` of the games (clamped to the pages there are). */
  async loadGames(page) {
    const d = this.dom;
    const wanted = Math.max(1, page);
    d.prev.disabled = true;
    d.next.disabled = true;
    const answer = await getJson(`/api/players/${encodeURIComponent(this.name)}/games?page=${wanted}`);
    if (answer.status !== 200 || !answer.data || !Array.isArray(answer.data.games)) {
      d.error.textContent = errorText(answer);
      this.renderPager();
      return;
    }
    d.error.textContent = '';
    const data = answer.data;
    this.page = Number.isInteger(data.page) ? data.page : wanted;
    this.pages = Number.isInteger(data.pages) ? Math.max(1, data.pages) : 1;
    const rows = data.games.map((g) => historyRow(g));
    if (!rows.length) {
      const tr = document.createElement('tr');
      const td = cell(this.page > 1 ? 'No games on this page.' : 'No finished games yet.', { className: 'none' });
      td.colSpan = 7;
      tr.append(td);
      rows.push(tr);
    }
    d.history.replaceChildren(...rows);
    this.renderPager(count(data.total));
    // The page number in the address, so a reload or a shared link shows the same games.
    const url = new URL(location.href);
    if (this.page > 1) url.searchParams.set('page', String(this.page));
    else url.searchParams.delete('page');
    history.replaceState(null, '', url);
  }

  renderPager(total) {
    const d = this.dom;
    d.prev.disabled = this.page <= 1;
    d.next.disabled = this.page >= this.pages;
    d.pageLabel.textContent = `Page ${this.page} of ${this.pages}${total === undefined ? '' : ` · ${total} ${total === 1 ? 'game' : 'games'}`}`;
  }
}

/** One finished game `g` (G) as the player whose page this is played it (`g.color`): a row of the history. */
export function historyRow(g) {
  const tr = document.createElement('tr');
  const color = g.color === 'black' ? 'black' : 'white';
  const me = g[color] || {};
  const them = g[color === 'white' ? 'black' : 'white'] || {};
  tr.dataset.game = String(g.game ?? '');
  const when = Number.isFinite(g.ended_ms) ? new Date(g.ended_ms) : null;
  const date = cell(when ? when.toLocaleDateString() : '');
  if (when) date.title = when.toLocaleString();
  // The opponent: a link to their page when they played under an account (a rated game's players did).
  const opponentName = typeof them.name === 'string' && them.name ? them.name : 'Anonymous';
  const opponent = document.createElement('span');
  opponent.append('vs ');
  const swatch = document.createElement('span');
  swatch.className = `swatch ${color === 'white' ? 'black' : 'white'}`;
  swatch.setAttribute('aria-hidden', 'true');
  opponent.append(swatch, Number.isFinite(them.rating) ? link(playerPath(opponentName), opponentName, 'opponent') : opponentName);
  if (Number.isFinite(them.rating)) opponent.append(` (${Math.round(them.rating)})`);
  const outcome = outcomeFor(g.result, color);
  const result = cell(OUTCOME_NAMES[outcome] || String(g.result ?? ''), { className: `result ${outcome || ''}` });
  if (g.result) result.title = headline(g.result, g.reason);
  const change = cell(Number.isFinite(me.change) ? formatChange(me.change) : '–', { className: `num change ${changeDirection(me.change)}` });
  // A correspondence game's days per move are not in the history (its `clock` is null): its
  // rated category says what it was.
  const time = !g.clock && !g.days && g.category === 'correspondence' ? 'correspondence' : timeControlName(g.clock, g.days);
  const kind = [time, modeName(g.rated)];
  if (g.rated && g.category) kind.push(CATEGORY_NAMES[g.category] || g.category);
  const plies = Number.isInteger(g.plies) ? g.plies : 0;
  const links = document.createElement('span');
  links.className = 'links';
  const id = encodeURIComponent(String(g.game ?? ''));
  links.append(link(`/g/${id}`, 'View', 'game-link'), ' · ', link(`/api/games/${id}/pgn`, 'PGN', 'pgn-link'));
  links.lastChild.setAttribute('download', `gambit-${g.game}.pgn`);
  tr.append(date, cell(opponent), result, change, cell(kind.join(' · ')), cell(Math.ceil(plies / 2), { className: 'num' }), cell(links));
  return tr;
}

/** Starts the page of player `name` inside `root`. */
export function startPlayer(root, name) {
  const page = new PlayerPage(root, name);
  page.start();
  return page;
}
