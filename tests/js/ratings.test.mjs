// Ratings as the web client shows them (client/js/ratings.js) and the rating graph's arithmetic
// (client/js/ratingGraph.js): the categories, "1662?" and "+162"/"−162", a result as a player
// sees it, and how the history's points are scaled into the drawing.
// Run with `node --test tests/js/`.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { BOX, polylinePoints, ratingBounds, scaleGraph } from '../../client/js/ratingGraph.js';
import { CATEGORIES, CATEGORY_NAMES, categoryOf, changeDirection, DEFAULT_CATEGORY, formatChange, formatRating, modeName, outcomeFor } from '../../client/js/ratings.js';

test('the category of a game, as the server decides it', () => {
  const clock = (m, inc) => ({ initial_ms: m * 60000, increment_ms: inc * 1000 });
  assert.equal(categoryOf('standard', clock(1, 0)), 'bullet');
  assert.equal(categoryOf('standard', clock(2, 1)), 'bullet', '120 + 40 = 160 s');
  assert.equal(categoryOf('standard', clock(3, 0)), 'blitz', '180 s is no longer bullet');
  assert.equal(categoryOf('standard', clock(5, 3)), 'blitz', '300 + 120 = 420 s');
  assert.equal(categoryOf('standard', clock(8, 0)), 'rapid', '480 s');
  assert.equal(categoryOf('standard', clock(10, 5)), 'rapid');
  assert.equal(categoryOf('standard', clock(15, 10)), 'rapid', '900 + 400 = 1300 s');
  assert.equal(categoryOf('standard', clock(25, 0)), 'classical', '1500 s');
  assert.equal(categoryOf('minichess7', clock(1, 0)), 'minichess7');
  assert.equal(categoryOf('standard', null), null);
  // Days per move: a clock view carrying `days` (its initial time is days long, not classical),
  // or a game summary's `days` beside a null clock.
  const days3 = { initial_ms: 3 * 86400000, increment_ms: 0, white_ms: 1, black_ms: 1, running: 'white', days: 3 };
  assert.equal(categoryOf('standard', days3), 'correspondence');
  assert.equal(categoryOf('standard', null, 3), 'correspondence');
  assert.equal(categoryOf('minichess7', days3), 'minichess7', 'minichess7 by days is minichess7');
  // Chess960 is one category whatever the speed, by days too.
  for (const c of [clock(1, 0), clock(5, 3), clock(25, 0), days3]) assert.equal(categoryOf('chess960', c), 'chess960');
  assert.deepEqual(CATEGORIES, ['bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'minichess7', 'chess960']);
  assert.equal(CATEGORY_NAMES.chess960, 'Chess960');
  assert.equal(CATEGORY_NAMES.correspondence, 'Correspondence');
  for (const c of CATEGORIES) assert.ok(CATEGORY_NAMES[c], c);
  assert.equal(DEFAULT_CATEGORY, 'blitz');
});

test('ratings and changes read as on lichess', () => {
  assert.equal(formatRating(1662, false), '1662');
  assert.equal(formatRating(1662, true), '1662?');
  assert.equal(formatRating(1661.6), '1662');
  assert.equal(formatRating(null), '?');
  assert.equal(formatChange(162), '+162');
  assert.equal(formatChange(-162), '\u2212162', 'a true minus sign');
  assert.equal(formatChange(0), '±0');
  assert.equal(formatChange(null), '');
  assert.equal(formatChange(undefined), '');
  assert.deepEqual([162, -3, 0, null].map(changeDirection), ['up', 'down', 'even', 'even']);
  assert.equal(modeName(true), 'Rated');
  assert.equal(modeName(false), 'Casual');
  assert.equal(modeName(undefined), 'Casual');
});

test('a result as each player sees it', () => {
  assert.equal(outcomeFor('1-0', 'white'), 'win');
  assert.equal(outcomeFor('1-0', 'black'), 'loss');
  assert.equal(outcomeFor('0-1', 'black'), 'win');
  assert.equal(outcomeFor('0-1', 'white'), 'loss');
  assert.equal(outcomeFor('1/2-1/2', 'white'), 'draw');
  assert.equal(outcomeFor('*', 'black'), 'aborted');
  assert.equal(outcomeFor(null, 'white'), null);
  assert.equal(outcomeFor('1-0', 'green'), null);
});

test('rating bounds are round and leave room around the data', () => {
  // One rating: a span of at least 100 around it, not a sliver.
  const one = ratingBounds(1258, 1258);
  assert.ok(one.lo <= 1208 && one.hi >= 1308, JSON.stringify(one));
  assert.ok((one.hi - one.lo) / one.step + 1 <= 6, JSON.stringify(one));
  const b = ratingBounds(1338, 1662);
  assert.ok(b.lo < 1338 && b.hi > 1662, JSON.stringify(b));
  assert.equal(b.lo % b.step, 0);
  assert.equal(b.hi % b.step, 0);
  assert.ok((b.hi - b.lo) / b.step + 1 <= 6, 'at most six grid lines');
  const wide = ratingBounds(800, 2900);
  assert.ok((wide.hi - wide.lo) / wide.step + 1 <= 6, JSON.stringify(wide));
});

test('the graph scales time to x and rating to y, inside the margins', () => {
  const history = {
    rapid: [{ at_ms: 3000, rating: 1400 }],
    blitz: [{ at_ms: 2000, rating: 1662 }, { at_ms: 1000, rating: 1500 }],
    bogus: 'not a list',
  };
  const g = scaleGraph(history);
  // The pages' order of categories, points oldest first; categories without points left out.
  assert.deepEqual(g.series.map((s) => s.category), ['blitz', 'rapid']);
  const [blitz, rapid] = g.series;
  assert.deepEqual(blitz.points.map((p) => p.rating), [1500, 1662]);
  const plotRight = BOX.width - BOX.right;
  const plotBottom = BOX.height - BOX.bottom;
  // The first moment at the left edge, the last at the right, the middle one halfway.
  assert.equal(blitz.points[0].x, BOX.left);
  assert.equal(rapid.points[0].x, plotRight);
  assert.equal(blitz.points[1].x, Math.round(((BOX.left + plotRight) / 2) * 10) / 10);
  for (const p of [...blitz.points, ...rapid.points]) {
    assert.ok(p.x >= BOX.left && p.x <= plotRight, `x ${p.x}`);
    assert.ok(p.y > BOX.top && p.y < plotBottom, `y ${p.y} strictly inside`);
  }
  // Higher ratings are higher up (smaller y).
  assert.ok(blitz.points[1].y < blitz.points[0].y);
  assert.ok(rapid.points[0].y > blitz.points[0].y);
  // The grid: from the top of the plot to its bottom, ratings falling.
  assert.equal(g.yTicks[0].y, BOX.top);
  assert.equal(g.yTicks[g.yTicks.length - 1].y, plotBottom);
  assert.ok(g.yTicks.every((t, i) => i === 0 || t.rating < g.yTicks[i - 1].rating));
  assert.deepEqual(g.xTicks.map((t) => t.at), [1000, 3000]);
  assert.equal(polylinePoints(blitz.points), blitz.points.map((p) => `${p.x},${p.y}`).join(' '));
});

test('one game: its point stands in the middle; no games: nothing to draw', () => {
  const g = scaleGraph({ blitz: [{ at_ms: 1700000000000, rating: 1662 }] });
  assert.equal(g.series.length, 1);
  const [p] = g.series[0].points;
  assert.equal(p.x, BOX.left + (BOX.width - BOX.left - BOX.right) / 2);
  assert.ok(p.y > BOX.top && p.y < BOX.height - BOX.bottom);
  assert.equal(g.xTicks.length, 1);
  for (const empty of [{}, null, undefined, { blitz: [] }, { blitz: [{ at_ms: 'x', rating: 1 }] }]) {
    assert.deepEqual(scaleGraph(empty).series, [], JSON.stringify(empty));
  }
});
