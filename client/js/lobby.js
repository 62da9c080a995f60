// The lobby, `/`: the live lists of games and of open challenges ("seeks", both from the `list`
// subscription) and the forms that start a game — against a friend, against the computer,
// between two computer players, or against whoever accepts a seek.
//
// Creating a game here only sends `create`; on `created` the seat token is stored and the page
// moves to /g/{id}, which resumes the seat like any reload would. One path, well tested. A
// game that seats the creator waits for a display name first (namebox.js asks for one the
// first time), and carries it. A seek lives as long as this page's connection: when someone
// accepts it (or this page accepts another's), `joined` arrives and the page moves to the game
// the same way. A seek lost with a dropped connection is posted again when it comes back.
//
// A friend game may be played by correspondence: days per move instead of a clock (the time
// control's "Correspondence" choices, sent as `days`); not with the computer, and not as a seek.
//
// Logged in (account.js), a player may make a friend game or a seek rated, and the lobby lists
// "Your games" (yourGames.js): the unfinished games the account holds a seat in, wherever they
// were started, whose move it is and a correspondence game's time left; and their Friends
// (friendsPanel.js): the players they follow, what each is doing.
//
// For everyone, a "Tournaments" box (tournament/lobbyBox.js) lists the arenas and round robins
// being played or about to start, each a link to its page, as lichess's lobby does.

import { me } from './account.js';
import { clockSpec, PRESETS, timeControlFields, timeControlName } from './clock.js';
import { DAYS_CHOICES } from './corres.js';
import { Connection } from './connection.js';
import { botSeats, botsSeats, chosenSide, createMessage, enterGame, friendSeats } from './create.js';
import { askAgain, nameForSeat } from './namebox.js';
import { labelLevels, levelOptions } from './levels.js';
import { engineCard, wireEngineCard } from './engines.js';
import { isNameRefusal } from './names.js';
import { chess960Html, hasFairyPieces, legendHtml } from './legend.js';
import { ratingFor } from './playerRatings.js';
import { categoryOf, formatRating, modeName } from './ratings.js';
import { arrivalSound } from './sound.js';
import { escapeHtml, guestMark, seatName, setConnectionBadge, setHtml, SIDE_NAMES } from './ui.js';

/** Why a correspondence game cannot be made against the computer. */
export const CORRESPONDENCE_PEOPLE_ONLY = 'Correspondence (days per move) is for games between people: choose a clock or Untimed to play the computer.';

const VARIANTS = { standard: 'Standard', chess960: 'Chess960', minichess7: 'Minichess 7×7' };

function colorChoice(checked) {
  return `<fieldset class="choice"><legend>Your side</legend>
                ${['white', 'black', 'random'].map((c) => `<label><input type="radio" name="color" value="${c}"${c === checked ? ' checked' : ''}> ${c[0].toUpperCase()}${c.slice(1)}</label>`).join('\n                ')}
              </fieldset>`;
}

/** The "Rated" switch of a form (`id`): usable only once logged in. */
function ratedChoice(id) {
  return `<label class="rated-choice" for="${id}"><span><input type="checkbox" id="${id}" name="rated" disabled> Rated</span>
                <span class="hint rated-hint">log in to play rated</span></label>`;
}

