// The board: an SVG of squares, coordinates, highlights and pieces, and the ways to move on it —
// click a piece then a square, drag and drop (pointer events, so mouse, pen and touch alike), or
// the keyboard (arrow keys move between squares, Enter or Space picks up and puts down).
//
// The board knows nothing of the protocol. Its owner calls `update()` with what to show and the
// legal moves, and gets `onMove(uci)` back; the promotion picker is part of the board. While
// the opponent is to move the owner may offer premoves instead (`premover`, `premoveLegal`):
// the same click and drag set one up, `onPremove(uci)`. A king put on its own rook castles: in
// Chess960 that is the move itself (the legal list writes castling so, and the rook's square is
// among the king's destinations), in standard chess it stands for the king's two-square move.
// Moves slide (animate.js); a right button draws arrows and circles (arrows.js).

import { movedPieces, slide } from './animate.js';
import { onBoard, Shapes } from './arrows.js';
import { PIECE_NAMES, pieceId } from './pieces.js';
import { castlingMeant, parseSquare, pieceColor, squareName } from './chess.js';

const SVG = 'http://www.w3.org/2000/svg';
const UNIT = 100; // one square in SVG units
const DRAG_THRESHOLD_PX = 4;

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

/**
 * The shape of an arrow from the centre (x1, y1) to the centre (x2, y2), in SVG units of a board
 * whose squares are `unit` wide: `{x1, y1, x2, y2, head}` — a shaft that starts a little off the
 * first centre and stops at the head's base, and the head's three corners (its tip short of the
 * second centre), as a polygon's `points`. Null for an arrow of no length.
 */
export function arrowShape(x1, y1, x2, y2, unit = UNIT) {
  const len = Math.hypot(x2 - x1, y2 - y1);
  if (!(len > 0)) return null;
  const [ux, uy] = [(x2 - x1) / len, (y2 - y1) / len];
  const round = (v) => Math.round(v * 10) / 10;
  const start = unit * 0.15;
  const tip = len - unit * 0.12;
  const base = tip - unit * 0.38;
  const halfHead = unit * 0.22;
  const at = (d, side = 0) => [x1 + ux * d - uy * side, y1 + uy * d + ux * side];
  const [sx, sy] = at(start);
  const [bx, by] = at(base);
  const head = [at(tip), at(base, halfHead), at(base, -halfHead)].map(([x, y]) => `${round(x)},${round(y)}`).join(' ');
  return { x1: round(sx), y1: round(sy), x2: round(bx), y2: round(by), head };
}

export class Board {
  /**
   * @param {HTMLElement} container where the board goes
   * @param {object} options `onMove(uci)`; `label` for screen readers; `onPremove(uci)` and
   *   `onCancelPremoves()` for a board that premoves; `shapesKey`, where the arrows and circles
   *   drawn with the right button are kept (none: no drawing); `animate`, whether moves slide
   *   (not in the editor, whose pieces are put where they go)
   */
  constructor(container, { onMove, label = 'Chess board', onPremove = null, onCancelPremoves = null, shapesKey = null, animate = false }) {
    this.onMove = onMove;
    this.animate = animate;
    this.onPremove = onPremove;
    this.onCancelPremoves = onCancelPremoves;
    this.shapes = shapesKey ? new Shapes(shapesKey) : null;
    this.drawn = null; // what the last render showed: {placement, size, orientation}, to animate from
    this.dropped = null; // the square a dragged piece was just dropped on: it is there, no slide
    this.wrap = document.createElement('div');
    this.wrap.className = 'board-wrap';
    container.appendChild(this.wrap);
    this.svg = el('svg', { class: 'board', role: 'group', 'aria-label': label });
    this.wrap.appendChild(this.svg);
    this.state = {
      size: 8, placement: new Map(), orientation: 'white', lastMove: null, check: null, legal: [], mover: null, arrow: null,
      premover: null, premoves: [], premoveLegal: [],
    };
    this.selected = null;
    this.focusSquare = null;
    this.drag = null;
    this.deferred = false;
    this.picker = null;
    this.svg.addEventListener('pointerdown', (e) => this.pointerDown(e));
    this.svg.addEventListener('pointermove', (e) => this.pointerMove(e));
    this.svg.addEventListener('pointerup', (e) => this.pointerUp(e));
    this.svg.addEventListener('pointercancel', () => this.cancelDrag());
    // The right button draws: no context menu over the board.
    if (this.shapes) this.svg.addEventListener('contextmenu', (e) => e.preventDefault());
    this.svg.addEventListener('keydown', (e) => this.keyDown(e));
    // The page scrolls on touch everywhere but on the board, where a touch is a move.
    this.svg.style.touchAction = 'none';
  }

