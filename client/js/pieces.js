// The piece drawings: one SVG <symbol> per piece, drawn here so the page needs no image host.
// Each drawing lives in a 45x45 box. White pieces are light with a dark outline; black ones are
// dark with light detail lines so their inner shapes stay readable on dark squares.

const BASE = 'M9 39.5h27v-3.2a2 2 0 0 0-2-2H11a2 2 0 0 0-2 2z';
const SMALL_BASE = 'M12 39.5h21v-3a2 2 0 0 0-2-2H14a2 2 0 0 0-2 2z';

const SHAPES = {
  // Pawn: a round head on a flared body.
  p: (c) => `
    <path d="${SMALL_BASE}" ${c.body}/>
    <path d="M15.5 34.3c0-6 3.5-9 5-12.3h4c1.5 3.3 5 6.3 5 12.3z" ${c.body}/>
    <ellipse cx="22.5" cy="21.6" rx="5.6" ry="1.9" ${c.body}/>
    <circle cx="22.5" cy="14" r="5.6" ${c.body}/>`,
  // Rook: a crenellated tower.
  r: (c) => `
    <path d="${BASE}" ${c.body}/>
    <path d="M12 34.3h21v-3.3H12z" ${c.body}/>
    <path d="M14.5 31l1-14.5h14l1 14.5z" ${c.body}/>
    <path d="M11 16.5V9h4.2v3.2h4.8V9h5v3.2h4.8V9H34v7.5z" ${c.body}/>
    <path d="M15.5 19.5h14M15 28h15" ${c.detail}/>`,
  // Bishop: a mitre with its slit, on a collar.
  b: (c) => `
    <path d="${BASE}" ${c.body}/>
    <path d="M16 34.3l1.5-5h10l1.5 5z" ${c.body}/>
    <path d="M14.5 29.3h16l-1-3.3h-14z" ${c.body}/>
    <path d="M22.5 9c-6.5 4.5-9 11-7 17h14c2-6-.5-12.5-7-17z" ${c.body}/>
    <circle cx="22.5" cy="7.3" r="2.6" ${c.body}/>
    <path d="M25.3 14.5l-4.6 5.6M19.5 23h6" ${c.detail}/>`,
  // Knight: a horse's head.
  n: (c) => `
    <path d="${BASE}" ${c.body}/>
    <path d="M12.5 34.3c0-3.5 1.5-5.8 4-8 2.5-2 4.5-3.5 4.5-6-1.5 1.7-3.5 2.6-6 3.6-1.4.6-2 1.6-2.6 2.6-.8 1.4-3.3 1.3-4.2-.2-.8-1.4-.6-3.1.4-5.2 1.8-3.7 4.3-7 7.4-9.3l-.6-4.3 3 2.5 1.3-4.6 2.2 4.2c6.2.8 10.6 5.6 12 12.2 1.1 5 .9 9.3.6 12.5z" ${c.body}/>
    <circle cx="17.3" cy="15.3" r="1.3" ${c.eye}/>
    <path d="M27.5 13.5c2.3 4.2 3.3 10 2.6 17.5" ${c.detail}/>
    <path d="M10.6 23.6l1.2-.5" ${c.detail}/>`,
  // Queen: a five-pointed crown with pearls.
  q: (c) => `
    <path d="${BASE}" ${c.body}/>
    <path d="M11.5 34.3L8.7 16.8l6.5 9.7.4-13.3 5.1 12.6 1.8-14 1.8 14 5.1-12.6.4 13.3 6.5-9.7-2.8 17.5z" ${c.body}/>
    <circle cx="8.7" cy="15" r="2.2" ${c.body}/><circle cx="15.6" cy="11.6" r="2.2" ${c.body}/>
    <circle cx="22.5" cy="9.6" r="2.2" ${c.body}/><circle cx="29.4" cy="11.6" r="2.2" ${c.body}/>
    <circle cx="36.3" cy="15" r="2.2" ${c.body}/>
    <path d="M12.3 30.5h20.4" ${c.detail}/>`,
  // King: a crown under a cross.
  k: (c) => `
    <path d="${BASE}" ${c.body}/>
    <path d="M12.2 34.3c-2.4-6-4.4-11.5-.8-14.6 3.5-2.9 8 .2 11.1 4.8 3.1-4.6 7.6-7.7 11.1-4.8 3.6 3.1 1.6 8.6-.8 14.6z" ${c.body}/>
    <path d="M22.5 24.5c-2.7-4-2.9-8.4 0-10 2.9 1.6 2.7 6 0 10z" ${c.body}/>
    <path d="M22.5 5.5v8.3M19 9.2h7" ${c.cross}/>
    <path d="M12.8 30.5h19.4" ${c.detail}/>`,
  // Ferz: a small piece with a diamond head — it steps one square diagonally.
  f: (c) => `
    <path d="${SMALL_BASE}" ${c.body}/>
    <path d="M17 34.3l2-5.3h7l2 5.3z" ${c.body}/>
    <path d="M22.5 13.5l8 8-8 8-8-8z" ${c.body}/>
    <path d="M22.5 17.5l4 4-4 4-4-4z" ${c.detail}/>`,
};