class Lobby {
  constructor(root) {
    this.root = root;
    // Id of a request sent → what it was, to route its error (and retry it): `{create: seats}`,
    // `{seek: message}`, `{accept: seek id}` or `{cancel: true}`.
    this.requests = new Map();
    this.seeks = []; // the open seeks, as the server lists them
    // A registered player's rating arrived (playerRatings.js): the lists show it.
    this.onRating = () => {
      this.renderGames(this.games);
      if (this.dom.seeks.dataset.html !== undefined) this.renderSeeks();
    };
    this.mySeek = null; // the id of this page's open seek
    this.seekMsg = null; // the `seek` this page wants open (posted again after a reconnect)
    this.moving = null; // the game this page is on its way to
    this.account = null; // who is logged in: {username, playing}, or null
    this.games = []; // the games list, as the server last sent it
    this.buildDom();
    labelLevels(this.root);
    // The Tournaments box's code comes after the lobby's own: the lobby works without it.
    import('./tournament/lobbyBox.js').then(({ installTournaments }) => installTournaments(this.root.querySelector('#lobby-tournaments')));
    me().then((who) => {
      this.account = who;
      this.renderAccount();
      // The Friends panel and "Your games" are an account's: their code comes only then.
      if (who) {
        import('./friendsPanel.js').then(({ installFriends }) => installFriends(this.root.querySelector('#friends')));
        import('./yourGames.js').then(({ installYourGames }) => installYourGames(this.root.querySelector('#your-games')));
      }
    });
    this.conn = new Connection({
      onOpen: () => {
        this.conn.send({ type: 'list' });
        if (this.seekMsg) this.request({ ...this.seekMsg }, { seek: this.seekMsg });
      },
      onMessage: (msg) => this.handle(msg),
      onStatus: (up) => {
        setConnectionBadge(up);
        if (!up && this.mySeek) {
          // The seek went with the connection.
          this.mySeek = null;
          this.renderSeeks();
        }
      },
    });
  }

  start() {
    this.conn.start();
  }

