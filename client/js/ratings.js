// Ratings as people read them: the rating categories, a rating with "?" while it is provisional,
// a signed change ("+162", "−162"), and a finished game's result as one of its players sees it.
// Pure, so Node's test runner checks it (tests/js/ratings.test.mjs).

/** The rating categories, in the order pages list them (docs: accounts; the server's order). */
export const CATEGORIES = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'minichess7', 'chess960'];

/** The category a page shows when none is asked for. */
export const DEFAULT_CATEGORY = 'blitz';

/** How the categories read for people. */
export const CATEGORY_NAMES = {
  bullet: 'Bullet', blitz: 'Blitz', rapid: 'Rapid', classical: 'Classical', correspondence: 'Correspondence',
  minichess7: 'Minichess 7×7', chess960: 'Chess960',
};

/**
 * The category a game's ratings change in, as the server decides it: minichess7 and chess960
 * by variant, whatever the speed; correspondence for days per move (a clock view carrying
 * `days`, or `days` given apart, as game summaries do); else by the estimated duration
 * initial + 40 × increment (seconds): under 180 bullet, under 480 blitz, under 1500 rapid, else
 * classical. Null for an untimed game of standard chess.
 */
export function categoryOf(variant, clock, days = clock?.days) {
  if (variant === 'minichess7' || variant === 'chess960') return variant;
  if (Number.isInteger(days) && days > 0) return 'correspondence';
  if (!clock || !Number.isFinite(clock.initial_ms) || !Number.isFinite(clock.increment_ms)) return null;
  const seconds = clock.initial_ms / 1000 + (40 * clock.increment_ms) / 1000;
  if (seconds < 180) return 'bullet';
  if (seconds < 480) return 'blitz';
  if (seconds < 1500) return 'rapid';
  return 'classical';
}

/** "1662", or "1662?" while the rating is provisional; "?" when there is none. */
export function formatRating(rating, provisional = false) {
  if (!Number.isFinite(rating)) return '?';
  return `${Math.round(rating)}${provisional ? '?' : ''}`;
}

/** A rating change with its sign: "+162", "−162" (a true minus sign), "±0"; "" when there is none. */
export function formatChange(change) {
  if (!Number.isFinite(change)) return '';
  const n = Math.round(change);
  if (n > 0) return `+${n}`;
  if (n < 0) return `\u2212${-n}`;
  return '±0';
}

/** Whether a change went up, down or nowhere: 'up', 'down' or 'even' (for colouring it). */
export function changeDirection(change) {
  if (!Number.isFinite(change) || Math.round(change) === 0) return 'even';
  return change > 0 ? 'up' : 'down';
}

/** "Rated" or "Casual". */
export function modeName(rated) {
  return rated ? 'Rated' : 'Casual';
}

/** A result ("1-0", "0-1", "1/2-1/2", "*") as the player of `color` sees it: 'win', 'loss', 'draw', 'aborted' or null. */
export function outcomeFor(result, color) {
  if (result === '1/2-1/2') return 'draw';
  if (result === '*') return 'aborted';
  if (result !== '1-0' && result !== '0-1') return null;
  if (color !== 'white' && color !== 'black') return null;
  return (result === '1-0') === (color === 'white') ? 'win' : 'loss';
}

/** How an outcome of `outcomeFor` reads. */
export const OUTCOME_NAMES = { win: 'Won', loss: 'Lost', draw: 'Draw', aborted: 'Aborted' };
