// Display names in the web client: the check the name dialog makes before anything is sent
// (client/js/names.js, the server's rule for `name` in `create` and `join`), and how seats read
// on the board's player bars and in the lobby's list (seatName, gameRow) — names as text, never
// as markup.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { gameRow } from '../../client/js/lobby.js';
import { checkName, isNameRefusal, NAME_MAX } from '../../client/js/names.js';
import { escapeHtml, seatName } from '../../client/js/ui.js';

test('names the server takes, trimmed', () => {
  for (const [text, name] of [
    ['Alice', 'Alice'],
    ['  Bob \t', 'Bob'],
    ['\u00a0Carol\u00a0', 'Carol'],
    ['Jean-Luc Picard', 'Jean-Luc Picard'],
    ['dr.no_007', 'dr.no_007'],
    ['x', 'x'],
    ['Zoë Ñandú', 'Zoë Ñandú'],
    ['李小龙', '李小龙'],
    ['Ёлка', 'Ёлка'],
    ['أحمد ١٢٣', 'أحمد ١٢٣'],
    ['सीता', 'सीता'], // vowel signs are Alphabetic, as for Rust's is_alphanumeric
    ['Zoe\u0308', 'Zoë'], // a combining accent is composed with its letter
    ['a'.repeat(NAME_MAX), 'a'.repeat(NAME_MAX)],
    ['𝒜'.repeat(NAME_MAX), '𝒜'.repeat(NAME_MAX)], // characters, not UTF-16 units, are counted
  ]) {
    assert.deepEqual(checkName(text), { name }, JSON.stringify(text));
  }
});

test('names the server refuses, with what is wrong', () => {
  assert.match(checkName('').error, /at least one character/);
  assert.match(checkName('   ').error, /at least one character/);
  assert.match(checkName(null).error, /at least one character/);
  assert.equal(checkName('a'.repeat(NAME_MAX + 1)).error, `A name has at most ${NAME_MAX} characters; this one has ${NAME_MAX + 1}.`);
  assert.match(checkName(' '.repeat(3) + 'b'.repeat(30)).error, /this one has 30\./);
  assert.equal(checkName('<b>x</b>').error, '“<” cannot be in a name: use letters, digits, spaces, “_”, “-” and “.”');
  for (const bad of ['a@b', 'semi;colon', 'quote"', "it's", 'emoji 😀', 'slash/', 'new\nline', 'tab\there']) {
    assert.ok(checkName(bad).error, JSON.stringify(bad));
  }
  // As on the server: combining marks belong to the letter before them, up to three in a row.
  assert.deepEqual(checkName('नमस्ते'), { name: 'नमस्ते' });
  assert.deepEqual(checkName('Zoe\u0301'), { name: 'Zoé' });
  assert.match(checkName('\u0301x').error, /cannot be in a name/);
  assert.match(checkName('x\u0300\u0301\u0302\u0303').error, /cannot be in a name/);
  assert.deepEqual(checkName('x\u0300\u0301\u0302'), { name: 'x\u0300\u0301\u0302' });
  // Characters that cannot be seen are named by their code point.
  assert.match(checkName('tab\there').error, /^U\+0009 cannot be in a name/);
  assert.match(checkName('zero\u200bwidth').error, /^U\+200B cannot be in a name/);
  // A bad character is reported before the length, as the server does.
  assert.match(checkName('!'.repeat(40)).error, /^“!” cannot be/);
});

test('the server refusing a name is told apart from other refusals', () => {
  // The server's words for each of its refusals (protocol::NameError).
  for (const message of [
    "bad message: '<' cannot be in a name: use letters, digits, spaces, '_', '-' and '.'",
    'bad message: a name needs at least one character besides spaces',
    'bad message: a name has at most 24 characters; this one has 30',
  ]) {
    assert.ok(isNameRefusal({ type: 'error', code: 'bad_request', message, id: 3 }), message);
  }
  assert.ok(!isNameRefusal({ type: 'error', code: 'bad_request', message: 'bad FEN: no white king', id: 3 }));
  assert.ok(!isNameRefusal({ type: 'error', code: 'seat_taken', message: 'that seat is taken', id: 3 }));
  assert.ok(!isNameRefusal(undefined));
});

