// A round robin (everyone plays everyone, a round at a time) as rules its page follows: the
// server's `GET /api/roundrobin/{id}` read into a model that never lacks a field, the
// crosstable as a real one is printed — rows by rank, columns by entry number 1..n, 1 / ½ / 0
// in the cells and the diagonal blacked out, each cell a link to its game —, the rounds and
// their games, the line that says where it stands, and the buttons the viewer gets (Join,
// Withdraw, Start). Pure (no DOM), so Node's test runner checks it
// (tests/js/tournament.test.mjs); every text from the server goes into the markup escaped.

import { playerPath } from '../account.js';
import { describeTimeControl } from '../challenges.js';
import { modeName } from '../ratings.js';
import { escapeHtml } from '../ui.js';
import { formatDecimal, formatPoints, playersText, sameName, variantName } from './common.js';

const STAGES = ['created', 'started', 'finished'];
const RESULTS = ['1-0', '0-1', '1/2-1/2'];
const str = (v) => (typeof v === 'string' ? v : '');
const num = (v) => (Number.isFinite(v) ? v : null);

/**
 * The round robin JSON read into the page's model, or null when it is none (no `id`). Missing
 * or malformed parts read as empty: no players, no rounds, no crosstable.
 */
export function parseRoundRobin(data) {
  if (!data || typeof data !== 'object' || typeof data.id !== 'string' || !data.id) return null;
  const players = (Array.isArray(data.players) ? data.players : []).filter((p) => typeof p === 'string' && p);
  const rounds = (Array.isArray(data.rounds) ? data.rounds : []).map((round) => (Array.isArray(round) ? round : []).map((b) => ({
    white: str(b?.white) || null,
    black: str(b?.black) || null,
    game: str(b?.game) || null,
    result: RESULTS.includes(b?.result) ? b.result : null,
    forfeit: b?.forfeit === true,
  })));
  const crosstable = (Array.isArray(data.crosstable) ? data.crosstable : []).map((row) => {
    const name = str(row?.name);
    if (!name) return null;
    return {
      name,
      rank: Number.isInteger(row.rank) ? row.rank : null,
      points: num(row.points) ?? 0,
      sonnebornBerger: num(row.sonnebornBerger) ?? 0,
      results: Array.isArray(row.results) ? row.results.map((r) => num(r)) : [],
    };
  }).filter(Boolean);
  return {
    id: data.id,
    name: str(data.name) || 'Round robin',
    createdBy: str(data.createdBy) || null,
    createdAt: num(data.createdAt),
    status: STAGES.includes(data.status) ? data.status : 'created',
    variant: typeof data.variant === 'string' ? data.variant : str(data.variant?.key) || 'standard',
    timeControl: data.timeControl && typeof data.timeControl === 'object' ? data.timeControl : null,
    rated: data.rated === true,
    private: data.private === true,
    players,
    round: Number.isInteger(data.round) && data.round > 0 ? data.round : null,
    rounds,
    crosstable,
  };
}

/** The index in the entry order of player `name` (-1 when not entered). */
function entryIndex(players, name) {
  const exact = players.indexOf(name);
  return exact >= 0 ? exact : players.findIndex((p) => sameName(p, name));
}

/** The key of the pairing of two names, whichever had White. */
function pairKey(a, b) {
  return [String(a).toLowerCase(), String(b).toLowerCase()].sort().join('\u0000');
}

/** What a cell says of its points: 'win', 'draw', 'loss', or '' (more than one game between them). */
function cellKind(value) {
  if (value === 1) return 'win';
  if (value === 0.5) return 'draw';
  if (value === 0) return 'loss';
  return '';
}

/**
 * The crosstable as a grid: `{columns: [{number, name}], rows: [{rank, number, name, points,
 * sonnebornBerger, cells: [{self, text, value, kind, game, against}]}]}`. Rows in the server's
 * order (best first; by rank where it gives ranks), columns in entry order; each row's cells
 * by the same order, the player's own cell `self` (the blacked-out diagonal). A cell's `game`
 * is the latest game of that pairing (a game still being played shows "*"). Before any row
 * comes, every entrant has one with no points.
 */
