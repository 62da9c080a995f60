// The game page's view: lays out the board, the panel and the chat from each view's template,
// and redraws them all from the controller. Board first: the player bars (names, ratings,
// clocks) sit beside the board's top and bottom edges with the status, offers, moves and buttons
// between them, the chat on the board's other side, so that on a laptop screen nothing a player
// needs is below the fold; on a phone the bars go above and below the board and the buttons
// right under it (gambit.css, "Game page"). The board (board.js) shows a reviewed position, or
// the live one with the move we sent shown until the server confirms it — or, in a
// correspondence game, the move we made and have not submitted yet (game/corres.js).

import { Board } from '../board.js';
import { applyUci, kingSquare, moveNumber } from '../chess.js';
import { AnalysisView, template as analysis } from './analysis.js';
import { BerserkView } from './berserk.js';
import { BlindView } from './blind.js';
import { ChatView, template as chat } from './chat.js';
import { ClocksView } from './clocks.js';
import { ControlsView, template as controls } from './controls.js';
import { confirmTemplate as corresConfirm, CorresView, deadlineTemplate as corresDeadline } from './corres.js';
import { chess960Html, hasFairyPieces, legendHtml } from '../legend.js';
import { MovesView, template as moves } from './moves.js';
import { PlayersView, template as playerBar } from './players.js';
import { canPremove } from './premoves.js';
import { PremoveToggleView } from './premoveToggle.js';
import { PromptsView, template as prompts } from './prompts.js';
import { RatingsView, template as ratings } from './ratings.js';
import { StatusView, template as status } from './status.js';

export class GameView {
  constructor(root, ctrl) {
    this.root = root;
    this.ctrl = ctrl;
    root.innerHTML = `
      <div class="game">
        <section class="board-area" aria-label="Board">
          <div id="board-host"></div>
        </section>
        <div class="game-side">
          ${playerBar('top')}
          <aside class="panel">${status}${corresDeadline}${ratings}${prompts}${moves}${analysis}${corresConfirm}${controls(ctrl.id)}
            <div id="game-legend" class="game-legend" hidden>${legendHtml('fairy-legend')}</div>
            <div id="game-960-note" class="game-legend" hidden>${chess960Html('chess960-note')}</div>
          </aside>
          ${playerBar('bottom')}
        </div>${chat}
      </div>`;
    this.board = new Board(root.querySelector('#board-host'), {
      onMove: (uci) => ctrl.play(uci), label: `Board of game ${ctrl.id}`,
      onPremove: (uci) => ctrl.premove(uci), onCancelPremoves: () => ctrl.cancelPremoves(),
      // Arrows and circles drawn on the board last as long as the page's tab (and its reloads).
      shapesKey: location.pathname,
      animate: true,
    });
    this.status = new StatusView(root, ctrl);
    this.players = new PlayersView(root, ctrl);
    this.clocks = new ClocksView(root, ctrl);
    // In an arena game: the berserk button beside the player's own clock.
    this.berserk = new BerserkView(root, ctrl);
    this.corres = new CorresView(root, ctrl);
    // The computer analysis of a finished game: its own panel, marks in the move list, an arrow on the board.
    this.analysis = new AnalysisView(root, ctrl);
    this.moves = new MovesView(root, ctrl, { annotate: (ply) => this.analysis.note(ply) });
    this.prompts = new PromptsView(root, ctrl);
    this.ratings = new RatingsView(root, ctrl);
    this.controls = new ControlsView(root, ctrl, { choosePromotion: (choices) => this.board.choosePromotion(choices) });
    this.chat = new ChatView(root, ctrl);
    // Blind mode: a text interface for screen readers in the board's place, when the setting is on.
    this.blind = new BlindView(root, ctrl);
    this.premoveToggle = new PremoveToggleView(root, ctrl);
    this.legend = root.querySelector('#game-legend');
    this.note960 = root.querySelector('#game-960-note');
  }

  render() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    this.status.render();
    this.blind.render();
    // What tests (and styles) can read without knowing the page's insides.
    this.root.dataset.status = g?.status || (ctrl.missing ? 'missing' : 'connecting');
    this.root.dataset.plies = g ? String(g.moves.length) : '';
    this.root.dataset.seat = ctrl.seat?.color || 'spectator';
    this.root.dataset.archived = String(ctrl.archived);
    if (!g) return;
    this.renderBoard();
    this.players.render();
    this.clocks.render();
    this.berserk.render();
    this.corres.render();
    this.moves.render();
    this.analysis.render();
    this.prompts.render();
    this.ratings.render();
    this.controls.render();
    this.chat.render();
    this.premoveToggle.render();
    this.legend.hidden = !hasFairyPieces(g.variant);
    this.note960.hidden = g.variant !== 'chess960';
  }

  renderBoard() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    const live = ctrl.review === null;
    const ply = live ? g.moves.length : ctrl.review;
    let placement = g.boards[ply];
    let lastMove = ply > 0 ? g.moves[ply - 1] : null;
    let check = null;
    // Our move on its way to the server, or (correspondence) made and not submitted yet.
    const ours = ctrl.pending || ctrl.tentative?.uci || null;
    if (live && ours) {
      placement = applyUci(placement, ours, g.variant);
      lastMove = ours;
    } else if (live ? g.check : /[+#]$/.test(g.san[ply - 1] || '')) {
      // The side in check is the one to move after `ply` moves.
      check = kingSquare(placement, moveNumber(g.initialFen, ply + 1).color);
    }
    const canMove = live && !ours && ctrl.myTurn();
    // During the opponent's turn (or while our move is on its way) the player may premove; not
    // in correspondence.
    const premoving = !canMove && !ctrl.correspondence && canPremove(g, ctrl.seat, { live, pending: ctrl.pending });
    const pre = premoving
      ? ctrl.premoves.boardState(g, ctrl.seat.color, placement, ctrl.pending)
      : { placement, premoves: [], premoveLegal: [] };
    this.board.update({
      size: g.size, placement: pre.placement, orientation: ctrl.orientation, lastMove, check,
      legal: canMove ? g.legal : [], mover: canMove ? ctrl.seat.color : null,
      arrow: this.analysis.arrow(ply),
      premover: premoving ? ctrl.seat.color : null, premoves: pre.premoves, premoveLegal: pre.premoveLegal,
    });
  }
}
