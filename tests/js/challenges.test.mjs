// Challenges, the event stream, API tokens and bots in the web client: reading ndjson as it
// arrives (client/js/ndjson.js), how a challenge reads and which decline reasons fit it, the
// waiting challenges as events change them, which `gameStart` a waiting page follows
// (client/js/challenges.js), the top bar's items escaped (challengeBar.js), the token form's
// request (tokens.js) and the bots list (bots.js). Run with `node --test tests/js/`.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { backoffMs, LINE_MAX, parseLine, splitLines } from '../../client/js/ndjson.js';
import {
  ChallengeList, challengeRequest, challengeTerms, declineReasonsFor, declineText, describeTimeControl, isTimed, mayBeRated, opponentOf,
  shouldOpenGame, sideForChallenged, DECLINE_REASONS, TIME_CONTROLS, timeControlKind,
} from '../../client/js/challenges.js';
import { incomingHtml, outgoingHtml } from '../../client/js/challengeBar.js';
import { MAIN_SCOPES, OTHER_SCOPES, scopeLabel, tokenRequest } from '../../client/js/tokens.js';
import { botRating, sortBots } from '../../client/js/bots.js';

/** A challenge as the server sends it (lichess's ChallengeJson), from Alice to Bob, 5+3 casual. */
function challenge(fields = {}) {
  return {
    id: 'c1', status: 'created',
    challenger: { id: 'alice', name: 'Alice', rating: 1500, provisional: true, title: null },
    destUser: { id: 'bob', name: 'Bob', rating: 1620, provisional: false, title: null },
    variant: { key: 'standard', name: 'Standard' }, rated: false, speed: 'blitz',
    timeControl: { type: 'clock', limit: 300, increment: 3, show: '5+3' },
    color: 'random', finalColor: 'white', perf: { name: 'Blitz' },
    ...fields,
  };
}

test('ndjson: lines split anywhere across chunks, keep-alives and all', () => {
  let rest = '';
  const lines = [];
  for (const chunk of ['{"type":"chal', 'lenge","x":1}\n\n{"type":"gameStart"', '}\r\n', '\n{"ty']) {
    const split = splitLines(rest, chunk);
    lines.push(...split.lines);
    rest = split.rest;
  }
  assert.deepEqual(lines, ['{"type":"challenge","x":1}', '', '{"type":"gameStart"}', '']);
  assert.equal(rest, '{"ty');
  assert.deepEqual(splitLines('', ''), { lines: [], rest: '' });
  assert.deepEqual(splitLines('', '\n'), { lines: [''], rest: '' });
  assert.equal(splitLines('', 'x'.repeat(LINE_MAX + 1)).rest, '', 'a runaway line is dropped');
});

test('ndjson: a line is an event object or nothing', () => {
  assert.deepEqual(parseLine('{"type":"challenge","challenge":{"id":"c1"}}'), { type: 'challenge', challenge: { id: 'c1' } });
  assert.deepEqual(parseLine('  {"type":"gameStart"}  '), { type: 'gameStart' });
  for (const bad of ['', '   ', '{', 'null', '[1]', '"text"', '42', '{"no":"type"}', '{"type":7}', undefined]) assert.equal(parseLine(bad), null, String(bad));
});

test('reconnecting: 1 s doubling to 30 s, jittered by a fifth', () => {
  assert.equal(backoffMs(0, () => 0.5), 1000);
  assert.equal(backoffMs(1, () => 0.5), 2000);
  assert.equal(backoffMs(3, () => 0.5), 8000);
  assert.equal(backoffMs(20, () => 0.5), 30000);
  assert.equal(backoffMs(0, () => 0), 800);
  assert.equal(backoffMs(0, () => 0.999999), 1200);
  assert.equal(backoffMs(-3, () => 0.5), 1000);
  assert.equal(backoffMs(undefined, () => 0.5), 1000);
});