export function crosstableGrid(r) {
  const players = r?.players ?? [];
  const columns = players.map((name, i) => ({ number: i + 1, name }));
  const games = new Map();
  for (const round of r?.rounds ?? []) {
    for (const b of round) {
      if (b.white && b.black && (b.game || b.result)) games.set(pairKey(b.white, b.black), b);
    }
  }
  let source = r?.crosstable ?? [];
  if (!source.length) source = players.map((name) => ({ name, rank: null, points: 0, sonnebornBerger: 0, results: [] }));
  const ranked = source.map((row, i) => ({ row, i }))
    .sort((a, b) => (a.row.rank ?? Infinity) - (b.row.rank ?? Infinity) || a.i - b.i)
    .map(({ row }) => row);
  const rows = ranked.map((row) => {
    const index = entryIndex(players, row.name);
    const cells = columns.map((column, j) => {
      if (j === index) return { self: true, text: '', value: null, kind: '', game: null, against: column.name };
      const value = Number.isFinite(row.results[j]) ? row.results[j] : null;
      const board = games.get(pairKey(row.name, column.name));
      const game = board?.game ?? null;
      const text = value !== null ? formatPoints(value) : game && !board.result ? '*' : '';
      return { self: false, text, value, kind: cellKind(value), game, against: column.name };
    });
    return { rank: row.rank, number: index >= 0 ? index + 1 : null, name: row.name, points: row.points, sonnebornBerger: row.sonnebornBerger, cells };
  });
  return { columns, rows };
}

/** A result as a crosstable prints it: "1–0", "0–1", "½–½". */
export function resultText(result) {
  return { '1-0': '1–0', '0-1': '0–1', '1/2-1/2': '½–½' }[result] ?? '';
}

/**
 * The rounds, each `{number, current, boards: [{white, black, game, result, text, bye}]}`:
 * `text` is what the board's result cell says — the result (", by forfeit"), "playing" while
 * its game goes on, "bye" for a player left without an opponent, or "" before it is paired.
 */
export function roundsView(r) {
  return (r?.rounds ?? []).map((boards, i) => ({
    number: i + 1,
    current: r.status === 'started' && r.round === i + 1,
    boards: boards.map((b) => {
      const bye = !b.white || !b.black;
      let text = resultText(b.result);
      if (text && b.forfeit) text += ' (forfeit)';
      else if (!text) text = bye ? 'bye' : b.game ? 'playing' : '';
      return { ...b, bye, text };
    }),
  }));
}

/** The round robin's terms in one line: "5+3 · Rated · Standard". */
export function roundRobinTerms(r) {
  const tc = r.timeControl ? describeTimeControl(r.timeControl) : 'Untimed';
  return [tc, modeName(r.rated), variantName(r.variant)].join(' · ');
}

/** The names of those who came first (several on a tie), once it is over. */
export function winners(r) {
  if (r?.status !== 'finished') return [];
  const rows = crosstableGrid(r).rows;
  if (!rows.length) return [];
  const best = rows[0];
  return rows.filter((row) => (best.rank !== null ? row.rank === best.rank : row.points === best.points)).map((row) => row.name);
}

/** Where it stands, in a line: waiting for players, round 2 of 5, or who won (`viewer`: who reads it). */
export function statusLine(r, viewer = null) {
  if (r.status === 'created') {
    const mine = viewer && sameName(r.createdBy, viewer.username);
    const who = mine ? 'Start it' : r.createdBy ? `${r.createdBy} starts it` : 'Its creator starts it';
    return `Waiting for players: ${playersText(r.players.length)} in. ${who} when everyone is in.`;
  }
  if (r.status === 'started') {
    return r.round && r.rounds.length ? `Round ${r.round} of ${r.rounds.length}` : 'Playing';
  }
  const won = winners(r);
  if (!won.length) return 'Finished';
  if (won.length === 1) return `Finished: ${won[0]} won.`;
  return `Finished: ${won.slice(0, -1).join(', ')} and ${won[won.length - 1]} shared first place.`;
}

/** Whether `viewer` (`{username}` or null) has entered. */
export function hasEntered(r, viewer) {
  return Boolean(viewer && r?.players.some((p) => sameName(p, viewer.username)));
}

/**
 * The buttons the viewer gets, in order: `[{kind, label, disabled?, hint?}]` — `login` for a
 * visitor while one may still enter; `join` (with `password` when private) or `withdraw`
 * before the start; `withdraw` while it is played, for a player in it; `start` for the
 * creator before the start (disabled with fewer than two players). None once it is over.
 */
