// An arena tournament (lichess's: play as many games as the time allows, paired again as soon as
// a game ends) as rules its page follows: the server's `GET /api/tournament/{id}` read into a
// model that never lacks a field, the count-down to the start or the end, a player's score
// sheet as lichess draws it (oldest game on the left, the games played on fire marked), which
// button the viewer gets (Join, Withdraw, Pause), when to take a player to their next game, and
// the markup of the standings, the podium, the games in progress and the statistics. Pure (no
// DOM), so Node's test runner checks it (tests/js/tournament.test.mjs); every text from the
// server goes into the markup escaped.

import { playerPath } from '../account.js';
import { formatRating, modeName } from '../ratings.js';
import { escapeHtml } from '../ui.js';
import { arenaClockName, formatCountdown, playersText, sameName, secondsLeft, variantName } from './common.js';

/** The arena's status numbers (lichess's). */
export const STATUS = { created: 10, started: 20, finished: 30 };

const str = (v) => (typeof v === 'string' ? v : '');
const num = (v) => (Number.isFinite(v) ? v : null);
const time = (v) => {
  const ms = typeof v === 'string' ? Date.parse(v) : Number.isFinite(v) ? v : NaN;
  return Number.isFinite(ms) ? ms : null;
};

/** A player of the standings or of a game: `{name, rank, rating, provisional}`, or null without a name. */
function person(p, { name = 'name', rank = 'rank', rating = 'rating' } = {}) {
  const n = str(p?.[name]);
  if (!n) return null;
  return {
    name: n,
    rank: Number.isInteger(p[rank]) ? p[rank] : null,
    rating: num(p[rating]),
    provisional: p.provisional === true,
  };
}

/**
 * The arena JSON read into the page's model, or null when it is no arena (no `id`). Every field
 * is there, with a harmless value when the server left it out: a visitor has no `me`, a
 * finished arena no `secondsToFinish`, one not yet started no `featured`.
 */
export function parseArena(data) {
  if (!data || typeof data !== 'object' || typeof data.id !== 'string' || !data.id) return null;
  const status = num(data.status);
  const isFinished = data.isFinished === true || status === STATUS.finished;
  const isStarted = !isFinished && (data.isStarted === true || status === STATUS.started);
  const players = (Array.isArray(data.standing?.players) ? data.standing.players : []).map((p) => {
    const who = person(p);
    if (!who) return null;
    return {
      ...who,
      score: num(p.score) ?? 0,
      scores: typeof p.sheet?.scores === 'string' ? p.sheet.scores.replace(/[^0-9]/g, '') : '',
      fire: p.sheet?.fire === true,
      withdraw: p.withdraw === true,
      bot: p.bot === true,
    };
  }).filter(Boolean);
  const side = (s) => person(s);
  const f = data.featured;
  const featured = f && typeof f === 'object' && typeof f.id === 'string' && f.id
    ? {
      id: f.id,
      fen: str(f.fen),
      color: f.color === 'black' ? 'black' : 'white',
      lastMove: typeof f.lastMove === 'string' && /^[a-h][1-8][a-h][1-8][a-z]?$/.test(f.lastMove) ? f.lastMove : null,
      white: side(f.white),
      black: side(f.black),
    }
    : null;
  const duels = (Array.isArray(data.duels) ? data.duels : []).map((d) => {
    if (typeof d?.id !== 'string' || !d.id || !Array.isArray(d.p)) return null;
    const [a, b] = d.p.map((p) => person(p, { name: 'n', rank: 'k', rating: 'r' }));
    return a && b ? { id: d.id, players: [a, b] } : null;
  }).filter(Boolean);
  const podium = (Array.isArray(data.podium) ? data.podium : []).map((p) => {
    const who = person(p);
    if (!who) return null;
    const nb = p.nb && typeof p.nb === 'object' ? p.nb : {};
    return {
      ...who,
      score: num(p.score),
      games: Number.isInteger(nb.game) ? nb.game : null,
      berserks: Number.isInteger(nb.berserk) ? nb.berserk : null,
      wins: Number.isInteger(nb.win) ? nb.win : null,
      performance: num(p.performance),
    };
  }).filter(Boolean).slice(0, 3);
  const s = data.stats;
  const stats = s && typeof s === 'object'
    ? Object.fromEntries(['games', 'moves', 'whiteWins', 'blackWins', 'draws', 'berserks'].map((k) => [k, Number.isFinite(s[k]) ? s[k] : null]))
    : null;
  const me = data.me && typeof data.me === 'object'
    ? {
      rank: Number.isInteger(data.me.rank) ? data.me.rank : null,
      withdraw: data.me.withdraw === true,
      gameId: typeof data.me.gameId === 'string' && data.me.gameId ? data.me.gameId : null,
    }
    : null;
  const clock = data.clock && Number.isFinite(data.clock.limit) && Number.isFinite(data.clock.increment)
    ? { limit: data.clock.limit, increment: data.clock.increment }
    : null;
  const variant = typeof data.variant === 'string' ? data.variant : str(data.variant?.key) || 'standard';
  return {
    id: data.id,
    name: str(data.fullName) || str(data.name) || 'Arena',
    createdBy: str(data.createdBy) || null,
    minutes: num(data.minutes),
    clock,
    variant,
    rated: data.rated === true,
    berserkable: data.berserkable === true,
    streakable: data.streakable !== false,
    botsAllowed: data.botsAllowed === true,
    private: data.private === true,
    startsAt: time(data.startsAt),
    finishesAt: time(data.finishesAt),
    secondsToStart: num(data.secondsToStart),
    secondsToFinish: num(data.secondsToFinish),
    status,
    isStarted,
    isFinished,
    nbPlayers: Number.isInteger(data.nbPlayers) ? data.nbPlayers : players.length,
    perf: data.perf && typeof data.perf === 'object' ? { key: str(data.perf.key), name: str(data.perf.name) } : null,
    page: Number.isInteger(data.standing?.page) ? data.standing.page : 1,
    players,
    featured,
    duels,
    podium,
    stats,
    me,
  };
}

