// The page `/bots`: the server's bot accounts (programs playing through the Bot API), each with
// whether it is online and its blitz and rapid ratings, and — when logged in — a Challenge
// button opening the challenge form (challengeForm.js) under its row. From `GET /api/bots`.

import { errorText, getJson } from './api.js';
import { me, playerPath } from './account.js';
import { ChallengeForm } from './challengeForm.js';
import { formatRating } from './ratings.js';

/** The rating categories the list shows. */
const SHOWN = [['blitz', 'Blitz'], ['rapid', 'Rapid']];

/** A bot's rating in `category` as the list shows it: "1620", "1500?" while provisional, "–" with none. */
export function botRating(bot, category) {
  const r = bot?.ratings?.[category];
  return r && Number.isFinite(r.rating) ? formatRating(r.rating, r.provisional) : '–';
}

/** The bots in the order the page lists them: online first, then by name. */
export function sortBots(bots) {
  return bots
    .filter((b) => b && typeof b.username === 'string' && b.username)
    .sort((a, b) => Number(Boolean(b.online)) - Number(Boolean(a.online)) || a.username.localeCompare(b.username));
}

function cell(content, className = '') {
  const td = document.createElement('td');
  if (className) td.className = className;
  td.append(content);
  return td;
}

class BotsPage {
  constructor(root) {
    document.title = 'gambit · Bots';
    root.innerHTML = `
      <div class="bots-page">
        <h1>Bots</h1>
        <p class="hint">Computer players with an account of their own, playing through the Bot API (lichess-bot and the like).
          Challenge one to a game; an offline bot cannot answer.</p>
        <section class="card" aria-labelledby="bots-title">
          <h2 id="bots-title" class="visually-hidden">Bot accounts</h2>
          <p id="bots-error" class="error" role="alert"></p>
          <div class="table-scroll">
            <table id="bots" class="data-table bots-table" aria-labelledby="bots-title" aria-busy="true">
              <thead><tr><th scope="col">Bot</th>${SHOWN.map(([, name]) => `<th scope="col" class="num">${name}</th>`).join('')}<th scope="col"><span class="visually-hidden">Challenge</span></th></tr></thead>
              <tbody></tbody>
            </table>
          </div>
        </section>
      </div>`;
    this.table = root.querySelector('#bots');
    this.body = root.querySelector('#bots tbody');
    this.error = root.querySelector('#bots-error');
    this.formRow = null;
    this.form = null;
  }

  async start() {
    const [answer, who] = await Promise.all([getJson('/api/bots'), me()]);
    this.table.setAttribute('aria-busy', 'false');
    if (answer.status !== 200 || !Array.isArray(answer.data?.bots)) {
      this.error.textContent = errorText(answer);
      this.table.dataset.loaded = 'error';
      return;
    }
    const bots = sortBots(answer.data.bots);
    const rows = bots.map((bot) => this.row(bot, who));
    if (!rows.length) {
      const tr = document.createElement('tr');
      const td = cell('No bot accounts on this server yet.', 'none');
      td.colSpan = SHOWN.length + 2;
      tr.append(td);
      rows.push(tr);
    }
    this.body.replaceChildren(...rows);
    this.table.dataset.loaded = String(bots.length);
  }

  row(bot, who) {
    const tr = document.createElement('tr');
    tr.dataset.bot = bot.username;
    const name = document.createElement('span');
    name.className = 'bot-name';
    const dot = document.createElement('span');
    dot.className = `dot ${bot.online ? 'on' : 'off'}`;
    dot.title = bot.online ? 'Online' : 'Offline';
    const state = Object.assign(document.createElement('span'), { className: 'visually-hidden', textContent: bot.online ? 'online' : 'offline' });
    const link = Object.assign(document.createElement('a'), { href: playerPath(bot.username), textContent: bot.username });
    const badge = Object.assign(document.createElement('span'), { className: 'bot-badge', textContent: 'BOT' });
    name.append(dot, ' ', link, ' ', badge, state);
    tr.append(cell(name));
    for (const [category] of SHOWN) tr.append(cell(botRating(bot, category), `num rating-${category}`));
    let action;
    if (!who) {
      action = Object.assign(document.createElement('a'), { href: `/login?next=${encodeURIComponent('/bots')}`, textContent: 'Log in to challenge' });
    } else if (who.username.toLowerCase() === bot.username.toLowerCase()) {
      action = '';
    } else {
      action = Object.assign(document.createElement('button'), { type: 'button', className: 'bot-challenge', textContent: 'Challenge' });
      action.setAttribute('aria-label', `Challenge ${bot.username}`);
      action.addEventListener('click', () => this.challenge(tr, bot.username));
    }
    tr.append(cell(action, 'bot-action'));
    return tr;
  }

  /** Opens the challenge form under the row `tr` of bot `name`. */
  challenge(tr, name) {
    if (!this.formRow) {
      this.formRow = document.createElement('tr');
      this.formRow.className = 'bot-challenge-row';
      const td = cell('');
      td.colSpan = SHOWN.length + 2;
      this.formRow.append(td);
      this.form = new ChallengeForm(td, {
        toggle: false,
        onBusy: (busy) => {
          for (const button of this.body.querySelectorAll('.bot-challenge')) button.disabled = busy;
        },
      });
    }
    tr.after(this.formRow);
    this.form.show(name);
  }
}

/** Starts the bots page inside `root`. */
export function startBots(root) {
  const page = new BotsPage(root);
  page.start();
  return page;
}
