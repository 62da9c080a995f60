// "Your games" in the lobby, as rules: the logged-in player's games in progress from
// `GET /api/account/playing` (lichess's `nowPlaying`, the event stream's game objects), in the
// order a player wants them — theirs to move first, the most pressing deadline first among
// those — and how each row reads: the opponent, "Your move" or "Their move", and for a
// correspondence game the time left (`secondsLeft`, in days and hours).
//
// Pure, so Node's test runner checks it (tests/js/playing.test.mjs).

import { formatDaysLeft } from './corres.js';
import { escapeHtml } from './ui.js';

/** lichess's speeds as people read them. */
const SPEEDS = { ultraBullet: 'UltraBullet', bullet: 'Bullet', blitz: 'Blitz', rapid: 'Rapid', classical: 'Classical' };

/**
 * The games of `nowPlaying` (the answer's `data`), checked: `[{id, color, opponent, myTurn,
 * secondsLeft, correspondence, speed, rated, variant}]`, in the server's order. A game played by
 * days per move has lichess's speed "correspondence" and a time left; an untimed game has the
 * same speed (as on lichess) but no time.
 */
export function parsePlaying(data) {
  const list = Array.isArray(data?.nowPlaying) ? data.nowPlaying : [];
  const games = [];
  for (const g of list) {
    const id = typeof g?.gameId === 'string' && g.gameId ? g.gameId : typeof g?.id === 'string' && g.id ? g.id : null;
    if (!id || games.some((other) => other.id === id)) continue;
    const secondsLeft = Number.isFinite(g.secondsLeft) ? Math.max(0, g.secondsLeft) : null;
    const speed = typeof g.speed === 'string' ? g.speed : '';
    games.push({
      id,
      color: g.color === 'black' ? 'black' : 'white',
      opponent: typeof g.opponent?.username === 'string' && g.opponent.username ? g.opponent.username : '?',
      myTurn: g.isMyTurn === true,
      secondsLeft,
      correspondence: speed === 'correspondence' && secondsLeft !== null,
      speed,
      rated: g.rated === true,
      variant: typeof g.variant?.key === 'string' ? g.variant.key : 'standard',
    });
  }
  return games;
}

/**
 * The games in the order the list shows them: the player's move first; among those, the
 * correspondence games by time left (the nearest deadline first), then the others; otherwise
 * as the server listed them.
 */
export function sortPlaying(games) {
  const urgency = (g) => (g.myTurn && g.correspondence ? g.secondsLeft : Infinity);
  return games
    .map((g, i) => ({ g, i }))
    .sort((a, b) => Number(b.g.myTurn) - Number(a.g.myTurn) || urgency(a.g) - urgency(b.g) || a.i - b.i)
    .map(({ g }) => g);
}

/** "Your move" or "Their move". */
export function turnText(game) {
  return game.myTurn ? 'Your move' : 'Their move';
}

/** The time left of a correspondence game, "2 d 5 h"; null for any other game. */
export function timeLeftText(game) {
  return game.correspondence ? formatDaysLeft(game.secondsLeft * 1000) : null;
}

/** The variants other than standard chess, as a game's kind names them. */
const VARIANT_NAMES = { chess960: 'Chess960', minichess7: 'Minichess 7×7' };

/** What kind of game it is: "Correspondence · Rated", "Blitz · Casual", "Untimed · Casual", "Blitz · Rated · Chess960". */
export function kindText(game) {
  const speed = game.correspondence ? 'Correspondence' : game.speed === 'correspondence' ? 'Untimed' : SPEEDS[game.speed] || 'Game';
  const variant = VARIANT_NAMES[game.variant];
  return `${speed} · ${game.rated ? 'Rated' : 'Casual'}${variant ? ` · ${variant}` : ''}`;
}

/**
 * One row of the list, as HTML: a link to the game with the opponent, whose move it is and, for
 * correspondence, the time left. The opponent's name (people choose it) goes in escaped.
 */
export function playingRow(game) {
  const turn = turnText(game);
  const left = timeLeftText(game);
  const kind = kindText(game);
  const id = escapeHtml(game.id);
  const label = `Against ${game.opponent}, ${kind}: ${turn}${left ? `, ${left} left` : ''}`;
  const time = left ? ` <span class="your-game-time" title="time left for the move">${escapeHtml(left)}</span>` : '';
  return `<li class="your-game${game.myTurn ? ' my-turn' : ''}" data-game="${id}">`
    + `<a href="/g/${encodeURIComponent(game.id)}" class="game-row my-game" aria-label="${escapeHtml(label)}">`
    + `<span class="players"><span class="swatch ${game.color}" aria-hidden="true"></span>vs <span class="your-game-opponent">${escapeHtml(game.opponent)}</span>`
    + ` <span class="your-game-kind">${escapeHtml(kind)}</span></span>`
    + `<span class="state"><span class="your-game-turn">${turn}</span>${time}</span>`
    + '</a></li>';
}

/** The whole list's markup, in its order (empty for no games). */
export function playingHtml(games) {
  return sortPlaying(games).map(playingRow).join('');
}