  buildDom() {
    this.root.innerHTML = `
      <div class="lobby">
        <section class="new-game" aria-labelledby="new-title">
          <h1 id="new-title">Play chess</h1>
          <div class="cards">
            <form class="card" id="seek-form">
              <h2>Seek an opponent</h2>
              <p>Post an open challenge; whoever accepts it first plays you.</p>
              <label>Time control
                <select name="time" id="seek-time">
                  <option value="untimed">Untimed</option>
                  ${PRESETS.map(([label, m, inc]) => `<option value="${m}+${inc}">${label}</option>`).join('')}
                </select>
              </label>
              <label>Variant
                <select name="variant" id="seek-variant">${Object.entries(VARIANTS).map(([k, v]) => `<option value="${k}">${v}</option>`).join('')}</select>
              </label>
              <div id="seek-legend-slot" hidden>${legendHtml('seek-legend')}</div>
              <div id="seek-960-slot" hidden>${chess960Html('seek-960-note')}</div>
              ${colorChoice('random')}
              ${ratedChoice('seek-rated')}
              <button type="submit" class="primary" id="post-seek">Seek</button>
            </form>
            <form class="card" id="friend-form">
              <h2>Play a friend</h2>
              <p>Get a link to send; whoever opens it takes the other side.</p>
              ${colorChoice('white')}
              ${ratedChoice('rated')}
              <button type="submit" class="primary" id="play-friend">Create game</button>
            </form>
            <form class="card" id="bot-form">
              <h2>Play the computer</h2>
              <label>Strength <select name="level" id="bot-level" data-levels>${levelOptions(1)}</select></label>
              ${colorChoice('white')}
              <button type="submit" class="primary" id="play-bot">Play</button>
            </form>
            ${engineCard(colorChoice('white'))}
            <form class="card" id="bots-form">
              <h2>Watch bots play</h2>
              <label>White <select name="white" id="white-level" data-levels>${levelOptions(5)}</select></label>
              <label>Black <select name="black" id="black-level" data-levels>${levelOptions(6)}</select></label>
              <button type="submit" class="primary" id="watch-bots">Watch</button>
            </form>
          </div>
          <details class="options" id="options">
            <summary>Game options</summary>
            <div class="options-body">
              <label>Variant
                <select id="variant">${Object.entries(VARIANTS).map(([k, v]) => `<option value="${k}">${v}</option>`).join('')}</select>
              </label>
              <div id="options-legend-slot" class="wide" hidden>${legendHtml('options-legend')}</div>
              <div id="options-960-slot" class="wide" hidden>${chess960Html('options-960-note')}</div>
              <label><input type="checkbox" id="castling" checked> Castling</label>
              <label><input type="checkbox" id="en-passant" checked> En passant</label>
              <label>Repetition
                <select id="repetition">
                  <option value="threefold">Threefold repetition draws</option>
                  <option value="eight_move">Eight-move repetition draws</option>
                </select>
              </label>
              <label class="wide">Start from a position (FEN, optional; Chess960 without one starts from a random one of its 960)
                <input id="fen" spellcheck="false" autocomplete="off" placeholder="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1">
              </label>
              <label>Time control
                <select id="time-control">
                  <option value="untimed">Untimed</option>
                  <optgroup label="Real time">
                    ${PRESETS.map(([label, m, inc]) => `<option value="${m}+${inc}">${label}</option>`).join('')}
                    <option value="custom">Custom…</option>
                  </optgroup>
                  <optgroup label="Correspondence">
                    ${DAYS_CHOICES.map(([value, label]) => `<option value="${value}">${label}</option>`).join('')}
                  </optgroup>
                </select>
              </label>
              <span class="custom-time" id="custom-time" hidden>
                <label>Minutes <input id="custom-minutes" type="number" min="0.1" max="180" step="any" value="5" inputmode="decimal"></label>
                <label>Increment (s) <input id="custom-increment" type="number" min="0" max="60" step="1" value="3" inputmode="numeric"></label>
              </span>
              <p class="hint wide" id="corres-hint" hidden>Correspondence: each player has this long for each move, and confirms a move before it is sent. For games against a friend.</p>
            </div>
          </details>
          <p class="hint editor-link">Set up a position of your own in the <a href="/editor" id="editor-link">Board editor</a>.</p>
          <p id="create-error" class="error" role="alert"></p>
        </section>
        <section class="my-games" id="your-games" aria-labelledby="my-games-title" hidden>
          <h2 id="my-games-title">Your games</h2>
          <ul id="my-games" class="game-list"></ul>
        </section>
        <section class="friends" id="friends" aria-labelledby="friends-title" hidden></section>
        <section class="lobby-tournaments" id="lobby-tournaments" aria-labelledby="lobby-tournaments-title" hidden></section>
        <section class="seeks" aria-labelledby="seeks-title">
          <h2 id="seeks-title">Open challenges</h2>
          <ul id="seeks" class="seek-list"><li class="none">Loading…</li></ul>
        </section>
        <section class="games" aria-labelledby="games-title">
          <h2 id="games-title">Games on this server</h2>
          <ul id="games" class="game-list"><li class="none">Loading…</li></ul>
        </section>
      </div>`;
    const $ = (sel) => this.root.querySelector(sel);
    this.dom = { error: $('#create-error'), games: $('#games'), seeks: $('#seeks'),
      rated: $('#rated'), seekRated: $('#seek-rated'), variant: $('#variant'), castling: $('#castling'), enPassant: $('#en-passant'), repetition: $('#repetition'), fen: $('#fen'),
      timeControl: $('#time-control'), customTime: $('#custom-time'), customMinutes: $('#custom-minutes'), customIncrement: $('#custom-increment'),
      corresHint: $('#corres-hint') };
    const syncTime = () => {
      this.dom.customTime.hidden = this.dom.timeControl.value !== 'custom';
      this.dom.corresHint.hidden = !this.timeFields().days;
    };
    this.dom.timeControl.addEventListener('change', syncTime);
    syncTime();
    this.dom.variant.addEventListener('change', () => this.syncOptions());
    this.syncOptions();
    // The fairy pieces explained next to whichever variant choice picks minichess7; Chess960 likewise.
    for (const [select, slot, note] of [['#seek-variant', '#seek-legend-slot', '#seek-960-slot'], ['#variant', '#options-legend-slot', '#options-960-slot']]) {
      const sync = () => {
        $(slot).hidden = !hasFairyPieces($(select).value);
        $(note).hidden = $(select).value !== 'chess960';
      };
      $(select).addEventListener('change', sync);
      sync();
    }
    $('#friend-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.create(friendSeats(this.side(e.target), this.dom.rated.checked && !this.dom.rated.disabled));
    });
    $('#bot-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.create(botSeats(this.side(e.target), e.target.elements.level.value));
    });
    $('#bots-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const f = e.target.elements;
      this.create(botsSeats(f.white.value, f.black.value));
    });
    wireEngineCard(this.root, (form) => this.side(form), (seats) => this.create(seats));
    $('#seek-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const f = e.target.elements;
      const [m, inc] = f.time.value === 'untimed' ? [] : f.time.value.split('+');
      this.seek({
        type: 'seek',
        variant: f.variant.value,
        fen: null,
        rules: { castling: true, en_passant: true, repetition: 'threefold' },
        clock: m === undefined ? null : clockSpec(m, inc),
        color: f.color.value === 'random' ? null : f.color.value,
        rated: f.rated.checked && !f.rated.disabled,
      });
    });
    this.dom.seeks.addEventListener('click', (e) => {
      const accept = e.target.closest('.accept-seek');
      if (accept) this.accept(accept.dataset.seek);
      else if (e.target.closest('#cancel-seek')) this.cancelSeek();
    });
  }

  /** Sends `msg`, remembering what it was (`what`) to route its answer; false when not connected. */
  request(msg, what) {
    const id = this.conn.send(msg);
    if (id === null) {
      this.dom.error.textContent = 'Not connected to the server — retrying; try again in a moment.';
      return false;
    }
    this.dom.error.textContent = '';
    this.requests.set(id, what);
    return true;
  }

  /** Posts the seek `msg` (replacing this page's earlier one) under this browser's name. */
  async seek(msg, refusal) {
    const name = refusal ? await askAgain(refusal) : await nameForSeat();
    if (!name) return;
    const seek = { ...msg, name };
    if (this.request(seek, { seek })) this.seekMsg = seek;
  }

  /** Takes up seek `id` under this browser's name; `joined` follows. */
  async accept(id, refusal) {
    const name = refusal ? await askAgain(refusal) : await nameForSeat();
    if (!name) return;
    this.request({ type: 'accept_seek', seek: id, name }, { accept: id });
  }

  cancelSeek() {
    this.seekMsg = null;
    this.request({ type: 'cancel_seek' }, { cancel: true });
  }

  side(form) {
    return chosenSide(form.elements.color.value);
  }

  /** Minichess has neither castling nor en passant: their switches would only mislead there. */
  syncOptions() {
    const mini = this.dom.variant.value === 'minichess7';
    this.dom.castling.disabled = mini;
    this.dom.enPassant.disabled = mini;
    this.dom.fen.placeholder = mini ? 'nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1' : 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
  }

  /**
   * The chosen time control as the fields of `create`: `{clock}` (null for untimed; the server
   * checks the range) or `{days}` for correspondence.
   */
  timeFields() {
    const d = this.dom;
    return timeControlFields(d.timeControl.value, { minutes: d.customMinutes.value, increment: d.customIncrement.value });
  }

  async create(seats) {
    const { clock = null, days = null } = this.timeFields();
    if (days && (seats.white.kind !== 'human' || seats.black.kind !== 'human')) {
      this.dom.error.textContent = CORRESPONDENCE_PEOPLE_ONLY;
      this.root.querySelector('#options').open = true;
      return;
    }
    const msg = await createMessage(seats, {
      variant: this.dom.variant.value,
      fen: this.dom.fen.value.trim(),
      rules: { castling: this.dom.castling.checked, en_passant: this.dom.enPassant.checked, repetition: this.dom.repetition.value },
      clock,
      days,
    });
    if (msg) this.request(msg, { create: seats }); // null: the name dialog was cancelled
  }

  handle(msg) {
    const asked = msg.id === undefined ? undefined : this.requests.get(msg.id);
    if (asked && ['error', 'ack', 'created', 'joined', 'seeking'].includes(msg.type)) this.requests.delete(msg.id);
    if (msg.type === 'games') {
      this.games = Array.isArray(msg.games) ? msg.games : [];
      this.renderGames(this.games);
    }
    else if (msg.type === 'seeks') {
      this.seeks = Array.isArray(msg.seeks) ? msg.seeks : [];
      this.renderSeeks();
    } else if (msg.type === 'seeking') {
      this.mySeek = msg.seek;
      this.renderSeeks();
    } else if (msg.type === 'ack' && asked?.cancel) {
      this.mySeek = null;
      this.renderSeeks();
    } else if (msg.type === 'created' || msg.type === 'joined') {
      // A game of ours: created here, or a seek's (ours accepted, or theirs taken up here).
      if (this.moving) return;
      this.moving = msg.game;
      if (msg.type === 'joined') arrivalSound(msg.game); // a seek was taken up: the game page greets it
      enterGame(msg);
    } else if (msg.type === 'error') {
      this.error(msg, asked);
    }
  }

  /** An `error`: the answer to `asked` (a request of ours, see `requests`), or to nothing. */
  error(msg, asked) {
    if (asked?.cancel) {
      // No seek to cancel: it was just accepted (`joined` is on its way) or already gone.
      this.mySeek = null;
      this.renderSeeks();
    } else if (asked) {
      this.dom.error.textContent = msg.message;
      if (asked.create) {
        // A bad FEN is the usual cause; show the options so the field can be fixed.
        if (/fen|clock|timed|time control|days|position/i.test(msg.message)) this.root.querySelector('#options').open = true;
      }
      if (asked.seek) this.seekMsg = null;
      // The server refused the name: ask for another with its words, then try again.
      if (isNameRefusal(msg)) {
        if (asked.create) askAgain(msg.message).then((name) => name && this.create(asked.create));
        else if (asked.seek) this.seek(asked.seek, msg.message);
        else if (asked.accept) this.accept(asked.accept, msg.message);
      }
    } else if (msg.id === undefined) {
      // Not an answer to a request: the server refused the connection (too many) or failed.
      this.dom.error.textContent = msg.message || msg.code;
    }
  }

  /** Once the server said who this is: the rated switches. */
  renderAccount() {
    const loggedIn = Boolean(this.account);
    for (const box of [this.dom.rated, this.dom.seekRated]) {
      box.disabled = !loggedIn;
      if (!loggedIn) box.checked = false;
      box.closest('label').classList.toggle('logged-in', loggedIn);
    }
    // Rated seeks read differently logged in; the list shows once the server sent it.
    if (this.dom.seeks.dataset.html !== undefined) this.renderSeeks();
  }

  renderSeeks() {
    const seeks = this.seeks;
    if (!seeks.length) {
      setHtml(this.dom.seeks, '<li class="none">No open challenges — post one above.</li>');
      return;
    }
    // A rated seek is an account's: its rating in the seek's category goes beside the name.
    const rating = (s) => (s.rated ? ratingFor(s.name, categoryOf(s.variant, s.clock), this.onRating) : null);
    setHtml(this.dom.seeks, seeks.map((s) => seekRow(s, s.seek === this.mySeek, Boolean(this.account), rating(s))).join(''));
  }

  renderGames(games) {
    const order = { ongoing: 0, waiting: 1, ended: 2 };
    const sorted = [...games].sort((a, b) => (order[a.status] - order[b.status]) || b.plies - a.plies);
    if (!sorted.length) {
      setHtml(this.dom.games, '<li class="none">No games yet — start one above.</li>');
      return;
    }
    // Redrawn only when something changed (setHtml): a list redrawn under the pointer loses hover and focus.
    setHtml(this.dom.games, sorted.map((g) => gameRow(g, (seat) => seatRating(seat, g, this.onRating))).join(''));
  }
}

