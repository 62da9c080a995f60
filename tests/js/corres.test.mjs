// Correspondence games in the web client (days per move): the choices and how time reads
// (client/js/corres.js, clock.js), the `create` fields a choice makes (clock.js, create.js), the
// game page's deadline, claim, clock face and game kind (game/corres.js, game/clocks.js,
// game/ratings.js), and the controller's move confirmation (game/ctrl.js): a move made on the
// board waits to be submitted or cancelled, and there are no premoves.
// Run with `node --test tests/js/`.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { timeControlFields, timeControlName } from '../../client/js/clock.js';
import {
  CORRESPONDENCE_DAYS, DAYS_CHOICES, daysName, daysOfChoice, formatDaysLeft, formatDeadline, isCorrespondence,
} from '../../client/js/corres.js';
import { clockFace } from '../../client/js/game/clocks.js';
import { corresClaim, deadlineMs, deadlineText, moverTimeLeft } from '../../client/js/game/corres.js';
import { modeText } from '../../client/js/game/ratings.js';

const HOUR = 3600000;
const DAY = 24 * HOUR;

test("lichess's choices of days, and their names", () => {
  assert.deepEqual(CORRESPONDENCE_DAYS, [1, 2, 3, 5, 7, 10, 14]);
  assert.deepEqual(DAYS_CHOICES.map(([value]) => value), ['d1', 'd2', 'd3', 'd5', 'd7', 'd10', 'd14']);
  assert.deepEqual(DAYS_CHOICES.map(([, label]) => label), ['1 day', '2 days', '3 days', '5 days', '7 days', '10 days', '14 days']);
  assert.equal(daysName(1), '1 day');
  assert.equal(daysName(10), '10 days');
  assert.equal(daysOfChoice('d3'), 3);
  assert.equal(daysOfChoice('d14'), 14);
  for (const not of ['d4', 'd0', 'd', '3', '5+3', 'untimed', 'custom', null, undefined, 'd3x']) assert.equal(daysOfChoice(not), null, String(not));
});

test('a clock view is a correspondence one when it carries days', () => {
  assert.ok(isCorrespondence({ initial_ms: 3 * DAY, increment_ms: 0, days: 3 }));
  assert.ok(!isCorrespondence({ initial_ms: 300000, increment_ms: 3000 }));
  assert.ok(!isCorrespondence(null));
  assert.ok(!isCorrespondence({ days: 0 }));
});

test('time left for a move: days and hours, hours and minutes, or minutes', () => {
  assert.equal(formatDaysLeft(3 * DAY), '3 d');
  assert.equal(formatDaysLeft(2 * DAY + 5 * HOUR), '2 d 5 h');
  assert.equal(formatDaysLeft(2 * DAY + 5 * HOUR + 59 * 60000), '2 d 5 h', 'days and hours: the minutes do not show');
  assert.equal(formatDaysLeft(3 * DAY - 1000), '3 d', 'rounded up to the minute');
  assert.equal(formatDaysLeft(3 * DAY - 60001), '2 d 23 h');
  assert.equal(formatDaysLeft(5 * HOUR + 12 * 60000), '5 h 12 min');
  assert.equal(formatDaysLeft(HOUR), '1 h');
  assert.equal(formatDaysLeft(45 * 60000), '45 min');
  assert.equal(formatDaysLeft(59 * 60000 + 30000), '1 h', '59½ minutes round up to the hour');
  assert.equal(formatDaysLeft(1), '1 min', 'any time left shows');
  assert.equal(formatDaysLeft(0), '0 min');
  assert.equal(formatDaysLeft(-5000), '0 min');
  assert.equal(formatDaysLeft(NaN), '0 min');
});

