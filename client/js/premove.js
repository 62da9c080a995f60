// Where a piece could go on a later turn: the geometry of premoves. A premove is made while the
// opponent is to move, so the opponent's next move may change anything about the position but
// our own pieces: this module lists the moves that could be legal then — by each piece's way
// of moving (the fairy pieces of minichess7 too), ignoring whose turn it is, checks and pins.
//
// So a square held by an opponent's piece neither stops a line nor a pawn's step (the piece may
// move away), and a square held by one of our own pieces is a destination (it may be taken, and
// we take back) but a line stops there (a piece that takes it stands in the way just the same).
// A pawn may take on either forward diagonal (a piece may arrive there, or en passant). The
// server stays the judge: a premove is sent only once it is among the legal moves it sent.

import { applyUci, parseSquare, pieceColor, squareName } from './chess.js';
import { homeRank, rightRook } from './chess960.js';

const ORTHOGONAL = [[1, 0], [-1, 0], [0, 1], [0, -1]];
const DIAGONAL = [[1, 1], [1, -1], [-1, 1], [-1, -1]];
const KNIGHT = [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]];

/** Each role's moves: lines it slides along and single steps. Empress = rook + knight, princess = bishop + knight, ferz = one diagonal step. */
const ROLES = {
  n: { lines: [], steps: KNIGHT },
  b: { lines: DIAGONAL, steps: [] },
  r: { lines: ORTHOGONAL, steps: [] },
  q: { lines: [...ORTHOGONAL, ...DIAGONAL], steps: [] },
  k: { lines: [], steps: [...ORTHOGONAL, ...DIAGONAL] },
  c: { lines: ORTHOGONAL, steps: KNIGHT },
  a: { lines: DIAGONAL, steps: KNIGHT },
  f: { lines: [], steps: DIAGONAL },
};

/**
 * The castling rights of a FEN (its third field) as it writes them, e.g. `KQkq`, X-FEN's `KBgq`
 * or Shredder-FEN's `HAha` (see chess960.js), or '' for none.
 */
export function castlingRights(fen) {
  const field = String(fen).split(' ')[2] || '-';
  return field === '-' ? '' : field.replace(/[^KQkqA-Ha-h]/g, '');
}

/**
 * The castling rights left after the UCI move `uci` on `board`: a king's move (castling too)
 * ends both of its side's, a move from or onto the square of a rook with a right ends that one,
 * on whatever file the rook stands (Chess960's start anywhere).
 */
export function rightsAfter(rights, board, uci) {
  const piece = board.get(uci.slice(0, 2));
  const touched = [uci.slice(0, 2), uci.slice(2, 4)];
  return [...rights].filter((right) => {
    const white = right === right.toUpperCase();
    if (piece === (white ? 'K' : 'k')) return false;
    return !touched.includes(rightRook(board, right));
  }).join('');
}

/**
 * Every premove `color` could make in `position` — `{board, size, variant, castling}` (board: a
 * Map square → FEN letter, castling: rights as in a FEN) — as UCI moves. A pawn reaching the
 * last rank promotes to a queen (`e7e8q`) where the variant promotes; castling is written as the
 * server's legal moves write it: the king's two-square move (`e1g1`) in standard chess, the king
 * onto its own rook (`b1a1`) in Chess960.
 */
export function premoves(position, color) {
  const moves = [];
  for (const [sq, piece] of position.board) {
    if (pieceColor(piece) !== color) continue;
    for (const to of premoveTargets(position, sq)) moves.push(sq + to);
  }
  return moves;
}

