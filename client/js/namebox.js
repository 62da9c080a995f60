// The player's display name on this browser: the "Playing as Alice · change" control in the top
// bar (of the lobby and the game page alike), and the dialog that asks for the name — when the
// person asks to change it, and the first time they take a seat (create or join) with no name
// stored. The name lives in localStorage (store.js) and goes with every `create`, `join`,
// `seek` and `accept_seek`, and with `watch` as a spectator's name in the chat; a seat already
// taken keeps the name it was taken with.
//
// A browser logged in to an account plays under its username instead: the control is hidden
// (account.js shows the username in its place) and a seat is taken without asking.

import { me } from './account.js';
import { checkName, NAME_MAX } from './names.js';
import { loadName, NAME_KEY, saveName } from './store.js';
import { escapeHtml, pick } from './ui.js';

const WHY_SEAT = 'Choose the name your opponent and the spectators will see next to the board.';
const WHY_CHANGE = 'The name for the games you create or join from now on.';
const WHY_CHAT = 'Choose the name the others in the chat will see next to your lines.';

class NameBox {
  constructor() {
    // Its own part of the top bar (`#me` holds the account's part too).
    this.slot = document.getElementById('name-box') || document.getElementById('me');
    // A native modal dialog: it keeps focus inside, closes on Escape, and tells assistive
    // technology it is modal, with nothing of ours to get wrong.
    const dialog = document.createElement('dialog');
    dialog.id = 'name-dialog';
    dialog.className = 'name-dialog';
    dialog.setAttribute('aria-labelledby', 'name-title');
    dialog.setAttribute('aria-describedby', 'name-why');
    dialog.innerHTML = `
      <form id="name-form" novalidate>
        <h2 id="name-title">Your name</h2>
        <p id="name-why" class="hint"></p>
        <label for="name-input">Name</label>
        <input id="name-input" name="name" autocomplete="nickname" spellcheck="false" aria-describedby="name-rule name-error">
        <p id="name-rule" class="hint">Up to ${NAME_MAX} characters: letters, digits, spaces, “_”, “-” and “.”</p>
        <p id="name-error" class="error" role="alert"></p>
        <div class="row">
          <button type="submit" class="primary" id="name-save">Save</button>
          <button type="button" id="name-cancel">Cancel</button>
        </div>
      </form>`;
    document.body.append(dialog);
    this.dialog = dialog;
    this.dom = pick(dialog, { form: '#name-form', why: '#name-why', input: '#name-input', error: '#name-error', save: '#name-save', cancel: '#name-cancel' });
    this.settle = null; // resolves the promise of the dialog now open
    this.dom.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    // Once a mistake is shown, it goes away as soon as the name is fixed.
    this.dom.input.addEventListener('input', () => {
      if (this.dom.error.textContent) this.showError(checkName(this.dom.input.value).error || '');
    });
    this.dom.cancel.addEventListener('click', () => this.finish(null));
    // Escape closes the dialog by itself: that is a cancel too. (A close event can arrive after
    // the dialog was opened again; then it is not about the dialog now open.)
    dialog.addEventListener('close', () => {
      if (!dialog.open) this.finish(null);
    });
    this.slot?.addEventListener('click', (e) => {
      if (e.target.closest('#change-name')) this.ask({ why: WHY_CHANGE });
    });
    // A name chosen in another tab shows here too.
    window.addEventListener('storage', (e) => {
      if (e.key === NAME_KEY || e.key === null) this.render();
    });
    this.render();
  }

  /** The top bar's control: the name with a way to change it, or a way to choose one. */
  render() {
    if (!this.slot) return;
    const name = loadName();
    this.slot.innerHTML = name
      ? `<span>Playing as <strong id="my-name">${escapeHtml(name)}</strong></span> · <button type="button" class="link" id="change-name" aria-label="Change your name">change</button>`
      : '<button type="button" class="link" id="change-name">Choose a name</button>';
  }

  /**
   * Opens the dialog; resolves to the name saved, or null when the person cancels. `why` says
   * what the name is for; `error` is a refusal to show at once (the server's words).
   */
  ask({ why, error = '', action = 'Save' }) {
    this.finish(null);
    const d = this.dom;
    d.why.textContent = why;
    d.save.textContent = action;
    d.input.value = loadName() || '';
    this.showError(error);
    this.dialog.showModal();
    d.input.focus();
    d.input.select();
    return new Promise((resolve) => { this.settle = resolve; });
  }

  submit() {
    const { name, error } = checkName(this.dom.input.value);
    if (error) {
      this.showError(error);
      this.dom.input.focus();
      return;
    }
    saveName(name);
    this.render();
    this.finish(name);
  }

  showError(text) {
    this.dom.error.textContent = text;
    if (text) this.dom.input.setAttribute('aria-invalid', 'true');
    else this.dom.input.removeAttribute('aria-invalid');
  }

  /** Closes the dialog and settles its promise with `name` (null: cancelled). */
  finish(name) {
    const settle = this.settle;
    this.settle = null;
    if (this.dialog.open) this.dialog.close();
    settle?.(name);
  }
}

let box = null;

function nameBox() {
  box ??= new NameBox();
  return box;
}

/** Puts the name control into the top bar (`#me`); the page calls it once at start. */
export function installNameBox() {
  nameBox();
}

/**
 * The name to take a seat with: the stored one, or one asked for now (the dialog opens and
 * the action goes on once a name is saved). Resolves to null when the person cancels.
 */
export async function nameForSeat() {
  return (await accountName()) ?? loadName() ?? nameBox().ask({ why: WHY_SEAT, action: 'Continue' });
}

/** The name to chat under as a spectator: the stored one, or one asked for now (null: cancelled). */
export async function nameForChat() {
  return (await accountName()) ?? loadName() ?? nameBox().ask({ why: WHY_CHAT, action: 'Continue' });
}

/** The username of the account this browser is logged in as, or null (the server names its seats). */
async function accountName() {
  try {
    return (await me())?.username ?? null;
  } catch {
    return null;
  }
}

/**
 * Asks again after the server refused the name (`message` is its refusal, shown in the dialog);
 * resolves to the new name, or null.
 */
export function askAgain(message) {
  return nameBox().ask({ why: WHY_SEAT, error: message, action: 'Continue' });
}
