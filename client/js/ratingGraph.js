// The rating graph of the player page: one line per category over time, as inline SVG.
//
// `scaleGraph` is the arithmetic — from the server's `history` (`{category: [{at_ms, rating}]}`)
// to points in the drawing's coordinates, with round rating ticks and the dates at the ends —
// and is pure, so Node's test runner checks it (tests/js/ratingGraph.test.mjs).
// `drawGraph` builds the SVG from it with DOM calls (createElementNS, textContent): nothing
// the server sends is ever parsed as markup.

import { CATEGORIES, CATEGORY_NAMES } from './ratings.js';
import { svgMaker } from './svg.js';

/** The drawing's size and margins, in SVG units (the SVG scales to its box). */
export const BOX = Object.freeze({ width: 640, height: 260, left: 52, right: 16, top: 34, bottom: 30 });

/** Rating steps between grid lines: the smallest that keeps to at most MAX_TICKS lines. */
const STEPS = [10, 20, 25, 50, 100, 200, 250, 500, 1000];
const MAX_TICKS = 6;

/** The usable points of one category's history, oldest first. */
function cleanSeries(list) {
  if (!Array.isArray(list)) return [];
  return list
    .filter((p) => p && Number.isFinite(p.at_ms) && Number.isFinite(p.rating))
    .map((p) => ({ at: p.at_ms, rating: p.rating }))
    .sort((a, b) => a.at - b.at);
}

/** The least span of ratings the graph shows, so one game's change does not fill the height. */
const MIN_SPAN = 100;

/** Round bounds around [min, max] and the grid step: `{lo, hi, step}`. */
export function ratingBounds(dataMin, dataMax) {
  const pad = Math.max(0, MIN_SPAN - (dataMax - dataMin)) / 2;
  const [min, max] = [dataMin - pad, dataMax + pad];
  const bounds = (step) => {
    let lo = Math.floor(min / step) * step;
    let hi = Math.ceil(max / step) * step;
    // A line lying on the frame is hard to read: leave a step of room when the data touches it.
    if (lo === dataMin) lo -= step;
    if (hi === dataMax) hi += step;
    return { lo, hi, step };
  };
  // The finest grid that keeps to MAX_TICKS lines.
  for (const step of STEPS) {
    const b = bounds(step);
    if ((b.hi - b.lo) / step + 1 <= MAX_TICKS) return b;
  }
  return bounds(STEPS[STEPS.length - 1]);
}

/**
 * The graph of `history` in `box`: `{series, yTicks, xTicks}` — `series` one per category with
 * points, in the pages' order of categories (`{category, points: [{x, y, at, rating}]}`),
 * `yTicks` the rating grid from the top down (`{y, rating}`), `xTicks` the dates at the ends (`{x, at}`).
 * `series` is empty when there is nothing to draw.
 */
export function scaleGraph(history, box = BOX) {
  const known = CATEGORIES.filter((c) => history && Object.hasOwn(history, c));
  const others = Object.keys(history || {}).filter((c) => !CATEGORIES.includes(c)).sort();
  const raw = [...known, ...others].map((category) => ({ category, points: cleanSeries(history[category]) })).filter((s) => s.points.length);
  if (!raw.length) return { series: [], yTicks: [], xTicks: [] };
  const all = raw.flatMap((s) => s.points);
  const tMin = Math.min(...all.map((p) => p.at));
  const tMax = Math.max(...all.map((p) => p.at));
  const { lo, hi, step } = ratingBounds(Math.min(...all.map((p) => p.rating)), Math.max(...all.map((p) => p.rating)));
  const plotW = box.width - box.left - box.right;
  const plotH = box.height - box.top - box.bottom;
  // One moment only (a single game): it stands in the middle.
  const x = (at) => (tMax === tMin ? box.left + plotW / 2 : box.left + ((at - tMin) / (tMax - tMin)) * plotW);
  const y = (rating) => box.top + ((hi - rating) / (hi - lo)) * plotH;
  const round = (n) => Math.round(n * 10) / 10;
  const series = raw.map((s) => ({ category: s.category, points: s.points.map((p) => ({ x: round(x(p.at)), y: round(y(p.rating)), at: p.at, rating: p.rating })) }));
  const yTicks = [];
  for (let r = hi; r >= lo; r -= step) yTicks.push({ y: round(y(r)), rating: r });
  const xTicks = tMax === tMin ? [{ x: round(x(tMin)), at: tMin }] : [{ x: round(x(tMin)), at: tMin }, { x: round(x(tMax)), at: tMax }];
  return { series, yTicks, xTicks };
}

/** A polyline's `points` attribute for `points`. */
export function polylinePoints(points) {
  return points.map((p) => `${p.x},${p.y}`).join(' ');
}

/** A date as the graph's axis shows it. */
function dateLabel(at) {
  return new Date(at).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/**
 * The SVG of `history`, built in `doc`: `svg#rating-graph` with an axis, a polyline and a
 * circle per point for each category, and a legend. Null when there is nothing to draw.
 */
export function drawGraph(doc, history, box = BOX) {
  const graph = scaleGraph(history, box);
  if (!graph.series.length) return null;
  const el = svgMaker(doc);
  const names = graph.series.map((s) => CATEGORY_NAMES[s.category] || s.category);
  const svg = el('svg', { id: 'rating-graph', class: 'rating-graph', viewBox: `0 0 ${box.width} ${box.height}`, role: 'img', 'aria-labelledby': 'rating-graph-title' });
  el('title', { id: 'rating-graph-title' }, svg, `Rating over time: ${names.join(', ')}`);
  const axes = el('g', { class: 'axes' }, svg);
  for (const t of graph.yTicks) {
    el('line', { class: 'grid', x1: box.left, x2: box.width - box.right, y1: t.y, y2: t.y }, axes);
    el('text', { class: 'axis-label y', x: box.left - 6, y: t.y, 'text-anchor': 'end', 'dominant-baseline': 'middle' }, axes, String(t.rating));
  }
  const base = box.height - box.bottom;
  el('line', { class: 'axis', x1: box.left, x2: box.width - box.right, y1: base, y2: base }, axes);
  graph.xTicks.forEach((t, i) => {
    const anchor = graph.xTicks.length === 1 ? 'middle' : i === 0 ? 'start' : 'end';
    el('text', { class: 'axis-label x', x: t.x, y: base + 18, 'text-anchor': anchor }, axes, dateLabel(t.at));
  });
  graph.series.forEach((s, i) => {
    const g = el('g', { class: `series series-${s.category}`, 'data-category': s.category }, svg);
    el('polyline', { points: polylinePoints(s.points), fill: 'none' }, g);
    for (const p of s.points) {
      const dot = el('circle', { cx: p.x, cy: p.y, r: 3.5 }, g);
      el('title', {}, dot, `${names[i]}: ${Math.round(p.rating)} on ${dateLabel(p.at)}`);
    }
    // The legend, along the top, above the plot.
    const item = el('g', { class: 'legend', transform: `translate(${box.left + i * 120}, ${box.top / 2 - 2})` }, g);
    el('rect', { width: 10, height: 10, y: -5, rx: 2 }, item);
    el('text', { x: 14, 'dominant-baseline': 'middle' }, item, names[i]);
  });
  return svg;
}
