// The leaderboard, `/leaderboard?category=blitz`: a tab per rating category (blitz unless the
// address names another) and the best established players of it — rank, player (a link to their
// page), rating, games — from `GET /api/leaderboard`. The tabs are links, so each category has
// its own address; the server's text is set as text.

import { errorText, getJson } from './api.js';
import { playerPath } from './account.js';
import { CATEGORIES, CATEGORY_NAMES, DEFAULT_CATEGORY } from './ratings.js';
import { pick } from './ui.js';

/** The category the address asks for (`?category=`), or the default one. */
export function chosenCategory(search) {
  const asked = new URLSearchParams(search).get('category');
  return CATEGORIES.includes(asked) ? asked : DEFAULT_CATEGORY;
}

function cell(content, className = '') {
  const td = document.createElement('td');
  if (className) td.className = className;
  td.append(content);
  return td;
}

class Leaderboard {
  constructor(root) {
    this.category = chosenCategory(location.search);
    root.innerHTML = `
      <div class="leaderboard-page">
        <h1>Leaderboard</h1>
        <nav class="tabs" id="leaderboard-tabs" aria-label="Rating categories"></nav>
        <section class="card" aria-labelledby="leaderboard-caption">
          <h2 id="leaderboard-caption"></h2>
          <p id="leaderboard-error" class="error" role="alert"></p>
          <table id="leaderboard" class="data-table" aria-labelledby="leaderboard-caption" aria-busy="true">
            <thead><tr><th scope="col" class="num rank">Rank</th><th scope="col">Player</th><th scope="col" class="num">Rating</th><th scope="col" class="num">Games</th></tr></thead>
            <tbody></tbody>
          </table>
          <p class="hint">Players appear here once their rating is established (a rating deviation of 110 or less), at most 100 per category.</p>
        </section>
      </div>`;
    this.dom = pick(root, { tabs: '#leaderboard-tabs', caption: '#leaderboard-caption', error: '#leaderboard-error', table: '#leaderboard', body: '#leaderboard tbody' });
    const tabs = CATEGORIES.map((category) => {
      const a = document.createElement('a');
      a.id = `tab-${category}`;
      a.className = 'tab';
      a.href = `/leaderboard?category=${category}`;
      a.textContent = CATEGORY_NAMES[category];
      if (category === this.category) a.setAttribute('aria-current', 'page');
      return a;
    });
    this.dom.tabs.replaceChildren(...tabs);
    this.dom.caption.textContent = `${CATEGORY_NAMES[this.category]}: the best players`;
    document.title = `gambit · ${CATEGORY_NAMES[this.category]} leaderboard`;
  }

  async start() {
    const d = this.dom;
    const answer = await getJson(`/api/leaderboard?category=${encodeURIComponent(this.category)}`);
    d.table.setAttribute('aria-busy', 'false');
    const players = answer.status === 200 && Array.isArray(answer.data?.players) ? answer.data.players : null;
    if (!players) {
      d.error.textContent = errorText(answer);
      d.table.dataset.loaded = 'error';
      return;
    }
    const rows = players.filter((p) => p && typeof p.username === 'string').map((p, i) => {
      const tr = document.createElement('tr');
      const a = document.createElement('a');
      a.href = playerPath(p.username);
      a.textContent = p.username;
      const name = document.createElement('span');
      const dot = Object.assign(document.createElement('span'), { className: `dot ${p.online ? 'on' : 'off'}`, title: p.online ? 'Online' : 'Offline' });
      const state = Object.assign(document.createElement('span'), { className: 'visually-hidden', textContent: p.online ? 'online' : 'offline' });
      name.append(dot, ' ', a, state);
      tr.append(cell(String(i + 1), 'num rank'), cell(name, 'name'), cell(Number.isFinite(p.rating) ? String(Math.round(p.rating)) : '?', 'num rating'), cell(Number.isInteger(p.games) ? String(p.games) : '', 'num games'));
      return tr;
    });
    if (!rows.length) {
      const tr = document.createElement('tr');
      const td = cell(`No established ${CATEGORY_NAMES[this.category].toLowerCase()} ratings yet.`, 'none');
      td.colSpan = 4;
      tr.append(td);
      rows.push(tr);
    }
    d.body.replaceChildren(...rows);
    d.table.dataset.loaded = String(players.length);
  }
}

/** Starts the leaderboard inside `root`. */
export function startLeaderboard(root) {
  const page = new Leaderboard(root);
  page.start();
  return page;
}
