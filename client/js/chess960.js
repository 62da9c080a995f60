// Chess960 (Fischer random) for the page: its 960 starting positions by number, and its castling
// rights as X-FEN writes them. The numbering is Scharnagl's, the one lichess and python-chess use
// (518 is the standard RNBQKBNR), so a number means the same start everywhere. A castling right
// names a rook: `K`/`Q` (upper case White's) the outermost rook on that side of the king, a file
// letter (`A`–`H`, `a`–`h`) the rook on that file — an inner one in X-FEN, any in Shredder-FEN
// (`HAha`), which the server reads too. Pure, so Node's test runner checks it.

import { parseSquare, squareName } from './chess.js';

/** How many starts there are: numbers 0 to 959. */
export const CHESS960_COUNT = 960;

/** The number of the standard start among them. */
export const STANDARD_NUMBER = 518;

// Where the two knights go among the five squares the bishops and the queen leave free.
const KNIGHTS = [[0, 1], [0, 2], [0, 3], [0, 4], [1, 2], [1, 3], [1, 4], [2, 3], [2, 4], [3, 4]];

/**
 * White's back rank of start `n` (0–959), files a to h in upper case ("RNBQKBNR" for 518), or
 * null for a number out of range. The light-square bishop takes file 2·(n mod 4) + 1, the
 * dark-square one file 2·(n mod 4) of what is left of n, the queen the (n mod 6)-th free square
 * of what is left then, the knights the pair the rest names; rook, king, rook fill the last three.
 */
export function backRank(n) {
  if (!Number.isInteger(n) || n < 0 || n >= CHESS960_COUNT) return null;
  const rank = Array(8).fill(null);
  const free = () => rank.flatMap((p, file) => (p ? [] : [file]));
  rank[2 * (n % 4) + 1] = 'B';
  n = Math.floor(n / 4);
  rank[2 * (n % 4)] = 'B';
  n = Math.floor(n / 4);
  rank[free()[n % 6]] = 'Q';
  n = Math.floor(n / 6);
  const five = free();
  for (const i of KNIGHTS[n]) rank[five[i]] = 'N';
  const [rook, king, other] = free();
  rank[rook] = 'R';
  rank[king] = 'K';
  rank[other] = 'R';
  return rank.join('');
}

/** The FEN of start `n`: Black mirrors White, both may castle either way; null out of range. */
export function startFen(n) {
  const white = backRank(n);
  if (!white) return null;
  return `${white.toLowerCase()}/pppppppp/8/8/8/8/PPPPPPPP/${white} w KQkq - 0 1`;
}

/** A start number chosen at random (`random` returns [0, 1), as Math.random does). */
export function randomNumber(random = Math.random) {
  return Math.min(CHESS960_COUNT - 1, Math.floor(random() * CHESS960_COUNT));
}

let byPlacement = null; // the board field of each start → its number, made when first asked

/** The number of the start a FEN shows (its board only, the other fields aside), or null when it shows none. */
export function numberOf(fen) {
  if (!byPlacement) {
    byPlacement = new Map();
    for (let n = 0; n < CHESS960_COUNT; n++) byPlacement.set(startFen(n).split(' ')[0], n);
  }
  return byPlacement.get(String(fen ?? '').trim().split(/\s+/)[0]) ?? null;
}

/** The back rank of `color` on an 8×8 board: 0 for White, 7 for Black. */
export function homeRank(color) {
  return color === 'white' ? 0 : 7;
}

/** The square of `color`'s king when it stands on its back rank, else null (no castling then). */
export function homeKing(board, color) {
  const king = color === 'white' ? 'K' : 'k';
  for (let file = 0; file < 8; file++) if (board.get(squareName(file, homeRank(color))) === king) return squareName(file, homeRank(color));
  return null;
}

/**
 * The rook square castling right `right` (one letter of a FEN's castling field) names on `board`,
 * or null when the board has no such rook: `K`/`Q` the outermost rook on the h or a side of the
 * king on its back rank, a file letter the rook on that file of the back rank.
 */
export function rightRook(board, right) {
  if (typeof right !== 'string' || !/^[KQA-Hkqa-h]$/.test(right)) return null;
  const color = right === right.toUpperCase() ? 'white' : 'black';
  const king = homeKing(board, color);
  if (!king) return null;
  const rook = color === 'white' ? 'R' : 'r';
  const rank = homeRank(color);
  const kingFile = parseSquare(king).file;
  const letter = right.toLowerCase();
  if (letter === 'k' || letter === 'q') {
    // Outward from the far corner towards the king: the first rook met is the outermost.
    const files = letter === 'k' ? [7, 6, 5, 4, 3, 2, 1] : [0, 1, 2, 3, 4, 5, 6];
    for (const file of files) {
      if (letter === 'k' ? file <= kingFile : file >= kingFile) break;
      if (board.get(squareName(file, rank)) === rook) return squareName(file, rank);
    }
    return null;
  }
  const sq = `${letter}${rank + 1}`;
  return board.get(sq) === rook ? sq : null;
}

/**
 * The letter X-FEN writes for the castling right of the rook on `rookSq` (its colour's, on its
 * back rank, beside the king there): `K`/`Q` (`k`/`q`) when it is the outermost rook on its
 * side, its file letter otherwise; null when no such right could be.
 */
export function rightLetter(board, rookSq) {
  const rook = board.get(rookSq);
  const at = parseSquare(rookSq);
  if (!rook || rook.toLowerCase() !== 'r' || !at) return null;
  const color = rook === 'R' ? 'white' : 'black';
  const king = homeKing(board, color);
  if (at.rank !== homeRank(color) || !king || parseSquare(king).file === at.file) return null;
  const side = at.file > parseSquare(king).file ? 'K' : 'Q';
  const outermost = rightRook(board, color === 'white' ? side : side.toLowerCase()) === rookSq;
  const letter = outermost ? side : rookSq[0].toUpperCase();
  return color === 'white' ? letter : letter.toLowerCase();
}

/** Which side of its king the rook of castling right `right` stands on: 'king' (h side), 'queen' (a side), or null. */
export function rightSide(board, right) {
  const rook = rightRook(board, right);
  if (!rook) return null;
  const king = homeKing(board, right === right.toUpperCase() ? 'white' : 'black');
  return parseSquare(rook).file > parseSquare(king).file ? 'king' : 'queen';
}