test('a deadline in local time: the day and time within the week, the date further off', () => {
  // Local dates, so the test holds in any time zone.
  const now = new Date(2025, 11, 1, 9, 30); // Monday 1 December 2025, 09:30
  assert.equal(formatDeadline(new Date(2025, 11, 2, 14, 5), now), 'Tue 14:05');
  assert.equal(formatDeadline(new Date(2025, 11, 1, 9, 7), now), 'Mon 09:07', 'today, passed minutes ago');
  assert.equal(formatDeadline(new Date(2025, 11, 6, 23, 59), now), 'Sat 23:59');
  assert.equal(formatDeadline(new Date(2025, 11, 8, 14, 5), now), 'Mon 8 Dec 14:05', 'a week off: Monday alone would be today');
  assert.equal(formatDeadline(new Date(2025, 11, 15, 0, 0), now), 'Mon 15 Dec 00:00');
  assert.equal(deadlineText(new Date(2025, 11, 2, 14, 5).getTime(), now), 'Deadline: Tue 14:05');
});

test('the time control of a game: days per move read as days', () => {
  assert.equal(timeControlName({ initial_ms: 3 * DAY, increment_ms: 0, white_ms: 1, black_ms: 1, running: null, days: 3 }), '3 days');
  assert.equal(timeControlName(null, 1), '1 day', "a game summary's days beside its null clock");
  assert.equal(timeControlName(null), 'untimed');
  assert.equal(timeControlName({ initial_ms: 300000, increment_ms: 3000 }), '5+3');
});

test("the lobby's time control choice as create's fields", () => {
  assert.deepEqual(timeControlFields('d3'), { days: 3 });
  assert.deepEqual(timeControlFields('d14'), { days: 14 });
  assert.deepEqual(timeControlFields('untimed'), { clock: null });
  assert.deepEqual(timeControlFields('5+3'), { clock: { initial_ms: 300000, increment_ms: 3000 } });
  assert.deepEqual(timeControlFields('custom', { minutes: '2.5', increment: '1' }), { clock: { initial_ms: 150000, increment_ms: 1000 } });
  assert.deepEqual(timeControlFields('custom', { minutes: 'x', increment: '1' }), { clock: null });
});

/** A correspondence game's model as the follower keeps it: `days` per move, `running` to move. */
function corresGame(fields = {}, clock = {}) {
  return {
    status: 'ongoing', turn: 'white', variant: 'standard', rated: false,
    clock: { initial_ms: 3 * DAY, increment_ms: 0, white_ms: 2 * DAY, black_ms: 3 * DAY, running: 'white', days: 3, ...clock },
    ...fields,
  };
}

test('the mover and its time left, counted from when the clock arrived', () => {
  const g = corresGame();
  assert.deepEqual(moverTimeLeft(g, 1000, 1000), { mover: 'white', left: 2 * DAY });
  assert.deepEqual(moverTimeLeft(g, 1000, 1000 + HOUR), { mover: 'white', left: 2 * DAY - HOUR });
  assert.deepEqual(moverTimeLeft(g, 0, 3 * DAY), { mover: 'white', left: 0 }, 'never below zero');
  assert.equal(moverTimeLeft(corresGame({ status: 'ended' }), 0, 0), null);
  assert.equal(moverTimeLeft(corresGame({ status: 'waiting' }, { running: null }), 0, 0), null);
  assert.equal(moverTimeLeft({ status: 'ongoing', clock: { initial_ms: 300000, increment_ms: 0, white_ms: 1, black_ms: 1, running: 'white' } }, 0, 0), null, 'a clock');
  assert.equal(moverTimeLeft({ status: 'ongoing', clock: null }, 0, 0), null, 'untimed');
});

test("the claim: the mover's opponent, once the mover's time is up", () => {
  const g = corresGame({ turn: 'black' }, { running: 'black', black_ms: HOUR });
  assert.deepEqual(corresClaim(g, 0, 0), { by: 'white', mover: 'black', left: HOUR });
  assert.deepEqual(corresClaim(g, 0, HOUR + 1), { by: 'white', mover: 'black', left: 0 });
  assert.equal(corresClaim(corresGame({ status: 'ended' }), 0, 0), null);
});

test("the deadline on the wall clock: the page's time origin, plus when the clock came, plus what was left", () => {
  const g = corresGame();
  const origin = Date.UTC(2025, 11, 1, 8);
  assert.equal(deadlineMs(g, 500, 500, origin), origin + 500 + 2 * DAY);
  assert.equal(deadlineMs(g, 500, 500 + 3 * HOUR, origin), origin + 500 + 2 * DAY, 'the same deadline however late it is drawn');
  assert.equal(deadlineMs(corresGame({ status: 'ended' }), 0, 0, origin), null);
});

