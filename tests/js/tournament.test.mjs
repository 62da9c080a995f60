// The tournament pages' rules (client/js/tournament/): the count-downs and points as they read,
// a refusal's words, the form bodies; an arena's JSON read without ever lacking a field, its
// score sheets (oldest first, the games on fire), its buttons and the move to a player's next
// game; a round robin's crosstable grid and rounds; the lists' order and items; and the poller
// that follows a tournament while its page is in view, driven with fake timers. Run with
// `node --test tests/js/tournament.test.mjs`.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { routeFor } from '../../client/js/routes.js';
import {
  aboutTime, arenaClockName, formatCountdown, formatDecimal, formatPoints, formBody, playersText, refusalText, sameName, secondsLeft,
} from '../../client/js/tournament/common.js';
import {
  arenaAction, arenaCountdown, arenaFeatures, arenaTerms, duelsHtml, featuredPlayersHtml, gameToOpen, isIn, mayAddBots, myStateText,
  ordinal, parseArena, podiumHtml, sheetCells, sheetHtml, standingNote, standingsHtml, statsRows,
} from '../../client/js/tournament/arenaRules.js';
import {
  crosstableGrid, crosstableHtml, hasEntered, parseRoundRobin, resultText, roundRobinActions, roundRobinTerms, roundsHtml, roundsView,
  statusLine, winners,
} from '../../client/js/tournament/roundRobinRules.js';
import {
  arenaFields, arenaItemHtml, arenaWhen, currentTournaments, durationName, minutesName, parseArenaList, parseRoundRobinList,
  roundRobinFields, roundRobinItemHtml, roundRobinWhen, tournamentPath, CLOCK_TIMES, DURATIONS, WAIT_MINUTES,
} from '../../client/js/tournament/list.js';
import { Poller } from '../../client/js/poll.js';

const alice = { username: 'Alice', playing: [] };
const bob = { username: 'bob', playing: [] };

/** An arena as the server sends it, with `fields` over it. */
function arenaJson(fields = {}) {
  return {
    id: 'ar1', system: 'arena', fullName: 'Friday Blitz Arena', createdBy: 'Alice', minutes: 45,
    clock: { limit: 180, increment: 2 }, variant: 'standard', rated: true, berserkable: true, streakable: true,
    botsAllowed: true, private: false, startsAt: '2030-01-04T18:00:00Z', finishesAt: '2030-01-04T18:45:00Z',
    secondsToFinish: 600, status: 20, isStarted: true, isFinished: false, nbPlayers: 3, perf: { key: 'blitz', name: 'Blitz' },
    standing: {
      page: 1,
      players: [
        { name: 'Alice', rank: 1, rating: 1720, score: 12, sheet: { scores: '4422', fire: true } },
        { name: 'Carol', rank: 2, rating: 1500, score: 3, sheet: { scores: '201', fire: false }, withdraw: true },
        { name: 'Level5', rank: 3, score: 0, sheet: { scores: '', fire: false }, bot: true },
      ],
    },
    featured: {
      id: 'g1', fen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1', color: 'white', lastMove: 'e2e4',
      white: { name: 'Alice', rank: 1, rating: 1720 }, black: { name: 'Carol', rank: 2, rating: 1500 },
    },
    duels: [{ id: 'g1', p: [{ n: 'Alice', r: 1720, k: 1 }, { n: 'Carol', r: 1500, k: 2 }] }],
    stats: { games: 10, moves: 400, whiteWins: 5, blackWins: 3, draws: 2, berserks: 1 },
    ...fields,
  };
}

/** A round robin of four (Ann, Ben, Cid, Dee in entry order) in its second round. */
function roundRobinJson(fields = {}) {
  return {
    id: 'rr1', kind: 'roundrobin', name: 'Club <b>night</b>', createdBy: 'Ann', createdAt: 1700000000000, status: 'started',
    variant: 'standard', timeControl: { type: 'clock', limit: 300, increment: 3, show: '5+3' }, rated: false, private: false,
    players: ['Ann', 'Ben', 'Cid', 'Dee'], round: 2,
    rounds: [
      [
        { white: 'Ann', black: 'Dee', game: 'ga', result: '1-0', forfeit: false },
        { white: 'Ben', black: 'Cid', game: 'gb', result: '1/2-1/2', forfeit: false },
      ],
      [
        { white: 'Dee', black: 'Cid', game: 'gc', result: null, forfeit: false },
        { white: 'Ann', black: 'Ben', game: null, result: '0-1', forfeit: true },
      ],
      [
        { white: 'Ann', black: 'Cid', game: null, result: null, forfeit: false },
        { white: 'Ben', black: 'Dee', game: null, result: null, forfeit: false },
      ],
    ],
    crosstable: [
      { name: 'Ben', rank: 1, points: 1.5, sonnebornBerger: 1.25, results: [1, null, 0.5, null] },
      { name: 'Ann', rank: 2, points: 1, sonnebornBerger: 0, results: [null, 0, null, 1] },
      { name: 'Cid', rank: 3, points: 0.5, sonnebornBerger: 0.75, results: [null, 0.5, null, null] },
      { name: 'Dee', rank: 4, points: 0, sonnebornBerger: 0, results: [0, null, null, null] },
    ],
    ...fields,
  };
}

