// Chess960 (client/js/chess960.js): the 960 starts by Scharnagl's number, as lichess and
// python-chess number them, and castling rights as X-FEN names their rooks.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parsePlacement } from '../../client/js/chess.js';
import {
  backRank, CHESS960_COUNT, numberOf, randomNumber, rightLetter, rightRook, rightSide, STANDARD_NUMBER, startFen,
} from '../../client/js/chess960.js';

test('the numbering: 0, 518 (the standard start) and 959, as everyone numbers them', () => {
  assert.equal(backRank(0), 'BBQNNRKR');
  assert.equal(backRank(1), 'BQNBNRKR');
  assert.equal(backRank(518), 'RNBQKBNR');
  assert.equal(STANDARD_NUMBER, 518);
  assert.equal(backRank(959), 'RKRNNQBB');
  for (const n of [-1, 960, 1.5, '3', null]) assert.equal(backRank(n), null, String(n));
  assert.equal(startFen(0), 'bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1');
  assert.equal(startFen(518), 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
  assert.equal(startFen(960), null);
});

test('all 960 are different, bishops on opposite colours, the king between the rooks', () => {
  const seen = new Set();
  for (let n = 0; n < CHESS960_COUNT; n++) {
    const rank = backRank(n);
    seen.add(rank);
    assert.deepEqual([...rank].sort().join(''), 'BBKNNQRR', `${n}: ${rank}`);
    const bishops = [...rank].flatMap((p, file) => (p === 'B' ? [file] : []));
    assert.notEqual(bishops[0] % 2, bishops[1] % 2, `${n}: ${rank} has its bishops on one colour`);
    const [a, b] = [rank.indexOf('R'), rank.lastIndexOf('R')];
    assert.ok(a < rank.indexOf('K') && rank.indexOf('K') < b, `${n}: ${rank} has its king outside the rooks`);
    // The light-square bishop's file is the number's last two bits (b, d, f or h).
    assert.equal(bishops.find((f) => f % 2 === 1), 2 * (n % 4) + 1);
  }
  assert.equal(seen.size, CHESS960_COUNT);
});

test('a start\'s number from its FEN, and a random one in range', () => {
  for (const n of [0, 1, 518, 700, 959]) assert.equal(numberOf(startFen(n)), n);
  assert.equal(numberOf('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1'), null);
  assert.equal(numberOf(''), null);
  assert.equal(randomNumber(() => 0), 0);
  assert.equal(randomNumber(() => 0.999999999), 959);
  const n = randomNumber();
  assert.ok(Number.isInteger(n) && n >= 0 && n < 960);
});

test('castling rights name rooks: K/Q the outermost on that side, a file the rook there', () => {
  // White: king b1, rooks a1 and g1 and h1 (an inner rook on g1); Black: king g8, rooks b8, f8.
  const board = parsePlacement('1r3rk1/8/8/8/8/8/8/RK4RR w - - 0 1', 8);
  assert.equal(rightRook(board, 'K'), 'h1');
  assert.equal(rightRook(board, 'Q'), 'a1');
  assert.equal(rightRook(board, 'G'), 'g1');
  assert.equal(rightRook(board, 'H'), 'h1', 'Shredder-FEN names even the outermost by file');
  assert.equal(rightRook(board, 'C'), null, 'no rook on c1');
  assert.equal(rightRook(board, 'k'), null, 'no black rook beyond the king on g8');
  assert.equal(rightRook(board, 'q'), 'b8');
  assert.equal(rightRook(board, 'f'), 'f8');
  assert.equal(rightRook(board, 'x'), null);
  // The letter X-FEN writes for a rook's right.
  assert.equal(rightLetter(board, 'h1'), 'K');
  assert.equal(rightLetter(board, 'g1'), 'G');
  assert.equal(rightLetter(board, 'a1'), 'Q');
  assert.equal(rightLetter(board, 'b8'), 'q');
  assert.equal(rightLetter(board, 'f8'), 'f', 'the outermost on the a side is b8');
  assert.equal(rightLetter(board, 'c1'), null);
  assert.equal(rightSide(board, 'G'), 'king');
  assert.equal(rightSide(board, 'f'), 'queen');
  // A king off its back rank castles with nothing.
  assert.equal(rightRook(parsePlacement('4k3/8/8/8/8/8/K7/R6R w - - 0 1', 8), 'K'), null);
});
