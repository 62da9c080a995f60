// The pages `/login` and `/signup`: one form each, a username and a password, sent with
// `fetch` as JSON (the page's security policy forbids native form submission, and JSON lets the
// server answer with its reason). While typing a new account, hints say what the server will
// take; a refusal shows the server's own words. Once in, the page goes back where the person
// came from (`?next=`, a path on this site only), or to the lobby.

import { errorText } from './api.js';
import { enter, me, PASSWORD_MAX, passwordProblem, safeNext, USERNAME_MAX, USERNAME_MIN, usernameProblem } from './account.js';
import { pick } from './ui.js';

const PAGES = {
  login: { title: 'Log in', action: 'Log in', other: 'signup', otherText: 'No account yet?', otherLink: 'Sign up', password: 'current-password' },
  signup: { title: 'Sign up', action: 'Create account', other: 'login', otherText: 'Have an account?', otherLink: 'Log in', password: 'new-password' },
};

class SignIn {
  constructor(root, kind) {
    this.kind = kind;
    this.next = new URLSearchParams(location.search).get('next');
    const page = PAGES[kind];
    const signup = kind === 'signup';
    root.innerHTML = `
      <div class="account-page">
        <form class="card account-form" id="account-form" novalidate aria-labelledby="account-title">
          <h1 id="account-title">${page.title}</h1>
          <p id="account-already" class="hint" hidden></p>
          <label for="username">Username</label>
          <input id="username" name="username" autocomplete="username" autocapitalize="off" spellcheck="false" maxlength="${USERNAME_MAX * 4}" aria-describedby="username-hint">
          <p id="username-hint" class="hint">${signup ? `${USERNAME_MIN}–${USERNAME_MAX} characters: letters a–z, digits, “_” and “-”.` : ''}</p>
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="${page.password}" maxlength="${PASSWORD_MAX * 2}" aria-describedby="password-hint">
          <p id="password-hint" class="hint">${signup ? 'At least 8 characters.' : ''}</p>
          <p id="account-error" class="error" role="alert"></p>
          <button type="submit" class="primary" id="account-submit">${page.action}</button>
          <p class="account-other">${page.otherText} <a id="account-other" href="/${page.other}">${page.otherLink}</a></p>
        </form>
      </div>`;
    this.dom = pick(root, {
      form: '#account-form', username: '#username', password: '#password', usernameHint: '#username-hint', passwordHint: '#password-hint',
      error: '#account-error', submit: '#account-submit', other: '#account-other', already: '#account-already',
    });
    const d = this.dom;
    document.title = `gambit · ${page.title}`;
    if (this.next) d.other.href = `/${page.other}?next=${encodeURIComponent(this.next)}`;
    if (!signup) {
      d.usernameHint.hidden = true;
      d.passwordHint.hidden = true;
    }
    d.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit();
    });
    if (signup) {
      d.username.addEventListener('input', () => this.hint(d.username, d.usernameHint, usernameProblem(d.username.value)));
      d.password.addEventListener('input', () => this.hint(d.password, d.passwordHint, passwordProblem(d.password.value)));
    }
    d.username.focus();
    me().then((who) => {
      if (!who) return;
      d.already.textContent = `You are logged in as ${who.username}; ${signup ? 'signing up' : 'logging in'} here switches accounts.`;
      d.already.hidden = false;
    });
  }

  /** Shows a rule as a hint while it holds, in the error colour once it is broken. */
  hint(input, node, problem) {
    const base = input === this.dom.username ? `${USERNAME_MIN}–${USERNAME_MAX} characters: letters a–z, digits, “_” and “-”.` : 'At least 8 characters.';
    const broken = Boolean(problem) && input.value !== '';
    node.textContent = broken ? problem : base;
    node.classList.toggle('bad', broken);
    if (broken) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }

  async submit() {
    const d = this.dom;
    if (d.submit.disabled) return;
    d.error.textContent = '';
    d.submit.disabled = true;
    const answer = await enter(this.kind, d.username.value.trim(), d.password.value);
    if (answer.me) {
      location.assign(safeNext(this.next, location.origin));
      return;
    }
    d.submit.disabled = false;
    d.error.textContent = errorText(answer);
    (answer.status === 401 ? d.password : d.username).focus();
  }
}

/** Starts the page `kind` ('login' or 'signup') inside `root`. */
export function startSignIn(root, kind) {
  return new SignIn(root, kind);
}
