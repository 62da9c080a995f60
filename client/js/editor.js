// The board editor, /editor: set up a position of any variant — pieces from a palette, by
// click or drag, the side to move, castling rights, the en passant square and the game's rules —
// with its FEN kept in step both ways, the server's verdict on it (`GET /api/position`, a short
// while after each change) and the ways to play from it, which create the game as the lobby
// does (create.js): a friend, the computer, or two computers, each computer a level or one of
// the server's UCI engines that plays the variant, at a strength of its own (engines.js).
//
// The position is setup.js's model; the board is board.js's, shown without legal moves so its
// own move handling stays idle while this page handles the pointer and the keyboard on it.
// `?variant=V&fen=F` opens a position (the game page links here that way).
//
// Chess960 adds its starts, by number (0–959) or at random (chess960.js), and castling rights
// for whichever rooks stand on the back rank beside the king, one a side, written as X-FEN.

import { errorText, getJson } from './api.js';
import { Board } from './board.js';
import { Connection } from './connection.js';
import { chosenSide, createMessage, enterGame, friendSeats, seatsAgainst } from './create.js';
import { ComputerChoice, serverEngines, strengthFields } from './engines.js';
import { askAgain } from './namebox.js';
import { labelLevels, levelOptions } from './levels.js';
import { isNameRefusal } from './names.js';
import { PIECE_NAMES, pieceId } from './pieces.js';
import { CHESS960_COUNT, numberOf, randomNumber, rightLetter, rightSide } from './chess960.js';
import {
  availableCastling, CASTLING_RIGHTS, clearBoard, detectVariant, effectiveCastling, effectiveEp, epCandidates,
  movePiece, parseFen, place, remove, setCastling, setEnPassant, setTurn, startSetup, toFen, VARIANT_PIECES,
} from './setup.js';
import { setConnectionBadge } from './ui.js';

const VARIANT_NAMES = { standard: 'Standard', chess960: 'Chess960', minichess7: 'Minichess 7×7' };
const RIGHT_NAMES = { K: 'White O-O', Q: 'White O-O-O', k: 'Black O-O', q: 'Black O-O-O' };
const CHECK_DELAY_MS = 150;
const DRAG_THRESHOLD_PX = 4;

function colorOptions() {
  return '<option value="white">White</option><option value="black">Black</option><option value="random">Random</option>';
}

function pieceName(letter) {
  return `${letter === letter.toUpperCase() ? 'White' : 'Black'} ${PIECE_NAMES[letter.toLowerCase()]}`;
}

function pieceSvg(letter) {
  return `<svg viewBox="0 0 45 45" aria-hidden="true"><use href="#${pieceId(letter)}"></use></svg>`;
}

