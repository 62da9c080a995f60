// Accounts in the web client: the username and password hints (client/js/account.js), where a
// login may send the browser afterwards, the answer of /api/me; and the game page's controller
// (client/js/game/ctrl.js) with an account — seated by `resume` without a token, watching when
// the account holds no seat — a rated game's ratings at the end, and a game read from the
// archive when the server no longer holds it. Run with `node --test tests/js/`.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseMe, passwordProblem, safeNext, usernameProblem } from '../../client/js/account.js';
import { stepTo } from '../../client/js/game/moves.js';
import { gameRow, seekRow } from '../../client/js/lobby.js';

test('usernames: 3 to 20 letters, digits, "_" and "-"', () => {
  for (const good of ['Ann', 'alice_99', 'Bob-the-Builder', 'x'.repeat(20)]) assert.equal(usernameProblem(good), null, good);
  assert.match(usernameProblem('ab'), /at least 3/);
  assert.match(usernameProblem('x'.repeat(21)), /at most 20 characters; this one has 21/);
  assert.match(usernameProblem('a b c'), /^A space cannot be in a username/);
  assert.match(usernameProblem('Zoë'), /^“ë” cannot be in a username/);
  assert.match(usernameProblem('<b>'), /^“<” cannot/);
  assert.match(usernameProblem(''), /at least 3/);
});

test('passwords: 8 to 200 characters', () => {
  assert.equal(passwordProblem('12345678'), null);
  assert.match(passwordProblem('1234567'), /at least 8/);
  assert.match(passwordProblem('x'.repeat(201)), /at most 200/);
  assert.equal(passwordProblem('😀'.repeat(8)), null, 'characters, not UTF-16 units');
});

test('after logging in: a path on this site only', () => {
  const origin = 'http://127.0.0.1:8080';
  assert.equal(safeNext('/g/abc123', origin), '/g/abc123');
  assert.equal(safeNext('/@/Alice?page=2#x', origin), '/@/Alice?page=2#x');
  assert.equal(safeNext('/leaderboard?category=rapid', origin), '/leaderboard?category=rapid');
  // Percent-encoded slashes stay a path on this site: the browser does not decode them into a host.
  assert.equal(safeNext('/%2f%2fevil.example', origin), '/%2f%2fevil.example');
  assert.equal(safeNext('/a/../g/abc', origin), '/g/abc');
  for (const bad of [null, undefined, '', 'g/abc', '//evil.example/x', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/login', '/signup?next=/x',
    // Bypasses that pass a check of the raw string and become another host once normalised.
    '/..//evil.example', '/.//evil.example', '/a/../..//evil.example', '/\t/evil.example', '/%2e%2e//evil.example',
    '\\\\evil.example', '\\/evil.example', ' //evil.example', 'JavaScript:alert(1)', '/\\/evil.example']) {
    assert.equal(safeNext(bad, origin), '/', String(bad));
  }
});

test('the answer of /api/me, checked', () => {
  assert.deepEqual(parseMe({ username: 'Alice', playing: ['g1', 7, 'g2'] }), { username: 'Alice', playing: ['g1', 'g2'] });
  assert.deepEqual(parseMe({ username: 'Alice' }), { username: 'Alice', playing: [] });
  assert.equal(parseMe({ error: 'not logged in' }), null);
  assert.equal(parseMe(null), null);
});