/**
 * Where the arena's clock stands, `elapsedMs` after its JSON came (and at `nowMs`, for an
 * arena that said only when it starts or ends): `{phase, label, seconds, text}`. Before the
 * start "Starts in 4:59", during it "Ends in 12:03", then "Finished"; "Starting…" and
 * "Finishing…" while the server has yet to say the moment has come.
 */
export function arenaCountdown(a, elapsedMs = 0, nowMs = Date.now()) {
  if (!a || a.isFinished) return { phase: 'finished', label: 'Finished', seconds: null, text: '' };
  const left = (seconds, at) => secondsLeft(seconds, elapsedMs) ?? (at === null ? null : Math.max(0, (at - nowMs) / 1000));
  if (a.isStarted) {
    const s = left(a.secondsToFinish, a.finishesAt);
    if (s === null) return { phase: 'started', label: 'Playing', seconds: null, text: '' };
    if (s <= 0) return { phase: 'started', label: 'Finishing…', seconds: 0, text: '' };
    return { phase: 'started', label: 'Ends in', seconds: s, text: formatCountdown(s) };
  }
  const s = left(a.secondsToStart, a.startsAt);
  if (s === null) return { phase: 'created', label: 'Starting soon', seconds: null, text: '' };
  if (s <= 0) return { phase: 'created', label: 'Starting…', seconds: 0, text: '' };
  return { phase: 'created', label: 'Starts in', seconds: s, text: formatCountdown(s) };
}

/**
 * A score sheet (`sheet.scores`: one digit a game, the most recent first) as lichess draws it:
 * the games oldest first, `[{score, fire}]`, `fire` for a game whose points counted double
 * because it was played on fire. A player is on fire after two wins in a row (when the arena
 * has streaks); then a win counts double (4, or 5 berserked), a draw too (2), and anything but
 * a win puts the fire out (a loss on fire scores 0: nothing doubled). A score of 4 or more was
 * doubled whatever came before.
 */
export function sheetCells(scores, { streakable = true } = {}) {
  const digits = [...String(scores ?? '')].filter((c) => c >= '0' && c <= '9').map(Number).reverse();
  let wins = 0;
  let fire = false;
  return digits.map((score) => {
    const onFire = score >= 4 || (streakable && fire);
    if (onFire) {
      fire = score >= 4;
      wins = fire ? wins + 1 : 0;
    } else if (score >= 2) {
      wins += 1;
      fire = streakable && wins >= 2;
    } else {
      wins = 0;
    }
    return { score, fire: onFire && score > 0 };
  });
}

/**
 * The game to take the viewer to, or null: their current game (`me.gameId`) once, when it is
 * not the one they were last taken to (`lastOpened`, kept across page loads, so that coming
 * back to the arena page from a game does not send them straight back to it).
 */
export function gameToOpen(me, lastOpened) {
  const id = me?.gameId;
  if (typeof id !== 'string' || !id) return null;
  return id === lastOpened ? null : id;
}

/** Whether `viewer` (`{username}` or null) is playing in arena `a`: joined, and not withdrawn or paused. */
export function isIn(a, viewer) {
  return Boolean(viewer && a?.me && !a.me.withdraw);
}

/**
 * The button the viewer gets: `{kind, label}` — `login` for a visitor, `join` (with
 * `password` when the arena is private), `withdraw` (worded "Pause" once the arena has
 * started, as on lichess); null once the arena is over.
 */