  /**
   * Shows a position. `state`: `size` (7 or 8), `placement` (Map square → FEN letter),
   * `orientation` ('white' at the bottom or 'black'), `lastMove` (UCI or null), `check` (the
   * square of a king in check or null), `legal` (UCI moves the viewer may make now; empty when
   * they may not move), `mover` (the colour whose pieces may be picked up, or null), `arrow`
   * (an arrow drawn over the pieces, `{uci, id, title}` — e.g. the engine's best move — or null),
   * `premover` (the colour that may set up premoves now, or null), `premoveLegal` (the UCI
   * premoves it may set up) and `premoves` (those set up, shown in their own colour).
   */
  update(state) {
    this.state = { ...this.state, ...state };
    if (this.selected && !this.destinations(this.selected).length) this.selected = null;
    if (!this.state.legal.length) this.closePicker();
    // Never rebuild under a dragging finger: the drop finishes first, then the latest state shows.
    if (this.drag?.moved) {
      this.deferred = true;
      return;
    }
    // Redraw only when something visible changed: a redraw replaces the squares, which would
    // cost keyboard focus its place and a pointer its target for no reason.
    if (this.currentSignature() === this.signature) return;
    this.render();
  }

  currentSignature() {
    const { size, placement, orientation, lastMove, check, legal, mover, arrow, premover, premoves, premoveLegal } = this.state;
    return JSON.stringify([size, [...placement], orientation, lastMove, check, legal, mover, this.selected, arrow, premover, premoves, premoveLegal]);
  }

  get interactive() {
    return this.state.legal.length > 0 && this.state.mover !== null;
  }

  /** True when the owner offers premoves (and no moves). */
  get premoving() {
    return !this.interactive && this.state.premover !== null && this.state.premoveLegal.length > 0;
  }

  /** The moves the pieces may make now: the legal ones, or else the premoves. */
  get moves() {
    if (this.interactive) return this.state.legal;
    return this.premoving ? this.state.premoveLegal : [];
  }

  destinations(from) {
    return [...new Set(this.moves.filter((m) => m.startsWith(from)).map((m) => m.slice(2, 4)))];
  }

  /**
   * The moves from→to (several: the promotions), or the castling a king put on its rook (or, in
   * Chess960, on its castling square) means. A king on its own rook in Chess960 is a move of its
   * own, so a click there castles rather than picking the rook up (`activate` asks this first).
   */
  options(from, to) {
    const moves = this.moves;
    const direct = moves.filter((m) => m.slice(0, 4) === from + to);
    if (direct.length) return direct;
    const castle = castlingMeant(moves, this.state.placement, from, to);
    return castle ? [castle] : [];
  }

  /** Screen position (file, rank) → SVG coordinates of the square's top-left corner. */
  origin(file, rank) {
    const n = this.state.size;
    const flipped = this.state.orientation === 'black';
    const col = flipped ? n - 1 - file : file;
    const row = flipped ? rank : n - 1 - rank;
    return [col * UNIT, row * UNIT];
  }

