// Arrows and circles a person draws on the board to think aloud, as on lichess: a right-drag
// from one square to another draws an arrow, a right-click on a square a circle; the same shape
// again takes it away. The colour comes from the modifier keys: none green, Shift red, Alt (or
// Ctrl, or Meta) blue, Shift with one of those yellow. A left click on the board clears them.
//
// They belong to the page: kept in sessionStorage under the page's path, so a reload keeps them
// and another tab or game starts clean. The board (board.js) feeds this the pointer and asks it
// to draw its layer over the pieces after each redraw.

import { arrowShape } from './board.js';
import { parseSquare } from './chess.js';
import { svgMaker } from './svg.js';

export const BRUSHES = ['green', 'red', 'blue', 'yellow'];
const KEY_PREFIX = 'gambit:shapes:';
const SQUARE = /^[a-h][1-8]$/;

/** The brush of a pointer event's modifier keys. */
export function brushOf(e) {
  const shift = Boolean(e.shiftKey);
  const alt = Boolean(e.altKey || e.ctrlKey || e.metaKey);
  if (shift && alt) return 'yellow';
  if (shift) return 'red';
  return alt ? 'blue' : 'green';
}

/**
 * `shapes` with `shape` (`{from, to, brush}`, `to` equal to `from` for a circle) toggled: the
 * same shape in the same colour is taken away; in another colour it is recoloured; else added.
 */
export function toggleShape(shapes, shape) {
  const same = shapes.find((s) => s.from === shape.from && s.to === shape.to);
  const others = shapes.filter((s) => s !== same);
  return same && same.brush === shape.brush ? others : [...others, shape];
}

function valid(s) {
  return s && SQUARE.test(s.from) && SQUARE.test(s.to) && BRUSHES.includes(s.brush);
}

export class Shapes {
  /** `key`: what the shapes are kept under (the page's path). */
  constructor(key) {
    this.key = KEY_PREFIX + key;
    this.list = this.load();
    this.drawing = null; // the shape being drawn: {from, to, brush, pointerId}
  }

  load() {
    try {
      const stored = JSON.parse(sessionStorage.getItem(this.key) || '[]');
      return Array.isArray(stored) ? stored.filter(valid) : [];
    } catch {
      return []; // unreadable or no storage: none
    }
  }

  save() {
    try {
      if (this.list.length) sessionStorage.setItem(this.key, JSON.stringify(this.list));
      else sessionStorage.removeItem(this.key);
    } catch { /* no storage: they last as long as the page */ }
  }

  /** A right button went down on `sq` (with the modifiers of event `e`). */
  start(sq, e) {
    this.drawing = { from: sq, to: sq, brush: brushOf(e), pointerId: e.pointerId };
  }

  /** The pointer moved over `sq` (null: off the board) while drawing; true if what shows changed. */
  move(sq) {
    if (!this.drawing || !sq || sq === this.drawing.to) return false;
    this.drawing.to = sq;
    return true;
  }

  /** The button came up over `sq`: the shape drawn is toggled (off the board: nothing). */
  end(sq) {
    const d = this.drawing;
    this.drawing = null;
    if (!d || !sq) return;
    this.list = toggleShape(this.list, { from: d.from, to: sq, brush: d.brush });
    this.save();
  }

  /** Clears every shape; true if there were any. */
  clear() {
    this.drawing = null;
    if (!this.list.length) return false;
    this.list = [];
    this.save();
    return true;
  }

  /**
   * Draws the shapes (and the one being drawn) as a layer of `svg`, replacing the last one;
   * `centre(sq)` gives a square's centre in the board's units (null when off this board),
   * `unit` a square's width.
   */
  draw(svg, centre, unit) {
    svg.querySelector(':scope > g.user-shapes')?.remove();
    const el = svgMaker(svg.ownerDocument);
    const layer = el('g', { class: 'user-shapes', 'pointer-events': 'none', 'aria-hidden': 'true' }, svg);
    const shown = this.drawing ? [...this.list, { ...this.drawing, current: true }] : this.list;
    for (const shape of shown) {
      const from = centre(shape.from);
      const to = centre(shape.to);
      if (!from || !to) continue;
      const attrs = { 'data-brush': shape.brush, 'data-from': shape.from, 'data-to': shape.to };
      const cls = `brush-${shape.brush}${shape.current ? ' current' : ''}`;
      if (shape.from === shape.to) {
        el('circle', { ...attrs, class: `user-circle ${cls}`, cx: from[0], cy: from[1], r: unit * 0.46 }, layer);
        continue;
      }
      const s = arrowShape(...from, ...to, unit);
      if (!s) continue;
      const g = el('g', { ...attrs, class: `user-arrow ${cls}` }, layer);
      el('line', { x1: s.x1, y1: s.y1, x2: s.x2, y2: s.y2, class: 'user-arrow-shaft' }, g);
      el('polygon', { points: s.head, class: 'user-arrow-head' }, g);
    }
  }
}

/** Whether `sq` names a square of a board `size` wide (shapes kept from a bigger board are skipped). */
export function onBoard(sq, size) {
  const p = parseSquare(sq);
  return Boolean(p) && p.file < size && p.rank < size;
}
