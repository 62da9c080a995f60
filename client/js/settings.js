// The browser's own preferences for how the site feels: sound (volume and mute), whether to be
// notified of one's move, and blind mode. Kept in localStorage (without storage they last as
// long as the page), and followed live: a change here, or in another tab of the same browser,
// reaches every module that listens, so muting in one tab mutes them all.

/** Each setting, with its value when none was stored (and the only type it may take). */
const DEFAULTS = { volume: 0.7, muted: false, notify: false, blind: false };
const PREFIX = 'gambit:setting:';

const page = {}; // values set while storage is unavailable
const listeners = new Map(); // name → Set of handlers

/** Whether `value` fits setting `name` (a stored value from an older page may not). */
function valid(name, value) {
  if (name === 'volume') return typeof value === 'number' && value >= 0 && value <= 1;
  return typeof value === typeof DEFAULTS[name];
}

/** The value of setting `name`. */
export function setting(name) {
  let value = page[name];
  try {
    const stored = localStorage.getItem(PREFIX + name);
    if (stored !== null) value = JSON.parse(stored);
  } catch { /* unreadable or unavailable: the page's own value or the default */ }
  return valid(name, value) ? value : DEFAULTS[name];
}

/** Sets `name` to `value`, remembers it, and tells this page's listeners. */
export function setSetting(name, value) {
  if (!(name in DEFAULTS) || !valid(name, value)) return;
  page[name] = value;
  try {
    localStorage.setItem(PREFIX + name, JSON.stringify(value));
  } catch { /* see above */ }
  tell(name);
}

/** Calls `handler(value)` whenever setting `name` changes (here or in another tab); returns the function that stops it. */
export function onSetting(name, handler) {
  if (!listeners.has(name)) listeners.set(name, new Set());
  listeners.get(name).add(handler);
  return () => listeners.get(name).delete(handler);
}

function tell(name) {
  const value = setting(name);
  for (const handler of [...(listeners.get(name) || [])]) handler(value);
}

// Another tab changed a setting: the `storage` event fires only in the other tabs.
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (e) => {
    if (e.key?.startsWith(PREFIX)) {
      const name = e.key.slice(PREFIX.length);
      if (name in DEFAULTS) tell(name);
    }
  });
}
