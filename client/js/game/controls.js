// The seated player's controls — the typed-move box, take back, draw, resign (with its
// confirmation), abort (in its place until both sides have moved, as on lichess), and after the
// end the rematch — and, for everyone, the way to the rematch once it is made, flipping the
// board, the PGN download and the watcher count.

import { otherColor } from '../chess.js';
import { fenAfter } from '../setup.js';
import { escapeHtml, pick } from '../ui.js';

export function template(id) {
  return `
          <form id="move-form" class="move-form" autocomplete="off">
            <label for="move-input">Your move</label>
            <div class="row">
              <input id="move-input" name="move" placeholder="e2e4 or Nf3" spellcheck="false" autocapitalize="off">
              <button type="submit">Play</button>
            </div>
          </form>
          <div class="actions">
            <button type="button" id="undo">Take back</button>
            <button type="button" id="draw">Offer draw</button>
            <button type="button" id="resign">Resign</button>
            <button type="button" id="abort" title="Call the game off with no result (before both sides have moved)">Abort</button>
          </div>
          <div class="after-game" id="after-game" hidden>
            <button type="button" id="rematch" class="primary" title="Play again, colours swapped">Rematch</button>
            <a id="next-game" class="button primary" hidden></a>
          </div>
          <div class="confirm" id="resign-confirm-box" hidden>
            Resign this game?
            <button type="button" id="resign-confirm" class="danger">Yes, resign</button>
            <button type="button" id="resign-cancel">No</button>
          </div>
          <div class="meta">
            <button type="button" id="flip">Flip board</button>
            <a id="pgn" href="/api/games/${encodeURIComponent(id)}/pgn" download="gambit-${escapeHtml(id)}.pgn">Download PGN</a>
            <a id="to-editor" href="/editor">Continue from here in the editor</a>
            <span id="watchers" class="watchers"></span>
          </div>`;
}

/** The draw and takeback buttons' words: at rest, with our offer pending, with the opponent's. */
const OFFER_LABELS = {
  draw: { rest: 'Offer draw', mine: 'Draw offered — withdraw', theirs: 'Accept draw' },
  undo: { rest: 'Take back', mine: 'Takeback requested — withdraw', theirs: 'Accept takeback' },
};

/** Words and state of an offer button; `aria-pressed` tells assistive technology an offer of ours stands. */
function offerButton(button, mine, theirs, labels) {
  const text = mine ? labels.mine : theirs ? labels.theirs : labels.rest;
  if (button.textContent !== text) button.textContent = text;
  button.setAttribute('aria-pressed', String(mine));
  button.classList.toggle('pending', mine);
}

export class ControlsView {
  /** `choosePromotion(choices)` asks which piece a typed promotion makes (the board's picker). */
  constructor(root, ctrl, { choosePromotion }) {
    this.ctrl = ctrl;
    const d = pick(root, {
      form: '#move-form', input: '#move-input', undo: '#undo', draw: '#draw', resign: '#resign', abort: '#abort',
      confirmBox: '#resign-confirm-box', confirm: '#resign-confirm', cancel: '#resign-cancel', flip: '#flip', watchers: '#watchers',
      after: '#after-game', rematch: '#rematch', next: '#next-game', toEditor: '#to-editor',
    });
    this.dom = d;
    d.form.addEventListener('submit', (e) => {
      e.preventDefault();
      const found = ctrl.typed(d.input.value);
      if (found.uci || found.choices) d.input.value = '';
      if (found.choices) choosePromotion(found.choices);
    });
    d.undo.addEventListener('click', () => ctrl.offer('undo'));
    d.draw.addEventListener('click', () => ctrl.offer('draw'));
    d.resign.addEventListener('click', () => {
      d.confirmBox.hidden = false;
      d.confirm.focus();
    });
    d.cancel.addEventListener('click', () => { d.confirmBox.hidden = true; });
    d.confirm.addEventListener('click', () => {
      d.confirmBox.hidden = true;
      ctrl.send({ type: 'resign' });
    });
    d.abort.addEventListener('click', () => ctrl.send({ type: 'abort' }));
    d.rematch.addEventListener('click', () => ctrl.rematch());
    d.flip.addEventListener('click', () => ctrl.flip());
  }

  render() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    const d = this.dom;
    const offer = g.offer;
    const playing = Boolean(ctrl.seat) && g.status !== 'ended';
    // Until both sides have moved, a game can be called off instead of resigned.
    const abortable = playing && g.moves.length < 2;
    d.form.hidden = !playing;
    for (const b of [d.undo, d.draw]) b.hidden = !playing;
    d.resign.hidden = !playing || abortable;
    d.abort.hidden = !abortable;
    d.abort.disabled = !ctrl.connected;
    if (d.resign.hidden) d.confirmBox.hidden = true;
    const ongoing = g.status === 'ongoing' && ctrl.connected;
    // A person may be asked to take back only once both have moved; a bot, after any move.
    const opponent = ctrl.seat && g.seats[otherColor(ctrl.seat.color)];
    const mine = offer && offer.by === ctrl.seat?.color ? offer.kind : null;
    const theirs = offer && ctrl.seat && offer.by !== ctrl.seat.color ? offer.kind : null;
    // A pending offer of ours shows on its own button, which then withdraws it.
    offerButton(d.undo, mine === 'undo', theirs === 'undo', OFFER_LABELS.undo);
    offerButton(d.draw, mine === 'draw', theirs === 'draw', OFFER_LABELS.draw);
    const asking = Boolean(ctrl.offerSent);
    d.undo.disabled = !ongoing || asking || (mine !== 'undo' && g.moves.length < (opponent?.kind === 'bot' ? 1 : 2));
    d.draw.disabled = !ongoing || asking;
    d.resign.disabled = !ongoing;
    // A correspondence move made and not submitted yet is answered first (game/corres.js).
    d.input.disabled = !ctrl.myTurn() || Boolean(ctrl.tentative);
    d.watchers.textContent = ctrl.archived ? 'From the archive' : `${g.watchers} watching`;
    this.renderAfter();
    this.renderToEditor();
  }

  /** The link to the board editor with the position the board shows (a reviewed one too). */
  renderToEditor() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    const ply = ctrl.review === null ? g.moves.length : ctrl.review;
    const live = ply === g.moves.length && typeof g.fen === 'string';
    const fen = live ? g.fen : fenAfter({ variant: g.variant, initialFen: g.initialFen, moves: g.moves, placement: g.boards[ply], ply });
    this.dom.toEditor.href = `/editor?${new URLSearchParams({ variant: g.variant, fen })}`;
  }

  /**
   * After the end: a player may ask for a rematch (unless one is asked for already: the offer
   * box answers it); once it is made, everyone gets the way to it (the page also moves there).
   */
  renderAfter() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    const d = this.dom;
    const ended = g.status === 'ended';
    const opponent = ctrl.seat && g.seats[otherColor(ctrl.seat.color)];
    d.rematch.hidden = !(ended && ctrl.seat && !ctrl.archived && !g.next && opponent && opponent.kind !== 'open' && g.offer?.kind !== 'rematch');
    d.rematch.disabled = !ctrl.connected || Boolean(ctrl.moving);
    d.next.hidden = !(ended && g.next);
    if (g.next) {
      d.next.href = `/g/${encodeURIComponent(g.next)}`;
      d.next.textContent = ctrl.seat ? 'Play the rematch' : 'Watch the rematch';
    }
    d.after.hidden = d.rematch.hidden && d.next.hidden;
  }
}
