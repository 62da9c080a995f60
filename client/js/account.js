// The account this browser is logged in as: the API calls (sign up, log in, log out, who am I)
// and the top bar's part of them — the username linking to the player page with "Log out", or
// "Log in" and "Sign up". The session is an HttpOnly cookie the server sets: the page never sees
// it, and every request to the server (the WebSocket too) carries it by itself.
//
// The rules for usernames and passwords are here too, as hints shown while typing; the server
// stays the authority and its refusal is what the forms show.

import { getJson, postJson } from './api.js';
import { forgetName } from './store.js';

export const USERNAME_MIN = 3;
export const USERNAME_MAX = 20;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 200;

/** What is wrong with `text` as a new username, or null when the server would take it (unless taken). */
export function usernameProblem(text) {
  const name = String(text ?? '');
  const bad = [...name].find((c) => !/^[A-Za-z0-9_-]$/.test(c));
  if (bad !== undefined) return `${bad === ' ' ? 'A space' : `“${bad}”`} cannot be in a username: use letters a–z, digits, “_” and “-”.`;
  if (name.length < USERNAME_MIN) return `A username has at least ${USERNAME_MIN} characters.`;
  if (name.length > USERNAME_MAX) return `A username has at most ${USERNAME_MAX} characters; this one has ${name.length}.`;
  return null;
}

/** What is wrong with `text` as a new password, or null. */
export function passwordProblem(text) {
  const length = [...String(text ?? '')].length;
  if (length < PASSWORD_MIN) return `A password has at least ${PASSWORD_MIN} characters.`;
  if (length > PASSWORD_MAX) return `A password has at most ${PASSWORD_MAX} characters.`;
  return null;
}

/**
 * Where to go after logging in: `next` when it is a path on this site (`origin`), else "/".
 * Never another site (`//evil.example`, `https://…`, `/\\evil`, `/..//evil`), never back to the
 * forms. The path is judged as it comes out of normalisation, since that is what the browser
 * is sent to: `/..//evil.example` passes every test on the raw string and becomes `//evil.example`.
 */
export function safeNext(next, origin) {
  if (typeof next !== 'string' || !next.startsWith('/')) return '/';
  let url;
  try {
    url = new URL(next, origin);
  } catch {
    return '/';
  }
  const home = new URL(origin).origin;
  if (url.origin !== home) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return '/';
  // Read back as the browser will: still a path here.
  if (new URL(path, origin).origin !== home) return '/';
  if (url.pathname === '/login' || url.pathname === '/signup') return '/';
  return path;
}

/** `Me` from the server's answer, checked: `{username, playing}` or null. */
export function parseMe(data) {
  if (!data || typeof data.username !== 'string' || !data.username) return null;
  const playing = Array.isArray(data.playing) ? data.playing.filter((id) => typeof id === 'string' && id) : [];
  return { username: data.username, playing };
}

let current = null;

/**
 * Who this browser is logged in as: a promise of `{username, playing}`, or of null. Asked once
 * per page. A visitor is answered 200 `null` (an older server said 401: read the same way).
 */
export function me() {
  current ??= getJson('/api/me').then(({ status, data }) => (status === 200 ? parseMe(data) : null));
  return current;
}

/** `POST /api/signup` or `/api/login` (`kind`): `{me}` on success, else `{status, data}` to show. */
export async function enter(kind, username, password) {
  const answer = await postJson(kind === 'signup' ? '/api/signup' : '/api/login', { username, password });
  if (answer.status === 200) {
    const who = parseMe(answer.data) ?? { username, playing: [] };
    current = Promise.resolve(who);
    return { me: who };
  }
  return answer;
}

/** `POST /api/logout`; true when the server ended the session. */
export async function logout() {
  const { status } = await postJson('/api/logout');
  const out = status === 204 || status === 200;
  if (out) {
    current = Promise.resolve(null);
    forgetName();
  }
  return out;
}

/** `POST /api/logout/everywhere`: every session of the account ends, this one too. */
export async function logoutEverywhere() {
  const answer = await postJson('/api/logout/everywhere');
  if (answer.status === 204) {
    current = Promise.resolve(null);
    forgetName();
  }
  return answer;
}

/** `POST /api/password`: a new password, given the current one; other sessions end. */
export async function changePassword(currentPassword, newPassword) {
  return postJson('/api/password', { current: currentPassword, new: newPassword });
}

/** The player page of `username`. */
export function playerPath(username) {
  return `/@/${encodeURIComponent(username)}`;
}

/** The login form's address, coming back to this page afterwards. */
function loginPath(page, here) {
  if (here === '/' || here.startsWith('/login') || here.startsWith('/signup')) return `/${page}`;
  return `/${page}?next=${encodeURIComponent(here)}`;
}

/**
 * Fills in the top bar's account part (`#account`) once the server says who this is: the
 * username and "Log out", or "Log in" and "Sign up". When logged in, the anonymous name control
 * (`#name-box`, namebox.js) goes: an account plays under its username.
 */
export async function installTopBar() {
  const slot = document.getElementById('account');
  if (!slot) return;
  const who = await me();
  const nameBox = document.getElementById('name-box');
  if (nameBox) nameBox.hidden = Boolean(who);
  const here = `${location.pathname}${location.search}`;
  const link = (id, href, text) => {
    const a = document.createElement('a');
    a.id = id;
    a.href = href;
    a.textContent = text;
    return a;
  };
  if (who) {
    const name = link('account-name', playerPath(who.username), who.username);
    name.className = 'account-name';
    name.title = 'Your player page';
    const out = document.createElement('button');
    out.type = 'button';
    out.id = 'logout';
    out.className = 'link';
    out.textContent = 'Log out';
    out.addEventListener('click', async () => {
      out.disabled = true;
      await logout();
      location.reload();
    });
    slot.replaceChildren(name, out);
  } else {
    slot.replaceChildren(link('login-link', loginPath('login', here), 'Log in'), link('signup-link', loginPath('signup', here), 'Sign up'));
  }
  slot.hidden = false;
}
