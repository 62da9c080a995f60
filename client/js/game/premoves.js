// The game page's premoves: moves a player sets up during the opponent's turn, played the
// moment the opponent's move makes it their turn (sent with `premove: true`), if legal then —
// otherwise dropped without a word. By default there is one, and a new premove replaces it, as
// on lichess. With the queue on (a setting remembered in localStorage) premoves chain: each is
// made in the position as if those before it were played, and they are played one a turn while
// they stay legal; the first that is not cancels the rest.
//
// Pure but for the storage of the setting, so Node's test runner checks it (tests/js/).

import { castlingRights, positionAfter, premoves } from '../premove.js';

const QUEUE_KEY = 'gambit:premove-queue';

function storage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage may be refused outright (privacy settings)
  }
}

export class Premoves {
  constructor() {
    this.queue = []; // UCI moves, the next to play first
    let stored = null;
    try {
      stored = storage()?.getItem(QUEUE_KEY);
    } catch { /* unavailable: the default */ }
    this.queueing = stored === '1';
  }

  /** Turns the queue on or off (and remembers it); off keeps only the first premove. */
  setQueueing(on) {
    this.queueing = Boolean(on);
    if (!this.queueing) this.queue = this.queue.slice(0, 1);
    try {
      storage()?.setItem(QUEUE_KEY, this.queueing ? '1' : '0');
    } catch { /* unavailable: for this page only */ }
  }

  /** Sets up `uci`: after the others with the queue on, else instead of any other. */
  add(uci) {
    this.queue = this.queueing ? [...this.queue, uci] : [uci];
  }

  /** Drops every premove; true if there was any. */
  clear() {
    const had = this.queue.length > 0;
    this.queue = [];
    return had;
  }

  /**
   * The premove to play now that it is our turn with the server's `legal` moves, taken off the
   * queue; null when there is none, or when it is not legal — then the whole queue goes.
   */
  take(legal) {
    const next = this.queue[0];
    if (!next) return null;
    if (!legal.includes(next)) {
      this.queue = [];
      return null;
    }
    this.queue = this.queue.slice(1);
    return next;
  }

  /**
   * What the board shows while `color` may premove, from `shown` (the placement on the board:
   * the live one with our unconfirmed move played) of game model `g`, with `pending` our move
   * sent and not yet confirmed (or null): `{placement, premoves, premoveLegal}`. With the queue
   * on, the premoves are played on the board, so the next one starts where the pieces will be.
   */
  boardState(g, color, shown, pending) {
    const position = {
      board: shown, size: g.size, variant: g.variant,
      // Our unconfirmed move may have ended a castling right.
      castling: castlingRights(g.fen),
    };
    if (pending) position.castling = positionAfter({ ...position, board: g.boards[g.boards.length - 1] }, [pending]).castling;
    const base = this.queueing ? positionAfter(position, this.queue) : position;
    return { placement: base.board, premoves: [...this.queue], premoveLegal: premoves(base, color) };
  }
}

/**
 * Whether the seated player of model `g` may premove now: the game is on, live (not reviewed),
 * and it is the opponent's turn or our move is on its way.
 */
export function canPremove(g, seat, { live, pending }) {
  if (!g || !seat || g.status !== 'ongoing' || !live) return false;
  return Boolean(pending) || g.turn !== seat.color;
}
