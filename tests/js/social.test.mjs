// Chat, rematches and seeks in the web client: the pure rules (client/js/social.js) — which
// rooms a person reads and writes in, the check of a chat line, how a match's score reads —
// the lobby's row of an open seek, and the game page's controller as it keeps the chat and
// moves on to a rematch (client/js/game/ctrl.js, with a stand-in for the socket).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { seekRow } from '../../client/js/lobby.js';
import { CHAT_MAX, chatLine, chatRooms, checkChat, formatPoints, matchLine, NO_MATCH, scoreText } from '../../client/js/social.js';

test('points read in halves', () => {
  for (const [points, shown] of [[0, '0'], [0.5, '½'], [1, '1'], [1.5, '1½'], [2, '2'], [12.5, '12½']]) {
    assert.equal(formatPoints(points), shown, String(points));
  }
  assert.equal(scoreText({ white: 2.5, black: 1.5, games: 4 }), '2½ – 1½');
  assert.equal(scoreText({ white: 0, black: 1, games: 1 }), '0 – 1');
});

test('the match line names White first, once a game counts', () => {
  assert.equal(matchLine({ white: 1, black: 0, games: 1 }, 'Alice', 'Bob'), 'Alice 1 – 0 Bob');
  assert.equal(matchLine({ white: 0.5, black: 1.5, games: 2 }, 'Bob', 'Alice'), 'Bob ½ – 1½ Alice');
  assert.equal(matchLine(NO_MATCH, 'Alice', 'Bob'), null, 'no game counted yet');
  assert.equal(matchLine(undefined, 'Alice', 'Bob'), null);
});

test('who reads and writes in which chat room', () => {
  assert.deepEqual(chatRooms(true, false), ['players'], 'a player during the game');
  assert.deepEqual(chatRooms(true, true), ['players', 'spectators'], 'a player once it is over');
  assert.deepEqual(chatRooms(false, false), ['spectators'], 'a spectator');
  assert.deepEqual(chatRooms(false, true), ['spectators'], 'a spectator, after the end too');
});

test('chat lines are checked as the server checks them', () => {
  assert.deepEqual(checkChat('  hello <b>  '), { text: 'hello <b>' });
  assert.deepEqual(checkChat('<img src=x onerror=alert(1)>'), { text: '<img src=x onerror=alert(1)>' });
  assert.deepEqual(checkChat('é'.repeat(CHAT_MAX)), { text: 'é'.repeat(CHAT_MAX) });
  assert.deepEqual(checkChat('𝒜'.repeat(CHAT_MAX)), { text: '𝒜'.repeat(CHAT_MAX) }, 'characters, not UTF-16 units');
  for (const bad of ['', '   ', 'x'.repeat(CHAT_MAX + 1), 'a\u0007b', 'a\u202eb', 'a\u2066b']) {
    assert.ok(checkChat(bad).error, JSON.stringify(bad));
  }
  assert.match(checkChat('x'.repeat(CHAT_MAX + 1)).error, /at most 280 characters; this one has 281/);
});

test('a chat message becomes a line, or nothing', () => {
  const line = chatLine({ type: 'chat', game: 'g', room: 'players', from: 'Alice', text: 'hi', at: 5 });
  assert.deepEqual({ ...line, key: undefined }, { room: 'players', from: 'Alice', text: 'hi', at: 5, key: undefined });
  assert.equal(chatLine({ type: 'chat', room: 'lobby', from: 'A', text: 'x' }), null, 'an unknown room');
  assert.equal(chatLine({ type: 'chat', room: 'players', from: 'A' }), null, 'no text');
  assert.equal(chatLine({ type: 'chat', room: 'spectators', text: 'x' }).from, 'Anonymous');
});

test('a seek row: the name as text, Accept for others, Cancel for one\'s own', () => {
  const seek = { seek: 's1', name: '<img src=x>', variant: 'standard', fen: null, rules: {}, clock: { initial_ms: 300000, increment_ms: 3000 }, color: 'white' };
  const row = seekRow(seek, false);
  assert.ok(!row.includes('<img'), row);
  assert.ok(row.includes('&lt;img src=x&gt;'), row);
  assert.ok(row.includes('class="accept-seek'), row);
  assert.ok(row.includes('5+3') && row.includes('Standard') && row.includes('plays White'), row);
  const mine = seekRow({ ...seek, name: 'Alice', color: null, clock: null, variant: 'minichess7' }, true);
  assert.ok(mine.includes('id="cancel-seek"') && !mine.includes('accept-seek'), mine);
  assert.ok(mine.includes('Waiting for an opponent') && mine.includes('random side') && mine.includes('untimed'), mine);
});

// The controller, with the browser's globals it touches stood in for.
globalThis.window ??= { addEventListener() {} };
const stored = new Map();
globalThis.localStorage ??= {
  getItem: (k) => stored.get(k) ?? null, setItem: (k, v) => stored.set(k, String(v)), removeItem: (k) => stored.delete(k),
};
const { GameCtrl } = await import('../../client/js/game/ctrl.js');