// Empress (rook + knight) and princess (bishop + knight): a large knight's head with a smaller
// rook tower or bishop mitre standing in front of it on one shared base, so each reads as
// "a knight and a ___" at a glance and neither can be taken for a plain piece.
const WIDE_BASE = 'M7.5 39.5h30v-3.2a2 2 0 0 0-2-2h-26a2 2 0 0 0-2 2z';
SHAPES.c = (c) => `
  <g transform="translate(10 3.6) scale(0.8)">${SHAPES.n(c)}</g>
  <g transform="translate(1.6 10.6) scale(0.64)">${SHAPES.r(c)}</g>
  <path d="${WIDE_BASE}" ${c.body}/>`;
SHAPES.a = (c) => `
  <g transform="translate(10 3.6) scale(0.8)">${SHAPES.n(c)}</g>
  <g transform="translate(1.6 10.6) scale(0.64)">${SHAPES.b(c)}</g>
  <path d="${WIDE_BASE}" ${c.body}/>`;

const STYLE = {
  w: {
    body: 'fill="#fbfaf7" stroke="#1b1b1b" stroke-width="1.5" stroke-linejoin="round"',
    detail: 'fill="none" stroke="#1b1b1b" stroke-width="1.3" stroke-linecap="round"',
    cross: 'fill="none" stroke="#1b1b1b" stroke-width="2.2" stroke-linecap="round"',
    eye: 'fill="#1b1b1b"',
  },
  b: {
    body: 'fill="#2a2826" stroke="#0d0d0d" stroke-width="1.5" stroke-linejoin="round"',
    detail: 'fill="none" stroke="#d9d6cf" stroke-width="1.3" stroke-linecap="round"',
    cross: 'fill="none" stroke="#0d0d0d" stroke-width="2.2" stroke-linecap="round"',
    eye: 'fill="#d9d6cf"',
  },
};

/** Names of pieces for screen readers, by lowercase FEN letter. */
export const PIECE_NAMES = {
  p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king',
  c: 'empress', a: 'princess', f: 'ferz',
};

/** The symbol id of a FEN piece letter: `P` → `piece-wP`, `c` → `piece-bC`. */
export function pieceId(letter) {
  const white = letter === letter.toUpperCase();
  return `piece-${white ? 'w' : 'b'}${letter.toUpperCase()}`;
}

/** Fills the page's hidden <svg id="piece-defs"> with every piece symbol (once). */
export function installPieces() {
  const defs = document.getElementById('piece-defs');
  if (!defs || defs.childElementCount > 0) return;
  let symbols = '';
  for (const color of ['w', 'b']) {
    for (const [role, draw] of Object.entries(SHAPES)) {
      symbols += `<symbol id="piece-${color}${role.toUpperCase()}" viewBox="0 0 45 45">${draw(STYLE[color])}</symbol>`;
    }
  }
  defs.innerHTML = symbols;
}
