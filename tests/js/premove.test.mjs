// Premoves (client/js/premove.js, client/js/game/premoves.js): where a piece could go on our
// next turn — by its way of moving, whatever the opponent's next move — and the queue that
// plays them one a turn while they stay legal.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parsePlacement } from '../../client/js/chess.js';
import { castlingRights, positionAfter, premoves, premoveTargets, rightsAfter } from '../../client/js/premove.js';
import { Premoves } from '../../client/js/game/premoves.js';

function position(fen, variant = 'standard') {
  const size = variant === 'minichess7' ? 7 : 8;
  return { board: parsePlacement(fen, size), size, variant, castling: castlingRights(fen) };
}

const sorted = (list) => [...list].sort();

test('a pawn: one or two ahead, either forward diagonal, a queen on the last rank', () => {
  const start = position('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
  assert.deepEqual(sorted(premoveTargets(start, 'e2')), ['d3', 'e3', 'e4', 'f3']);
  assert.deepEqual(sorted(premoveTargets(start, 'a7')), ['a5', 'a6', 'b6']);
  // Our own piece ahead blocks the pawn (a piece taking it would block it too); theirs may move away.
  const theirs = position('4k3/8/8/8/8/4p3/3BPN2/4K3 w - - 0 1');
  assert.deepEqual(sorted(premoveTargets(theirs, 'e2')), ['d3', 'e3', 'e4', 'f3']);
  const own = position('4k3/8/8/8/8/4N3/4P3/4K3 w - - 0 1');
  assert.deepEqual(sorted(premoveTargets(own, 'e2')), ['d3', 'f3']);
  const promote = position('4k3/1P6/8/8/8/8/8/4K3 w - - 0 1');
  assert.deepEqual(sorted(premoveTargets(promote, 'b7')), ['a8q', 'b8q', 'c8q']);
});

test('sliders: through their pieces (they may move), onto ours (to take back) but not past', () => {
  const pos = position('4k3/8/8/8/3p4/8/1B6/R3K3 w Q - 0 1');
  const rook = sorted(premoveTargets(pos, 'a1'));
  assert.deepEqual(rook, ['a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'b1', 'c1', 'd1', 'e1']);
  const bishop = sorted(premoveTargets(pos, 'b2'));
  // Through the black pawn on d4 to h8; onto nothing of ours.
  assert.deepEqual(bishop, ['a1', 'a3', 'c1', 'c3', 'd4', 'e5', 'f6', 'g7', 'h8']);
});

test('castling: the king two squares, with the right and nothing of ours between', () => {
  const open = position('r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1');
  assert.ok(premoveTargets(open, 'e1').includes('g1'));
  assert.ok(premoveTargets(open, 'e1').includes('c1'));
  assert.ok(premoveTargets(open, 'e8').includes('g8'));
  // Their bishop between may leave; our knight cannot.
  const between = position('4k3/8/8/8/8/8/8/RN2K1bR w KQ - 0 1');
  assert.ok(premoveTargets(between, 'e1').includes('g1'));
  assert.ok(!premoveTargets(between, 'e1').includes('c1'));
  const noRight = position('4k3/8/8/8/8/8/8/R3K2R w Q - 0 1');
  assert.ok(!premoveTargets(noRight, 'e1').includes('g1'));
  assert.ok(premoveTargets(noRight, 'e1').includes('c1'));
});

test('Chess960 castling: onto the rook itself, whichever files king and rook start on', () => {
  // King g1, rooks b1 (Q) and h1 (K): castling queenside crosses c1 to f1; kingside the king stays.
  const pos = position('1r4kr/8/8/8/8/8/8/1R4KR w KQkq - 0 1', 'chess960');
  assert.ok(premoveTargets(pos, 'g1').includes('b1'));
  assert.ok(premoveTargets(pos, 'g1').includes('h1'));
  assert.ok(!premoveTargets(pos, 'g1').includes('c1'), 'no two-square moves in Chess960');
  assert.ok(premoveTargets(pos, 'g8').includes('b8'));
  // Our knight on d1 blocks the queenside (the rook goes there); their bishop may leave.
  assert.ok(!premoveTargets(position('1r4kr/8/8/8/8/8/8/1R1N2KR w KQkq - 0 1', 'chess960'), 'g1').includes('b1'));
  assert.ok(premoveTargets(position('1r4kr/8/8/8/8/8/8/1R1b2KR w KQkq - 0 1', 'chess960'), 'g1').includes('b1'));
  // An inner rook named by its file (X-FEN's B): b1 castles, the a1 rook without a right does not.
  const inner = position('4k3/8/8/8/8/8/8/RR2K2R w KB - 0 1', 'chess960');
  assert.deepEqual(sorted(premoveTargets(inner, 'e1').filter((sq) => sq[1] === '1')), ['b1', 'd1', 'f1', 'h1']);
  // Shredder-FEN's letters name the same rooks.
  assert.ok(premoveTargets(position('1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1', 'chess960'), 'g1').includes('b1'));
  // Without the right, or with the rook gone: nothing.
  assert.ok(!premoveTargets(position('1r4kr/8/8/8/8/8/8/1R4KR w K - 0 1', 'chess960'), 'g1').includes('b1'));
  assert.ok(!premoveTargets(position('1r4kr/8/8/8/8/8/8/6KR w KQ - 0 1', 'chess960'), 'g1').includes('b1'));
  // The castling premove, played on the board (a queue), leaves king and rook castled, rights gone.
  const after = positionAfter(pos, ['g1b1']);
  assert.equal(after.board.get('c1'), 'K');
  assert.equal(after.board.get('d1'), 'R');
  assert.equal(after.board.has('b1'), false);
  assert.equal(after.castling, 'kq');
});

test('rights after a move: a king ends both, a rook (or a capture on its square) its own, on any file', () => {
  const board = parsePlacement('1r2k2r/8/8/1q6/8/8/8/RR2K2R w KBkq - 0 1', 8);
  assert.equal(rightsAfter('KBkq', board, 'b1b4'), 'Kkq', 'the inner rook with the right moved');
  assert.equal(rightsAfter('KBkq', board, 'a1a4'), 'KBkq', 'the a1 rook had no right');
  assert.equal(rightsAfter('KBkq', board, 'b5b1'), 'Kkq', 'taken on its square');
  assert.equal(rightsAfter('KBkq', board, 'h1h4'), 'Bkq');
  assert.equal(rightsAfter('KBkq', board, 'e1h1'), 'kq', 'castling is a king move');
  assert.equal(rightsAfter('KBkq', board, 'b8b1'), 'Kk', 'the black rook b8 (q) moved, taking on b1');
  assert.equal(rightsAfter('HBhb', board, 'b1b4'), 'Hhb', 'Shredder-FEN letters alike');
  assert.equal(castlingRights('1r2k2r/8/8/8/8/8/8/RR2K2R w KBkq - 0 1'), 'KBkq');
});

test('minichess7: the fairy pieces, no double step, no promotion, no castling', () => {
  const pos = position('nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1', 'minichess7');
  assert.deepEqual(sorted(premoveTargets(pos, 'b2')), ['a3', 'b3', 'c3']);
  // Ferz: one diagonal step (onto our pawn b2 too: it may be taken).
  assert.deepEqual(sorted(premoveTargets(pos, 'a2')), ['b1', 'b3']);
  // Empress: a knight's jumps and a rook's lines (stopping on our pieces).
  assert.deepEqual(sorted(premoveTargets(pos, 'f1')), ['d2', 'e1', 'e3', 'f2', 'g1', 'g3']);
  // Princess: a knight's jumps and a bishop's lines.
  assert.deepEqual(sorted(premoveTargets(pos, 'e1')), ['c2', 'd2', 'd3', 'f2', 'f3', 'g2']);
  const last = position('3k3/1P5/7/7/7/7/3K3 w - - 0 1', 'minichess7');
  assert.deepEqual(sorted(premoveTargets(last, 'b6')), ['a7', 'b7', 'c7']);
  const stuck = position('1P1k3/7/7/7/7/7/3K3 w - - 0 1', 'minichess7');
  assert.deepEqual(premoveTargets(stuck, 'b7'), []);
  assert.ok(premoves(pos, 'white').every((m) => m.length === 4));
});

test('chained premoves: each from the position the ones before leave', () => {
  const start = position('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
  assert.ok(!premoves(start, 'white').includes('f1c4'));
  const after = positionAfter(start, ['e2e4']);
  assert.ok(premoves(after, 'white').includes('f1c4'));
  assert.ok(premoves(after, 'white').includes('e4e5'));
  assert.ok(!premoves(after, 'white').includes('e2e3'));
  // A king's move ends castling: no castling premove after it.
  const kingMoved = positionAfter(position('4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1'), ['e1f1', 'f1e1']);
  assert.equal(kingMoved.castling, '');
  assert.ok(!premoves(kingMoved, 'white').includes('e1g1'));
  assert.equal(rightsAfter('KQkq', start.board, 'h1h5'), 'Qkq');
});

test('the queue: one premove replaces the last; queued ones play in turn while legal', () => {
  const p = new Premoves();
  assert.equal(p.queueing, false);
  p.add('e2e4');
  p.add('d2d4');
  assert.deepEqual(p.queue, ['d2d4']);
  assert.equal(p.take(['e2e4']), null, 'not legal: dropped');
  assert.deepEqual(p.queue, []);

  p.setQueueing(true);
  for (const m of ['e2e4', 'g1f3', 'f1c4']) p.add(m);
  assert.equal(p.take(['e2e4', 'd2d4']), 'e2e4');
  assert.equal(p.take(['g1f3', 'b1c3']), 'g1f3');
  assert.deepEqual(p.queue, ['f1c4']);
  assert.equal(p.take(['b1c3']), null);
  assert.deepEqual(p.queue, [], 'the first illegal one cancels the rest');

  for (const m of ['e2e4', 'g1f3', 'f1c4']) p.add(m);
  assert.equal(p.take(['d2d4']), null);
  assert.deepEqual(p.queue, []);
  p.add('e2e4');
  p.add('e4e5');
  p.setQueueing(false);
  assert.deepEqual(p.queue, ['e2e4'], 'turning the queue off keeps the first');
  assert.equal(p.clear(), true);
  assert.equal(p.clear(), false);
});

test('the board of a queue: the premoves played, the next ones from there', () => {
  const fen = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
  const board = parsePlacement(fen, 8);
  const g = { size: 8, variant: 'standard', fen, boards: [board] };
  const p = new Premoves();
  p.setQueueing(true);
  p.add('g1f3');
  const shown = p.boardState(g, 'white', board, null);
  assert.equal(shown.placement.get('f3'), 'N');
  assert.equal(shown.placement.get('g1'), undefined);
  assert.deepEqual(shown.premoves, ['g1f3']);
  assert.ok(shown.premoveLegal.includes('f3g5'));
  assert.ok(!shown.premoveLegal.includes('e1g1'), 'our bishop is still on f1');
  p.add('f1c4');
  assert.ok(p.boardState(g, 'white', board, null).premoveLegal.includes('e1g1'));
  // Without the queue the board shows the position as it is.
  p.setQueueing(false);
  assert.equal(p.boardState(g, 'white', board, null).placement.get('g1'), 'N');
});

test('the board of a Chess960 game: castling premoves onto the rook, played as Chess960 castles', () => {
  const fen = '1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR b KQkq - 0 1';
  const board = parsePlacement(fen, 8);
  const g = { size: 8, variant: 'chess960', fen, boards: [board] };
  const p = new Premoves();
  p.setQueueing(true);
  assert.ok(p.boardState(g, 'white', board, null).premoveLegal.includes('g1b1'));
  p.add('g1b1');
  const shown = p.boardState(g, 'white', board, null);
  assert.equal(shown.placement.get('c1'), 'K');
  assert.equal(shown.placement.get('d1'), 'R');
  assert.equal(shown.placement.get('h1'), 'R');
  assert.ok(!shown.premoveLegal.includes('c1h1'), 'castled once: not again');
});