test('time controls as people read them', () => {
  assert.equal(describeTimeControl({ type: 'clock', limit: 300, increment: 3, show: '5+3' }), '5+3');
  assert.equal(describeTimeControl({ type: 'clock', limit: 60, increment: 0 }), '1+0');
  assert.equal(describeTimeControl({ type: 'clock', limit: 30, increment: 0, show: '0.5+0' }), '½+0');
  assert.equal(describeTimeControl({ type: 'clock', limit: 15, increment: 1 }), '¼+1');
  assert.equal(describeTimeControl({ type: 'clock', limit: 100, increment: 2 }), '1.67+2');
  assert.equal(describeTimeControl({ type: 'clock', show: '3+2' }), '3+2');
  assert.equal(describeTimeControl({ type: 'unlimited' }), 'Untimed');
  assert.equal(describeTimeControl({ type: 'correspondence', daysPerTurn: 3 }), '3 days');
  assert.equal(describeTimeControl({ type: 'correspondence', daysPerTurn: 1 }), '1 day');
  assert.equal(describeTimeControl(null), '?');
  assert.equal(describeTimeControl({ type: 'sundial' }), '?');
});

test('a challenge in one line, and the side the challenged player gets', () => {
  assert.equal(challengeTerms(challenge()), '5+3 Blitz · Casual · Standard');
  assert.equal(challengeTerms(challenge({ rated: true })), '5+3 Blitz · Rated · Standard');
  assert.equal(challengeTerms(challenge({ timeControl: { type: 'unlimited' }, perf: { name: 'Correspondence' } })), 'Untimed · Casual · Standard');
  assert.equal(
    challengeTerms(challenge({ variant: { key: 'minichess7', name: 'Minichess 7x7' }, perf: { name: 'Minichess7' } })),
    '5+3 · Casual · Minichess 7×7',
  );
  assert.equal(
    challengeTerms(challenge({ variant: { key: 'chess960', name: 'Chess960' }, perf: { name: 'Chess960' }, rated: true })),
    '5+3 · Rated · Chess960',
  );
  assert.equal(sideForChallenged(challenge({ color: 'white' })), 'You play Black');
  assert.equal(sideForChallenged(challenge({ color: 'black' })), 'You play White');
  assert.equal(sideForChallenged(challenge()), 'Random side', 'a random draw is not given away');
});

test('the decline reasons that fit a challenge', () => {
  assert.deepEqual(declineReasonsFor(challenge()), ['generic', 'later', 'tooFast', 'tooSlow', 'timeControl', 'rated']);
  assert.deepEqual(declineReasonsFor(challenge({ rated: true })), ['generic', 'later', 'tooFast', 'tooSlow', 'timeControl', 'casual']);
  assert.deepEqual(declineReasonsFor(challenge({ timeControl: { type: 'unlimited' } })), ['generic', 'later', 'tooSlow', 'timeControl']);
  // Days per move can be too few, and a casual correspondence challenge could have been rated.
  assert.deepEqual(declineReasonsFor(challenge({ timeControl: { type: 'correspondence', daysPerTurn: 1 } })),
    ['generic', 'later', 'tooFast', 'tooSlow', 'timeControl', 'rated']);
  assert.deepEqual(declineReasonsFor(challenge({ variant: { key: 'minichess7' } })).slice(-2), ['standard', 'variant']);
  const fromBot = challenge({ challenger: { id: 'tinker', name: 'Tinker', title: 'BOT' } });
  assert.ok(declineReasonsFor(fromBot).includes('noBot'));
  assert.ok(!declineReasonsFor(challenge()).includes('onlyBot'), 'people do not decline people for not being bots');
  assert.ok(declineReasonsFor(challenge(), true).includes('onlyBot'));
  for (const key of declineReasonsFor(fromBot, true)) assert.ok(DECLINE_REASONS[key], key);
  assert.equal(Object.keys(DECLINE_REASONS).length, 11, "lichess's eleven keys");
});

test("a declined challenge's words: the server's, else ours for the key", () => {
  assert.equal(declineText(challenge({ declineReason: 'Too fast, sorry.', declineReasonKey: 'tooFast' })), 'Too fast, sorry.');
  assert.equal(declineText(challenge({ declineReasonKey: 'later' })), DECLINE_REASONS.later[1]);
  assert.equal(declineText(challenge({ declineReasonKey: 'whatever' })), DECLINE_REASONS.generic[1]);
  assert.equal(declineText(challenge()), DECLINE_REASONS.generic[1]);
});

