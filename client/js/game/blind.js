// Blind mode on the game page (modelled on lichess's "nvui"): when the setting is on, the board
// gives way to a text interface made for screen readers. A polite live region announces each
// live move in words ("Black plays knight f6"), the end, an offer, a berserk and the low-time warning; a
// labelled command box takes a move (SAN or UCI, resolved against the server's legal moves as
// the move box does) or a command — b, p N, s e4, c, l, h (blindText.js has the words and the
// list) — and its answer goes to a second live region, so the screen reader speaks it.
//
// It only reads the controller and sends moves through it; the board stays in the page,
// hidden, and comes back as it was when the setting is turned off.

import { boardWords, clockWords, endWords, HELP, lowTimeWords, moveListWords, moveWords, parseCommand, pieceListWords, squareWords } from '../blindText.js';
import { otherColor } from '../chess.js';
import { remaining } from '../clock.js';
import { onSetting, setting } from '../settings.js';
import { pick, SIDE_NAMES } from '../ui.js';

const OFFERS = { draw: 'offers a draw', undo: 'asks to take back a move', rematch: 'offers a rematch' };

export class BlindView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    this.root = root;
    this.boardHost = root.querySelector('#board-host');
    const section = document.createElement('section');
    section.id = 'blind';
    section.className = 'blind';
    section.hidden = true;
    section.setAttribute('aria-labelledby', 'blind-title');
    section.innerHTML = `
      <h2 id="blind-title" class="blind-title">Blind mode</h2>
      <p id="blind-news" class="blind-news" aria-live="polite" aria-atomic="true"></p>
      <form id="blind-form" class="blind-form" autocomplete="off">
        <label for="blind-command">Your move or a command</label>
        <div class="row">
          <input id="blind-command" name="command" type="text" spellcheck="false" autocapitalize="off" aria-describedby="blind-hint">
          <button type="submit">Enter</button>
        </div>
      </form>
      <p id="blind-hint" class="hint">A move such as e4 or Nf3; b reads the board, h lists the commands.</p>
      <p id="blind-answer" class="blind-answer" aria-live="polite" aria-atomic="true"></p>`;
    // Where the board is, so the reading order is the board's.
    if (this.boardHost) this.boardHost.after(section);
    else root.prepend(section);
    this.dom = pick(section, { news: '#blind-news', form: '#blind-form', input: '#blind-command', answer: '#blind-answer' });
    this.dom.section = section;
    this.dom.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.command(this.dom.input.value);
    });
    this.on = null;
    onSetting('blind', () => this.render());
    ctrl.live?.listen((msg, live) => this.heard(msg, live));
  }

  render() {
    const on = setting('blind');
    if (on === this.on) return;
    const first = this.on === null;
    this.on = on;
    this.dom.section.hidden = !on;
    if (this.boardHost) this.boardHost.hidden = on;
    this.root.dataset.blind = String(on);
    // Opening a game page in blind mode puts the person in the command box, ready to type.
    if (on && first && (document.activeElement === document.body || document.activeElement === this.root)) this.dom.input.focus();
  }

  /** A message the controller applied (see live.js): live moves, the end, offers, berserks and the low clock are announced. */
  heard(msg, live) {
    if (!live || !this.on) return;
    const g = this.ctrl.game;
    if (msg.type === 'move' && g) {
      const before = g.boards[g.boards.length - 2];
      this.say('news', moveWords({ san: msg.san, uci: msg.uci, color: otherColor(msg.turn), before }));
    } else if (msg.type === 'end') {
      this.say('news', endWords(msg.result, msg.reason));
    } else if (msg.type === 'offer' && OFFERS[msg.kind] && msg.by !== this.ctrl.seat?.color) {
      this.say('news', `${SIDE_NAMES[msg.by]} ${OFFERS[msg.kind]}.`);
    } else if (msg.type === 'seats' && g?.status === 'ongoing' && g.moves.length === 0) {
      this.say('news', this.ctrl.seat ? `The game has started. You play ${SIDE_NAMES[this.ctrl.seat.color]}.` : 'The game has started.');
    } else if (msg.type === 'berserk' && SIDE_NAMES[msg.color]) {
      this.say('news', msg.color === this.ctrl.seat?.color ? 'You berserked: your time is halved.' : `${SIDE_NAMES[msg.color]} berserked: their time is halved.`);
    } else if (msg.type === 'lowTime') {
      this.say('news', lowTimeWords(msg.ms));
    }
  }

  /** Runs one line typed in the command box. */
  command(text) {
    const g = this.ctrl.game;
    const asked = parseCommand(text);
    if (asked.move !== undefined) {
      if (!asked.move) return;
      const found = this.ctrl.typed(asked.move);
      // Typed afresh rather than edited: a screen reader makes retyping easier than fixing.
      this.dom.input.value = '';
      // In correspondence the move waits to be submitted; otherwise its announcement comes with the server's move.
      if (found.uci && this.ctrl.tentative) this.say('answer', `${this.ctrl.tentative.san} is not sent yet: press Submit move to send it, or Cancel.`);
      if (found.uci) return;
      if (found.choices) this.say('answer', `Say which piece to promote to: ${found.choices.join(', ')}.`);
      else this.say('answer', found.error);
      return;
    }
    this.dom.input.value = '';
    if (asked.error) {
      this.say('answer', asked.error);
      return;
    }
    if (asked.command === 'help') {
      this.say('answer', HELP);
      return;
    }
    if (!g) {
      this.say('answer', 'The game has not loaded yet.');
      return;
    }
    const ply = this.ctrl.review ?? g.moves.length;
    const board = g.boards[ply];
    switch (asked.command) {
      case 'board': this.say('answer', boardWords(board, g.size, this.ctrl.orientation).join(' ')); break;
      case 'pieces': this.say('answer', pieceListWords(board, asked.role)); break;
      case 'square': this.say('answer', squareWords(board, g.size, asked.square)); break;
      case 'moves': this.say('answer', moveListWords(g.initialFen, g.san)); break;
      case 'clock': this.say('answer', this.clockText()); break;
      default: break;
    }
  }

  clockText() {
    const { game: g, clockAt } = this.ctrl;
    if (!g.clock) return clockWords(null);
    const now = performance.now();
    const running = g.status === 'ongoing' ? g.clock.running : null;
    return clockWords({ white: remaining(g.clock, clockAt, 'white', now), black: remaining(g.clock, clockAt, 'black', now) }, running);
  }

  /**
   * Puts `text` in the live region `which` ('news' or 'answer'). The same words twice in a row
   * would not be spoken again, so every other time they carry an invisible difference.
   */
  say(which, text) {
    const node = this.dom[which];
    node.textContent = node.textContent === text ? `${text}\u00a0` : text;
  }
}
