// The board editor's position model: a set-up position (pieces, side to move, castling rights,
// en passant square, clocks) of any variant, edited by placing and removing pieces, written
// out as FEN and read back in. Pure: no DOM, so tests/js checks it under Node.
//
// The model does not judge legality (the server's `GET /api/position` does, see editor.js); it
// only keeps the fields consistent with the board, as the server's checks 1, 3 and 4 of
// docs/rules.md section 4 describe: castling rights and the en passant square are written out
// only when the board still allows them, and minichess7 has neither.
//
// Chess960 may castle with any rook of the back rank beside the king there, one a side: its
// rights are kept by the rook's file (`H`, `b`: Shredder-FEN's letters, which do not change
// meaning as other rooks come and go) and written out as X-FEN (`K`/`Q` for the outermost rook
// on that side, the file for an inner one; chess960.js).

import { boardSize, parseSquare, pieceColor, squareName } from './chess.js';
import { homeKing, homeRank, numberOf, rightLetter, rightRook, STANDARD_NUMBER, startFen } from './chess960.js';

export const VARIANTS = ['standard', 'chess960', 'minichess7'];

/** The piece letters of each variant, in palette order (white's; black's are lower case). */
export const VARIANT_PIECES = { standard: 'KQRBNP', chess960: 'KQRBNP', minichess7: 'KQRBNCAFP' };

/** The initial positions (docs/rules.md); Chess960's is one of 960 (`startSetup`), the standard one here. */
export const START_FENS = {
  standard: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
  chess960: startFen(STANDARD_NUMBER),
  minichess7: 'nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1',
};

/** What each castling right needs: the king's and the rook's home squares. */
const CASTLING_SQUARES = { K: ['e1', 'h1', 'K', 'R'], Q: ['e1', 'a1', 'K', 'R'], k: ['e8', 'h8', 'k', 'r'], q: ['e8', 'a8', 'k', 'r'] };
export const CASTLING_RIGHTS = 'KQkq';

/**
 * A position: `{variant, size, placement: Map square → FEN letter, turn: 'white'|'black',
 * castling: string of wanted rights (KQkq; in Chess960 rook files, `HAha`), ep: square or null,
 * halfmove, fullmove}`.
 */
export function emptySetup(variant = 'standard') {
  const v = VARIANTS.includes(variant) ? variant : 'standard';
  return { variant: v, size: boardSize(v), placement: new Map(), turn: 'white', castling: '', ep: null, halfmove: 0, fullmove: 1 };
}

/** The variant's initial position; for Chess960 start `number` (0–959, Scharnagl's numbering). */
export function startSetup(variant = 'standard', number = STANDARD_NUMBER) {
  const v = VARIANTS.includes(variant) ? variant : 'standard';
  const fen = v === 'chess960' ? startFen(number) || START_FENS.chess960 : START_FENS[v];
  return parseFen(fen, v).setup;
}

/**
 * The variant a FEN is written for: by its number of ranks (7: minichess7), and among those of
 * 8, Chess960 for castling rights naming a rook by its file or for one of its starts other
 * than the standard one — else `current` where that is Chess960 (any Chess960 position may look
 * standard), standard otherwise. Null for a board of neither size.
 */
export function detectVariant(fen, current = null) {
  const fields = String(fen).trim().split(/\s+/);
  const ranks = fields[0].split('/').length;
  if (ranks === 7) return 'minichess7';
  if (ranks !== 8) return null;
  const number = numberOf(fen);
  if (/[A-Ha-h]/.test(fields[2] || '') || (number !== null && number !== STANDARD_NUMBER)) return 'chess960';
  return current === 'chess960' ? 'chess960' : 'standard';
}

/** True when `letter` is a piece of `variant` (either colour). */
export function isPieceOf(variant, letter) {
  return typeof letter === 'string' && letter.length === 1 && VARIANT_PIECES[variant].includes(letter.toUpperCase());
}

/** True when `sq` is a square of `setup`'s board. */
export function onBoard(setup, sq) {
  const p = parseSquare(sq);
  return Boolean(p) && p.file < setup.size && p.rank < setup.size;
}

function copy(setup, changes) {
  return { ...setup, placement: new Map(setup.placement), ...changes };
}

