// The web client's chess (client/js/chess.js): the move list's numbering from the game's initial
// FEN (its fullmove number, 0 counting as 1, and whether Black moves first), typed moves, and
// castling in both of its spellings.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  applyUci, castlingByRook, castlingByStep, castlingMeant, moveNumber, moveRows, parsePlacement, resolveMove, sanOf,
} from '../../client/js/chess.js';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** The move list as text, "1. e4 e5 2. Nf3", with ".." for an empty cell. */
function list(fen, san) {
  return moveRows(fen, san.length)
    .map((r) => `${r.number}. ${r.white ? san[r.white - 1] : '..'}${r.black ? ` ${san[r.black - 1]}` : ''}`)
    .join(' ');
}

test('from the standard start', () => {
  assert.equal(list(START, ['e4', 'e5', 'Nf3']), '1. e4 e5 2. Nf3');
  assert.deepEqual(moveNumber(START, 1), { number: 1, color: 'white' });
  assert.deepEqual(moveNumber(START, 4), { number: 2, color: 'black' });
});

test('Black moves first', () => {
  const fen = 'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 12';
  assert.equal(list(fen, ['Nf6', 'Bc4', 'Bc5']), '12. .. Nf6 13. Bc4 Bc5');
  assert.deepEqual(moveRows(fen, 1), [{ number: 12, white: null, black: 1 }]);
  assert.deepEqual(moveNumber(fen, 1), { number: 12, color: 'black' });
  assert.deepEqual(moveNumber(fen, 2), { number: 13, color: 'white' });
});

test('a fullmove number other than 1, White to move', () => {
  const fen = '4k3/8/8/8/8/8/4P3/4K3 w - - 0 40';
  assert.equal(list(fen, ['e4', 'Kd7', 'e5']), '40. e4 Kd7 41. e5');
});

test('a fullmove number of 0, or none, counts as 1', () => {
  assert.equal(list('4k3/8/8/8/8/8/4P3/4K3 b - - 0 0', ['Kd7', 'e4']), '1. .. Kd7 2. e4');
  assert.equal(list('4k3/8/8/8/8/8/4P3/4K3 w - -', ['e4']), '1. e4');
});

test('no moves, no rows', () => {
  assert.deepEqual(moveRows(START, 0), []);
  assert.deepEqual(moveRows('4k3/8/8/8/8/8/4P3/4K3 b - - 0 7', 0), []);
});

test('7x7 minichess numbers like standard chess', () => {
  assert.equal(list('nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1', ['b3', 'b5']), '1. b3 b5');
});

// Typed moves (resolveMove): SAN in any letter case where that leaves one move, the reading as
// written where it leaves several, and the king onto its rook for castling.

/** The placement of `fen` and its legal moves as the server would send them. */
function typed(text, fen, legal) {
  return resolveMove(text, parsePlacement(fen, 8), legal);
}

const OPEN = 'r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4';
const OPEN_LEGAL = ['e1g1', 'e1f1', 'e1e2', 'f3g5', 'f3e5', 'f3h4', 'f3d4', 'f3g1', 'b1c3', 'b1a3', 'c4b5', 'c4d5', 'c4f7', 'd2d4', 'd2d3', 'h1f1', 'h1g1'];

test('SAN in any case, where it names one move', () => {
  for (const text of ['Nc3', 'nc3', 'NC3', 'nC3']) assert.deepEqual(typed(text, OPEN, OPEN_LEGAL), { uci: 'b1c3' }, text);
  for (const text of ['o-o', 'O-O', '0-0', 'o-o+']) assert.deepEqual(typed(text, OPEN, OPEN_LEGAL), { uci: 'e1g1' }, text);
  assert.deepEqual(typed('BXF7+', OPEN, OPEN_LEGAL), { uci: 'c4f7' });
  assert.deepEqual(typed('D4', OPEN, OPEN_LEGAL), { uci: 'd2d4' });
  const fen = 'rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2';
  assert.deepEqual(typed('EXD5', fen, ['e4d5', 'e4e5', 'g1f3']), { uci: 'e4d5' });
  assert.deepEqual(typed('exd5', fen, ['e4d5', 'e4e5', 'g1f3']), { uci: 'e4d5' });
});

