// Moves slide: when the board shows a new position that is one move away from the last (a move
// by either side, a castling, one step back or forth through the moves), each piece that moved
// slides from its old square to its new one; a taken piece just goes. A jump further (a jump in
// the move list, a new game) shows at once. Nothing moves for people who asked their system for
// less motion.

const DURATION_MS = 150;
/** More pieces moved than this is not one move (castling moves two; a step back undoes one). */
const MOST_MOVED = 4;

export function reducedMotion() {
  try {
    return Boolean(globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches);
  } catch {
    return false;
  }
}

/**
 * The pieces that moved from placement `before` to `after` (Maps square → FEN letter), as
 * `[{from, to}]`: each square that gained a piece, matched to the nearest square that lost the
 * same piece. Empty when the change is not one move (more than a few pieces moved).
 */
export function movedPieces(before, after, distance) {
  const lost = [];
  const gained = [];
  for (const [sq, p] of before) if (after.get(sq) !== p) lost.push({ sq, p });
  for (const [sq, p] of after) if (before.get(sq) !== p) gained.push({ sq, p });
  if (gained.length > MOST_MOVED || lost.length > MOST_MOVED + 1) return [];
  const moved = [];
  for (const { sq, p } of gained) {
    let best = null;
    for (const l of lost) {
      if (l.p !== p || l.used) continue;
      if (!best || distance(l.sq, sq) < distance(best.sq, sq)) best = l;
    }
    if (best) {
      best.used = true;
      moved.push({ from: best.sq, to: sq });
    }
  }
  return moved;
}

/**
 * Slides each `[element, dx, dy]`: the element drawn at its new place starts (dx, dy) away, in
 * the SVG's units, and moves home. The Web Animations API, so nothing is left behind when a
 * redraw replaces the element mid-way.
 */
export function slide(items) {
  if (!items.length || reducedMotion()) return;
  for (const [element, dx, dy] of items) {
    if (typeof element.animate !== 'function') continue;
    element.animate(
      [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'translate(0px, 0px)' }],
      { duration: DURATION_MS, easing: 'ease-out' },
    );
  }
}
