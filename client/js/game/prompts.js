// The boxes that ask something of the people at the board: a pending draw, takeback or rematch offer,
// the away notice with its count-down and claim buttons, the buttons that take an open seat,
// and the invite link a seated creator sends to a friend. In a correspondence game nobody need
// be at the board, so there is no away notice: the same claim box offers the game instead once
// the opponent's time for their move is up (game/corres.js).

import { isCorrespondence } from '../corres.js';
import { askAgain, nameForSeat } from '../namebox.js';
import { corresClaim } from './corres.js';
import { pick, setHtml, SIDE_NAMES } from '../ui.js';

/** What each kind of offer asks for, in words. */
const OFFERS = { draw: 'a draw', undo: 'to take back a move', rematch: 'a rematch' };

export const template = `
          <div id="offer" class="offer" hidden></div>
          <div id="claim" class="claim" hidden aria-live="polite"></div>
          <div id="join" class="join" hidden></div>
          <div id="invite" class="invite" hidden>
            <label for="invite-link">Send this link to your friend:</label>
            <div class="row">
              <input id="invite-link" readonly>
              <button type="button" id="copy-invite">Copy</button>
            </div>
          </div>`;

export class PromptsView {
  constructor(root, ctrl) {
    this.ctrl = ctrl;
    const d = pick(root, { offer: '#offer', claim: '#claim', join: '#join', invite: '#invite', inviteLink: '#invite-link', copy: '#copy-invite' });
    this.dom = d;
    this.claimTicker = null;
    d.inviteLink.value = `${location.origin}/g/${ctrl.id}`;
    d.copy.addEventListener('click', async (e) => {
      d.inviteLink.select();
      try {
        await navigator.clipboard.writeText(d.inviteLink.value);
        e.target.textContent = 'Copied';
      } catch {
        document.execCommand?.('copy');
      }
    });
    d.offer.addEventListener('click', (e) => {
      const act = e.target.closest('[data-act]')?.dataset.act;
      if (act === 'withdraw') ctrl.withdraw();
      else if (act) ctrl.send({ type: act });
    });
    d.claim.addEventListener('click', (e) => {
      const result = e.target.closest('[data-claim]')?.dataset.claim;
      if (result) ctrl.claim(result);
    });
    d.join.addEventListener('click', (e) => {
      const color = e.target.closest('[data-join]')?.dataset.join;
      if (color) this.join(color);
    });
    ctrl.onNameRefused = (message, color) => this.join(color, message);
  }

  /**
   * Takes the open seat `color` under this browser's name: asked for first when there is none,
   * or again with the server's words when it refused the name (`refusal`).
   */
  async join(color, refusal) {
    const name = refusal ? await askAgain(refusal) : await nameForSeat();
    if (name) this.ctrl.join(color, name);
  }

