// An arena's page, `/tournament/{id}`, as on lichess: the name and terms, the count-down to the
// start or to the end, Join / Withdraw (Pause once it runs), the standings with each player's
// score sheet, the featured game on a small board, the games in progress, and at the end the
// podium and the numbers. The page asks `GET /api/tournament/{id}` every 2 s while in view
// (../poll.js) until the arena is over, and counts the clock down between answers. A player in
// the arena is taken to each new game of theirs as soon as the server pairs them (the answer's
// `me.gameId`), once per game. The creator of an arena open to computer players may add one
// at a chosen level.
//
// The rules — what the JSON means, what shows, the markup — are in arenaRules.js; here they
// are put on the page.

import { me } from '../account.js';
import { getJson } from '../api.js';
import { Board } from '../board.js';
import { boardSize, parsePlacement } from '../chess.js';
import { formatDeadline } from '../corres.js';
import { labelLevels, levelOptions } from '../levels.js';
import { arrivalSound } from '../sound.js';
import { escapeHtml, pick, setHtml } from '../ui.js';
import { ActionBar } from './actions.js';
import {
  arenaAction, arenaCountdown, arenaFeatures, arenaTerms, duelsHtml, featuredPlayersHtml, gameToOpen, mayAddBots,
  myStateText, parseArena, podiumHtml, standingNote, standingsHtml, statsHtml,
} from './arenaRules.js';
import { playersText, POLL_MS, refusalText } from './common.js';
import { postForm } from './http.js';
import { Poller } from '../poll.js';

/** Where the last game this browser was taken to from an arena is kept (see gameToOpen). */
const LAST_OPENED_KEY = 'gambit:tournament:last-game';
let lastOpenedHere = null; // without storage, as long as the page

function lastOpened() {
  try {
    return localStorage.getItem(LAST_OPENED_KEY) ?? lastOpenedHere;
  } catch {
    return lastOpenedHere;
  }
}

function rememberOpened(id) {
  lastOpenedHere = id;
  try {
    localStorage.setItem(LAST_OPENED_KEY, id);
  } catch { /* unavailable: kept for the page */ }
}