const TEMPLATE = `
  <div class="editor">
    <section class="board-area editor-board" aria-label="Board">
      <div class="palette" id="palette-black" role="toolbar" aria-label="Black pieces"></div>
      <div id="editor-board-host"></div>
      <div class="palette" id="palette-white" role="toolbar" aria-label="White pieces"></div>
      <div class="editor-tools">
        <button type="button" id="editor-delete" aria-pressed="false" title="Click squares to empty them">Delete</button>
        <button type="button" id="editor-clear">Clear board</button>
        <button type="button" id="editor-initial">Start position</button>
        <button type="button" id="editor-flip">Flip board</button>
      </div>
      <p class="hint">Choose a piece, then click squares to place it (click it again to remove it); or drag pieces
        from the palette, and on the board. Drag a piece off the board to remove it. On the board, arrow keys move
        and Enter places the chosen piece, Delete empties the square.</p>
    </section>
    <aside class="panel editor-panel">
      <h1 class="editor-title">Board editor</h1>
      <label class="row">Variant
        <select id="editor-variant">${Object.entries(VARIANT_NAMES).map(([k, v]) => `<option value="${k}">${v}</option>`).join('')}</select>
      </label>
      <div class="row" id="editor-960-row" hidden>
        <label for="editor-960-number">Start position no.</label>
        <input type="number" id="editor-960-number" min="0" max="${CHESS960_COUNT - 1}" step="1" inputmode="numeric" placeholder="0–${CHESS960_COUNT - 1}"
          title="Chess960 starts are numbered 0 to ${CHESS960_COUNT - 1}; 518 is the standard one">
        <button type="button" id="editor-960-random">Random</button>
      </div>
      <fieldset class="choice">
        <legend>Side to move</legend>
        <label><input type="radio" name="editor-turn" id="editor-turn-white" value="white" checked> White</label>
        <label><input type="radio" name="editor-turn" id="editor-turn-black" value="black"> Black</label>
      </fieldset>
      <fieldset class="choice" id="editor-rights">
        <legend>Castling rights</legend>
        ${[...CASTLING_RIGHTS].map((r) => `<label title="${RIGHT_NAMES[r]}" data-standard><input type="checkbox" id="editor-castle-${r === r.toUpperCase() ? 'w' : 'b'}${r.toUpperCase()}" data-right="${r}"> ${r}</label>`).join('')}
        <span class="rights-960" id="editor-rights-960" hidden></span>
      </fieldset>
      <label class="row" id="editor-ep-row">En passant <select id="editor-ep"></select></label>
      <fieldset class="choice" id="editor-rules">
        <legend>Rules</legend>
        <label><input type="checkbox" id="editor-castling" checked> Castling</label>
        <label><input type="checkbox" id="editor-en-passant" checked> En passant</label>
        <select id="editor-repetition" aria-label="Repetition">
          <option value="threefold">Threefold repetition draws</option>
          <option value="eight_move">Eight-move repetition draws</option>
        </select>
      </fieldset>
      <label class="editor-fen-label" for="editor-fen">FEN</label>
      <input id="editor-fen" spellcheck="false" autocomplete="off" autocapitalize="off">
      <p id="editor-fen-error" class="error" role="alert"></p>
      <p id="editor-status" class="status editor-status" role="status" aria-live="polite" data-state="pending">Checking the position…</p>
      <div class="editor-play">
        <h2>Play from here</h2>
        <div class="row">
          <select id="editor-friend-color" aria-label="Your side against a friend">${colorOptions()}</select>
          <button type="button" class="primary" id="editor-friend" disabled>Play a friend</button>
        </div>
        <div class="row">
          <select id="editor-level" aria-label="The computer: a level or an engine" data-levels>${levelOptions(1)}</select>
          <select id="editor-color" aria-label="Your side against the computer">${colorOptions()}</select>
          <button type="button" class="primary" id="editor-bot" disabled>Play the computer</button>
        </div>
        <div class="row engine-strength" id="editor-level-strength" hidden>${strengthFields('editor-level')}</div>
        <div class="row">
          <select id="editor-white-level" aria-label="White bot: a level or an engine" data-levels>${levelOptions(5)}</select>
          <select id="editor-black-level" aria-label="Black bot: a level or an engine" data-levels>${levelOptions(6)}</select>
          <button type="button" class="primary" id="editor-watch" disabled>Watch two bots</button>
        </div>
        <div class="row engine-strength" id="editor-white-level-strength" hidden>White ${strengthFields('editor-white-level')}</div>
        <div class="row engine-strength" id="editor-black-level-strength" hidden>Black ${strengthFields('editor-black-level')}</div>
      </div>
      <p id="editor-error" class="error" role="alert"></p>
    </aside>
  </div>`;

class Editor {
  constructor(root) {
    this.root = root;
    this.setup = startSetup('standard');
    this.tool = null; // a piece letter, 'delete', or null
    this.orientation = 'white';
    this.press = null; // a pointer held down on the board or the palette
    this.timer = null;
    this.checkSeq = 0;
    this.verdict = { state: 'pending' }; // the server's answer for the FEN shown: {state, fen, text}
    this.requests = new Map(); // id of a `create` sent → its seats
    this.moving = false;
    root.innerHTML = TEMPLATE;
    labelLevels(root);
    const $ = (sel) => root.querySelector(sel);
    this.dom = {
      variant: $('#editor-variant'), turnWhite: $('#editor-turn-white'), turnBlack: $('#editor-turn-black'),
      rights: $('#editor-rights'), rights960: $('#editor-rights-960'), ep: $('#editor-ep'), epRow: $('#editor-ep-row'), castling: $('#editor-castling'),
      row960: $('#editor-960-row'), number960: $('#editor-960-number'),
      enPassant: $('#editor-en-passant'), repetition: $('#editor-repetition'), fen: $('#editor-fen'),
      fenError: $('#editor-fen-error'), status: $('#editor-status'), error: $('#editor-error'), del: $('#editor-delete'),
      paletteWhite: $('#palette-white'), paletteBlack: $('#palette-black'),
      starts: [$('#editor-friend'), $('#editor-bot'), $('#editor-watch')],
    };
    this.board = new Board($('#editor-board-host'), { onMove: () => {}, label: 'Board editor' });
    // The computer seats: a level, or one of the server's engines that plays the variant shown.
    this.computers = {
      computer: new ComputerChoice(root, 'editor-level'),
      white: new ComputerChoice(root, 'editor-white-level'),
      black: new ComputerChoice(root, 'editor-black-level'),
    };
    this.engines = [];
    serverEngines().then((engines) => {
      this.engines = engines;
      this.offerEngines();
    });
    this.bind();
    this.load();
    this.conn = new Connection({
      onOpen: () => {},
      onMessage: (msg) => this.handle(msg),
      onStatus: (up) => setConnectionBadge(up),
    });
  }

