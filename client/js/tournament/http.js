// The tournament endpoints as the pages call them: `GET` through api.js, and `POST` as a form
// (application/x-www-form-urlencoded, lichess's way for these endpoints; the session cookie
// authenticates), answered in api.js's one shape `{status, data}`.

import { UNREACHABLE } from '../api.js';
import { formBody } from './common.js';

/** `POST path` with `fields` as a form (common.js, formBody): `{status, data}`; status 0 when unreachable. */
export async function postForm(path, fields = {}) {
  let response;
  try {
    response = await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: formBody(fields),
    });
  } catch {
    return { status: 0, data: { error: UNREACHABLE } };
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null; // not JSON (a proxy's error page): the status says enough
  }
  return { status: response.status, data };
}