  render() {
    const { size: n, placement, orientation, lastMove, check, arrow, premoves } = this.state;
    this.signature = this.currentSignature();
    const premoveSquares = new Set(premoves.flatMap((m) => [m.slice(0, 2), m.slice(2, 4)]));
    const hadFocus = this.svg.contains(document.activeElement);
    this.svg.replaceChildren();
    this.svg.setAttribute('viewBox', `0 0 ${n * UNIT} ${n * UNIT}`);
    this.svg.dataset.size = String(n);
    this.svg.dataset.orientation = orientation;
    // A compact, comparable text of the position for tests and for debugging.
    this.svg.dataset.position = [...placement].sort().map(([sq, p]) => sq + p).join(' ');

    const squares = el('g', { class: 'squares' }, this.svg);
    const marks = el('g', { class: 'marks', 'pointer-events': 'none' }, this.svg);
    const coords = el('g', { class: 'coords', 'pointer-events': 'none', 'aria-hidden': 'true' }, this.svg);
    const pieces = el('g', { class: 'pieces', 'pointer-events': 'none' }, this.svg);
    const hints = el('g', { class: 'hints', 'pointer-events': 'none' }, this.svg);
    const dests = this.selected ? this.destinations(this.selected) : [];
    const lastFrom = lastMove?.slice(0, 2);
    const lastTo = lastMove?.slice(2, 4);
    if (!this.focusSquare || !parseSquare(this.focusSquare) || parseSquare(this.focusSquare).file >= n) {
      this.focusSquare = orientation === 'white' ? squareName(0, 0) : squareName(n - 1, n - 1);
    }

    for (let rank = 0; rank < n; rank++) {
      for (let file = 0; file < n; file++) {
        const sq = squareName(file, rank);
        const [x, y] = this.origin(file, rank);
        const light = (file + rank) % 2 === 1;
        const piece = placement.get(sq);
        const label = [sq, piece ? `${pieceColor(piece)} ${PIECE_NAMES[piece.toLowerCase()]}` : 'empty'];
        if (sq === this.selected) label.push('selected');
        if (dests.includes(sq)) label.push('legal destination');
        if (premoveSquares.has(sq)) label.push('premove');
        el('rect', {
          x, y, width: UNIT, height: UNIT,
          class: `sq ${light ? 'light' : 'dark'}`,
          'data-square': sq,
          role: 'button',
          tabindex: sq === this.focusSquare ? 0 : -1,
          'aria-label': label.join(', '),
        }, squares);
        if (sq === lastFrom || sq === lastTo) el('rect', { x, y, width: UNIT, height: UNIT, class: 'mark-last' }, marks);
        if (premoveSquares.has(sq)) el('rect', { x, y, width: UNIT, height: UNIT, class: 'mark-premove', 'data-square': sq }, marks);
        if (sq === this.selected) el('rect', { x, y, width: UNIT, height: UNIT, class: 'mark-selected' }, marks);
        if (sq === check) el('circle', { cx: x + UNIT / 2, cy: y + UNIT / 2, r: UNIT * 0.5, class: 'mark-check' }, marks);
        // Coordinates sit inside the edge squares, in the other square colour, as on lichess.
        const bottomRow = y === (n - 1) * UNIT;
        const leftCol = x === 0;
        if (bottomRow) {
          el('text', { x: x + UNIT - 6, y: y + UNIT - 7, class: `coord ${light ? 'on-light' : 'on-dark'}`, 'text-anchor': 'end' }, coords)
            .textContent = sq[0];
        }
        if (leftCol) {
          el('text', { x: x + 6, y: y + 22, class: `coord ${light ? 'on-light' : 'on-dark'}` }, coords).textContent = sq.slice(1);
        }
        if (piece) {
          el('use', {
            href: `#${pieceId(piece)}`, x: x + 2, y: y + 2, width: UNIT - 4, height: UNIT - 4,
            class: 'piece', 'data-square': sq, 'data-piece': piece,
          }, pieces);
        }
        if (dests.includes(sq)) {
          if (piece) el('circle', { cx: x + UNIT / 2, cy: y + UNIT / 2, r: UNIT * 0.44, class: 'hint-capture' }, hints);
          else el('circle', { cx: x + UNIT / 2, cy: y + UNIT / 2, r: UNIT * 0.15, class: 'hint-move' }, hints);
        }
      }
    }
    this.pieceLayer = pieces;
    this.animateFrom(this.drawn);
    this.drawn = { placement, size: n, orientation };
    this.drawArrow(arrow);
    this.drawShapes();
    if (hadFocus) this.focus();
  }