test('the tournament pages answer their paths', () => {
  assert.equal(routeFor('/tournaments').route.name, 'tournaments');
  assert.equal(routeFor('/tournaments/').route.name, 'tournaments');
  assert.equal(routeFor('/tournament/ab12CD34').route.name, 'tournament');
  assert.equal(routeFor('/tournament/ab12CD34').match[1], 'ab12CD34');
  assert.equal(routeFor('/roundrobin/xyz9').route.name, 'roundrobin');
  assert.equal(routeFor('/roundrobin/xyz9/').match[1], 'xyz9');
  assert.equal(routeFor('/tournament/').route.name, 'lobby', 'no id, no arena');
  assert.equal(routeFor('/tournament/a%20b').route.name, 'lobby');
  assert.equal(tournamentPath('arena', 'ab 1'), '/tournament/ab%201');
  assert.equal(tournamentPath('roundrobin', 'x'), '/roundrobin/x');
});

test('count-downs, times to go, points and decimals read as people expect', () => {
  assert.equal(formatCountdown(299.2), '5:00', 'rounded up: 0:00 only once the time is up');
  assert.equal(formatCountdown(59), '0:59');
  assert.equal(formatCountdown(3723), '1:02:03');
  assert.equal(formatCountdown(0), '0:00');
  assert.equal(formatCountdown(-5), '0:00');
  assert.equal(formatCountdown(undefined), '0:00');
  assert.equal(aboutTime(45), '45 s');
  assert.equal(aboutTime(61), '2 min');
  assert.equal(aboutTime(720), '12 min');
  assert.equal(aboutTime(3600), '1 h');
  assert.equal(aboutTime(4800), '1 h 20 min');
  assert.equal(aboutTime(2 * 86400 + 3 * 3600), '2 d 3 h');
  assert.equal(secondsLeft(10, 2500), 7.5);
  assert.equal(secondsLeft(10, 20000), 0);
  assert.equal(secondsLeft(undefined, 0), null);
  assert.equal(formatPoints(0), '0');
  assert.equal(formatPoints(0.5), '½');
  assert.equal(formatPoints(1), '1');
  assert.equal(formatPoints(2.5), '2½');
  assert.equal(formatPoints(null), '');
  assert.equal(formatDecimal(2.25), '2.25');
  assert.equal(formatDecimal(3), '3');
  assert.equal(formatDecimal(1 / 3), '0.33');
  assert.equal(playersText(1), '1 player');
  assert.equal(playersText(0), '0 players');
  assert.equal(playersText(undefined), '0 players');
  assert.equal(arenaClockName({ limit: 180, increment: 2 }), '3+2');
  assert.equal(arenaClockName({ limit: 30, increment: 0 }), '½+0');
  assert.equal(arenaClockName(null), '?');
  assert.ok(sameName('Alice', 'alice'));
  assert.ok(!sameName('Alice', null));
  assert.ok(!sameName('', ''));
});

test("a refusal shows the server's words, a form's field errors by field, else what the status means", () => {
  assert.equal(refusalText({ status: 400, data: { error: 'the name is too short' } }), 'the name is too short');
  assert.equal(
    refusalText({ status: 400, data: { error: { minutes: ['must be at least 5'], name: ['too long', 'bad word'] } } }),
    'Duration: must be at least 5 · Name: too long bad word',
  );
  assert.equal(refusalText({ status: 400, data: { error: { global: ['You already have an arena starting'] } } }), 'You already have an arena starting');
  assert.equal(refusalText({ status: 400, data: { error: { weird: 'not a list' } } }), 'weird: not a list');
  assert.match(refusalText({ status: 0, data: { error: 'Could not reach the server; check the connection and try again.' } }), /Could not reach/);
  assert.match(refusalText({ status: 0, data: null }), /Could not reach/);
  assert.equal(refusalText({ status: 401, data: null }), 'Log in first.');
  assert.match(refusalText({ status: 404, data: null }), /does not know this tournament/);
  assert.equal(refusalText({ status: 404, data: { error: 'no such tournament' } }), 'no such tournament');
  assert.match(refusalText({ status: 500, data: null }), /answered 500/);
  assert.match(refusalText(undefined), /Could not reach/);
});

test('a form body carries each field as text, switches as true/false, and leaves out empty ones', () => {
  const body = formBody({ name: 'Night & day', clockTime: 0.5, rated: false, berserkable: true, password: '', x: null, y: undefined, 'conditions.bots': true });
  assert.equal(body.toString(), 'name=Night+%26+day&clockTime=0.5&rated=false&berserkable=true&conditions.bots=true');
});

