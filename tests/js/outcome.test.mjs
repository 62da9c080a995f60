// The web client's wording of every ending against the shared table (the Rust side checks
// chess::Outcome::headline against the same file in tests/chess/protocol_follow.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { headline } from '../../client/js/outcome.js';

const table = JSON.parse(readFileSync(new URL('../data/protocol/outcomes.json', import.meta.url), 'utf8'));

test('every ending is worded as the server words it', () => {
  assert.ok(table.cases.length >= 40);
  for (const { result, reason, text } of table.cases) {
    assert.equal(headline(result, reason), text, `${result} ${reason}`);
  }
});
