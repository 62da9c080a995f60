// The move list and its review bar: every move in SAN, numbered from the game's start position;
// clicking a move, the step buttons (first, previous, next, last) or the arrow keys — on the list
// (with Home and End there) or anywhere on the page outside a text box or the board — show the
// position after it, and "Back to live" returns to the game. A finished game, live or from the
// archive, is stepped through the same way.

import { moveNumber, moveRows } from '../chess.js';
import { escapeHtml, pick, setHtml } from '../ui.js';

export const template = `
          <div class="review-bar" id="review-bar" hidden>
            <span id="review-label"></span>
            <button type="button" id="live">Back to live</button>
          </div>
          <ol id="moves" class="moves" aria-label="Moves"></ol>
          <div class="move-nav" id="move-nav" role="group" aria-label="Step through the moves" hidden>
            <button type="button" id="move-first" data-step="first" aria-label="Start position" title="Start position (Home)">«</button>
            <button type="button" id="move-prev" data-step="prev" aria-label="Previous move" title="Previous move (←)">‹</button>
            <button type="button" id="move-next" data-step="next" aria-label="Next move" title="Next move (→)">›</button>
            <button type="button" id="move-last" data-step="last" aria-label="Last position" title="Last position (End)">»</button>
          </div>`;

/** Where a step goes from ply `now` of a game with `plies` moves: the ply to show. */
export function stepTo(step, now, plies) {
  const to = { first: 0, prev: now - 1, next: now + 1, last: plies }[step];
  return to === undefined ? null : Math.max(0, Math.min(plies, to));
}

const KEY_STEPS = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last' };

export class MovesView {
  /**
   * `annotate(ply)`: the computer analysis's mark of a move (`{kind, mark, title}`, see
   * game/analysis.js) or null; the move list shows it after the move, its words as the tooltip.
   */
  constructor(root, ctrl, { annotate = () => null } = {}) {
    this.ctrl = ctrl;
    this.annotate = annotate;
    this.dom = pick(root, {
      bar: '#review-bar', label: '#review-label', list: '#moves', live: '#live', nav: '#move-nav',
      first: '#move-first', prev: '#move-prev', next: '#move-next', last: '#move-last',
    });
    this.dom.live.addEventListener('click', () => ctrl.setReview(null));
    this.dom.list.addEventListener('click', (e) => {
      const ply = e.target.closest('[data-ply]')?.dataset.ply;
      if (ply !== undefined) ctrl.setReview(Number(ply));
    });
    this.dom.nav.addEventListener('click', (e) => {
      const step = e.target.closest('[data-step]')?.dataset.step;
      if (step) this.step(step);
    });
    this.dom.list.addEventListener('keydown', (e) => this.key(e, true));
    // The arrow keys step anywhere on the page, as on lichess — but not while typing, on the
    // board (its arrows move between squares), in a dialog, or with a modifier held.
    document.addEventListener('keydown', (e) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      if (e.target.closest?.('input, textarea, select, dialog, [contenteditable], svg.board, #moves')) return;
      if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') this.key(e, false);
    });
  }

  /** Shows the position `step` ('first', 'prev', 'next', 'last') away from the one shown. */
  step(step) {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    if (!g) return null;
    const to = stepTo(step, ctrl.review ?? g.moves.length, g.moves.length);
    if (to !== null) ctrl.setReview(to);
    return to;
  }

  key(e, onList) {
    const step = KEY_STEPS[e.key];
    if (!step || !this.ctrl.game) return;
    e.preventDefault();
    this.step(step);
    const g = this.ctrl.game;
    if (onList) this.dom.list.querySelector(`[data-ply="${this.ctrl.review ?? g.moves.length}"]`)?.focus();
  }

  render() {
    const { bar, label, list, live: back } = this.dom;
    const g = this.ctrl.game;
    const live = this.ctrl.review === null;
    const shown = this.ctrl.review ?? g.moves.length;
    bar.hidden = live;
    label.textContent = live ? '' : `Reviewing: ${shown === 0 ? 'start position' : `after ${moveName(g, shown)}`}`;
    back.textContent = g.status === 'ended' ? 'Final position' : 'Back to live';
    const d = this.dom;
    d.nav.hidden = g.moves.length === 0;
    // aria-disabled, not disabled: a button that keeps the focus can be pressed again after
    // the list moved on, and the keyboard is not thrown back to the top of the page.
    for (const [button, off] of [[d.first, shown === 0], [d.prev, shown === 0], [d.next, live], [d.last, live]]) {
      button.setAttribute('aria-disabled', String(off));
    }

    const cell = (ply) => {
      if (ply === null) return '<span class="mv empty"></span>';
      const current = ply === shown ? ' aria-current="step"' : '';
      // The analysis's judgement, if any: "Qh4??", "Blunder. Nc6 was best." on hover.
      const note = this.annotate(ply);
      const title = note ? ` title="${escapeHtml(note.title)}"` : '';
      const mark = note ? `<span class="judgement ${escapeHtml(note.kind)}">${escapeHtml(note.mark)}</span>` : '';
      return `<button type="button" class="mv" data-ply="${ply}"${current}${title}>${escapeHtml(g.san[ply - 1])}${mark}</button>`;
    };
    const rows = moveRows(g.initialFen, g.san.length);
    const html = rows.map((r) => `<li><span class="num">${r.number}.</span>${cell(r.white)}${cell(r.black)}</li>`).join('') ||
      '<li class="none">No moves yet</li>';
    if (list.dataset.html !== html) {
      const hadFocus = list.contains(document.activeElement);
      setHtml(list, html);
      list.scrollTop = live ? list.scrollHeight : list.scrollTop;
      if (hadFocus) list.querySelector('[aria-current]')?.focus();
    }
  }
}

/** Ply `ply` as people read it: "12. e4", or "12… Nc6" for Black's move. */
function moveName(g, ply) {
  const { number, color } = moveNumber(g.initialFen, ply);
  return `${number}${color === 'white' ? '.' : '…'} ${g.san[ply - 1]}`;
}