  start() {
    this.conn.start();
  }

  /** The position named by the query string (`variant`, `fen`), else the standard start. */
  load() {
    const params = new URLSearchParams(location.search);
    const fen = params.get('fen');
    let variant = params.get('variant');
    if (!VARIANT_PIECES[variant]) variant = (fen && detectVariant(fen)) || 'standard';
    this.setup = startSetup(variant, randomNumber());
    this.dom.variant.value = variant;
    if (fen) {
      const parsed = parseFen(fen, variant);
      if (parsed.setup) this.setup = parsed.setup;
      this.changed({ typed: !parsed.setup });
      if (!parsed.setup) {
        this.dom.fen.value = fen;
        this.fenRefused(parsed.error);
      }
    } else {
      this.changed();
    }
  }

  bind() {
    const d = this.dom;
    // Chess960 starts at random, as its games do; the number box then says which start it is.
    d.variant.addEventListener('change', () => this.update(startSetup(d.variant.value, randomNumber())));
    d.number960.addEventListener('input', () => {
      const n = Number(d.number960.value);
      if (d.number960.value !== '' && Number.isInteger(n) && n >= 0 && n < CHESS960_COUNT) this.update(startSetup('chess960', n));
    });
    this.root.querySelector('#editor-960-random').addEventListener('click', () => this.update(startSetup('chess960', randomNumber())));
    for (const radio of [d.turnWhite, d.turnBlack]) radio.addEventListener('change', () => this.update(setTurn(this.setup, radio.value)));
    d.rights.addEventListener('change', (e) => {
      const right = e.target.dataset.right;
      if (right) this.update(setCastling(this.setup, right, e.target.checked));
    });
    d.ep.addEventListener('change', () => this.update(setEnPassant(this.setup, d.ep.value)));
    for (const box of [d.castling, d.enPassant]) box.addEventListener('change', () => this.changed());
    d.fen.addEventListener('input', () => this.typed(d.fen.value));
    d.fen.addEventListener('change', () => {
      if (!d.fenError.textContent) d.fen.value = toFen(this.setup);
    });
    d.del.addEventListener('click', () => this.choose(this.tool === 'delete' ? null : 'delete'));
    this.root.querySelector('#editor-clear').addEventListener('click', () => this.update(clearBoard(this.setup)));
    this.root.querySelector('#editor-initial').addEventListener('click', () => this.update(this.initialSetup()));
    this.root.querySelector('#editor-flip').addEventListener('click', () => {
      this.orientation = this.orientation === 'white' ? 'black' : 'white';
      this.renderBoard();
    });
    const [friend, bot, watch] = d.starts;
    const value = (id) => this.root.querySelector(id).value;
    friend.addEventListener('click', () => this.create(friendSeats(chosenSide(value('#editor-friend-color')))));
    const { computer, white, black } = this.computers;
    bot.addEventListener('click', () => this.create(seatsAgainst(chosenSide(value('#editor-color')), computer.seat())));
    watch.addEventListener('click', () => this.create({ white: white.seat(), black: black.seat() }));
    // The board: pointer (click, drag) and keyboard; the palette: click or drag.
    const svg = this.board.svg;
    svg.addEventListener('pointerdown', (e) => this.boardDown(e));
    svg.addEventListener('pointermove', (e) => this.pointerMove(e));
    svg.addEventListener('pointerup', (e) => this.pointerUp(e));
    svg.addEventListener('pointercancel', () => this.cancelPress());
    svg.addEventListener('keydown', (e) => this.keyDown(e));
    for (const palette of [d.paletteWhite, d.paletteBlack]) {
      palette.addEventListener('pointerdown', (e) => this.paletteDown(e));
      palette.addEventListener('pointermove', (e) => this.pointerMove(e));
      palette.addEventListener('pointerup', (e) => this.pointerUp(e));
      palette.addEventListener('pointercancel', () => this.cancelPress());
      palette.addEventListener('click', (e) => {
        // Pointer clicks are handled on pointerup; this is the keyboard's Enter or Space.
        const button = e.target.closest('.palette-piece');
        if (button && e.detail === 0) this.choose(this.tool === button.dataset.piece ? null : button.dataset.piece);
      });
    }
  }

