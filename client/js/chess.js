// Just enough chess for the page: read FEN placements, name squares, replay UCI moves on a
// placement (to show earlier positions when reviewing), and turn typed SAN into one of the
// legal UCI moves the server sent. The server stays the judge of legality: this module never
// decides what is legal, it only matches against the server's `legal` list.

const FILES = 'abcdefgh';

/** Board width and height of a variant. */
export function boardSize(variant) {
  return variant === 'minichess7' ? 7 : 8;
}

/** `{file, rank}` (0-based) of a square name like `e4`, or null. */
export function parseSquare(name) {
  if (typeof name !== 'string' || name.length !== 2) return null;
  const file = FILES.indexOf(name[0]);
  const rank = name.charCodeAt(1) - 49;
  if (file < 0 || rank < 0 || rank > 7) return null;
  return { file, rank };
}

/** The name of a square, `squareName(4, 3)` → `e4`. */
export function squareName(file, rank) {
  return FILES[file] + (rank + 1);
}

/**
 * The pieces of a FEN as a Map from square name to FEN letter. Returns null when the
 * placement does not fit the board, so a caller can fall back to a fresh state.
 */
export function parsePlacement(fen, size) {
  const rows = String(fen).split(' ')[0].split('/');
  if (rows.length !== size) return null;
  const board = new Map();
  for (let i = 0; i < size; i++) {
    const rank = size - 1 - i;
    let file = 0;
    for (const ch of rows[i]) {
      if (ch >= '1' && ch <= '9') {
        file += Number(ch);
      } else if (/[pnbrqkcafPNBRQKCAF]/.test(ch)) {
        if (file >= size) return null;
        board.set(squareName(file, rank), ch);
        file += 1;
      } else {
        return null;
      }
    }
    if (file !== size) return null;
  }
  return board;
}

/** The side to move in a FEN: `white` or `black`. */
export function fenTurn(fen) {
  return String(fen).split(' ')[1] === 'b' ? 'black' : 'white';
}

/**
 * The number and side of ply `ply` (1 is the first move played) of a game that started from
 * `initialFen`: numbering starts at the FEN's fullmove number (0 counts as 1), and when Black
 * moves first its move is that number's second half ("12… Nc6").
 */
export function moveNumber(initialFen, ply) {
  const fields = String(initialFen).split(' ');
  const first = Math.max(1, Math.trunc(Number(fields[5])) || 1);
  const index = ply - 1 + (fields[1] === 'b' ? 1 : 0);
  return { number: first + Math.floor(index / 2), color: index % 2 === 0 ? 'white' : 'black' };
}

/**
 * The rows of a move list of `plies` moves from `initialFen`: `{number, white, black}` with the
 * ply shown in each cell, or null for an empty cell (White's, when Black moved first).
 */
export function moveRows(initialFen, plies) {
  const rows = [];
  for (let ply = 1; ply <= plies; ply++) {
    const { number, color } = moveNumber(initialFen, ply);
    if (color === 'white' || rows.length === 0) rows.push({ number, white: null, black: null });
    rows[rows.length - 1][color] = ply;
  }
  return rows;
}

/** The other side: `white` ↔ `black`. */
export function otherColor(color) {
  return color === 'white' ? 'black' : 'white';
}

/** True when two placements hold the same pieces on the same squares. */
export function samePlacement(a, b) {
  if (!a || !b || a.size !== b.size) return false;
  for (const [sq, piece] of a) if (b.get(sq) !== piece) return false;
  return true;
}

/** `white` for an uppercase FEN letter, `black` for lowercase. */
export function pieceColor(letter) {
  return letter === letter.toUpperCase() ? 'white' : 'black';
}

/**
 * The placement after the UCI move `uci` on `board` (a new Map). Knows castling (the king's
 * two-square move takes the corner rook along), en passant (a pawn moving diagonally onto an
 * empty square takes the pawn beside it) and promotion. Only used for display; the server's
 * FEN stays the reference for the live position.
 */
