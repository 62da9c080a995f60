// The computer analysis of a finished game as the game page shows it: the evaluation graph (one
// point per position, White's winning chances as on lichess), the marks of judged moves ("??"
// with "Blunder. Nc6 was best."), the engine's best move in each position, and each player's
// summary.
//
// `readAnalysis` checks the server's answer (`GET /api/games/{id}/analysis`) and keeps what is
// usable; the rest is arithmetic on it and is pure, so Node's test runner checks it
// (tests/js/analysis.test.mjs). `drawEvalGraph` builds the SVG with DOM calls (createElementNS,
// textContent): nothing the server sends is ever parsed as markup.

import { svgMaker } from './svg.js';

/** The drawing's size and margins, in SVG units (the SVG scales to its box). */
export const EVAL_BOX = Object.freeze({ width: 320, height: 120, left: 4, right: 4, top: 6, bottom: 6 });

/** Centipawns beyond this count as this (a won position is a won position). */
export const CP_CLAMP = 1000;

/** The judgements, mildest first: their mark after the move and their name. */
export const JUDGEMENTS = Object.freeze({
  inaccuracy: Object.freeze({ mark: '?!', name: 'Inaccuracy', plural: 'Inaccuracies' }),
  mistake: Object.freeze({ mark: '?', name: 'Mistake', plural: 'Mistakes' }),
  blunder: Object.freeze({ mark: '??', name: 'Blunder', plural: 'Blunders' }),
});

/** An eval (`{cp}` or `{mate}`, White's side) checked: the same shape, or null. */
function readEval(ev) {
  if (!ev || typeof ev !== 'object') return null;
  if (Number.isFinite(ev.mate)) return { mate: ev.mate };
  if (Number.isFinite(ev.cp)) return { cp: ev.cp };
  return null;
}

/** A move as the server names it (`{uci, san}`), checked: the same, or null. */
function readMove(m) {
  if (!m || typeof m !== 'object' || typeof m.uci !== 'string' || !/^[a-h][1-8][a-h][1-8][a-z]?$/.test(m.uci)) return null;
  return { uci: m.uci, san: typeof m.san === 'string' && m.san ? m.san : m.uci };
}

/**
 * The server's answer read: `{status: 'running', progress}` while it runs, or `{status: 'done',
 * progress: 1, initial, plies, players}` with `plies[i]` the analysis of ply i+1 (`{ply, move,
 * eval, best, judgement}`, each field checked: null where unusable). Null for anything else.
 */
export function readAnalysis(data) {
  if (!data || typeof data !== 'object') return null;
  const progress = Number.isFinite(data.progress) ? Math.max(0, Math.min(1, data.progress)) : 0;
  if (data.status === 'running') return { status: 'running', progress };
  if (data.status !== 'done' || !Array.isArray(data.plies)) return null;
  const plies = data.plies.map((p, i) => ({
    ply: Number.isInteger(p?.ply) ? p.ply : i + 1,
    move: readMove(p?.move),
    eval: readEval(p?.eval),
    best: readMove(p?.best),
    judgement: Object.hasOwn(JUDGEMENTS, p?.judgement ?? '') ? p.judgement : null,
  }));
  // In ply order, one per ply: plies[i] is ply i+1 even if the server listed them otherwise.
  plies.sort((a, b) => a.ply - b.ply);
  const players = {};
  for (const color of ['white', 'black']) {
    const s = data.players?.[color];
    const count = (n) => (Number.isFinite(n) ? n : 0);
    players[color] = {
      inaccuracies: count(s?.inaccuracies),
      mistakes: count(s?.mistakes),
      blunders: count(s?.blunders),
      acpl: Number.isFinite(s?.acpl) ? s.acpl : null,
    };
  }
  return { status: 'done', progress: 1, initial: readEval(data.initial), plies, players };
}

/**
 * White's winning chances for an eval, from −1 (Black wins) to 1 (White wins), as lichess
 * computes them: 2 / (1 + e^(−0.00368208·cp)) − 1 with cp clamped to ±1000; a mate is ±1.
 * Null for no eval.
 */
export function winningChances(ev) {
  if (!ev) return null;
  if (Number.isFinite(ev.mate)) return ev.mate > 0 ? 1 : ev.mate < 0 ? -1 : 0;
  if (!Number.isFinite(ev.cp)) return null;
  const cp = Math.max(-CP_CLAMP, Math.min(CP_CLAMP, ev.cp));
  return 2 / (1 + Math.exp(-0.00368208 * cp)) - 1;
}