/**
 * The rating to show beside `seat` of game summary `g` (`{rating, provisional}`), or null: only
 * in rated games, and only for a registered player (a bot's label carries its rating already).
 * `onLoad` is called when a rating not known yet arrives.
 */
function seatRating(seat, g, onLoad) {
  if (!g.rated || seat?.kind !== 'human' || !seat.account) return null;
  return ratingFor(seat.name, categoryOf(g.variant, g.clock, g.days), onLoad);
}

/** A rating beside a name, as HTML: " 1500?" ('' for none). */
function ratingHtml(r) {
  return r ? ` <span class="rating">${formatRating(r.rating, r.provisional)}</span>` : '';
}

/**
 * The list item of one game summary (of `games`). Everything from the server — the players'
 * names above all, which people choose — goes in as escaped text. `rating(seat)` is the rating
 * to show beside a seat's name (`{rating, provisional}`), or null.
 */
export function gameRow(g, rating = () => null) {
  const status = g.status === 'ended' ? (g.result || 'ended') : g.status === 'waiting' ? 'waiting for a player' : 'playing';
  const moves = Math.ceil(g.plies / 2);
  const time = timeControlName(g.clock, g.days);
  const mode = modeName(g.rated);
  const label = `${VARIANTS[g.variant] || g.variant}, ${time}${g.rated ? ', rated' : ''}: ${seatName(g.white)} against ${seatName(g.black)}, ${status}, ${moves} moves, ${g.watchers} watching`;
  return `<li><a href="/g/${encodeURIComponent(g.game)}" class="game-row status-${escapeHtml(g.status)}" data-game="${escapeHtml(g.game)}" aria-label="${escapeHtml(label)}">
        <span class="variant">${escapeHtml(VARIANTS[g.variant] || g.variant)} <span class="time-control">${escapeHtml(time)}</span> <span class="mode${g.rated ? ' rated' : ''}">${mode}</span></span>
        <span class="players"><span class="swatch white" aria-hidden="true"></span><span class="name">${escapeHtml(seatName(g.white))}</span>${ratingHtml(rating(g.white))}${guestMark(g.white)} <span class="vs">vs</span> <span class="swatch black" aria-hidden="true"></span><span class="name">${escapeHtml(seatName(g.black))}</span>${ratingHtml(rating(g.black))}${guestMark(g.black)}</span>
        <span class="plies">${moves} ${moves === 1 ? 'move' : 'moves'}</span>
        <span class="state">${escapeHtml(status)}</span>
        <span class="watchers">${g.watchers} watching</span>
      </a></li>`;
}

