// The top bar's challenges, on every page while logged in: a button with the number of
// challenges waiting for this player, and its panel — each challenge to them (who, the time
// control, the variant, rated or casual; Accept, or Decline with a reason) and each they sent
// (Cancel). A new challenge opens the panel and is announced to screen readers; one withdrawn
// or answered leaves it. Accepting opens the game the server made.

import { errorText, getJson, postJson } from './api.js';
import { playerPath } from './account.js';
import { ChallengeList, challengeTerms, DECLINE_REASONS, declineReasonsFor, opponentOf, partyName, sideForChallenged } from './challenges.js';
import { expectGame, forgetGame, onEvent, openGame } from './events.js';
import { dropdown, escapeHtml, pick } from './ui.js';

/** Two crossed swords: the button's picture. */
const ICON = `<svg viewBox="0 0 24 24" aria-hidden="true" class="challenge-icon"><path d="M4 4l9 9M20 4l-9 9M6 15l-2 2 3 3 2-2M18 15l2 2-3 3-2-2M3 3h4M3 3v4M21 3h-4M21 3v4" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>`;

/** A user of a challenge, as HTML: their name linking to their page, the rating, a BOT mark. */
function userHtml(user) {
  const name = partyName(user);
  const rating = Number.isFinite(user?.rating) ? ` <span class="challenge-rating">(${Math.round(user.rating)}${user.provisional ? '?' : ''})</span>` : '';
  const bot = user?.title === 'BOT' ? ' <span class="bot-badge">BOT</span>' : '';
  return `<a class="challenge-name" href="${escapeHtml(playerPath(name))}">${escapeHtml(name)}</a>${rating}${bot}`;
}

/** One challenge to this player, as a list item's HTML. */
export function incomingHtml(c) {
  const reasons = declineReasonsFor(c).map((key) => `<option value="${key}">${escapeHtml(DECLINE_REASONS[key][0])}</option>`).join('');
  return `<p class="challenge-who">${userHtml(c.challenger)}</p>
    <p class="challenge-terms">${escapeHtml(challengeTerms(c))} · ${escapeHtml(sideForChallenged(c))}</p>
    <div class="challenge-actions">
      <button type="button" class="primary challenge-accept">Accept</button>
      <button type="button" class="challenge-decline">Decline</button>
      <label class="challenge-reason-label">Reason <select class="challenge-reason">${reasons}</select></label>
    </div>
    <p class="challenge-error error" role="alert"></p>`;
}

/** One challenge this player sent, as a list item's HTML. */
export function outgoingHtml(c) {
  return `<p class="challenge-who">To ${userHtml(c.destUser)}</p>
    <p class="challenge-terms">${escapeHtml(challengeTerms(c))}</p>
    <div class="challenge-actions">
      <span class="challenge-waiting">Waiting for an answer…</span>
      <button type="button" class="challenge-cancel">Cancel</button>
    </div>
    <p class="challenge-error error" role="alert"></p>`;
}

class ChallengeBar {
  constructor(slot, me) {
    this.me = me;
    this.list = new ChallengeList(me);
    this.items = new Map(); // challenge id → its list item
    this.settled = false; // the waiting challenges are loaded: a challenge now is a new arrival
    slot.innerHTML = `
      <button type="button" id="challenge-toggle" class="challenge-toggle" aria-expanded="false" aria-controls="challenge-panel" aria-label="Challenges">
        ${ICON}<span id="challenge-count" class="challenge-count" hidden></span>
      </button>
      <section id="challenge-panel" class="challenge-panel" hidden aria-labelledby="challenge-panel-title">
        <h2 id="challenge-panel-title">Challenges</h2>
        <ul id="challenge-list" class="challenge-list"></ul>
        <p id="challenge-none" class="hint">No challenges waiting.</p>
      </section>
      <p id="challenge-news" class="visually-hidden" role="status" aria-live="polite"></p>`;
    slot.hidden = false;
    this.dom = pick(slot, {
      toggle: '#challenge-toggle', count: '#challenge-count', panel: '#challenge-panel', list: '#challenge-list', none: '#challenge-none', news: '#challenge-news',
    });
    const d = this.dom;
    this.setOpen = dropdown(slot, d.toggle, d.panel);
    d.list.addEventListener('click', (e) => this.clicked(e));
    onEvent((event) => this.event(event));
    this.render();
  }