test('seatName: the name of a taken seat, else what the seat is', () => {
  assert.equal(seatName({ kind: 'human', online: true, name: 'Alice' }), 'Alice');
  assert.equal(seatName({ kind: 'human', online: false, name: 'Anonymous' }), 'Anonymous');
  assert.equal(seatName({ kind: 'bot', level: 3, name: 'Level 3' }), 'Level 3');
  assert.equal(seatName({ kind: 'bot', level: 6, name: 'Level 6', rating: 1500, label: 'Level 6 · ~1500' }), 'Level 6 · ~1500');
  assert.equal(seatName({ kind: 'open' }), 'Open seat');
  // From a server that sends no names.
  assert.equal(seatName({ kind: 'human', online: true }), 'Player');
  assert.equal(seatName({ kind: 'bot', level: 5 }), 'Level 5');
  assert.equal(seatName({ kind: 'human', online: true, name: '' }), 'Player');
  assert.equal(seatName(null), '?');
  // A name is text: seatName hands it over as it is, and escaping makes it inert markup.
  const markup = { kind: 'human', online: true, name: '<b>x</b>' };
  assert.equal(seatName(markup), '<b>x</b>');
  assert.equal(escapeHtml(seatName(markup)), '&lt;b&gt;x&lt;/b&gt;');
});

test('the lobby lists games with their players’ names as text', () => {
  const row = gameRow({
    game: 'k3fq9mzt', variant: 'standard', status: 'ongoing', plies: 3, watchers: 1, clock: null,
    white: { kind: 'human', online: true, name: 'Alice', account: true },
    black: { kind: 'human', online: true, name: '<b>x</b>"&' },
  });
  // An account's name as it is; a name chosen without one marked "guest".
  assert.match(row, /<span class="name">Alice<\/span> <span class="vs">vs<\/span>/);
  assert.match(row, /<span class="name">&lt;b&gt;x&lt;\/b&gt;&quot;&amp;<\/span><span class="guest" title="a name chosen without an account">guest<\/span>/);
  assert.match(row, /aria-label="Standard, untimed: Alice against &lt;b&gt;x&lt;\/b&gt;&quot;&amp;, playing, 2 moves, 1 watching"/);
  assert.ok(!row.includes('<b>'), row);
  const bot = gameRow({ game: 'abcdefgh', variant: 'minichess7', status: 'waiting', plies: 0, watchers: 0, clock: null, white: { kind: 'bot', level: 2, name: 'Level 2' }, black: { kind: 'open' } });
  assert.match(bot, /Level 2<\/span> <span class="vs">vs<\/span> <span class="swatch black" aria-hidden="true"><\/span><span class="name">Open seat</);
  const anonymous = gameRow({ game: 'abcdefgh', variant: 'standard', status: 'waiting', plies: 0, watchers: 0, clock: null, white: { kind: 'human', online: true, name: 'Anonymous' }, black: { kind: 'open' } });
  assert.ok(!anonymous.includes('guest'), 'Anonymous says it already');
});

test('the player bars link an account’s name to its page and mark a chosen one as a guest’s', async () => {
  const { nameHtml } = await import('../../client/js/game/players.js');
  assert.equal(
    nameHtml({ kind: 'human', online: true, name: 'Al<i', account: true }, ' (you)'),
    '<a class="name account" href="/@/Al%3Ci" title="a registered player">Al&lt;i (you)</a>',
  );
  assert.equal(
    nameHtml({ kind: 'human', online: true, name: 'Bo' }),
    '<span class="name">Bo</span><span class="guest" title="a name chosen without an account">guest</span>',
  );
  assert.equal(nameHtml({ kind: 'human', online: true, name: 'Anonymous' }), '<span class="name">Anonymous</span>');
  assert.equal(nameHtml({ kind: 'bot', level: 3, name: 'Level 3', label: 'Level 3 · ~500' }), '<span class="name">Level 3 · ~500</span>');
});