/** `setup` with `piece` on `sq` (replacing what stood there); unchanged for a foreign piece or square. */
export function place(setup, sq, piece) {
  if (!onBoard(setup, sq) || !isPieceOf(setup.variant, piece)) return setup;
  const next = copy(setup);
  next.placement.set(sq, piece);
  return next;
}

/** `setup` with `sq` emptied. */
export function remove(setup, sq) {
  if (!setup.placement.has(sq)) return setup;
  const next = copy(setup);
  next.placement.delete(sq);
  return next;
}

/** `setup` with the piece on `from` moved to `to` (taking what stood there); off the board removes it. */
export function movePiece(setup, from, to) {
  const piece = setup.placement.get(from);
  if (!piece || from === to) return setup;
  const next = remove(setup, from);
  return to && onBoard(setup, to) ? place(next, to, piece) : next;
}

/** The same pieces with nothing else: white to move, no rights, no en passant, clocks reset. */
export function clearBoard(setup) {
  return emptySetup(setup.variant);
}

export function setTurn(setup, turn) {
  return copy(setup, { turn: turn === 'black' ? 'black' : 'white' });
}

/**
 * `setup` with castling right `right` wanted or not: one of KQkq, or in Chess960 a rook's file
 * (`A`–`H` White's, `a`–`h` Black's). A Chess960 right wanted replaces any other of that side
 * of the king: one rook a side castles.
 */
export function setCastling(setup, right, on) {
  if (typeof right !== 'string' || right.length !== 1) return setup;
  if (setup.variant === 'chess960') {
    if (!/^[A-Ha-h]$/.test(right)) return setup;
    let rights = [...setup.castling].filter((r) => r !== right);
    if (on) {
      const white = right === right.toUpperCase();
      const side = sideOf(setup.placement, right);
      if (side) rights = rights.filter((r) => (r === r.toUpperCase()) !== white || sideOf(setup.placement, r) !== side);
      rights.push(right);
    }
    return copy(setup, { castling: orderRights(rights) });
  }
  if (!CASTLING_RIGHTS.includes(right)) return setup;
  const rights = new Set(setup.castling);
  if (on) rights.add(right);
  else rights.delete(right);
  return copy(setup, { castling: [...CASTLING_RIGHTS].filter((r) => rights.has(r)).join('') });
}

/** Chess960 rights by file in the order they are written: White's then Black's, the h side first. */
function orderRights(rights) {
  const key = (r) => (r === r.toUpperCase() ? 0 : 8) + (7 - ('abcdefgh'.indexOf(r.toLowerCase())));
  return [...new Set(rights)].sort((a, b) => key(a) - key(b)).join('');
}

/** The side of its king ('king': the h side, 'queen') a Chess960 right by file stands for on `placement`; null without the king home. */
function sideOf(placement, right) {
  const color = right === right.toUpperCase() ? 'white' : 'black';
  const king = homeKing(placement, color);
  if (!king) return null;
  const file = 'abcdefgh'.indexOf(right.toLowerCase());
  const kingFile = parseSquare(king).file;
  return file === kingFile ? null : file > kingFile ? 'king' : 'queen';
}

/** The square of the rook a Chess960 right by file stands for. */
function rightSquare(right) {
  return `${right.toLowerCase()}${homeRank(right === right.toUpperCase() ? 'white' : 'black') + 1}`;
}

export function setEnPassant(setup, sq) {
  return copy(setup, { ep: sq || null });
}

/**
 * The castling rights the board allows: king and rook on their home squares in standard chess
 * (KQkq); in Chess960 each rook on its back rank beside its king there, by file (`HAha`).
 */
export function availableCastling(setup) {
  if (setup.variant === 'chess960') {
    const rights = [];
    for (const [sq, piece] of setup.placement) {
      const color = piece === 'R' ? 'white' : piece === 'r' ? 'black' : null;
      if (!color || parseSquare(sq).rank !== homeRank(color)) continue;
      const right = color === 'white' ? sq[0].toUpperCase() : sq[0];
      if (sideOf(setup.placement, right)) rights.push(right);
    }
    return orderRights(rights);
  }
  if (setup.variant !== 'standard') return '';
  return [...CASTLING_RIGHTS].filter((r) => {
    const [king, rook, k, rk] = CASTLING_SQUARES[r];
    return setup.placement.get(king) === k && setup.placement.get(rook) === rk;
  }).join('');
}

