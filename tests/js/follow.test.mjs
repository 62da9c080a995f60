// The web client's game follower (client/js/follow.js) against the shared cases of
// tests/data/protocol/follow.json, which the Rust follower (protocol::GameState::apply) is
// checked against too: both must give the same outcome for every event and end in the same model.
// Run with `node --test tests/js/` (cargo test runs it through tests/chess/js_follow.rs).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { follow, modelFromState } from '../../client/js/follow.js';
import { parsePlacement } from '../../client/js/chess.js';

const { cases } = JSON.parse(readFileSync(new URL('../data/protocol/follow.json', import.meta.url), 'utf8'));
const FIELDS = ['v', 'moves', 'san', 'fen', 'turn', 'status', 'result', 'reason', 'offer', 'awaiting', 'match', 'next', 'opening'];

test('the data file holds the cases', () => {
  assert.ok(cases.length >= 12, `${cases.length} cases`);
  for (const c of cases) {
    assert.equal(c.outcomes.length, c.events.length, `${c.name}: one outcome per event`);
    assert.deepEqual(Object.keys(c.expect).sort(), [...FIELDS].sort(), `${c.name}: the expected fields`);
  }
});

for (const c of cases) {
  test(c.name, () => {
    let model = c.state ? modelFromState(c.state) : null;
    c.events.forEach((event, i) => {
      const step = follow(model, event);
      model = step.model;
      assert.equal(step.outcome, c.outcomes[i], `event ${i} (${event.type} v${event.v})`);
    });
    assert.ok(model, 'a model at the end');
    for (const field of FIELDS) assert.deepEqual(model[field], c.expect[field], field);
    // The page's per-ply placements: one more than the moves, the last one the live FEN's.
    assert.equal(model.boards.length, model.moves.length + 1);
    assert.deepEqual(model.boards[model.boards.length - 1], parsePlacement(model.fen, model.size));
  });
}
