// The game page's controller: the state of one game page and what changes it — the server's
// messages (applied to the model by follow.js) and the player's actions. It draws nothing: the
// view (view.js) sets `redraw`, and reads the controller to draw.
//
// The model is the server's: the page never shows a move as played before the server has
// broadcast it. When the follower finds the model out of step, the controller asks for a fresh
// `state`. What is the page's own — the seat, the move sent and not yet confirmed, the position
// under review, when the clock and the claim count-down arrived — lives here, not in the model.
//
// The chat is here too: its lines are not game events (no version), so they bypass the
// follower. A fresh subscription (no `v`) brings the state and then the last lines of each room
// the page may read, so the log is cleared whenever the page asks for one; lines seen already
// (a reply crossing a live line) are recognised and dropped. When a rematch is agreed, the page
// moves on to the new game by itself, with its seat if it has one.
//
// In a correspondence game (days per move) a move made on the board is not sent at once: it
// waits, tentative, for the player to submit it or cancel it (`tentative`; game/corres.js draws
// it), and there are no premoves.
//
// A logged-in player needs no stored token: with none for this game, the page first asks the
// server for the account's seat (`resume` without a token), and watches if it holds none. A
// game the server no longer holds (`no_such_game`) is read from the archive over HTTP and shown
// finished, with no connection left open.
//
// In an arena game a player may berserk before their first move (game/berserk.js decides when):
// `berserk` sends it once; the server's `berserk` event (or its refusal) answers it.

import { errorText, getJson } from '../api.js';
import { otherColor, resolveMove, sanOf } from '../chess.js';
import { Connection } from '../connection.js';
import { isCorrespondence } from '../corres.js';
import { APPLIED, follow, modelFromState, RESYNC } from '../follow.js';
import { isNameRefusal } from '../names.js';
import { canBerserk } from './berserk.js';
import { LiveEvents } from './live.js';
import { Premoves } from './premoves.js';
import { chatLine, chatRooms, checkChat } from '../social.js';
import { forgetSeat, loadName, loadSeat, saveSeat } from '../store.js';
import { setConnectionBadge } from '../ui.js';

/** The chat lines the page keeps; beyond this the oldest go. */
const CHAT_KEPT = 400;

/** The events after which no offer of ours is on its way any more. */
const ANSWERS_OFFERS = new Set(['offer', 'declined', 'state', 'move', 'end']);

/** What each kind of offer is called when it is declined. */
const OFFER_NAMES = { draw: 'draw offer', undo: 'takeback request', rematch: 'rematch offer' };

export class GameCtrl {
  /**
   * `account`: the promise of who is logged in (`{username}` or null, see account.js); left out,
   * the page is anonymous.
   */
  constructor(id, { account } = {}) {
    this.id = id;
    this.seat = loadSeat(id);
    // Who hears each event as it happens: sounds, the your-move signal, blind mode (live.js).
    this.live = new LiveEvents(this);
    this.game = null; // the follower's model (follow.js), or null before the first `state`
    this.review = null; // the ply shown while reviewing, or null for live
    this.pending = null; // a move sent and not yet confirmed
    // In correspondence, the move made on the board and not yet submitted: {uci, san}, or null.
    this.tentative = null;
    this.premoves = new Premoves(); // moves set up during the opponent's turn (premoves.js)
    this.orientation = this.seat?.color || 'white';
    this.flipped = false;
    this.notice = '';
    this.resumeId = null;
    this.missing = false;
    this.claimSent = false; // a claim was sent and not yet answered
    // A draw or takeback offer (or its withdrawal) sent and not yet answered: its kind. Until the
    // server's event or refusal comes, the button that sent it does nothing more.
    this.offerSent = null;
    this.berserkSent = false; // a `berserk` was sent and not yet answered
    this.joining = null; // the last `join` sent: {id, color}
    // The chat: the lines shown (`chatLine`s, oldest first), their keys to drop repeats, and a
    // count of clears (the view starts its log afresh when it changes).
    this.chat = { lines: [], keys: new Set(), epoch: 0 };
    this.chatSent = null; // the last line sent and not yet acknowledged: {id, text}
    this.chatRestore = null; // a refused line, for the view to put back in the box
    this.watchName = null; // the name the last `watch` carried (a spectator's chat name)
    this.watching = null; // the last `watch` sent: {id, v}
    this.moving = null; // the rematch this page is moving to
    // The account: its username once known (null: anonymous). Until the server said who this
    // is, the page waits to subscribe, since an account is seated differently.
    this.username = null;
    this.accountKnown = !account;
    this.waitingForAccount = false; // a subscription is due once the account is known
    this.accountResumeId = null; // the id of the last `resume` without a token
    this.noAccountSeat = false; // the account holds no seat here (the server said so)
    this.archived = false; // the game is shown from the archive (the server no longer holds it)
    this.archiveLoading = false;
    this.unreadable = null; // why the archive could not show the game, if it could not
    // How the page goes to another game (a property so tests can watch it).
    this.navigate = (path) => location.assign(path);
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
    account?.then((who) => this.accountIs(who), () => this.accountIs(null));
  }