/** The rights written out: those wanted that the board allows, in KQkq order (Chess960: one a side, by file). */
export function effectiveCastling(setup) {
  const available = availableCastling(setup);
  const rights = [...setup.castling].filter((r) => available.includes(r));
  if (setup.variant !== 'chess960') return rights.join('');
  // Pieces moved since the rights were chosen may leave two on one side of the king: the first written stays.
  const sides = new Set();
  return rights.filter((r) => {
    const key = `${r === r.toUpperCase()}:${sideOf(setup.placement, r)}`;
    if (sides.has(key)) return false;
    sides.add(key);
    return true;
  }).join('');
}

/** The castling field of a FEN for `setup`: its effective rights, as X-FEN in Chess960; '-' for none. */
export function castlingField(setup) {
  const rights = effectiveCastling(setup);
  if (setup.variant !== 'chess960') return rights || '-';
  return [...rights].map((r) => rightLetter(setup.placement, rightSquare(r))).join('') || '-';
}

/**
 * The en passant squares the board allows (not in minichess7), as rules.md's check 4 has it: on
 * rank 6 with White to move (rank 3 with Black), right behind an enemy pawn that could just have
 * stepped two squares, the square and the one the pawn came from empty.
 */
export function epCandidates(setup) {
  if (setup.variant === 'minichess7') return [];
  const white = setup.turn === 'white';
  const [rank, pawnRank, fromRank, pawn] = white ? [5, 4, 6, 'p'] : [2, 3, 1, 'P'];
  const out = [];
  for (let file = 0; file < 8; file++) {
    const sq = squareName(file, rank);
    if (setup.placement.get(squareName(file, pawnRank)) === pawn && !setup.placement.has(sq) && !setup.placement.has(squareName(file, fromRank))) {
      out.push(sq);
    }
  }
  return out;
}

/** The en passant square written out: the wanted one if the board allows it, else null. */
export function effectiveEp(setup) {
  return setup.ep && epCandidates(setup).includes(setup.ep) ? setup.ep : null;
}

/** The board field of a FEN. */
export function placementFen(setup) {
  const rows = [];
  for (let rank = setup.size - 1; rank >= 0; rank--) {
    let row = '';
    let empty = 0;
    for (let file = 0; file < setup.size; file++) {
      const piece = setup.placement.get(squareName(file, rank));
      if (piece) {
        if (empty) row += empty;
        row += piece;
        empty = 0;
      } else {
        empty += 1;
      }
    }
    rows.push(row + (empty ? empty : ''));
  }
  return rows.join('/');
}

/** The FEN of `setup`, with only the castling rights and en passant square the board allows. */
export function toFen(setup) {
  return [
    placementFen(setup),
    setup.turn === 'black' ? 'b' : 'w',
    castlingField(setup),
    effectiveEp(setup) || '-',
    String(setup.halfmove),
    String(setup.fullmove),
  ].join(' ');
}

/**
 * Reads `fen` as a position of `variant`: `{setup}`, or `{error}` when it cannot be read at all
 * (the board's shape, an unknown letter, a malformed field). Whether the position is possible is
 * the server's to say. Missing trailing fields default to `w - - 0 1`.
 */