export function arenaAction(a, viewer) {
  if (!a || a.isFinished) return null;
  if (!viewer) return { kind: 'login', label: 'Log in to join' };
  if (isIn(a, viewer)) return a.isStarted ? { kind: 'withdraw', label: 'Pause' } : { kind: 'withdraw', label: 'Withdraw' };
  return { kind: 'join', label: 'Join', password: a.private };
}

/** Whether `viewer` may add computer players: the arena's creator, while it is not over, when it allows bots. */
export function mayAddBots(a, viewer) {
  return Boolean(a && viewer && a.botsAllowed && !a.isFinished && sameName(a.createdBy, viewer.username));
}

/** A line on the viewer's place in the arena, or '' ("You are 3rd", "Paused: join again to be paired"). */
export function myStateText(a, viewer) {
  if (!a || !viewer || !a.me) return '';
  if (a.me.withdraw) return a.isFinished ? '' : a.isStarted ? 'Paused: join again to be paired.' : 'You withdrew.';
  if (a.isFinished) return a.me.rank ? `You finished ${ordinal(a.me.rank)}.` : '';
  if (!a.isStarted) return 'You are in: your first game starts with the arena.';
  if (a.me.gameId) return 'You are playing.';
  return a.me.rank ? `You are ${ordinal(a.me.rank)}: waiting for your next opponent.` : 'Waiting for your next opponent.';
}

/** "1st", "2nd", "3rd", "11th", "22nd". */
export function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] || 'th');
  return `${n}${suffix}`;
}

/** The arena's terms in one line: "3+2 Blitz · Rated · Standard · 45 min". */
export function arenaTerms(a) {
  const clock = arenaClockName(a.clock);
  const perf = a.variant === 'standard' && a.perf?.name ? ` ${a.perf.name}` : '';
  const parts = [`${clock}${perf}`, modeName(a.rated), variantName(a.variant)];
  if (Number.isFinite(a.minutes)) parts.push(`${a.minutes} min`);
  return parts.join(' · ');
}

/** The arena's rules worth a word, as short phrases: berserk, streaks, bots, a password. */
export function arenaFeatures(a) {
  const out = [];
  if (a.berserkable) out.push('Berserk allowed');
  if (!a.streakable) out.push('No streaks');
  if (a.botsAllowed) out.push('Computer players allowed');
  if (a.private) out.push('Private (password)');
  return out;
}

function ratingHtml(p) {
  return p.rating === null ? '' : ` <span class="rating">${escapeHtml(formatRating(p.rating, p.provisional))}</span>`;
}

function nameLink(name, className = 'name') {
  return `<a class="${className}" href="${escapeHtml(playerPath(name))}">${escapeHtml(name)}</a>`;
}

/** A score sheet's cells as markup (oldest first, the games on fire marked), with its words for a screen reader. */
export function sheetHtml(scores, opts) {
  const cells = sheetCells(scores, opts);
  if (!cells.length) return '<span class="sheet none">no games yet</span>';
  const label = `Scores, oldest first: ${cells.map((c) => c.score).join(', ')}`;
  return `<span class="sheet" title="${escapeHtml(label)}" aria-label="${escapeHtml(label)}">`
    + cells.map((c) => `<span class="${c.fire ? 'game-score fire' : 'game-score'}">${c.score}</span>`).join('')
    + '</span>';
}

const FLAME = '<svg class="flame" viewBox="0 0 24 24" role="img" aria-label="on fire"><title>On fire: the next win counts double</title>'
  + '<path d="M13 2c.6 3.6 5.5 6 5.5 11.5a6.5 6.5 0 0 1-13 0c0-3 1.6-5 3.4-6.5-.2 2.3.6 4 2.1 4.9C10.6 8.6 12 5.5 13 2z"/></svg>';

/** The standings' rows (one `<tr>` a player), the viewer's row marked; a row that says so when nobody has joined. */
export function standingsHtml(a, viewer) {
  if (!a.players.length) {
    const text = a.isFinished ? 'Nobody played in this arena.' : 'Nobody has joined yet.';
    return `<tr><td class="none" colspan="4">${text}</td></tr>`;
  }
  return a.players.map((p) => {
    const classes = ['standing'];
    if (p.withdraw) classes.push('withdrawn');
    if (viewer && sameName(p.name, viewer.username)) classes.push('mine');
    const marks = `${p.bot ? ' <span class="bot-badge">BOT</span>' : ''}${p.withdraw ? ' <span class="paused" title="Paused or withdrawn">paused</span>' : ''}`;
    const fire = p.fire && !a.isFinished ? ` ${FLAME}` : '';
    return `<tr class="${classes.join(' ')}" data-name="${escapeHtml(p.name)}">`
      + `<td class="num rank">${p.rank ?? ''}</td>`
      + `<td class="player-cell">${nameLink(p.name)}${ratingHtml(p)}${marks}</td>`
      + `<td class="sheet-cell">${sheetHtml(p.scores, { streakable: a.streakable })}</td>`
      + `<td class="num total"><strong>${escapeHtml(String(p.score))}</strong>${fire}</td></tr>`;
  }).join('');
}

