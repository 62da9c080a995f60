// Challenges by name, as rules the pages follow (lichess's `/api/challenge/…` objects): the
// time controls the form offers and the request it sends, how a challenge reads ("5+3 Blitz ·
// Rated · Standard"), which decline reasons fit it, the waiting challenges to and from this
// player as the event stream changes them, and which `gameStart` a waiting page should follow.
// Pure, so Node's test runner checks it (tests/js/challenges.test.mjs).

import { DAYS_CHOICES, daysOfChoice } from './corres.js';

/**
 * The time controls the challenge form offers: [value, label, limit seconds, increment
 * seconds] for a clock, [value, label] for correspondence (`d3`: days per move) and untimed.
 */
export const TIME_CONTROLS = [
  ['1+0', '1+0 Bullet', 60, 0],
  ['3+2', '3+2 Blitz', 180, 2],
  ['5+3', '5+3 Blitz', 300, 3],
  ['10+0', '10+0 Rapid', 600, 0],
  ['15+10', '15+10 Rapid', 900, 10],
  ...DAYS_CHOICES,
  ['untimed', 'Untimed'],
];

/** What kind of time control a TIME_CONTROLS value is: 'clock', 'days' or 'untimed'. */
export function timeControlKind(time) {
  if (daysOfChoice(time) !== null) return 'days';
  return isTimed(time) ? 'clock' : 'untimed';
}

/** The time control the form starts on. */
export const DEFAULT_TIME = '5+3';

/** The variants, by lichess key, as people read them. */
export const VARIANTS = { standard: 'Standard', chess960: 'Chess960', minichess7: 'Minichess 7×7' };

/**
 * lichess's decline reasons, by key: a short label for the select, and the words the challenger
 * reads (the server sends its own `declineReason`; these stand in when it does not).
 */
export const DECLINE_REASONS = {
  generic: ['Not now', "I'm not accepting challenges at the moment."],
  later: ['Later', 'This is not the right time for me, please ask again later.'],
  tooFast: ['Too fast', 'This time control is too fast for me, please challenge again with a slower game.'],
  tooSlow: ['Too slow', 'This time control is too slow for me, please challenge again with a faster game.'],
  timeControl: ['Not this time control', "I'm not accepting challenges with this time control."],
  rated: ['Rated only', 'Please send me a rated challenge instead.'],
  casual: ['Casual only', 'Please send me a casual challenge instead.'],
  standard: ['Standard chess only', "I'm not accepting variant challenges right now."],
  variant: ['Not this variant', "I'm not willing to play this variant right now."],
  noBot: ['No bots', "I'm not accepting challenges from bots."],
  onlyBot: ['Bots only', "I'm only accepting challenges from bots."],
};

/**
 * The body of `POST /api/challenge/{name}` for the form's choices: `time` (a TIME_CONTROLS
 * value), `variant`, `color` (white, black or random) and `rated` — a clock as `clock`, days
 * per move as `days`; never rated untimed, which the server refuses.
 */
export function challengeRequest({ time, variant, color, rated }) {
  const preset = TIME_CONTROLS.find(([value]) => value === time);
  const body = {
    variant: VARIANTS[variant] ? variant : 'standard',
    color: ['white', 'black'].includes(color) ? color : 'random',
    rated: false,
  };
  const days = daysOfChoice(time);
  if (preset && preset.length === 4) body.clock = { limit: preset[2], increment: preset[3] };
  else if (days !== null) body.days = days;
  body.rated = Boolean(rated) && mayBeRated(time);
  return body;
}

/** Whether a TIME_CONTROLS value has a clock. */
export function isTimed(time) {
  return TIME_CONTROLS.some(([value, , limit]) => value === time && limit !== undefined);
}

/** Whether a game on a TIME_CONTROLS value may be rated: on a clock or by days, never untimed. */
export function mayBeRated(time) {
  return isTimed(time) || daysOfChoice(time) !== null;
}

/** A challenge's `timeControl` as people read it: "5+3", "½+0", "Untimed", "3 days"; "?" for none. */
export function describeTimeControl(tc) {
  if (!tc || typeof tc !== 'object') return '?';
  if (tc.type === 'unlimited') return 'Untimed';
  if (tc.type === 'correspondence') return Number.isInteger(tc.daysPerTurn) ? `${tc.daysPerTurn} ${tc.daysPerTurn === 1 ? 'day' : 'days'}` : 'Correspondence';
  if (tc.type !== 'clock') return '?';
  if (Number.isFinite(tc.limit) && Number.isFinite(tc.increment)) {
    const minutes = tc.limit / 60;
    const shown = { 0.25: '¼', 0.5: '½', 0.75: '¾' }[minutes] ?? (Number.isInteger(minutes) ? String(minutes) : String(Math.round(minutes * 100) / 100));
    return `${shown}+${tc.increment}`;
  }
  return typeof tc.show === 'string' && tc.show ? tc.show : '?';
}

/** The variant a challenge names, as people read it. */
export function variantName(c) {
  const key = c?.variant?.key;
  return VARIANTS[key] || (typeof c?.variant?.name === 'string' && c.variant.name) || 'Standard';
}

/**
 * A challenge's terms in one line: "5+3 Blitz · Rated · Standard", "Untimed · Casual · Minichess 7×7".
 * A variant's rating category is the variant itself (its name is said already): no speed then.
 */
