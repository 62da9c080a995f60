// What people do around a game rather than on its board, as rules the page follows: which chat
// rooms a person reads and writes in, the check a chat line passes before it is sent (the
// server's rule, protocol::ChatText), and how a match's running score reads. Pure, so Node's
// test runner checks it (tests/js/social.test.mjs).

/** The longest chat line, in characters (code points, as the server counts them). */
export const CHAT_MAX = 280;

/** The two chat rooms of a game, in the order the page lists them. */
export const ROOMS = ['players', 'spectators'];

/** How the rooms read for people. */
export const ROOM_NAMES = { players: 'Players', spectators: 'Spectators' };

/** The score of a match before any game of it counts. */
export const NO_MATCH = Object.freeze({ white: 0, black: 0, games: 0 });

/**
 * The chat rooms a person reads, which are also the ones they may write in: a player, the
 * players' room — and the spectators' once the game is over; anyone else, the spectators' room.
 */
export function chatRooms(player, over) {
  if (!player) return ['spectators'];
  return over ? ['players', 'spectators'] : ['players'];
}

// Control characters (Rust's `char::is_control`: the Cc category) and the ones that change the
// direction of the text after them: the server refuses a line holding any.
const BAD_CHAT_CHAR = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/u;

/** `text` as a chat line: `{text}` (trimmed) when the server would take it, else `{error}`. */
export function checkChat(text) {
  const line = String(text ?? '').trim();
  if (!line) return { error: 'Write something first.' };
  const bad = BAD_CHAT_CHAR.exec(line);
  if (bad) return { error: `U+${bad[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')} cannot be in a chat line.` };
  const length = [...line].length;
  if (length > CHAT_MAX) return { error: `A chat line has at most ${CHAT_MAX} characters; this one has ${length}.` };
  return { text: line };
}

/**
 * The fields of a `chat` message the page shows, or null when it is not a usable line. The
 * text stays text: whoever draws it sets it as `textContent`.
 */
export function chatLine(msg) {
  if (!msg || !ROOMS.includes(msg.room) || typeof msg.text !== 'string') return null;
  const from = typeof msg.from === 'string' && msg.from ? msg.from : 'Anonymous';
  const at = Number.isFinite(msg.at) ? msg.at : 0;
  const line = { room: msg.room, from, text: msg.text, at, key: `${msg.room}\n${at}\n${from}\n${msg.text}` };
  // The server's own line (an engine seat failing): shown apart.
  if (msg.system === true) line.system = true;
  return line;
}

/** Points as people write them: 2, "½", "2½" (a match counts in halves). */
export function formatPoints(points) {
  const halves = Math.round(Number(points) * 2);
  if (!Number.isFinite(halves) || halves < 0) return '?';
  const whole = Math.floor(halves / 2);
  if (halves % 2 === 0) return String(whole);
  return whole === 0 ? '½' : `${whole}½`;
}

/** A match's score, White's points first: "2½ – 1½". */
export function scoreText(match) {
  return `${formatPoints(match?.white ?? 0)} – ${formatPoints(match?.black ?? 0)}`;
}

/** The match line of the game page, e.g. "Alice 1 – 0 Bob" (White's name first); null before any game counts. */
export function matchLine(match, whiteName, blackName) {
  if (!match || !(match.games >= 1)) return null;
  return `${whiteName} ${scoreText(match)} ${blackName}`;
}