function page(seat) {
  const ctrl = new GameCtrl('old1');
  const sent = [];
  ctrl.conn = { connected: true, send: (msg) => { sent.push(msg); return sent.length; } };
  ctrl.seat = seat;
  const went = [];
  ctrl.navigate = (path) => went.push(path);
  return { ctrl, sent, went };
}

const STATE = {
  type: 'state', game: 'old1', v: 0, variant: 'standard',
  initial_fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
  moves: [], san: [], turn: 'white', status: 'ongoing', result: null, reason: null,
  seats: { white: { kind: 'human', online: true, name: 'Alice' }, black: { kind: 'human', online: true, name: 'Bob' } },
  legal: ['e2e4'], check: false, clock: null, watchers: 1, offer: null, claim: null,
};

test('the chat: a fresh subscription clears it, a line seen twice shows once', () => {
  const { ctrl, sent } = page(null);
  ctrl.subscribe();
  assert.equal(sent[0].type, 'watch');
  ctrl.handle(STATE);
  const line = { type: 'chat', game: 'old1', room: 'spectators', from: 'Cy', text: 'hi', at: 1 };
  ctrl.handle(line);
  ctrl.handle(line);
  ctrl.handle({ ...line, game: 'other' });
  assert.deepEqual(ctrl.chat.lines.map((l) => l.text), ['hi']);
  assert.deepEqual(ctrl.chatRooms(), ['spectators']);
  const epoch = ctrl.chat.epoch;
  ctrl.resync();
  assert.equal(ctrl.chat.lines.length, 0);
  assert.ok(ctrl.chat.epoch > epoch, 'the view starts its log afresh');
});

test('a spectator chats under a name given with watch; a refused line comes back', () => {
  const { ctrl, sent } = page(null);
  ctrl.handle(STATE);
  assert.equal(ctrl.sendChat('players', 'hello', 'Cy'), false, 'a spectator cannot write to the players');
  assert.equal(ctrl.sendChat('spectators', '  ', 'Cy'), false);
  assert.ok(ctrl.notice);
  assert.equal(ctrl.sendChat('spectators', ' hello ', 'Cy'), true);
  assert.deepEqual(sent.slice(-2).map((m) => [m.type, m.name ?? m.text]), [['watch', 'Cy'], ['chat', 'hello']]);
  assert.equal(sent[sent.length - 2].v, 0, 'with the version held: no state again');
  ctrl.handle({ type: 'error', code: 'rate_limited', message: 'you are writing too fast', id: sent.length });
  assert.equal(ctrl.chatRestore, 'hello');
  assert.equal(ctrl.notice, 'you are writing too fast');
  ctrl.sendChat('spectators', 'again', 'Cy');
  assert.equal(sent[sent.length - 1].type, 'chat', 'the name is known now');
});

test('a player: the end opens the spectators\' room; a rematch moves the page with the seat', () => {
  const { ctrl, sent, went } = page({ token: 'tok', color: 'black' });
  ctrl.handle({ ...STATE, v: 4, status: 'ended', result: '0-1', reason: 'resignation', legal: [] });
  assert.deepEqual(ctrl.chatRooms(), ['players', 'spectators']);
  ctrl.handle({ ...STATE, v: 4 });
  assert.deepEqual(ctrl.chatRooms(), ['players']);
  ctrl.handle({ type: 'end', game: 'old1', v: 5, result: '0-1', reason: 'resignation', clock: null, match: { white: 0, black: 1, games: 1 } });
  assert.deepEqual(ctrl.game.match, { white: 0, black: 1, games: 1 });
  assert.deepEqual(ctrl.chatRooms(), ['players', 'spectators'], 'the spectators\' room opens with the end');
  assert.ok(!sent.some((m) => m.type === 'resume'), 'the server sends its lines by itself');
  ctrl.handle({ type: 'offer', game: 'old1', v: 6, kind: 'rematch', by: 'white' });
  assert.deepEqual(ctrl.game.offer, { kind: 'rematch', by: 'white' });
  ctrl.handle({ type: 'rematch', game: 'old1', v: 7, next: 'new2' });
  assert.equal(ctrl.game.next, 'new2');
  assert.equal(ctrl.game.offer, null);
  assert.deepEqual(went, ['/g/new2']);
  const seat = JSON.parse(localStorage.getItem('gambit:seat:new2'));
  assert.deepEqual([seat.token, seat.color], ['tok', 'white'], 'the same token holds the other colour');
  ctrl.handle({ type: 'rematch', game: 'old1', v: 7, next: 'new2' });
  assert.deepEqual(went, ['/g/new2'], 'once');
});

test('a watch whose name the server refuses is sent again without it', () => {
  localStorage.setItem('gambit:name', 'Cy');
  const { ctrl, sent } = page(null);
  ctrl.subscribe();
  assert.equal(sent[0].name, 'Cy');
  ctrl.handle({ type: 'error', code: 'bad_request', message: 'bad message: a name has at most 24 characters', id: 1 });
  assert.deepEqual([sent[1].type, sent[1].name], ['watch', undefined]);
  assert.equal(ctrl.notice, '', 'nothing to tell');
  localStorage.removeItem('gambit:name');
});
