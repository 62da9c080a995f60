// The move list and its review bar: every move in SAN, numbered from the game's start position;
// clicking a move (or the arrow keys, Home and End on the list) shows the position after it,
// and "Back to live" returns to the game.

import { moveNumber, moveRows } from '../chess.js';
import { escapeHtml, pick, setHtml } from '../ui.js';

export const template = `
          <div class="review-bar" id="review-bar" hidden>
            <span id="review-label"></span>
            <button type="button" id="live">Back to live</button>
          </div>
          <ol id="moves" class="moves" aria-label="Moves"></ol>`;

export class MovesView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    this.dom = pick(root, { bar: '#review-bar', label: '#review-label', list: '#moves', live: '#live' });
    this.dom.live.addEventListener('click', () => ctrl.setReview(null));
    this.dom.list.addEventListener('click', (e) => {
      const ply = e.target.closest('[data-ply]')?.dataset.ply;
      if (ply !== undefined) ctrl.setReview(Number(ply));
    });
    this.dom.list.addEventListener('keydown', (e) => this.key(e));
  }

  key(e) {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    if (!g) return;
    const now = ctrl.review ?? g.moves.length;
    const to = { ArrowLeft: now - 1, ArrowRight: now + 1, Home: 0, End: g.moves.length }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    ctrl.setReview(Math.max(0, Math.min(g.moves.length, to)));
    this.dom.list.querySelector(`[data-ply="${ctrl.review ?? g.moves.length}"]`)?.focus();
  }

  render() {
    const { bar, label, list } = this.dom;
    const g = this.ctrl.game;
    const live = this.ctrl.review === null;
    const shown = this.ctrl.review ?? g.moves.length;
    bar.hidden = live;
    label.textContent = live ? '' : `Reviewing: ${shown === 0 ? 'start position' : `after ${moveName(g, shown)}`}`;

    const cell = (ply) => {
      if (ply === null) return '<span class="mv empty"></span>';
      const current = ply === shown ? ' aria-current="step"' : '';
      return `<button type="button" class="mv" data-ply="${ply}"${current}>${escapeHtml(g.san[ply - 1])}</button>`;
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