  /** The variant's start: in Chess960 the one numbered in the number box (the standard one without a number). */
  initialSetup() {
    const n = Number(this.dom.number960.value);
    return startSetup(this.setup.variant, this.dom.number960.value !== '' && Number.isInteger(n) ? n : undefined);
  }

  /** Replaces the position with `setup` (an edit) and shows it everywhere. */
  update(setup) {
    this.setup = setup;
    this.dom.fenError.textContent = '';
    this.changed();
  }

  /** The position or the rules changed: redraw, and ask the server about it. `typed`: keep the FEN box as typed. */
  changed({ typed = false } = {}) {
    this.dom.error.textContent = '';
    this.render();
    if (!typed) this.dom.fen.value = toFen(this.setup);
    this.scheduleCheck();
  }

  /** The FEN box was edited: read it, switching variant if it is written for another (setup.js's `detectVariant`). */
  typed(text) {
    const variant = detectVariant(text, this.setup.variant);
    const parsed = parseFen(text, variant || this.setup.variant);
    if (parsed.error) {
      this.fenRefused(parsed.error);
      return;
    }
    this.dom.fenError.textContent = '';
    this.setup = parsed.setup;
    this.changed({ typed: true });
  }

  /** The FEN box holds nothing this page can read: say so, and nothing can start. */
  fenRefused(error) {
    clearTimeout(this.timer);
    this.checkSeq += 1;
    this.dom.fenError.textContent = `Cannot read this FEN: ${error}`;
    this.verdict = { state: 'unreadable' };
    this.renderVerdict('The FEN above cannot be read; the board shows the last position that could.');
  }

  rules() {
    return { castling: this.dom.castling.checked, en_passant: this.dom.enPassant.checked, repetition: this.dom.repetition.value };
  }

  scheduleCheck() {
    clearTimeout(this.timer);
    const seq = ++this.checkSeq;
    this.verdict = { state: 'pending' };
    this.renderVerdict(null);
    this.timer = setTimeout(() => this.check(seq), CHECK_DELAY_MS);
  }

  /** Asks the server whether a game can start from the position; a later change makes the answer moot. */
  async check(seq) {
    const fen = toFen(this.setup);
    const { variant } = this.setup;
    const rules = this.rules();
    const query = new URLSearchParams({ variant, fen, castling: String(rules.castling), en_passant: String(rules.en_passant) });
    history.replaceState(null, '', `/editor?${new URLSearchParams({ variant, fen })}`);
    const answer = await getJson(`/api/position?${query}`);
    if (seq !== this.checkSeq) return;
    const data = answer.data;
    if (answer.status === 200 && data && data.ok === true) {
      const n = Number(data.legal);
      const moves = n === 0 ? 'no legal moves: the game would start finished' : `${n} legal ${n === 1 ? 'move' : 'moves'}`;
      this.verdict = { state: 'ok', fen };
      this.renderVerdict(`Valid position · ${moves}`);
    } else if (answer.status === 200 && data && typeof data.error === 'string') {
      this.verdict = { state: 'invalid', fen };
      this.renderVerdict(data.error);
    } else {
      this.verdict = { state: 'invalid', fen };
      this.renderVerdict(errorText(answer));
    }
  }

  /** Shows the verdict (`text`, or null to keep the last words while a check is on its way). */
  renderVerdict(text) {
    const s = this.dom.status;
    if (text !== null) s.textContent = text;
    s.dataset.state = this.verdict.state;
    s.classList.toggle('invalid', this.verdict.state === 'invalid' || this.verdict.state === 'unreadable');
    const ok = this.verdict.state === 'ok' && !this.moving;
    for (const b of this.dom.starts) b.disabled = !ok;
  }

