// The game page's controller: the state of one game page and what changes it — the server's
// messages (applied to the model by follow.js) and the player's actions. It draws nothing: the
// view (view.js) sets `redraw`, and reads the controller to draw.
//
// The model is the server's: the page never shows a move as played before the server has
// broadcast it. When the follower finds the model out of step, the controller asks for a fresh
// `state`. What is the page's own — the seat, the move sent and not yet confirmed, the position
// under review, when the clock and the claim count-down arrived — lives here, not in the model.

import { otherColor, resolveMove } from '../chess.js';
import { Connection } from '../connection.js';
import { APPLIED, follow, RESYNC } from '../follow.js';
import { isNameRefusal } from '../names.js';
import { forgetSeat, loadSeat, saveSeat } from '../store.js';
import { setConnectionBadge } from '../ui.js';

export class GameCtrl {
  constructor(id) {
    this.id = id;
    this.seat = loadSeat(id);
    this.game = null; // the follower's model (follow.js), or null before the first `state`
    this.review = null; // the ply shown while reviewing, or null for live
    this.pending = null; // a move sent and not yet confirmed
    this.orientation = this.seat?.color || 'white';
    this.flipped = false;
    this.notice = '';
    this.resumeId = null;
    this.missing = false;
    this.claimSent = false; // a claim was sent and not yet answered
    this.joining = null; // the last `join` sent: {id, color}
    // When the clock and the claim last arrived (performance.now()): the views count down from there.
    this.clockAt = 0;
    this.claimAt = 0;
    this.redraw = () => {};
    // Set by the view: the server refused the name a `join` carried (its message, the seat).
    this.onNameRefused = () => {};
    this.conn = new Connection({
      onOpen: () => this.subscribe(),
      onMessage: (msg) => this.handle(msg),
      onStatus: (up) => {
        setConnectionBadge(up);
        this.redraw();
      },
    });
  }

  start() {
    this.conn.start();
  }

  get connected() {
    return this.conn.connected;
  }

  /** Follows the game on a (re)opened connection: resume the seat, else watch; with our `v`. */
  subscribe() {
    const v = this.game && !this.game.awaiting ? this.game.v : undefined;
    if (this.seat) {
      this.resumeId = this.conn.send({ type: 'resume', game: this.id, token: this.seat.token, v });
    } else {
      this.conn.send({ type: 'watch', game: this.id, v });
    }
  }

  /** Asks the server for a fresh `state` (the follower found our model out of step). */
  resync() {
    if (this.seat) this.resumeId = this.conn.send({ type: 'resume', game: this.id, token: this.seat.token });
    else this.conn.send({ type: 'watch', game: this.id });
  }

  handle(msg) {
    if (msg.game !== undefined && msg.game !== this.id) return;
    if (msg.type === 'joined') {
      this.seat = { token: msg.token, color: msg.color };
      saveSeat(this.id, this.seat);
      if (!this.flipped) this.orientation = msg.color;
    } else if (msg.type === 'error') {
      this.error(msg);
    } else {
      const { model, outcome } = follow(this.game, msg);
      this.game = model;
      if (outcome === RESYNC) this.resync();
      else if (outcome === APPLIED) this.applied(msg);
      else return;
    }
    this.redraw();
  }

  /** What the page itself keeps track of once the follower applied `msg`. */
  applied(msg) {
    const now = performance.now();
    switch (msg.type) {
      case 'state':
        this.pending = null;
        this.claimSent = false;
        this.clockAt = now;
        this.claimAt = now;
        if (this.review !== null && this.review > this.game.moves.length) this.review = null;
        break;
      case 'move':
        if (msg.clock) this.clockAt = now;
        if (this.pending === msg.uci) this.pending = null;
        break;
      case 'end':
        if (msg.clock) this.clockAt = now;
        this.pending = null;
        break;
      case 'declined':
        if (this.seat?.color === msg.by) this.notice = `Your ${msg.kind === 'draw' ? 'draw offer' : 'takeback request'} was declined.`;
        break;
      case 'seats':
        this.claimAt = now;
        this.claimSent = false;
        break;
      default:
        break;
    }
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
    if (msg.id !== undefined && msg.id === this.joining?.id && isNameRefusal(msg)) this.onNameRefused(msg.message, this.joining.color);
  }

  /** Sends a command about this game (`{type}` plus any fields); returns its id or null. */
  send(msg) {
    const id = this.conn.send({ ...msg, game: this.id });
    if (id === null) this.notice = 'Not connected — wait a moment and try again.';
    return id;
  }

  myTurn() {
    const g = this.game;
    return Boolean(g && this.seat && g.status === 'ongoing' && g.turn === this.seat.color && this.conn.connected);
  }

  play(uci) {
    if (!this.game || !this.myTurn()) return;
    this.notice = '';
    this.review = null;
    if (this.send({ type: 'move', uci }) !== null) this.pending = uci;
    this.redraw();
  }

  /**
   * A move typed as UCI or SAN: plays it, or says why not. Returns what `resolveMove` found:
   * `{uci}` (played), `{choices}` (the promotion piece is for the board to ask) or `{error}`.
   */
  typed(text) {
    const found = this.resolveTyped(text);
    if (found.uci) {
      this.play(found.uci);
    } else if (!found.choices) {
      this.notice = found.error;
      this.redraw();
    }
    return found;
  }

  resolveTyped(text) {
    const g = this.game;
    if (!g || !this.seat) return { error: 'Spectators cannot move.' };
    if (!this.myTurn()) return { error: g.status === 'ended' ? 'The game is over.' : 'It is not your move.' };
    return resolveMove(text, g.boards[g.boards.length - 1], g.legal);
  }

  /** Takes the open seat `color` (null: the first open one) under the display name `name`. */
  join(color, name) {
    this.notice = '';
    const id = this.send({ type: 'join', color, name });
    this.joining = id === null ? null : { id, color };
    this.redraw();
  }

  /** Claims the game of an absent opponent: `result` is 'win' or 'draw'. */
  claim(result) {
    this.notice = '';
    if (this.send({ type: 'claim', result }) !== null) this.claimSent = true;
    this.redraw();
  }

  flip() {
    this.orientation = otherColor(this.orientation);
    this.flipped = true;
    this.redraw();
  }

  /** Shows the position after `ply` moves, or the live one for null (or the last ply). */
  setReview(ply) {
    const g = this.game;
    this.review = ply === null || !g || ply >= g.moves.length ? null : ply;
    this.redraw();
  }
}
