// gambit TV's channels and the list of other games beside the featured one, as rules the page
// follows: which channel a path names, which games the list shows and in what order, and how
// each reads. Pure (no DOM), so Node's test runner checks it (tests/js/tv.test.mjs).

import { moveNumber } from '../chess.js';
import { timeControlName } from '../clock.js';
import { escapeHtml, guestMark, seatName } from '../ui.js';

/**
 * The channels, as the server names them (`{"type":"tv","channel":…}`), in the order the page
 * lists them: each with its path, its tab's name, and what it shows.
 */
export const CHANNELS = {
  best: { path: '/tv', name: 'Best', about: 'the featured game between people' },
  bot: { path: '/tv/bots', name: 'Bots', about: 'the featured game with a computer player' },
};

/** The most other games the list shows. */
export const OTHERS_SHOWN = 8;

/** The channel `path` names: `bot` for /tv/bots, `best` for /tv (and anything else). */
export function channelOf(path) {
  return /^\/tv\/bots\/?$/.test(String(path)) ? 'bot' : 'best';
}

/** True when a seat (SEATVIEW) is a computer's: a bot level or an engine. */
function computerSeat(seat) {
  return seat?.kind === 'bot' || seat?.kind === 'engine';
}

/**
 * The channel game summary `g` belongs on, as far as its seats tell: `bot` with a computer
 * seat, else `best`. (The server also puts a bot *account*'s games on `bot`; a summary does not
 * say which accounts are bots, so those read as `best` here — it only orders the list.)
 */
export function channelOfGame(g) {
  return computerSeat(g?.white) || computerSeat(g?.black) ? 'bot' : 'best';
}

/**
 * The other games to list beside `featured` (a game id, or null) on `channel`, from the `games`
 * list: games in progress only, not the featured one, at most `limit`; the channel's own kind
 * first, then the most watched, then the longest, then by id (so the order holds still while
 * nothing changes).
 */
export function otherGames(games, featured, channel, limit = OTHERS_SHOWN) {
  if (!Array.isArray(games)) return [];
  return games
    .filter((g) => g && typeof g.game === 'string' && g.status === 'ongoing' && g.game !== featured)
    .sort((a, b) => Number(channelOfGame(b) === channel) - Number(channelOfGame(a) === channel)
      || (b.watchers || 0) - (a.watchers || 0)
      || (b.plies || 0) - (a.plies || 0)
      || (a.game < b.game ? -1 : a.game > b.game ? 1 : 0))
    .slice(0, Math.max(0, limit));
}

/** "12 moves", "1 move", "no moves yet": how far game summary `g` has gone. */
export function movesText(plies) {
  const moves = Math.ceil((Number(plies) || 0) / 2);
  if (moves === 0) return 'no moves yet';
  return `${moves} ${moves === 1 ? 'move' : 'moves'}`;
}

/**
 * The list item of one other game (a game summary): both seats' names and a link to its page,
 * the time control and how far it has gone. `rating(seat)` is the rating text to show beside a
 * seat's name ("1500?"), or ''. Everything from the server goes in as escaped text.
 */
export function otherGameHtml(g, rating = () => '') {
  const id = escapeHtml(g.game);
  const seat = (color) => {
    const s = g[color];
    const r = rating(s);
    return `<span class="tv-seat"><span class="swatch ${color}" aria-hidden="true"></span><span class="name">${escapeHtml(seatName(s))}</span>${r ? ` <span class="rating">${escapeHtml(r)}</span>` : ''}${guestMark(s)}</span>`;
  };
  const meta = [timeControlName(g.clock, g.days), ...(g.rated ? ['rated'] : []), movesText(g.plies)];
  if (g.watchers) meta.push(`${g.watchers} watching`);
  const label = `${seatName(g.white)} against ${seatName(g.black)}, ${meta.join(', ')}`;
  return `<li class="tv-other" data-game="${id}"><a href="/g/${encodeURIComponent(g.game)}" aria-label="${escapeHtml(label)}">`
    + `<span class="tv-other-players">${seat('white')} <span class="vs">vs</span> ${seat('black')}</span>`
    + `<span class="tv-other-meta">${escapeHtml(meta.join(' · '))}</span></a></li>`;
}

/** The featured game's players as the page's title reads them: "Alice vs Bob". */
export function titleOf(game) {
  if (!game?.seats) return '';
  return `${seatName(game.seats.white)} vs ${seatName(game.seats.black)}`;
}

/** "Last move: 23. Nf3" or "Last move: 23… Nf6"; "No moves yet" before the first. */
export function lastMoveText(g) {
  const ply = g.moves.length;
  if (!ply) return 'No moves yet';
  const { number, color } = moveNumber(g.initialFen, ply);
  return `Last move: ${number}${color === 'white' ? '.' : '…'} ${g.san[ply - 1] ?? g.moves[ply - 1]}`;
}
