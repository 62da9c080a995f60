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
 * Which side the UCI move `uci` on `board` castles to, 'king' (towards the h-file) or 'queen',
 * or null when it is no castling. Castling is written two ways: the king's two-square move
 * (standard chess, `e1g1`) and the king onto its own rook (Chess960, `b1a1`, which standard
 * chess also takes for its castling, `e1h1`). A king never takes its own piece otherwise, so a
 * move of the server's legal list onto one's own rook castles. `variant`, where given, rules out
 * what that variant cannot castle from (standard chess: only the king on the e-file onto a
 * corner rook; minichess7: never), for moves not from the legal list: in standard chess a
 * premove of the king onto its own rook beside it means taking back there.
 */
export function castlingSide(board, uci, variant = null) {
  const king = board.get(uci.slice(0, 2));
  const f = parseSquare(uci.slice(0, 2));
  const t = parseSquare(uci.slice(2, 4));
  if (!king || king.toLowerCase() !== 'k' || !f || !t || f.rank !== t.rank || variant === 'minichess7') return null;
  const side = t.file > f.file ? 'king' : 'queen';
  if (Math.abs(t.file - f.file) === 2 && !board.has(uci.slice(2, 4))) return side;
  const rook = board.get(uci.slice(2, 4));
  if (!rook || rook.toLowerCase() !== 'r' || pieceColor(rook) !== pieceColor(king)) return null;
  if (variant === 'standard' && (f.file !== 4 || (t.file !== 0 && t.file !== 7))) return null;
  return side;
}

/**
 * The placement after the UCI move `uci` on `board` (a new Map) in `variant` (see
 * `castlingSide`). Knows castling in both ways it is written — the king's two-square move takes
 * the corner rook along; the king onto its own rook goes to the g-file (h side) or c-file (a
 * side) and the rook to the f- or d-file, wherever they started, even where that is where the
 * other stood or where the king already is — en passant (a pawn moving diagonally onto an empty
 * square takes the pawn beside it) and promotion. Only used for display; the server's FEN stays
 * the reference for the live position.
 */
