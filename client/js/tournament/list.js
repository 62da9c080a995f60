// The tournaments as lists (the page `/tournaments` and the lobby's box), as rules: the answers
// of `GET /api/tournament` (arenas) and `GET /api/roundrobin` (round robins), each
// `{created, started, finished}`, read and put in the order people look for them (the running
// ones ending soonest, the coming ones starting soonest, the finished ones newest first), how
// each item reads and links to its page, and the create forms' choices and the fields they
// send. Pure (no DOM), so Node's test runner checks it (tests/js/tournament.test.mjs).

import { formatDeadline } from '../corres.js';
import { challengeRequest, mayBeRated, TIME_CONTROLS, VARIANTS } from '../challenges.js';
import { escapeHtml } from '../ui.js';
import { aboutTime, playersText } from './common.js';
import { arenaCountdown, arenaTerms, parseArena } from './arenaRules.js';
import { parseRoundRobin, roundRobinTerms, statusLine, winners } from './roundRobinRules.js';

export const STAGES = ['started', 'created', 'finished'];

/**
 * A list answer read with `parse` (parseArena or parseRoundRobin): `{created, started,
 * finished}`, each an array of models in the order the lists show them; null when the answer
 * is not such a list.
 */
export function parseList(data, parse) {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return null;
  const out = {};
  for (const stage of STAGES) out[stage] = (Array.isArray(data[stage]) ? data[stage] : []).map((item) => parse(item)).filter(Boolean);
  return out;
}

const at = (v, fallback) => (Number.isFinite(v) ? v : fallback);

/** The arenas of `GET /api/tournament`, ordered (see parseList); null for an answer that is none. */
export function parseArenaList(data) {
  const list = parseList(data, parseArena);
  if (!list) return null;
  const finishIn = (a) => at(a.secondsToFinish, at(a.finishesAt, Infinity) / 1000);
  const startIn = (a) => at(a.secondsToStart, at(a.startsAt, Infinity) / 1000);
  list.started.sort((a, b) => finishIn(a) - finishIn(b));
  list.created.sort((a, b) => startIn(a) - startIn(b));
  list.finished.sort((a, b) => at(b.finishesAt, 0) - at(a.finishesAt, 0));
  return list;
}

/** The round robins of `GET /api/roundrobin`, ordered: started and created newest first, finished newest first. */
export function parseRoundRobinList(data) {
  const list = parseList(data, parseRoundRobin);
  if (!list) return null;
  for (const stage of STAGES) list[stage].sort((a, b) => at(b.createdAt, 0) - at(a.createdAt, 0));
  return list;
}

/** The address of a tournament's page: `/tournament/{id}` for an arena, `/roundrobin/{id}` for a round robin. */
export function tournamentPath(kind, id) {
  return `${kind === 'roundrobin' ? '/roundrobin' : '/tournament'}/${encodeURIComponent(id)}`;
}

/**
 * When an arena plays, for a list: "Starts in 12 min", "Ends in 5 min", "Finished Tue 14:05".
 * `elapsedMs` since its answer came; `now` a Date.
 */
export function arenaWhen(a, elapsedMs = 0, now = new Date()) {
  if (a.isFinished) return a.finishesAt !== null ? `Finished ${formatDeadline(new Date(a.finishesAt), now)}` : 'Finished';
  const c = arenaCountdown(a, elapsedMs, now.getTime());
  if (c.seconds === null || c.seconds <= 0) return c.label;
  return `${c.phase === 'started' ? 'Ends' : 'Starts'} in ${aboutTime(c.seconds)}`;
}

/** How far a round robin is, for a list: "Waiting for players", "Round 2 of 5", "Won by Alice". */
export function roundRobinWhen(r) {
  if (r.status === 'created') return 'Waiting for players';
  if (r.status === 'started') return statusLine(r);
  const won = winners(r);
  return won.length ? `Won by ${won.join(', ')}` : 'Finished';
}

/** One item of a list: a link to the tournament's page with its name, terms, players and time. */
function itemHtml({ kind, id, name, terms, players, when, stage, mark = '' }) {
  const label = `${name}: ${terms}, ${players}, ${when}`;
  return `<li class="tournament-item status-${stage}" data-kind="${kind}" data-id="${escapeHtml(id)}">`
    + `<a class="tournament-row" href="${escapeHtml(tournamentPath(kind, id))}" aria-label="${escapeHtml(label)}">`
    + `<span class="t-name">${escapeHtml(name)}${mark}</span>`
    + `<span class="t-terms">${escapeHtml(terms)}</span>`
    + `<span class="t-players">${escapeHtml(players)}</span>`
    + `<span class="t-when">${escapeHtml(when)}</span></a></li>`;
}

const LOCK = ' <span class="t-private" title="Private: a password is needed to join">private</span>';

/** An arena of a list, as markup. */
export function arenaItemHtml(a, stage, elapsedMs = 0, now = new Date()) {
  return itemHtml({
    kind: 'arena', id: a.id, name: a.name, terms: arenaTerms(a), players: playersText(a.nbPlayers),
    when: arenaWhen(a, elapsedMs, now), stage, mark: a.private ? LOCK : '',
  });
}