export function applyUci(board, uci) {
  const next = new Map(board);
  const from = uci.slice(0, 2);
  const to = uci.slice(2, 4);
  const promo = uci[4];
  const piece = next.get(from);
  const f = parseSquare(from);
  const t = parseSquare(to);
  if (!piece || !f || !t) return next;
  next.delete(from);
  const role = piece.toLowerCase();
  if (role === 'k' && Math.abs(t.file - f.file) === 2) {
    const rookFrom = squareName(t.file > f.file ? 7 : 0, f.rank);
    const rookTo = squareName((f.file + t.file) / 2, f.rank);
    const rook = next.get(rookFrom);
    if (rook) {
      next.delete(rookFrom);
      next.set(rookTo, rook);
    }
  }
  if (role === 'p' && f.file !== t.file && !next.has(to)) {
    next.delete(squareName(t.file, f.rank));
  }
  next.set(to, promo ? (pieceColor(piece) === 'white' ? promo.toUpperCase() : promo.toLowerCase()) : piece);
  return next;
}

/** The square of `color`'s king on `board`, or null. */
export function kingSquare(board, color) {
  const king = color === 'white' ? 'K' : 'k';
  for (const [sq, piece] of board) if (piece === king) return sq;
  return null;
}

const UCI_RE = /^([a-h][1-8])([a-h][1-8])([qrbnca])?$/;
const SAN_RE = /^([KQRBNCAF])?([a-h])?([1-8])?(x)?([a-h][1-8])(?:=?([QRBNCAF]))?$/;

/**
 * Resolves a typed move to one of the `legal` UCI moves. Accepts UCI (`e2e4`, `e7e8q`) and
 * SAN (`Nf3`, `exd5`, `e8=Q`, `O-O`), forgiving check marks, annotations, a missing or extra
 * `x`, `0-0` for `O-O` and over-specified origins (`Ngf3`).
 *
 * Returns `{uci}`; `{choices}` when only the promotion piece is missing; or `{error}`.
 */
export function resolveMove(text, board, legal) {
  const raw = String(text).trim();
  if (!raw) return { error: 'Type a move, for example e2e4 or Nf3.' };
  const lower = raw.toLowerCase();
  const uci = UCI_RE.exec(lower);
  if (uci) {
    if (legal.includes(lower)) return { uci: lower };
    const choices = legal.filter((m) => m.length === 5 && m.startsWith(lower));
    if (!uci[3] && choices.length > 0) return { choices };
    if (!/[A-Z]/.test(raw) || !SAN_RE.test(raw)) return { error: `${raw} is not a legal move here.` };
  }
  let san = raw.replace(/[+#!?]+$/g, '').replace(/0/g, 'O');
  if (/^O-?O-?O$/i.test(san) || /^O-?O$/i.test(san)) {
    const long = san.replace(/-/g, '').length === 3;
    const found = legal.filter((m) => {
      const from = parseSquare(m.slice(0, 2));
      const to = parseSquare(m.slice(2, 4));
      const piece = board.get(m.slice(0, 2));
      return piece && piece.toLowerCase() === 'k' && Math.abs(to.file - from.file) === 2 &&
        (long ? to.file < from.file : to.file > from.file);
    });
    return found.length === 1 ? { uci: found[0] } : { error: `${raw}: castling is not possible here.` };
  }
  const m = SAN_RE.exec(san);
  if (!m) return { error: `${raw} is neither UCI (e2e4) nor SAN (Nf3).` };
  const [, role, file, rank, , to, promo] = m;
  const wanted = (role || 'P').toLowerCase();
  const found = legal.filter((mv) => {
    const piece = board.get(mv.slice(0, 2));
    if (!piece || piece.toLowerCase() !== wanted) return false;
    if (mv.slice(2, 4) !== to) return false;
    if (file && mv[0] !== file) return false;
    if (rank && mv[1] !== rank) return false;
    if (promo) return mv[4] === promo.toLowerCase();
    return true;
  });
  if (found.length === 1) return { uci: found[0] };
  if (found.length > 1 && found.every((mv) => mv.length === 5 && mv.slice(0, 4) === found[0].slice(0, 4))) {
    return { choices: found };
  }
  if (found.length > 1) return { error: `${raw} is ambiguous: say which piece, e.g. ${wanted === 'p' ? '' : (role || '')}${found[0][0]}${to}.` };
  return { error: `${raw} is not a legal move here.` };
}
