// Engine seats in the web client (client/js/engines.js, client/js/ui.js, client/js/social.js):
// the seats of a game against an engine, how an engine seat reads, and a server chat line.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { engineSeats } from '../../client/js/engines.js';
import { chatLine } from '../../client/js/social.js';
import { seatName } from '../../client/js/ui.js';

test('the creator takes the chosen side, the engine the other', () => {
  const options = { 'Skill Level': 3 };
  assert.deepEqual(engineSeats('white', 'Stockfish', options), {
    white: { kind: 'human' },
    black: { kind: 'engine', name: 'Stockfish', options },
    as: 'white',
  });
  assert.deepEqual(engineSeats('black', 'Stockfish', {}).white, { kind: 'engine', name: 'Stockfish', options: {} });
});

test('an engine seat reads as its label', () => {
  const seat = { kind: 'engine', name: 'Stockfish', options: { 'Skill Level': 3 }, label: 'Stockfish · Skill Level 3' };
  assert.equal(seatName(seat), 'Stockfish · Skill Level 3');
  assert.equal(seatName({ kind: 'engine', name: 'Stockfish' }), 'Stockfish');
});

test('a server line is marked, a person\'s is not', () => {
  const base = { type: 'chat', game: 'g', room: 'players', from: 'gambit', text: 'Stockfish crashed', at: 1 };
  assert.equal(chatLine({ ...base, system: true }).system, true);
  assert.equal(chatLine(base).system, undefined);
});