export function challengeTerms(c) {
  const tc = describeTimeControl(c?.timeControl);
  const variant = c?.variant?.key;
  const perf = c?.timeControl?.type === 'clock' && variant !== 'minichess7' && variant !== 'chess960' && typeof c?.perf?.name === 'string' ? c.perf.name : '';
  return [perf ? `${tc} ${perf}` : tc, c?.rated ? 'Rated' : 'Casual', variantName(c)].join(' · ');
}

/** The side the challenged player would play, as they read it: "You play Black", or "Random side". */
export function sideForChallenged(c) {
  if (c?.color === 'white') return 'You play Black';
  if (c?.color === 'black') return 'You play White';
  return 'Random side';
}

/**
 * The decline reasons that fit challenge `c`, most general first: always generic and later;
 * the time control's (too fast too for a clock or days per move); rated or casual for the other mode; standard and variant for a variant;
 * noBot to a bot's challenge; onlyBot only when the one declining is a bot (`meBot`).
 */
export function declineReasonsFor(c, meBot = false) {
  const keys = ['generic', 'later'];
  const type = c?.timeControl?.type;
  // Days per move may be too few as a clock may be too fast; only untimed cannot be faster.
  const paced = type === 'clock' || type === 'correspondence';
  keys.push(...(paced ? ['tooFast', 'tooSlow', 'timeControl'] : ['tooSlow', 'timeControl']));
  if (c?.rated) keys.push('casual');
  else if (paced) keys.push('rated');
  if (c?.variant?.key && c.variant.key !== 'standard') keys.push('standard', 'variant');
  if (c?.challenger?.title === 'BOT') keys.push('noBot');
  else if (meBot) keys.push('onlyBot');
  return keys;
}

/** What the challenger reads of a declined challenge: the server's words, else ours for its key. */
export function declineText(c) {
  if (typeof c?.declineReason === 'string' && c.declineReason.trim()) return c.declineReason;
  return (DECLINE_REASONS[c?.declineReasonKey] || DECLINE_REASONS.generic)[1];
}

/** A challenge user's name ("?" when it has none). */
export function partyName(user) {
  return typeof user?.name === 'string' && user.name ? user.name : '?';
}

function same(a, b) {
  return typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
}

/** Whether challenge `c` is to `me` (a username). */
export function isIncoming(c, me) {
  return same(c?.destUser?.name, me) || same(c?.destUser?.id, me);
}

/** Whether challenge `c` is from `me`. */
export function isOutgoing(c, me) {
  return same(c?.challenger?.name, me) || same(c?.challenger?.id, me);
}

/** The other player of challenge `c`, for `me`. */
export function opponentOf(c, me) {
  return partyName(isOutgoing(c, me) ? c?.destUser : c?.challenger);
}

/**
 * The challenges waiting to and from one player, as the event stream changes them. Those
 * answered or withdrawn stay gone, even when a list fetched before that says otherwise.
 */
export class ChallengeList {
  constructor(me) {
    this.me = me;
    this.incoming = new Map();
    this.outgoing = new Map();
    this.gone = new Set();
  }

  /** Keeps challenge `c` if it is waiting, to or from this player; true when it is new here. */
  add(c) {
    if (!c || typeof c.id !== 'string' || this.gone.has(c.id)) return false;
    if (c.status && c.status !== 'created') return false;
    const list = isIncoming(c, this.me) ? this.incoming : isOutgoing(c, this.me) ? this.outgoing : null;
    if (!list) return false;
    const fresh = !list.has(c.id);
    list.set(c.id, c);
    return fresh;
  }

  /** Forgets challenge `id` for good (accepted, declined, withdrawn). */
  remove(id) {
    this.gone.add(id);
    const wasIn = this.incoming.delete(id);
    const wasOut = this.outgoing.delete(id);
    return wasIn || wasOut;
  }

  /** Replaces the lists with `GET /api/challenge`'s answer (`{in, out}`). */
  load(data) {
    this.incoming.clear();
    this.outgoing.clear();
    for (const c of [...(Array.isArray(data?.in) ? data.in : []), ...(Array.isArray(data?.out) ? data.out : [])]) this.add(c);
  }

  /**
   * Applies an event of the stream: `{arrived: c}` for a challenge to this player not seen
   * before, `{changed: true}` when the lists changed otherwise, else `{}`.
   */
  apply(event) {
    const c = event?.challenge;
    switch (event?.type) {
      case 'challenge': {
        const fresh = this.add(c);
        if (fresh && this.incoming.has(c.id)) return { arrived: c };
        return fresh ? { changed: true } : {};
      }
      case 'challengeDeclined':
      case 'challengeCanceled':
        return typeof c?.id === 'string' && this.remove(c.id) ? { changed: true } : {};
      default:
        return {};
    }
  }

  /** The challenges waiting to this player, oldest first. */
  get waitingIn() {
    return [...this.incoming.values()];
  }

  /** The challenges this player sent that wait for an answer. */
  get waitingOut() {
    return [...this.outgoing.values()];
  }
}

/**
 * Whether a page waiting for a game against one of `expected` (lower-cased usernames) should
 * open `game` (a `gameStart`'s game): a game this page has not heard of yet (`seen`: ids), against
 * one of them, that this player has not moved in — not one of the games already in progress,
 * which the stream repeats each time it opens.
 */
export function shouldOpenGame(game, expected, seen) {
  if (!game || typeof game.id !== 'string' || !game.id || seen.has(game.id)) return false;
  if (game.hasMoved === true) return false;
  const name = game.opponent?.username;
  return typeof name === 'string' && expected.has(name.toLowerCase());
}