  /** Slides the pieces that moved since `before` (what the last render showed), see animate.js. */
  animateFrom(before) {
    const { size: n, placement, orientation } = this.state;
    const dropped = this.dropped;
    this.dropped = null;
    if (!this.animate || !before || before.size !== n || before.orientation !== orientation) return;
    const at = (sq) => {
      const { file, rank } = parseSquare(sq);
      return this.origin(file, rank);
    };
    const distance = (a, b) => {
      const [p, q] = [parseSquare(a), parseSquare(b)];
      return Math.hypot(p.file - q.file, p.rank - q.rank);
    };
    const items = [];
    for (const { from, to } of movedPieces(before.placement, placement, distance)) {
      const element = this.pieceLayer.querySelector(`use[data-square="${to}"]`);
      if (!element || to === dropped) continue;
      const [[fx, fy], [tx, ty]] = [at(from), at(to)];
      items.push([element, fx - tx, fy - ty]);
    }
    slide(items);
  }

  /** The layer of arrows and circles drawn with the right button (a board without: nothing). */
  drawShapes() {
    if (!this.shapes) return;
    const n = this.state.size;
    const centre = (sq) => {
      if (!onBoard(sq, n)) return null;
      const { file, rank } = parseSquare(sq);
      return this.origin(file, rank).map((v) => v + UNIT / 2);
    };
    this.shapes.draw(this.svg, centre, UNIT);
  }

  /** Draws `arrow` (`{uci, id, title}`, see `update`) over the pieces, if its squares are on the board. */
  drawArrow(arrow) {
    const n = this.state.size;
    const from = parseSquare(arrow?.uci?.slice(0, 2));
    const to = parseSquare(arrow?.uci?.slice(2, 4));
    if (!from || !to || [from.file, from.rank, to.file, to.rank].some((v) => v >= n)) return;
    const centre = ({ file, rank }) => this.origin(file, rank).map((v) => v + UNIT / 2);
    const shape = arrowShape(...centre(from), ...centre(to));
    if (!shape) return;
    const g = el('g', { class: 'arrow', 'pointer-events': 'none', 'data-uci': arrow.uci }, this.svg);
    if (arrow.id) g.id = arrow.id;
    if (arrow.title) {
      g.setAttribute('role', 'img');
      g.setAttribute('aria-label', arrow.title);
    }
    el('line', { x1: shape.x1, y1: shape.y1, x2: shape.x2, y2: shape.y2, class: 'arrow-shaft' }, g);
    el('polygon', { points: shape.head, class: 'arrow-head' }, g);
  }

  focus() {
    this.svg.querySelector(`rect.sq[data-square="${this.focusSquare}"]`)?.focus({ preventScroll: true });
  }

  squareAt(clientX, clientY) {
    const box = this.svg.getBoundingClientRect();
    const n = this.state.size;
    const col = Math.floor(((clientX - box.left) / box.width) * n);
    const row = Math.floor(((clientY - box.top) / box.height) * n);
    if (col < 0 || row < 0 || col >= n || row >= n) return null;
    const flipped = this.state.orientation === 'black';
    return squareName(flipped ? n - 1 - col : col, flipped ? row : n - 1 - row);
  }

