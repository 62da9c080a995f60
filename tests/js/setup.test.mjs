// The board editor's position model (client/js/setup.js): FEN in and out for every variant,
// placing and removing pieces, and the castling and en passant fields (Chess960's X-FEN too).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  availableCastling, clearBoard, detectVariant, effectiveCastling, emptySetup, epCandidates, fenAfter, movePiece,
  parseFen, place, remove, setCastling, setEnPassant, setTurn, START_FENS, startSetup, toFen,
} from '../../client/js/setup.js';

const roundTrip = (fen, variant) => {
  const { setup, error } = parseFen(fen, variant);
  assert.equal(error, undefined, `${fen} reads`);
  return toFen(setup);
};

test('FEN round trips in standard chess', () => {
  for (const fen of [
    START_FENS.standard,
    'r3k2r/8/8/8/8/8/8/R3K2R b Kq - 12 40',
    'rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3',
    '8/8/8/8/8/8/8/k6K w - - 0 1',
  ]) {
    assert.equal(roundTrip(fen, 'standard'), fen);
  }
});

test('FEN round trips in minichess7, fairy pieces included', () => {
  for (const fen of [START_FENS.minichess7, 'k6/7/2C4/7/7/7/1R1K3 b - - 0 1', '3k3/1a1f3/7/7/7/2F1C2/3K3 w - - 5 9']) {
    assert.equal(roundTrip(fen, 'minichess7'), fen);
  }
  const { setup } = parseFen(START_FENS.minichess7, 'minichess7');
  assert.equal(setup.placement.get('e1'), 'A');
  assert.equal(setup.placement.get('f7'), 'c');
  assert.equal(setup.placement.get('a6'), 'f');
});

test('missing trailing fields default to w - - 0 1', () => {
  assert.equal(roundTrip('8/8/8/8/8/8/8/k6K', 'standard'), '8/8/8/8/8/8/8/k6K w - - 0 1');
  assert.equal(roundTrip('k6/7/7/7/7/7/6K b', 'minichess7'), 'k6/7/7/7/7/7/6K b - - 0 1');
});

test('unreadable FENs give an error', () => {
  assert.match(parseFen('', 'standard').error, /empty/);
  assert.match(parseFen('8/8/8/8/8/8/8 w - - 0 1', 'standard').error, /8 ranks/);
  assert.match(parseFen('9/8/8/8/8/8/8/8 w - - 0 1', 'standard').error, /rank 8 has 9 squares/);
  assert.match(parseFen('rnbqkbnC/8/8/8/8/8/8/K7 w - - 0 1', 'standard').error, /unknown piece letter 'C'/);
  assert.match(parseFen('7/7/7/7/7/7/6x w', 'minichess7').error, /'x'/);
  assert.match(parseFen('8/8/8/8/8/8/8/k6K x', 'standard').error, /side to move/);
  assert.match(parseFen('8/8/8/8/8/8/8/k6K w KK', 'standard').error, /castling/);
  assert.match(parseFen('8/8/8/8/8/8/8/k6K w - z9', 'standard').error, /en passant/);
  assert.match(parseFen('8/8/8/8/8/8/8/k6K w - - x 1', 'standard').error, /halfmove/);
  assert.match(parseFen('8/8/8/8/8/8/8/k6K w - - 0 0', 'standard').error, /move number/);
});

test('the variant is told by the number of ranks', () => {
  assert.equal(detectVariant(START_FENS.standard), 'standard');
  assert.equal(detectVariant(START_FENS.minichess7), 'minichess7');
  assert.equal(detectVariant('8/8 w'), null);
});

