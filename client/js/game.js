// The game page, /g/{id}: follows one game over the connection and shows it — board, players,
// status line, move list with review, offers, and the actions of a seated player.
//
// The model is the server's: a `state` replaces it whole, and each event must carry the next
// version `v`. Anything else — a gap in versions, a move whose ply or placement does not fit —
// means the page may be out of step, so it asks for a fresh `state` instead of guessing. The
// page never shows a move as played before the server has broadcast it.

import { Board } from './board.js';
import { formatTime, LOW_MS, remaining, timeControlName } from './clock.js';
import { Connection } from './connection.js';
import {
  applyUci, boardSize, fenTurn, kingSquare, parsePlacement, resolveMove, samePlacement,
} from './chess.js';
import { forgetSeat, loadSeat, saveSeat } from './store.js';
import { escapeHtml, setConnectionBadge, seatName } from './ui.js';

const SIDE = { white: 'White', black: 'Black' };
const OTHER = { white: 'black', black: 'white' };

const REASONS = {
  checkmate: 'Checkmate',
  stalemate: 'Stalemate',
  out_of_moves: 'Out of valid moves',
  no_moves: 'No moves left',
  threefold_repetition: 'Threefold repetition',
  eight_move_repetition: 'Eight-move repetition',
  fifty_moves: 'Fifty-move rule',
  insufficient_material: 'Insufficient material',
  resignation: 'Resignation',
  agreement: 'Draw by agreement',
  timeout: 'Time out',
  abandoned: 'Abandoned',
};

/** The model of a game built from a `state` message, with a placement for every ply. */
function modelFromState(s) {
  const size = boardSize(s.variant);
  const boards = [parsePlacement(s.initial_fen, size) || new Map()];
  for (const uci of s.moves) boards.push(applyUci(boards[boards.length - 1], uci));
  // The live position is the server's FEN, whatever the replay says.
  const live = parsePlacement(s.fen, size);
  if (live && !samePlacement(live, boards[boards.length - 1])) boards[boards.length - 1] = live;
  return {
    v: s.v, variant: s.variant, size, initialFen: s.initial_fen, fen: s.fen,
    moves: [...s.moves], san: [...s.san], boards,
    turn: s.turn, status: s.status, result: s.result, reason: s.reason, seats: s.seats,
    legal: [...s.legal], check: s.check, offer: s.offer || null, watchers: s.watchers || 0,
    // The clock as the server last sent it, and when it arrived (the page counts down from there).
    clock: s.clock || null, clockAt: performance.now(),
    // Who may claim the game of an absent opponent, and when it arrived (counted down likewise).
    claim: s.claim || null, claimAt: performance.now(),
  };
}