  canPickUp(sq) {
    const piece = this.state.placement.get(sq);
    const color = this.interactive ? this.state.mover : this.state.premover;
    return Boolean(piece && pieceColor(piece) === color && this.destinations(sq).length);
  }

  /**
   * A click (or Enter) on `sq`: select, move the selected piece there, or deselect. While
   * premoving, a click on neither a destination nor a piece of ours cancels the premoves (as
   * on lichess); another premove replaces them, or joins them where the owner queues them.
   */
  activate(sq) {
    if (!sq || (!this.interactive && !this.premoving)) return false;
    if (this.selected && this.options(this.selected, sq).length) {
      this.tryMove(this.selected, sq);
      return true;
    }
    if (this.canPickUp(sq) && sq !== this.selected) {
      this.selected = sq;
    } else {
      if (this.premoving && sq !== this.selected && this.state.premoves.length) this.onCancelPremoves?.();
      this.selected = null;
    }
    this.render();
    return false;
  }

  pointerDown(e) {
    if (this.picker) return;
    const sq = this.squareAt(e.clientX, e.clientY);
    if (e.button === 2) {
      this.startShape(e, sq);
      return;
    }
    if (e.button !== 0) return;
    // A left click on the board wipes the arrows and circles, as on lichess.
    if (this.shapes?.clear()) this.drawShapes();
    if (!sq || (!this.interactive && !this.premoving)) return;
    e.preventDefault();
    this.focusSquare = sq;
    const wasSelected = this.selected === sq;
    if (this.activate(sq) || !this.canPickUp(sq)) return;
    // Possibly the start of a drag; a release without moving is a click and keeps the selection.
    this.selected = sq;
    this.drag = { from: sq, pointerId: e.pointerId, x: e.clientX, y: e.clientY, moved: false, wasSelected };
    this.svg.setPointerCapture?.(e.pointerId);
    this.render();
  }

  /** The right button went down on `sq`: an arrow or circle starts; premoves are cancelled. */
  startShape(e, sq) {
    if (!this.shapes || this.drag) return;
    e.preventDefault();
    if (this.state.premoves.length) this.onCancelPremoves?.();
    if (!sq) return;
    this.shapes.start(sq, e);
    this.svg.setPointerCapture?.(e.pointerId);
    this.drawShapes();
  }

  pointerMove(e) {
    if (this.shapes?.drawing?.pointerId === e.pointerId) {
      if (this.shapes.move(this.squareAt(e.clientX, e.clientY))) this.drawShapes();
      return;
    }
    const drag = this.drag;
    if (!drag || e.pointerId !== drag.pointerId) return;
    if (!drag.moved && Math.hypot(e.clientX - drag.x, e.clientY - drag.y) < DRAG_THRESHOLD_PX) return;
    const box = this.svg.getBoundingClientRect();
    const scale = (this.state.size * UNIT) / box.width;
    const x = (e.clientX - box.left) * scale - UNIT / 2;
    const y = (e.clientY - box.top) * scale - UNIT / 2;
    if (!drag.moved) {
      drag.moved = true;
      const original = this.pieceLayer?.querySelector(`use[data-square="${drag.from}"]`);
      if (original) {
        drag.ghost = original.cloneNode();
        original.classList.add('lifted');
        drag.ghost.classList.add('dragging');
        drag.ghost.removeAttribute('data-square');
        this.svg.appendChild(drag.ghost);
      }
    }
    drag.ghost?.setAttribute('x', String(x));
    drag.ghost?.setAttribute('y', String(y));
  }

  pointerUp(e) {
    if (this.shapes?.drawing?.pointerId === e.pointerId) {
      this.shapes.end(this.squareAt(e.clientX, e.clientY));
      this.drawShapes();
      return;
    }
    const drag = this.drag;
    if (!drag || e.pointerId !== drag.pointerId) return;
    this.drag = null;
    if (drag.moved) {
      const to = this.squareAt(e.clientX, e.clientY);
      if (to && to !== drag.from && this.options(drag.from, to).length) {
        this.tryMove(drag.from, to, true);
      } else {
        this.selected = to === drag.from ? drag.from : null;
        this.render();
      }
    } else if (drag.wasSelected) {
      // A second click on the selected piece puts it down.
      this.selected = null;
      this.render();
    }
    if (this.deferred) {
      this.deferred = false;
      this.render();
    }
  }