test('several moves under case-folding: as written if that is one, else the candidates named', () => {
  // A bishop on f1 and a pawn on b3 can both take on c4.
  const fen = '4k3/8/8/8/2p5/1P6/8/4KB2 w - - 0 1';
  const legal = ['f1c4', 'b3c4', 'b3b4', 'f1e2', 'e1d1'];
  assert.deepEqual(typed('bxc4', fen, legal), { uci: 'b3c4' });
  assert.deepEqual(typed('Bxc4', fen, legal), { uci: 'f1c4' });
  assert.deepEqual(typed('bc4', fen, legal), { uci: 'b3c4' });
  assert.deepEqual(typed('Bc4', fen, legal), { uci: 'f1c4' });
  const both = typed('BXC4', fen, legal);
  assert.match(both.error, /BXC4 is ambiguous/);
  assert.match(both.error, /Bxc4/);
  assert.match(both.error, /bxc4/);
  // Two knights: the SAN as written is ambiguous too; the answer says how to tell them apart.
  const knights = typed('Nd2', '4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1', ['b1d2', 'f3d2', 'e1e2']);
  assert.equal(knights.error, 'Nd2 is ambiguous: Nbd2 or Nfd2.');
  assert.deepEqual(typed('nbd2', '4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1', ['b1d2', 'f3d2', 'e1e2']), { uci: 'b1d2' });
});

test('promotions, errors and the king onto its rook', () => {
  const fen = '4k3/P7/8/8/8/8/8/R3K2R w KQ - 0 1';
  const legal = ['a7a8q', 'a7a8r', 'a7a8b', 'a7a8n', 'e1g1', 'e1c1', 'e1d1', 'a1b1'];
  assert.deepEqual(typed('a8', fen, legal), { choices: ['a7a8q', 'a7a8r', 'a7a8b', 'a7a8n'] });
  assert.deepEqual(typed('a8=q', fen, legal), { uci: 'a7a8q' });
  assert.deepEqual(typed('A8Q', fen, legal), { uci: 'a7a8q' });
  assert.deepEqual(typed('e1h1', fen, legal), { uci: 'e1g1' });
  assert.deepEqual(typed('e1a1', fen, legal), { uci: 'e1c1' });
  assert.deepEqual(typed('Nf3', fen, legal), { error: 'Nf3 is not a legal move here.' });
  assert.deepEqual(typed('e2e4', fen, legal), { error: 'e2e4 is not a legal move here.' });
  assert.deepEqual(typed('hello', fen, legal), { error: 'hello is neither UCI (e2e4) nor SAN (Nf3).' });
});

// Castling written both ways: the king's two-square move (standard chess) and the king onto its
// own rook (Chess960, and standard chess's alias), shown on the board, named in SAN and typed.

/** The pieces of ranks 1 and 8 of a placement as sorted "square piece" text. */
function backRanks(board) {
  return [...board].filter(([sq]) => sq[1] === '1' || sq[1] === '8').map(([sq, p]) => sq + p).sort().join(' ');
}

test('applyUci: Chess960 castling puts the king on g or c and the rook on f or d, wherever they started', () => {
  const after = (fen, uci, variant = 'chess960') => backRanks(applyUci(parsePlacement(fen, 8), uci, variant));
  // Queenside, king b1 and rook a1: both move.
  assert.equal(after('1k6/8/8/8/8/8/8/RK6 w Q - 0 1', 'b1a1'), 'b8k c1K d1R');
  // Kingside, king b1 and rook c1: the rook beside the king, going all the way.
  assert.equal(after('1k6/8/8/8/8/8/8/1KR5 w K - 0 1', 'b1c1'), 'b8k f1R g1K');
  // King f1, rook g1: they swap squares.
  assert.equal(after('1k6/8/8/8/8/8/8/5KR1 w K - 0 1', 'f1g1'), 'b8k f1R g1K');
  // King g1, rook h1: the king does not move, the rook goes to f1.
  assert.equal(after('1k6/8/8/8/8/8/8/6KR w K - 0 1', 'g1h1'), 'b8k f1R g1K');
  // King d8, rook c8 (queenside): the king lands where the rook stood, the rook where the king did.
  assert.equal(after('2rk4/8/8/8/8/8/8/6K1 b q - 0 1', 'd8c8'), 'c8k d8r g1K');
  // Black, the standard start's squares: e8h8.
  assert.equal(after('r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1', 'e8h8'), 'a8r e1K f8r g8k');
  // Standard chess: the two-square move, and the king onto its corner rook as its alias.
  assert.equal(after('4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1', 'e1g1', 'standard'), 'a1R e8k f1R g1K');
  assert.equal(after('4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1', 'e1h1', 'standard'), 'a1R e8k f1R g1K');
  assert.equal(after('4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1', 'e1c1', 'standard'), 'c1K d1R e8k h1R');
  assert.equal(after('4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1', 'e1a1', 'standard'), 'c1K d1R e8k h1R');
  // In standard chess a king onto its rook beside it is no castling (a premove to take back there).
  assert.equal(after('4k3/8/8/8/8/8/8/4KR2 w - - 0 1', 'e1f1', 'standard'), 'e8k f1K');
  // Minichess7 has no castling at all.
  assert.equal(backRanks(applyUci(parsePlacement('3k3/7/7/7/7/7/2KR3 w - - 0 1', 7), 'c1d1', 'minichess7')), 'd1K');
});