test("the form's request: a clock from the preset, never rated untimed", () => {
  assert.deepEqual(challengeRequest({ time: '5+3', variant: 'standard', color: 'white', rated: true }),
    { variant: 'standard', color: 'white', rated: true, clock: { limit: 300, increment: 3 } });
  assert.deepEqual(challengeRequest({ time: '15+10', variant: 'minichess7', color: 'random', rated: false }),
    { variant: 'minichess7', color: 'random', rated: false, clock: { limit: 900, increment: 10 } });
  assert.deepEqual(challengeRequest({ time: 'untimed', variant: 'standard', color: 'black', rated: true }),
    { variant: 'standard', color: 'black', rated: false });
  assert.deepEqual(challengeRequest({ time: '3+2', variant: 'chess960', color: 'black', rated: true }),
    { variant: 'chess960', color: 'black', rated: true, clock: { limit: 180, increment: 2 } });
  assert.deepEqual(challengeRequest({ time: '1+0', variant: 'crazyhouse', color: 'purple' }),
    { variant: 'standard', color: 'random', rated: false, clock: { limit: 60, increment: 0 } });
  assert.deepEqual(TIME_CONTROLS.map(([value]) => value),
    ['1+0', '3+2', '5+3', '10+0', '15+10', 'd1', 'd2', 'd3', 'd5', 'd7', 'd10', 'd14', 'untimed']);
  assert.ok(isTimed('10+0') && !isTimed('untimed') && !isTimed('7+7') && !isTimed('d3'));
});

test("the form's request by correspondence: days instead of a clock, and it may be rated", () => {
  assert.deepEqual(challengeRequest({ time: 'd3', variant: 'standard', color: 'white', rated: true }),
    { variant: 'standard', color: 'white', rated: true, days: 3 });
  assert.deepEqual(challengeRequest({ time: 'd14', variant: 'minichess7', color: 'random', rated: false }),
    { variant: 'minichess7', color: 'random', rated: false, days: 14 });
  assert.deepEqual(challengeRequest({ time: 'd4', variant: 'standard', color: 'white', rated: true }),
    { variant: 'standard', color: 'white', rated: false }, 'not a choice of days: untimed, as any unknown value');
  assert.deepEqual(TIME_CONTROLS.filter(([value]) => value.startsWith('d')).map(([, label]) => label),
    ['1 day', '2 days', '3 days', '5 days', '7 days', '10 days', '14 days']);
  assert.deepEqual(['5+3', 'd7', 'untimed', 'bogus'].map(timeControlKind), ['clock', 'days', 'untimed', 'untimed']);
  assert.ok(mayBeRated('5+3') && mayBeRated('d1') && !mayBeRated('untimed') && !mayBeRated('d4'));
});

test('the waiting challenges follow the event stream', () => {
  const bob = new ChallengeList('bob');
  const c = challenge();
  assert.deepEqual(bob.apply({ type: 'challenge', challenge: c }), { arrived: c }, 'a new one to Bob arrives');
  assert.deepEqual(bob.apply({ type: 'challenge', challenge: c }), {}, 'sent again when the stream reopens: nothing new');
  assert.deepEqual(bob.waitingIn.map((x) => x.id), ['c1']);
  assert.equal(opponentOf(c, 'bob'), 'Alice');
  assert.deepEqual(bob.apply({ type: 'challengeCanceled', challenge: { ...c, status: 'canceled' } }), { changed: true });
  assert.deepEqual(bob.waitingIn, []);
  bob.load({ in: [c], out: [] });
  assert.deepEqual(bob.waitingIn, [], 'a list fetched before it went does not bring it back');
  assert.deepEqual(bob.apply({ type: 'challengeCanceled', challenge: c }), {}, 'gone already');

  const alice = new ChallengeList('ALICE');
  assert.deepEqual(alice.apply({ type: 'challenge', challenge: c }), { changed: true }, 'her own, sent');
  assert.deepEqual(alice.waitingOut.map((x) => x.id), ['c1']);
  assert.equal(opponentOf(c, 'alice'), 'Bob');
  alice.apply({ type: 'challengeDeclined', challenge: { ...c, status: 'declined', declineReasonKey: 'later' } });
  assert.deepEqual(alice.waitingOut, []);

  const carol = new ChallengeList('carol');
  assert.deepEqual(carol.apply({ type: 'challenge', challenge: c }), {}, 'not hers');
  assert.deepEqual(carol.apply({ type: 'gameStart', game: { id: 'g1' } }), {});
  const list = new ChallengeList('bob');
  list.load({ in: [challenge({ id: 'c2' }), challenge({ id: 'c3', status: 'declined' })], out: [{ id: 'c4', challenger: { name: 'Bob' }, destUser: { name: 'Dan' } }] });
  assert.deepEqual(list.waitingIn.map((x) => x.id), ['c2'], 'only those still waiting');
  assert.deepEqual(list.waitingOut.map((x) => x.id), ['c4']);
  list.load(null);
  assert.deepEqual([list.waitingIn, list.waitingOut], [[], []]);
});

