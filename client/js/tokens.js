// The page `/account/tokens`: personal API tokens, as on lichess. A form makes one (a
// description and what it may do: lichess's scopes, the four gambit uses first, each said in a
// line, the rest under "More"); the new token is shown this once, with a copy button; the
// list shows every token of the account (never the token itself) with Revoke, confirmed first.
// From `POST`/`GET /api/tokens` and `DELETE /api/tokens/{id}`, with the session cookie.

import { deleteJson, errorText, getJson, postJson } from './api.js';
import { me } from './account.js';
import { escapeHtml, pick } from './ui.js';

/** The scopes gambit's API uses: [key, what it allows, a line on what for]. */
export const MAIN_SCOPES = [
  ['board:play', 'Play games with the Board API', 'Play your own games from a program: a board app, a physical board, a terminal client.'],
  ['bot:play', 'Play games with the Bot API', 'Let a program play as a bot account (lichess-bot); a bot account plays only through it.'],
  ['challenge:read', 'Read incoming challenges', 'See who challenges you, and to what game.'],
  ['challenge:write', 'Send, accept and reject challenges', 'Challenge players by name, and answer their challenges.'],
];

/** lichess's other scopes, taken so that programs written for lichess may ask for them. */
export const OTHER_SCOPES = [
  ['preference:read', 'Read preferences'],
  ['preference:write', 'Write preferences'],
  ['email:read', 'Read email address'],
  ['challenge:bulk', 'Create many games at once for other players'],
  ['study:read', 'Read private studies and broadcasts'],
  ['study:write', 'Create, update, delete studies and broadcasts'],
  ['tournament:write', 'Create, update and join tournaments'],
  ['racer:write', 'Create and join puzzle races'],
  ['puzzle:read', 'Read puzzle activity'],
  ['puzzle:write', 'Write puzzle activity'],
  ['team:read', 'Read private team information'],
  ['team:write', 'Join and leave teams'],
  ['team:lead', 'Manage teams you lead'],
  ['follow:read', 'Read followed players'],
  ['follow:write', 'Follow and unfollow other players'],
  ['msg:write', 'Send private messages to other players'],
  ['engine:read', 'View and use your external engines'],
  ['engine:write', 'Create and update external engines'],
];

/** The longest description the server takes, in characters. */
export const DESCRIPTION_MAX = 200;

/** What a scope allows, as people read it; the key itself for one this page does not know. */
export function scopeLabel(key) {
  return [...MAIN_SCOPES, ...OTHER_SCOPES].find(([k]) => k === key)?.[1] ?? String(key);
}

/** The body of `POST /api/tokens` for the form's `description` and ticked `scopes`: `{body}`, or `{error}` to show. */
export function tokenRequest(description, scopes) {
  const text = String(description ?? '').trim();
  if (!text) return { error: 'Give the token a description: what it is for.' };
  if ([...text].length > DESCRIPTION_MAX) return { error: `A description has at most ${DESCRIPTION_MAX} characters.` };
  if (/\p{Cc}/u.test(text)) return { error: 'A description is one line of text.' };
  return { body: { description: text, scopes: [...new Set(scopes)] } };
}

/** A scope's checkbox, as HTML. */
function scopeBox([key, label, hint]) {
  const id = `scope-${key.replace(':', '-')}`;
  return `<label class="scope" for="${id}"><input type="checkbox" name="scope" id="${id}" value="${key}">
    <span><strong>${escapeHtml(label)}</strong> <code>${key}</code>${hint ? `<span class="hint">${escapeHtml(hint)}</span>` : ''}</span></label>`;
}

/** One token of the list, as a list item (everything the server sent set as text). */
export function tokenItem(t) {
  const li = document.createElement('li');
  li.className = 'token';
  li.dataset.token = String(t.id);
  const when = Number.isFinite(t.createdAt) ? new Date(t.createdAt).toLocaleDateString() : '';
  const scopes = Array.isArray(t.scopes) && t.scopes.length ? t.scopes.map(String).join(', ') : 'no scopes';
  li.innerHTML = `
    <div class="token-about">
      <strong class="token-description">${escapeHtml(t.description ?? '')}</strong>
      <span class="hint">${when ? `Created ${escapeHtml(when)} · ` : ''}<span class="token-scopes">${escapeHtml(scopes)}</span></span>
    </div>
    <div class="token-actions">
      <button type="button" class="token-revoke">Revoke</button>
      <span class="token-confirm" hidden>Revoke it? Programs using it stop working.
        <button type="button" class="danger token-revoke-yes">Revoke</button>
        <button type="button" class="token-revoke-no">Keep</button></span>
    </div>
    <p class="error token-error" role="alert"></p>`;
  return li;
}

class TokensPage {
  constructor(root) {
    this.root = root;
    document.title = 'gambit · API access tokens';
    root.innerHTML = `
      <div class="tokens-page">
        <h1>API access tokens</h1>
        <p class="hint">A token lets a program act as you through the API, which speaks lichess's: tools written for lichess
          (lichess-bot, berserk, board apps) work here with this server's address. A program sends it as
          <code>Authorization: Bearer TOKEN</code>. Give each program its own, with only what it needs.</p>
        <div id="tokens-body"></div>
      </div>`;
    this.body = root.querySelector('#tokens-body');
  }

