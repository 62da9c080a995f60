// Correspondence chess, as lichess plays it: days per move instead of a clock. The choices the
// forms offer ("3 days", sent as `days`), how the time left for a move reads ("2 d 5 h",
// "45 min"), and a deadline as a local day and time ("Tue 14:05").
//
// The server keeps the time as for any clock (docs/protocol.md): a correspondence game's clock
// carries `days`, `initial_ms` is that many days, and each side's `*_ms` is what is left until
// its deadline; a move gives the mover the whole time again. Nothing happens by itself when
// it runs out: the opponent may then claim the game.
//
// Pure, so Node's test runner checks it (tests/js/corres.test.mjs).

/** The days per move a game may give (lichess's choices, and the only ones the server takes). */
export const CORRESPONDENCE_DAYS = [1, 2, 3, 5, 7, 10, 14];

/** "1 day", "3 days". */
export function daysName(days) {
  return `${days} ${days === 1 ? 'day' : 'days'}`;
}

/** The forms' choices of days, as [value, label]: `d1` "1 day" … `d14` "14 days". */
export const DAYS_CHOICES = CORRESPONDENCE_DAYS.map((d) => [`d${d}`, daysName(d)]);

/** The days per move of a form's choice (`d3` → 3), or null when it is not a choice of days. */
export function daysOfChoice(value) {
  const m = /^d(\d+)$/.exec(String(value ?? ''));
  const days = m ? Number(m[1]) : NaN;
  return CORRESPONDENCE_DAYS.includes(days) ? days : null;
}

/** Whether a clock view (or a game model's clock) is a correspondence game's. */
export function isCorrespondence(clock) {
  return Number.isInteger(clock?.days) && clock.days > 0;
}

const MINUTE = 60000;

/**
 * Time left for a move, in days and hours, or hours and minutes, or minutes: "3 d", "2 d 5 h",
 * "5 h 12 min", "45 min", "0 min" once it is over. Rounded up to the minute, so "0 min" means
 * the time is up.
 */
export function formatDaysLeft(ms) {
  const minutes = Math.ceil(Math.max(0, Number(ms) || 0) / MINUTE);
  if (minutes < 60) return `${minutes} min`;
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  if (d > 0) return h ? `${d} d ${h} h` : `${d} d`;
  return m ? `${h} h ${m} min` : `${h} h`;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A deadline `at` (a Date) in local time, as `now` (a Date) sees it: "Tue 14:05" within the
 * coming week (and the past one), where the day's name is enough; "Tue 3 Dec 14:05" further off.
 */
export function formatDeadline(at, now = new Date()) {
  const time = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  const day = WEEKDAYS[at.getDay()];
  // Six days either way: a week away would name today's weekday for another day.
  if (Math.abs(at.getTime() - now.getTime()) < 6 * 24 * 60 * MINUTE) return `${day} ${time}`;
  return `${day} ${at.getDate()} ${MONTHS[at.getMonth()]} ${time}`;
}
