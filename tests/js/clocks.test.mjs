// The first-move count-down of the game page's clocks (client/js/game/clocks.js): no clock runs
// until both sides have moved, and the side to move has `first_move_ms` to make its first move.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstMoveLeft, firstMoveText } from '../../client/js/game/clocks.js';

const clock = { initial_ms: 300000, increment_ms: 3000, white_ms: 300000, black_ms: 300000, running: null };

test('the count-down runs from the event that carried it', () => {
  const g = { status: 'ongoing', turn: 'white', clock: { ...clock, first_move_ms: 30000 } };
  assert.equal(firstMoveLeft(g, 1000, 1000), 30000);
  assert.equal(firstMoveLeft(g, 1000, 3500), 27500);
  assert.equal(firstMoveLeft(g, 1000, 99000), 0, 'never below zero');
});

test('no count-down once both have moved, untimed, or over', () => {
  assert.equal(firstMoveLeft({ status: 'ongoing', turn: 'white', clock: { ...clock, running: 'white' } }, 0, 0), null);
  assert.equal(firstMoveLeft({ status: 'ongoing', turn: 'white', clock: null }, 0, 0), null);
  assert.equal(firstMoveLeft({ status: 'ended', turn: 'white', clock: { ...clock, first_move_ms: 30000 } }, 0, 0), null);
  assert.equal(firstMoveLeft(null, 0, 0), null);
});

test('the words, rounded up to whole seconds', () => {
  assert.equal(firstMoveText('white', 26100, false), 'White has 27 s to make a first move');
  assert.equal(firstMoveText('black', 30000, true), 'You have 30 s to make your first move');
});
