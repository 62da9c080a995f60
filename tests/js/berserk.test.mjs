// Berserk in an arena game: the follower's `berserk` event and what a `state` tells of it
// (client/js/follow.js), and when the game page offers the button (client/js/game/berserk.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { APPLIED, berserkedOf, follow, hasMoved, IGNORED, modelFromState, RESYNC } from '../../client/js/follow.js';
import { canBerserk } from '../../client/js/game/berserk.js';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const AFTER_E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
const AFTER_E5 = 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';
const human = { kind: 'human', online: true, name: 'Anonymous' };
const clock = { initial_ms: 180000, increment_ms: 0, white_ms: 180000, black_ms: 180000, running: null, first_move_ms: 30000, berserkable: true };

/** A `state` of an arena game under way after `moves` (none, e4, or e4 e5), its clock `clockOver`. */
function state({ moves = [], clockOver = {}, v = 1 } = {}) {
  const fen = [START, AFTER_E4, AFTER_E5][moves.length];
  return {
    type: 'state', game: 'arena1', v, variant: 'standard', initial_fen: START, fen, moves, san: moves.map((m) => m.slice(2)),
    turn: moves.length % 2 ? 'black' : 'white', status: 'ongoing', result: null, reason: null,
    seats: { white: human, black: human }, legal: [], check: false, clock: { ...clock, ...clockOver }, watchers: 0, offer: null, claim: null,
  };
}

const berserk = (v, color, clockOver = {}) => ({ type: 'berserk', game: 'arena1', v, color, clock: { ...clock, ...clockOver } });

test('a fresh arena game: nobody has berserked', () => {
  const g = modelFromState(state());
  assert.deepEqual(g.berserk, { white: false, black: false });
});

test('the berserk event halves the clock and marks the side', () => {
  let g = modelFromState(state());
  const step = follow(g, berserk(2, 'white', { white_ms: 90000, first_move_ms: 28000 }));
  g = step.model;
  assert.equal(step.outcome, APPLIED);
  assert.equal(g.v, 2);
  assert.equal(g.clock.white_ms, 90000);
  assert.equal(g.clock.first_move_ms, 28000);
  assert.deepEqual(g.berserk, { white: true, black: false });
  // Black too, later: both marked.
  g = follow(g, berserk(3, 'black', { white_ms: 90000, black_ms: 90000 })).model;
  assert.deepEqual(g.berserk, { white: true, black: true });
  assert.equal(g.clock.black_ms, 90000);
});

test('a berserk event without a clock keeps the clock it had', () => {
  const g = modelFromState(state());
  assert.equal(follow(g, { type: 'berserk', game: 'arena1', v: 2, color: 'black' }).outcome, APPLIED);
  assert.equal(g.clock.black_ms, 180000);
  assert.equal(g.berserk.black, true);
});

test('berserk events follow the versions like the others', () => {
  const g = modelFromState(state({ v: 5 }));
  assert.equal(follow(g, berserk(5, 'white', { white_ms: 90000 })).outcome, IGNORED, 'seen already');
  assert.equal(g.berserk.white, false);
  assert.equal(g.clock.white_ms, 180000);
  assert.equal(follow(g, berserk(7, 'white', { white_ms: 90000 })).outcome, RESYNC, 'a gap');
  assert.equal(g.awaiting, true);
  assert.equal(g.berserk.white, false);
  assert.equal(follow(g, berserk(6, 'white', { white_ms: 90000 })).outcome, IGNORED, 'waiting for a state');
  assert.equal(follow(g, { ...berserk(6, 'white'), game: 'other' }).outcome, IGNORED, 'another game');
  assert.equal(follow(null, berserk(1, 'white')).outcome, IGNORED, 'no state yet');
});

test('moves after a berserk keep the mark', () => {
  let g = modelFromState(state());
  g = follow(g, berserk(2, 'white', { white_ms: 90000 })).model;
  g = follow(g, { type: 'move', game: 'arena1', v: 3, uci: 'e2e4', san: 'e4', fen: AFTER_E4, turn: 'black', ply: 1, legal: [], check: false, clock: { ...clock, white_ms: 90000 } }).model;
  assert.deepEqual(g.berserk, { white: true, black: false });
});

test('a state tells who berserked while no time has run', () => {
  assert.deepEqual(modelFromState(state({ clockOver: { white_ms: 90000 } })).berserk, { white: true, black: false });
  assert.deepEqual(modelFromState(state({ clockOver: { black_ms: 90000 } })).berserk, { white: false, black: true });
  // White has moved, but no clock runs before Black's first move: both still tell.
  assert.deepEqual(modelFromState(state({ moves: ['e2e4'], clockOver: { white_ms: 90000, black_ms: 90000 } })).berserk, { white: true, black: true });
  // Once both have moved, time has run: nothing tells.
  assert.deepEqual(modelFromState(state({ moves: ['e2e4', 'e7e5'], clockOver: { white_ms: 90000, black_ms: 170000, running: 'white' } })).berserk, { white: false, black: false });
});

test('only a berserkable clock berserks', () => {
  assert.deepEqual(berserkedOf({ ...clock, berserkable: undefined, white_ms: 1000 }, 0), { white: false, black: false });
  assert.deepEqual(berserkedOf(null, 0), { white: false, black: false });
  assert.deepEqual(berserkedOf({ ...clock, white_ms: 89999 }, 0), { white: true, black: false });
});

test('a side has moved after its first ply', () => {
  assert.equal(hasMoved('white', 0), false);
  assert.equal(hasMoved('white', 1), true);
  assert.equal(hasMoved('black', 1), false);
  assert.equal(hasMoved('black', 2), true);
});

test('a seat holder may berserk before their first move, once', () => {
  const g = modelFromState(state());
  assert.equal(canBerserk(g, { color: 'white' }), true);
  assert.equal(canBerserk(g, { color: 'black' }), true);
  g.berserk.white = true;
  assert.equal(canBerserk(g, { color: 'white' }), false, 'berserked already');
  assert.equal(canBerserk(g, { color: 'black' }), true);
});

test('no berserk after one\'s own first move', () => {
  const afterE4 = modelFromState(state({ moves: ['e2e4'] }));
  assert.equal(canBerserk(afterE4, { color: 'white' }), false);
  assert.equal(canBerserk(afterE4, { color: 'black' }), true, 'Black has not moved yet');
  const afterE5 = modelFromState(state({ moves: ['e2e4', 'e7e5'] }));
  assert.equal(canBerserk(afterE5, { color: 'black' }), false);
});

test('no berserk for spectators, outside arenas, or once the game is not under way', () => {
  const g = modelFromState(state());
  assert.equal(canBerserk(g, null), false, 'a spectator');
  assert.equal(canBerserk(null, { color: 'white' }), false, 'no game yet');
  assert.equal(canBerserk({ ...g, clock: { ...clock, berserkable: undefined } }, { color: 'white' }), false, 'not an arena game');
  assert.equal(canBerserk({ ...g, clock: null }, { color: 'white' }), false, 'untimed');
  assert.equal(canBerserk({ ...g, status: 'ended' }, { color: 'white' }), false, 'over');
  assert.equal(canBerserk({ ...g, status: 'waiting' }, { color: 'white' }), false, 'not started');
});