class ArenaPage {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.path = `/tournament/${encodeURIComponent(id)}`;
    this.api = `/api/tournament/${encodeURIComponent(id)}`;
    this.arena = null;
    this.receivedAt = 0;
    this.viewer = null;
    this.board = null;
    this.levelsLabelled = false;
    document.title = 'gambit · Arena';
    root.innerHTML = `
      <div class="tournament-page arena-page" id="arena" data-id="${escapeHtml(id)}" data-status="loading">
        <header class="tournament-head">
          <p class="tournament-kind"><a href="/tournaments">Tournaments</a> · Arena</p>
          <h1 id="arena-name">Loading…</h1>
          <p id="arena-terms" class="tournament-terms"></p>
          <p id="arena-features" class="tournament-features"></p>
        </header>
        <p id="arena-error" class="error" role="alert"></p>
        <div class="tournament-layout" id="arena-body" hidden>
          <div class="tournament-main">
            <section class="card tournament-status" aria-label="Status">
              <p class="tournament-clock" id="arena-clock-line"><span id="arena-clock-label"></span> <strong id="arena-clock" class="countdown" role="timer"></strong></p>
              <p id="arena-me" class="tournament-me"></p>
              <div id="arena-actions"></div>
              <form id="arena-bot-form" class="bot-adder" hidden>
                <label>Add a computer player <select id="arena-bot-level" name="level" data-levels>${levelOptions(5)}</select></label>
                <button type="submit" id="arena-bot-add">Add</button>
                <p class="hint" id="arena-bot-status" role="status" aria-live="polite"></p>
              </form>
            </section>
            <section id="arena-podium-box" class="podium-box" aria-labelledby="arena-podium-title" hidden>
              <h2 id="arena-podium-title" class="visually-hidden">Podium</h2>
              <div id="arena-podium" class="podium"></div>
            </section>
            <section class="card" aria-labelledby="arena-standing-title">
              <h2 id="arena-standing-title">Standings <span id="arena-count" class="hint"></span></h2>
              <div class="table-scroll">
                <table id="arena-standing" class="data-table standings" aria-labelledby="arena-standing-title">
                  <thead><tr><th scope="col" class="num rank">Rank</th><th scope="col">Player</th><th scope="col">Games</th><th scope="col" class="num">Score</th></tr></thead>
                  <tbody></tbody>
                </table>
              </div>
              <p id="arena-standing-note" class="hint"></p>
            </section>
          </div>
          <aside class="tournament-side">
            <section class="card featured-box" id="arena-featured" aria-labelledby="arena-featured-title" hidden>
              <h2 id="arena-featured-title">Featured game</h2>
              <div id="arena-board" class="featured-board"></div>
              <p id="arena-featured-players" class="featured-players"></p>
              <a id="arena-featured-link" class="button" href="/">Watch the game</a>
            </section>
            <section class="card" id="arena-duels-box" aria-labelledby="arena-duels-title">
              <h2 id="arena-duels-title">Games in progress</h2>
              <ul id="arena-duels" class="duel-list"><li class="none">Loading…</li></ul>
            </section>
            <section class="card" id="arena-stats-box" aria-labelledby="arena-stats-title" hidden>
              <h2 id="arena-stats-title">Statistics</h2>
              <dl id="arena-stats" class="tournament-stats"></dl>
            </section>
          </aside>
        </div>
      </div>`;
    this.dom = pick(root, {
      page: '#arena', name: '#arena-name', terms: '#arena-terms', features: '#arena-features', error: '#arena-error',
      body: '#arena-body', clockLine: '#arena-clock-line', clockLabel: '#arena-clock-label', clock: '#arena-clock',
      me: '#arena-me', actions: '#arena-actions', botForm: '#arena-bot-form', botLevel: '#arena-bot-level',
      botAdd: '#arena-bot-add', botStatus: '#arena-bot-status', podiumBox: '#arena-podium-box', podium: '#arena-podium',
      count: '#arena-count', standing: '#arena-standing tbody', standingNote: '#arena-standing-note',
      featured: '#arena-featured', boardHost: '#arena-board', featuredPlayers: '#arena-featured-players',
      featuredLink: '#arena-featured-link', duelsBox: '#arena-duels-box', duels: '#arena-duels', statsBox: '#arena-stats-box', stats: '#arena-stats',
    });
    this.actions = new ActionBar(this.dom.actions, {
      base: this.api, page: this.path, prefix: 'arena', onDone: () => this.poller?.now(),
    });
    this.dom.botForm.addEventListener('submit', (e) => {
      e.preventDefault();
      this.addBot();
    });
  }

  async start() {
    this.viewer = await me();
    this.poller = new Poller(() => this.load(), { everyMs: POLL_MS });
    this.poller.now();
    this.ticker = setInterval(() => this.renderClock(), 500);
  }

  /** One answer of the server; true when there is no more to follow. */
  async load() {
    const answer = await getJson(this.api);
    if (answer.status === 404) {
      this.gone();
      return true;
    }
    const arena = answer.status === 200 ? parseArena(answer.data) : null;
    if (!arena) {
      // Passing trouble (or a server between versions): say so, keep the last standings, ask again.
      this.dom.error.textContent = answer.status === 200 ? 'The server sent an arena this page cannot read; trying again.' : refusalText(answer);
      return false;
    }
    this.dom.error.textContent = '';
    this.arena = arena;
    this.receivedAt = performance.now();
    this.render();
    this.follow();
    if (arena.isFinished) clearInterval(this.ticker);
    return arena.isFinished;
  }

  /** No such arena: the sentence that says so, and nothing else. */
  gone() {
    clearInterval(this.ticker);
    this.dom.page.dataset.status = 'missing';
    this.dom.name.textContent = 'No such arena';
    this.dom.terms.textContent = '';
    this.dom.body.hidden = true;
    this.dom.error.textContent = 'There is no arena at this address: the link may be mistyped. The arenas this server knows are on the Tournaments page.';
    document.title = 'gambit · No such arena';
  }

  /** Takes a player in the arena to their new game. */
  follow() {
    const id = gameToOpen(this.arena.me, lastOpened());
    if (!id) return;
    rememberOpened(id);
    this.poller.stop();
    arrivalSound(id);
    location.assign(`/g/${encodeURIComponent(id)}`);
  }

  render() {
    const a = this.arena;
    const d = this.dom;
    const phase = a.isFinished ? 'finished' : a.isStarted ? 'started' : 'created';
    d.page.dataset.status = phase;
    d.body.hidden = false;
    d.name.textContent = a.name;
    document.title = `gambit · ${a.name}`;
    d.terms.textContent = `${arenaTerms(a)}${a.createdBy ? ` · by ${a.createdBy}` : ''}`;
    d.features.textContent = arenaFeatures(a).join(' · ');
    this.renderClock();
    d.me.textContent = myStateText(a, this.viewer);
    const action = arenaAction(a, this.viewer);
    this.actions.render(action ? [action] : []);
    this.renderBotForm();
    const podium = podiumHtml(a);
    d.podiumBox.hidden = !podium;
    setHtml(d.podium, podium);
    d.count.textContent = `(${playersText(a.nbPlayers)})`;
    setHtml(d.standing, standingsHtml(a, this.viewer));
    d.standingNote.textContent = standingNote(a);
    this.renderFeatured();
    // Once over, no game is in progress: the box goes, the podium and the numbers say the rest.
    d.duelsBox.hidden = a.isFinished;
    setHtml(d.duels, duelsHtml(a));
    const stats = a.stats && a.isFinished ? statsHtml(a.stats) : '';
    d.statsBox.hidden = !stats;
    setHtml(d.stats, stats);
  }

  /** The count-down, from the last answer's seconds and the time since it came. */
  renderClock() {
    const a = this.arena;
    if (!a) return;
    const c = arenaCountdown(a, performance.now() - this.receivedAt);
    this.dom.clockLine.dataset.phase = c.phase;
    this.dom.clockLabel.textContent = c.phase === 'finished' && a.finishesAt !== null ? `Finished ${formatDeadline(new Date(a.finishesAt))}` : c.label;
    this.dom.clock.textContent = c.text;
  }

  renderBotForm() {
    const show = mayAddBots(this.arena, this.viewer);
    this.dom.botForm.hidden = !show;
    if (show && !this.levelsLabelled) {
      this.levelsLabelled = true;
      labelLevels(this.dom.botForm);
    }
  }

  async addBot() {
    const d = this.dom;
    if (d.botAdd.disabled) return;
    d.botAdd.disabled = true;
    d.botStatus.textContent = '';
    const level = d.botLevel.value;
    const answer = await postForm(`${this.api}/bot`, { level });
    d.botAdd.disabled = false;
    if (answer.status === 200 && answer.data?.ok !== false) {
      d.botStatus.textContent = `${d.botLevel.selectedOptions[0]?.textContent || `Level ${level}`} joined the arena.`;
      this.poller.now();
    } else {
      d.botStatus.textContent = refusalText(answer);
    }
  }

  /** The featured game: a small board of its position (when the position reads), the players, a link. */
  renderFeatured() {
    const f = this.arena.featured;
    const d = this.dom;
    d.featured.hidden = !f;
    if (!f) return;
    d.featured.dataset.game = f.id;
    d.featuredLink.href = `/g/${encodeURIComponent(f.id)}`;
    setHtml(d.featuredPlayers, featuredPlayersHtml(f));
    const size = boardSize(this.arena.variant);
    const placement = f.fen ? parsePlacement(f.fen, size) : null;
    d.boardHost.hidden = !placement;
    if (!placement) return;
    this.board ??= new Board(d.boardHost, { onMove: () => {}, label: 'Board of the featured game' });
    // White at the bottom, always: the board must not turn round between two answers.
    this.board.update({ size, placement, orientation: 'white', lastMove: f.lastMove, check: null, legal: [], mover: null });
  }
}

/** Starts the page of arena `id` inside `root`. */
export function startArena(root, id) {
  const page = new ArenaPage(root, id);
  page.start();
  return page;
}
