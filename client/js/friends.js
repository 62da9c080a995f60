// The lobby's Friends panel as rules (friendsPanel.js draws it): the players one follows, from
// `GET /api/friends`, online ones first; what each is doing ("playing", "seeking", "online",
// "offline"); and each as a list item — their name linking to their page, a Watch link while
// they play, a Challenge button while they are online. Pure, so Node's test runner checks it
// (tests/js/friends.test.mjs).

import { escapeHtml } from './ui.js';

/** What the panel says when one follows nobody. */
export const FRIENDS_EMPTY = 'Follow players from their page to see them here.';

/** A friend as the server sends it, checked: `{name, bot, online, playing, seeking}`, or null. */
export function parseFriend(f) {
  if (!f || typeof f.name !== 'string' || !f.name) return null;
  return {
    name: f.name,
    bot: f.bot === true,
    online: f.online === true,
    playing: typeof f.playing === 'string' && f.playing ? f.playing : null,
    seeking: f.seeking === true,
  };
}

/** The friends of `GET /api/friends`'s answer, checked, online ones first (the server's order kept otherwise). */
export function parseFriends(data) {
  const friends = Array.isArray(data?.friends) ? data.friends.map(parseFriend).filter(Boolean) : [];
  // A stable sort: within each group the server's order (by name) stays.
  return friends.sort((a, b) => Number(b.online) - Number(a.online));
}

/** What friend `f` is doing, as the panel's status reads: `playing`, `seeking`, `online` or `offline`. */
export function friendStatus(f) {
  if (f.playing) return 'playing';
  if (f.seeking) return 'seeking';
  return f.online ? 'online' : 'offline';
}

/** The page of player `name` (as account.js's playerPath, which this pure module does not import). */
function playerHref(name) {
  return `/@/${encodeURIComponent(name)}`;
}

/**
 * Friend `f` as a list item's HTML: `li.friend` (`online` while online) with their name linking
 * to their page, their status, a Watch link to the game they play, and — while online — a
 * Challenge button. Their name goes in escaped.
 */
export function friendRow(f) {
  const status = friendStatus(f);
  const name = escapeHtml(f.name);
  const bot = f.bot ? ' <span class="bot-badge">BOT</span>' : '';
  const watch = f.playing
    ? `<a class="friend-watch" href="/g/${escapeHtml(encodeURIComponent(f.playing))}" aria-label="Watch ${name}’s game">Watch</a>`
    : '';
  const challenge = f.online
    ? `<button type="button" class="friend-challenge" data-name="${name}" aria-label="Challenge ${name}">Challenge</button>`
    : '';
  return `<li class="friend${f.online ? ' online' : ''}" data-name="${name}">
        <span class="friend-who"><span class="dot ${f.online ? 'on' : 'off'}" aria-hidden="true"></span><a class="friend-name" href="${escapeHtml(playerHref(f.name))}">${name}</a>${bot}</span>
        <span class="friend-status status-${status}">${status}</span>
        <span class="friend-actions">${watch}${challenge}</span>
      </li>`;
}

/** Every friend as list items' HTML ('' for none: the panel shows FRIENDS_EMPTY then). */
export function friendRows(friends) {
  return friends.map(friendRow).join('');
}
