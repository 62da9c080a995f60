// The lobby's Friends panel as rules (client/js/friends.js): the answer of `GET /api/friends`
// checked and ordered, what each friend is doing, and each as a list item — the name linking to
// their page, Watch while they play, Challenge while online, everything from the server
// escaped. Run with `node --test tests/js/`.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FRIENDS_EMPTY, friendRow, friendRows, friendStatus, parseFriend, parseFriends } from '../../client/js/friends.js';

/** A friend as the server sends one: Bob, online, idle. */
function friend(fields = {}) {
  return { name: 'Bob', bot: false, online: true, playing: null, seeking: false, ...fields };
}

/** The item's parts, read from its HTML with patterns (Node has no DOM). */
function parts(html) {
  return {
    li: /<li class="([^"]*)" data-name="([^"]*)">/.exec(html),
    status: /<span class="friend-status[^"]*">([^<]*)<\/span>/.exec(html)?.[1],
    name: /<a class="friend-name" href="([^"]*)">([^<]*)<\/a>/.exec(html),
    watch: /<a class="friend-watch" href="([^"]*)"[^>]*>Watch<\/a>/.exec(html)?.[1] ?? null,
    challenge: /<button type="button" class="friend-challenge" data-name="([^"]*)"[^>]*>Challenge<\/button>/.exec(html)?.[1] ?? null,
  };
}

test('a friend is checked: a name or nothing, the rest of the fields defaulted', () => {
  assert.deepEqual(parseFriend(friend()), friend());
  assert.equal(parseFriend(null), null);
  assert.equal(parseFriend({ name: '' }), null);
  assert.equal(parseFriend({ name: 7 }), null);
  assert.deepEqual(parseFriend({ name: 'Ann', online: 'yes', playing: '', seeking: 1, bot: 'no' }),
    { name: 'Ann', bot: false, online: false, playing: null, seeking: false });
});

test('online friends first, the server order (by name) kept within each group', () => {
  const data = { friends: [
    friend({ name: 'Ann', online: false }), friend({ name: 'bob' }), friend({ name: 'Cid', online: false }), { junk: true }, friend({ name: 'Dee' }),
  ] };
  assert.deepEqual(parseFriends(data).map((f) => f.name), ['bob', 'Dee', 'Ann', 'Cid']);
  assert.deepEqual(parseFriends(null), []);
  assert.deepEqual(parseFriends({ friends: 'no' }), []);
});

test('the status: playing, then seeking, then online or offline', () => {
  assert.equal(friendStatus(parseFriend(friend({ playing: 'abc123', seeking: true }))), 'playing');
  assert.equal(friendStatus(parseFriend(friend({ seeking: true }))), 'seeking');
  assert.equal(friendStatus(parseFriend(friend())), 'online');
  assert.equal(friendStatus(parseFriend(friend({ online: false }))), 'offline');
});

test('an online friend at play: Watch leads to the game, Challenge is offered', () => {
  const p = parts(friendRow(parseFriend(friend({ playing: 'k3fq9mzt' }))));
  assert.equal(p.li[1], 'friend online');
  assert.equal(p.li[2], 'Bob');
  assert.equal(p.status, 'playing');
  assert.deepEqual([p.name[1], p.name[2]], ['/@/Bob', 'Bob']);
  assert.equal(p.watch, '/g/k3fq9mzt');
  assert.equal(p.challenge, 'Bob');
});

test('a friend seeking or idle online: no Watch, Challenge offered', () => {
  for (const [fields, status] of [[{ seeking: true }, 'seeking'], [{}, 'online']]) {
    const p = parts(friendRow(parseFriend(friend(fields))));
    assert.equal(p.status, status);
    assert.equal(p.watch, null);
    assert.equal(p.challenge, 'Bob');
  }
});

test('an offline friend: greyed (no online class), neither Watch nor Challenge', () => {
  const p = parts(friendRow(parseFriend(friend({ online: false }))));
  assert.equal(p.li[1], 'friend');
  assert.equal(p.status, 'offline');
  assert.equal(p.watch, null);
  assert.equal(p.challenge, null);
});

test('a bot friend carries the BOT mark', () => {
  assert.match(friendRow(parseFriend(friend({ bot: true }))), /<span class="bot-badge">BOT<\/span>/);
  assert.doesNotMatch(friendRow(parseFriend(friend())), /bot-badge/);
});

test('names and game ids from the server go in escaped', () => {
  const html = friendRow({ name: 'x"><img src=x onerror=alert(1)>', bot: false, online: true, playing: 'a"b', seeking: false });
  assert.doesNotMatch(html, /<img/);
  assert.doesNotMatch(html, /data-name="x">/);
  assert.match(html, /href="\/g\/a%22b"/);
  assert.match(html, /href="\/@\/x%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert\(1\)%3E"/);
});

test('the rows in order; none at all for nobody (the panel says FRIENDS_EMPTY then)', () => {
  const html = friendRows(parseFriends({ friends: [friend({ name: 'Zed', online: false }), friend({ name: 'Amy' })] }));
  assert.deepEqual([...html.matchAll(/data-name="([^"]*)">\n/g)].map((m) => m[1]), ['Amy', 'Zed']);
  assert.equal(friendRows([]), '');
  assert.equal(FRIENDS_EMPTY, 'Follow players from their page to see them here.');
});
