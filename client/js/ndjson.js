// Reading an ndjson stream (one JSON object per line, as lichess's `/api/stream/event` sends)
// as its chunks arrive: chunks split lines anywhere, and an empty line is the server saying it
// is still there. Pure, so Node's test runner checks it (tests/js/challenges.test.mjs).

/** The longest unfinished line kept between chunks; past it the line is dropped (not ours). */
export const LINE_MAX = 1 << 20;

/**
 * The whole lines of `rest + chunk` and what is left of an unfinished last line:
 * `{lines, rest}`. Lines lose a trailing "\r"; keep-alive lines come back as "".
 */
export function splitLines(rest, chunk) {
  const parts = `${rest}${chunk}`.split('\n');
  let tail = parts.pop();
  if (tail.length > LINE_MAX) tail = '';
  return { lines: parts.map((line) => line.replace(/\r$/, '')), rest: tail };
}

/** One line as an event object, or null for a keep-alive, a malformed line or anything but an object. */
export function parseLine(line) {
  const text = String(line ?? '').trim();
  if (!text) return null;
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return value && typeof value === 'object' && !Array.isArray(value) && typeof value.type === 'string' ? value : null;
}

/** The wait before reconnecting after `attempt` failures in a row: 1 s doubling to 30 s, ±20 % (`random` in [0, 1)). */
export function backoffMs(attempt, random = Math.random) {
  const n = Math.max(0, Math.min(Number.isInteger(attempt) ? attempt : 0, 10));
  const base = Math.min(30000, 1000 * 2 ** n);
  return Math.round(base * (0.8 + random() * 0.4));
}