test('an arena reads whole, and a bare or broken one reads without a missing field', () => {
  const a = parseArena(arenaJson());
  assert.equal(a.name, 'Friday Blitz Arena');
  assert.deepEqual(a.clock, { limit: 180, increment: 2 });
  assert.equal(a.isStarted, true);
  assert.equal(a.isFinished, false);
  assert.equal(a.players.length, 3);
  assert.equal(a.players[1].withdraw, true);
  assert.equal(a.players[2].bot, true);
  assert.equal(a.players[2].rating, null);
  assert.equal(a.featured.lastMove, 'e2e4');
  assert.equal(a.duels[0].players[1].rank, 2);
  assert.equal(a.startsAt, Date.parse('2030-01-04T18:00:00Z'));
  assert.equal(a.me, null, 'a visitor has no me');
  assert.equal(parseArena(null), null);
  assert.equal(parseArena({}), null);
  assert.equal(parseArena([]), null);
  const bare = parseArena({ id: 'x' });
  assert.equal(bare.name, 'Arena');
  assert.deepEqual(bare.players, []);
  assert.deepEqual(bare.duels, []);
  assert.deepEqual(bare.podium, []);
  assert.equal(bare.featured, null);
  assert.equal(bare.stats, null);
  assert.equal(bare.clock, null);
  assert.equal(bare.startsAt, null);
  assert.equal(bare.isStarted, false);
  assert.equal(bare.nbPlayers, 0);
  // Everything the page draws works on it.
  assert.equal(arenaTerms(bare), '? · Casual · Standard');
  assert.match(standingsHtml(bare, null), /Nobody has joined yet/);
  assert.match(duelsHtml(bare), /once the arena starts/);
  assert.equal(podiumHtml(bare), '');
  assert.deepEqual(statsRows(bare.stats), []);
  assert.equal(featuredPlayersHtml(bare.featured), '');
  assert.equal(arenaCountdown(bare).label, 'Starting soon');
  const junk = parseArena({
    id: 'y', standing: { players: [null, { rank: 1 }, { name: 'Z', sheet: { scores: 42 } }] }, duels: [{ id: 'g' }, { id: 'h', p: [{ n: 'A' }] }],
    featured: { fen: 'x' }, podium: 'no', me: { gameId: '' }, status: 30, variant: { key: 'minichess7' },
  });
  assert.deepEqual(junk.players.map((p) => [p.name, p.scores, p.score]), [['Z', '', 0]]);
  assert.deepEqual(junk.duels, []);
  assert.equal(junk.featured, null);
  assert.equal(junk.me.gameId, null);
  assert.equal(junk.isFinished, true, 'status 30 is finished');
  assert.equal(junk.variant, 'minichess7');
});

test("the arena's clock counts down to the start, then to the end, between answers", () => {
  const created = parseArena(arenaJson({ status: 10, isStarted: false, secondsToStart: 300, secondsToFinish: undefined }));
  assert.deepEqual(arenaCountdown(created, 0), { phase: 'created', label: 'Starts in', seconds: 300, text: '5:00' });
  assert.equal(arenaCountdown(created, 1500).text, '4:59', 'counted down locally');
  assert.equal(arenaCountdown(created, 400000).label, 'Starting…');
  const started = parseArena(arenaJson());
  assert.equal(arenaCountdown(started, 0).label, 'Ends in');
  assert.equal(arenaCountdown(started, 0).text, '10:00');
  assert.equal(arenaCountdown(started, 600001).label, 'Finishing…');
  // Only the ISO time: counted from the wall clock.
  const noSeconds = parseArena(arenaJson({ secondsToFinish: undefined }));
  const end = Date.parse('2030-01-04T18:45:00Z');
  assert.equal(arenaCountdown(noSeconds, 0, end - 90000).text, '1:30');
  const finished = parseArena(arenaJson({ status: 30, isStarted: false, isFinished: true, secondsToFinish: undefined }));
  assert.deepEqual(arenaCountdown(finished, 0), { phase: 'finished', label: 'Finished', seconds: null, text: '' });
  assert.equal(arenaCountdown(null).phase, 'finished');
});

test('a score sheet reads oldest first, the games played on fire marked', () => {
  // Most recent first on the wire: "4422" is 2, 2, then two wins on fire.
  assert.deepEqual(sheetCells('4422'), [
    { score: 2, fire: false }, { score: 2, fire: false }, { score: 4, fire: true }, { score: 4, fire: true },
  ]);
  // Two wins, then a draw on fire (2), which puts the fire out; then a win, a loss.
  assert.deepEqual(sheetCells('02222').map((c) => c.fire), [false, false, true, false, false]);
  assert.deepEqual(sheetCells('02222').map((c) => c.score), [2, 2, 2, 2, 0]);
  // A berserked win (3) counts as a win towards the streak; 5 is a berserked win on fire.
  assert.deepEqual(sheetCells('5320').map((c) => [c.score, c.fire]), [[0, false], [2, false], [3, false], [5, true]]);
  // A loss on fire ends it, and had nothing to double.
  assert.deepEqual(sheetCells('2042').map((c) => c.fire), [false, true, false, false]);
  assert.deepEqual(sheetCells('20230').map((c) => c.fire), [false, false, false, false, false]);
  // The server's own example: win, win, win on fire (4), draw on fire (2, doubled), win, loss.
  assert.deepEqual(sheetCells('022422').map((c) => [c.score, c.fire]), [[2, false], [2, false], [4, true], [2, true], [2, false], [0, false]]);
  // Without streaks nobody is on fire.
  assert.deepEqual(sheetCells('2222', { streakable: false }).map((c) => c.fire), [false, false, false, false]);
  assert.deepEqual(sheetCells(''), []);
  assert.deepEqual(sheetCells(undefined), []);
  assert.deepEqual(sheetCells('2x1').map((c) => c.score), [1, 2], 'only digits count');
  const html = sheetHtml('420');
  assert.match(html, /Scores, oldest first: 0, 2, 4/);
  assert.match(html, /<span class="game-score fire">4<\/span>$|<span class="game-score fire">4<\/span><\/span>/);
  assert.match(sheetHtml(''), /no games yet/);
});