test('castlingByRook: the king put on its own rook, in Chess960 and in standard chess', () => {
  const board960 = parsePlacement('1k6/8/8/8/8/8/8/R3K1R1 w KQ - 0 1', 8);
  const legal960 = ['e1a1', 'e1g1', 'e1d1', 'e1f1', 'a1b1'];
  assert.equal(castlingByRook(legal960, board960, 'e1', 'g1'), 'e1g1', 'the inner rook on g1: the move itself');
  assert.equal(castlingByRook(legal960, board960, 'e1', 'a1'), 'e1a1');
  assert.equal(castlingByRook(['e1d1'], board960, 'e1', 'g1'), null, 'not legal: no castling');
  // Standard chess: the corner rook stands for the two-square move.
  const board = parsePlacement(OPEN, 8);
  assert.equal(castlingByRook(OPEN_LEGAL, board, 'e1', 'h1'), 'e1g1');
  assert.equal(castlingByRook(OPEN_LEGAL, board, 'e1', 'f1'), null, 'no rook there');
  assert.equal(castlingByRook(OPEN_LEGAL, board, 'e1', 'e8'), null, 'a king is no rook');
  assert.equal(castlingByRook(OPEN_LEGAL, board, 'e1', 'a8'), null, "the opponent's rook");
  // The two-square step stands for the Chess960 castling that puts the king there.
  const corner = parsePlacement('1k6/8/8/8/8/8/8/R3K2R w KQ - 0 1', 8);
  assert.equal(castlingByStep(['e1h1', 'e1a1', 'e1f1'], corner, 'e1', 'g1'), 'e1h1');
  assert.equal(castlingByStep(['e1h1', 'e1a1', 'e1f1'], corner, 'e1', 'c1'), 'e1a1');
  assert.equal(castlingByStep(['e1h1'], corner, 'e1', 'c1'), null);
  assert.equal(castlingMeant(['e1h1'], corner, 'e1', 'g1'), 'e1h1');
  assert.equal(castlingMeant(['e1h1'], corner, 'e1', 'h1'), 'e1h1');
});

test('sanOf: the king onto its own rook is O-O or O-O-O', () => {
  const board = parsePlacement('1k6/8/8/8/8/8/8/RK4R1 w KQ - 0 1', 8);
  assert.equal(sanOf('b1a1', board, ['b1a1', 'b1g1']), 'O-O-O');
  assert.equal(sanOf('b1g1', board, ['b1a1', 'b1g1']), 'O-O');
  assert.equal(sanOf('g1h1', parsePlacement('1k6/8/8/8/8/8/8/6KR w K - 0 1', 8), ['g1h1']), 'O-O');
  assert.equal(sanOf('e1g1', parsePlacement(OPEN, 8), OPEN_LEGAL), 'O-O');
  assert.equal(sanOf('b1c1', board, ['b1c1']), 'Kc1', 'a king step is no castling');
});

test('typed castling in Chess960: SAN, the king onto its rook, or its two-square step', () => {
  const fen = 'rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1';
  const legal = ['b1a1', 'b1h1', 'b1c1', 'h1g1', 'h1f1', 'a2a3'];
  for (const text of ['O-O', 'o-o', '0-0', 'O-O+']) assert.deepEqual(typed(text, fen, legal), { uci: 'b1h1' }, text);
  for (const text of ['O-O-O', '0-0-0']) assert.deepEqual(typed(text, fen, legal), { uci: 'b1a1' }, text);
  assert.deepEqual(typed('b1h1', fen, legal), { uci: 'b1h1' });
  assert.deepEqual(typed('b1a1', fen, legal), { uci: 'b1a1' });
  assert.deepEqual(typed('b1c1', fen, legal), { uci: 'b1c1' }, 'the king one step: no castling');
  // The king on e1 towards a corner rook: its two-square step castles, as the server takes it.
  const e1 = 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1';
  assert.deepEqual(typed('e1g1', e1, ['e1h1', 'e1a1', 'e1f1']), { uci: 'e1h1' });
  assert.deepEqual(typed('e1c1', e1, ['e1h1', 'e1a1', 'e1f1']), { uci: 'e1a1' });
  assert.match(typed('O-O', fen, ['a2a3']).error, /castling is not possible/);
});