/** A round robin of a list, as markup. */
export function roundRobinItemHtml(r, stage) {
  return itemHtml({
    kind: 'roundrobin', id: r.id, name: r.name, terms: `${roundRobinTerms(r)} · Round robin`, players: playersText(r.players.length),
    when: roundRobinWhen(r), stage, mark: r.private ? LOCK : '',
  });
}

/**
 * The lobby's box: the tournaments being played and about to be, arenas first within each, at
 * most `limit`, as `[{kind, model, stage}]`.
 */
export function currentTournaments(arenas, roundRobins, limit = 6) {
  const out = [];
  for (const stage of ['started', 'created']) {
    for (const a of arenas?.[stage] ?? []) out.push({ kind: 'arena', model: a, stage });
    for (const r of roundRobins?.[stage] ?? []) out.push({ kind: 'roundrobin', model: r, stage });
  }
  return out.slice(0, Math.max(0, limit));
}

/** An item of currentTournaments as markup. */
export function currentItemHtml(item, elapsedMs = 0, now = new Date()) {
  return item.kind === 'arena' ? arenaItemHtml(item.model, item.stage, elapsedMs, now) : roundRobinItemHtml(item.model, item.stage);
}

// The arena form's choices, as lichess offers them (minutes, seconds, minutes, minutes).

/** The clock's minutes (0: the increment alone). */
export const CLOCK_TIMES = [0, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 5, 6, 7, 8, 10, 15, 20, 25, 30, 40, 60];
/** The increments, in seconds. */
export const CLOCK_INCREMENTS = [0, 1, 2, 3, 4, 5, 6, 7, 10, 15, 20, 25, 30, 40, 50, 60];
/** How long the arena lasts, in minutes: lichess's 20..720, and 5 and 10 for a short club night. */
export const DURATIONS = [5, 10, 20, 25, 30, 35, 40, 45, 50, 55, 60, 70, 80, 90, 100, 110, 120, 150, 180, 210, 240, 270, 300, 360, 420, 480, 540, 600, 720];
/** Minutes until it starts. */
export const WAIT_MINUTES = [1, 2, 3, 5, 10, 15, 20, 30, 45, 60];

/** The form's first choices. */
export const ARENA_DEFAULTS = { clockTime: 3, clockIncrement: 2, minutes: 45, waitMinutes: 5, variant: 'standard' };

/** Minutes of a clock as people read them: "0", "¼", "½", "1½", "3". */
export function minutesName(m) {
  const whole = Math.floor(m);
  const part = { 0.25: '¼', 0.5: '½', 0.75: '¾' }[Math.round((m - whole) * 100) / 100] ?? '';
  return whole === 0 && part ? part : `${whole}${part}`;
}

/** A duration in minutes as people read it: "45 minutes", "2 hours", "2½ hours". */
export function durationName(m) {
  if (m < 60) return `${m} minutes`;
  const hours = m / 60;
  if (Number.isInteger(hours)) return `${hours} ${hours === 1 ? 'hour' : 'hours'}`;
  if (Number.isInteger(hours * 2)) return `${Math.floor(hours)}½ hours`;
  return `${Math.floor(hours)} h ${m % 60} min`;
}

/**
 * The fields of `POST /api/tournament` from the arena form's values: `name`, `clockTime`,
 * `clockIncrement`, `minutes`, `waitMinutes`, `variant`, `rated`, `berserkable`,
 * `streakable`, `conditions.bots`, and `password` when one is given. The name is trimmed;
 * an empty one is left out for the server to choose.
 */
export function arenaFields(v) {
  const fields = {
    name: String(v.name ?? '').trim(),
    clockTime: v.clockTime,
    clockIncrement: v.clockIncrement,
    minutes: v.minutes,
    waitMinutes: v.waitMinutes,
    variant: VARIANTS[v.variant] ? v.variant : 'standard',
    rated: Boolean(v.rated),
    berserkable: v.berserkable !== false,
    streakable: v.streakable !== false,
    'conditions.bots': Boolean(v.bots),
  };
  const password = String(v.password ?? '');
  if (password) fields.password = password;
  return fields;
}

/** The time controls of the round robin form (the challenge form's: clocks, days per move, untimed). */
export const ROUND_ROBIN_TIMES = TIME_CONTROLS;

/**
 * The fields of `POST /api/roundrobin` from the round robin form's values: `name`; a clock as
 * `clock.limit` and `clock.increment` (seconds) or `days` per move; `variant`, `rated` (never
 * for an untimed game, which the server refuses), and `password` when one is given.
 */
export function roundRobinFields(v) {
  const terms = challengeRequest({ time: v.time, variant: v.variant, color: 'random', rated: v.rated });
  const fields = { name: String(v.name ?? '').trim(), variant: terms.variant, rated: Boolean(v.rated) && mayBeRated(v.time) };
  if (terms.clock) {
    fields['clock.limit'] = terms.clock.limit;
    fields['clock.increment'] = terms.clock.increment;
  } else if (terms.days) {
    fields.days = terms.days;
  }
  const password = String(v.password ?? '');
  if (password) fields.password = password;
  return fields;
}

