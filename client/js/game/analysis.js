// The computer analysis of a finished game, under the move list: the button that asks the server
// for it, its progress while the engine works, and once done the evaluation graph (evalGraph.js),
// each player's inaccuracies, mistakes, blunders and average centipawn loss, the marks in the
// move list and the engine's best move drawn on the board (the game view asks `note` and `arrow`).
//
// The server keeps a finished analysis: the page asks for it as soon as it sees the game finished
// (on load, or when the game ends while it is open) and shows it to anyone who comes later.
// `GET /api/games/{id}/analysis` answers 200 with `null` when none was asked for (the button
// shows; an older server said 404, read the same way), the
// progress while it runs (the page asks again every half second) and the result when done;
// `POST` to the same path asks for one.

import { errorText, getJson, postJson } from '../api.js';
import { moveNumber } from '../chess.js';
import {
  bestMoveAt, drawEvalGraph, JUDGEMENTS, judgementNote, markEvalGraph, progressPercent, readAnalysis, summaryRows,
} from '../evalGraph.js';
import { pick, seatName } from '../ui.js';

export const template = `
          <section id="analysis-box" class="analysis-box" aria-label="Computer analysis" hidden>
            <button type="button" id="analysis-request" class="analysis-request" hidden>Request computer analysis</button>
            <div id="analysis-progress" class="analysis-progress" role="status" hidden>
              <span class="analysis-progress-label">Computer analysis… <span id="analysis-percent">0%</span></span>
              <progress id="analysis-progress-bar" max="100" value="0" aria-labelledby="analysis-percent"></progress>
            </div>
            <p id="analysis-error" class="analysis-error" role="alert" hidden></p>
            <div id="analysis" class="analysis" hidden>
              <div id="eval-graph-host" class="eval-graph-host"></div>
              <table id="analysis-summary" class="analysis-summary">
                <caption>Computer analysis</caption>
                <thead><tr>
                  <th scope="col">Player</th>
                  <th scope="col"><abbr title="${JUDGEMENTS.inaccuracy.plural}">?!</abbr></th>
                  <th scope="col"><abbr title="${JUDGEMENTS.mistake.plural}">?</abbr></th>
                  <th scope="col"><abbr title="${JUDGEMENTS.blunder.plural}">??</abbr></th>
                  <th scope="col"><abbr title="Average centipawn loss">ACPL</abbr></th>
                </tr></thead>
                <tbody></tbody>
              </table>
            </div>
          </section>`;

/** How often a running analysis is asked about. */
const POLL_MS = 500;
/** ... and how long to wait after the server could not be reached while it ran. */
const RETRY_MS = 2000;

/** The words of a refused request: the server's `message` (its error JSON), else the usual. */
function refusalText(answer) {
  const m = answer.data?.message;
  return typeof m === 'string' && m ? m : errorText(answer);
}