test('a player is taken to each new game once, not back to the one they left', () => {
  assert.equal(gameToOpen({ gameId: 'g2' }, 'g1'), 'g2');
  assert.equal(gameToOpen({ gameId: 'g2' }, null), 'g2');
  assert.equal(gameToOpen({ gameId: 'g2' }, 'g2'), null);
  assert.equal(gameToOpen({ gameId: null }, 'g1'), null);
  assert.equal(gameToOpen(null, null), null);
  assert.equal(gameToOpen(undefined, 'g1'), null);
  assert.equal(gameToOpen({ gameId: '' }, null), null);
});

test("the arena's buttons: log in, join (a password when private), withdraw before the start, pause after", () => {
  const created = parseArena(arenaJson({ status: 10, isStarted: false, secondsToStart: 60 }));
  const started = parseArena(arenaJson());
  const finished = parseArena(arenaJson({ status: 30, isFinished: true }));
  assert.deepEqual(arenaAction(created, null), { kind: 'login', label: 'Log in to join' });
  assert.deepEqual(arenaAction(created, bob), { kind: 'join', label: 'Join', password: false });
  assert.deepEqual(arenaAction(parseArena(arenaJson({ private: true })), bob), { kind: 'join', label: 'Join', password: true });
  const joined = { me: { rank: 1, withdraw: false, gameId: null } };
  assert.deepEqual(arenaAction(parseArena(arenaJson({ ...joined, status: 10, isStarted: false })), alice), { kind: 'withdraw', label: 'Withdraw' });
  assert.deepEqual(arenaAction(parseArena(arenaJson(joined)), alice), { kind: 'withdraw', label: 'Pause' });
  const paused = parseArena(arenaJson({ me: { rank: 2, withdraw: true, gameId: null } }));
  assert.equal(arenaAction(paused, alice).kind, 'join', 'a paused player joins again');
  assert.equal(isIn(paused, alice), false);
  assert.equal(myStateText(paused, alice), 'Paused: join again to be paired.');
  assert.equal(arenaAction(finished, alice), null);
  assert.equal(arenaAction(finished, null), null);
  assert.equal(myStateText(parseArena(arenaJson(joined)), alice), 'You are 1st: waiting for your next opponent.');
  assert.equal(myStateText(parseArena(arenaJson({ me: { rank: 3, withdraw: false, gameId: 'g' } })), alice), 'You are playing.');
  assert.equal(myStateText(parseArena(arenaJson({ me: { rank: 2 }, status: 30, isFinished: true })), alice), 'You finished 2nd.');
  assert.equal(myStateText(started, alice), '', 'not joined: nothing to say');
  assert.equal(myStateText(started, null), '');
  // Computer players: the creator only, when the arena takes them, until it is over.
  assert.equal(mayAddBots(started, alice), true);
  assert.equal(mayAddBots(started, { username: 'ALICE' }), true);
  assert.equal(mayAddBots(started, bob), false);
  assert.equal(mayAddBots(started, null), false);
  assert.equal(mayAddBots(finished, alice), false);
  assert.equal(mayAddBots(parseArena(arenaJson({ botsAllowed: false })), alice), false);
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal), ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '101st', '111th']);
});