/**
 * The list item of one open seek (of `seeks`): who posted it, the time control, rated or casual,
 * the variant and the side its creator plays, with the button that accepts it — or, for this
 * page's own seek (`mine`), a note that it waits and the button that withdraws it; or, for a
 * rated seek when not logged in (`loggedIn` false), the way to log in. `rating` is its creator's
 * (`{rating, provisional}`), or null. Text from the server goes in escaped.
 */
export function seekRow(s, mine, loggedIn = true, rating = null) {
  const time = timeControlName(s.clock);
  const variant = `${VARIANTS[s.variant] || s.variant}${s.fen ? ', from a position' : ''}`;
  const side = SIDE_NAMES[s.color];
  const name = typeof s.name === 'string' && s.name ? s.name : 'Anonymous';
  let action = mine
    ? '<span class="seek-waiting">Waiting for an opponent…</span> <button type="button" id="cancel-seek">Cancel</button>'
    : `<button type="button" class="accept-seek primary" data-seek="${escapeHtml(s.seek)}" aria-label="Accept ${escapeHtml(name)}'s challenge">Accept</button>`;
  // Only accounts play rated games: the way in is to log in first.
  if (!mine && s.rated && !loggedIn) action = '<span class="seek-login"><a href="/login">Log in</a> to accept</span>';
  return `<li class="seek${mine ? ' mine' : ''}" data-seek="${escapeHtml(s.seek)}">
        <span class="seek-name">${escapeHtml(name)}${ratingHtml(rating)}${mine ? ' (you)' : ''}</span>
        <span class="time-control">${escapeHtml(time)} <span class="mode${s.rated ? ' rated' : ''}">${modeName(s.rated)}</span></span>
        <span class="variant">${escapeHtml(variant)}</span>
        <span class="seek-color"><span class="swatch ${side ? s.color : 'random'}" aria-hidden="true"></span>${side ? `plays ${side}` : 'random side'}</span>
        <span class="seek-action">${action}</span>
      </li>`;
}

/** Starts the lobby inside `root`. */
export function startLobby(root) {
  new Lobby(root).start();
}
