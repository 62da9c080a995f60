// The computer analysis as the game page shows it (client/js/evalGraph.js): the server's answer
// read, White's winning chances as lichess computes them, evals and summaries as people read
// them, the marks of judged moves, the best move of each position, the graph's geometry — and
// the shape of the board's best-move arrow (client/js/board.js).
// Run with `node --test tests/js/`.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { arrowShape } from '../../client/js/board.js';
import {
  bestMoveAt, CP_CLAMP, EVAL_BOX, evalAt, evalGraphGeometry, formatAcpl, formatEval, judgementNote, pointLabel,
  progressPercent, readAnalysis, summaryRows, winningChances,
} from '../../client/js/evalGraph.js';

/** The spec's example shape: 1.e4 e5 2.Nf3 Qh4?? 3.Nxh4, Black resigns. */
const DONE = {
  status: 'done', progress: 1.0, movetime_ms: 150,
  initial: { cp: 20 },
  plies: [
    { ply: 1, move: { uci: 'e2e4', san: 'e4' }, eval: { cp: 35 }, best: { uci: 'e2e4', san: 'e4' }, judgement: null },
    { ply: 2, move: { uci: 'e7e5', san: 'e5' }, eval: { cp: 30 }, best: { uci: 'c7c5', san: 'c5' }, judgement: null },
    { ply: 3, move: { uci: 'g1f3', san: 'Nf3' }, eval: { cp: 40 }, best: { uci: 'g1f3', san: 'Nf3' }, judgement: null },
    { ply: 4, move: { uci: 'd8h4', san: 'Qh4' }, eval: { cp: 880 }, best: { uci: 'b8c6', san: 'Nc6' }, judgement: 'blunder' },
    { ply: 5, move: { uci: 'f3h4', san: 'Nxh4' }, eval: { mate: 3 }, best: null, judgement: null },
  ],
  players: {
    white: { inaccuracies: 0, mistakes: 0, blunders: 0, acpl: 12 },
    black: { inaccuracies: 1, mistakes: 0, blunders: 1, acpl: 310.4 },
  },
};

test('winning chances follow lichess: clamped at ±1000 cp, a mate is certain', () => {
  assert.equal(winningChances({ cp: 0 }), 0);
  const near = (a, b) => assert.ok(Math.abs(a - b) < 1e-4, `${a} ≈ ${b}`);
  near(winningChances({ cp: 100 }), 2 / (1 + Math.exp(-0.368208)) - 1);
  near(winningChances({ cp: 100 }), 0.182);
  near(winningChances({ cp: -300 }), -winningChances({ cp: 300 }));
  assert.equal(winningChances({ cp: 5000 }), winningChances({ cp: CP_CLAMP }));
  assert.equal(winningChances({ cp: -10000 }), winningChances({ cp: -1000 }));
  near(winningChances({ cp: 1000 }), 0.9509);
  assert.equal(winningChances({ mate: 3 }), 1);
  assert.equal(winningChances({ mate: -1 }), -1);
  assert.equal(winningChances(null), null);
  assert.equal(winningChances({}), null);
  for (let cp = -1500; cp <= 1500; cp += 37) {
    const c = winningChances({ cp });
    assert.ok(c > -1 && c < 1, `${cp} → ${c}`);
    assert.ok(c >= winningChances({ cp: cp - 37 }), 'never falls as cp rises');
  }
});

test('evals read as on lichess', () => {
  assert.equal(formatEval({ cp: 35 }), '+0.35');
  assert.equal(formatEval({ cp: -880 }), '\u22128.80', 'a true minus sign');
  assert.equal(formatEval({ cp: 0 }), '0.00');
  assert.equal(formatEval({ mate: 3 }), '#3');
  assert.equal(formatEval({ mate: -2 }), '#\u22122');
  assert.equal(formatEval(null), '?');
});

