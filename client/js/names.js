// Display names: the rule the server applies to the `name` of `create` and `join`
// (protocol::PlayerName), checked here first so a person learns what is wrong while the dialog
// is still open. The server stays the authority: it refuses a bad name with `bad_request`, and
// the page then shows the server's words. Pure, so Node's test runner checks it (tests/js).

/** The longest name, in characters (code points, as the server counts them). */
export const NAME_MAX = 24;

// A letter or digit of any script — Rust's `char::is_alphanumeric` is Unicode's Alphabetic or
// Numeric property, which these two classes name — or a space, `_`, `-` or `.`; and up to
// MARKS_MAX combining marks after a letter or digit (scripts such as Devanagari need them).
const LETTER = /^[\p{Alphabetic}\p{N}]$/u;
const MARK = /^[\p{Mn}\p{Mc}]$/u;
const MARKS_MAX = 3;

/**
 * `text` as a name: `{name}` (trimmed, composed) when the server would take it, else `{error}` saying
 * what is wrong, in the order the server checks: a character it refuses, then the length.
 */
export function checkName(text) {
  // Composed (NFC), so an accent typed as a separate combining mark counts as part of its letter.
  const name = String(text ?? '').normalize('NFC').trim();
  const chars = [...name];
  let marks = 0;
  let afterLetter = false;
  const bad = chars.find((c) => {
    if (MARK.test(c)) {
      marks += 1;
      return !afterLetter || marks > MARKS_MAX;
    }
    marks = 0;
    afterLetter = LETTER.test(c);
    return !(afterLetter || ' _.-'.includes(c));
  });
  if (bad !== undefined) return { error: `${shown(bad)} cannot be in a name: use letters, digits, spaces, “_”, “-” and “.”` };
  if (chars.length === 0) return { error: 'A name needs at least one character besides spaces.' };
  if (chars.length > NAME_MAX) return { error: `A name has at most ${NAME_MAX} characters; this one has ${chars.length}.` };
  return { name };
}

/** A refused character as people can see it: quoted, or by its code point when it is invisible. */
function shown(c) {
  if (/[\p{C}\p{Z}]/u.test(c)) return `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  return `“${c}”`;
}

/**
 * Whether `msg` is the server refusing the `name` of a `create` or `join`: a `bad_request`
 * whose words are about the name ("bad message: '<' cannot be in a name: …", "… a name has at
 * most 24 characters …").
 */
export function isNameRefusal(msg) {
  return msg?.type === 'error' && msg.code === 'bad_request' && /\bname\b/i.test(msg.message || '');
}
