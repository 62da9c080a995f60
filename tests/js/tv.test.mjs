// gambit TV (client/js/tv/): the channels' paths, the other games listed beside the featured one,
// and the controller's conversation with the server — `tv`, then `watch` of the featured game,
// `unwatch` of the one before when it changes, the old game kept on show until the new one's
// `state` — over a fake connection. Run with `node --test tests/js/`.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { routeFor } from '../../client/js/routes.js';
import {
  CHANNELS, channelOf, channelOfGame, lastMoveText, movesText, otherGameHtml, otherGames, OTHERS_SHOWN, titleOf,
} from '../../client/js/tv/channels.js';
import { TvCtrl } from '../../client/js/tv/ctrl.js';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const AFTER_E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';

const human = (name, extra = {}) => ({ kind: 'human', online: true, name, ...extra });
const bot = (level) => ({ kind: 'bot', level, name: `Level ${level}`, rating: 800 + level * 100, label: `Level ${level} · ~${800 + level * 100}` });

/** A game summary of the `games` list. */
function summary(game, fields = {}) {
  return {
    game, variant: 'standard', white: human('Alice'), black: human('Bob'), status: 'ongoing', plies: 10,
    watchers: 0, result: null, clock: { initial_ms: 300000, increment_ms: 3000 }, rated: false, ...fields,
  };
}

/** A `state` of game `game` at version `v`, from the start position. */
function state(game, v = 3, fields = {}) {
  return {
    type: 'state', game, v, variant: 'standard', initial_fen: START, fen: START, moves: [], san: [], turn: 'white',
    status: 'ongoing', result: null, reason: null, seats: { white: human('Alice'), black: human('Bob') },
    legal: ['e2e4'], check: false, clock: null, watchers: 1, offer: null, claim: null,
    match: { white: 0, black: 0, games: 0 }, next: null, rated: false, ...fields,
  };
}

test('the paths name the channels, and the TV page answers them', () => {
  assert.equal(channelOf('/tv'), 'best');
  assert.equal(channelOf('/tv/'), 'best');
  assert.equal(channelOf('/tv/bots'), 'bot');
  assert.equal(channelOf('/tv/bots/'), 'bot');
  assert.equal(CHANNELS.best.path, '/tv');
  assert.equal(CHANNELS.bot.path, '/tv/bots');
  for (const [path, match] of [['/tv', undefined], ['/tv/', undefined], ['/tv/bots', 'bots'], ['/tv/bots/', 'bots']]) {
    const found = routeFor(path);
    assert.equal(found.route.name, 'tv', path);
    assert.equal(found.match[1], match, path);
  }
  assert.equal(routeFor('/tv/best').route.name, 'lobby', 'no such channel path');
  assert.equal(routeFor('/tvx').route.name, 'lobby');
});

test('a game with a bot or engine seat is a bot channel game', () => {
  assert.equal(channelOfGame(summary('a')), 'best');
  assert.equal(channelOfGame(summary('a', { black: bot(3) })), 'bot');
  assert.equal(channelOfGame(summary('a', { white: { kind: 'engine', name: 'Stockfish', label: 'Stockfish' } })), 'bot');
});

