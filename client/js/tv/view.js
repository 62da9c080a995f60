// gambit TV's view: the channel tabs and the other games in a column on the left, the featured
// game's board in the middle, its player bars (names, ratings, clocks) beside the board's top
// and bottom edges with the status between them — as lichess lays out its TV. The board, the
// player bars, the clocks and the opening/rating lines are the game page's own (board.js,
// game/players.js, game/clocks.js, game/ratings.js), so a game reads the same on both pages;
// here nobody may move. On a phone: the tabs, the bars around the board, the status, the list.

import { Board } from '../board.js';
import { kingSquare } from '../chess.js';
import { ClocksView } from '../game/clocks.js';
import { PlayersView, template as playerBar } from '../game/players.js';
import { RatingsView, template as ratings } from '../game/ratings.js';
import { statusText } from '../game/status.js';
import { ratingFor } from '../playerRatings.js';
import { categoryOf, formatRating } from '../ratings.js';
import { escapeHtml, pick, setHtml } from '../ui.js';
import { CHANNELS, lastMoveText, otherGameHtml, otherGames, titleOf } from './channels.js';

export class TvView {
  /** `onChannel(channel)`: a channel tab was chosen (a plain click; the page switches in place). */
  constructor(root, ctrl, { onChannel = () => {} } = {}) {
    this.root = root;
    this.ctrl = ctrl;
    const tabs = Object.entries(CHANNELS).map(([channel, c]) => (
      `<a class="tab" id="tv-channel-${channel}" href="${c.path}" data-channel="${channel}" title="${escapeHtml(c.about)}">${escapeHtml(c.name)}</a>`
    )).join('');
    root.innerHTML = `
      <section id="tv" class="tv" data-channel="${escapeHtml(ctrl.channel)}" aria-labelledby="tv-title">
        <header class="tv-head">
          <h1 id="tv-title">gambit TV</h1>
          <nav class="tabs tv-channels" id="tv-channels" aria-label="Channels">${tabs}</nav>
        </header>
        <div id="tv-game" class="tv-game" data-game="">
          <div class="tv-board-area" aria-label="Board">
            <div id="tv-board" class="tv-board"></div>
          </div>
          <div class="tv-side">
            ${playerBar('top')}
            <div class="panel tv-panel">
              <p id="tv-status" class="status" role="status" aria-live="polite">Connecting…</p>
              <p id="tv-last" class="tv-last"></p>${ratings}
              <p class="tv-meta"><span id="tv-watchers" class="watchers"></span><a id="tv-open" class="button" href="/" hidden>Open the game</a></p>
            </div>
            ${playerBar('bottom')}
          </div>
        </div>
        <div id="tv-empty" class="card tv-empty" hidden>
          <p class="tv-empty-title">No game is being played right now.</p>
          <p id="tv-empty-hint" class="hint"></p>
        </div>
        <p id="tv-notice" class="notice" role="alert"></p>
        <section class="tv-others-box" aria-labelledby="tv-others-title">
          <h2 id="tv-others-title">Other games</h2>
          <ul id="tv-others" class="tv-others"><li class="none">Loading…</li></ul>
        </section>
      </section>`;
    this.dom = pick(root, {
      section: '#tv', game: '#tv-game', empty: '#tv-empty', emptyHint: '#tv-empty-hint', status: '#tv-status',
      last: '#tv-last', watchers: '#tv-watchers', open: '#tv-open', notice: '#tv-notice', others: '#tv-others',
      tabs: '#tv-channels', mode: '#game-mode',
    });
    this.board = new Board(root.querySelector('#tv-board'), { onMove: () => {}, label: 'Board of the featured game', animate: true });
    // An empty board until a game comes, so that the page does not jump when it does.
    this.board.update({ placement: new Map() });
    this.players = new PlayersView(root, ctrl);
    this.clocks = new ClocksView(root, ctrl);
    this.ratings = new RatingsView(root, ctrl);
    this.shownGame = null; // the game the board last showed, so that a new one does not slide in
    // A registered player's rating arrived: the other games show it.
    this.onRating = () => this.renderOthers();
    this.dom.tabs.addEventListener('click', (e) => {
      const tab = e.target.closest('a[data-channel]');
      // A click meant for a new tab or window goes its own way.
      if (!tab || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      onChannel(tab.dataset.channel);
    });
  }

  render() {
    const ctrl = this.ctrl;
    const d = this.dom;
    const g = ctrl.game;
    d.section.dataset.channel = ctrl.channel;
    for (const tab of d.tabs.querySelectorAll('a[data-channel]')) {
      if (tab.dataset.channel === ctrl.channel) tab.setAttribute('aria-current', 'page');
      else tab.removeAttribute('aria-current');
    }
    // The game id only once its position is on the board (tests wait on it).
    d.game.dataset.game = g ? g.game : '';
    d.game.hidden = ctrl.featured === null;
    d.empty.hidden = ctrl.featured !== null;
    setHtml(d.emptyHint, ctrl.unsupported ? '' : emptyHint(ctrl.channel));
    d.notice.textContent = ctrl.notice;
    const name = CHANNELS[ctrl.channel]?.name ?? '';
    document.title = g ? `gambit TV · ${titleOf(g)}` : `gambit TV · ${name}`;
    this.renderGame();
    this.renderOthers();
  }

  renderGame() {
    const ctrl = this.ctrl;
    const d = this.dom;
    const g = ctrl.game;
    if (!g) {
      d.status.textContent = ctrl.featured === null ? '' : ctrl.featured === undefined ? (ctrl.connected ? 'Finding a game…' : 'Connecting…') : 'Loading the game…';
      d.last.textContent = '';
      d.watchers.textContent = '';
      d.open.hidden = true;
      // Nobody in the bars, no clocks, no opening: they were the last game's.
      for (const bar of this.root.querySelectorAll('.tv-side .player')) {
        bar.classList.remove('to-move');
        bar.querySelector('.who').replaceChildren();
      }
      for (const node of this.root.querySelectorAll('.tv-side .clock, .tv-side .first-move, .tv-side .game-opening, .tv-side .game-ratings')) node.hidden = true;
      this.dom.mode.textContent = '';
      this.clocks.render();
      if (this.shownGame !== null) {
        this.shownGame = null;
        this.board.drawn = null;
        this.board.update({ placement: new Map(), lastMove: null, check: null });
      }
      return;
    }
    d.status.textContent = statusText(ctrl);
    d.last.textContent = lastMoveText(g);
    d.watchers.textContent = `${g.watchers} watching`;
    d.open.hidden = false;
    d.open.href = `/g/${encodeURIComponent(g.game)}`;
    if (this.shownGame !== g.game) {
      // Another game: its position appears at once rather than sliding out of the last one's.
      this.board.drawn = null;
      this.shownGame = g.game;
    }
    const ply = g.moves.length;
    const placement = g.boards[ply];
    this.board.update({
      size: g.size, placement, orientation: ctrl.orientation, lastMove: ply > 0 ? g.moves[ply - 1] : null,
      check: g.check ? kingSquare(placement, g.turn) : null, legal: [], mover: null,
    });
    this.players.render();
    this.clocks.render();
    this.ratings.render();
  }

  /** The other games in progress (channels.js chooses them), each a link to its page. */
  renderOthers() {
    const ctrl = this.ctrl;
    if (ctrl.games === null) return;
    const shown = otherGames(ctrl.games, ctrl.featured ?? null, ctrl.channel);
    if (!shown.length) {
      setHtml(this.dom.others, '<li class="none">No other games are being played.</li>');
      return;
    }
    const rating = (g) => (seat) => {
      if (!g.rated || seat?.kind !== 'human' || !seat.account) return '';
      const r = ratingFor(seat.name, categoryOf(g.variant, g.clock, g.days), this.onRating);
      return r ? formatRating(r.rating, r.provisional) : '';
    };
    // Redrawn only when something changed (setHtml): a list redrawn under the pointer loses hover and focus.
    setHtml(this.dom.others, shown.map((g) => otherGameHtml(g, rating(g))).join(''));
  }
}

/** What to do when the channel has nothing to show, as HTML (no text from the server). */
function emptyHint(channel) {
  return channel === 'bot'
    ? 'Games with a computer player appear here as soon as one starts: <a href="/">play the computer, or watch two bots play</a>.'
    : 'Games between people appear here as soon as one starts: <a href="/">seek an opponent in the lobby</a>.';
}