  /** The server said who this is: `who` is `{username}` or null. */
  accountIs(who) {
    this.username = typeof who?.username === 'string' ? who.username : null;
    this.accountKnown = true;
    if (this.waitingForAccount) {
      this.waitingForAccount = false;
      if (this.conn.connected) this.subscribe();
    }
    this.redraw();
  }

  start() {
    this.conn.start();
  }

  get connected() {
    return this.conn.connected;
  }

  /**
   * Follows the game on a (re)opened connection, with our `v`: resume the seat (by its token, or
   * the account's seat when logged in with no token here), else watch.
   */
  subscribe() {
    if (this.archived) return;
    if (!this.accountKnown) {
      this.waitingForAccount = true;
      return;
    }
    const v = this.game && !this.game.awaiting ? this.game.v : undefined;
    this.live.subscribed(v);
    if (this.seat) this.resume(v);
    else if (this.username && !this.noAccountSeat) this.resumeAccount(v);
    else this.watch(v);
  }

  /** `resume` without a token: the server seats the account if it holds a seat here. */
  resumeAccount(v) {
    if (v === undefined) this.clearChat();
    this.accountResumeId = this.conn.send({ type: 'resume', game: this.id, v });
  }

  /** Asks the server for a fresh `state` (the follower found our model out of step). */
  resync() {
    if (this.seat) this.resume();
    else this.watch();
  }

  /** `resume` of our seat, after version `v` (none: afresh, the chat's last lines with it). */
  resume(v) {
    if (v === undefined) this.clearChat();
    this.resumeId = this.conn.send({ type: 'resume', game: this.id, token: this.seat.token, v });
  }

  /** `watch`, after version `v` (none: afresh), under this browser's name (the chat's). */
  watch(v, name = loadName()) {
    if (v === undefined) this.clearChat();
    this.watching = { id: this.conn.send({ type: 'watch', game: this.id, v, name: name ?? undefined }), v };
    if (this.watching.id !== null) this.watchName = name;
  }

  clearChat() {
    this.chat.lines = [];
    this.chat.keys.clear();
    this.chat.epoch += 1;
  }

  /** Keeps a `chat` message's line, unless it was seen already. */
  addChat(msg) {
    const line = chatLine(msg);
    if (!line || this.chat.keys.has(line.key)) return false;
    const chat = this.chat;
    chat.keys.add(line.key);
    chat.lines.push(line);
    if (chat.lines.length > CHAT_KEPT) {
      for (const old of chat.lines.splice(0, chat.lines.length - CHAT_KEPT)) chat.keys.delete(old.key);
      chat.epoch += 1;
    }
    return true;
  }

  /** The chat rooms this page reads and may write in (none before the first `state`). */
  chatRooms() {
    if (!this.game || this.archived) return [];
    return chatRooms(Boolean(this.seat), this.game.status === 'ended');
  }

  handle(msg) {
    if (msg.game !== undefined && msg.game !== this.id) return;
    if (msg.type === 'chat') {
      if (!this.addChat(msg)) return;
    } else if (msg.type === 'ack') {
      if (msg.id === undefined || msg.id !== this.chatSent?.id) return;
      this.chatSent = null;
      return;
    } else if (msg.type === 'joined') {
      if (typeof msg.token !== 'string' || (msg.color !== 'white' && msg.color !== 'black')) return;
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
      // The events that answer an offer (or move past it): what stands is the server's word now.
      if (ANSWERS_OFFERS.has(msg.type)) this.offerSent = null;
    }
    this.redraw();
  }

