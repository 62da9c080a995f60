// Starting a game, as the lobby and the board editor both do it: the seats of each kind of
// game, the `create` message (with the creator's display name when they take a seat), and the
// move to /g/{id} once the server answers `created` (or `joined`), with the seat token stored
// so the game page resumes the seat like any reload would.

import { nameForSeat } from './namebox.js';
import { loadName, saveSeat } from './store.js';

/** `white` or `black`, at random. */
export function randomColor() {
  const byte = new Uint8Array(1);
  crypto.getRandomValues(byte);
  return byte[0] % 2 ? 'white' : 'black';
}

/** A colour choice's value (`white`, `black` or `random`) as a side. */
export function chosenSide(value) {
  return value === 'random' ? randomColor() : value === 'black' ? 'black' : 'white';
}

/** The seats of a game against a friend, the creator on `side`. */
export function friendSeats(side, rated = false) {
  const seats = { white: { kind: 'human' }, black: { kind: 'human' }, as: side };
  if (rated) seats.rated = true;
  return seats;
}

/** A computer player's seat at `level`. */
export function botSeat(level) {
  return { kind: 'bot', level: Number(level) };
}

/** The seats of a game against the computer seat `computer` (a bot or an engine), the creator on `side`. */
export function seatsAgainst(side, computer) {
  return { white: side === 'white' ? { kind: 'human' } : computer, black: side === 'black' ? { kind: 'human' } : computer, as: side };
}

/** The seats of a game against the computer at `level`, the creator on `side`. */
export function botSeats(side, level) {
  return seatsAgainst(side, botSeat(level));
}

/** The seats of a game between two computer players. */
export function botsSeats(whiteLevel, blackLevel) {
  return { white: botSeat(whiteLevel), black: botSeat(blackLevel) };
}

/**
 * The `create` message for `seats` (`{white, black, as?, rated?}`) with `options`
 * (`{variant, fen, rules, clock, days}`: a clock, or days per move for correspondence, or
 * neither), carrying the creator's name: asked for (namebox.js) when the creator takes a seat.
 * Resolves to null when the name dialog was cancelled.
 */
export async function createMessage(seats, { variant, fen, rules, clock = null, days = null }) {
  // The creator takes a human seat unless both are bots; that seat shows the creator's name.
  const seated = seats.white.kind === 'human' || seats.black.kind === 'human';
  const name = seated ? await nameForSeat() : loadName();
  if (seated && !name) return null;
  const msg = { type: 'create', variant, fen: fen || null, rules, white: seats.white, black: seats.black, clock };
  // Correspondence sends `days` in the clock's place (the server refuses both at once).
  if (days) {
    delete msg.clock;
    msg.days = days;
  }
  if (seats.as) msg.as = seats.as;
  if (seats.rated) msg.rated = true;
  if (name) msg.name = name;
  return msg;
}

/** Moves the page to the game of a `created` or `joined` message, keeping its seat token. */
export function enterGame(msg) {
  if (msg.token && msg.color) saveSeat(msg.game, { token: msg.token, color: msg.color });
  location.assign(`/g/${encodeURIComponent(msg.game)}`);
}
