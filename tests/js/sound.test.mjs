// Which sound a move makes (client/js/game/sounds.js), the volume's gain (client/js/sound.js),
// and what the notifications button says (client/js/prefsMenu.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { moveSound } from '../../client/js/game/sounds.js';
import { gainFor } from '../../client/js/sound.js';
import { notifyState } from '../../client/js/prefsMenu.js';

test('a move sounds as what it is: check first, then castle, capture, or a plain move', () => {
  assert.equal(moveSound('e4', false), 'move');
  assert.equal(moveSound('Nxe5', false), 'capture');
  assert.equal(moveSound('O-O', false), 'castle');
  assert.equal(moveSound('O-O-O', false), 'castle');
  assert.equal(moveSound('Qxf7#', true), 'check');
  assert.equal(moveSound('Bb5+', false), 'check');
  assert.equal(moveSound('e8=Q', false), 'move');
});

test('volume to gain: squared, and nothing when muted', () => {
  assert.equal(gainFor(1, false), 1);
  assert.equal(gainFor(0.5, false), 0.25);
  assert.equal(gainFor(1, true), 0);
  assert.equal(gainFor(2, false), 1);
});

test('the notifications button follows the permission and the setting', () => {
  assert.equal(notifyState('unsupported', true).disabled, true);
  assert.equal(notifyState('denied', true).disabled, true);
  assert.equal(notifyState('granted', true).pressed, true);
  assert.equal(notifyState('granted', false).pressed, false);
  assert.deepEqual({ ...notifyState('default', false), hint: '' }, { pressed: false, disabled: false, hint: '' });
});