  render() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    const { join, invite } = this.dom;
    this.renderOffer();
    this.renderClaim();
    // Seats: an open seat can be taken by a visitor; a seated creator shares the link.
    const open = ['white', 'black'].filter((c) => g.seats[c].kind === 'open');
    join.hidden = Boolean(ctrl.seat) || open.length === 0 || g.status === 'ended';
    if (g.rated && ctrl.accountKnown && !ctrl.username) {
      // Only accounts play rated games: the way in is to log in, then come back here.
      const back = encodeURIComponent(`/g/${ctrl.id}`);
      setHtml(join, `<span>This game is rated: <a href="/login?next=${back}" id="join-login">log in</a> or <a href="/signup?next=${back}">sign up</a> to play it.</span>`);
    } else {
      // An open challenge's link may name the side to take (`?color=white`, lichess's urlWhite).
      const asked = new URLSearchParams(location.search).get('color');
      const offered = open.includes(asked) ? [asked] : open;
      setHtml(join, offered.map((c) => `<button type="button" class="primary" data-join="${c}" id="join-${c}">Play as ${SIDE_NAMES[c]}</button>`).join(' '));
    }
    invite.hidden = !(ctrl.seat && open.length > 0 && g.status !== 'ended');
  }

  renderOffer() {
    const seat = this.ctrl.seat;
    const offer = this.ctrl.game.offer;
    const node = this.dom.offer;
    // Only the kinds this page knows how to answer.
    node.hidden = !(offer && Object.hasOwn(OFFERS, offer.kind));
    if (node.hidden) return;
    const what = OFFERS[offer.kind];
    if (seat && offer.by !== seat.color) {
      // Accepting sends the offer's own kind: `draw`, `undo` or `rematch`.
      setHtml(node, `<span>Your opponent offers ${what}.</span>
          <button type="button" class="primary" data-act="${offer.kind}" id="accept-offer">${offer.kind === 'rematch' ? 'Accept rematch' : 'Accept'}</button>
          <button type="button" data-act="decline" id="decline-offer">Decline</button>`);
    } else if (seat) {
      const off = this.ctrl.offerSent || !this.ctrl.connected ? ' disabled' : '';
      setHtml(node, `<span>You offered ${what}; waiting for an answer.</span>
          <button type="button" data-act="withdraw" id="withdraw-offer"${off}>Withdraw</button>`);
    } else {
      setHtml(node, `<span>${SIDE_NAMES[offer.by]} offers ${what}.</span>`);
    }
  }

  /**
   * The away notice. The player who may claim the game of an absent opponent sees a count-down
   * (kept by a ticker, like the clocks, from the server's `in_ms`) and then the claim buttons;
   * everyone else sees only who is away.
   */
  renderClaim() {
    const ctrl = this.ctrl;
    const g = ctrl.game;
    const node = this.dom.claim;
    const ongoing = g?.status === 'ongoing';
    if (isCorrespondence(g?.clock)) {
      this.renderCorresClaim();
      return;
    }
    const claim = ongoing ? g.claim : null;
    let counting = false;
    if (claim && ctrl.seat?.color === claim.by) {
      const left = Math.max(0, claim.in_ms - (performance.now() - ctrl.claimAt));
      const title = '<span class="claim-title">Your opponent left the game.</span>';
      if (left > 0) {
        counting = true;
        // The count-down's text changes alone, so the live region does not repeat the title.
        setHtml(node, `${title}<span class="countdown" id="claim-countdown" role="timer"></span>`);
        node.querySelector('#claim-countdown').textContent = `You can claim victory in ${Math.ceil(left / 1000)} s`;
      } else {
        const off = ctrl.claimSent || !ctrl.connected ? ' disabled' : '';
        setHtml(node, `${title}
          <button type="button" class="primary" data-claim="win" id="claim-win"${off}>Claim victory</button>
          <button type="button" data-claim="draw" id="claim-draw"${off}>Call it a draw</button>`);
      }
      node.classList.remove('away');
      node.hidden = false;
    } else {
      const away = ongoing ? ['white', 'black'].filter((c) => g.seats[c].kind === 'human' && !g.seats[c].online) : [];
      setHtml(node, away.map((c) => `<span class="claim-title">${SIDE_NAMES[c]} is away.</span>`).join(''));
      node.classList.add('away');
      node.hidden = away.length === 0 || away.includes(ctrl.seat?.color);
    }
    if (counting && !this.claimTicker) this.claimTicker = setInterval(() => this.renderClaim(), 200);
    this.stopClaimTicker(counting);
  }

  stopClaimTicker(counting = false) {
    if (!counting && this.claimTicker) {
      clearInterval(this.claimTicker);
      this.claimTicker = null;
    }
  }

  /**
   * A correspondence game's claim: once the time of the side to move is up (counted from the
   * clock; the page is redrawn at the deadline, see CorresView), its opponent may claim the
   * game — or call it a draw —, the late mover is told to hurry, and spectators see whose time
   * is up. Before that, nothing: the deadline line says when.
   */
  renderCorresClaim() {
    const ctrl = this.ctrl;
    const node = this.dom.claim;
    this.stopClaimTicker();
    const claim = corresClaim(ctrl.game, ctrl.clockAt, performance.now());
    node.hidden = !claim || claim.left > 0;
    if (node.hidden) return;
    const seat = ctrl.seat?.color;
    node.classList.toggle('away', seat !== claim.by);
    if (seat === claim.by) {
      const off = ctrl.claimSent || !ctrl.connected ? ' disabled' : '';
      setHtml(node, `<span class="claim-title">Your opponent's time for their move is up.</span>
          <button type="button" class="primary" data-claim="win" id="corres-claim"${off}>Claim victory</button>
          <button type="button" data-claim="draw" id="corres-claim-draw"${off}>Call it a draw</button>`);
    } else if (seat === claim.mover) {
      setHtml(node, '<span class="claim-title">Your time for this move is up: your opponent may claim the game. A move now still counts.</span>');
    } else {
      setHtml(node, `<span class="claim-title">${SIDE_NAMES[claim.mover]}'s time for this move is up.</span>`);
    }
  }
}