test("the arena's terms, and its standings, podium, games and numbers as markup", () => {
  const a = parseArena(arenaJson());
  assert.equal(arenaTerms(a), '3+2 Blitz · Rated · Standard · 45 min');
  assert.equal(arenaTerms(parseArena(arenaJson({ variant: 'minichess7', rated: false }))), '3+2 · Casual · Minichess 7×7 · 45 min');
  assert.deepEqual(arenaFeatures(a), ['Berserk allowed', 'Computer players allowed']);
  assert.deepEqual(arenaFeatures(parseArena(arenaJson({ berserkable: false, streakable: false, botsAllowed: false, private: true }))), ['No streaks', 'Private (password)']);
  const rows = standingsHtml(a, { username: 'alice' });
  assert.equal((rows.match(/<tr /g) || []).length, 3);
  assert.match(rows, /<tr class="standing mine" data-name="Alice">/);
  assert.match(rows, /<tr class="standing withdrawn" data-name="Carol">/);
  assert.match(rows, /href="\/@\/Alice"/);
  assert.match(rows, /class="flame"/, 'Alice is on fire');
  assert.equal((rows.match(/class="flame"/g) || []).length, 1);
  assert.match(rows, /<strong>12<\/strong>/);
  assert.match(rows, /BOT/);
  assert.doesNotMatch(standingsHtml(parseArena(arenaJson({ status: 30, isFinished: true })), null), /class="flame"/, 'no fire once over');
  const evil = parseArena(arenaJson({ standing: { players: [{ name: '<img src=x>', rank: 1, score: 0, sheet: { scores: '' } }] } }));
  assert.doesNotMatch(standingsHtml(evil, null), /<img/);
  assert.match(standingsHtml(evil, null), /&lt;img src=x&gt;/);
  assert.match(duelsHtml(a), /href="\/g\/g1"/);
  assert.match(duelsHtml(a), /#1<\/span> <span class="name">Alice/);
  assert.match(duelsHtml(parseArena(arenaJson({ duels: [] }))), /No games in progress/);
  assert.match(featuredPlayersHtml(a.featured), /swatch white.*Alice.*swatch black.*Carol/s);
  const finished = parseArena(arenaJson({
    status: 30, isFinished: true,
    podium: [
      { name: 'Alice', rank: 1, rating: 1720, score: 30, nb: { game: 12, berserk: 2, win: 9 }, performance: 1850.4 },
      { name: 'Carol', rank: 2, score: 20, nb: { game: 10, berserk: 0, win: 5 } },
      { name: 'Dan', rank: 3, score: 10 },
      { name: 'Eve', rank: 4, score: 5 },
    ],
  }));
  const podium = podiumHtml(finished);
  assert.equal((podium.match(/class="podium-place/g) || []).length, 3, 'three places at most');
  assert.ok(podium.indexOf('Alice') < podium.indexOf('Carol'));
  assert.match(podium, /place-1/);
  assert.match(podium, /<dt>Wins<\/dt><dd>9 \(75%\)<\/dd>/);
  assert.match(podium, /<dt>Performance<\/dt><dd>1850<\/dd>/);
  assert.match(podium, /<dt>Berserks<\/dt><dd>2<\/dd>/);
  assert.deepEqual(statsRows(a.stats), [
    ['Games played', '10'], ['Moves played', '400'], ['White wins', '5 (50%)'], ['Black wins', '3 (30%)'], ['Draws', '2 (20%)'], ['Berserks', '1'],
  ]);
  assert.deepEqual(statsRows({ games: 0, moves: 0, whiteWins: 0, blackWins: 0, draws: 0, berserks: 0 })[2], ['White wins', '0']);
  // A server that does not count moves: no line for them, rather than a 0.
  const noMoves = parseArena(arenaJson({ stats: { games: 4, whiteWins: 2, blackWins: 1, draws: 1, berserks: 0 } }));
  assert.deepEqual(statsRows(noMoves.stats), [['Games played', '4'], ['White wins', '2 (50%)'], ['Black wins', '1 (25%)'], ['Draws', '1 (25%)']]);
  assert.equal(standingNote(a), '');
  assert.equal(standingNote(parseArena(arenaJson({ nbPlayers: 40 }))), 'Showing the best 3 of 40 players.');
});

test('a round robin reads whole, and a bare one without a missing field', () => {
  const r = parseRoundRobin(roundRobinJson());
  assert.equal(r.status, 'started');
  assert.deepEqual(r.players, ['Ann', 'Ben', 'Cid', 'Dee']);
  assert.equal(r.rounds.length, 3);
  assert.equal(r.rounds[1][1].forfeit, true);
  assert.equal(roundRobinTerms(r), '5+3 · Casual · Standard');
  assert.equal(parseRoundRobin(null), null);
  assert.equal(parseRoundRobin({ name: 'x' }), null);
  const bare = parseRoundRobin({ id: 'z', status: 'weird', rounds: [null, [null]], crosstable: [{}, { name: 'Q' }] });
  assert.equal(bare.status, 'created');
  assert.equal(bare.name, 'Round robin');
  assert.deepEqual(bare.players, []);
  assert.deepEqual(bare.rounds, [[], [{ white: null, black: null, game: null, result: null, forfeit: false }]]);
  assert.deepEqual(bare.crosstable.map((row) => row.name), ['Q']);
  assert.equal(roundRobinTerms(bare), 'Untimed · Casual · Standard');
  assert.equal(roundRobinTerms(parseRoundRobin(roundRobinJson({ timeControl: { type: 'correspondence', daysPerTurn: 3 }, rated: true }))), '3 days · Rated · Standard');
  assert.doesNotThrow(() => crosstableHtml(bare, null));
  assert.doesNotThrow(() => roundsHtml(bare));
  assert.doesNotThrow(() => statusLine(bare));
});

test('the crosstable: rows by rank, columns by entry number, the diagonal blacked out, cells linked to their games', () => {
  const r = parseRoundRobin(roundRobinJson());
  const grid = crosstableGrid(r);
  assert.deepEqual(grid.columns, [{ number: 1, name: 'Ann' }, { number: 2, name: 'Ben' }, { number: 3, name: 'Cid' }, { number: 4, name: 'Dee' }]);
  assert.deepEqual(grid.rows.map((row) => [row.rank, row.number, row.name]), [[1, 2, 'Ben'], [2, 1, 'Ann'], [3, 3, 'Cid'], [4, 4, 'Dee']]);
  const ben = grid.rows[0];
  assert.deepEqual(ben.cells.map((c) => (c.self ? 'X' : c.text)), ['1', 'X', '½', '']);
  assert.deepEqual(ben.cells.map((c) => c.kind), ['win', '', 'draw', '']);
  assert.equal(ben.cells[0].game, null, 'won by forfeit: no game to open');
  assert.equal(ben.cells[2].game, 'gb');
  const dee = grid.rows[3];
  assert.deepEqual(dee.cells.map((c) => (c.self ? 'X' : c.text)), ['0', '', '*', 'X'], 'a game in progress shows *');
  assert.equal(dee.cells[2].game, 'gc');
  assert.equal(dee.cells[0].kind, 'loss');
  // The diagonal is each row's own column, whatever the row's place.
  for (const row of grid.rows) assert.equal(row.cells.findIndex((c) => c.self), row.number - 1);
  // Rows without ranks keep the server's order; a player not entered has no number and no diagonal.
  const odd = crosstableGrid(parseRoundRobin(roundRobinJson({ crosstable: [{ name: 'Zed', points: 0, results: [] }, { name: 'ann', points: 0, results: [] }] })));
  assert.deepEqual(odd.rows.map((row) => [row.name, row.number]), [['Zed', null], ['ann', 1]]);
  assert.equal(odd.rows[0].cells.some((c) => c.self), false);
  // Before any game: every entrant has a row of nothing.
  const fresh = crosstableGrid(parseRoundRobin(roundRobinJson({ status: 'created', round: null, rounds: [], crosstable: [] })));
  assert.deepEqual(fresh.rows.map((row) => [row.number, row.name, row.points]), [[1, 'Ann', 0], [2, 'Ben', 0], [3, 'Cid', 0], [4, 'Dee', 0]]);
  // Double round robins: points over two games.
  const double = crosstableGrid(parseRoundRobin(roundRobinJson({ crosstable: [{ name: 'Ann', rank: 1, points: 1.5, results: [null, 1.5, 2, 0] }] })));
  assert.deepEqual(double.rows[0].cells.map((c) => c.text), ['', '1½', '2', '0']);
  const { head, body } = crosstableHtml(r, { username: 'cid' });
  assert.match(head, />1<\/th>.*>2<\/th>.*>3<\/th>.*>4<\/th>.*Points.*SB/s);
  assert.equal((body.match(/class="cross self"/g) || []).length, 4);
  assert.match(body, /<tr class="cross-row mine" data-name="Cid">/);
  assert.match(body, /href="\/g\/gb"/);
  assert.match(body, /<strong>1½<\/strong>/);
  assert.match(body, /<td class="num sb">1\.25<\/td>/);
  assert.match(crosstableHtml(parseRoundRobin({ id: 'e' }), null).body, /Nobody has joined yet/);
});

test('the rounds: results, forfeits, byes and games still being played', () => {
  const r = parseRoundRobin(roundRobinJson());
  const rounds = roundsView(r);
  assert.deepEqual(rounds.map((x) => [x.number, x.current]), [[1, false], [2, true], [3, false]]);
  assert.deepEqual(rounds[0].boards.map((b) => b.text), ['1–0', '½–½']);
  assert.deepEqual(rounds[1].boards.map((b) => b.text), ['playing', '0–1 (forfeit)']);
  assert.deepEqual(rounds[2].boards.map((b) => b.text), ['', '']);
  const bye = roundsView(parseRoundRobin(roundRobinJson({ rounds: [[{ white: 'Ann', black: null, game: null, result: null }]] })));
  assert.equal(bye[0].boards[0].text, 'bye');
  assert.equal(bye[0].boards[0].bye, true);
  assert.equal(resultText('1/2-1/2'), '½–½');
  assert.equal(resultText(null), '');
  const html = roundsHtml(r);
  assert.match(html, /class="rr-round current"/);
  assert.match(html, /href="\/g\/gc"/);
  assert.match(roundsHtml(parseRoundRobin(roundRobinJson({ status: 'created', rounds: [] }))), /drawn when the round robin starts/);
});

test('where a round robin stands, who won, and the buttons each viewer gets', () => {
  const started = parseRoundRobin(roundRobinJson());
  assert.equal(statusLine(started), 'Round 2 of 3');
  const created = parseRoundRobin(roundRobinJson({ status: 'created', round: null, rounds: [], crosstable: [] }));
  assert.equal(statusLine(created), 'Waiting for players: 4 players in. Ann starts it when everyone is in.');
  assert.equal(statusLine(created, { username: 'ann' }), 'Waiting for players: 4 players in. Start it when everyone is in.');
  const finished = parseRoundRobin(roundRobinJson({ status: 'finished', round: null }));
  assert.deepEqual(winners(finished), ['Ben']);
  assert.equal(statusLine(finished), 'Finished: Ben won.');
  const tie = parseRoundRobin(roundRobinJson({
    status: 'finished',
    crosstable: [{ name: 'Ann', rank: 1, points: 2 }, { name: 'Ben', rank: 1, points: 2 }, { name: 'Cid', rank: 3, points: 1 }],
  }));
  assert.equal(statusLine(tie), 'Finished: Ann and Ben shared first place.');
  assert.deepEqual(winners(started), [], 'nobody has won yet');
  assert.ok(hasEntered(started, { username: 'ben' }));
  assert.ok(!hasEntered(started, null));
  assert.deepEqual(roundRobinActions(created, null), [{ kind: 'login', label: 'Log in to join' }]);
  assert.deepEqual(roundRobinActions(created, { username: 'Zoe' }), [{ kind: 'join', label: 'Join', password: false }]);
  assert.deepEqual(roundRobinActions(parseRoundRobin(roundRobinJson({ status: 'created', private: true })), { username: 'Zoe' }), [{ kind: 'join', label: 'Join', password: true }]);
  assert.deepEqual(roundRobinActions(created, { username: 'Ben' }), [{ kind: 'withdraw', label: 'Withdraw' }]);
  assert.deepEqual(roundRobinActions(created, { username: 'ann' }), [{ kind: 'withdraw', label: 'Withdraw' }, { kind: 'start', label: 'Start', disabled: false, hint: '' }]);
  const alone = parseRoundRobin(roundRobinJson({ status: 'created', players: ['Ann'], crosstable: [] }));
  assert.deepEqual(roundRobinActions(alone, { username: 'Ann' })[1], { kind: 'start', label: 'Start', disabled: true, hint: 'At least two players are needed to start.' });
  assert.deepEqual(roundRobinActions(started, { username: 'Cid' }), [{ kind: 'withdraw', label: 'Withdraw' }]);
  assert.deepEqual(roundRobinActions(started, { username: 'Zoe' }), [], 'too late to join');
  assert.deepEqual(roundRobinActions(started, null), []);
  assert.deepEqual(roundRobinActions(finished, { username: 'Ann' }), []);
});

test('the lists: read, ordered, and each item a link to its page with its terms and time', () => {
  const list = parseArenaList({
    created: [arenaJson({ id: 'late', status: 10, isStarted: false, secondsToStart: 900 }), arenaJson({ id: 'soon', status: 10, isStarted: false, secondsToStart: 60 })],
    started: [arenaJson({ id: 'long', secondsToFinish: 2000 }), arenaJson({ id: 'short', secondsToFinish: 100 }), { nothing: true }],
    finished: [
      arenaJson({ id: 'old', status: 30, isFinished: true, finishesAt: '2030-01-01T10:00:00Z' }),
      arenaJson({ id: 'new', status: 30, isFinished: true, finishesAt: '2030-01-02T10:00:00Z' }),
    ],
  });
  assert.deepEqual(list.created.map((a) => a.id), ['soon', 'late']);
  assert.deepEqual(list.started.map((a) => a.id), ['short', 'long']);
  assert.deepEqual(list.finished.map((a) => a.id), ['new', 'old']);
  assert.equal(parseArenaList(null), null);
  assert.equal(parseArenaList([]), null);
  assert.deepEqual(parseArenaList({}), { started: [], created: [], finished: [] });
  const rr = parseRoundRobinList({ created: [roundRobinJson({ id: 'a', createdAt: 1 }), roundRobinJson({ id: 'b', createdAt: 2 })], started: 'no' });
  assert.deepEqual(rr.created.map((r) => r.id), ['b', 'a']);
  assert.deepEqual(rr.started, []);
  assert.equal(arenaWhen(list.created[0]), 'Starts in 1 min');
  assert.equal(arenaWhen(list.started[0]), 'Ends in 2 min');
  assert.equal(arenaWhen(list.started[0], 200000), 'Finishing…');
  assert.match(arenaWhen(list.finished[0], 0, new Date('2030-01-02T12:00:00Z')), /^Finished \w{3} \d\d:\d\d$/);
  assert.equal(arenaWhen(parseArena({ id: 'q', isFinished: true })), 'Finished');
  assert.equal(roundRobinWhen(parseRoundRobin(roundRobinJson({ status: 'created' }))), 'Waiting for players');
  assert.equal(roundRobinWhen(parseRoundRobin(roundRobinJson())), 'Round 2 of 3');
  assert.equal(roundRobinWhen(parseRoundRobin(roundRobinJson({ status: 'finished' }))), 'Won by Ben');
  const item = arenaItemHtml(list.started[0], 'started');
  assert.match(item, /href="\/tournament\/short"/);
  assert.match(item, /Friday Blitz Arena/);
  assert.match(item, /3\+2 Blitz · Rated · Standard · 45 min/);
  assert.match(item, /3 players/);
  assert.match(item, /status-started/);
  assert.match(arenaItemHtml(parseArena(arenaJson({ private: true })), 'started'), /t-private/);
  const rrItem = roundRobinItemHtml(parseRoundRobin(roundRobinJson()), 'started');
  assert.match(rrItem, /href="\/roundrobin\/rr1"/);
  assert.match(rrItem, /Club &lt;b&gt;night&lt;\/b&gt;/);
  assert.doesNotMatch(rrItem, /<b>/);
  assert.match(rrItem, /4 players/);
  assert.match(rrItem, /Round robin/);
});

test("the lobby's box lists what is being played, then what is about to be", () => {
  const arenas = parseArenaList({ started: [arenaJson({ id: 'a1' })], created: [arenaJson({ id: 'a2', status: 10, isStarted: false })], finished: [arenaJson({ id: 'a3', isFinished: true })] });
  const rrs = parseRoundRobinList({ started: [roundRobinJson({ id: 'r1' })], created: [roundRobinJson({ id: 'r2', status: 'created' })] });
  assert.deepEqual(currentTournaments(arenas, rrs).map((i) => `${i.kind}:${i.model.id}:${i.stage}`), [
    'arena:a1:started', 'roundrobin:r1:started', 'arena:a2:created', 'roundrobin:r2:created',
  ]);
  assert.equal(currentTournaments(arenas, rrs, 2).length, 2);
  assert.deepEqual(currentTournaments(null, rrs).map((i) => i.model.id), ['r1', 'r2'], 'one list missing: the other still shows');
  assert.deepEqual(currentTournaments(null, null), []);
});

test('the create forms send the fields the server reads', () => {
  assert.deepEqual(arenaFields({
    name: '  Club night ', clockTime: '0.5', clockIncrement: '0', minutes: '10', waitMinutes: '5', variant: 'minichess7',
    rated: false, berserkable: true, streakable: false, bots: true, password: 'sesame',
  }), {
    name: 'Club night', clockTime: '0.5', clockIncrement: '0', minutes: '10', waitMinutes: '5', variant: 'minichess7',
    rated: false, berserkable: true, streakable: false, 'conditions.bots': true, password: 'sesame',
  });
  const plain = arenaFields({ name: '', clockTime: 3, clockIncrement: 2, minutes: 45, waitMinutes: 1, variant: 'crazyhouse', rated: true });
  assert.equal(plain.variant, 'standard', 'an unknown variant is not sent');
  assert.equal(plain.berserkable, true, 'berserk and streaks are on unless switched off');
  assert.equal(plain.streakable, true);
  assert.equal('password' in plain, false);
  assert.equal(formBody(plain).toString(), 'clockTime=3&clockIncrement=2&minutes=45&waitMinutes=1&variant=standard&rated=true&berserkable=true&streakable=true&conditions.bots=false');
  assert.ok(DURATIONS.includes(5) && DURATIONS.includes(10) && DURATIONS.includes(20) && DURATIONS.includes(720));
  assert.deepEqual(WAIT_MINUTES, [1, 2, 3, 5, 10, 15, 20, 30, 45, 60]);
  assert.deepEqual(roundRobinFields({ name: 'RR', time: '5+3', variant: 'standard', rated: true, password: '' }), {
    name: 'RR', variant: 'standard', rated: true, 'clock.limit': 300, 'clock.increment': 3,
  });
  assert.deepEqual(roundRobinFields({ name: 'Slow', time: 'd3', variant: 'standard', rated: true, password: 'pw' }), {
    name: 'Slow', variant: 'standard', rated: true, days: 3, password: 'pw',
  });
  assert.deepEqual(roundRobinFields({ name: 'Free', time: 'untimed', variant: 'minichess7', rated: true }), {
    name: 'Free', variant: 'minichess7', rated: false,
  }, 'untimed is never rated');
  assert.deepEqual([0, 0.25, 0.5, 0.75, 1, 1.5, 3].map(minutesName), ['0', '¼', '½', '¾', '1', '1½', '3']);
  assert.ok(!CLOCK_TIMES.includes(50), "lichess's clock times, which the server takes");
  assert.deepEqual([5, 45, 60, 90, 120, 150, 100].map(durationName), ['5 minutes', '45 minutes', '1 hour', '1½ hours', '2 hours', '2½ hours', '1 h 40 min']);
});

/** Fake timers and a fake document for the poller. */
function fakes() {
  const timers = {
    queue: [],
    setTimeout(fn, ms) { const t = { fn, ms }; this.queue.push(t); return t; },
    clearTimeout(t) { this.queue = this.queue.filter((x) => x !== t); },
    /** Runs the timers due now, as the clock would. */
    fire() { const due = this.queue; this.queue = []; for (const t of due) t.fn(); },
  };
  const doc = new EventTarget();
  doc.visibilityState = 'visible';
  doc.show = (state) => {
    doc.visibilityState = state;
    doc.dispatchEvent(new Event('visibilitychange'));
  };
  return { timers, doc };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('the poller asks every interval after each answer, one at a time, until told it is over', async () => {
  const { timers, doc } = fakes();
  let calls = 0;
  let over = false;
  const poller = new Poller(async () => { calls += 1; return over; }, { everyMs: 2000, doc, timers });
  poller.now();
  await tick();
  assert.equal(calls, 1);
  assert.equal(timers.queue.length, 1);
  assert.equal(timers.queue[0].ms, 2000);
  timers.fire();
  await tick();
  assert.equal(calls, 2);
  over = true;
  timers.fire();
  await tick();
  assert.equal(calls, 3);
  assert.equal(timers.queue.length, 0, 'over: no more asking');
  doc.show('hidden');
  doc.show('visible');
  await tick();
  assert.equal(calls, 3, 'not even when the page shows again');
});

test('the poller rests while the page is hidden and asks at once when it shows again', async () => {
  const { timers, doc } = fakes();
  let calls = 0;
  const poller = new Poller(async () => { calls += 1; return false; }, { everyMs: 2000, doc, timers });
  poller.now();
  await tick();
  doc.show('hidden');
  timers.fire();
  await tick();
  assert.equal(calls, 1, 'hidden: no request');
  assert.equal(timers.queue.length, 0, 'and no timer either');
  doc.show('visible');
  await tick();
  assert.equal(calls, 2, 'shown again: asked at once');
  assert.equal(timers.queue.length, 1);
  poller.stop();
  assert.equal(timers.queue.length, 0);
});

test('the poller never has two requests out, and a failing one does not stop it', async () => {
  const { timers, doc } = fakes();
  let calls = 0;
  let release;
  const poller = new Poller(() => {
    calls += 1;
    if (calls === 1) return new Promise((resolve) => { release = resolve; });
    if (calls === 2) throw new Error('network');
    return Promise.resolve(false);
  }, { everyMs: 2000, doc, timers });
  const error = console.error;
  console.error = () => {};
  try {
    poller.now();
    poller.now(); // a button asked meanwhile: one more once the first is back
    assert.equal(calls, 1);
    release(false);
    await tick();
    await tick();
    assert.equal(calls, 2, 'the one asked for meanwhile');
    await tick();
    assert.equal(timers.queue.length, 1, 'after the failure, it goes on');
    timers.fire();
    await tick();
    assert.equal(calls, 3);
  } finally {
    console.error = error;
    poller.stop();
  }
});