test("the server's answer is read: running, done, or nothing usable", () => {
  assert.deepEqual(readAnalysis({ status: 'running', progress: 0.37, plies: [] }), { status: 'running', progress: 0.37 });
  assert.deepEqual(readAnalysis({ status: 'running', progress: 7 }), { status: 'running', progress: 1 });
  assert.deepEqual(readAnalysis({ status: 'running' }), { status: 'running', progress: 0 });
  assert.equal(readAnalysis(null), null);
  assert.equal(readAnalysis({ type: 'error', code: 'no_such_game', message: 'no game' }), null);
  assert.equal(readAnalysis({ status: 'done' }), null, 'no plies');

  const a = readAnalysis(DONE);
  assert.equal(a.status, 'done');
  assert.deepEqual(a.initial, { cp: 20 });
  assert.equal(a.plies.length, 5);
  assert.deepEqual(a.plies[3], { ply: 4, move: { uci: 'd8h4', san: 'Qh4' }, eval: { cp: 880 }, best: { uci: 'b8c6', san: 'Nc6' }, judgement: 'blunder' });
  assert.deepEqual(a.plies[4].eval, { mate: 3 });
  assert.equal(a.plies[4].best, null);
  assert.deepEqual(a.players.black, { inaccuracies: 1, mistakes: 0, blunders: 1, acpl: 310.4 });

  // Damaged parts are dropped, not trusted: an unknown judgement, a move that is no move, a
  // missing eval, missing players.
  const odd = readAnalysis({
    status: 'done', initial: 'x',
    plies: [{ ply: 2, move: { uci: '<b>' }, eval: { cp: 'lots' }, best: { uci: 'a7a6' }, judgement: 'brilliant' }, { ply: 1 }],
  });
  assert.equal(odd.initial, null);
  assert.deepEqual(odd.plies.map((p) => p.ply), [1, 2], 'in ply order');
  assert.deepEqual(odd.plies[1], { ply: 2, move: null, eval: null, best: { uci: 'a7a6', san: 'a7a6' }, judgement: null });
  assert.deepEqual(odd.players.white, { inaccuracies: 0, mistakes: 0, blunders: 0, acpl: null });
  // minichess7's squares (a1..g7) and its promotions are moves like any other.
  assert.deepEqual(readAnalysis({ status: 'done', plies: [{ ply: 1, move: { uci: 'g6g7a', san: 'g7=A' } }] }).plies[0].move, { uci: 'g6g7a', san: 'g7=A' });
});

test('the eval of each position: the start, then after each move', () => {
  const a = readAnalysis(DONE);
  assert.deepEqual([0, 1, 4, 5].map((ply) => evalAt(a, ply)), [{ cp: 20 }, { cp: 35 }, { cp: 880 }, { mate: 3 }]);
  assert.equal(evalAt(a, 6), null);
  assert.equal(evalAt(null, 0), null);
});

test('judged moves get their mark and the better move in words', () => {
  const a = readAnalysis(DONE);
  assert.deepEqual(judgementNote(a, 4), { kind: 'blunder', mark: '??', title: 'Blunder. Nc6 was best.' });
  assert.equal(judgementNote(a, 1), null);
  assert.equal(judgementNote(a, 9), null);
  const marks = ['inaccuracy', 'mistake', 'blunder'].map((judgement) => judgementNote(
    readAnalysis({ status: 'done', plies: [{ ply: 1, move: { uci: 'e2e4', san: 'e4' }, best: { uci: 'd2d4', san: 'd4' }, judgement }] }), 1));
  assert.deepEqual(marks.map((n) => [n.mark, n.title]), [['?!', 'Inaccuracy. d4 was best.'], ['?', 'Mistake. d4 was best.'], ['??', 'Blunder. d4 was best.']]);
  // No better move known (or the move played was it): the judgement alone.
  const alone = readAnalysis({ status: 'done', plies: [{ ply: 1, move: { uci: 'e2e4', san: 'e4' }, best: null, judgement: 'mistake' }] });
  assert.equal(judgementNote(alone, 1).title, 'Mistake.');
});

test('the best move drawn in a position is the one before the next ply; none at the end', () => {
  const a = readAnalysis(DONE);
  assert.equal(bestMoveAt(a, 0).uci, 'e2e4', 'the start position: before ply 1');
  assert.equal(bestMoveAt(a, 3).uci, 'b8c6', 'after 2.Nf3: what Black should have played instead of Qh4');
  assert.equal(bestMoveAt(a, 4), null, 'before ply 5 the server knew none');
  assert.equal(bestMoveAt(a, 5), null, 'the final position');
  assert.equal(bestMoveAt(a, -1), null);
  assert.equal(bestMoveAt({ status: 'running', progress: 0.5 }, 0), null);
});