export class GameView {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.seat = loadSeat(id);
    this.game = null;
    this.review = null; // the ply shown while reviewing, or null for live
    this.pending = null; // a move sent and not yet confirmed
    this.orientation = this.seat?.color || 'white';
    this.flipped = false;
    this.notice = '';
    this.resumeId = null;
    this.missing = false;
    this.ticker = null;
    this.claimTicker = null;
    this.claimSent = false; // a claim was sent and not yet answered
    this.buildDom();
    this.conn = new Connection({
      onOpen: () => this.follow(),
      onMessage: (msg) => this.handle(msg),
      onStatus: (up) => {
        setConnectionBadge(up);
        this.render();
      },
    });
    // Tests and curious people can reach the live view from the console.
    window.gambit = this;
  }

  start() {
    this.conn.start();
  }

  /** Follows the game on a (re)opened connection: resume the seat, else watch; with our `v`. */
  follow() {
    const v = this.game ? this.game.v : undefined;
    if (this.seat) {
      this.resumeId = this.conn.send({ type: 'resume', game: this.id, token: this.seat.token, v });
    } else {
      this.conn.send({ type: 'watch', game: this.id, v });
    }
  }

  /** Drops our model and asks the server for a fresh `state`. */
  resync() {
    this.game = this.game ? { ...this.game, v: -1 } : null;
    if (this.seat) this.resumeId = this.conn.send({ type: 'resume', game: this.id, token: this.seat.token });
    else this.conn.send({ type: 'watch', game: this.id });
  }

  handle(msg) {
    if (msg.game !== undefined && msg.game !== this.id) return;
    switch (msg.type) {
      case 'joined':
        this.seat = { token: msg.token, color: msg.color };
        saveSeat(this.id, this.seat);
        if (!this.flipped) this.orientation = msg.color;
        break;
      case 'state':
        this.game = modelFromState(msg);
        this.pending = null;
        this.claimSent = false;
        if (this.review !== null && this.review > this.game.moves.length) this.review = null;
        break;
      case 'move': case 'end': case 'offer': case 'declined': case 'seats':
        this.event(msg);
        break;
      case 'watchers':
        if (this.game) this.game.watchers = msg.count;
        break;
      case 'error':
        this.error(msg);
        break;
      default:
        return;
    }
    this.render();
  }

  /** Applies one versioned event, or resynchronises when it does not follow on. */
  event(msg) {
    const g = this.game;
    if (!g || g.v < 0) return; // a fresh state is on its way
    if (msg.v <= g.v) return; // already seen (a replay overlapping what we had)
    if (msg.v !== g.v + 1) {
      this.resync();
      return;
    }
    switch (msg.type) {
      case 'move': {
        const placement = parsePlacement(msg.fen, g.size);
        if (msg.ply !== g.moves.length + 1 || !placement) {
          this.resync();
          return;
        }
        g.moves.push(msg.uci);
        g.san.push(msg.san);
        g.boards.push(placement);
        Object.assign(g, { fen: msg.fen, turn: msg.turn, legal: msg.legal, check: msg.check, offer: null });
        if (msg.clock) Object.assign(g, { clock: msg.clock, clockAt: performance.now() });
        if (g.status === 'waiting') g.status = 'ongoing';
        if (this.pending === msg.uci) this.pending = null;
        break;
      }
      case 'end':
        Object.assign(g, { status: 'ended', result: msg.result, reason: msg.reason, legal: [], offer: null, claim: null });
        if (msg.clock) Object.assign(g, { clock: msg.clock, clockAt: performance.now() });
        this.pending = null;
        break;
      case 'offer':
        g.offer = { kind: msg.kind, by: msg.by };
        break;
      case 'declined':
        g.offer = null;
        if (this.seat?.color === msg.by) this.notice = `Your ${msg.kind === 'draw' ? 'draw offer' : 'takeback request'} was declined.`;
        break;
      case 'seats':
        g.seats = msg.seats;
        Object.assign(g, { claim: msg.claim || null, claimAt: performance.now() });
        this.claimSent = false;
        if (g.status === 'waiting' && g.seats.white.kind !== 'open' && g.seats.black.kind !== 'open') g.status = 'ongoing';
        break;
      default:
        break;
    }
    g.v = msg.v;
  }

  error(msg) {
    if (msg.code === 'no_such_game') {
      this.missing = true;
      return;
    }
    if (msg.code === 'not_a_player' && msg.id !== undefined && msg.id === this.resumeId) {
      // The server does not know our token (the game was restarted or the token is stale): watch.
      forgetSeat(this.id);
      this.seat = null;
      this.conn.send({ type: 'watch', game: this.id });
      return;
    }
    this.pending = null;
    this.claimSent = false;
    this.notice = msg.message || msg.code;
  }

  send(msg) {
    const id = this.conn.send(msg);
    if (id === null) this.notice = 'Not connected — wait a moment and try again.';
    return id;
  }

  play(uci) {
    const g = this.game;
    if (!g || !this.myTurn()) return;
    this.notice = '';
    this.review = null;
    if (this.send({ type: 'move', game: this.id, uci }) !== null) this.pending = uci;
    this.render();
  }

  myTurn() {
    const g = this.game;
    return Boolean(g && this.seat && g.status === 'ongoing' && g.turn === this.seat.color && this.conn.connected);
  }

  buildDom() {
    this.root.innerHTML = `
      <div class="game">
        <section class="board-area" aria-label="Board">
          <div class="player player-top" id="player-top"><span class="who"></span><span class="clock" hidden></span></div>
          <div id="board-host"></div>
          <div class="player player-bottom" id="player-bottom"><span class="who"></span><span class="clock" hidden></span></div>
        </section>
        <aside class="panel">
          <p id="status" class="status" role="status" aria-live="polite">Connecting…</p>
          <p id="notice" class="notice" role="alert"></p>
          <div id="offer" class="offer" hidden></div>
          <div id="claim" class="claim" hidden aria-live="polite"></div>
          <div id="join" class="join" hidden></div>
          <div id="invite" class="invite" hidden>
            <label for="invite-link">Send this link to your friend:</label>
            <div class="row">
              <input id="invite-link" readonly>
              <button type="button" id="copy-invite">Copy</button>
            </div>
          </div>
          <div class="review-bar" id="review-bar" hidden>
            <span id="review-label"></span>
            <button type="button" id="live">Back to live</button>
          </div>
          <ol id="moves" class="moves" aria-label="Moves"></ol>
          <form id="move-form" class="move-form" autocomplete="off">
            <label for="move-input">Your move</label>
            <div class="row">
              <input id="move-input" name="move" placeholder="e2e4 or Nf3" spellcheck="false" autocapitalize="off">
              <button type="submit">Play</button>
            </div>
          </form>
          <div class="actions">
            <button type="button" id="undo">Take back</button>
            <button type="button" id="draw">Offer draw</button>
            <button type="button" id="resign">Resign</button>
          </div>
          <div class="confirm" id="resign-confirm-box" hidden>
            Resign this game?
            <button type="button" id="resign-confirm" class="danger">Yes, resign</button>
            <button type="button" id="resign-cancel">No</button>
          </div>
          <div class="meta">
            <button type="button" id="flip">Flip board</button>
            <a id="pgn" href="/api/games/${encodeURIComponent(this.id)}/pgn" download="gambit-${escapeHtml(this.id)}.pgn">Download PGN</a>
            <span id="watchers" class="watchers"></span>
          </div>
        </aside>
      </div>`;
    const $ = (sel) => this.root.querySelector(sel);
    this.dom = {
      status: $('#status'), notice: $('#notice'), offer: $('#offer'), claim: $('#claim'), join: $('#join'), invite: $('#invite'),
      inviteLink: $('#invite-link'), moves: $('#moves'), form: $('#move-form'), input: $('#move-input'),
      undo: $('#undo'), draw: $('#draw'), resign: $('#resign'), confirmBox: $('#resign-confirm-box'),
      watchers: $('#watchers'), top: $('#player-top'), bottom: $('#player-bottom'),
      reviewBar: $('#review-bar'), reviewLabel: $('#review-label'),
    };
    this.board = new Board($('#board-host'), { onMove: (uci) => this.play(uci), label: `Board of game ${this.id}` });
    this.dom.inviteLink.value = `${location.origin}/g/${this.id}`;
    $('#copy-invite').addEventListener('click', async (e) => {
      this.dom.inviteLink.select();
      try {
        await navigator.clipboard.writeText(this.dom.inviteLink.value);
        e.target.textContent = 'Copied';
      } catch {
        document.execCommand?.('copy');
      }
    });
    $('#live').addEventListener('click', () => this.setReview(null));
    $('#flip').addEventListener('click', () => {
      this.orientation = OTHER[this.orientation];
      this.flipped = true;
      this.render();
    });
    this.dom.undo.addEventListener('click', () => this.send({ type: 'undo', game: this.id }));
    this.dom.draw.addEventListener('click', () => this.send({ type: 'draw', game: this.id }));
    this.dom.resign.addEventListener('click', () => {
      this.dom.confirmBox.hidden = false;
      $('#resign-confirm').focus();
    });
    $('#resign-cancel').addEventListener('click', () => { this.dom.confirmBox.hidden = true; });
    $('#resign-confirm').addEventListener('click', () => {
      this.dom.confirmBox.hidden = true;
      this.send({ type: 'resign', game: this.id });
    });
    this.dom.moves.addEventListener('click', (e) => {
      const ply = e.target.closest('[data-ply]')?.dataset.ply;
      if (ply !== undefined) this.setReview(Number(ply));
    });
    this.dom.moves.addEventListener('keydown', (e) => this.reviewKey(e));
    this.dom.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.typed();
    });
    this.dom.offer.addEventListener('click', (e) => {
      const act = e.target.closest('[data-act]')?.dataset.act;
      if (act) this.send({ type: act, game: this.id });
    });
    this.dom.claim.addEventListener('click', (e) => {
      const result = e.target.closest('[data-claim]')?.dataset.claim;
      if (!result) return;
      this.notice = '';
      if (this.send({ type: 'claim', game: this.id, result }) !== null) this.claimSent = true;
      this.render();
    });
    this.dom.join.addEventListener('click', (e) => {
      const color = e.target.closest('[data-join]')?.dataset.join;
      if (color) this.send({ type: 'join', game: this.id, color });
    });
  }

  reviewKey(e) {
    const g = this.game;
    if (!g) return;
    const now = this.review ?? g.moves.length;
    const to = { ArrowLeft: now - 1, ArrowRight: now + 1, Home: 0, End: g.moves.length }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.setReview(Math.max(0, Math.min(g.moves.length, to)));
    this.dom.moves.querySelector(`[data-ply="${this.review ?? g.moves.length}"]`)?.focus();
  }

  setReview(ply) {
    const g = this.game;
    this.review = ply === null || !g || ply >= g.moves.length ? null : ply;
    this.render();
  }

  typed() {
    const g = this.game;
    const text = this.dom.input.value;
    if (!g || !this.seat) {
      this.notice = 'Spectators cannot move.';
    } else if (!this.myTurn()) {
      this.notice = g.status === 'ended' ? 'The game is over.' : 'It is not your move.';
    } else {
      const found = resolveMove(text, g.boards[g.boards.length - 1], g.legal);
      if (found.uci) {
        this.dom.input.value = '';
        this.play(found.uci);
        return;
      }
      if (found.choices) {
        this.dom.input.value = '';
        this.board.choosePromotion(found.choices);
        return;
      }
      this.notice = found.error;
    }
    this.render();
  }

  /** The sentence under the board's title: whose move, who is thinking, or how it ended. */
  statusText() {
    const g = this.game;
    if (this.missing) return 'There is no such game on this server (it may have finished a while ago).';
    if (!g) return 'Connecting…';
    if (g.status === 'ended') {
      const reason = REASONS[g.reason] || g.reason || 'Game over';
      if (g.result === '1-0' || g.result === '0-1') {
        const winner = g.result === '1-0' ? 'White' : 'Black';
        const loser = g.result === '1-0' ? 'Black' : 'White';
        if (g.reason === 'resignation') return `${loser} resigned — ${winner} wins`;
        if (g.reason === 'timeout') return `${winner} wins on time`;
        if (g.reason === 'abandoned') return `${loser} left the game — ${winner} wins`;
        return `${reason} — ${winner} wins`;
      }
      if (g.reason === 'timeout') {
        // A flag fell, but the other side had too little left to ever mate.
        const flagged = g.clock && g.clock.black_ms === 0 && g.clock.white_ms !== 0 ? 'black' : 'white';
        return `Draw — ${SIDE[flagged]}'s time ran out but ${SIDE[OTHER[flagged]]} cannot mate`;
      }
      return g.reason === 'agreement' ? 'Draw by agreement' : `${reason} — draw`;
    }
    const open = ['white', 'black'].filter((c) => g.seats[c].kind === 'open');
    if (g.status === 'waiting' || open.length) {
      return this.seat ? 'Waiting for your friend to open the invite link…' : `Waiting for a player (${open.map((c) => SIDE[c]).join(', ')} seat open)`;
    }
    const seat = g.seats[g.turn];
    const check = g.check ? 'Check! ' : '';
    if (seat.kind === 'bot') return `${check}Level ${seat.level} is thinking…`;
    if (this.seat?.color === g.turn) return `${check}Your move (${SIDE[g.turn]})`;
    return `${check}${SIDE[g.turn]} to move`;
  }

  render() {
    const g = this.game;
    const d = this.dom;
    d.status.textContent = this.statusText();
    d.notice.textContent = this.notice;
    this.root.dataset.status = g?.status || (this.missing ? 'missing' : 'connecting');
    this.root.dataset.plies = g ? String(g.moves.length) : '';
    this.root.dataset.seat = this.seat?.color || 'spectator';
    document.title = `gambit · ${d.status.textContent}`;
    if (!g) return;

    // Board: a reviewed position, or live (with our sent move shown until the server confirms).
    const live = this.review === null;
    const ply = live ? g.moves.length : this.review;
    let placement = g.boards[ply];
    let lastMove = ply > 0 ? g.moves[ply - 1] : null;
    let check = null;
    const sideAt = (p) => ((fenTurn(g.initialFen) === 'white') === (p % 2 === 0) ? 'white' : 'black');
    if (live && this.pending) {
      placement = applyUci(placement, this.pending);
      lastMove = this.pending;
    } else if (live ? g.check : /[+#]$/.test(g.san[ply - 1] || '')) {
      check = kingSquare(placement, sideAt(ply));
    }
    const canMove = live && !this.pending && this.myTurn();
    this.board.update({
      size: g.size, placement, orientation: this.orientation, lastMove, check,
      legal: canMove ? g.legal : [], mover: canMove ? this.seat.color : null,
    });

    this.renderPlayers();
    this.renderClocks();
    this.renderMoves();
    d.reviewBar.hidden = live;
    d.reviewLabel.textContent = live ? '' : `Reviewing: ${ply === 0 ? 'start position' : `after ${Math.ceil(ply / 2)}${ply % 2 ? '.' : '…'} ${g.san[ply - 1]}`}`;

    // Offers.
    const offer = g.offer;
    d.offer.hidden = !offer;
    if (offer) {
      const what = offer.kind === 'draw' ? 'a draw' : 'to take back a move';
      if (this.seat && offer.by !== this.seat.color) {
        setHtml(d.offer, `<span>Your opponent offers ${what}.</span>
          <button type="button" data-act="${offer.kind}" id="accept-offer">Accept</button>
          <button type="button" data-act="decline" id="decline-offer">Decline</button>`);
      } else if (this.seat) {
        setHtml(d.offer, `<span>You offered ${what}; waiting for an answer.</span>`);
      } else {
        setHtml(d.offer, `<span>${SIDE[offer.by]} offers ${what}.</span>`);
      }
    }

    this.renderClaim();

    // Seats: an open seat can be taken by a visitor; a seated creator shares the link.
    const open = ['white', 'black'].filter((c) => g.seats[c].kind === 'open');
    d.join.hidden = Boolean(this.seat) || open.length === 0 || g.status === 'ended';
    setHtml(d.join, open.map((c) => `<button type="button" class="primary" data-join="${c}" id="join-${c}">Play as ${SIDE[c]}</button>`).join(' '));
    d.invite.hidden = !(this.seat && open.length > 0 && g.status !== 'ended');

    // Player controls.
    const playing = Boolean(this.seat) && g.status !== 'ended';
    d.form.hidden = !playing;
    for (const b of [d.undo, d.draw, d.resign]) b.hidden = !playing;
    if (!playing) d.confirmBox.hidden = true;
    const ongoing = g.status === 'ongoing' && this.conn.connected;
    d.undo.disabled = !ongoing || !g.moves.length;
    d.draw.disabled = !ongoing || (offer?.kind === 'draw' && offer.by === this.seat?.color);
    d.resign.disabled = !ongoing;
    d.input.disabled = !this.myTurn();
    d.watchers.textContent = `${g.watchers} watching`;
  }

  renderPlayers() {
    const g = this.game;
    const bottom = this.orientation;
    for (const [node, color] of [[this.dom.bottom, bottom], [this.dom.top, OTHER[bottom]]]) {
      const seat = g.seats[color];
      const you = this.seat?.color === color ? ' (you)' : '';
      const online = seat.kind === 'human' ? `<span class="dot ${seat.online ? 'on' : 'off'}" title="${seat.online ? 'online' : 'offline'}"></span>` : '';
      const toMove = g.status === 'ongoing' && g.turn === color ? ' to-move' : '';
      node.className = `player player-${node === this.dom.top ? 'top' : 'bottom'}${toMove}`;
      const clockNode = node.querySelector('.clock');
      clockNode.id = `clock-${color}`;
      clockNode.dataset.color = color;
      clockNode.hidden = !g.clock;
      setHtml(node.querySelector('.who'), `<span class="swatch ${color}" aria-hidden="true"></span>${online}<span class="name">${escapeHtml(seatName(seat))}${you}</span><span class="side">${SIDE[color]}</span>`);
    }
  }

  /**
   * Writes both clocks as of now, and keeps a ticker running while a side's time runs: only the
   * clock text changes between events, so the ticker touches nothing else.
   */
  renderClocks() {
    const g = this.game;
    const running = Boolean(g?.clock?.running) && g.status === 'ongoing';
    if (g?.clock) {
      const now = performance.now();
      for (const node of [this.dom.top, this.dom.bottom]) {
        const clockNode = node.querySelector('.clock');
        const color = clockNode.dataset.color;
        if (!color) continue;
        const ms = remaining(g.clock, g.clockAt, color, now);
        clockNode.textContent = formatTime(ms);
        clockNode.classList.toggle('running', running && g.clock.running === color);
        clockNode.classList.toggle('low', ms < LOW_MS);
        clockNode.setAttribute('aria-label', `${SIDE[color]}'s clock: ${formatTime(ms)} left (${timeControlName(g.clock)})`);
      }
    }
    if (running && !this.ticker) this.ticker = setInterval(() => this.renderClocks(), 100);
    if (!running && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  /**
   * The away notice. The player who may claim the game of an absent opponent sees a count-down
   * (kept by a ticker, like the clocks, from the server's `in_ms`) and then the claim buttons;
   * everyone else sees only who is away.
   */
  renderClaim() {
    const g = this.game;
    const d = this.dom;
    const ongoing = g?.status === 'ongoing';
    const claim = ongoing ? g.claim : null;
    let counting = false;
    if (claim && this.seat?.color === claim.by) {
      const left = Math.max(0, claim.in_ms - (performance.now() - g.claimAt));
      const title = '<span class="claim-title">Your opponent left the game.</span>';
      if (left > 0) {
        counting = true;
        // The count-down's text changes alone, so the live region does not repeat the title.
        setHtml(d.claim, `${title}<span class="countdown" id="claim-countdown" role="timer"></span>`);
        d.claim.querySelector('#claim-countdown').textContent = `You can claim victory in ${Math.ceil(left / 1000)} s`;
      } else {
        const off = this.claimSent || !this.conn.connected ? ' disabled' : '';
        setHtml(d.claim, `${title}
          <button type="button" class="primary" data-claim="win" id="claim-win"${off}>Claim victory</button>
          <button type="button" data-claim="draw" id="claim-draw"${off}>Call it a draw</button>`);
      }
      d.claim.classList.remove('away');
      d.claim.hidden = false;
    } else {
      const away = ongoing ? ['white', 'black'].filter((c) => g.seats[c].kind === 'human' && !g.seats[c].online) : [];
      setHtml(d.claim, away.map((c) => `<span class="claim-title">${SIDE[c]} is away.</span>`).join(''));
      d.claim.classList.add('away');
      d.claim.hidden = away.length === 0 || away.includes(this.seat?.color);
    }
    if (counting && !this.claimTicker) this.claimTicker = setInterval(() => this.renderClaim(), 200);
    if (!counting && this.claimTicker) {
      clearInterval(this.claimTicker);
      this.claimTicker = null;
    }
  }

  renderMoves() {
    const g = this.game;
    const shown = this.review ?? g.moves.length;
    const blackFirst = fenTurn(g.initialFen) === 'black';
    const startNumber = Number(String(g.initialFen).split(' ')[5]) || 1;
    const cells = [];
    const offset = blackFirst ? 1 : 0;
    for (let i = 0; i < g.san.length + offset; i += 2) {
      const number = startNumber + i / 2;
      const cell = (ply) => {
        if (ply < 1 || ply > g.san.length) return '<span class="mv empty"></span>';
        const current = ply === shown ? ' aria-current="step"' : '';
        return `<button type="button" class="mv" data-ply="${ply}"${current}>${escapeHtml(g.san[ply - 1])}</button>`;
      };
      cells.push(`<li><span class="num">${number}.</span>${cell(i + 1 - offset)}${cell(i + 2 - offset)}</li>`);
    }
    const html = cells.join('') || '<li class="none">No moves yet</li>';
    if (this.dom.moves.dataset.html !== html) {
      const hadFocus = this.dom.moves.contains(document.activeElement);
      setHtml(this.dom.moves, html);
      this.dom.moves.scrollTop = live(this) ? this.dom.moves.scrollHeight : this.dom.moves.scrollTop;
      if (hadFocus) this.dom.moves.querySelector('[aria-current]')?.focus();
    }
  }
}

/**
 * Sets `node`'s markup only when it differs from what was set last: rewriting identical markup
 * would replace the buttons under a user's pointer or keyboard focus on every watcher update.
 */
function setHtml(node, html) {
  if (node.dataset.html === html) return;
  node.dataset.html = html;
  node.innerHTML = html;
}

function live(view) {
  return view.review === null;
}

/** Starts the game page for `id` inside `root`. */
export function startGame(root, id) {
  new GameView(root, id).start();
}
