// gambit TV's controller: which game the channel features, following it as a spectator, and the
// games list for the other games. It draws nothing: the view (view.js) sets `redraw` and reads
// the controller to draw.
//
// The server says which game a channel features (`tv`), at once and again whenever it changes;
// the page then follows that game with the ordinary `watch` (and `unwatch`s the one before),
// applying its events through the game follower (follow.js) as the game page does. Until the
// new game's `state` arrives the old one stays shown — after an end, with its result — so the
// board never goes blank between games. The `list` subscription brings the games list, from
// which the other games beside the board are chosen (channels.js).
//
// A connection that drops loses every subscription: on the next one the page asks for the
// channel and the list again, and the `tv` answer resumes the featured game from the version
// last seen (a different game there means it changed meanwhile).

import { Connection } from '../connection.js';
import { APPLIED, follow, RESYNC } from '../follow.js';

export class TvCtrl {
  /**
   * `channel`: 'best' or 'bot'. `connect(handlers)` makes the connection (connection.js's
   * `Connection` unless a test gives another).
   */
  constructor(channel, { connect = (handlers) => new Connection(handlers) } = {}) {
    this.channel = channel;
    // The game the channel features: undefined until the server said, null for none.
    this.featured = undefined;
    this.game = null; // the follower's model of the game shown, or null
    this.subscribed = null; // the game this connection watches (the featured one, once asked)
    this.watchId = null; // the id of the last `watch` sent
    this.tvId = null; // the id of the last `tv` sent
    this.unwatching = new Set(); // ids of `unwatch`es sent, whose refusals are nobody's business
    this.games = null; // the games list as the server last sent it (null before the first)
    this.notice = ''; // what went wrong last, for the page to say
    this.unsupported = false; // the server refused `tv` itself: it has no TV
    // What the game views read, as they read a game page's controller: nobody is seated here,
    // and White is at the bottom.
    this.seat = null;
    this.orientation = 'white';
    this.clockAt = 0; // when the shown game's clock arrived (performance.now())
    this.connected = false;
    this.redraw = () => {};
    this.conn = connect({
      onOpen: () => this.subscribe(),
      onMessage: (msg) => this.handle(msg),
      onStatus: (up) => {
        this.connected = up;
        // The server forgets a closed connection's subscriptions.
        if (!up) this.subscribed = null;
        this.onStatus?.(up);
        this.redraw();
      },
    });
  }

  start() {
    this.conn.start();
  }

  /** On a (re)opened connection: the channel and the games list. */
  subscribe() {
    this.subscribed = null;
    this.unwatching.clear();
    this.tvId = this.conn.send({ type: 'tv', channel: this.channel });
    this.conn.send({ type: 'list' });
  }

  /** Switches to `channel` ('best' or 'bot'): the server replaces the subscription. */
  setChannel(channel) {
    if (channel === this.channel) return;
    this.channel = channel;
    this.featured = undefined;
    this.unsupported = false;
    this.notice = '';
    this.unwatch();
    this.game = null;
    this.tvId = this.conn.send({ type: 'tv', channel });
    this.redraw();
  }

  handle(msg) {
    switch (msg.type) {
      case 'tv':
        if (msg.channel !== this.channel) return; // the answer to a channel left since
        this.feature(typeof msg.game === 'string' && msg.game ? msg.game : null);
        break;
      case 'games':
        this.games = Array.isArray(msg.games) ? msg.games : [];
        break;
      case 'error':
        if (!this.error(msg)) return;
        break;
      default:
        if (!this.followed(msg)) return;
    }
    this.redraw();
  }

  /** The channel features game `id` (null: none): follow it, and leave the one before. */
  feature(id) {
    this.featured = id;
    this.notice = '';
    if (id !== null && id === this.subscribed) return;
    this.unwatch();
    if (id === null) {
      this.game = null;
      return;
    }
    // The game shown already (after a reconnect): only what was missed; else a `state`.
    const g = this.game;
    const v = g && g.game === id && !g.awaiting ? g.v : undefined;
    this.watch(id, v);
  }

  watch(id, v) {
    this.subscribed = id;
    this.watchId = this.conn.send({ type: 'watch', game: id, v });
  }

  /** Stops following the game this connection watches, if any. */
  unwatch() {
    const id = this.subscribed;
    this.subscribed = null;
    if (id === null) return;
    const sent = this.conn.send({ type: 'unwatch', game: id });
    if (sent !== null) this.unwatching.add(sent);
  }

  /**
   * A message of a game: applied when it is the featured game's (the game follower keeps the
   * versions in step). True when the page changed.
   */
  followed(msg) {
    if (msg.game === undefined || msg.game !== this.subscribed) return false;
    const current = this.game?.game === msg.game ? this.game : null;
    const { model, outcome } = follow(current, msg);
    if (outcome === RESYNC) {
      this.watch(msg.game);
      return false;
    }
    if (outcome !== APPLIED) return false;
    this.game = model;
    if (msg.type === 'state' || ((msg.type === 'move' || msg.type === 'end' || msg.type === 'berserk') && msg.clock)) this.clockAt = performance.now();
    return true;
  }

  /** An `error`: true when the page has something to say about it. */
  error(msg) {
    if (msg.id !== undefined && this.unwatching.delete(msg.id)) return false;
    if (msg.id !== undefined && msg.id === this.tvId) {
      // An older server: no such request.
      this.unsupported = true;
      this.featured = null;
      this.notice = `This server has no TV: ${msg.message || msg.code}`;
      return true;
    }
    if (msg.id !== undefined && msg.id === this.watchId && msg.code === 'no_such_game') {
      // Gone from the server already: the channel will name the next one.
      this.subscribed = null;
      return false;
    }
    this.notice = msg.message || msg.code || 'Something went wrong.';
    return true;
  }
}