test('the other games: in progress, not the featured one, the channel first, then the most watched', () => {
  const games = [
    summary('aaaaaaaa', { watchers: 1 }),
    summary('bbbbbbbb', { status: 'waiting', black: { kind: 'open' }, plies: 0 }),
    summary('cccccccc', { status: 'ended', result: '1-0' }),
    summary('dddddddd', { white: bot(1), black: bot(2), watchers: 5 }),
    summary('eeeeeeee', { watchers: 3 }),
    summary('ffffffff', { watchers: 3, plies: 30 }),
    summary('gggggggg', { white: bot(4), black: human('Cy'), watchers: 0 }),
  ];
  const ids = (list) => list.map((g) => g.game);
  assert.deepEqual(ids(otherGames(games, 'eeeeeeee', 'best')), ['ffffffff', 'aaaaaaaa', 'dddddddd', 'gggggggg']);
  // Bot games first; then the most watched (3 and 3, the longer first), then the rest.
  assert.deepEqual(ids(otherGames(games, 'dddddddd', 'bot')), ['gggggggg', 'ffffffff', 'eeeeeeee', 'aaaaaaaa']);
  assert.deepEqual(ids(otherGames(games, null, 'best')), ['ffffffff', 'eeeeeeee', 'aaaaaaaa', 'dddddddd', 'gggggggg']);
  assert.deepEqual(otherGames(null, null, 'best'), []);
  assert.deepEqual(otherGames([null, { game: 5 }], null, 'best'), [], 'nonsense is left out');
  const many = Array.from({ length: 20 }, (_, i) => summary(`g${String(i).padStart(7, '0')}`));
  assert.equal(otherGames(many, 'g0000000', 'best').length, OTHERS_SHOWN);
  assert.equal(OTHERS_SHOWN, 8);
  assert.ok(!ids(otherGames(many, 'g0000000', 'best')).includes('g0000000'));
  assert.deepEqual(ids(otherGames(many, null, 'best', 2)), ['g0000000', 'g0000001'], 'by id when nothing else differs');
});

test('an other game reads as its two seats, a link to its page, escaped', () => {
  const html = otherGameHtml(summary('k3fq9mzt', {
    white: human('<b>Eve</b>'), black: bot(6), plies: 23, watchers: 2, rated: true,
  }), (seat) => (seat.name === '<b>Eve</b>' ? '1500?' : ''));
  assert.match(html, /^<li class="tv-other" data-game="k3fq9mzt">/);
  assert.match(html, /<a href="\/g\/k3fq9mzt"/);
  assert.ok(html.includes('&lt;b&gt;Eve&lt;/b&gt;'));
  assert.ok(!html.includes('<b>Eve'));
  assert.ok(html.includes('Level 6 · ~1400'));
  assert.ok(html.includes('<span class="rating">1500?</span>'));
  assert.ok(html.includes('guest'), 'a name without an account is a guest’s');
  assert.ok(html.includes('5+3 · rated · 12 moves · 2 watching'));
  assert.equal(movesText(0), 'no moves yet');
  assert.equal(movesText(1), '1 move');
  assert.equal(movesText(4), '2 moves');
});

test('the title and the last move', () => {
  assert.equal(titleOf({ seats: { white: human('Alice'), black: bot(2) } }), 'Alice vs Level 2 · ~1000');
  assert.equal(titleOf(null), '');
  assert.equal(lastMoveText({ moves: [], san: [], initialFen: START }), 'No moves yet');
  assert.equal(lastMoveText({ moves: ['e2e4'], san: ['e4'], initialFen: START }), 'Last move: 1. e4');
  assert.equal(lastMoveText({ moves: ['e2e4', 'e7e5'], san: ['e4', 'e5'], initialFen: START }), 'Last move: 1… e5');
});

/** A connection the test drives: what was sent, and the handlers to answer with. */
function fakeConnection() {
  const fake = { sent: [], up: false, nextId: 1, handlers: null };
  const connect = (handlers) => {
    fake.handlers = handlers;
    return {
      start() { fake.open(); },
      send(msg) {
        if (!fake.up) return null;
        const id = fake.nextId++;
        fake.sent.push({ ...msg, id });
        return id;
      },
    };
  };
  fake.open = () => {
    fake.up = true;
    fake.handlers.onStatus(true);
    fake.handlers.onOpen();
  };
  fake.drop = () => {
    fake.up = false;
    fake.handlers.onStatus(false);
  };
  fake.receive = (msg) => fake.handlers.onMessage(msg);
  /** What was sent since the last call, without ids. */
  fake.take = () => fake.sent.splice(0).map(({ id, ...msg }) => msg);
  return { fake, connect };
}