test('placing, moving and removing pieces', () => {
  let s = emptySetup('minichess7');
  assert.equal(toFen(s), '7/7/7/7/7/7/7 w - - 0 1');
  s = place(s, 'd1', 'K');
  s = place(s, 'd7', 'k');
  s = place(s, 'c3', 'C');
  s = place(s, 'e5', 'a');
  s = place(s, 'b2', 'F');
  assert.equal(toFen(s), '3k3/7/4a2/7/2C4/1F5/3K3 w - - 0 1');
  // Off the board of the variant, or a piece it does not have: nothing changes.
  assert.equal(place(s, 'h8', 'Q'), s);
  assert.equal(place(emptySetup('standard'), 'e4', 'C').placement.size, 0);
  s = place(s, 'c3', 'q'); // replaces the empress
  assert.equal(s.placement.get('c3'), 'q');
  s = movePiece(s, 'c3', 'e5'); // takes the princess
  assert.equal(toFen(s), '3k3/7/4q2/7/7/1F5/3K3 w - - 0 1');
  s = movePiece(s, 'e5', null); // dragged off the board
  s = remove(s, 'b2');
  assert.equal(toFen(s), '3k3/7/7/7/7/7/3K3 w - - 0 1');
  assert.equal(remove(s, 'a1'), s);
  assert.equal(toFen(clearBoard(startSetup('standard'))), '8/8/8/8/8/8/8/8 w - - 0 1');
  // The model is never changed in place.
  const start = startSetup('standard');
  remove(start, 'e1');
  assert.equal(toFen(start), START_FENS.standard);
});

test('castling rights follow the kings and rooks', () => {
  let s = startSetup('standard');
  assert.equal(availableCastling(s), 'KQkq');
  s = remove(s, 'h1');
  assert.equal(effectiveCastling(s), 'Qkq');
  assert.equal(toFen(s), 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1');
  s = place(s, 'h1', 'R'); // the wanted right comes back with the rook
  assert.equal(effectiveCastling(s), 'KQkq');
  s = setCastling(s, 'q', false);
  s = setCastling(s, 'Q', false);
  assert.equal(toFen(s).split(' ')[2], 'Kk');
  s = setCastling(s, 'Q', true);
  assert.equal(toFen(s).split(' ')[2], 'KQk');
  s = remove(s, 'e8');
  assert.equal(toFen(s).split(' ')[2], 'KQ');
  assert.equal(availableCastling(startSetup('minichess7')), '');
});

test('en passant squares are offered only where a pawn could just have stepped two', () => {
  let s = parseFen('4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1', 'standard').setup;
  assert.deepEqual(epCandidates(s), ['d6']);
  s = setEnPassant(s, 'd6');
  assert.equal(toFen(s), '4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1');
  // With Black to move the square no longer fits: it is left out.
  assert.equal(toFen(setTurn(s, 'black')), '4k3/8/8/3pP3/8/8/8/4K3 b - - 0 1');
  assert.deepEqual(epCandidates(setTurn(s, 'black')), []);
  // A piece on the square the pawn came from rules it out.
  assert.deepEqual(epCandidates(place(s, 'd7', 'n')), []);
  s = parseFen('4k3/8/8/8/2P1P3/8/8/4K3 b - - 0 1', 'standard').setup;
  assert.deepEqual(epCandidates(s), ['c3', 'e3']);
  assert.deepEqual(epCandidates(startSetup('minichess7')), []);
  // An impossible square read from a FEN is dropped on the way out.
  assert.equal(roundTrip('4k3/8/8/8/8/8/8/4K3 w - e6 0 1', 'standard'), '4k3/8/8/8/8/8/8/4K3 w - - 0 1');
});

test('the FEN of a position reviewed on a game page', () => {
  const placement = (fen, v) => parseFen(fen, v).setup.placement;
  const moves = ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'e1e2'];
  assert.equal(
    fenAfter({ variant: 'standard', initialFen: START_FENS.standard, moves, ply: 1, placement: placement('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR') }),
    'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1',
  );
  assert.equal(
    fenAfter({ variant: 'standard', initialFen: START_FENS.standard, moves, ply: 5, placement: placement('r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPPKPPP/RNBQ1B1R') }),
    'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPPKPPP/RNBQ1B1R b kq - 0 3',
  );
  assert.equal(
    fenAfter({ variant: 'minichess7', initialFen: START_FENS.minichess7, moves: ['b2b3'], ply: 0, placement: placement(START_FENS.minichess7, 'minichess7') }),
    START_FENS.minichess7,
  );
});