/** The podium of a finished arena, winner first in the markup (the page's style puts them 2, 1, 3); '' without one. */
export function podiumHtml(a) {
  if (!a.podium.length) return '';
  return a.podium.map((p, i) => {
    const place = i + 1;
    const facts = [];
    if (p.score !== null) facts.push(['Score', String(p.score)]);
    if (p.games !== null) facts.push(['Games', String(p.games)]);
    if (p.wins !== null) facts.push(['Wins', p.games ? `${p.wins} (${Math.round((100 * p.wins) / p.games)}%)` : String(p.wins)]);
    if (p.berserks !== null && a.berserkable) facts.push(['Berserks', String(p.berserks)]);
    if (p.performance !== null) facts.push(['Performance', String(Math.round(p.performance))]);
    return `<div class="podium-place place-${place}" data-place="${place}">`
      + `<span class="podium-medal" aria-label="${ordinal(place)} place">${place}</span>`
      + `<span class="podium-who">${nameLink(p.name, 'podium-name')}${ratingHtml(p)}</span>`
      + `<dl class="podium-facts">${facts.map(([k, v]) => `<div><dt>${k}</dt><dd>${escapeHtml(v)}</dd></div>`).join('')}</dl></div>`;
  }).join('');
}

/** One side of a game in the lists: "#3 Alice 1620". */
function sideHtml(p, color = null) {
  if (!p) return '<span class="duel-player">?</span>';
  const swatch = color ? `<span class="swatch ${color}" aria-hidden="true"></span>` : '';
  const rank = p.rank !== null ? `<span class="duel-rank">#${p.rank}</span> ` : '';
  const rating = p.rating === null ? '' : ` <span class="rating">${escapeHtml(formatRating(p.rating, p.provisional))}</span>`;
  return `<span class="duel-player">${swatch}${rank}<span class="name">${escapeHtml(p.name)}</span>${rating}</span>`;
}

/** The games in progress, each a link to its page; a line that says why there is none. */
export function duelsHtml(a) {
  if (!a.duels.length) {
    const why = a.isFinished ? 'The arena is over.' : a.isStarted ? 'No games in progress right now.' : 'Games show here once the arena starts.';
    return `<li class="none">${why}</li>`;
  }
  return a.duels.map((d) => {
    const label = `${d.players[0].name} against ${d.players[1].name}`;
    return `<li class="duel" data-game="${escapeHtml(d.id)}"><a href="/g/${encodeURIComponent(d.id)}" aria-label="${escapeHtml(label)}">`
      + `${sideHtml(d.players[0])} <span class="vs">vs</span> ${sideHtml(d.players[1])}</a></li>`;
  }).join('');
}

/** The featured game's players, White first, with their ranks. */
export function featuredPlayersHtml(f) {
  if (!f) return '';
  return `${sideHtml(f.white, 'white')} <span class="vs">vs</span> ${sideHtml(f.black, 'black')}`;
}

/**
 * The arena's numbers (`stats`) as `[[label, value]]`: the games, the moves, White's and Black's
 * wins and the draws with their shares of the games, the berserks; each only when the server
 * gave it (and the berserks only when there were some).
 */
export function statsRows(stats) {
  if (!stats) return [];
  const games = stats.games;
  const share = (n) => (games > 0 ? ` (${Math.round((100 * n) / games)}%)` : '');
  const rows = [];
  if (games !== null) rows.push(['Games played', String(games)]);
  if (stats.moves !== null) rows.push(['Moves played', String(stats.moves)]);
  if (stats.whiteWins !== null) rows.push(['White wins', `${stats.whiteWins}${share(stats.whiteWins)}`]);
  if (stats.blackWins !== null) rows.push(['Black wins', `${stats.blackWins}${share(stats.blackWins)}`]);
  if (stats.draws !== null) rows.push(['Draws', `${stats.draws}${share(stats.draws)}`]);
  if (stats.berserks > 0) rows.push(['Berserks', String(stats.berserks)]);
  return rows;
}

/** The statistics as markup (a definition list's items). */
export function statsHtml(stats) {
  return statsRows(stats).map(([k, v]) => `<div><dt>${k}</dt><dd>${escapeHtml(v)}</dd></div>`).join('');
}

/** "Showing the best 10 of 14 players" when the standings show only a page of them; ''. */
export function standingNote(a) {
  if (a.nbPlayers > a.players.length && a.players.length) return `Showing the best ${a.players.length} of ${playersText(a.nbPlayers)}.`;
  return '';
}