test('a correspondence clock reads in days and hours, and is low under an hour', () => {
  const clock = corresGame().clock;
  assert.deepEqual(clockFace(clock, 2 * DAY + 5 * HOUR), { text: '2 d 5 h', low: false, label: '2 d 5 h left for the move (3 days per move)' });
  assert.deepEqual(clockFace(clock, 45 * 60000), { text: '45 min', low: true, label: '45 min left for the move (3 days per move)' });
  const blitz = { initial_ms: 300000, increment_ms: 3000 };
  assert.deepEqual(clockFace(blitz, 298000), { text: '4:58', low: false, label: '4:58 left (5+3)' });
  assert.equal(clockFace(blitz, 9400).low, true);
});

test("the game's kind says the days per move", () => {
  assert.equal(modeText(corresGame()), 'Casual · 3 days per move');
  assert.equal(modeText(corresGame({ rated: true })), 'Rated · Correspondence · 3 days per move');
  assert.equal(modeText(corresGame({ rated: true }, { days: 1, initial_ms: DAY })), 'Rated · Correspondence · 1 day per move');
  assert.equal(modeText({ rated: true, variant: 'standard', clock: { initial_ms: 300000, increment_ms: 3000 } }), 'Rated · Blitz 5+3');
  assert.equal(modeText({ rated: false, variant: 'standard', clock: null }), 'Casual · untimed');
});

// The controller and the create message, with the browser's globals they touch stood in for.
globalThis.window ??= { addEventListener() {} };
const stored = new Map();
globalThis.localStorage ??= {
  getItem: (k) => stored.get(k) ?? null, setItem: (k, v) => stored.set(k, String(v)), removeItem: (k) => stored.delete(k),
};
globalThis.document ??= { getElementById: () => null, body: { dataset: {} } };
const { GameCtrl } = await import('../../client/js/game/ctrl.js');
const { saveSeat } = await import('../../client/js/store.js');

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const AFTER_E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';

/** A seated page (White) of game `id`, its socket stood in for: what it sends is kept. */
function page(id) {
  saveSeat(id, { token: 'a'.repeat(32), color: 'white' });
  const ctrl = new GameCtrl(id, {});
  const sent = [];
  let redraws = 0;
  ctrl.redraw = () => { redraws += 1; };
  ctrl.conn = { connected: true, send: (msg) => { sent.push(msg); return sent.length; }, stop() {} };
  return { ctrl, sent, redraws: () => redraws };
}

function state(game, clock) {
  return {
    type: 'state', game, v: 2, variant: 'standard', initial_fen: START, fen: START, moves: [], san: [], turn: 'white',
    status: 'ongoing', result: null, reason: null, legal: ['e2e4', 'd2d4', 'g1f3'], check: false, clock, watchers: 0, offer: null,
    claim: clock?.days ? { by: 'black', in_ms: clock.white_ms } : null,
    seats: { white: { kind: 'human', online: true, name: 'alice', account: true }, black: { kind: 'human', online: false, name: 'bob', account: true } },
  };
}

const CORRES = { initial_ms: 3 * DAY, increment_ms: 0, white_ms: 3 * DAY, black_ms: 3 * DAY, running: 'white', days: 3 };

test('correspondence: a move on the board waits; Submit sends it, Cancel takes it back', () => {
  const { ctrl, sent } = page('cor1');
  ctrl.handle(state('cor1', CORRES));
  assert.ok(ctrl.correspondence);
  assert.ok(ctrl.myTurn());
  ctrl.play('e2e4');
  assert.equal(sent.length, 0, 'nothing sent yet');
  assert.deepEqual(ctrl.tentative, { uci: 'e2e4', san: 'e4' });
  assert.equal(ctrl.pending, null);
  // Another move cannot be made over it, on the board or typed.
  ctrl.play('d2d4');
  assert.equal(ctrl.tentative.uci, 'e2e4');
  assert.match(ctrl.resolveTyped('d4').error, /Submit or cancel/);
  ctrl.cancelMove();
  assert.equal(ctrl.tentative, null);
  assert.equal(sent.length, 0, 'cancelling sends nothing');
  // Typed moves wait the same way.
  assert.equal(ctrl.typed('Nf3').uci, 'g1f3');
  assert.deepEqual(ctrl.tentative, { uci: 'g1f3', san: 'Nf3' });
  ctrl.submitMove();
  assert.deepEqual(sent.map((m) => [m.type, m.uci, m.premove]), [['move', 'g1f3', undefined]]);
  assert.equal(ctrl.tentative, null);
  assert.equal(ctrl.pending, 'g1f3', 'shown as on its way until the server confirms it');
  ctrl.submitMove();
  assert.equal(sent.length, 1, 'nothing more to submit');
});

