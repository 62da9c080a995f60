// The logged-in player's event stream, one per page: `GET /api/stream/event?notifications=true`
// (lichess's ndjson of challenges to and from them, and their games starting and finishing;
// with gambit's `notification` events for the top bar's bell, notificationBar.js), read with `fetch`
// as it arrives and opened again with a growing delay whenever it ends or fails. The top bar's
// challenge panel and the challenge forms listen here (`onEvent`), and each hears a
// `{type: 'streamOpen'}` of its own each time the stream (re)opens, to fetch what it missed.
//
// One tab of the browser holds the stream and passes each event on to the others over a
// BroadcastChannel (the tab holding a Web Lock leads; when it closes, another takes over): a
// stream holds one of the six connections a browser opens to a server over HTTP/1.1, and a
// player with many tabs open must not starve the pages of the rest.
//
// A game the page is waiting for — a challenge it sent, or one it accepted — is opened here when
// its `gameStart` arrives (`expectGame`). The stream also repeats `gameStart` for every game
// already in progress each time it opens; those are not followed (see challenges.js, shouldOpenGame).

import { shouldOpenGame } from './challenges.js';
import { backoffMs, parseLine, splitLines } from './ndjson.js';
import { arrivalSound } from './sound.js';

/** With nothing at all for this long (the server sends an empty line every ~6 s), the stream is dead. */
const SILENCE_MS = 20000;

const listeners = new Set();
const expected = new Set(); // lower-cased names of the opponents whose new game this page opens
const seen = new Set(); // the game ids this page has heard `gameStart` for
let stream = null;
/** The browser's other tabs of this site, where the leading tab passes its events on. */
let channel = null;
let leading = false;
const CHANNEL = 'gambit-events';
const LOCK = 'gambit-event-stream';

/**
 * Calls `handler(event, {here})` for every event — `here` true in the tab that read it from the
 * stream itself, false in the others it was passed on to (so that one tab, not each, plays a
 * sound); returns the function that stops it.
 */
export function onEvent(handler) {
  listeners.add(handler);
  return () => listeners.delete(handler);
}

/** The next new game against `opponent` (a username) takes this page to it. */
export function expectGame(opponent) {
  if (typeof opponent === 'string' && opponent) expected.add(opponent.toLowerCase());
}

/** No longer waiting for a game against `opponent` (the challenge was declined or withdrawn). */
export function forgetGame(opponent) {
  if (typeof opponent === 'string') expected.delete(opponent.toLowerCase());
}

/** Goes to the game page of `id`. */
export function openGame(id) {
  arrivalSound(id); // a challenge was accepted: the game page greets it with a sound
  location.assign(`/g/${encodeURIComponent(id)}`);
}

/** An event read from the stream here: heard by this page and passed on to the other tabs. */
function received(event) {
  dispatch(event, true);
  if (channel) channel.postMessage(event);
}

function dispatch(event, here) {
  if (event.type === 'gameStart') {
    const open = shouldOpenGame(event.game, expected, seen);
    if (event.game && typeof event.game.id === 'string') seen.add(event.game.id);
    if (open) {
      expected.clear();
      openGame(event.game.id);
    }
  }
  for (const handler of [...listeners]) {
    try {
      handler(event, { here });
    } catch (e) {
      console.error('event handler failed', e); // one listener's bug does not silence the others
    }
  }
}

/** The stream itself: reading, and reconnecting with back-off. */
class EventStream {
  constructor() {
    this.attempt = 0;
    this.controller = null;
    this.timer = null;
    this.watchdog = null;
    this.stopped = false;
    window.addEventListener('online', () => {
      if (!this.controller && !this.stopped) this.open();
    });
  }

  async open() {
    clearTimeout(this.timer);
    this.timer = null;
    const controller = new AbortController();
    this.controller = controller;
    let retryAfter = 0;
    try {
      const response = await fetch('/api/stream/event?notifications=true', {
        credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/x-ndjson' }, signal: controller.signal,
      });
      if (response.status === 401) {
        this.stopped = true; // logged out meanwhile: nothing to follow
        this.release?.(); // another tab, logged in afresh, may lead
        return;
      }
      if (!response.ok || !response.body) {
        retryAfter = Number(response.headers.get('Retry-After')) * 1000 || 0;
        throw new Error(`status ${response.status}`);
      }
      this.attempt = 0;
      this.alive();
      received({ type: 'streamOpen' });
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let rest = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.alive();
        const split = splitLines(rest, decoder.decode(value, { stream: true }));
        rest = split.rest;
        for (const line of split.lines) {
          const event = parseLine(line);
          if (event) received(event);
        }
      }
    } catch {
      // Failed or cut: tried again below.
    } finally {
      clearTimeout(this.watchdog);
      if (this.controller === controller) this.controller = null;
    }
    if (this.stopped) return;
    const wait = Math.max(retryAfter, backoffMs(this.attempt));
    this.attempt += 1;
    this.timer = setTimeout(() => this.open(), wait);
  }

  /** Something arrived: the stream is alive for another SILENCE_MS. */
  alive() {
    clearTimeout(this.watchdog);
    const controller = this.controller;
    this.watchdog = setTimeout(() => controller?.abort(), SILENCE_MS);
  }
}

/** Follows the player's events (once per page); call it only when logged in. */
export function startEvents() {
  if (stream) return;
  stream = new EventStream();
  if (typeof BroadcastChannel !== 'function' || !navigator.locks) {
    stream.open(); // no way to share: a stream of this page's own
    return;
  }
  channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (message) => {
    if (!leading && message.data && typeof message.data.type === 'string') dispatch(message.data, false);
  };
  // Until this tab leads, another does: what came before this page opened is fetched afresh.
  dispatch({ type: 'streamOpen' }, false);
  document.documentElement.dataset.events = 'following';
  navigator.locks.request(LOCK, () => new Promise((release) => {
    leading = true;
    document.documentElement.dataset.events = 'leading';
    stream.release = () => {
      leading = false;
      document.documentElement.dataset.events = 'following';
      release();
    };
    stream.open();
  }));
}
