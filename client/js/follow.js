// The game follower: the one place that applies the server's messages to a game model. Pure —
// no DOM, no timers, no clock of its own — so the page and Node's test runner share it, and the
// cases in tests/data/protocol/follow.json check it against the Rust follower's rules.
//
// A `state` replaces the model whole. Each event must carry the next version `v`: an event
// already seen is ignored; anything else — a gap in versions, a move whose ply or placement
// does not fit — means the model may be out of step, so it waits (`awaiting`) for a fresh
// `state` instead of guessing, and ignores events until then.
//
// An arena game's clock may be `berserkable`: a side may halve its own time before its first
// move (lichess's berserk, a point more for a win). The `berserk` event says who did; a `state`
// does not, so it is inferred from the clock (`berserkedOf`).

import { applyUci, boardSize, parsePlacement, samePlacement } from './chess.js';
import { NO_MATCH } from './social.js';

/** What `apply` did with a message. */
export const APPLIED = 'applied';
export const IGNORED = 'ignored';
export const RESYNC = 'resync';

/** The model of a game built from a `state` message, with a placement for every ply. */
export function modelFromState(s) {
  const size = boardSize(s.variant);
  const boards = [parsePlacement(s.initial_fen, size) || new Map()];
  for (const uci of s.moves) boards.push(applyUci(boards[boards.length - 1], uci, s.variant));
  // The live position is the server's FEN, whatever the replay says.
  const live = parsePlacement(s.fen, size);
  if (live && !samePlacement(live, boards[boards.length - 1])) boards[boards.length - 1] = live;
  return {
    game: s.game, v: s.v, variant: s.variant, size, initialFen: s.initial_fen, fen: s.fen,
    moves: [...s.moves], san: [...s.san], boards,
    turn: s.turn, status: s.status, result: s.result ?? null, reason: s.reason ?? null, seats: s.seats,
    legal: [...s.legal], check: s.check, offer: s.offer || null, watchers: s.watchers || 0,
    clock: s.clock || null, claim: s.claim || null,
    // The running score of the match of rematches this game is part of, and the rematch once made.
    match: s.match || { ...NO_MATCH }, next: s.next ?? null,
    // Whether the game counts for ratings, and once a rated game is over, each side's new
    // rating and its change: `{white: {rating, change, provisional}, black: …}`.
    rated: Boolean(s.rated), ratings: s.ratings || null,
    // The longest named opening the moves reached: `{eco, name}`, or null.
    opening: s.opening || null,
    // Who berserked (an arena game): `{white, black}`, true for a side that halved its time.
    berserk: berserkedOf(s.clock, s.moves.length),
    // True after a gap or a doubtful event: only a fresh `state` is applied until then.
    awaiting: false,
  };
}

/**
 * Applies `msg` to `model` in place and says what it did: 'applied', 'ignored', or 'resync'
 * (the model is out of step and now awaits a fresh `state`). A `state` is 'applied' but
 * replaces the model, which is the caller's to do (see `follow`); `model` may be null before
 * the first `state`.
 */
export function apply(model, msg) {
  if (model && msg.game !== undefined && msg.game !== model.game) return IGNORED;
  switch (msg.type) {
    case 'state':
      return APPLIED;
    case 'move': case 'end': case 'offer': case 'declined': case 'seats': case 'rematch': case 'berserk':
      return event(model, msg);
    case 'watchers':
      if (!model) return IGNORED;
      model.watchers = msg.count;
      return APPLIED;
    default:
      return IGNORED;
  }
}

/** Whether `color` has made its first move after `plies` moves: White's is ply 1, Black's ply 2 (as the server counts). */
export function hasMoved(color, plies) {
  return plies > (color === 'white' ? 0 : 1);
}

/**
 * Who berserked, as far as a clock view `clock` after `plies` moves tells: `{white, black}`. No
 * time runs before both sides have moved (and no increment is added), so until then a side
 * whose time is below the initial time has halved it. Later nothing tells: false.
 */
export function berserkedOf(clock, plies) {
  const halved = (ms) => Boolean(clock?.berserkable) && plies < 2 && typeof ms === 'number' && ms < clock.initial_ms;
  return { white: halved(clock?.white_ms), black: halved(clock?.black_ms) };
}

/** `apply`, with the model a `state` makes: `{model, outcome}`. */
export function follow(model, msg) {
  const outcome = apply(model, msg);
  if (msg.type === 'state' && outcome === APPLIED) return { model: modelFromState(msg), outcome };
  return { model, outcome };
}

/** Applies one versioned event, or marks the model as awaiting a `state` when it does not follow on. */
function event(g, msg) {
  if (!g || g.awaiting) return IGNORED; // a fresh state is on its way
  if (msg.v <= g.v) return IGNORED; // already seen (a replay overlapping what we had)
  if (msg.v !== g.v + 1) return resync(g);
  switch (msg.type) {
    case 'move': {
      const placement = parsePlacement(msg.fen, g.size);
      if (msg.ply !== g.moves.length + 1 || !placement) return resync(g);
      g.moves.push(msg.uci);
      g.san.push(msg.san);
      g.boards.push(placement);
      Object.assign(g, { fen: msg.fen, turn: msg.turn, legal: msg.legal, check: msg.check, offer: null });
      g.opening = msg.opening || null;
      if (msg.clock) g.clock = msg.clock;
      if (g.status === 'waiting') g.status = 'ongoing';
      break;
    }
    case 'end':
      Object.assign(g, { status: 'ended', result: msg.result, reason: msg.reason, legal: [], offer: null, claim: null });
      if (msg.clock) g.clock = msg.clock;
      // The match's score with this game counted.
      g.match = msg.match || { ...NO_MATCH };
      g.ratings = msg.ratings || null;
      break;
    case 'offer':
      g.offer = { kind: msg.kind, by: msg.by };
      break;
    case 'declined':
      g.offer = null;
      break;
    case 'rematch':
      Object.assign(g, { next: msg.next, offer: null });
      break;
    case 'berserk':
      // The clock with that side's time halved.
      if (msg.clock) g.clock = msg.clock;
      if (msg.color === 'white' || msg.color === 'black') g.berserk = { ...g.berserk, [msg.color]: true };
      break;
    case 'seats':
      Object.assign(g, { seats: msg.seats, claim: msg.claim || null });
      if (g.status === 'waiting' && g.seats.white.kind !== 'open' && g.seats.black.kind !== 'open') g.status = 'ongoing';
      break;
    default:
      break;
  }
  g.v = msg.v;
  return APPLIED;
}

function resync(g) {
  g.awaiting = true;
  return RESYNC;
}