/** An eval as people read it: "+0.35", "−8.80" (a true minus sign), "0.00", "#3", "#−3". */
export function formatEval(ev) {
  if (!ev) return '?';
  if (Number.isFinite(ev.mate)) return ev.mate < 0 ? `#\u2212${-ev.mate}` : `#${ev.mate}`;
  if (!Number.isFinite(ev.cp)) return '?';
  const pawns = (Math.abs(ev.cp) / 100).toFixed(2);
  if (ev.cp === 0) return pawns;
  return `${ev.cp > 0 ? '+' : '\u2212'}${pawns}`;
}

/** The eval of the position after `ply` moves (0: the start), or null. */
export function evalAt(analysis, ply) {
  if (!analysis || analysis.status !== 'done') return null;
  return ply === 0 ? analysis.initial : analysis.plies[ply - 1]?.eval ?? null;
}

/**
 * The mark of a judged move: `{kind, mark, title}` — `{kind: 'blunder', mark: '??', title:
 * 'Blunder. Nc6 was best.'}` — for ply `ply` (1 is the first move), or null when it is not judged.
 */
export function judgementNote(analysis, ply) {
  if (!analysis || analysis.status !== 'done') return null;
  const p = analysis.plies[ply - 1];
  if (!p?.judgement) return null;
  const j = JUDGEMENTS[p.judgement];
  const better = p.best && p.best.uci !== p.move?.uci ? ` ${p.best.san} was best.` : '';
  return { kind: p.judgement, mark: j.mark, title: `${j.name}.${better}` };
}

/**
 * The engine's best move in the position after `ply` moves — what could be played next — as
 * `{uci, san}`, or null (none known, or the game's last position).
 */
export function bestMoveAt(analysis, ply) {
  if (!analysis || analysis.status !== 'done' || ply < 0) return null;
  return analysis.plies[ply]?.best ?? null;
}

/**
 * The graph of `analysis` in `box`: `{points, zeroY, line, area}` — `points` one per position,
 * the start first (`{ply, x, y, chances, eval, judgement, left, right}`, `left`/`right` the
 * bounds of the column that selects it), `zeroY` the even line, `line` a polyline's points and
 * `area` the path under the curve (White's share of the height). Null when there is nothing to draw.
 */
export function evalGraphGeometry(analysis, box = EVAL_BOX) {
  if (!analysis || analysis.status !== 'done') return null;
  const n = analysis.plies.length;
  const plotW = box.width - box.left - box.right;
  const plotH = box.height - box.top - box.bottom;
  const round = (v) => Math.round(v * 10) / 10;
  const x = (ply) => (n === 0 ? box.left + plotW / 2 : box.left + (ply / n) * plotW);
  const y = (chances) => box.top + ((1 - chances) / 2) * plotH;
  const zeroY = round(y(0));
  const half = n === 0 ? plotW / 2 : plotW / n / 2;
  const points = [];
  let previous = 0;
  for (let ply = 0; ply <= n; ply++) {
    const ev = evalAt(analysis, ply);
    // A position without an eval keeps the line level rather than breaking it.
    const chances = winningChances(ev);
    const c = chances ?? previous;
    previous = c;
    const px = x(ply);
    points.push({
      ply, x: round(px), y: round(y(c)), chances: chances === null ? null : Math.round(chances * 10000) / 10000,
      eval: ev, judgement: ply === 0 ? null : analysis.plies[ply - 1].judgement,
      left: round(Math.max(box.left, px - half)), right: round(Math.min(box.width - box.right, px + half)),
    });
  }
  const line = points.map((p) => `${p.x},${p.y}`).join(' ');
  const first = points[0];
  const last = points[points.length - 1];
  // White's share of the height: from the curve down to the bottom (Black's is the rest).
  const bottom = round(box.height - box.bottom);
  const area = `M${first.x},${bottom} ${points.map((p) => `L${p.x},${p.y}`).join(' ')} L${last.x},${bottom} Z`;
  return { points, zeroY, line, area };
}

/** How far along a running analysis is, in whole percent. */
export function progressPercent(progress) {
  if (!Number.isFinite(progress)) return 0;
  return Math.round(Math.max(0, Math.min(1, progress)) * 100);
}