/** The squares (with a promotion letter where one is due) the piece on `from` could premove to. */
export function premoveTargets({ board, size, variant = 'standard', castling = '' }, from) {
  const piece = board.get(from);
  const at = parseSquare(from);
  if (!piece || !at || at.file >= size || at.rank >= size) return [];
  const color = pieceColor(piece);
  const role = piece.toLowerCase();
  const onBoard = (file, rank) => file >= 0 && rank >= 0 && file < size && rank < size;
  const ours = (sq) => board.has(sq) && pieceColor(board.get(sq)) === color;
  const targets = [];
  if (role === 'p') return pawnTargets({ board, size, variant }, at, color, ours);
  const spec = ROLES[role];
  if (!spec) return [];
  for (const [df, dr] of spec.steps) {
    if (onBoard(at.file + df, at.rank + dr)) targets.push(squareName(at.file + df, at.rank + dr));
  }
  for (const [df, dr] of spec.lines) {
    for (let f = at.file + df, r = at.rank + dr; onBoard(f, r); f += df, r += dr) {
      const sq = squareName(f, r);
      targets.push(sq);
      if (ours(sq)) break;
    }
  }
  if (role === 'k') targets.push(...castlingTargets({ board, size, variant, castling }, from, color, ours));
  return [...new Set(targets)];
}

function pawnTargets({ size, variant }, at, color, ours) {
  const dir = color === 'white' ? 1 : -1;
  const rank = at.rank + dir;
  if (rank < 0 || rank >= size) return []; // a minichess7 pawn on the last rank is stuck
  // Minichess7 has no promotion (a pawn on the last rank stays one) and no double step.
  const promotes = variant !== 'minichess7' && (rank === 0 || rank === size - 1);
  const suffix = promotes ? 'q' : '';
  const targets = [];
  const ahead = squareName(at.file, rank);
  if (!ours(ahead)) {
    targets.push(ahead + suffix);
    const start = color === 'white' ? 1 : size - 2;
    const twoAhead = rank + dir >= 0 && rank + dir < size ? squareName(at.file, rank + dir) : null;
    if (variant !== 'minichess7' && at.rank === start && twoAhead && !ours(twoAhead)) targets.push(twoAhead);
  }
  for (const df of [-1, 1]) {
    if (at.file + df >= 0 && at.file + df < size) targets.push(squareName(at.file + df, rank) + suffix);
  }
  return targets;
}

/**
 * The king's castling squares: with the right, king and rook home, and none of our pieces on
 * the squares either crosses or lands on (but for the two of them) — the king's two-square
 * target in standard chess (from e1/e8, corner rooks), the rook's square in Chess960.
 */
function castlingTargets({ board, size, variant, castling }, from, color, ours) {
  if (variant === 'minichess7' || size !== 8) return [];
  const king = parseSquare(from);
  if (king.rank !== homeRank(color)) return [];
  const standard = variant !== 'chess960';
  if (standard && king.file !== 4) return [];
  const targets = [];
  for (const right of castling) {
    if ((right === right.toUpperCase()) !== (color === 'white')) continue;
    const rookSq = rightRook(board, right);
    if (!rookSq) continue;
    const rook = parseSquare(rookSq).file;
    if (standard && rook !== 0 && rook !== 7) continue;
    // After castling the king stands on the g- or c-file and the rook on the f- or d-file.
    const [kingTo, rookTo] = rook > king.file ? [6, 5] : [2, 3];
    const lo = Math.min(king.file, kingTo, rook, rookTo);
    const hi = Math.max(king.file, kingTo, rook, rookTo);
    let clear = true;
    for (let f = lo; f <= hi; f++) {
      if (f !== king.file && f !== rook && ours(squareName(f, king.rank))) clear = false;
    }
    if (clear) targets.push(standard ? squareName(kingTo, king.rank) : rookSq);
  }
  return targets;
}

/**
 * The position as if the UCI moves `moves` were played one after another (our queued
 * premoves, the opponent's replies unknown): `{...position, board, castling}`.
 */
export function positionAfter(position, moves) {
  let { board, castling } = position;
  for (const uci of moves) {
    castling = rightsAfter(castling, board, uci);
    board = applyUci(board, uci, position.variant);
  }
  return { ...position, board, castling };
}