test('the lobby says which games and seeks are rated; a rated seek asks the anonymous to log in', () => {
  const seek = { seek: 's1', name: 'Alice', variant: 'standard', fen: null, rules: {}, clock: { initial_ms: 300000, increment_ms: 3000 }, color: null, rated: true };
  assert.match(seekRow(seek, false, true), /<span class="mode rated">Rated<\/span>/);
  assert.ok(seekRow(seek, false, true).includes('class="accept-seek'));
  const anonymous = seekRow(seek, false, false);
  assert.ok(!anonymous.includes('accept-seek') && anonymous.includes('href="/login"'), anonymous);
  assert.ok(seekRow({ ...seek, rated: false }, false, false).includes('accept-seek'), 'a casual seek is for anyone');
  assert.ok(seekRow(seek, true, true).includes('id="cancel-seek"'));
  const game = {
    game: 'k3fq9mzt', variant: 'standard', status: 'ongoing', plies: 3, watchers: 0, clock: { initial_ms: 300000, increment_ms: 3000 },
    white: { kind: 'human', online: true, name: 'Alice' }, black: { kind: 'human', online: true, name: 'Bob' },
  };
  assert.match(gameRow({ ...game, rated: true }), /<span class="mode rated">Rated<\/span>/);
  assert.match(gameRow({ ...game, rated: true }), /aria-label="Standard, 5\+3, rated: Alice against Bob/);
  assert.match(gameRow(game), /<span class="mode">Casual<\/span>/);
});

test('stepping through the moves', () => {
  assert.equal(stepTo('first', 5, 9), 0);
  assert.equal(stepTo('prev', 5, 9), 4);
  assert.equal(stepTo('prev', 0, 9), 0);
  assert.equal(stepTo('next', 5, 9), 6);
  assert.equal(stepTo('next', 9, 9), 9);
  assert.equal(stepTo('last', 2, 9), 9);
  assert.equal(stepTo('sideways', 2, 9), null);
});

// The controller, with the browser's globals it touches stood in for.
globalThis.window ??= { addEventListener() {} };
const stored = new Map();
globalThis.localStorage ??= {
  getItem: (k) => stored.get(k) ?? null, setItem: (k, v) => stored.set(k, String(v)), removeItem: (k) => stored.delete(k),
};
globalThis.document ??= { getElementById: () => null, body: { dataset: {} } };
const { GameCtrl } = await import('../../client/js/game/ctrl.js');

function page(id, account) {
  const ctrl = new GameCtrl(id, { account });
  const sent = [];
  let stopped = false;
  ctrl.conn = { connected: true, send: (msg) => { sent.push(msg); return sent.length; }, stop: () => { stopped = true; } };
  return { ctrl, sent, stopped: () => stopped };
}

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const AFTER_E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
const state = (game, fields = {}) => ({
  type: 'state', game, v: 3, variant: 'standard', initial_fen: START, fen: AFTER_E4, moves: ['e2e4'], san: ['e4'], turn: 'black',
  status: 'ongoing', result: null, reason: null, legal: ['e7e5'], check: false, clock: null, watchers: 0, offer: null, claim: null,
  seats: { white: { kind: 'human', online: true, name: 'Alice' }, black: { kind: 'human', online: true, name: 'Bob' } },
  ...fields,
});

test('logged in with no token here: resume without one, and keep the token it brings', async () => {
  const { ctrl, sent } = page('acc1', Promise.resolve({ username: 'Alice', playing: ['acc1'] }));
  ctrl.subscribe();
  assert.equal(sent.length, 0, 'nothing before the server says who this is');
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(sent.length, 1);
  assert.equal(sent[0].type, 'resume');
  assert.equal(sent[0].game, 'acc1');
  assert.ok(!('token' in sent[0]) || sent[0].token === undefined, JSON.stringify(sent[0]));
  ctrl.handle({ type: 'joined', game: 'acc1', color: 'black', token: 'f'.repeat(32), id: 1 });
  assert.deepEqual(ctrl.seat, { token: 'f'.repeat(32), color: 'black' });
  assert.equal(JSON.parse(localStorage.getItem('gambit:seat:acc1')).token, 'f'.repeat(32), 'stored like any seat');
  assert.equal(ctrl.orientation, 'black');
  // A reconnection resumes by the token from now on.
  ctrl.handle(state('acc1'));
  ctrl.subscribe();
  assert.deepEqual([sent[1].type, sent[1].token, sent[1].v], ['resume', 'f'.repeat(32), 3]);
});

test('an account with no seat in the game watches it', async () => {
  const { ctrl, sent } = page('acc2', Promise.resolve({ username: 'Cy', playing: [] }));
  await new Promise((resolve) => setTimeout(resolve, 0));
  ctrl.subscribe();
  assert.equal(sent[0].type, 'resume');
  ctrl.handle({ type: 'error', code: 'not_a_player', message: 'you hold no seat in this game', id: 1 });
  assert.equal(sent[1].type, 'watch');
  assert.equal(ctrl.notice, '', 'nothing to tell: watching is what was meant');
  assert.equal(ctrl.seat, null);
  ctrl.subscribe();
  assert.equal(sent[2].type, 'watch', 'a reconnection goes straight to watching');
});

test('anonymous: watch at once, as before', () => {
  const { ctrl, sent } = page('acc3', Promise.resolve(null));
  const plain = page('acc3');
  plain.ctrl.subscribe();
  assert.equal(plain.sent[0].type, 'watch');
  return new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
    ctrl.subscribe();
    assert.equal(sent[0].type, 'watch');
  });
});