  async start() {
    const who = await me();
    if (!who) {
      this.body.innerHTML = `<p class="card">Log in to make and manage your tokens.
        <a id="tokens-login" href="/login?next=${encodeURIComponent('/account/tokens')}">Log in</a></p>`;
      return;
    }
    this.body.innerHTML = `
      <section class="card" aria-labelledby="token-new-title">
        <h2 id="token-new-title">New token</h2>
        <form id="token-form" class="token-form" novalidate>
          <label for="token-description">Description</label>
          <input id="token-description" maxlength="${DESCRIPTION_MAX * 2}" autocomplete="off" placeholder="What it is for, e.g. my board app">
          <fieldset class="scopes"><legend>What it may do</legend>
            ${MAIN_SCOPES.map(scopeBox).join('')}
            <details class="more-scopes"><summary>More scopes</summary>
              <p class="hint">lichess's other scopes: programs written for lichess may ask for them.</p>
              ${OTHER_SCOPES.map(scopeBox).join('')}
            </details>
          </fieldset>
          <p id="token-error" class="error" role="alert"></p>
          <button type="submit" class="primary" id="token-create">Create token</button>
        </form>
      </section>
      <section id="token-made" class="card token-made" hidden aria-labelledby="token-made-title" tabindex="-1">
        <h2 id="token-made-title">Your new token</h2>
        <p class="warning"><strong>Copy it now: it will not be shown again.</strong> Keep it secret, as a password.</p>
        <div class="row"><input id="token-text" readonly aria-label="The new token" spellcheck="false">
          <button type="button" id="token-copy">Copy</button></div>
        <p id="token-copied" role="status" aria-live="polite"></p>
      </section>
      <section class="card" aria-labelledby="token-list-title">
        <h2 id="token-list-title" tabindex="-1">Your tokens</h2>
        <ul id="token-list" class="token-list" aria-busy="true"></ul>
        <p id="token-list-error" class="error" role="alert"></p>
      </section>`;
    this.dom = pick(this.body, {
      form: '#token-form', description: '#token-description', error: '#token-error', create: '#token-create', made: '#token-made',
      text: '#token-text', copy: '#token-copy', copied: '#token-copied', list: '#token-list', listError: '#token-list-error',
    });
    const d = this.dom;
    d.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.create();
    });
    d.copy.addEventListener('click', () => this.copy());
    d.list.addEventListener('click', (e) => this.clicked(e));
    await this.load();
  }

  async load() {
    const d = this.dom;
    const answer = await getJson('/api/tokens');
    d.list.setAttribute('aria-busy', 'false');
    if (answer.status !== 200 || !Array.isArray(answer.data?.tokens)) {
      d.listError.textContent = errorText(answer);
      return;
    }
    d.listError.textContent = '';
    const items = answer.data.tokens.filter((t) => t && t.id !== undefined).map(tokenItem);
    if (!items.length) items.push(Object.assign(document.createElement('li'), { className: 'none', textContent: 'No tokens yet.' }));
    d.list.replaceChildren(...items);
    d.list.dataset.loaded = String(answer.data.tokens.length);
  }

  async create() {
    const d = this.dom;
    if (d.create.disabled) return;
    const scopes = [...d.form.querySelectorAll('input[name="scope"]:checked')].map((box) => box.value);
    const request = tokenRequest(d.description.value, scopes);
    if (request.error) {
      d.error.textContent = request.error;
      d.description.focus();
      return;
    }
    d.error.textContent = '';
    d.create.disabled = true;
    const answer = await postJson('/api/tokens', request.body);
    d.create.disabled = false;
    if (answer.status !== 201 && answer.status !== 200) {
      d.error.textContent = errorText(answer);
      return;
    }
    d.text.value = String(answer.data?.token ?? '');
    d.copied.textContent = '';
    d.made.hidden = false;
    d.made.focus();
    d.form.reset();
    await this.load();
  }

  async copy() {
    const d = this.dom;
    d.text.select();
    try {
      await navigator.clipboard.writeText(d.text.value);
      d.copied.textContent = 'Copied.';
    } catch {
      // No clipboard access (an insecure origin, a refusal): the token is selected for the keys.
      d.copied.textContent = document.execCommand?.('copy') ? 'Copied.' : 'Selected: copy it with Ctrl+C (⌘C).';
    }
  }

  clicked(e) {
    const button = e.target.closest('button');
    const li = button?.closest('li.token');
    if (!li || button.disabled) return;
    const confirm = li.querySelector('.token-confirm');
    const revoke = li.querySelector('.token-revoke');
    if (button === revoke) {
      revoke.hidden = true;
      confirm.hidden = false;
      li.querySelector('.token-revoke-no').focus();
    } else if (button.classList.contains('token-revoke-no')) {
      confirm.hidden = true;
      revoke.hidden = false;
      revoke.focus();
    } else if (button.classList.contains('token-revoke-yes')) {
      this.revoke(li, button);
    }
  }

  async revoke(li, button) {
    button.disabled = true;
    const answer = await deleteJson(`/api/tokens/${encodeURIComponent(li.dataset.token)}`);
    if (answer.status === 204 || answer.status === 200 || answer.status === 404) {
      await this.load();
      document.getElementById('token-list-title')?.focus();
      return;
    }
    button.disabled = false;
    li.querySelector('.token-error').textContent = errorText(answer);
  }
}

/** Starts the tokens page inside `root`. */
export function startTokens(root) {
  const page = new TokensPage(root);
  page.start();
  return page;
}