test('correspondence: a new position drops the tentative move; no premoves', () => {
  const { ctrl, sent } = page('cor2');
  ctrl.handle(state('cor2', CORRES));
  ctrl.play('e2e4');
  ctrl.handle({ ...state('cor2', CORRES), v: 3 });
  assert.equal(ctrl.tentative, null, 'a fresh state');
  ctrl.play('e2e4');
  // The move is played from another tab of the same player.
  ctrl.handle({
    type: 'move', game: 'cor2', v: 4, uci: 'd2d4', san: 'd4', fen: 'rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1',
    turn: 'black', ply: 1, legal: ['e7e5'], check: false, clock: { ...CORRES, running: 'black' },
  });
  assert.equal(ctrl.tentative, null);
  ctrl.premove('e2e4');
  assert.deepEqual(ctrl.premoves.queue, [], 'no premoves in correspondence');
  assert.equal(sent.length, 0);
});

test('a game on a clock, or untimed, sends the move at once as before', () => {
  // No clock runs before both sides' first moves (so no low-time timer holds the test open).
  for (const clock of [null, { initial_ms: 300000, increment_ms: 3000, white_ms: 300000, black_ms: 300000, running: null, first_move_ms: 30000 }]) {
    const id = clock ? 'clk1' : 'unt1';
    const { ctrl, sent } = page(id);
    ctrl.handle(state(id, clock));
    assert.ok(!ctrl.correspondence);
    ctrl.play('e2e4');
    assert.equal(ctrl.tentative, null);
    assert.deepEqual(sent.map((m) => [m.type, m.uci]), [['move', 'e2e4']]);
    assert.equal(ctrl.pending, 'e2e4');
  }
});

test('a claim is sent as any claim', () => {
  const { ctrl, sent } = page('cor3');
  ctrl.handle(state('cor3', { ...CORRES, running: 'black', white_ms: 3 * DAY, black_ms: 0 }));
  ctrl.claim('win');
  assert.deepEqual(sent.at(-1), { type: 'claim', result: 'win', game: 'cor3' });
  assert.ok(ctrl.claimSent);
  // Refused (the deadline had not quite passed on the server): the buttons come back with the words.
  ctrl.handle({ type: 'error', code: 'bad_request', message: 'your opponent still has time for their move: you can claim in 1 h', id: sent.length });
  assert.equal(ctrl.claimSent, false);
  assert.match(ctrl.notice, /you can claim in 1 h/);
});

test('the create message carries days in place of a clock', async () => {
  globalThis.fetch = async () => new Response(JSON.stringify({ username: 'alice', playing: [] }), { status: 200, headers: { 'Content-Type': 'application/json' } });
  const { createMessage, friendSeats } = await import('../../client/js/create.js');
  const rules = { castling: true, en_passant: true, repetition: 'threefold' };
  const msg = await createMessage(friendSeats('white', true), { variant: 'standard', fen: '', rules, days: 3 });
  assert.equal(msg.days, 3);
  assert.ok(!('clock' in msg), 'never a clock and days at once');
  assert.equal(msg.rated, true, 'correspondence may be rated');
  assert.equal(msg.name, 'alice');
  const timed = await createMessage(friendSeats('black'), { variant: 'standard', fen: '', rules, clock: { initial_ms: 300000, increment_ms: 3000 } });
  assert.deepEqual([timed.clock, timed.days], [{ initial_ms: 300000, increment_ms: 3000 }, undefined]);
});