  /** What the page itself keeps track of once the follower applied `msg`. */
  applied(msg) {
    const now = performance.now();
    switch (msg.type) {
      case 'state':
        this.pending = null;
        this.tentative = null;
        // A fresh state (a takeback, a resync) changes the position under any premove.
        this.premoves.clear();
        this.claimSent = false;
        this.berserkSent = false;
        this.clockAt = now;
        this.claimAt = now;
        if (this.review !== null && this.review > this.game.moves.length) this.review = null;
        break;
      case 'move':
        if (msg.clock) this.clockAt = now;
        if (this.pending === msg.uci) this.pending = null;
        // The position changed under it (our move, submitted from another tab).
        this.tentative = null;
        this.playPremove();
        break;
      case 'end':
        if (msg.clock) this.clockAt = now;
        this.pending = null;
        this.tentative = null;
        this.premoves.clear();
        // Players read the spectators' room once the game is over: the server sends them its
        // lines so far right after the end (new ones arrive by themselves).
        break;
      case 'declined':
        if (this.seat?.color === msg.by) this.notice = `Your ${OFFER_NAMES[msg.kind] || 'offer'} was declined.`;
        break;
      case 'rematch':
        this.moveTo(msg.next);
        break;
      case 'berserk':
        // The clock as of the event (the first-move count-down with it).
        if (msg.clock) this.clockAt = now;
        if (this.seat?.color === msg.color) this.berserkSent = false;
        break;
      case 'seats':
        this.claimAt = now;
        this.claimSent = false;
        break;
      default:
        break;
    }
    this.live.applied(msg);
  }

  error(msg) {
    if (msg.code === 'no_such_game') {
      // Gone from the server's memory: a finished game is still in its archive.
      this.loadArchive();
      return;
    }
    if (msg.code === 'not_a_player' && msg.id !== undefined && msg.id === this.resumeId) {
      // The server does not know our token (the game was restarted or the token is stale): the
      // account's seat, if logged in, else watch.
      forgetSeat(this.id);
      this.seat = null;
      this.subscribeAfresh();
      return;
    }
    if (msg.id !== undefined && msg.id === this.accountResumeId) {
      // The account holds no seat here (`not_a_player`), or the server does not see the login
      // any more: watch. A refusal to say so would only get in the way.
      this.accountResumeId = null;
      this.noAccountSeat = true;
      this.watch();
      if (msg.code === 'not_a_player' || msg.code === 'bad_request') return;
    }
    if (msg.id !== undefined && msg.id === this.watching?.id && this.watchName && isNameRefusal(msg)) {
      // A name the server does not take must not keep anyone from watching: watch without it.
      this.watch(this.watching.v, null);
      return;
    }
    this.pending = null;
    this.claimSent = false;
    this.offerSent = null;
    this.berserkSent = false;
    this.notice = msg.message || msg.code;
    if (msg.id !== undefined && msg.id === this.chatSent?.id) {
      // The line was refused: it goes back in the box, to be fixed or sent again.
      this.chatRestore = this.chatSent.text;
      this.chatSent = null;
    }
    if (msg.id !== undefined && msg.id === this.joining?.id && isNameRefusal(msg)) this.onNameRefused(msg.message, this.joining.color);
  }

  /** Subscribes again from scratch (no version: a `state` comes). */
  subscribeAfresh() {
    if (this.game) this.game.awaiting = true;
    this.subscribe();
  }

  /**
   * Shows the game from the archive (`GET /api/games/{id}`, the same `state` as the protocol's):
   * finished, with its moves to step through. The connection is no longer needed. A game the
   * archive does not know either is missing.
   */
  async loadArchive() {
    if (this.archiveLoading || this.archived) return;
    this.archiveLoading = true;
    const answer = await getJson(`/api/games/${encodeURIComponent(this.id)}`);
    this.archiveLoading = false;
    const state = answer.data;
    if (answer.status === 200 && state && Array.isArray(state.moves) && typeof state.initial_fen === 'string') {
      this.archived = true;
      this.missing = false;
      this.stopConnection();
      this.game = modelFromState({ ...state, type: 'state', game: this.id, legal: [], watchers: 0 });
      this.pending = null;
      this.review = null;
      this.notice = '';
    } else if (answer.status === 404) {
      this.missing = true;
      this.stopConnection();
    } else {
      // Known but unreadable (a damaged game, or the server failed): its words say which.
      this.missing = true;
      this.unreadable = errorText(answer);
    }
    this.redraw();
  }