test('the graph: one point per position, left to right, White up, the even line in the middle', () => {
  const a = readAnalysis(DONE);
  const box = { width: 220, height: 120, left: 10, right: 10, top: 10, bottom: 10 };
  const g = evalGraphGeometry(a, box);
  assert.equal(g.points.length, 6, 'the start and five plies');
  assert.deepEqual(g.points.map((p) => p.ply), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(g.points.map((p) => p.x), [10, 50, 90, 130, 170, 210]);
  assert.equal(g.zeroY, 60);
  assert.equal(g.points[5].y, 10, 'a mate for White is the top');
  assert.ok(g.points[4].y < g.points[3].y, 'the blunder sends the curve up');
  assert.ok(g.points.every((p) => p.y >= 10 && p.y <= 110));
  assert.deepEqual(g.points.map((p) => p.judgement), [null, null, null, null, 'blunder', null]);
  // Columns to click: touching, covering the plot, each around its point.
  assert.equal(g.points[0].left, 10);
  assert.equal(g.points[5].right, 210);
  for (let i = 1; i < g.points.length; i++) assert.equal(g.points[i].left, g.points[i - 1].right);
  for (const p of g.points) assert.ok(p.left <= p.x && p.x <= p.right);
  assert.equal(g.line.split(' ').length, 6);
  assert.ok(g.area.startsWith('M10,110 L10,') && g.area.endsWith('L210,110 Z'), g.area);

  // Black mated: the bottom; an eval missing keeps the line level.
  const down = readAnalysis({ status: 'done', initial: { cp: 0 }, plies: [{ ply: 1, eval: { cp: -10000 } }, { ply: 2 }, { ply: 3, eval: { mate: -1 } }] });
  const d = evalGraphGeometry(down, box);
  assert.equal(d.points[3].y, 110);
  assert.equal(d.points[2].y, d.points[1].y);
  assert.equal(d.points[2].chances, null);
  assert.equal(evalGraphGeometry(null), null);
  assert.equal(evalGraphGeometry({ status: 'running', progress: 0.1 }), null);
  // The default box holds every point too.
  const dflt = evalGraphGeometry(a);
  assert.ok(dflt.points.every((p) => p.x >= EVAL_BOX.left && p.x <= EVAL_BOX.width - EVAL_BOX.right));
});

test("points say what they show; progress and the summary read as people expect", () => {
  const a = readAnalysis(DONE);
  const name = (ply) => ['', '1. e4', '1… e5', '2. Nf3', '2… Qh4', '3. Nxh4'][ply];
  assert.equal(pointLabel(a, 0, name), 'Start position +0.20');
  assert.equal(pointLabel(a, 4, name), '2… Qh4?? +8.80 (Blunder. Nc6 was best.)');
  assert.equal(pointLabel(a, 5, name), '3. Nxh4 #3');
  assert.deepEqual([0, 0.371, 0.999, 1, 2, -1, NaN].map(progressPercent), [0, 37, 100, 100, 100, 0, 0]);
  assert.equal(formatAcpl(12), '12');
  assert.equal(formatAcpl(310.6), '311');
  assert.equal(formatAcpl(null), '\u2013');
  assert.deepEqual(summaryRows(a, { white: 'Alice', black: 'Bob' }), [
    { color: 'white', name: 'Alice', inaccuracies: 0, mistakes: 0, blunders: 0, acpl: '12' },
    { color: 'black', name: 'Bob', inaccuracies: 1, mistakes: 0, blunders: 1, acpl: '310' },
  ]);
  assert.deepEqual(summaryRows(null, {}), []);
});

test("the best-move arrow: from near one centre to its head short of the other", () => {
  // e2 → e4 on a white-side 8x8 board: centres (450, 650) → (450, 450).
  const s = arrowShape(450, 650, 450, 450, 100);
  assert.deepEqual([s.x1, s.y1, s.x2, s.y2], [450, 635, 450, 500]);
  assert.equal(s.head, '450,462 472,500 428,500');
  // Any direction: the head's tip lies on the line, short of the target.
  const d = arrowShape(50, 650, 650, 50, 100);
  const [tx, ty] = d.head.split(' ')[0].split(',').map(Number);
  assert.ok(Math.abs(tx - 650 + ty - 50) < 0.2, 'on the diagonal');
  assert.ok(tx < 650 && ty > 50);
  assert.equal(arrowShape(10, 10, 10, 10, 100), null);
});