export function roundRobinActions(r, viewer) {
  if (!r || r.status === 'finished') return [];
  if (!viewer) return r.status === 'created' ? [{ kind: 'login', label: 'Log in to join' }] : [];
  const entered = hasEntered(r, viewer);
  const out = [];
  if (r.status === 'created') {
    out.push(entered ? { kind: 'withdraw', label: 'Withdraw' } : { kind: 'join', label: 'Join', password: r.private });
    if (sameName(r.createdBy, viewer.username)) {
      const few = r.players.length < 2;
      out.push({ kind: 'start', label: 'Start', disabled: few, hint: few ? 'At least two players are needed to start.' : '' });
    }
  } else if (entered) {
    out.push({ kind: 'withdraw', label: 'Withdraw' });
  }
  return out;
}

/** The crosstable as a table's markup: its head and its rows. */
export function crosstableHtml(r, viewer) {
  const { columns, rows } = crosstableGrid(r);
  if (!rows.length) return { head: '', body: '<tr><td class="none">Nobody has joined yet.</td></tr>' };
  const head = '<tr><th scope="col" class="num rank">#</th><th scope="col">Player</th>'
    + columns.map((c) => `<th scope="col" class="num cross-col" title="${escapeHtml(c.name)}">${c.number}</th>`).join('')
    + '<th scope="col" class="num">Points</th><th scope="col" class="num"><abbr title="Sonneborn–Berger">SB</abbr></th></tr>';
  const body = rows.map((row) => {
    const mine = viewer && sameName(row.name, viewer.username) ? ' mine' : '';
    const cells = row.cells.map((c) => {
      if (c.self) return '<td class="cross self" aria-label="—"></td>';
      const label = `${row.name} against ${c.against}${c.text ? `: ${c.text === '*' ? 'playing' : c.text}` : ''}`;
      const inner = c.game ? `<a href="/g/${encodeURIComponent(c.game)}" aria-label="${escapeHtml(label)}">${escapeHtml(c.text || '·')}</a>` : escapeHtml(c.text);
      return `<td class="cross${c.kind ? ` ${c.kind}` : ''}" title="${escapeHtml(label)}">${inner}</td>`;
    }).join('');
    return `<tr class="cross-row${mine}" data-name="${escapeHtml(row.name)}">`
      + `<td class="num rank">${row.rank ?? ''}</td>`
      + `<th scope="row" class="player-cell"><span class="entry-number">${row.number ?? '?'}.</span> <a class="name" href="${escapeHtml(playerPath(row.name))}">${escapeHtml(row.name)}</a></th>`
      + `${cells}<td class="num points"><strong>${escapeHtml(formatPoints(row.points))}</strong></td>`
      + `<td class="num sb">${escapeHtml(formatDecimal(row.sonnebornBerger))}</td></tr>`;
  }).join('');
  return { head, body };
}

/** The rounds as markup: a block each, its boards as a list of games. */
export function roundsHtml(r) {
  const rounds = roundsView(r);
  if (!rounds.length) {
    return r.status === 'created'
      ? '<p class="hint">The pairings are drawn when the round robin starts.</p>'
      : '<p class="hint">No rounds.</p>';
  }
  return rounds.map((round) => {
    const boards = round.boards.map((b) => {
      const name = (n) => (n ? escapeHtml(n) : '<span class="bye">—</span>');
      const players = `<span class="swatch white" aria-hidden="true"></span>${name(b.white)} <span class="vs">vs</span> <span class="swatch black" aria-hidden="true"></span>${name(b.black)}`;
      const result = `<span class="board-result${b.result ? '' : ' pending'}">${escapeHtml(b.text)}</span>`;
      const inner = `<span class="board-players">${players}</span> ${result}`;
      return b.game
        ? `<li class="rr-board" data-game="${escapeHtml(b.game)}"><a class="rr-board-line" href="/g/${encodeURIComponent(b.game)}">${inner}</a></li>`
        : `<li class="rr-board"><span class="rr-board-line">${inner}</span></li>`;
    }).join('');
    return `<section class="rr-round${round.current ? ' current' : ''}" aria-label="Round ${round.number}">`
      + `<h3>Round ${round.number}${round.current ? ' <span class="current-mark">now</span>' : ''}</h3>`
      + `<ul class="rr-boards">${boards || '<li class="none">No games.</li>'}</ul></section>`;
  }).join('');
}