  render() {
    const s = this.setup;
    const d = this.dom;
    const mini = s.variant === 'minichess7';
    d.variant.value = s.variant;
    d.turnWhite.checked = s.turn === 'white';
    d.turnBlack.checked = s.turn === 'black';
    // Castling rights and en passant exist only where there are pawns that step two and rooks
    // that castle (not minichess7), and only where the board allows.
    const c960 = s.variant === 'chess960';
    d.rights.hidden = mini;
    d.epRow.hidden = mini;
    d.row960.hidden = !c960;
    // The number box follows the board: the start it shows, or empty (not under the typing hand).
    if (c960 && document.activeElement !== d.number960) d.number960.value = numberOf(toFen(s)) ?? '';
    const available = availableCastling(s);
    const effective = effectiveCastling(s);
    for (const label of d.rights.querySelectorAll('label[data-standard]')) label.hidden = c960;
    d.rights960.hidden = !c960;
    if (c960) this.renderRights960(available);
    for (const box of d.rights.querySelectorAll('input[data-right]')) {
      box.disabled = !available.includes(box.dataset.right);
      box.checked = effective.includes(box.dataset.right);
    }
    const ep = effectiveEp(s);
    const options = [new Option('None', ''), ...epCandidates(s).map((sq) => new Option(sq, sq))];
    d.ep.replaceChildren(...options);
    d.ep.value = ep || '';
    d.ep.disabled = options.length === 1;
    d.castling.disabled = mini;
    d.enPassant.disabled = mini;
    this.offerEngines();
    this.renderPalette();
    this.renderBoard();
  }

  /**
   * Chess960's castling rights: a box for each rook on its back rank beside its king there
   * (`available`, by file), named by the square and the letter X-FEN writes for it. Redrawn only
   * when those change, so a box keeps the keyboard's focus through the edit it makes.
   */
  renderRights960(available) {
    const p = this.setup.placement;
    const rooks = [...available].map((r) => {
      const white = r === r.toUpperCase();
      const sq = `${r.toLowerCase()}${white ? 1 : 8}`;
      return { right: r, sq, white, letter: rightLetter(p, sq) };
    });
    const key = rooks.map((x) => x.right + x.letter).join('');
    if (this.rights960Key === key) return;
    this.rights960Key = key;
    const d = this.dom;
    if (!rooks.length) {
      d.rights960.innerHTML = '<span class="hint">none: put a king and a rook on their back rank</span>';
      return;
    }
    d.rights960.innerHTML = rooks.map(({ right, sq, white, letter }) => {
      const side = rightSide(p, right) === 'king' ? 'O-O' : 'O-O-O';
      return `<label title="${white ? 'White' : 'Black'} ${side} with the rook on ${sq}"><input type="checkbox" id="editor-castle-${white ? 'w' : 'b'}-${sq}" data-right="${right}"> ${letter} (${sq})</label>`;
    }).join('');
  }

  /** Offers, next to the levels, the server's engines that play the variant shown. */
  offerEngines() {
    const engines = this.engines.filter((e) => Array.isArray(e.variants) && e.variants.includes(this.setup.variant));
    for (const choice of Object.values(this.computers)) choice.offer(engines);
  }

  renderPalette() {
    const letters = VARIANT_PIECES[this.setup.variant];
    const key = `${letters}:${this.tool}`;
    if (this.paletteKey === key) return;
    this.paletteKey = key;
    for (const [palette, white] of [[this.dom.paletteWhite, true], [this.dom.paletteBlack, false]]) {
      palette.innerHTML = [...letters].map((l) => {
        const letter = white ? l : l.toLowerCase();
        return `<button type="button" class="palette-piece" data-piece="${letter}" aria-pressed="${this.tool === letter}" aria-label="${pieceName(letter)}" title="${pieceName(letter)}">${pieceSvg(letter)}</button>`;
      }).join('');
    }
    this.dom.del.setAttribute('aria-pressed', String(this.tool === 'delete'));
  }

  renderBoard() {
    const s = this.setup;
    this.board.update({ size: s.size, placement: s.placement, orientation: this.orientation, lastMove: null, check: null, legal: [], mover: null });
  }

  /** Chooses the tool the next clicks on the board apply: a piece letter, 'delete' or null. */
  choose(tool) {
    const focused = document.activeElement?.dataset?.piece;
    this.tool = tool;
    this.renderPalette();
    // The palette was redrawn: keep the keyboard on the button it was on.
    if (focused) this.root.querySelector(`.palette-piece[data-piece="${focused}"]`)?.focus();
  }

