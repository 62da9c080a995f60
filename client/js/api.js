// The HTTP API as the pages use it: JSON in and out, same origin only (the session cookie goes
// with every request by itself), and one shape for every answer — `{status, data}` — so a
// refusal's `{"error"}` text reaches the page to be shown as the server wrote it.

/** What a page shows when the server could not be reached at all. */
export const UNREACHABLE = 'Could not reach the server; check the connection and try again.';

/** The answer to `fetch(path, init)` read as JSON: `{status, data}`; status 0 when unreachable. */
async function request(path, init) {
  let response;
  try {
    response = await fetch(path, { credentials: 'same-origin', cache: 'no-store', ...init });
  } catch {
    return { status: 0, data: { error: UNREACHABLE } };
  }
  let data = null;
  if (response.status !== 204) {
    try {
      data = await response.json();
    } catch {
      data = null; // not JSON (a proxy's error page): the status says enough
    }
  }
  return { status: response.status, data };
}

/** `GET path`: `{status, data}`. */
export function getJson(path) {
  return request(path, { headers: { Accept: 'application/json' } });
}

/** `POST path` with `body` as JSON: `{status, data}`. */
export function postJson(path, body) {
  return request(path, {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** `DELETE path`: `{status, data}` (data null for 204). */
export function deleteJson(path) {
  return request(path, { method: 'DELETE', headers: { Accept: 'application/json' } });
}

/** The text to show for a refused request: the server's `error`, else what the status means. */
export function errorText({ status, data }) {
  if (data && typeof data.error === 'string' && data.error) return data.error;
  if (status === 0) return UNREACHABLE;
  if (status === 429) return 'Too many attempts; wait a little and try again.';
  return `The server answered ${status}; try again in a moment.`;
}