  cancelDrag() {
    if (this.shapes?.drawing) {
      this.shapes.drawing = null;
      this.drawShapes();
    }
    if (!this.drag) return;
    this.drag = null;
    this.deferred = false;
    this.render();
  }

  keyDown(e) {
    const sq = parseSquare(this.focusSquare);
    if (!sq) return;
    const n = this.state.size;
    const sign = this.state.orientation === 'white' ? 1 : -1;
    const moves = { ArrowUp: [0, sign], ArrowDown: [0, -sign], ArrowLeft: [-sign, 0], ArrowRight: [sign, 0] };
    if (moves[e.key]) {
      e.preventDefault();
      const [df, dr] = moves[e.key];
      const file = Math.min(n - 1, Math.max(0, sq.file + df));
      const rank = Math.min(n - 1, Math.max(0, sq.rank + dr));
      this.focusSquare = squareName(file, rank);
      this.render();
      this.focus();
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.activate(this.focusSquare);
    } else if (e.key === 'Escape') {
      this.selected = null;
      this.render();
    }
  }

  /**
   * Plays from→to, asking which piece first when the move is a promotion; `dropped`: the piece
   * was dragged there (so it is there already, and does not slide). A premove promotes to a queen.
   */
  tryMove(from, to, dropped = false) {
    const options = this.options(from, to);
    this.selected = null;
    if (dropped && options.length) this.dropped = options[0].slice(2, 4);
    if (!this.interactive) {
      if (options.length) this.onPremove?.(options.find((m) => m[4] === 'q') || options[0]);
      // The owner redraws with the premove; if it did not, the selection still goes.
      if (this.currentSignature() !== this.signature) this.render();
      return;
    }
    if (options.length > 1) {
      this.render();
      this.askPromotion(options);
    } else if (options.length === 1) {
      this.onMove(options[0]);
    }
  }

  /** Shows the promotion picker for `options` (UCI moves differing only in the promotion piece). */
  askPromotion(options) {
    this.closePicker();
    const color = pieceColor(this.state.placement.get(options[0].slice(0, 2)) || 'P');
    const picker = document.createElement('div');
    picker.className = 'promotion';
    picker.setAttribute('role', 'dialog');
    picker.setAttribute('aria-label', 'Promote to');
    const order = 'qcarbnf';
    const sorted = [...options].sort((a, b) => order.indexOf(a[4]) - order.indexOf(b[4]));
    for (const uci of sorted) {
      const letter = color === 'white' ? uci[4].toUpperCase() : uci[4];
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.promo = uci[4];
      button.setAttribute('aria-label', `Promote to ${PIECE_NAMES[uci[4]]}`);
      button.innerHTML = `<svg viewBox="0 0 45 45" aria-hidden="true"><use href="#${pieceId(letter)}"></use></svg>`;
      button.addEventListener('click', () => {
        this.closePicker();
        this.onMove(uci);
      });
      picker.appendChild(button);
    }
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.className = 'promotion-cancel';
    cancel.textContent = 'Cancel';
    cancel.addEventListener('click', () => this.closePicker());
    picker.appendChild(cancel);
    picker.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') this.closePicker();
    });
    this.wrap.appendChild(picker);
    this.picker = picker;
    picker.querySelector('button')?.focus();
  }

  /** Asks for the promotion piece of a typed move; the board's own picker, reused. */
  choosePromotion(options) {
    this.askPromotion(options);
  }

  closePicker() {
    this.picker?.remove();
    this.picker = null;
  }
}