  async event(event) {
    if (event.type === 'streamOpen') {
      this.settled = false;
      delete this.dom.toggle.dataset.settled;
      const answer = await getJson('/api/challenge');
      if (answer.status === 200) this.list.load(answer.data);
      this.settled = true;
      // For the curious and the browser tests: from now on a challenge is news.
      this.dom.toggle.dataset.settled = 'true';
      this.render();
      return;
    }
    const { arrived, changed } = this.list.apply(event);
    if (arrived && this.settled) {
      this.dom.news.textContent = `${partyName(arrived.challenger)} challenges you: ${challengeTerms(arrived)}.`;
      this.setOpen(true);
    }
    if (arrived || changed) this.render();
  }

  /** Brings the list items in line with the challenges waiting, keeping the ones still there (and their focus). */
  render() {
    const d = this.dom;
    const waiting = [...this.list.waitingIn.map((c) => ['incoming', c]), ...this.list.waitingOut.map((c) => ['outgoing', c])];
    const ids = new Set(waiting.map(([, c]) => c.id));
    let lostFocus = false;
    for (const [id, li] of this.items) {
      if (!ids.has(id) && li.dataset.state !== 'accepted') {
        lostFocus ||= li.contains(document.activeElement);
        li.remove();
        this.items.delete(id);
      }
    }
    if (lostFocus) d.toggle.focus();
    for (const [kind, c] of waiting) {
      if (this.items.has(c.id)) continue;
      const li = document.createElement('li');
      li.className = `challenge ${kind}`;
      li.dataset.challenge = c.id;
      li.innerHTML = kind === 'incoming' ? incomingHtml(c) : outgoingHtml(c);
      this.items.set(c.id, li);
      d.list.append(li);
    }
    const count = this.list.waitingIn.length;
    d.count.textContent = String(count);
    d.count.hidden = count === 0;
    d.toggle.setAttribute('aria-label', count ? `Challenges: ${count} waiting` : 'Challenges');
    d.toggle.classList.toggle('waiting', count > 0);
    d.none.hidden = this.items.size > 0;
  }

  clicked(e) {
    const button = e.target.closest('button');
    const li = button?.closest('li.challenge');
    if (!li || button.disabled) return;
    const id = li.dataset.challenge;
    if (button.classList.contains('challenge-accept')) this.accept(id, li);
    else if (button.classList.contains('challenge-decline')) this.answer(id, li, 'decline', { reason: li.querySelector('.challenge-reason').value });
    else if (button.classList.contains('challenge-cancel')) this.answer(id, li, 'cancel');
  }

  busy(li, busy) {
    for (const control of li.querySelectorAll('button, select')) control.disabled = busy;
  }

  async accept(id, li) {
    const c = this.list.incoming.get(id);
    const opponent = c ? opponentOf(c, this.me) : null;
    this.busy(li, true);
    li.querySelector('.challenge-error').textContent = '';
    expectGame(opponent);
    const answer = await postJson(`/api/challenge/${encodeURIComponent(id)}/accept`);
    if (answer.status !== 200) {
      forgetGame(opponent);
      this.failed(id, li, answer);
      return;
    }
    li.dataset.state = 'accepted';
    li.querySelector('.challenge-actions').innerHTML = '<span class="challenge-waiting">Starting the game…</span>';
    this.dom.news.textContent = 'Challenge accepted: starting the game.';
    this.list.remove(id);
    this.render();
    // The server names the game it made (gambit's addition to lichess's answer); the event
    // stream's gameStart would lead there too.
    const game = answer.data?.game;
    if (typeof game === 'string' && game) openGame(game);
  }

  /** Declines (`decline`, with its reason) or withdraws (`cancel`) challenge `id`. */
  async answer(id, li, action, body) {
    this.busy(li, true);
    li.querySelector('.challenge-error').textContent = '';
    const answer = await postJson(`/api/challenge/${encodeURIComponent(id)}/${action}`, body);
    if (answer.status !== 200) {
      this.failed(id, li, answer);
      return;
    }
    this.dom.news.textContent = action === 'decline' ? 'Challenge declined.' : 'Challenge withdrawn.';
    this.list.remove(id);
    this.render();
  }

  failed(id, li, answer) {
    if (answer.status === 404) {
      // Answered, withdrawn or expired meanwhile.
      this.list.remove(id);
      this.render();
      this.dom.news.textContent = 'That challenge is no longer waiting.';
      return;
    }
    this.busy(li, false);
    li.querySelector('.challenge-error').textContent = errorText(answer);
  }
}

/** Puts the challenges into the top bar (`#challenge-menu`) for the logged-in `who`. */
export function installChallengeBar(who) {
  const slot = document.getElementById('challenge-menu');
  if (!slot || !who) return null;
  return new ChallengeBar(slot, who.username);
}