test('a waiting page opens only the new game against the player it waits for', () => {
  const expected = new Set(['bob']);
  const seen = new Set(['old']);
  const game = { id: 'g1', hasMoved: false, opponent: { username: 'Bob' } };
  assert.equal(shouldOpenGame(game, expected, seen), true);
  assert.equal(shouldOpenGame({ ...game, id: 'old' }, expected, seen), false, 'a game in progress repeated on reopening');
  assert.equal(shouldOpenGame({ ...game, hasMoved: true }, expected, seen), false, 'a game this player has moved in');
  assert.equal(shouldOpenGame({ ...game, opponent: { username: 'Carol' } }, expected, seen), false);
  assert.equal(shouldOpenGame(game, new Set(), seen), false, 'waiting for nothing');
  assert.equal(shouldOpenGame({ id: 'g2' }, expected, seen), false);
  assert.equal(shouldOpenGame(null, expected, seen), false);
});

test("the top bar's items escape what players wrote", () => {
  const evil = '<img src=x onerror=alert(1)>';
  const html = incomingHtml(challenge({ challenger: { id: 'x', name: evil, rating: 1500, provisional: true } }));
  assert.ok(!html.includes('<img'), html);
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'), html);
  assert.ok(html.includes('(1500?)') && html.includes('5+3 Blitz · Casual · Standard · Random side'), html);
  assert.match(html, /class="primary challenge-accept">Accept</);
  assert.match(html, /<option value="tooFast">Too fast<\/option>/);
  assert.ok(!html.includes('bot-badge'));
  assert.ok(incomingHtml(challenge({ challenger: { name: 'Tinker', title: 'BOT' } })).includes('<span class="bot-badge">BOT</span>'));
  const out = outgoingHtml(challenge({ destUser: { name: '"quoted"&' } }));
  assert.ok(out.includes('&quot;quoted&quot;&amp;') && out.includes('challenge-cancel'), out);
});

test("the token form's request", () => {
  assert.deepEqual(tokenRequest('  my board app ', ['board:play', 'challenge:read', 'board:play']),
    { body: { description: 'my board app', scopes: ['board:play', 'challenge:read'] } });
  assert.deepEqual(tokenRequest('no scopes at all', []), { body: { description: 'no scopes at all', scopes: [] } });
  assert.match(tokenRequest('   ', []).error, /description/);
  assert.match(tokenRequest('x'.repeat(201), []).error, /at most 200/);
  assert.ok(tokenRequest('😀'.repeat(200), []).body, 'characters, not UTF-16 units');
  assert.match(tokenRequest('two\nlines', []).error, /one line/);
  assert.deepEqual(MAIN_SCOPES.map(([key]) => key), ['board:play', 'bot:play', 'challenge:read', 'challenge:write']);
  assert.equal(MAIN_SCOPES.length + OTHER_SCOPES.length, 22, "all of lichess's scopes");
  assert.equal(new Set([...MAIN_SCOPES, ...OTHER_SCOPES].map(([key]) => key)).size, 22);
  assert.equal(scopeLabel('bot:play'), 'Play games with the Bot API');
  assert.equal(scopeLabel('unknown:thing'), 'unknown:thing');
});

test('the bots list: online first, ratings with "?" while provisional', () => {
  const bots = [
    { username: 'zeta', online: true, ratings: {} },
    { username: 'alpha', online: false, ratings: { blitz: { rating: 1712.4, provisional: false } } },
    { username: 'beta', online: true, ratings: { rapid: { rating: 1500, provisional: true } } },
    { online: true }, null,
  ];
  assert.deepEqual(sortBots(bots).map((b) => b.username), ['beta', 'zeta', 'alpha']);
  assert.equal(botRating(bots[1], 'blitz'), '1712');
  assert.equal(botRating(bots[2], 'rapid'), '1500?');
  assert.equal(botRating(bots[0], 'blitz'), '–');
  assert.equal(botRating(undefined, 'blitz'), '–');
});