export function parseFen(fen, variant = 'standard') {
  const v = VARIANTS.includes(variant) ? variant : 'standard';
  const size = boardSize(v);
  const fields = String(fen ?? '').trim().split(/\s+/).filter(Boolean);
  if (!fields.length) return { error: 'empty FEN' };
  if (fields.length > 6) return { error: `a FEN has at most 6 fields, found ${fields.length}` };
  const [board, side = 'w', castling = '-', ep = '-', half = '0', full = '1'] = fields;
  const rows = board.split('/');
  if (rows.length !== size) return { error: `the board needs ${size} ranks separated by '/', found ${rows.length}` };
  const placement = new Map();
  for (let i = 0; i < size; i++) {
    const rank = size - 1 - i;
    let file = 0;
    for (const ch of rows[i]) {
      if (ch >= '1' && ch <= '9') {
        file += Number(ch);
      } else if (isPieceOf(v, ch)) {
        if (file < size) placement.set(squareName(file, rank), ch);
        file += 1;
      } else {
        return { error: `unknown piece letter '${ch}' in ${v}` };
      }
    }
    if (file !== size) return { error: `rank ${rank + 1} has ${file} squares, expected ${size}` };
  }
  if (side !== 'w' && side !== 'b') return { error: `side to move "${side}": expected w or b` };
  const letters = v === 'chess960' ? /^[KQkqA-Ha-h]+$/ : /^[KQkq]+$/;
  if (castling !== '-' && (!letters.test(castling) || new Set(castling).size !== castling.length)) {
    const expected = v === 'chess960' ? 'some of KQkq or rook files such as HAha' : 'some of KQkq';
    return { error: `castling "${castling}": expected - or ${expected}` };
  }
  if (ep !== '-' && !/^[a-h][1-8]$/.test(ep)) return { error: `en passant "${ep}": expected - or a square such as e3` };
  if (!/^\d+$/.test(half)) return { error: `halfmove clock "${half}": expected a whole number` };
  if (!/^\d+$/.test(full) || Number(full) < 1) return { error: `move number "${full}": expected a whole number from 1` };
  const setup = {
    variant: v, size, placement, turn: side === 'b' ? 'black' : 'white',
    castling: castling === '-' ? ''
      : v === 'chess960' ? rightsByFile(placement, castling) : [...CASTLING_RIGHTS].filter((r) => castling.includes(r)).join(''),
    ep: ep === '-' ? null : ep, halfmove: Number(half), fullmove: Number(full),
  };
  return { setup };
}

/**
 * A Chess960 castling field as rights by file: `K`/`Q` become the file of the rook they name on
 * `placement` (dropped when there is none), file letters stay.
 */
function rightsByFile(placement, field) {
  const rights = [...field].map((r) => {
    if (!/[KQkq]/.test(r)) return r;
    const rook = rightRook(placement, r);
    if (!rook) return null;
    return r === r.toUpperCase() ? rook[0].toUpperCase() : rook[0];
  });
  return orderRights(rights.filter(Boolean));
}

/** The number of each piece letter on the board (for the palette's hints and tests). */
export function countPieces(setup) {
  const counts = {};
  for (const piece of setup.placement.values()) counts[piece] = (counts[piece] || 0) + 1;
  return counts;
}

/**
 * The FEN of a position shown on a game page: the placement after `ply` moves of a game that
 * started from `initialFen`, for the editor's "continue from here". The side to move and move
 * number follow from the ply; a castling right survives while its king and rook squares stayed
 * untouched by the moves played; the en passant square is the one behind a pawn's two-square
 * step just played. The halfmove clock restarts at 0.
 */
export function fenAfter({ variant, initialFen, moves, placement, ply }) {
  const parsed = parseFen(initialFen, variant);
  const base = parsed.setup || emptySetup(variant);
  const played = moves.slice(0, ply);
  const touched = new Set(played.flatMap((m) => [m.slice(0, 2), m.slice(2, 4)]));
  const squares = (r) => (variant === 'chess960'
    ? [homeKing(base.placement, r === r.toUpperCase() ? 'white' : 'black'), rightSquare(r)]
    : CASTLING_SQUARES[r].slice(0, 2));
  const castling = [...base.castling].filter((r) => !squares(r).some((sq) => touched.has(sq))).join('');
  const firstBlack = base.turn === 'black' ? 1 : 0;
  const index = ply + firstBlack;
  const turn = index % 2 === 0 ? 'white' : 'black';
  const fullmove = base.fullmove + Math.floor(index / 2);
  let ep = null;
  const last = played[played.length - 1];
  if (last && variant !== 'minichess7') {
    const from = parseSquare(last.slice(0, 2));
    const to = parseSquare(last.slice(2, 4));
    const piece = placement.get(last.slice(2, 4));
    if (piece && piece.toLowerCase() === 'p' && from.file === to.file && Math.abs(to.rank - from.rank) === 2) {
      ep = squareName(from.file, (from.rank + to.rank) / 2);
    }
  }
  const setup = { ...base, placement: new Map(placement), turn, castling, ep, halfmove: 0, fullmove };
  return toFen(setup);
}

/** `white` or `black`, the colour of a FEN letter (re-exported for the editor's palette). */
export { pieceColor };
