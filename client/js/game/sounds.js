// Which sound the game page plays for what (the sounds themselves are sound.js's): a move, a
// capture, a check or a castle as each live move arrives, the start when the last seat is
// taken, the end, the low-time warning, and a chime when the page was opened by an accepted
// seek or challenge. Nothing for the moves a page catches up on (live.js says which those are).

import { playSound, takeArrivalSound } from '../sound.js';

/** The sound of a move, from its SAN and the `check` flag the server sent with it. */
export function moveSound(san, check) {
  const text = String(san || '');
  if (check || /[+#]/.test(text)) return 'check';
  if (/^(O-O|0-0)/.test(text)) return 'castle';
  if (text.includes('x')) return 'capture';
  return 'move';
}

const STARTED_KEY = 'gambit:start-sound:';

export class GameSounds {
  constructor(ctrl) {
    this.ctrl = ctrl;
    this.status = null; // the game's status as last heard, to hear it start
  }

  /** A message the controller applied (see live.js); `live` is false for catching up. */
  heard(msg, live) {
    const g = this.ctrl.game;
    const was = this.status;
    this.status = g?.status ?? null;
    if (msg.type === 'state') {
      // The page opened: a game just started by an accepted seek or challenge greets the player.
      if (was === null && takeArrivalSound(this.ctrl.id)) {
        this.startPlayed();
        playSound('accepted');
      } else if (was === null && g?.status === 'ongoing' && g.moves.length === 0 && this.ctrl.seat && !this.startPlayed()) {
        playSound('start'); // a game against the computer, just created
      }
      return;
    }
    if (!live) return;
    if (msg.type === 'move') playSound(moveSound(msg.san, msg.check));
    else if (msg.type === 'end') playSound('end');
    else if (msg.type === 'lowTime') playSound('lowTime');
    else if (msg.type === 'seats' && was === 'waiting' && g?.status === 'ongoing' && !this.startPlayed()) playSound('start');
  }

  /**
   * Whether this tab already played the start of this game (a reload must not play it again);
   * marks it played.
   */
  startPlayed() {
    const key = STARTED_KEY + this.ctrl.id;
    try {
      if (sessionStorage.getItem(key)) return true;
      sessionStorage.setItem(key, '1');
    } catch { /* unavailable: a reload may play it again */ }
    return false;
  }
}
