// Move numbering of the web client's move list (client/js/chess.js), from the game's initial
// FEN: its fullmove number (0 counts as 1) and whether Black moves first.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { moveNumber, moveRows } from '../../client/js/chess.js';

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
