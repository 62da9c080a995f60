// The buttons of a tournament's page — Join, Withdraw (or Pause), Start, or "Log in to join" —
// and what they do: `POST {base}/{kind}` as a form, the password asked first for a private
// tournament, the refusal's words beside the buttons, and the page told to ask again once the
// server said yes. Which buttons show is the rules' business (arenaRules.js, roundRobinRules.js:
// `[{kind, label, password?, disabled?, hint?}]`); here they are drawn and pressed.

import { pick } from '../ui.js';
import { loginPath, refusalText } from './common.js';
import { postForm } from './http.js';

export class ActionBar {
  /**
   * Draws into `host`. `base`: the tournament's API path (`/api/tournament/ID`); `page`: its
   * page's path (for the login link to come back to); `prefix`: the buttons' ids are
   * `{prefix}-{kind}`; `onDone(kind)`: the server took the action.
   */
  constructor(host, { base, page, prefix, onDone = () => {} }) {
    this.base = base;
    this.page = page;
    this.prefix = prefix;
    this.onDone = onDone;
    this.busy = false;
    this.key = null;
    this.actions = [];
    host.innerHTML = `
      <div class="tournament-actions">
        <div class="tournament-buttons" id="${prefix}-buttons"></div>
        <form class="password-form" id="${prefix}-password-form" hidden>
          <label for="${prefix}-password">Password</label>
          <input id="${prefix}-password" type="password" autocomplete="off" required>
          <button type="submit" class="primary" id="${prefix}-password-join">Join</button>
          <button type="button" id="${prefix}-password-cancel">Cancel</button>
          <p class="hint">This tournament is private: its creator gives the password.</p>
        </form>
        <p class="hint" id="${prefix}-action-hint"></p>
        <p class="error" id="${prefix}-action-error" role="alert"></p>
      </div>`;
    this.dom = pick(host, {
      buttons: `#${prefix}-buttons`, form: `#${prefix}-password-form`, password: `#${prefix}-password`,
      cancel: `#${prefix}-password-cancel`, hint: `#${prefix}-action-hint`, error: `#${prefix}-action-error`,
    });
    this.dom.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.act('join', { password: this.dom.password.value });
    });
    this.dom.cancel.addEventListener('click', () => this.closePassword());
  }

  /** Shows the buttons for `actions` (redrawn only when they change, so focus stays). */
  render(actions) {
    this.actions = actions;
    const key = JSON.stringify(actions);
    const hint = actions.map((a) => a.hint).filter(Boolean).join(' ');
    this.dom.hint.textContent = hint;
    if (!actions.some((a) => a.kind === 'join')) this.closePassword();
    if (key !== this.key) {
      this.key = key;
      this.dom.buttons.replaceChildren(...actions.map((a) => this.button(a)));
    }
    this.sync();
  }

  button(action) {
    if (action.kind === 'login') {
      return Object.assign(document.createElement('a'), {
        id: `${this.prefix}-login`, className: 'button primary', href: loginPath(this.page), textContent: action.label,
      });
    }
    const b = Object.assign(document.createElement('button'), {
      type: 'button', id: `${this.prefix}-${action.kind}`, textContent: action.label,
      className: action.kind === 'withdraw' ? '' : 'primary',
    });
    b.dataset.kind = action.kind;
    b.addEventListener('click', () => {
      if (action.kind === 'join' && action.password) this.openPassword();
      else this.act(action.kind);
    });
    return b;
  }

  /** Buttons usable unless a request is on its way (or the rules say not yet). */
  sync() {
    for (const b of this.dom.buttons.querySelectorAll('button')) {
      const action = this.actions.find((a) => a.kind === b.dataset.kind);
      b.disabled = this.busy || Boolean(action?.disabled);
    }
    for (const b of this.dom.form.querySelectorAll('button[type="submit"]')) b.disabled = this.busy;
    this.dom.buttons.setAttribute('aria-busy', String(this.busy));
  }

  openPassword() {
    this.dom.error.textContent = '';
    this.dom.form.hidden = false;
    this.dom.password.focus();
  }

  closePassword() {
    this.dom.form.hidden = true;
    this.dom.password.value = '';
  }

  /** `POST {base}/{kind}`; the page asks again once it is done. */
  async act(kind, fields = {}) {
    if (this.busy) return;
    this.busy = true;
    this.dom.error.textContent = '';
    this.sync();
    const answer = await postForm(`${this.base}/${kind}`, fields);
    this.busy = false;
    if (answer.status === 200 && answer.data?.ok !== false) {
      if (kind === 'join') this.closePassword();
      this.sync();
      this.onDone(kind);
      return;
    }
    this.dom.error.textContent = refusalText(answer);
    this.sync();
    if (kind === 'join' && !this.dom.form.hidden) this.dom.password.select();
  }

  /** Shows `text` as the buttons' error (or clears it). */
  setError(text) {
    this.dom.error.textContent = text;
  }
}