test('a stale token, logged in: the account\'s seat next', async () => {
  localStorage.setItem('gambit:seat:acc4', JSON.stringify({ token: 'a'.repeat(32), color: 'white' }));
  const { ctrl, sent } = page('acc4', Promise.resolve({ username: 'Alice', playing: [] }));
  await new Promise((resolve) => setTimeout(resolve, 0));
  ctrl.subscribe();
  assert.equal(sent[0].token, 'a'.repeat(32));
  ctrl.handle({ type: 'error', code: 'not_a_player', message: 'no seat', id: 1 });
  assert.equal(localStorage.getItem('gambit:seat:acc4'), null);
  assert.deepEqual([sent[1].type, sent[1].token], ['resume', undefined]);
});

test('login_required is shown', () => {
  const { ctrl } = page('acc5');
  ctrl.handle(state('acc5'));
  ctrl.handle({ type: 'error', code: 'login_required', message: 'log in to play rated games', id: 9 });
  assert.equal(ctrl.notice, 'log in to play rated games');
});

test('a rated game: the state says so, the end brings both new ratings', () => {
  const { ctrl } = page('acc6');
  ctrl.handle(state('acc6', { rated: true, clock: { initial_ms: 300000, increment_ms: 3000, white_ms: 300000, black_ms: 300000, running: 'black' } }));
  assert.equal(ctrl.game.rated, true);
  assert.equal(ctrl.game.ratings, null);
  const ratings = { white: { rating: 1662, change: 162, provisional: true }, black: { rating: 1338, change: -162, provisional: true } };
  ctrl.handle({ type: 'end', game: 'acc6', v: 4, result: '1-0', reason: 'resignation', clock: null, match: { white: 1, black: 0, games: 1 }, ratings });
  assert.equal(ctrl.game.status, 'ended');
  assert.deepEqual(ctrl.game.ratings, ratings);
  // A finished rated game's state carries them too.
  ctrl.handle(state('acc6', { v: 4, status: 'ended', result: '1-0', reason: 'resignation', legal: [], rated: true, ratings }));
  assert.deepEqual(ctrl.game.ratings, ratings);
  const casual = page('acc7');
  casual.ctrl.handle(state('acc7'));
  assert.equal(casual.ctrl.game.rated, false);
});

test('a game the server forgot is read from the archive', async () => {
  const archived = state('old9', { status: 'ended', result: '0-1', reason: 'resignation', legal: [], watchers: 5 });
  delete archived.type;
  const asked = [];
  globalThis.fetch = async (path) => {
    asked.push(path);
    if (path === '/api/games/old9') return { status: 200, json: async () => archived };
    return { status: 404, json: async () => ({ error: 'no such game' }) };
  };
  const { ctrl, sent, stopped } = page('old9');
  let redraws = 0;
  ctrl.redraw = () => { redraws += 1; };
  ctrl.subscribe();
  ctrl.handle({ type: 'error', code: 'no_such_game', message: 'no game old9', id: 1 });
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(asked, ['/api/games/old9']);
  assert.equal(ctrl.archived, true);
  assert.equal(ctrl.missing, false);
  assert.ok(stopped(), 'the connection is not needed any more');
  assert.deepEqual([ctrl.game.status, ctrl.game.result, ctrl.game.moves.length, ctrl.game.boards.length], ['ended', '0-1', 1, 2]);
  assert.deepEqual(ctrl.chatRooms(), []);
  assert.ok(redraws > 0);
  // Stepping back works on it as on any game.
  ctrl.setReview(0);
  assert.equal(ctrl.review, 0);
  ctrl.subscribe();
  assert.equal(sent.length, 1, 'nothing more is sent');

  const gone = page('nope1');
  gone.ctrl.handle({ type: 'error', code: 'no_such_game', message: 'no game nope1', id: 1 });
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(gone.ctrl.missing, true);
  assert.equal(gone.ctrl.archived, false);
  assert.equal(gone.ctrl.game, null);
});
