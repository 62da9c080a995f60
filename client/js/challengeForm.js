// The form that challenges one player by name (on their page, for each bot on /bots, and for
// each friend online in the lobby's Friends panel): a time control (a clock, days per move for
// correspondence, or untimed), the variant, one's side,
// rated or casual; then "Waiting for NAME…" with Cancel until the answer comes through the
// event stream (events.js): declined with the reason's words, withdrawn, or accepted — then
// events.js takes the page to the game on its `gameStart`.

import { errorText, getJson, postJson } from './api.js';
import { challengeRequest, declineText, DEFAULT_TIME, mayBeRated, TIME_CONTROLS, timeControlKind, VARIANTS } from './challenges.js';
import { expectGame, forgetGame, onEvent } from './events.js';
import { pick } from './ui.js';

const SIDES = [['white', 'White'], ['black', 'Black'], ['random', 'Random']];

/** The time control select's options: the clocks and the days per move in groups, untimed last. */
function timeOptions() {
  const option = ([value, label]) => `<option value="${value}"${value === DEFAULT_TIME ? ' selected' : ''}>${label}</option>`;
  const of = (kind) => TIME_CONTROLS.filter(([value]) => timeControlKind(value) === kind).map(option).join('');
  return `<optgroup label="Real time">${of('clock')}</optgroup><optgroup label="Correspondence">${of('days')}</optgroup>${of('untimed')}`;
}