/** An average centipawn loss as the summary shows it: whole centipawns, or "–" when unknown. */
export function formatAcpl(acpl) {
  return Number.isFinite(acpl) ? String(Math.round(acpl)) : '\u2013';
}

/**
 * The summary's rows, White first: `{color, name, inaccuracies, mistakes, blunders, acpl}`, the
 * counts as numbers and `acpl` as text (see `formatAcpl`); `names` is `{white, black}`.
 */
export function summaryRows(analysis, names) {
  if (!analysis || analysis.status !== 'done') return [];
  return ['white', 'black'].map((color) => {
    const s = analysis.players[color];
    return {
      color, name: names?.[color] ?? color,
      inaccuracies: s.inaccuracies, mistakes: s.mistakes, blunders: s.blunders, acpl: formatAcpl(s.acpl),
    };
  });
}

/** What a point of the graph says when pointed at: "12. Qh4?? −8.80", "Start +0.20". */
export function pointLabel(analysis, ply, moveName) {
  const ev = formatEval(evalAt(analysis, ply));
  if (ply === 0) return `Start position ${ev}`;
  const note = judgementNote(analysis, ply);
  return `${moveName(ply)}${note ? note.mark : ''} ${ev}${note ? ` (${note.title})` : ''}`;
}

/**
 * The SVG of `analysis`, built in `doc`: `svg#eval-graph` with the even line, the area and line
 * of White's chances, a marker for the position shown (`markEvalGraph` moves it) and one
 * `g.point[data-ply]` per position — a column to click and a dot, coloured when the move was
 * judged. `moveName(ply)` names a move for the points' titles. Null when there is nothing to draw.
 */
export function drawEvalGraph(doc, analysis, moveName = (ply) => `Ply ${ply}`, box = EVAL_BOX) {
  const graph = evalGraphGeometry(analysis, box);
  if (!graph) return null;
  const el = svgMaker(doc);
  const svg = el('svg', {
    id: 'eval-graph', class: 'eval-graph', viewBox: `0 0 ${box.width} ${box.height}`, role: 'group',
    'aria-label': 'Evaluation graph: White\u2019s winning chances after each move; choose a point to show that position',
  });
  el('rect', { class: 'eval-bg', x: 0, y: 0, width: box.width, height: box.height }, svg);
  el('path', { class: 'eval-area', d: graph.area }, svg);
  el('line', { class: 'eval-zero', x1: box.left, x2: box.width - box.right, y1: graph.zeroY, y2: graph.zeroY }, svg);
  el('polyline', { class: 'eval-line', points: graph.line, fill: 'none' }, svg);
  el('line', { class: 'eval-current', x1: 0, x2: 0, y1: box.top, y2: box.height - box.bottom, 'pointer-events': 'none', visibility: 'hidden' }, svg);
  const points = el('g', { class: 'eval-points' }, svg);
  for (const p of graph.points) {
    const g = el('g', { class: `point${p.judgement ? ` judged ${p.judgement}` : ''}`, 'data-ply': p.ply, 'data-x': p.x }, points);
    el('title', {}, g, pointLabel(analysis, p.ply, moveName));
    el('rect', { class: 'hit', x: p.left, y: 0, width: Math.max(0.1, Math.round((p.right - p.left) * 10) / 10), height: box.height }, g);
    el('circle', { class: 'eval-dot', cx: p.x, cy: p.y, r: p.judgement ? 3.2 : 1.6 }, g);
  }
  return svg;
}

/** Marks the position after `ply` moves on a graph `drawEvalGraph` built. */
export function markEvalGraph(svg, ply) {
  if (!svg) return;
  svg.dataset.current = String(ply);
  const marker = svg.querySelector('.eval-current');
  let found = null;
  for (const g of svg.querySelectorAll('g.point')) {
    const current = g.dataset.ply === String(ply);
    if (current) {
      g.setAttribute('aria-current', 'step');
      found = g;
    } else {
      g.removeAttribute('aria-current');
    }
  }
  if (!marker) return;
  if (found) {
    marker.setAttribute('x1', found.dataset.x);
    marker.setAttribute('x2', found.dataset.x);
    marker.setAttribute('visibility', 'visible');
  } else {
    marker.setAttribute('visibility', 'hidden');
  }
}