export function applyUci(board, uci, variant = null) {
  const next = new Map(board);
  const from = uci.slice(0, 2);
  const to = uci.slice(2, 4);
  const promo = uci[4];
  const piece = next.get(from);
  const f = parseSquare(from);
  const t = parseSquare(to);
  if (!piece || !f || !t) return next;
  const role = piece.toLowerCase();
  const target = next.get(to);
  if (target && target.toLowerCase() === 'r' && castlingSide(board, uci, variant)) {
    // Both off first, then both on: their new squares may be each other's old ones.
    const kingside = t.file > f.file;
    next.delete(from);
    next.delete(to);
    next.set(squareName(kingside ? 6 : 2, f.rank), piece);
    next.set(squareName(kingside ? 5 : 3, f.rank), target);
    return next;
  }
  next.delete(from);
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
// The same, case-folded (the input lowercased): a leading letter may name a piece or a file, so
// a piece's reading and a pawn's are tried separately ("bc4": Bc4 or bxc4).
const PIECE_FOLDED = /^([kqrbncaf])([a-h])?([1-8])?(x)?([a-h][1-8])$/;
const PAWN_FOLDED = /^([a-h])?([1-8])?(x)?([a-h][1-8])(?:=?([qrbnca]))?$/;

/**
 * The castling move among the UCI `moves` that the king's move from `from` onto its own rook on
 * `to` stands for, or null: as on lichess, a king put on its rook castles that side. In Chess960
 * the legal moves hold that very move (the king takes its own rook); in standard chess they hold
 * the king's two-square move towards the corner rook instead.
 */
export function castlingByRook(moves, board, from, to) {
  const king = board.get(from);
  const rook = board.get(to);
  const f = parseSquare(from);
  const t = parseSquare(to);
  if (!king || !rook || !f || !t || king.toLowerCase() !== 'k' || rook.toLowerCase() !== 'r') return null;
  if (pieceColor(king) !== pieceColor(rook) || f.rank !== t.rank) return null;
  if (moves.includes(from + to)) return from + to;
  if (t.file !== 0 && t.file !== 7) return null;
  const dir = Math.sign(t.file - f.file);
  return moves.find((m) => {
    const d = parseSquare(m.slice(2, 4));
    return m.slice(0, 2) === from && d && d.rank === f.rank && d.file - f.file === 2 * dir;
  }) || null;
}

/**
 * The castling among the UCI `moves` that the king's two-square step from `from` to `to` stands
 * for where the moves write castling as the king onto its rook (Chess960), or null: the one on
 * that side that puts the king on `to` (`e1g1` for `e1h1`, as the server takes it too).
 */
export function castlingByStep(moves, board, from, to) {
  const king = board.get(from);
  const f = parseSquare(from);
  const t = parseSquare(to);
  if (!king || king.toLowerCase() !== 'k' || !f || !t || f.rank !== t.rank || Math.abs(t.file - f.file) !== 2) return null;
  const side = t.file > f.file ? 'king' : 'queen';
  if (t.file !== (side === 'king' ? 6 : 2)) return null;
  return moves.find((m) => m.slice(0, 2) === from && board.has(m.slice(2, 4)) && castlingSide(board, m) === side) || null;
}

/** The castling a king's move from→to that is not itself among `moves` means (see above), or null. */
export function castlingMeant(moves, board, from, to) {
  return castlingByRook(moves, board, from, to) || castlingByStep(moves, board, from, to);
}

/**
 * The SAN of the UCI move `uci` on `board` among the `legal` moves, without check marks: enough
 * to name a move unambiguously in a message ("Nbd2", "bxc4", "O-O", "e8=Q").
 */
export function sanOf(uci, board, legal) {
  const from = uci.slice(0, 2);
  const to = uci.slice(2, 4);
  const piece = board.get(from);
  const f = parseSquare(from);
  const t = parseSquare(to);
  if (!piece || !f || !t) return uci;
  const role = piece.toLowerCase();
  const castles = castlingSide(board, uci);
  if (castles) return castles === 'king' ? 'O-O' : 'O-O-O';
  const capture = board.has(to) || (role === 'p' && f.file !== t.file);
  if (role === 'p') return `${capture ? `${from[0]}x` : ''}${to}${uci[4] ? `=${uci[4].toUpperCase()}` : ''}`;
  const rivals = legal.filter((m) => m.slice(2, 4) === to && m.slice(0, 2) !== from && board.get(m.slice(0, 2)) === piece);
  let which = '';
  if (rivals.length) {
    if (!rivals.some((m) => m[0] === from[0])) which = from[0];
    else if (!rivals.some((m) => m[1] === from[1])) which = from[1];
    else which = from;
  }
  return `${role.toUpperCase()}${which}${capture ? 'x' : ''}${to}`;
}

/** The `legal` moves of a piece of role `role` (lowercase) matching a parsed SAN. */
function sanMoves(board, legal, { role, file, rank, to, promo }) {
  return legal.filter((mv) => {
    const piece = board.get(mv.slice(0, 2));
    if (!piece || piece.toLowerCase() !== role) return false;
    if (mv.slice(2, 4) !== to) return false;
    if (file && mv[0] !== file) return false;
    if (rank && mv[1] !== rank) return false;
    if (promo) return mv[4] === promo.toLowerCase();
    return true;
  });
}

/**
 * The moves a SAN text stands for: as written (`exact`: piece letters uppercase, files
 * lowercase), and under case-folding (`folded`: any case, "nf3", "NF3", "EXD5"); each null
 * when that reading does not parse.
 */
function sanReadings(san, board, legal) {
  const m = SAN_RE.exec(san);
  const exact = m ? sanMoves(board, legal, { role: (m[1] || 'P').toLowerCase(), file: m[2], rank: m[3], to: m[5], promo: m[6] }) : null;
  const lower = san.toLowerCase();
  const piece = PIECE_FOLDED.exec(lower);
  const pawn = PAWN_FOLDED.exec(lower);
  if (!piece && !pawn) return { exact, folded: null };
  const folded = new Set();
  if (piece) for (const mv of sanMoves(board, legal, { role: piece[1], file: piece[2], rank: piece[3], to: piece[5] })) folded.add(mv);
  if (pawn) for (const mv of sanMoves(board, legal, { role: 'p', file: pawn[1], rank: pawn[2], to: pawn[4], promo: pawn[5] })) folded.add(mv);
  return { exact, folded: [...folded] };
}

/** True when `moves` are one pawn move differing only in the promotion piece. */
function onlyPromotions(moves) {
  return moves.length > 1 && moves.every((mv) => mv.length === 5 && mv.slice(0, 4) === moves[0].slice(0, 4));
}

/**
 * Resolves a typed move to one of the `legal` UCI moves. Accepts UCI (`e2e4`, `e7e8q`; for
 * castling the king onto its own rook, `e1h1`, or its two-square step, `e1g1`, whichever the
 * legal list holds) and SAN (`Nf3`, `exd5`, `e8=Q`, `O-O`),
 * forgiving check marks, annotations, a missing or extra `x`, `0-0` for `O-O`, over-specified
 * origins (`Ngf3`) and letter case where that leaves one move (`nf3`, `NF3`, `o-o`). When
 * case-folding leaves several, the reading as written wins (`bxc4` the pawn, `Bxc4` the bishop);
 * failing that the answer names the candidates.
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
    const castle = uci[3] ? null : castlingMeant(legal, board, uci[1], uci[2]);
    if (castle) return { uci: castle };
    if (!/[A-Z]/.test(raw) || !SAN_RE.test(raw)) return { error: `${raw} is not a legal move here.` };
  }
  let san = raw.replace(/[+#!?]+$/g, '').replace(/0/g, 'O');
  if (/^O-?O-?O$/i.test(san) || /^O-?O$/i.test(san)) {
    // Whichever way the legal list writes it: the king's two squares, or onto its rook (Chess960).
    const side = san.replace(/-/g, '').length === 3 ? 'queen' : 'king';
    const found = legal.filter((m) => castlingSide(board, m) === side);
    return found.length === 1 ? { uci: found[0] } : { error: `${raw}: castling is not possible here.` };
  }
  san = raw.replace(/[+#!?]+$/g, '');
  const { exact, folded } = sanReadings(san, board, legal);
  if (!exact && !folded) return { error: `${raw} is neither UCI (e2e4) nor SAN (Nf3).` };
  const loose = folded || [];
  // One move (or one pawn move's promotions) whatever the case: that one. Else the reading as
  // written, if it finds any.
  const found = loose.length <= 1 || onlyPromotions(loose) || !exact?.length ? loose : exact;
  if (found.length === 1) return { uci: found[0] };
  if (onlyPromotions(found)) return { choices: found };
  if (found.length > 1) {
    const names = [...new Set(found.map((mv) => sanOf(mv.slice(0, 4), board, legal)))];
    return { error: `${raw} is ambiguous: ${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}.` };
  }
  return { error: `${raw} is not a legal move here.` };
}