  /** Closes the connection for good (nothing on the server to follow any more). */
  stopConnection() {
    this.conn.stop?.();
    setConnectionBadge(true);
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

  /** Whether this is a correspondence game (days per move): moves are confirmed, never premoved. */
  get correspondence() {
    return isCorrespondence(this.game?.clock);
  }

  /**
   * Plays `uci`; `premove`: it was set up during the opponent's turn (the server is told so).
   * In correspondence the move only becomes tentative, to be submitted or cancelled.
   */
  play(uci, { premove = false } = {}) {
    if (!this.game || !this.myTurn() || this.tentative) return;
    this.notice = '';
    this.review = null;
    if (this.correspondence && !premove) {
      const g = this.game;
      this.tentative = { uci, san: sanOf(uci, g.boards[g.boards.length - 1], g.legal) };
      this.redraw();
      return;
    }
    if (this.send({ type: 'move', uci, ...(premove ? { premove: true } : {}) }) !== null) this.pending = uci;
    this.redraw();
  }

  /** Sends the tentative move of a correspondence game. */
  submitMove() {
    const move = this.tentative;
    if (!move || !this.myTurn() || this.pending) return;
    this.notice = '';
    if (this.send({ type: 'move', uci: move.uci }) !== null) {
      this.pending = move.uci;
      this.tentative = null;
    }
    this.redraw();
  }

  /** Takes the tentative move of a correspondence game back off the board. */
  cancelMove() {
    if (!this.tentative) return;
    this.tentative = null;
    this.redraw();
  }

  /** Sets up the premove `uci` (see premoves.js); none in correspondence. */
  premove(uci) {
    if (this.correspondence) return;
    this.premoves.add(uci);
    this.redraw();
  }

  cancelPremoves() {
    if (this.premoves.clear()) this.redraw();
  }

  setPremoveQueue(on) {
    this.premoves.setQueueing(on);
    this.redraw();
  }

  /** Now that it may be our turn: the next premove goes at once if it is legal, else they all go. */
  playPremove() {
    if (!this.premoves.queue.length || !this.myTurn() || this.pending || this.correspondence) return;
    const uci = this.premoves.take(this.game.legal);
    if (uci) this.play(uci, { premove: true });
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
    if (this.tentative) return { error: 'Submit or cancel the move you made first.' };
    return resolveMove(text, g.boards[g.boards.length - 1], g.legal);
  }

  /** Takes the open seat `color` (null: the first open one) under the display name `name`. */
  join(color, name) {
    this.notice = '';
    const id = this.send({ type: 'join', color, name });
    this.joining = id === null ? null : { id, color };
    this.redraw();
  }

  /**
   * Sends `text` to the chat room `room`; a spectator's line goes under `name` (the view asks
   * for one). False, with the reason in the notice, when the line cannot be sent.
   */
  sendChat(room, text, name = null) {
    const checked = checkChat(text);
    if (checked.error) {
      this.notice = checked.error;
      this.redraw();
      return false;
    }
    if (!this.chatRooms().includes(room)) return false;
    this.notice = '';
    // The server knows a spectator's name from `watch`: a new one goes with a `watch` first.
    if (!this.seat && name && name !== this.watchName) this.watch(this.game.awaiting ? undefined : this.game.v, name);
    const id = this.send({ type: 'chat', room, text: checked.text });
    if (id !== null) this.chatSent = { id, text: checked.text };
    this.redraw();
    return id !== null;
  }

  /** Offers a rematch, or accepts the opponent's offer. */
  rematch() {
    this.notice = '';
    this.send({ type: 'rematch' });
    this.redraw();
  }

  /**
   * Goes to game `next`, the rematch of this one: with our seat, whose token holds the new
   * game's seat of the other colour, or as a spectator.
   */
  moveTo(next) {
    if (!next || this.moving) return;
    this.moving = next;
    if (this.seat) saveSeat(next, { token: this.seat.token, color: otherColor(this.seat.color) });
    this.navigate(`/g/${encodeURIComponent(next)}`);
  }

  /**
   * The draw or takeback button (`kind` 'draw' or 'undo'): offers it, accepts the opponent's
   * offer of it, or withdraws our own pending one. Once per answer: a second click before the
   * server answered would only be refused.
   */
  offer(kind) {
    if (this.offerSent || !this.seat) return;
    this.notice = '';
    const offer = this.game?.offer;
    const mine = offer?.kind === kind && offer.by === this.seat.color;
    if (this.send({ type: mine ? 'withdraw' : kind }) !== null) this.offerSent = kind;
    this.redraw();
  }

  /** Withdraws our own pending offer (a rematch after the end, a draw or takeback during it). */
  withdraw() {
    if (this.offerSent) return;
    this.notice = '';
    if (this.send({ type: 'withdraw' }) !== null) this.offerSent = this.game?.offer?.kind ?? 'offer';
    this.redraw();
  }

  /** Berserks (an arena game, before our first move): half our time for a point more if we win. Once per answer. */
  berserk() {
    if (this.berserkSent || !canBerserk(this.game, this.seat)) return;
    this.notice = '';
    if (this.send({ type: 'berserk' }) !== null) this.berserkSent = true;
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
