// Blind mode's words (client/js/blindText.js): moves, the board, where pieces stand, squares,
// clocks, the move list and the commands, in standard chess and in minichess7.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boardWords, clockWords, durationWords, endWords, moveListWords, moveWords, parseCommand, pieceListWords, roleOf, sanWords, squareWords } from '../../client/js/blindText.js';
import { parsePlacement } from '../../client/js/chess.js';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const start = parsePlacement(START, 8);

test('moves in words: pawns by square, pieces by name, takes, check and mate', () => {
  assert.equal(moveWords({ san: 'e4', color: 'white' }), 'White plays e4');
  assert.equal(moveWords({ san: 'Nf6', color: 'black' }), 'Black plays knight f6');
  assert.equal(moveWords({ san: 'e4+', color: 'white' }), 'White plays e4, check');
  assert.equal(moveWords({ san: 'Bxf7+', color: 'white' }), 'White plays bishop takes f7, check');
  assert.equal(moveWords({ san: 'Qxf7#', color: 'white' }), 'White plays queen takes f7, checkmate');
  assert.equal(moveWords({ san: 'exd5', color: 'white' }), 'White plays e takes d5');
  // Two pieces that could go there: the one that did is named by its file or rank.
  assert.equal(sanWords('Nbd7'), 'knight b d7');
  assert.equal(sanWords('R1xa4'), 'rook 1 takes a4');
});

test('castling, both ways', () => {
  assert.equal(moveWords({ san: 'O-O', color: 'white' }), 'White castles kingside');
  assert.equal(moveWords({ san: 'O-O-O+', color: 'black' }), 'Black castles queenside, check');
});

test('promotion, with and without a capture', () => {
  assert.equal(moveWords({ san: 'e8=Q', color: 'white' }), 'White plays e8 promotes to queen');
  assert.equal(moveWords({ san: 'dxe1=N+', color: 'black' }), 'Black plays d takes e1, promotes to knight, check');
});

test('en passant is told from the board before the move', () => {
  const before = parsePlacement('4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1', 8);
  assert.equal(moveWords({ san: 'exd6', uci: 'e5d6', color: 'white', before }), 'White plays e takes d6 en passant');
  // An ordinary capture is not.
  const capture = parsePlacement('4k3/8/3p4/4P3/8/8/8/4K3 w - - 0 1', 8);
  assert.equal(moveWords({ san: 'exd6', uci: 'e5d6', color: 'white', before: capture }), 'White plays e takes d6');
});

test('the board rank by rank, from either side', () => {
  const lines = boardWords(start, 8);
  assert.equal(lines.length, 8);
  assert.equal(lines[0], 'Rank 8: black rook a8, black knight b8, black bishop c8, black queen d8, black king e8, black bishop f8, black knight g8, black rook h8.');
  assert.equal(lines[3], 'Rank 5: empty.');
  assert.equal(lines[7].slice(0, 34), 'Rank 1: white rook a1, white knigh');
  const black = boardWords(start, 8, 'black');
  assert.equal(black[0], 'Rank 1: white rook h1, white knight g1, white bishop f1, white king e1, white queen d1, white bishop c1, white knight b1, white rook a1.');
});

test('where a kind of piece stands, for both sides', () => {
  assert.equal(pieceListWords(start, 'n'), 'White knights: b1, g1. Black knights: b8, g8.');
  assert.equal(pieceListWords(start, roleOf('queen')), 'White queens: d1. Black queens: d8.');
  assert.equal(pieceListWords(parsePlacement('4k3/8/8/8/8/8/8/4K3 w - - 0 1', 8), 'r'), 'White rooks: none. Black rooks: none.');
  for (const word of ['N', 'n', 'knight', 'Knights']) assert.equal(roleOf(word), 'n', word);
  assert.equal(roleOf('dragon'), null);
});

