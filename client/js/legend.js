// The legend of minichess7's fairy pieces — the empress, the princess and the ferz — each drawn
// as the board draws it, with how it moves (docs/rules.md, "minichess7"), for the people who
// meet them for the first time: on a minichess7 game page and beside the lobby's variant choice.
// A native <details>, so it stays out of the way once known, and opens by keyboard. Chess960
// gets a note of the same kind: its shuffled starts, and how its castling goes and is played
// here (the king put on its own rook).

import { pieceId } from './pieces.js';

/** The fairy pieces: FEN letter, name, how it moves. */
export const FAIRY_PIECES = [
  { letter: 'C', name: 'Empress', moves: 'moves as a rook or as a knight (a chancellor)' },
  { letter: 'A', name: 'Princess', moves: 'moves as a bishop or as a knight (an archbishop)' },
  { letter: 'F', name: 'Ferz', moves: 'one square diagonally, to move or to capture' },
];

/** The variants whose pieces the legend explains. */
export function hasFairyPieces(variant) {
  return variant === 'minichess7';
}

/**
 * The legend as markup (all of it the page's own text): `id` names the element, `open` shows it
 * unfolded.
 */
export function legendHtml(id, { open = false } = {}) {
  const rows = FAIRY_PIECES.map(({ letter, name, moves }) => `
      <li class="legend-piece">
        <svg class="legend-icon" viewBox="0 0 45 45" aria-hidden="true"><use href="#${pieceId(letter)}"></use></svg>
        <span><strong>${name}</strong> <kbd>${letter}</kbd>: ${moves}.</span>
      </li>`).join('');
  return `
    <details class="fairy-legend" id="${id}"${open ? ' open' : ''}>
      <summary>Fairy pieces</summary>
      <ul class="legend-list">${rows}
      </ul>
      <p class="hint">The empress and the princess jump like a knight: nothing blocks those jumps. Pawns step one square, never two, and do not promote; there is no castling.</p>
    </details>`;
}

/** The Chess960 note as markup (the page's own text), as `legendHtml`. */
export function chess960Html(id, { open = false } = {}) {
  return `
    <details class="fairy-legend chess960-note" id="${id}"${open ? ' open' : ''}>
      <summary>Chess960</summary>
      <p class="hint">The pieces behind the pawns start in one of 960 orders, the same for both sides: the bishops on
        squares of opposite colours, the king somewhere between the rooks. Castling ends as in standard chess — O-O puts
        the king on g and the rook on f, O-O-O the king on c and the rook on d — wherever the two started; the squares
        they cross must be empty but for them, and the king may not be in check, pass through it or land in it. To
        castle, put the king on its rook (or type O-O).</p>
    </details>`;
}
