// The player's notifications as rules the top bar's bell follows (notificationBar.js): the
// list `GET /api/notifications` gives and the event stream's `notification` events add to,
// newest first, merged without duplicates; the unread count; marking read; how an item reads
// (its text, when, where it leads). Pure, so Node's test runner checks it
// (tests/js/notifications.test.mjs).

import { escapeHtml } from './ui.js';

/** The most notifications kept (the server lists no more). */
export const NOTIFICATIONS_MAX = 50;

/** The kinds of notification there are, and how each reads to a screen reader. */
export const KIND_NAMES = {
  challenge: 'Challenge', friendGame: 'Friend’s game', corresMove: 'Your move', tournament: 'Tournament',
};

/**
 * `url` when it is a path on this site ("/g/abc"), else null: the page goes only where the
 * server means, never to another site nor to a `javascript:` address.
 */
export function safeUrl(url) {
  if (typeof url !== 'string' || !url.startsWith('/') || url.startsWith('//') || url.startsWith('/\\')) return null;
  return /[\s\\]/.test(url) ? null : url;
}

/** A notification as the server sends it, checked: `{id, kind, text, url, at, read}`, or null. */
export function parseNotification(n) {
  if (!n || !Number.isSafeInteger(n.id) || typeof n.text !== 'string') return null;
  return {
    id: n.id,
    kind: typeof n.kind === 'string' ? n.kind : 'other',
    text: n.text,
    url: safeUrl(n.url),
    at: Number.isFinite(n.at) ? n.at : 0,
    read: n.read === true,
  };
}

/** Newest first: by time, then by id (the server numbers them in order). */
function newestFirst(a, b) {
  return b.at - a.at || b.id - a.id;
}

/** The notifications the bell shows, and how many are unread (the server's count: it may exceed the list). */
export class NotificationList {
  constructor() {
    this.items = []; // newest first
    this.unread = 0;
  }

  /**
   * The server's answer to `GET /api/notifications`. A notification that came by the event
   * stream while the request was on its way, newer than everything the answer holds, stays
   * (and counts when unread): the answer was made before it.
   */
  load(data) {
    const listed = Array.isArray(data?.notifications) ? data.notifications.map(parseNotification).filter(Boolean) : [];
    const ids = new Set(listed.map((n) => n.id));
    const newest = listed.length ? Math.max(...listed.map((n) => n.id)) : -Infinity;
    const later = this.items.filter((n) => !ids.has(n.id) && n.id > newest);
    this.items = [...later, ...listed].sort(newestFirst).slice(0, NOTIFICATIONS_MAX);
    const counted = Number.isSafeInteger(data?.unread) && data.unread >= 0 ? data.unread : listed.filter((n) => !n.read).length;
    this.unread = counted + later.filter((n) => !n.read).length;
    return this;
  }

  /** A notification from the event stream: first in the list; true when it is new here. */
  add(raw) {
    const n = parseNotification(raw);
    if (!n) return false;
    const old = this.items.find((m) => m.id === n.id);
    if (old) {
      // Heard twice (the stream reopened): the count changes only if its state did.
      if (old.read !== n.read) this.unread = Math.max(0, this.unread + (n.read ? -1 : 1));
      Object.assign(old, n);
      this.items.sort(newestFirst);
      return false;
    }
    this.items.unshift(n);
    this.items.sort(newestFirst);
    this.items.length = Math.min(this.items.length, NOTIFICATIONS_MAX);
    if (!n.read) this.unread += 1;
    return true;
  }

  /** The notification `id`, or undefined. */
  get(id) {
    return this.items.find((n) => n.id === id);
  }

  /** Notifications `ids` are read (as sent to the server); returns the ids that were unread. */
  markRead(ids) {
    const marked = [];
    for (const id of ids) {
      const n = this.get(id);
      if (n && !n.read) {
        n.read = true;
        marked.push(id);
      }
    }
    this.unread = Math.max(0, this.unread - marked.length);
    return marked;
  }

  /** Every notification is read. */
  markAllRead() {
    for (const n of this.items) n.read = true;
    this.unread = 0;
  }

  /** The server's count after a change (`{"ok":true,"unread":N}`), when it sent one. */
  setUnread(count) {
    if (Number.isSafeInteger(count) && count >= 0) this.unread = count;
  }
}

/** How long ago `at` (ms since the epoch) was at `now`, as people say it: "just now", "5 min ago", "3 h ago", "2 days ago". */
export function relativeTime(at, now) {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (!Number.isFinite(seconds)) return '';
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days === 1) return 'yesterday';
  if (days < 30) return `${days} days ago`;
  const months = Math.round(days / 30.4);
  if (months < 12) return months === 1 ? 'a month ago' : `${months} months ago`;
  const years = Math.round(days / 365.25);
  return years <= 1 ? 'a year ago' : `${years} years ago`;
}

/** The bell's label for `unread` notifications. */
export function bellLabel(unread) {
  return unread > 0 ? `Notifications: ${unread} unread` : 'Notifications';
}

/** The badge's text: the count, "99+" past 99. */
export function countText(unread) {
  return unread > 99 ? '99+' : String(unread);
}

/**
 * One notification as a list item's HTML (`li.notification`, `unread` while unread): its text,
 * when it came (relative to `now`), and a link to where it leads when it leads somewhere, else
 * a button that marks it read. The server's text goes in escaped.
 */
export function notificationHtml(n, now) {
  const when = n.at ? new Date(n.at) : null;
  const time = when
    ? `<time class="notification-time" datetime="${escapeHtml(when.toISOString())}" title="${escapeHtml(when.toLocaleString())}">${escapeHtml(relativeTime(n.at, now))}</time>`
    : '';
  const body = `<span class="notification-text">${escapeHtml(n.text)}</span>${time}`;
  const state = n.read ? '' : '<span class="visually-hidden">Unread: </span>';
  const inner = n.url
    ? `<a class="notification-open" href="${escapeHtml(n.url)}">${state}${body}</a>`
    : `<button type="button" class="notification-open">${state}${body}</button>`;
  return `<li class="notification${n.read ? '' : ' unread'}" data-id="${n.id}" data-kind="${escapeHtml(n.kind)}">${inner}</li>`;
}