  /** The chosen tool applied to square `sq`: place the piece (or take it away if it is there already), or empty it. */
  apply(sq) {
    if (!sq) return;
    const here = this.setup.placement.get(sq);
    if (this.tool === 'delete' || (this.tool && here === this.tool)) this.update(remove(this.setup, sq));
    else if (this.tool) this.update(place(this.setup, sq, this.tool));
  }

  boardDown(e) {
    if (e.button !== 0) return;
    const sq = this.board.squareAt(e.clientX, e.clientY);
    if (!sq) return;
    e.preventDefault();
    this.board.focusSquare = sq;
    this.board.svg.setPointerCapture?.(e.pointerId);
    this.press = { from: sq, piece: this.setup.placement.get(sq), pointerId: e.pointerId, x: e.clientX, y: e.clientY, moved: false, target: this.board.svg };
  }

  paletteDown(e) {
    const button = e.target.closest('.palette-piece');
    if (e.button !== 0 || !button) return;
    e.preventDefault();
    button.setPointerCapture?.(e.pointerId);
    this.press = { palette: true, piece: button.dataset.piece, pointerId: e.pointerId, x: e.clientX, y: e.clientY, moved: false, target: button };
  }

  pointerMove(e) {
    const p = this.press;
    if (!p || e.pointerId !== p.pointerId || !p.piece) return;
    if (!p.moved && Math.hypot(e.clientX - p.x, e.clientY - p.y) < DRAG_THRESHOLD_PX) return;
    if (!p.moved) {
      p.moved = true;
      const size = this.board.svg.getBoundingClientRect().width / this.setup.size;
      p.ghost = document.createElement('div');
      p.ghost.className = 'editor-ghost';
      p.ghost.style.width = p.ghost.style.height = `${size}px`;
      p.ghost.innerHTML = pieceSvg(p.piece);
      document.body.appendChild(p.ghost);
      if (!p.palette) this.board.pieceLayer?.querySelector(`use[data-square="${p.from}"]`)?.classList.add('lifted');
    }
    p.ghost.style.left = `${e.clientX}px`;
    p.ghost.style.top = `${e.clientY}px`;
  }

  pointerUp(e) {
    const p = this.press;
    if (!p || e.pointerId !== p.pointerId) return;
    this.press = null;
    p.ghost?.remove();
    const to = this.board.squareAt(e.clientX, e.clientY);
    if (p.palette) {
      if (p.moved) {
        if (to) this.update(place(this.setup, to, p.piece));
      } else {
        this.choose(this.tool === p.piece ? null : p.piece);
      }
    } else if (p.moved) {
      // Dropped on another square: moved there; off the board: gone.
      if (to !== p.from) this.update(movePiece(this.setup, p.from, to));
      else this.renderBoard();
    } else {
      this.apply(p.from);
    }
    this.board.render();
  }

  cancelPress() {
    this.press?.ghost?.remove();
    this.press = null;
    this.board.render();
  }

  keyDown(e) {
    const sq = this.board.focusSquare;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.apply(sq);
    } else if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      this.update(remove(this.setup, sq));
    }
  }

  /** Creates a game from the position shown, as the lobby does; the page moves to it on `created`. */
  async create(seats) {
    if (this.verdict.state !== 'ok' || this.moving) return;
    const msg = await createMessage(seats, { variant: this.setup.variant, fen: this.verdict.fen, rules: this.rules(), clock: null });
    if (!msg) return;
    const id = this.conn.send(msg);
    if (id === null) {
      this.dom.error.textContent = 'Not connected to the server — retrying; try again in a moment.';
      return;
    }
    this.dom.error.textContent = '';
    this.requests.set(id, seats);
  }

  handle(msg) {
    const seats = msg.id === undefined ? undefined : this.requests.get(msg.id);
    if (seats) this.requests.delete(msg.id);
    if ((msg.type === 'created' || msg.type === 'joined') && seats && !this.moving) {
      this.moving = true;
      this.renderVerdict(null);
      enterGame(msg);
    } else if (msg.type === 'error' && (seats || msg.id === undefined)) {
      this.dom.error.textContent = msg.message || msg.code || 'The server refused the game.';
      if (seats && isNameRefusal(msg)) askAgain(msg.message).then((name) => name && this.create(seats));
    }
  }
}

/** Starts the board editor inside `root`; returns its controller (for tests and the curious). */
export function startEditor(root) {
  const editor = new Editor(root);
  editor.start();
  return editor;
}