test('what is on a square', () => {
  assert.equal(squareWords(start, 8, 'e2'), 'e2: white pawn.');
  assert.equal(squareWords(start, 8, 'E8'), 'e8: black king.');
  assert.equal(squareWords(start, 8, 'e4'), 'e4: empty.');
  assert.equal(squareWords(start, 8, 'z9'), 'z9 is not a square of this board (a1 to h8).');
});

test("minichess7's fairy pieces by name, on its 7x7 board", () => {
  const mini = parsePlacement('rcakfbr/ppppppp/7/7/7/PPPPPPP/RCAKFBR w - - 0 1', 7);
  assert.equal(moveWords({ san: 'Cxd5+', color: 'white' }), 'White plays empress takes d5, check');
  assert.equal(moveWords({ san: 'Ae5', color: 'black' }), 'Black plays princess e5');
  assert.equal(moveWords({ san: 'Fe2', color: 'white' }), 'White plays ferz e2');
  assert.equal(pieceListWords(mini, roleOf('F')), 'White ferzes: e1. Black ferzes: e7.');
  assert.equal(pieceListWords(mini, roleOf('empresses')), 'White empresses: b1. Black empresses: b7.');
  const lines = boardWords(mini, 7);
  assert.equal(lines.length, 7);
  assert.equal(lines[0], 'Rank 7: black rook a7, black empress b7, black princess c7, black king d7, black ferz e7, black bishop f7, black rook g7.');
  assert.equal(squareWords(mini, 7, 'h8'), 'h8 is not a square of this board (a1 to g7).');
  assert.equal(squareWords(mini, 7, 'c1'), 'c1: white princess.');
});

test('clocks and times for the ear', () => {
  assert.equal(durationWords(298000), '4 minutes 58 seconds');
  assert.equal(durationWords(3723000), '1 hour 2 minutes 3 seconds');
  assert.equal(durationWords(60000), '1 minute');
  assert.equal(durationWords(9400), '9.4 seconds');
  assert.equal(clockWords({ white: 298000, black: 9400 }, 'black'), 'White: 4 minutes 58 seconds. Black: 9.4 seconds, running.');
  assert.equal(clockWords(null), 'This game has no clock.');
});

test('the move list, numbered, the last moves only', () => {
  assert.equal(moveListWords(START, []), 'No moves yet.');
  assert.equal(
    moveListWords(START, ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5']),
    '5 moves (moves 1 to 3): 1. White e4, Black e5, 2. White knight f3, Black knight c6, 3. White bishop b5.',
  );
  assert.equal(
    moveListWords(START, ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5'], 2),
    '5 moves, the last 2 (moves 2 to 3): 2. Black knight c6, 3. White bishop b5.',
  );
  assert.equal(endWords('0-1', 'resignation'), 'Game over: White resigned — Black wins.');
});

test('commands, and moves that look like them', () => {
  assert.deepEqual(parseCommand('b'), { command: 'board' });
  assert.deepEqual(parseCommand(' Board '), { command: 'board' });
  assert.deepEqual(parseCommand('p N'), { command: 'pieces', role: 'n' });
  assert.deepEqual(parseCommand('p knight'), { command: 'pieces', role: 'n' });
  assert.ok(parseCommand('p').error);
  assert.ok(parseCommand('p dragon').error);
  assert.deepEqual(parseCommand('s e4'), { command: 'square', square: 'e4' });
  assert.ok(parseCommand('s').error);
  for (const c of ['c', 'clock']) assert.deepEqual(parseCommand(c), { command: 'clock' });
  for (const l of ['l', 'moves']) assert.deepEqual(parseCommand(l), { command: 'moves' });
  for (const h of ['h', 'help']) assert.deepEqual(parseCommand(h), { command: 'help' });
  // Moves on the b and c files, and a bishop, are moves, not commands.
  for (const move of ['b4', 'c5', 'Bb5', 'bxc3', 'e2e4', 'O-O']) assert.deepEqual(parseCommand(move), { move }, move);
});