test('Chess960: its starts by number, X-FEN castling rights for any rook beside the king', () => {
  assert.equal(toFen(startSetup('chess960', 0)), 'bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1');
  assert.equal(toFen(startSetup('chess960')), START_FENS.standard, 'no number: the standard start, 518');
  assert.equal(toFen(startSetup('chess960', 5000)), START_FENS.standard);
  // Rights are kept by the rook's file, written K/Q for the outermost rook, the file for an inner one.
  let s = parseFen('rr2k1rr/8/8/8/8/8/8/RR2K1RR w KBgq - 0 1', 'chess960').setup;
  assert.equal(s.castling, 'HBga');
  assert.equal(toFen(s), 'rr2k1rr/8/8/8/8/8/8/RR2K1RR w KBgq - 0 1');
  assert.equal(availableCastling(s), 'HGBAhgba');
  // One rook a side: wanting the g1 rook's right drops the h1 one's.
  s = setCastling(s, 'G', true);
  assert.equal(toFen(s).split(' ')[2], 'GBgq');
  s = setCastling(s, 'A', true);
  assert.equal(toFen(s).split(' ')[2], 'GQgq', 'the a1 rook is the outermost: Q');
  s = setCastling(s, 'G', false);
  assert.equal(toFen(s).split(' ')[2], 'Qgq');
  assert.equal(setCastling(s, 'K', true), s, 'Chess960 rights are chosen by file');
  // A right follows its rook: gone with it, back with it.
  s = remove(s, 'a1');
  assert.equal(toFen(s).split(' ')[2], 'gq');
  s = place(s, 'a1', 'R');
  assert.equal(toFen(s).split(' ')[2], 'Qgq');
  // The king off its back rank: no rights of that side.
  assert.equal(toFen(movePiece(s, 'e1', 'e2')).split(' ')[2], 'gq');
  // Shredder-FEN reads too, and is written as X-FEN.
  assert.equal(roundTrip('1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1', 'chess960'), '1r4kr/8/8/8/8/8/8/1R4KR w KQkq - 0 1');
  assert.match(parseFen('8/8/8/8/8/8/8/k6K w KX', 'chess960').error, /castling/);
  assert.match(parseFen('rk5r/8/8/8/8/8/8/RK5R w HA - 0 1', 'standard').error, /castling/);
  // En passant as in standard chess.
  assert.deepEqual(epCandidates(parseFen('4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1', 'chess960').setup), ['d6']);
});

test('Chess960 is told from its castling letters or its starts', () => {
  assert.equal(detectVariant('bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1'), 'chess960');
  assert.equal(detectVariant('rr2k1rr/8/8/8/8/8/8/RR2K1RR w KBgq - 0 1'), 'chess960');
  assert.equal(detectVariant(START_FENS.standard), 'standard');
  assert.equal(detectVariant(START_FENS.standard, 'chess960'), 'chess960', 'any Chess960 position may look standard');
  assert.equal(detectVariant(START_FENS.minichess7, 'chess960'), 'minichess7');
});

test('the FEN of a Chess960 position reviewed on a game page: castling ends its side\'s rights', () => {
  const initialFen = 'rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1';
  const placement = (fen) => parseFen(fen, 'chess960').setup.placement;
  assert.equal(
    fenAfter({ variant: 'chess960', initialFen, moves: ['b1a1'], ply: 1, placement: placement('rk5r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R') }),
    'rk5r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R b kq - 0 1',
  );
  assert.equal(
    fenAfter({ variant: 'chess960', initialFen, moves: ['h2h4', 'h8h7'], ply: 2, placement: placement('rk6/pppppppr/8/8/7P/8/PPPPPPP1/RK5R') }),
    'rk6/pppppppr/8/8/7P/8/PPPPPPP1/RK5R w KQq - 0 2',
  );
  // The en passant square behind a pawn's two-square step, as in standard chess.
  assert.equal(
    fenAfter({ variant: 'chess960', initialFen, moves: ['h2h4'], ply: 1, placement: placement('rk5r/pppppppp/8/8/7P/8/PPPPPPP1/RK5R') }),
    'rk5r/pppppppp/8/8/7P/8/PPPPPPP1/RK5R b KQkq h3 0 1',
  );
});