export class ChallengeForm {
  /**
   * Draws the form inside `host`, for player `name`. With `toggle`, a "Challenge to a game"
   * button opens it; without, the owner calls `show(name)`. `onBusy(busy)` hears when a challenge starts and
   * stops waiting.
   */
  constructor(host, { name = null, toggle = true, onBusy = () => {} } = {}) {
    this.name = name;
    this.pending = null; // the id of the challenge sent, while it waits
    this.onBusy = onBusy;
    host.innerHTML = `
      <div class="challenge-box">
        <button type="button" class="primary" id="challenge-open" aria-expanded="false" aria-controls="challenge-form"${toggle ? '' : ' hidden data-toggle="off"'}>Challenge to a game</button>
        <form class="card challenge-form" id="challenge-form" hidden aria-labelledby="challenge-title">
          <h2 id="challenge-title">Challenge</h2>
          <label>Time control
            <select id="challenge-time">${timeOptions()}</select>
          </label>
          <label>Variant
            <select id="challenge-variant">${Object.entries(VARIANTS).map(([key, label]) => `<option value="${key}">${label}</option>`).join('')}</select>
          </label>
          <fieldset class="choice"><legend>Your side</legend>
            ${SIDES.map(([value, label]) => `<label><input type="radio" name="challenge-color" id="challenge-color-${value}" value="${value}"${value === 'random' ? ' checked' : ''}> ${label}</label>`).join('')}
          </fieldset>
          <label class="rated-choice"><span><input type="checkbox" id="challenge-rated"> Rated</span>
            <span class="hint" id="challenge-rated-hint" hidden>an untimed game is never rated</span></label>
          <p id="challenge-error" class="error" role="alert"></p>
          <div class="challenge-buttons">
            <button type="submit" class="primary" id="challenge-send">Send challenge</button>
            <button type="button" id="challenge-close">Close</button>
          </div>
        </form>
        <div class="challenge-wait">
          <p id="challenge-status" class="challenge-status" role="status" aria-live="polite"></p>
          <button type="button" id="challenge-cancel" hidden>Cancel</button>
        </div>
      </div>`;
    this.dom = pick(host, {
      open: '#challenge-open', form: '#challenge-form', title: '#challenge-title', time: '#challenge-time', variant: '#challenge-variant',
      rated: '#challenge-rated', ratedHint: '#challenge-rated-hint', error: '#challenge-error', send: '#challenge-send',
      close: '#challenge-close', status: '#challenge-status', cancel: '#challenge-cancel',
    });
    const d = this.dom;
    d.open.addEventListener('click', () => (d.form.hidden ? this.show(this.name) : this.hide()));
    d.close.addEventListener('click', () => this.hide());
    d.time.addEventListener('change', () => this.syncRated());
    d.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.send();
    });
    d.cancel.addEventListener('click', () => this.cancel());
    onEvent((event) => this.event(event));
    this.syncRated();
  }

  /** The player to challenge; the form shows for them. */
  show(name) {
    const d = this.dom;
    if (this.pending || !name) return;
    this.name = name;
    d.title.textContent = `Challenge ${name}`;
    d.error.textContent = '';
    d.status.textContent = '';
    d.form.hidden = false;
    d.open.setAttribute('aria-expanded', 'true');
    d.time.focus();
  }

  hide() {
    this.dom.form.hidden = true;
    this.dom.open.setAttribute('aria-expanded', 'false');
  }

  /** Rated only with a clock or days per move. */
  syncRated() {
    const d = this.dom;
    const timed = mayBeRated(d.time.value);
    d.rated.disabled = !timed;
    if (!timed) d.rated.checked = false;
    d.ratedHint.hidden = timed;
  }

  async send() {
    const d = this.dom;
    if (d.send.disabled || this.pending) return;
    d.error.textContent = '';
    d.send.disabled = true;
    const color = d.form.querySelector('input[name="challenge-color"]:checked')?.value;
    const body = challengeRequest({ time: d.time.value, variant: d.variant.value, color, rated: d.rated.checked });
    // Expected before asking: a bot may accept before the answer to this request is read.
    expectGame(this.name);
    const answer = await postJson(`/api/challenge/${encodeURIComponent(this.name)}`, body);
    d.send.disabled = false;
    const id = answer.data?.id ?? answer.data?.challenge?.id;
    if (answer.status !== 200 || typeof id !== 'string') {
      forgetGame(this.name);
      d.error.textContent = errorText(answer);
      return;
    }
    this.pending = id;
    this.hide();
    d.open.hidden = true;
    d.status.textContent = `Waiting for ${this.name}…`;
    d.cancel.hidden = false;
    d.cancel.disabled = false;
    d.cancel.focus();
    this.onBusy(true);
  }

  async cancel() {
    const d = this.dom;
    if (!this.pending) return;
    d.cancel.disabled = true;
    const answer = await postJson(`/api/challenge/${encodeURIComponent(this.pending)}/cancel`);
    if (answer.status === 200 || answer.status === 404) {
      this.finish(answer.status === 200 ? 'Challenge withdrawn.' : 'The challenge is no longer waiting.');
      return;
    }
    d.cancel.disabled = false;
    d.status.textContent = errorText(answer);
  }

  /** The wait is over: `text` says how; the button to challenge again comes back. */
  finish(text, { forget = true } = {}) {
    const d = this.dom;
    if (forget) forgetGame(this.name);
    this.pending = null;
    d.cancel.hidden = true;
    d.status.textContent = text;
    const hadFocus = d.cancel === document.activeElement;
    d.open.hidden = d.open.dataset.toggle === 'off';
    if (hadFocus && !d.open.hidden) d.open.focus();
    this.onBusy(false);
  }

  event(event) {
    const c = event.challenge;
    switch (event.type) {
      case 'challengeDeclined':
        if (this.pending && c?.id === this.pending) this.finish(`${this.name} declined: ${declineText(c)}`);
        break;
      case 'challengeCanceled':
        if (this.pending && c?.id === this.pending) this.finish('Challenge withdrawn.');
        break;
      case 'gameStart':
        if (this.pending && event.game?.opponent?.username?.toLowerCase() === this.name.toLowerCase()) {
          this.dom.status.textContent = `${this.name} accepted: starting the game…`;
          this.dom.cancel.hidden = true;
        }
        break;
      case 'streamOpen':
        // Back after a break: an answer may have been missed. (An accepted challenge's game
        // arrives as a `gameStart` on the stream itself, so the page still goes to it.)
        if (this.pending) this.recheck(this.pending);
        break;
      default:
        break;
    }
  }

  async recheck(id) {
    const answer = await getJson(`/api/challenge/${encodeURIComponent(id)}/show`);
    if (answer.status === 404 && this.pending === id) this.finish('The challenge is no longer waiting.', { forget: false });
  }
}