export class AnalysisView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    this.dom = pick(root, {
      box: '#analysis-box', request: '#analysis-request', progress: '#analysis-progress', percent: '#analysis-percent',
      bar: '#analysis-progress-bar', error: '#analysis-error', panel: '#analysis', host: '#eval-graph-host',
      summary: '#analysis-summary tbody',
    });
    // 'idle' (not asked yet), 'checking', 'absent' (none requested: the button), 'requesting',
    // 'running', 'done'.
    this.state = 'idle';
    this.progress = 0;
    this.result = null; // the done analysis (evalGraph.js `readAnalysis`)
    this.error = '';
    this.timer = null;
    this.polling = false; // a GET is due or on its way because an analysis was running
    this.graph = null; // the SVG drawn for `result`
    this.summaryKey = '';
    this.dom.request.addEventListener('click', () => this.request());
    this.dom.host.addEventListener('click', (e) => {
      const ply = e.target.closest?.('[data-ply]')?.dataset.ply;
      if (ply !== undefined) ctrl.setReview(Number(ply));
    });
  }

  get path() {
    return `/api/games/${encodeURIComponent(this.ctrl.id)}/analysis`;
  }

  /** Whether the game shown can be analysed: it is over, was played (not aborted) and has moves. */
  get applies() {
    const g = this.ctrl.game;
    return Boolean(g && g.status === 'ended' && g.reason !== 'aborted' && g.moves.length > 0);
  }

  /** Asks the server what it has for this game. */
  async check() {
    this.state = 'checking';
    this.timer = null;
    this.settle(await getJson(this.path), false);
  }

  /** Asks the server to analyse the game. */
  async request() {
    if (this.state !== 'absent') return;
    this.state = 'requesting';
    this.error = '';
    this.redraw();
    this.settle(await postJson(this.path, {}), true);
  }

  /** Takes in the server's answer to a GET or (`posted`) a POST. */
  settle(answer, posted) {
    const polling = this.polling;
    this.polling = false;
    const read = answer.status === 200 || answer.status === 202 ? readAnalysis(answer.data) : null;
    if (read?.status === 'done') {
      this.state = 'done';
      this.result = read;
      this.error = '';
    } else if (read?.status === 'running') {
      this.state = 'running';
      this.progress = read.progress;
      this.error = '';
      this.poll(POLL_MS);
    } else if (!posted && ((answer.status === 200 && answer.data === null) || answer.status === 404)) {
      // None asked for (or one the server lost, a restart): the button.
      this.state = 'absent';
    } else if (polling && (answer.status === 0 || answer.status >= 500)) {
      // The server out of reach (or failing) while it worked: keep asking, a little slower.
      this.state = 'running';
      this.poll(RETRY_MS);
    } else {
      this.state = 'absent';
      this.error = answer.status === 200 || answer.status === 202 ? 'The server\'s analysis could not be read.' : refusalText(answer);
    }
    this.ctrl.redraw();
  }

  poll(ms) {
    clearTimeout(this.timer);
    this.polling = true;
    this.timer = setTimeout(() => this.check(), ms);
  }

  redraw() {
    this.ctrl.redraw();
  }

  /** The mark of ply `ply` for the move list (`{kind, mark, title}`), or null. */
  note(ply) {
    return this.state === 'done' ? judgementNote(this.result, ply) : null;
  }

  /** The arrow for the board showing the position after `ply` moves: the engine's best move, or null. */
  arrow(ply) {
    if (this.state !== 'done' || !this.applies) return null;
    const best = bestMoveAt(this.result, ply);
    return best ? { uci: best.uci, id: 'best-arrow', title: `Best move: ${best.san}` } : null;
  }

  render() {
    const d = this.dom;
    const applies = this.applies;
    d.box.hidden = !applies;
    if (!applies) return;
    if (this.state === 'idle') {
      this.check();
      return;
    }
    const busy = this.state === 'requesting';
    d.request.hidden = !(this.state === 'absent' || busy);
    d.request.disabled = busy;
    d.request.textContent = busy ? 'Requesting computer analysis…' : 'Request computer analysis';
    d.progress.hidden = this.state !== 'running';
    const percent = progressPercent(this.progress);
    d.percent.textContent = `${percent}%`;
    d.bar.value = percent;
    d.error.hidden = !this.error;
    d.error.textContent = this.error;
    d.panel.hidden = this.state !== 'done';
    if (this.state !== 'done') return;
    const g = this.ctrl.game;
    if (!this.graph) {
      this.graph = drawEvalGraph(document, this.result, (ply) => moveName(g, ply));
      d.host.replaceChildren(...(this.graph ? [this.graph] : []));
    }
    markEvalGraph(this.graph, this.ctrl.review ?? g.moves.length);
    this.renderSummary(g);
  }

  renderSummary(g) {
    const names = { white: seatName(g.seats.white), black: seatName(g.seats.black) };
    const rows = summaryRows(this.result, names);
    const key = JSON.stringify(rows);
    if (key === this.summaryKey) return;
    this.summaryKey = key;
    this.dom.summary.replaceChildren(...rows.map((r) => {
      const tr = document.createElement('tr');
      tr.dataset.color = r.color;
      const th = document.createElement('th');
      th.scope = 'row';
      const swatch = document.createElement('span');
      swatch.className = `swatch ${r.color}`;
      swatch.setAttribute('aria-hidden', 'true');
      th.append(swatch, r.name);
      tr.append(th);
      for (const [key, value] of [['inaccuracies', r.inaccuracies], ['mistakes', r.mistakes], ['blunders', r.blunders], ['acpl', r.acpl]]) {
        const td = document.createElement('td');
        td.dataset.stat = key;
        td.textContent = String(value);
        tr.append(td);
      }
      return tr;
    }));
  }
}

/** Ply `ply` as people read it: "12. e4", or "12… Nc6" for Black's move. */
function moveName(g, ply) {
  const { number, color } = moveNumber(g.initialFen, ply);
  return `${number}${color === 'white' ? '.' : '…'} ${g.san[ply - 1] ?? ''}`;
}