test('the page follows the featured game, and the next one when it changes', () => {
  const { fake, connect } = fakeConnection();
  const ctrl = new TvCtrl('best', { connect });
  let redraws = 0;
  ctrl.redraw = () => { redraws += 1; };
  ctrl.start();
  assert.deepEqual(fake.take(), [{ type: 'tv', channel: 'best' }, { type: 'list' }]);
  assert.equal(ctrl.featured, undefined, 'not told yet');

  // Nothing on: the empty state.
  fake.receive({ type: 'tv', channel: 'best', game: null });
  assert.equal(ctrl.featured, null);
  assert.equal(ctrl.game, null);
  assert.deepEqual(fake.take(), []);

  // A game appears: watched, shown once its state came.
  fake.receive({ type: 'tv', channel: 'best', game: 'aaaaaaaa' });
  assert.deepEqual(fake.take(), [{ type: 'watch', game: 'aaaaaaaa', v: undefined }]);
  assert.equal(ctrl.game, null, 'nothing to show before the state');
  fake.receive(state('aaaaaaaa', 3));
  assert.equal(ctrl.game.game, 'aaaaaaaa');
  fake.receive({ type: 'move', game: 'aaaaaaaa', v: 4, uci: 'e2e4', san: 'e4', fen: AFTER_E4, turn: 'black', ply: 1, legal: ['e7e5'], check: false, clock: null });
  assert.deepEqual(ctrl.game.moves, ['e2e4']);
  fake.receive({ type: 'watchers', game: 'aaaaaaaa', count: 7 });
  assert.equal(ctrl.game.watchers, 7);
  fake.receive({ type: 'chat', game: 'aaaaaaaa', room: 'spectators', from: 'Cy', text: 'hi', at: 1 });
  fake.receive({ type: 'end', game: 'aaaaaaaa', v: 5, result: '1-0', reason: 'resignation', clock: null, match: { white: 1, black: 0, games: 1 } });
  assert.equal(ctrl.game.status, 'ended');
  assert.equal(ctrl.game.result, '1-0');

  // The next game: the ended one stays on show, with its result, until the new one's state.
  fake.receive({ type: 'tv', channel: 'best', game: 'bbbbbbbb' });
  assert.deepEqual(fake.take(), [{ type: 'unwatch', game: 'aaaaaaaa' }, { type: 'watch', game: 'bbbbbbbb', v: undefined }]);
  assert.equal(ctrl.game.game, 'aaaaaaaa');
  assert.equal(ctrl.game.result, '1-0');
  fake.receive({ type: 'rematch', game: 'aaaaaaaa', v: 6, next: 'zzzzzzzz' });
  fake.receive(state('aaaaaaaa', 9));
  assert.equal(ctrl.game.game, 'aaaaaaaa', 'the old game is no longer followed');
  assert.equal(ctrl.game.v, 5);
  fake.receive(state('bbbbbbbb', 12, { seats: { white: human('Cy'), black: human('Dee') } }));
  assert.equal(ctrl.game.game, 'bbbbbbbb');
  assert.equal(ctrl.game.seats.white.name, 'Cy');
  // The same game again changes nothing.
  fake.receive({ type: 'tv', channel: 'best', game: 'bbbbbbbb' });
  assert.deepEqual(fake.take(), []);

  // A gap in versions: a fresh state is asked for.
  fake.receive({ type: 'offer', game: 'bbbbbbbb', v: 20, kind: 'draw', by: 'white' });
  assert.deepEqual(fake.take(), [{ type: 'watch', game: 'bbbbbbbb', v: undefined }]);

  // Nothing on any more.
  fake.receive(state('bbbbbbbb', 20));
  fake.receive({ type: 'tv', channel: 'best', game: null });
  assert.deepEqual(fake.take(), [{ type: 'unwatch', game: 'bbbbbbbb' }]);
  assert.equal(ctrl.game, null);
  assert.equal(ctrl.featured, null);

  // The games list is kept as it comes.
  fake.receive({ type: 'games', games: [summary('cccccccc')] });
  assert.equal(ctrl.games.length, 1);
  assert.ok(redraws > 5);
});

