// Chess in words, for blind mode (game/blind.js) and anything else that speaks: a move
// ("Black plays knight f6", "White plays e takes d5, check", "White castles kingside"), the
// board rank by rank, where a kind of piece stands, what is on a square, the clocks, the move
// list, and the commands blind mode takes. Pure — no DOM, no clock of its own — so Node's test
// runner checks it (tests/js/blind.test.mjs). The wording follows lichess's blind mode: pieces
// by name, pawns by square alone, "takes" for a capture.

import { moveNumber, parseSquare, pieceColor, squareName } from './chess.js';
import { formatTime, LOW_MS } from './clock.js';
import { headline } from './outcome.js';
import { PIECE_NAMES } from './pieces.js';

const SIDES = { white: 'White', black: 'Black' };
const PLURALS = {
  p: 'pawns', n: 'knights', b: 'bishops', r: 'rooks', q: 'queens', k: 'kings', c: 'empresses', a: 'princesses', f: 'ferzes',
};
const SAN_RE = /^([KQRBNCAF])?([a-h])?([1-8])?(x)?([a-h][1-8])(?:=?([QRBNCAF]))?([+#])?/;

/**
 * A SAN move in words, without the side: "knight f6", "e takes d5", "e8 promotes to queen",
 * "castles kingside", each with ", check" or ", checkmate" when the SAN says so.
 */
export function sanWords(san) {
  const text = String(san || '').trim();
  const mark = /#/.test(text) ? ', checkmate' : /\+/.test(text) ? ', check' : '';
  const bare = text.replace(/[+#!?]+$/g, '');
  if (/^(O-O-O|0-0-0)$/.test(bare)) return `castles queenside${mark}`;
  if (/^(O-O|0-0)$/.test(bare)) return `castles kingside${mark}`;
  const m = SAN_RE.exec(bare);
  if (!m) return text; // not SAN after all: said as written
  const [, role, file, rank, capture, to, promo] = m;
  const parts = [];
  if (role) parts.push(PIECE_NAMES[role.toLowerCase()]);
  // What tells two pieces apart ("knight b d7"), or the file a pawn takes from ("e takes d5").
  const from = `${file || ''}${rank || ''}`;
  if (from) parts.push(from);
  if (capture) parts.push('takes');
  parts.push(to);
  let words = parts.join(' ');
  if (promo) words += `${capture ? ',' : ''} promotes to ${PIECE_NAMES[promo.toLowerCase()]}`;
  return words + mark;
}

/**
 * A move as it is announced: "White plays e4", "Black plays knight takes f6, check",
 * "White castles kingside". `before` (the placement before the move) and `uci` tell an en
 * passant capture, which SAN writes like any pawn capture.
 */
export function moveWords({ san, uci, color, before }) {
  let words = sanWords(san);
  if (before && uci && enPassant(before, uci)) words = words.replace(/^([a-h] takes [a-h][1-8])/, '$1 en passant');
  const side = SIDES[color] || '';
  return words.startsWith('castles') ? `${side} ${words}` : `${side} plays ${words}`;
}

/** True when `uci` on `before` is a pawn taking en passant (diagonally onto an empty square). */
function enPassant(before, uci) {
  const piece = before.get(uci.slice(0, 2));
  return Boolean(piece) && piece.toLowerCase() === 'p' && uci[0] !== uci[2] && !before.has(uci.slice(2, 4));
}

/** "white knight" for a FEN letter. */
export function pieceWords(letter) {
  return `${pieceColor(letter)} ${PIECE_NAMES[letter.toLowerCase()] || 'piece'}`;
}

/**
 * The board rank by rank, one line each, as seen from `from` (White reads from the top rank
 * down and a to h; Black the other way round): "Rank 8: black rook a8, black king e8." and
 * "Rank 5: empty."
 */
export function boardWords(board, size, from = 'white') {
  const ranks = [...Array(size).keys()];
  const files = [...Array(size).keys()];
  if (from === 'white') ranks.reverse();
  else files.reverse();
  return ranks.map((rank) => {
    const pieces = files.map((file) => squareName(file, rank)).filter((sq) => board.has(sq)).map((sq) => `${pieceWords(board.get(sq))} ${sq}`);
    return `Rank ${rank + 1}: ${pieces.length ? pieces.join(', ') : 'empty'}.`;
  });
}

/** The piece kind a word names: a FEN letter in either case, or a name, singular or plural. Null for none. */
export function roleOf(word) {
  const w = String(word || '').trim().toLowerCase();
  if (w.length === 1 && w in PIECE_NAMES) return w;
  for (const [letter, name] of Object.entries(PIECE_NAMES)) if (w === name || w === PLURALS[letter]) return letter;
  return null;
}

/** Squares in reading order: by file, then rank (a1, a2, b1). */
function bySquare(a, b) {
  return a[0] === b[0] ? Number(a.slice(1)) - Number(b.slice(1)) : a < b ? -1 : 1;
}

/** Where both sides' pieces of kind `role` stand: "White knights: b1, g1. Black knights: b8, g8." */
export function pieceListWords(board, role) {
  return ['white', 'black'].map((color) => {
    const letter = color === 'white' ? role.toUpperCase() : role.toLowerCase();
    const squares = [...board].filter(([, p]) => p === letter).map(([sq]) => sq).sort(bySquare);
    return `${SIDES[color]} ${PLURALS[role]}: ${squares.length ? squares.join(', ') : 'none'}.`;
  }).join(' ');
}

/** What stands on `square`: "e4: white pawn.", "e5: empty.", or why it is no square here. */
export function squareWords(board, size, square) {
  const name = String(square || '').trim().toLowerCase();
  const parsed = parseSquare(name);
  if (!parsed || parsed.file >= size || parsed.rank >= size) {
    return `${square || 'That'} is not a square of this board (a1 to ${squareName(size - 1, size - 1)}).`;
  }
  const piece = board.get(name);
  return `${name}: ${piece ? pieceWords(piece) : 'empty'}.`;
}

/** A time for the ear: "4 minutes 58 seconds", "1 hour 2 minutes", "9.4 seconds" under ten seconds. */
export function durationWords(ms) {
  const total = Math.max(0, Math.floor(ms));
  if (total < LOW_MS) return `${formatTime(total).split(':')[1].replace(/^0(?=\d)/, '')} seconds`;
  const secs = Math.floor(total / 1000);
  const parts = [[Math.floor(secs / 3600), 'hour'], [Math.floor(secs / 60) % 60, 'minute'], [secs % 60, 'second']];
  const said = parts.filter(([n]) => n > 0).map(([n, unit]) => `${n} ${unit}${n === 1 ? '' : 's'}`);
  return said.length ? said.join(' ') : '0 seconds';
}

/** Both clocks: "White: 4 minutes 58 seconds, running. Black: 5 minutes." (`times` as `{white, black}` ms). */
export function clockWords(times, running) {
  if (!times) return 'This game has no clock.';
  return ['white', 'black'].map((c) => `${SIDES[c]}: ${durationWords(times[c])}${running === c ? ', running' : ''}.`).join(' ');
}

/** The last `count` moves, numbered: "Moves 9 to 10: 9. White knight f3, Black knight c6. 10. White …". */
export function moveListWords(initialFen, sans, count = 10) {
  if (!sans.length) return 'No moves yet.';
  const first = Math.max(0, sans.length - count);
  const said = [];
  for (let ply = first + 1; ply <= sans.length; ply++) {
    const { number, color } = moveNumber(initialFen, ply);
    const prefix = color === 'white' || ply === first + 1 ? `${number}. ` : '';
    said.push(`${prefix}${SIDES[color]} ${sanWords(sans[ply - 1])}`);
  }
  const span = `${moveNumber(initialFen, first + 1).number} to ${moveNumber(initialFen, sans.length).number}`;
  return `${sans.length} ${sans.length === 1 ? 'move' : 'moves'}${first > 0 ? `, the last ${count}` : ''} (moves ${span}): ${said.join(', ')}.`;
}

/** How the game ended, as the status line says it. */
export function endWords(result, reason) {
  return `Game over: ${headline(result, reason)}.`;
}

/** A low-clock warning: "Low time: 9.8 seconds left." */
export function lowTimeWords(ms) {
  return `Low time: ${durationWords(ms)} left.`;
}

/** The commands blind mode takes, as read out by `h`. */
export const HELP = 'Type a move in SAN or UCI, for example e4, Nf3, O-O or e2e4, and press Enter. Commands: '
  + 'b or board reads the board rank by rank; p and a piece, for example p N or p knight, says where those pieces stand; '
  + 's and a square, for example s e4, says what is on it; c or clock reads both clocks; '
  + 'l or moves reads the last moves; h or help reads this.';

/**
 * What a line typed in blind mode asks for: `{command: 'board'|'clock'|'moves'|'help'}`,
 * `{command: 'pieces', role}`, `{command: 'square', square}`, `{error}` for a command missing
 * its argument, or `{move: text}` for anything else (a move for the server's legal list).
 */
export function parseCommand(text) {
  const line = String(text || '').trim();
  const lower = line.toLowerCase();
  if (lower === 'b' || lower === 'board') return { command: 'board' };
  if (lower === 'c' || lower === 'clock' || lower === 'clocks') return { command: 'clock' };
  if (lower === 'l' || lower === 'moves' || lower === 'list') return { command: 'moves' };
  if (lower === 'h' || lower === 'help' || lower === '?') return { command: 'help' };
  const piece = /^(?:p|pieces?)(?:\s+(.*))?$/i.exec(line);
  if (piece) {
    const role = roleOf(piece[1]);
    return role ? { command: 'pieces', role } : { error: 'Say which piece, for example p N or p knight.' };
  }
  const square = /^(?:s|square)(?:\s+(.*))?$/i.exec(line);
  if (square) return square[1] ? { command: 'square', square: square[1].trim() } : { error: 'Say which square, for example s e4.' };
  return { move: line };
}
