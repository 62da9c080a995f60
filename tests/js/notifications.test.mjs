// The top bar's notifications as rules (client/js/notifications.js): the list and its unread
// count as `GET /api/notifications` loads it and the event stream's `notification` events add
// to it, merged without duplicates, newest first; marking read; how an item reads (relative
// time, where it leads, escaped). Run with `node --test tests/js/`.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  bellLabel, countText, NOTIFICATIONS_MAX, NotificationList, notificationHtml, parseNotification, relativeTime, safeUrl,
} from '../../client/js/notifications.js';

const T0 = 1764412345678;

/** A notification as the server sends one: number `id`, `id` seconds after T0, unread. */
function note(id, fields = {}) {
  return { id, kind: 'challenge', text: `Note ${id}`, url: `/g/game${id}`, at: T0 + id * 1000, read: false, ...fields };
}

test('a notification is checked: an integer id and a text, or nothing', () => {
  assert.deepEqual(parseNotification(note(12)), note(12));
  assert.equal(parseNotification(null), null);
  assert.equal(parseNotification({ id: '12', text: 'x' }), null);
  assert.equal(parseNotification({ id: 1.5, text: 'x' }), null);
  assert.equal(parseNotification({ id: 1 }), null);
  assert.deepEqual(parseNotification({ id: 3, text: 'x' }), { id: 3, kind: 'other', text: 'x', url: null, at: 0, read: false });
});

test('only a path on this site is followed', () => {
  assert.equal(safeUrl('/g/abc'), '/g/abc');
  assert.equal(safeUrl('/@/Bob?x=1#y'), '/@/Bob?x=1#y');
  for (const bad of [null, undefined, '', 'g/abc', '//evil.example', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', '/ evil', 7]) {
    assert.equal(safeUrl(bad), null, String(bad));
  }
  assert.equal(parseNotification(note(1, { url: 'javascript:alert(1)' })).url, null);
});

test('loaded: newest first, the server\'s unread count (which may exceed the list)', () => {
  const list = new NotificationList().load({ unread: 60, notifications: [note(1), note(3, { read: true }), note(2), { bad: true }] });
  assert.deepEqual(list.items.map((n) => n.id), [3, 2, 1]);
  assert.equal(list.unread, 60);
  // Without a count, the unread ones listed.
  assert.equal(new NotificationList().load({ notifications: [note(1), note(2, { read: true })] }).unread, 1);
  assert.equal(new NotificationList().load(null).items.length, 0);
});

test('a notification from the stream goes first and counts; heard again, it is not doubled', () => {
  const list = new NotificationList().load({ unread: 1, notifications: [note(1)] });
  assert.equal(list.add(note(2)), true);
  assert.deepEqual(list.items.map((n) => n.id), [2, 1]);
  assert.equal(list.unread, 2);
  assert.equal(list.add(note(2)), false);
  assert.equal(list.unread, 2);
  // Heard again as read (marked in another tab): the count follows.
  assert.equal(list.add(note(2, { read: true })), false);
  assert.equal(list.unread, 1);
  assert.equal(list.add({ id: 'x' }), false);
  assert.equal(list.items.length, 2);
  // A read one adds without counting.
  list.add(note(3, { read: true }));
  assert.equal(list.unread, 1);
});

test('at most NOTIFICATIONS_MAX kept, the oldest dropped', () => {
  const list = new NotificationList().load({ unread: NOTIFICATIONS_MAX, notifications: Array.from({ length: NOTIFICATIONS_MAX }, (_, i) => note(i + 1)) });
  list.add(note(NOTIFICATIONS_MAX + 1));
  assert.equal(list.items.length, NOTIFICATIONS_MAX);
  assert.equal(list.items[0].id, NOTIFICATIONS_MAX + 1);
  assert.equal(list.items.at(-1).id, 2);
  assert.equal(list.unread, NOTIFICATIONS_MAX + 1);
});

test('a load keeps what the stream brought after the answer was made, and drops nothing twice', () => {
  const list = new NotificationList();
  list.add(note(5)); // arrived while the request was on its way
  list.add(note(2)); // older than the answer's newest: the answer is the truth for it
  list.load({ unread: 2, notifications: [note(4), note(3), note(1, { read: true })] });
  assert.deepEqual(list.items.map((n) => n.id), [5, 4, 3, 1]);
  assert.equal(list.unread, 3);
  // Loaded again with it in the answer: once, and counted once.
  list.load({ unread: 3, notifications: [note(5), note(4), note(3), note(1, { read: true })] });
  assert.deepEqual(list.items.map((n) => n.id), [5, 4, 3, 1]);
  assert.equal(list.unread, 3);
});

test('marking read: only unread ones count down; all at once; the server has the last word', () => {
  const list = new NotificationList().load({ unread: 3, notifications: [note(3), note(2), note(1, { read: true })] });
  assert.deepEqual(list.markRead([3, 1, 99]), [3]);
  assert.equal(list.get(3).read, true);
  assert.equal(list.unread, 2);
  assert.deepEqual(list.markRead([3]), []);
  assert.equal(list.unread, 2);
  list.setUnread(7);
  assert.equal(list.unread, 7);
  list.setUnread(undefined);
  list.setUnread(-1);
  assert.equal(list.unread, 7);
  list.markAllRead();
  assert.equal(list.unread, 0);
  assert.ok(list.items.every((n) => n.read));
});

test('relative times as people say them', () => {
  const now = T0;
  assert.equal(relativeTime(now, now), 'just now');
  assert.equal(relativeTime(now + 5000, now), 'just now', 'a clock a little ahead');
  assert.equal(relativeTime(now - 30e3, now), 'just now');
  assert.equal(relativeTime(now - 5 * 60e3, now), '5 min ago');
  assert.equal(relativeTime(now - 3 * 3600e3, now), '3 h ago');
  assert.equal(relativeTime(now - 30 * 3600e3, now), 'yesterday');
  assert.equal(relativeTime(now - 4 * 86400e3, now), '4 days ago');
  assert.equal(relativeTime(now - 40 * 86400e3, now), 'a month ago');
  assert.equal(relativeTime(now - 100 * 86400e3, now), '3 months ago');
  assert.equal(relativeTime(now - 800 * 86400e3, now), '2 years ago');
});

test('the bell: its label and badge', () => {
  assert.equal(bellLabel(0), 'Notifications');
  assert.equal(bellLabel(2), 'Notifications: 2 unread');
  assert.equal(countText(2), '2');
  assert.equal(countText(100), '99+');
});

test('an item: unread marked, its text and time, a link where it leads, else a button; escaped', () => {
  const unread = notificationHtml(parseNotification(note(12, { text: 'Alice challenges you: 5+3 rated blitz', url: '/g/abc', at: T0 - 120e3 })), T0);
  assert.match(unread, /^<li class="notification unread" data-id="12" data-kind="challenge">/);
  assert.match(unread, /<a class="notification-open" href="\/g\/abc">/);
  assert.match(unread, /<span class="notification-text">Alice challenges you: 5\+3 rated blitz<\/span>/);
  assert.match(unread, /<time class="notification-time" datetime="[^"]+"[^>]*>2 min ago<\/time>/);
  const read = notificationHtml(parseNotification(note(13, { url: null, read: true })), T0);
  assert.match(read, /^<li class="notification" data-id="13"/);
  assert.match(read, /<button type="button" class="notification-open">/);
  assert.doesNotMatch(read, /href=/);
  const evil = notificationHtml(parseNotification(note(14, { text: '<img src=x onerror=alert(1)>', kind: '"><b>' })), T0);
  assert.doesNotMatch(evil, /<img|<b>/);
});