test('after a dropped connection the page asks again, and resumes the game it shows', () => {
  const { fake, connect } = fakeConnection();
  const ctrl = new TvCtrl('bot', { connect });
  ctrl.start();
  fake.receive({ type: 'tv', channel: 'bot', game: 'aaaaaaaa' });
  fake.receive(state('aaaaaaaa', 3, { seats: { white: bot(1), black: bot(2) } }));
  fake.take();
  fake.drop();
  assert.equal(ctrl.connected, false);
  assert.equal(ctrl.game.game, 'aaaaaaaa', 'still shown while away');
  fake.open();
  assert.deepEqual(fake.take(), [{ type: 'tv', channel: 'bot' }, { type: 'list' }]);
  fake.receive({ type: 'tv', channel: 'bot', game: 'aaaaaaaa' });
  assert.deepEqual(fake.take(), [{ type: 'watch', game: 'aaaaaaaa', v: 3 }], 'only what was missed');
  // Changed while away: the new game afresh, nothing to unwatch on this connection.
  fake.drop();
  fake.open();
  fake.take();
  fake.receive({ type: 'tv', channel: 'bot', game: 'bbbbbbbb' });
  assert.deepEqual(fake.take(), [{ type: 'watch', game: 'bbbbbbbb', v: undefined }]);
});

test('switching channels replaces the subscription; a late answer for the old channel is ignored', () => {
  const { fake, connect } = fakeConnection();
  const ctrl = new TvCtrl('best', { connect });
  ctrl.start();
  fake.receive({ type: 'tv', channel: 'best', game: 'aaaaaaaa' });
  fake.receive(state('aaaaaaaa'));
  fake.take();
  ctrl.setChannel('bot');
  assert.equal(ctrl.channel, 'bot');
  assert.deepEqual(fake.take(), [{ type: 'unwatch', game: 'aaaaaaaa' }, { type: 'tv', channel: 'bot' }]);
  assert.equal(ctrl.game, null);
  assert.equal(ctrl.featured, undefined);
  fake.receive({ type: 'tv', channel: 'best', game: 'cccccccc' });
  assert.deepEqual(fake.take(), []);
  assert.equal(ctrl.featured, undefined);
  fake.receive({ type: 'tv', channel: 'bot', game: 'dddddddd' });
  assert.deepEqual(fake.take(), [{ type: 'watch', game: 'dddddddd', v: undefined }]);
  ctrl.setChannel('bot');
  assert.deepEqual(fake.take(), [], 'the same channel again is no switch');
});

test('refusals: an unwatch’s is nobody’s business; a refused tv means the server has none', () => {
  const { fake, connect } = fakeConnection();
  const ctrl = new TvCtrl('best', { connect });
  ctrl.start();
  const tvId = fake.sent[0].id;
  fake.receive({ type: 'tv', channel: 'best', game: 'aaaaaaaa' });
  fake.receive(state('aaaaaaaa'));
  fake.receive({ type: 'tv', channel: 'best', game: 'bbbbbbbb' });
  const unwatch = fake.sent.find((m) => m.type === 'unwatch');
  fake.receive({ type: 'error', code: 'bad_request', message: 'not followed', id: unwatch.id });
  assert.equal(ctrl.notice, '');
  // The featured game left the server before it could be watched: wait for the next `tv`.
  const watch = fake.sent.filter((m) => m.type === 'watch').pop();
  fake.receive({ type: 'error', code: 'no_such_game', message: 'no game bbbbbbbb', id: watch.id });
  assert.equal(ctrl.notice, '');
  assert.equal(ctrl.subscribed, null);
  fake.receive({ type: 'error', code: 'rate_limited', message: 'slow down' });
  assert.equal(ctrl.notice, 'slow down');
  fake.receive({ type: 'error', code: 'bad_request', message: "unknown variant `tv`", id: tvId });
  assert.equal(ctrl.unsupported, true);
  assert.equal(ctrl.featured, null);
  assert.match(ctrl.notice, /no TV/);
});
